"""``puf check``: put a measure (or every built-in) through the property catalog.

Exit 0 whatever the verdicts (they are findings); exit 2 with a one-line
reason when the measure cannot be imported, has a parameter that is not a
Population field, or does not return a number.
"""

from __future__ import annotations

__all__ = ["register", "run"]

from typing import TYPE_CHECKING, Any
import argparse
import json
import os


from puf.lines import fitted, print_message, terminal_width

from ..exitcodes import EXIT_BAD_INPUT, EXIT_OK
from ._prints import kept_prints
from ._time_limit import add_time_budget, add_time_limit, stopped_note, time_limit_error, timed_out_note

if TYPE_CHECKING:
    from puf.metadata import Measure
    from puf.properties.running.verdict import Verdict


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand to ``subparsers``.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["check", "--all"]).all
    True
    """
    parser = subparsers.add_parser(
        "check",
        help="check a fairness measure against every property",
        description="Put MODULE:FUNCTION (a function whose parameters are Population field "
        "names) through the property catalog, or --all built-in measures.",
    )
    parser.add_argument(
        "measure",
        nargs="?",
        metavar="MODULE:FUNCTION",
        help="the measure to check: MODULE:FUNCTION, FILE.py:FUNCTION or a registered name",
    )
    parser.add_argument(
        "--all", action="store_true", help="print the measure x property matrix of every built-in measure"
    )
    parser.add_argument(
        "--property",
        action="append",
        dest="properties",
        type=_names,
        metavar="NAME[,NAME...]",
        help="check only these properties (a comma list; repeatable)",
    )
    parser.add_argument(
        "--max-examples",
        type=int,
        default=None,
        metavar="N",
        help="example budget per property (default: the shared default, properties.running.budget)",
    )
    parser.add_argument(
        "--proofs",
        choices=("rules", "smt", "none"),
        default="rules",
        help="prove cells of grammar measures: composition rules (default), also "
        "z3 for m <= 4 (smt, the extra 'proofs'), or none",
    )
    parser.add_argument(
        "--random-state",
        type=int,
        default=0,
        metavar="N",
        help="seed; the same seed gives the same verdicts (default 0)",
    )
    add_time_limit(parser)
    add_time_budget(parser)
    parser.add_argument(
        "--jobs",
        type=int,
        default=2,
        metavar="N",
        help="processes over which the checks are spread (default 2)",
    )
    parser.add_argument("--json", metavar="FILE", help="also write the verdicts as JSON")
    parser.add_argument(
        "--known",
        metavar="FILE",
        help="also write the verdicts and their examples as a known file "
        "(the format of properties/knowledge/known/README.md; one measure only)",
    )
    parser.add_argument(
        "--update-known",
        action="store_true",
        help="with --all: write the verdicts and examples of the properties "
        "checked into every built-in's known file (other cells kept; new or "
        "changed cells get the runner's reason, to be rewritten)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=run)


def _say(text: str) -> None:
    """Print ``text`` in lines that fit the terminal (:func:`puf.lines.terminal_width`)."""
    print(fitted(text, terminal_width()))


def _fail(reason: str) -> int:
    print_message(f"puf check: {reason}")
    return EXIT_BAD_INPUT


def _pinned_before(path: str | None, measure: Measure) -> bool | dict[str, Any]:
    """The examples of an existing pinned file of this measure, replayed first: re-pinning keeps
    a stored counterexample that still shows its violation. True (the packaged ones) otherwise."""
    import os

    from puf.properties import CATALOG
    from puf.properties.knowledge.pinned import read_pinned

    if not path or not os.path.isfile(path):
        return True
    try:
        return read_pinned(path, catalog=CATALOG, measure=measure.name)
    except ValueError:
        return True  # not this measure's file (or not one): it is replaced


def _check_all(args: argparse.Namespace, options: dict[str, Any]) -> list[Verdict]:
    """Every built-in through the properties: the matrix, each violation, and (with
    ``--update-known``) the verdicts written into the known files."""
    from puf.properties import CATALOG, all_verdicts, verdict_matrix
    from puf.properties.running.display import format_matrix

    results = all_verdicts(n_jobs=args.jobs, progress=not args.quiet, **options)
    print(format_matrix(verdict_matrix(results=results), catalog=CATALOG, width=terminal_width()))
    for v in results:
        if v.status in ("violated", "not-found", "undefined"):
            note = " (informational)" if CATALOG[v.property].informational and v.status == "violated" else ""
            _say(f"{v.measure} / {v.property}: {v.status}{note} — {v.reason}")
    if args.update_known:
        from puf.properties.knowledge.known.updates import update_known

        written = update_known(results)
        _say(f"updated {len(written)} known files: {', '.join(p.stem for p in written)}")
    return results


def _names(text: str) -> list[str]:
    """One ``--property`` value as the names it lists (``a,b``: two; blanks around commas dropped)."""
    return [name.strip() for name in text.split(",") if name.strip()]


#: The widest line of a refusal, ``puf check: `` included: it reads on a terminal of 100 columns.
_WIDTH = 100


def _unknown_property(name: str, known: list[str]) -> str:
    """The refusal of an unknown property: the closest known name, and as many known ones as fit
    a line of ``_WIDTH`` columns (the catalog lists them all).

    Examples
    --------
    >>> _unknown_property("anonimity", ["range", "anonymity", "defined"])
    "unknown property 'anonimity'; did you mean 'anonymity'? known: range, anonymity, defined"
    >>> line = _unknown_property("x", [f"property-{i}" for i in range(40)])
    >>> len("puf check: " + line) <= _WIDTH, line.endswith("…")
    (True, True)
    """
    import difflib

    close = difflib.get_close_matches(name, known, n=1)
    head = f"unknown property {name!r}" + (f"; did you mean {close[0]!r}?" if close else ";")
    room = _WIDTH - len("puf check: ") - len(head) - len(" known: ")
    listed = ", ".join(known)
    if len(listed) > room:
        listed = listed[: max(room - len(", …"), 0)].rsplit(", ", 1)[0] + ", …"
    return f"{head} known: {listed}"


def _refusal(args: argparse.Namespace) -> str | None:
    """What is wrong with the options, checked before any work (None: nothing)."""
    from puf.properties import CATALOG

    unknown = [p for p in args.properties or () if p not in CATALOG]
    if args.all == bool(args.measure):
        return "give either MODULE:FUNCTION or --all"
    if args.known and args.all:
        return "--known writes one measure's file: give MODULE:FUNCTION, not --all"
    if args.update_known and not args.all:
        return "--update-known writes the built-ins' known files: give --all"
    if unknown:
        return _unknown_property(unknown[0], list(CATALOG))
    if args.jobs < 1:
        return f"--jobs must be >= 1, got {args.jobs}"
    if args.random_state < 0:  # numpy and Hypothesis seeds are non-negative
        return f"--random-state must be >= 0, got {args.random_state}"
    return time_limit_error(args.time_limit) or time_limit_error(args.time_budget, "--time-budget")


def _property_bar(name: str, args: argparse.Namespace) -> Any:
    """A bar over one measure's properties, drawn at a terminal only (tqdm's ``disable=None``):
    it clears itself before the table, and a pipe or a log gets the table alone."""
    from tqdm.auto import tqdm

    from puf.properties import CATALOG

    total = len(args.properties or CATALOG)
    return tqdm(
        total=total, desc=f"puf check {name}", unit="property", leave=False, disable=True if args.quiet else None
    )


def _pin(args: argparse.Namespace, measure: Measure, results: list[Verdict]) -> None:
    """Write ``--known``'s file and say where, for which measure."""
    from puf.files import atomic_file
    from puf.properties.knowledge.known.updates import known_from_verdicts

    with atomic_file(args.known) as handle:
        json.dump(known_from_verdicts(measure, results), handle, indent=1, ensure_ascii=False)
        handle.write("\n")
    _say(
        f"puf check: pinned {len(results)} verdict{'s' * (len(results) != 1)} of {measure.name} "
        f"({args.measure}) in {os.path.abspath(args.known)}; `pytest --measure {args.measure} "
        f"--known {args.known}` fails when one of them changes"
    )


