"""Measures through the catalog: one measure's verdicts (the catalog's properties looked up by
name for the runner), many measures' verdict list, its tidy table and the measure x property matrix."""

from __future__ import annotations

__all__ = ["verdicts", "all_verdicts", "verdicts_in_background", "verdict_frame", "verdict_matrix"]

from typing import Any
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
import contextlib
import random

import numpy as np

from puf import as_measure
from puf.parallel import completed, fork_available, progress_bar, worker_pool

from ..catalog.listing import CATALOG, get_property
from ..catalog.property import Property
from .budget import DEFAULT_TIME_BUDGET, DEFAULT_TIME_LIMIT, check_run_options, example_budget
from .isolation import release_workers
from . import runner
from .verdict import Verdict
import pandas as pd


def verdicts(
    measure: Any,
    *,
    properties: str | Property | Iterable[str | Property] | None = None,
    max_examples: int | None = None,
    random_state: int | np.random.Generator | None = 0,
    time_limit: float = DEFAULT_TIME_LIMIT,
    time_budget: float = DEFAULT_TIME_BUDGET,
    database: Any = None,
    known: bool | Mapping[str, Any] = True,
    proofs: str = "rules",
    progress: Any = False,
    n_jobs: int = 1,
) -> list[Verdict]:
    """Put ``measure`` through the property catalog.

    Parameters
    ----------
    measure : str, callable or puf.Measure
        A registered name or any function whose parameters are Population fields.
    properties : str, Property or iterable of them, optional
        Property names or :class:`properties.Property` objects (one may be given
        alone; a Property need not be in the catalog); default the whole
        :data:`properties.CATALOG`.
    max_examples : int, optional
        The example budget: Hypothesis examples per property before shrinking;
        default ``properties.running.budget.DEFAULT_MAX_EXAMPLES`` (60).
    random_state : int, numpy Generator or None, default 0
        Seed; the same seed gives the same verdicts. None: Hypothesis' own randomness.
    time_limit : float, default :data:`~puf.properties.running.budget.DEFAULT_TIME_LIMIT` (2 s)
        Seconds allowed per measure call, > 0; a case whose call runs over it is set
        aside, and so is every case as large after it (the reason says from which m);
        a property none of whose cases was judged is ``undefined: timed out after N s``.
        A user's measure runs in a worker process killed at the limit (so even C code
        that ignores signals stops); the built-ins run in-process under SIGALRM (main
        thread).
    time_budget : float, default :data:`~puf.properties.running.budget.DEFAULT_TIME_BUDGET` (60 s)
        Seconds allowed per property, > 0; the search stops there, reports what it has and
        says so (its reason quotes no measured power then).
    database : hypothesis database, optional
        Example database (keyed by measure and property); default none.
    known : bool or dict, default True
        Try the stored examples of ``properties/knowledge/known/`` first (every file's
        examples of the property); False measures the search alone. A known
        file's content (a measure's own pinned file, :func:`properties.knowledge.pinned.read_pinned`)
        has its examples tried before those.
    proofs : {"rules", "smt", "none"}, default "rules"
        For a grammar measure (:mod:`puf.grammar`, which the built-ins PUF,
        SD, Gini, ... are expressions of): prove cells by the composition
        rules (every m), and with "smt" also by the z3 solver for m ≤ 4
        (the optional extra ``proofs``). A cell proven for every m is
        ``proven`` without a search (its reason is the proof's argument); one
        proven for m ≤ 4 is searched, and ``proven`` when the search finds
        nothing either; a solver's counterexample is confirmed
        by the judge before it counts. With "rules" or "smt", an end of the declared
        range that no search reached at some m (``attainable-range``) is asked of the
        solver at that m: ``violated`` when it proves no population reaches it
        (:mod:`properties.proving.bounds`), else ``not-found``. "none": the search alone.
    progress : bool or object with ``update(n)``, default False
        True: a tqdm bar over the properties; a bar of the caller's advances by one per property.
    n_jobs : int, default 1
        Processes over which the properties are spread (forked, where the platform can fork;
        elsewhere they run here); each imports a user's measure once for its calls and once to ask its
        finds again alone (:meth:`~.search.PropertySearch.stale`). The verdicts are those
        of one process: every property is seeded on its own.

    Returns
    -------
    list of Verdict
        One per property, in the order given (catalog order by default).

    Raises
    ------
    ValueError
        If the measure has an unknown parameter or does not return a number, or
        an option is out of range (``time_limit`` or ``time_budget`` <= 0, ``max_examples`` or
        ``n_jobs`` < 1).

    Examples
    --------
    >>> [(v.property, v.status) for v in verdicts("puf", properties=["range", "anonymity"],
    ...                                             max_examples=10)]
    [('range', 'proven'), ('anonymity', 'proven')]
    """
    # The runner's own checks first, so that a bad measure or budget is named before a bad property.
    measure, max_examples = as_measure(measure), example_budget(max_examples)
    chosen = check_run_options(
        time_limit=time_limit,
        time_budget=time_budget,
        properties=[properties] if isinstance(properties, Property) else properties,
    )
    checked = list(CATALOG.values()) if chosen is None else [get_property(p) for p in chosen]
    if isinstance(n_jobs, bool) or not isinstance(n_jobs, (int, np.integer)) or n_jobs < 1:
        raise ValueError(f"n_jobs must be an integer >= 1, got {n_jobs!r}")
    with progress_bar(progress, len(checked), desc=f"puf check {measure.name}", unit="property") as bar:
        # by name to a forked process (a Property does not pickle; a spawned one lacks a file's measure)
        if n_jobs > 1 and len(checked) > 1 and fork_available() and all(CATALOG.get(p.name) is p for p in checked):
            options: dict[str, Any] = dict(max_examples=max_examples, random_state=random_state, proofs=proofs)
            options.update(time_limit=time_limit, time_budget=time_budget, database=database, known=known)
            names = [p.name for p in checked]
            return all_verdicts([measure], n_jobs=n_jobs, progress=bar or False, properties=names, **options)
        return runner.verdicts(
            measure,
            checked,
            max_examples=max_examples,
            random_state=random_state,
            time_limit=time_limit,
            time_budget=time_budget,
            database=database,
            known=known,
            proofs=proofs,
            progress=bar,
        )


