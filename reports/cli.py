"""The ``puf`` command line: a thin dispatcher over :mod:`reports.commands`."""

__all__ = ["main", "build_parser"]

import argparse
import importlib
import sys

from .commands import COMMANDS


def build_parser():
    """Return the ``puf`` argument parser with every available subcommand.

    Examples
    --------
    >>> parser = build_parser()
    >>> parser.parse_args(["measures"]).command
    'measures'
    """
    from puf import __version__

    parser = argparse.ArgumentParser(
        prog="puf",
        description="Property-based harness for individual user fairness measures.",
    )
    parser.add_argument("--version", action="version", version=f"puf-harness {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"reports.commands.{name}")
        except ModuleNotFoundError as exc:
            # A subcommand whose module is not part of this install is simply absent.
            if exc.name != f"reports.commands.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv=None):
    """Run the ``puf`` command line and return its exit code.

    Examples
    --------
    >>> main(["measures", "--format", "names"])  # doctest: +ELLIPSIS
    puf
    puf-as-printed
    ...
    0
    """
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    return int(args.func(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
