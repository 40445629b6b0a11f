"""reports: sensitivity sweeps, figures, the HTML/Markdown report and the ``puf`` CLI."""

__all__ = []
