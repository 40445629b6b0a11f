"""``python -m puf.cli``: the ``puf`` command without the console script."""

from puf.cli import command

command()
