"""``puf design``: search the grammar of measures for those that meet chosen properties.

Exit 0 with the ranked table (even when no candidate qualifies: that is a
finding); exit 2 with a one-line reason for an unknown property, an unreadable
grammar file or an output that cannot be written.
"""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse
import json

from puf.lines import print_message, terminal_width

from ..exitcodes import EXIT_BAD_INPUT, EXIT_OK
from ._time_limit import add_time_limit, time_limit_error


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``design`` subcommand to ``subparsers``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["design", "--require", "anonymity,range", "--require", "pigou-dalton"]).require
    ['anonymity,range', 'pigou-dalton']
    """
    parser = subparsers.add_parser(
        "design",
        help="find the grammar's measures that meet chosen properties",
        description="Enumerate the grammar of measures (puf.grammar), decide each candidate's cells "
        "(proof where possible, search otherwise) and list those meeting --require "
        "(and violating --forbid), ranked by how much is proven.",
    )
    # Repeatable: a second --require adds to the first (argparse's default would keep the last alone).
    parser.add_argument(
        "--require",
        required=True,
        action="append",
        metavar="P,Q,...",
        help="comma-separated properties that must hold (repeatable)",
    )
    parser.add_argument(
        "--forbid",
        action="append",
        default=[],
        metavar="P,Q,...",
        help="comma-separated properties that must be violated (repeatable)",
    )
    parser.add_argument("--grammar", metavar="FILE", help="a JSON grammar (default: the built-in grid)")
    parser.add_argument(
        "--inequality", action="store_true", help="only the inequality forms (candidates that read effectiveness alone)"
    )
    parser.add_argument(
        "--proofs",
        choices=("smt", "rules", "none"),
        default="smt",
        help="how cells are proven before searching (default smt: rules, then z3)",
    )
    parser.add_argument(
        "--max-examples",
        type=int,
        default=None,
        metavar="N",
        help="search budget per undecided cell (default: the shared default)",
    )
    parser.add_argument("--random-state", type=int, default=0, metavar="N", help="seed (default 0)")
    add_time_limit(parser)
    parser.add_argument("--jobs", type=int, default=2, metavar="N", help="worker processes (default 2)")
    parser.add_argument("--json", metavar="FILE", help="also write the result as JSON")
    parser.add_argument("--markdown", metavar="FILE", help="also write the result as a report section")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _fail(reason: str) -> int:
    print_message(f"puf design: {reason}")
    return EXIT_BAD_INPUT


def _names(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def run(args: argparse.Namespace) -> int:
    """Run ``puf design``; return the exit code.

    Examples
    --------
    >>> from puf.cli import main
    >>> main(["design", "--require", "no-such-property"])
    2
    """
    from puf.grammar import load_grammar
    from puf.properties import CATALOG
    from puf.properties.running.budget import example_budget
    from puf.properties.proving.design import INEQUALITY, design
    from puf.properties.proving.design_display import design_document, design_markdown, format_design

    from ._output import check_writable_file

    require, forbid = _names(",".join(args.require)), _names(",".join(args.forbid))
    unknown = [p for p in require + forbid if p not in CATALOG]
    if unknown or not require:
        return _fail(
            f"unknown property {unknown[0]!r}; known: {', '.join(CATALOG)}"
            if unknown
            else "--require needs at least one property"
        )
    if time_limit_error(args.time_limit):
        return _fail(str(time_limit_error(args.time_limit)))
    if args.jobs < 1 or args.random_state < 0:
        return _fail(f"--jobs must be >= 1 and --random-state >= 0, got {args.jobs} and {args.random_state}")
    try:
        max_examples = example_budget(args.max_examples, name="--max-examples")
        grammar = load_grammar(args.grammar) if args.grammar else None
        for option, path in (("--json", args.json), ("--markdown", args.markdown)):
            if path:
                check_writable_file(path, option=option)
    except ValueError as exc:
        return _fail(str(exc))
    accepted, rejected = design(
        require,
        forbid,
        grammar=grammar,
        kinds=INEQUALITY if args.inequality else ("pair", "index"),
        proofs=args.proofs,
        max_examples=max_examples,
        random_state=args.random_state,
        time_limit=args.time_limit,
        n_jobs=args.jobs,
        progress=not args.quiet,
    )
    options = dict(require=require, forbid=forbid)
    print(format_design(accepted, rejected, width=terminal_width(), **options))
    note = (
        f"puf design --require {','.join(require)}"
        + (f" --forbid {','.join(forbid)}" if forbid else "")
        + (f" --grammar {args.grammar}" if args.grammar else "")
        + (" --inequality" if args.inequality else "")
        + f": proofs {args.proofs}, example budget {max_examples}, random_state={args.random_state}"
    )
    from puf.files import atomic_file

    if args.json:
        with atomic_file(args.json) as handle:
            json.dump(design_document(accepted, rejected, note=note, **options), handle, indent=1, ensure_ascii=False)
            handle.write("\n")
    if args.markdown:
        with atomic_file(args.markdown) as handle:
            handle.write(design_markdown(accepted, rejected, note=note, **options))
    return EXIT_OK
