"""reports: sensitivity sweeps, figures and the HTML/Markdown report (the ``puf`` CLI is :mod:`puf.cli`)."""

__all__ = []