def run(args: argparse.Namespace) -> int:
    """Run ``puf check``; return the exit code.

    Examples
    --------
    >>> from puf.cli import main
    >>> main(["check", "no_such_module_xyz:f"])
    2
    """
    from puf.properties.running.budget import example_budget

    if args.properties is not None:  # each --property is a list of names
        args.properties = [name for names in args.properties for name in names]
    problem = _refusal(args)
    if problem:
        return _fail(problem)
    options = {
        "properties": args.properties,
        "random_state": args.random_state,
        "proofs": args.proofs,
        "time_limit": args.time_limit,
        "time_budget": args.time_budget,
    }
    try:
        options["max_examples"] = example_budget(args.max_examples, name="--max-examples")
    except ValueError as exc:
        return _fail(str(exc))
    from ._output import check_writable_file

    for option, path in (("--json", args.json), ("--known", args.known)):
        try:
            if path:
                check_writable_file(path, option=option)  # before the work, not after
        except ValueError as exc:
            return _fail(str(exc))
    with kept_prints("puf check"):  # last: after the table and the notes, or after a failure
        return _checked(args, options)


def _checked(args: argparse.Namespace, options: dict[str, Any]) -> int:
    """The checks :func:`run` asked for, their table and notes; the exit code."""
    from puf.files import atomic_file
    from puf.properties import CATALOG, verdicts
    from puf.properties.running.display import (
        defined_note,
        direction_note,
        format_verdicts,
        raised_note,
        range_note,
        stateful_note,
    )
    from puf.properties.running.isolation import load_isolated

    if args.all:
        results = _check_all(args, options)
    else:
        try:
            measure = load_isolated(args.measure)  # a user's module never runs here
            with _property_bar(measure.name, args) as bar:
                known = _pinned_before(args.known, measure)
                results = verdicts(measure, known=known, progress=bar, n_jobs=args.jobs, **options)
        except ValueError as exc:
            return _fail(str(exc).splitlines()[0])
        print(format_verdicts(results, catalog=CATALOG, width=terminal_width()))
        notes = (
            direction_note(measure, results),
            raised_note(measure, results),
            stateful_note(results),
            range_note(measure, results),
            defined_note(results),
        )
        for note in notes:
            if note:
                _say(note)
        if args.known:
            _pin(args, measure, results)
    for note in (timed_out_note(results, args.time_limit), stopped_note(results, args.time_budget)):
        if note:
            _say(note)
    if args.json:  # the schema of puf report's properties.json (reports.verdicts)
        from puf.reports.verdicts import verdict_document, verdict_record

        note = (
            f"puf check {'--all' if args.all else args.measure}: example budget "
            f"{results[0].max_examples} per property, random_state={results[0].random_state}"
        )
        document = verdict_document([verdict_record(v) for v in results], note)
        try:
            with atomic_file(args.json) as handle:
                json.dump(document, handle, indent=1, ensure_ascii=False)
                handle.write("\n")
        except OSError as exc:
            return _fail(f"--json {args.json}: cannot write it ({exc.strerror})")
        names = sorted({v.measure for v in results})
        which = names[0] if len(names) == 1 else f"{len(names)} measures"
        _say(f"puf check: wrote the verdicts of {which} to {os.path.abspath(args.json)}")
    return EXIT_OK
