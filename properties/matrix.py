"""Many measures at once: the verdict list, its tidy table and the measure x property matrix."""

from __future__ import annotations

__all__ = ["all_verdicts", "verdict_frame", "verdict_matrix"]

from typing import Any
from collections.abc import Iterable, Mapping, Sequence
import contextlib
from contextlib import AbstractContextManager
import multiprocessing
import random
from concurrent.futures import as_completed

from puf.processes import worker_pool

from .catalog import CATALOG, Property
from .runner import verdicts
from .verdict import Verdict
import pandas as pd


def _one_check(measure: Any, prop: str | Property, options: Mapping[str, Any]) -> Verdict:
    """One (measure, property) verdict (runs in a worker)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # undefined values are verdicts here, not noise
        (verdict,) = verdicts(measure, properties=[prop], **options)
    return verdict


def _progress(progress: Any, total: int) -> AbstractContextManager[Any]:
    """``progress`` as something with ``update(n)``: a bar of the caller's, a new tqdm bar, or none."""
    if hasattr(progress, "update"):
        return contextlib.nullcontext(progress)
    if progress:
        from tqdm import tqdm

        return tqdm(total=total, desc="puf check", unit="check")
    return contextlib.nullcontext(None)


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
        from a file is there too; elsewhere measures must be importable).
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
    from puf import MEASURES

    measures = list(MEASURES) if measures is None else list(measures)
    chosen = options.pop("properties", None)
    chosen = list(CATALOG) if chosen is None else ([chosen] if isinstance(chosen, (str, Property)) else list(chosen))
    tasks = [(i, j, m, p) for i, m in enumerate(measures) for j, p in enumerate(chosen)]
    # Checks differ in cost by measure and property; a fixed shuffle mixes them evenly, so a
    # bar's rate (and remaining time) holds from the start instead of jumping at a slow measure.
    random.Random(0).shuffle(tasks)
    results = {}
    with _progress(progress, len(tasks)) as bar:
        if n_jobs > 1 and len(tasks) > 1:
            methods = multiprocessing.get_all_start_methods()
            # killed, not awaited, on Ctrl-C or SIGTERM; the workers die with this process
            with worker_pool(n_jobs, start_method="fork" if "fork" in methods else None) as pool:
                futures = {pool.submit(_one_check, m, p, options): (i, j) for i, j, m, p in tasks}
                for future in as_completed(futures):
                    results[futures[future]] = future.result()
                    bar is None or bar.update(1)
        else:
            for i, j, m, p in tasks:
                results[i, j] = _one_check(m, p, options)
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