def _one_check(measure: Any, prop: str | Property, options: Mapping[str, Any]) -> Verdict:
    """One (measure, property) verdict, the measure's worker kept for the process's next check of it
    (a measure that imports or compiles for a minute does so once a process, not once a property)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values are verdicts here, not noise
        (verdict,) = runner.verdicts(measure, [get_property(prop)], keep_workers=True, **options)
    return verdict


def all_verdicts(
    measures: Iterable[Any] | None = None, *, n_jobs: int = 1, progress: Any = False, **options: Any
) -> list[Verdict]:
    """Run :func:`verdicts` for several measures (default every built-in), optionally in processes.

    The one verdict runner of ``puf check --all`` and ``puf report``. Every
    (measure, property) check is one task, so a bar advances by one per check
    and estimates the remaining time from checks, not whole measures. Every
    property is seeded on its own, so the verdicts do not depend on the number
    of processes or on the order.

    Parameters
    ----------
    measures : iterable of (str, callable or Measure), optional
        Default every name in :data:`puf.MEASURES`.
    n_jobs : int, default 1
        Worker processes (forked where the platform can, so a measure loaded
        from a file is there too; elsewhere measures must be importable). A
        process keeps a user's measure's worker from one of its checks to the
        next, so it imports the measure once.
    progress : bool or object with ``update(n)``, default False
        True: a tqdm bar over the checks; a bar of the caller's advances by one per check.
    **options
        Passed to :func:`verdicts` (``properties`` chooses the checks).

    Returns
    -------
    list of Verdict
        In measure order, then property order.

    Examples
    --------
    >>> vs = all_verdicts(["sd", "gini"], properties=["defined"], max_examples=20)
    >>> [(v.measure, v.status) for v in vs]
    [('sd', 'proven'), ('gini', 'violated')]
    """
    with verdicts_in_background(measures, n_jobs=n_jobs, **options) as collect:
        return collect(progress)


_NICENESS = 10  # a background check yields the cores to the work in the foreground, and takes what is idle


@contextlib.contextmanager
def verdicts_in_background(
    measures: Iterable[Any] | None = None, *, n_jobs: int = 1, nice: bool = False, **options: Any
) -> Iterator[Callable[[Any], list[Verdict]]]:
    """:func:`all_verdicts` begun now in ``n_jobs`` worker processes, collected when the body asks.

    The body gets ``collect(progress)``, which waits for every check and returns
    the verdicts as :func:`all_verdicts` does (its bar jumps to the checks already
    done). With ``n_jobs`` 1 (or one check) nothing runs until ``collect``, in this
    process. ``puf report`` starts its verdicts before its sweeps, with ``nice``, so
    that they fill the moments the sweeps leave a core idle (a first world computed
    alone, a last worker finishing, a figure drawn) instead of running after them.

    Parameters
    ----------
    measures : iterable of (str, callable or Measure), optional
        As in :func:`all_verdicts`.
    n_jobs : int, default 1
        Worker processes, started when the body begins.
    nice : bool, default False
        Run the workers at a lower priority (Unix ``nice`` +10), so the body's own
        work keeps the cores it needs.
    **options
        Passed to :func:`verdicts`.

    Yields
    ------
    callable
        ``collect(progress) -> list of Verdict``; ``progress`` as in :func:`all_verdicts`.

    Examples
    --------
    >>> with verdicts_in_background(["sd"], properties=["range"], max_examples=5) as collect:
    ...     [v.status for v in collect(False)]
    ['proven']
    """
    from puf import MEASURES

    measures = list(MEASURES) if measures is None else list(measures)
    chosen = options.pop("properties", None)
    chosen = list(CATALOG) if chosen is None else ([chosen] if isinstance(chosen, (str, Property)) else list(chosen))
    tasks = [(i, j, m, p) for i, m in enumerate(measures) for j, p in enumerate(chosen)]
    # Checks differ in cost by measure and property; a fixed shuffle mixes them evenly, so a
    # bar's rate (and remaining time) holds from the start instead of jumping at a slow measure.
    random.Random(0).shuffle(tasks)
    if n_jobs <= 1 or len(tasks) <= 1:

        def collect(progress: Any) -> list[Verdict]:
            try:
                return _gathered(progress, (((i, j), _one_check(m, p, options)) for i, j, m, p in tasks), len(tasks))
            finally:
                release_workers()  # (a pool's workers end with its processes)

        yield collect
        return
    # forked where the platform can (a measure loaded from a file is there too); killed, not
    # awaited, on Ctrl-C or SIGTERM; the workers die with this process
    with worker_pool(n_jobs, niceness=_NICENESS if nice else 0) as pool:
        futures = {pool.submit(_one_check, m, p, options): (i, j) for i, j, m, p in tasks}
        yield lambda progress: _gathered(progress, completed(futures), len(tasks))


def _gathered(progress: Any, outcomes: Iterable[tuple[tuple[int, int], Verdict]], total: int) -> list[Verdict]:
    """The verdicts of ``total`` ``((measure index, property index), verdict)`` pairs, in index order.

    ``progress`` (as in :func:`all_verdicts`) advances by one per verdict as it arrives.
    """
    results = {}
    with progress_bar(progress, total, desc="puf check", unit="check") as bar:
        for key, verdict in outcomes:
            results[key] = verdict
            bar is None or bar.update(1)
    return [results[key] for key in sorted(results)]


def verdict_frame(results: Iterable[Verdict]) -> pd.DataFrame:
    """Return one row per verdict (the tidy form, every :class:`Verdict` field).

    Examples
    --------
    >>> verdict_frame(verdicts("sd", properties=["range"], max_examples=5))[["measure", "status"]]
      measure  status
    0      sd  proven
    """
    import pandas as pd

    return pd.DataFrame([v.to_dict() for v in results])


def verdict_matrix(
    measures: Iterable[Any] | None = None, *, results: Sequence[Verdict] | None = None, **options: Any
) -> pd.DataFrame:
    """Return the measure x property matrix of statuses as a pandas DataFrame.

    Parameters
    ----------
    measures : iterable, optional
        Measures to run (default every built-in); ignored when ``results`` is given.
    results : list of Verdict, optional
        Verdicts already computed (e.g. by :func:`all_verdicts`).
    **options
        Passed to :func:`all_verdicts`.

    Returns
    -------
    pandas.DataFrame
        Index: measure names in input order; columns: property names in catalog order.

    Examples
    --------
    >>> verdict_matrix(["sd", "puf"], properties=["similarity-zero"], max_examples=10)
    property similarity-zero
    measure
    sd              violated
    puf               proven
    """
    if results is None:
        results = all_verdicts(measures, **options)
    frame = verdict_frame(results)
    matrix = frame.pivot(index="measure", columns="property", values="status")
    rows = list(dict.fromkeys(frame["measure"]))
    cols = [p for p in CATALOG if p in matrix.columns]
    return matrix.loc[rows, cols].rename_axis(index="measure", columns="property")
