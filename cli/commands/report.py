"""``puf report``: sensitivity sweeps, figures, property verdicts, as HTML + Markdown + data."""

from __future__ import annotations

__all__ = ["register", "run"]

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any
import argparse

from puf.lines import print_message
from puf.properties.running.budget import DEFAULT_TIME_LIMIT

from ..exitcodes import EXIT_OK, exit_code
from ._evaluate_options import add_pair_options, add_scheduler_option, engine_options, pair_options, parse_rankers
from ._prints import kept_prints
from ._time_limit import add_time_limit, time_limit_error

if TYPE_CHECKING:
    from puf.metadata import Measure


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``report`` to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["report", "--quick", "--measure", "m:f", "--measure", "n:g"])
    >>> args.out, args.quick, args.measure, args.random_state, args.force, args.time_limit
    ('puf-report', True, ['m:f', 'n:g'], 0, False, 2.0)
    """
    parser = subparsers.add_parser(
        "report",
        help="write the sensitivity report (HTML, Markdown, PNG figures, CSV data)",
        description="Run the sensitivity sweeps and the property verdicts and write a "
        "self-contained report: DIR/index.html, DIR/report.md, one PNG per figure, "
        "one CSV per sweep, properties.json.",
    )
    parser.add_argument("--out", default="puf-report", metavar="DIR", help="output directory (default: ./puf-report)")
    parser.add_argument(
        "--quick", action="store_true", help="smaller worlds, fewer seeds and property examples (the fast check)"
    )
    parser.add_argument(
        "--measure",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="add your measure (MODULE:FUNCTION, FILE.py:FUNCTION or a registered "
        "name) to every sweep and to the verdict matrix (repeatable)",
    )
    parser.add_argument(
        "--known",
        action="append",
        default=[],
        metavar="FILE",
        help="a --measure's known file (as puf check MEASURE --known FILE writes it): that measure's "
        "cells in the matrix are the verdicts pinned there (repeatable, one per measure)",
    )
    parser.add_argument(
        "--random-state",
        type=int,
        default=0,
        metavar="N",
        help="seed of everything random; seeds N, N+1, ... are used (default 0)",
    )
    parser.add_argument(
        "--data",
        default=None,
        metavar="NAME",
        help="also report on real data: ml-100k, ml-1m (fetched on first use) or a "
        "folder of RecBole atomic files; adds the rankers' measure agreement "
        "and the zero-relevance and skewness sweeps on its histories and lists",
    )
    # The same options as puf evaluate's, for the real-data sections (--data) only.
    add_pair_options(parser, estimates="with --data: NAME_estimates.csv and each sweep's CSV")
    add_scheduler_option(parser)
    parser.add_argument(
        "--rankers",
        default=None,
        help="with --data: comma-separated rankers of the real-data sections, 'paper' (the PUF "
        "paper's seven) or 'all' (every installed one; default)",
    )
    parser.add_argument(
        "--design",
        default=None,
        metavar="P,Q,...",
        help="add a 'Designed measures' section: the grammar's measures meeting these properties "
        "(as puf design --require), at the report's example budget",
    )
    parser.add_argument(
        "--design-forbid", default="", metavar="P,Q,...", help="with --design: properties that must be violated"
    )
    parser.add_argument(
        "--design-grammar",
        default=None,
        metavar="FILE",
        help="with --design: a JSON grammar (default: the built-in grid)",
    )
    parser.add_argument(
        "--workers",
        type=int,
        default=None,
        metavar="N",
        help="processes for the sweeps' worlds (default: one per core; 1 runs them in this process); "
        "the files are the same whatever N is",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar or summary")
    # Every call: the sweeps (where a --measure over it stops the report with a one-line
    # message), the property verdicts and the designed measures (a verdict over it is
    # undefined: timed out).
    add_time_limit(parser)
    parser.add_argument("--force", action="store_true", help="write into DIR even if it exists and is not empty")
    parser.add_argument(
        "--wait", action="store_true", help="if another run is writing DIR, wait for it to finish instead of refusing"
    )
    parser.set_defaults(func=run)


def _user_measures(specs: Iterable[str], time_limit: float) -> list[Measure]:
    """Load --measure specs; a name taken by a built-in (or twice) is replaced by its spec.

    The same measure given twice (by any spelling) is refused. Each is imported
    and runs in a worker process (never in this one) with ``time_limit`` seconds
    per call in the sweeps (the verdicts are given the same limit), so a hanging
    measure cannot hang the report; a function of ``puf`` runs here.
    """
    import dataclasses

    from puf.properties.running.isolation import load_isolated
    from puf import MEASURES

    loaded, taken, origins = [], {name.lower() for name in MEASURES}, {}
    for spec in specs:
        measure = load_isolated(spec, time_limit=time_limit)
        origin = getattr(measure.function, "origin", measure.function)
        if origin in origins.values() or spec in origins:
            first = next(s for s, o in origins.items() if o == origin or s == spec)
            raise ValueError(f"--measure {spec} is given twice (first as {first})")
        origins[spec] = origin
        if measure.name.lower() in taken:
            measure = dataclasses.replace(measure, name=spec)
        if measure.name.lower() in taken:
            raise ValueError(f"--measure {spec} is given twice")
        taken.add(measure.name.lower())
        loaded.append(measure)  # (a spec's function is bounded by time_limit already)
    return loaded


def _check_data(data: str | None) -> None:
    """Refuse a --data that is neither a known dataset nor an existing path (before any work)."""
    if data is None:
        return
    from pathlib import Path

    from puf.data import DATASETS

    if data not in DATASETS and not Path(data).exists():
        raise ValueError(
            f"unknown dataset {data!r}: neither a known name ({', '.join(DATASETS)}) nor an existing file or folder"
        )  # the words of puf.data.load


def _design(args: argparse.Namespace) -> dict[str, Any] | None:
    """The ``design`` option of :func:`puf.reports.report.build_report`, or None; checked before any work."""
    if args.design is None:
        if args.design_forbid or args.design_grammar:
            raise ValueError("--design-forbid and --design-grammar need --design")
        return None
    from puf.grammar import load_grammar
    from puf.properties import CATALOG

    require = [p.strip() for p in args.design.split(",") if p.strip()]
    forbid = [p.strip() for p in args.design_forbid.split(",") if p.strip()]
    unknown = [p for p in require + forbid if p not in CATALOG]
    if unknown or not require:
        raise ValueError(
            f"--design: unknown property {unknown[0]!r}; known: {', '.join(CATALOG)}"
            if unknown
            else "--design needs at least one property"
        )
    grammar = load_grammar(args.design_grammar) if args.design_grammar else None
    name = f"the grammar {args.design_grammar}" if args.design_grammar else "the default grid"
    return {"require": require, "forbid": forbid, "grammar": grammar, "grammar_name": name}


def _known_files(paths: Iterable[str], extra: Iterable[Measure]) -> dict[str, str]:
    """Measure name -> known file, each checked now (before any work) and matched to a --measure.

    Examples
    --------
    >>> _known_files([], [])
    {}
    """
    from puf.properties import CATALOG
    from puf.properties.knowledge.pinned import read_pinned

    names, known = {m.name for m in extra}, {}
    for path in paths:
        pinned = read_pinned(path, catalog=CATALOG)["measure"]
        if pinned not in names:
            given = ", ".join(sorted(names)) or "none"
            raise ValueError(f"--known {path}: pins measure {pinned!r}, which is not a --measure (given: {given})")
        if pinned in known:
            raise ValueError(f"--known {path}: measure {pinned!r} is pinned twice (first in {known[pinned]})")
        known[pinned] = path
    return known


def _command(args: argparse.Namespace) -> str:
    parts = ["puf report", f"--out {args.out}"] + (["--quick"] if args.quick else [])
    parts += [f"--measure {m}" for m in args.measure] + [f"--known {k}" for k in getattr(args, "known", [])]
    parts += [f"--random-state {args.random_state}"]
    time_limit = getattr(args, "time_limit", DEFAULT_TIME_LIMIT)
    parts += [f"--time-limit {time_limit:g}"] if time_limit != DEFAULT_TIME_LIMIT else []
    if args.design is not None:
        parts.append(f"--design {args.design}")
        parts += [f"--design-forbid {args.design_forbid}"] if args.design_forbid else []
        parts += [f"--design-grammar {args.design_grammar}"] if args.design_grammar else []
    parts += [f"--data {args.data}"] if args.data else []
    pairs = {
        "--rankers": getattr(args, "rankers", None),
        "--max-pairs": getattr(args, "max_pairs", None),
        "--sample": getattr(args, "sample", None),
        "--scheduler": getattr(args, "scheduler", None),
    }
    return " ".join(parts + [f"{option} {value}" for option, value in pairs.items() if value is not None])


def run(args: argparse.Namespace) -> int:
    """Run ``puf report``; return 0, 2 (bad input) or 1 (a dataset download failed).

    Refuses an existing non-empty output directory unless ``--force`` (then
    the report's files are replaced, nothing else is touched), and one that
    another run is writing unless ``--wait``. The output folder, the measures
    and ``--data`` are checked before any work. The report is built beside the
    folder and moved in once complete: a report that fails (or is interrupted)
    leaves the folder as it was.

    Examples
    --------
    >>> import argparse, contextlib, io, tempfile
    >>> never_made = f"{tempfile.mkdtemp()}/never-made"
    >>> args = argparse.Namespace(out=never_made, force=False, measure=["no_such_module:f"],
    ...                           quick=True, random_state=0, data=None, quiet=True,
    ...                           time_limit=10.0, wait=False)
    >>> with contextlib.redirect_stderr(io.StringIO()) as err:
    ...     code = run(args)
    >>> code, err.getvalue().strip()
    (2, "puf report: cannot import module 'no_such_module': No module named 'no_such_module'")
    """
    with kept_prints("puf report", "the measures" if len(args.measure or ()) > 1 else "the measure"):
        return _reported(args)


def _reported(args: argparse.Namespace) -> int:
    """The report :func:`run` asked for, built and named; the exit code."""
    import time
    from pathlib import Path

    from ._output import check_output_folder, claimed_folder

    out = Path(args.out)
    try:
        limit_error = time_limit_error(args.time_limit)
        if limit_error:
            raise ValueError(limit_error)
        if args.random_state < 0:
            raise ValueError(f"--random-state must be >= 0, got {args.random_state}")
        workers = getattr(args, "workers", None)
        if workers is not None and workers < 1:
            raise ValueError(f"--workers must be >= 1, got {workers}")
        pairs = pair_options(args)
        if args.data is None and any(value is not None for value in pairs.values()):
            raise ValueError("--max-pairs and --sample need --data: they bound the real data's work over user pairs")
        if args.data is None and getattr(args, "scheduler", None):
            raise ValueError("--scheduler needs --data: it runs the real data's engine blocks on a cluster")
        rankers = getattr(args, "rankers", None)
        if rankers is not None:
            if args.data is None:
                raise ValueError("--rankers needs --data: it names the rankers of the real-data sections")
            rankers = parse_rankers(rankers)
        check_output_folder(out, force=args.force)
        extra = _user_measures(args.measure, args.time_limit)
        known = _known_files(getattr(args, "known", []), extra)
        _check_data(args.data)
        design = _design(args)
    except ValueError as exc:
        print_message(f"puf report: {exc}")
        return exit_code(exc)
    from puf.evaluation import Study
    from puf.reports.report import build_report

    start = time.perf_counter()
    try:
        with (
            engine_options(getattr(args, "scheduler", None)) as engine,
            claimed_folder(out, force=args.force, wait=args.wait, command=_command(args)) as staging,
        ):
            build_report(
                staging,
                quick=args.quick,
                extra=extra,
                random_state=args.random_state,
                data=args.data,
                design=design,
                progress=not args.quiet,
                command=_command(args),
                workers=workers,
                study=Study(max_pairs=pairs["max_pairs"], sample=pairs["sample"], **engine),
                rankers=rankers,
                known=known,
                time_limit=args.time_limit,
            )
        index = out / "index.html"
    except (ValueError, ImportError) as exc:
        print_message(f"puf report: {str(exc).splitlines()[0]}")
        return exit_code(exc)
    except ConnectionError as exc:  # fetching a dataset failed (as in ``puf evaluate``)
        print_message(f"puf report: {exc}")
        return exit_code(exc)
    except OSError as exc:  # writing the report failed after the checks (disk full, ...)
        print_message(f"puf report: {exc.filename or out}: {exc.strerror or exc}")
        return exit_code(exc)
    if not args.quiet:
        from puf.lines import fitted, terminal_width

        print(fitted(f"wrote {index} in {time.perf_counter() - start:.1f} s", terminal_width()))
    return EXIT_OK
