"""One module per ``puf`` subcommand, each exposing ``register(subparsers)``.

Subcommand modules import their heavy dependencies inside ``run`` so that
``puf --help`` and ``puf --version`` stay fast.
"""

__all__ = ["COMMANDS"]

#: Order is the order shown by ``puf --help``.
COMMANDS = ("measures", "check", "design", "power", "report", "evaluate", "data", "bench")
