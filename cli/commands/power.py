"""``puf power``: the harness's search power, measured on the flaw corpus.

Runs the planted-flaw measures and the sound controls of
:mod:`properties.knowledge.corpus` at each example budget and seed and prints the
detection rate per property and overall, the false-alarm rate on the controls
and the seconds per corpus pass. Exit 0; exit 2 on a bad option.
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse

from puf.lines import print_message

from ..exitcodes import EXIT_BAD_INPUT, EXIT_OK


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``power`` subcommand to ``subparsers``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["power", "--budgets", "10,60"]).budgets
    '10,60'
    """
    parser = subparsers.add_parser(
        "power",
        help="measure how often the harness finds planted flaws",
        description="Run the flaw corpus (planted flaws and sound controls) and print the "
        "detection rate per property, the false alarms and the seconds, per budget.",
    )
    parser.add_argument(
        "--budgets",
        default="10,30,60",
        metavar="N,N,...",
        help="example budgets (default 10,30,60; the benchmark also runs 100,300,1000)",
    )
    parser.add_argument("--seeds", type=int, default=5, metavar="N", help="seeds 0..N-1 (default 5)")
    parser.add_argument(
        "--measure", action="append", dest="names", metavar="NAME", help="only this corpus entry (repeatable)"
    )
    parser.add_argument(
        "--known",
        action="store_true",
        help="let the runner try the stored examples of properties/knowledge/known first (default: the search alone)",
    )
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="worker processes (default 2)")
    parser.add_argument("--csv", metavar="FILE", help="also write every run as CSV")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _fail(reason: str) -> int:
    print_message(f"puf power: {reason}")
    return EXIT_BAD_INPUT


def run(args: argparse.Namespace) -> int:
    """Run ``puf power``; return the exit code.

    Examples
    --------
    >>> from puf.cli import main
    >>> main(["power", "--budgets", "x"])
    2
    """
    from puf.properties.knowledge.corpus import CORPUS
    from puf.properties.knowledge.power import format_power, power_runs, power_summary
    from puf.properties.running.matrix import verdicts

    try:
        budgets = [int(b) for b in args.budgets.split(",")]
    except ValueError:
        return _fail(f"--budgets must be integers separated by commas, got {args.budgets!r}")
    if not budgets or min(budgets) < 1:
        return _fail(f"--budgets must be >= 1, got {args.budgets!r}")
    if args.seeds < 1:
        return _fail(f"--seeds must be >= 1, got {args.seeds}")
    if args.jobs < 1:
        return _fail(f"--jobs must be >= 1, got {args.jobs}")
    if args.csv:
        from ._output import check_writable_file

        try:
            check_writable_file(args.csv, option="--csv")  # before the corpus runs, not after
        except ValueError as exc:
            return _fail(str(exc))
    unknown = [n for n in args.names or () if n not in CORPUS]
    if unknown:
        return _fail(f"unknown corpus entry {unknown[0]!r}; see properties.knowledge.corpus.CORPUS")
    runs = power_runs(
        check=verdicts,
        budgets=budgets,
        seeds=range(args.seeds),
        names=args.names,
        known=args.known,
        n_jobs=args.jobs,
        progress=not args.quiet,
    )
    if args.csv:
        from puf.files import atomic_file

        with atomic_file(args.csv) as handle:
            runs.to_csv(handle, index=False)
    from puf.lines import terminal_width

    print(format_power(power_summary(runs), width=terminal_width()))
    return EXIT_OK
