"""Many measures at once: the verdict list, its tidy table and the measure x property matrix."""

__all__ = ["all_verdicts", "verdict_frame", "verdict_matrix"]

from .catalog import CATALOG
from .runner import verdicts


def _one_measure(args):
    measure, options = args
    return verdicts(measure, **options)


def all_verdicts(measures=None, *, n_jobs=1, progress=False, **options):
    """Run :func:`verdicts` for several measures (default every built-in), optionally in processes.

    Parameters
    ----------
    measures : iterable of (str or callable), optional
        Default every name in :data:`puf.MEASURES`.
    n_jobs : int, default 1
        Worker processes (measures must be importable names or module-level functions).
    progress : bool, default False
        Show a tqdm bar over measures.
    **options
        Passed to :func:`verdicts`.

    Returns
    -------
    list of Verdict

    Examples
    --------
    >>> vs = all_verdicts(["sd", "gini"], properties=["defined"], max_examples=20)
    >>> [(v.measure, v.status) for v in vs]
    [('sd', 'holds'), ('gini', 'violated')]
    """
    from puf import MEASURES

    measures = list(MEASURES) if measures is None else list(measures)
    jobs = [(m, options) for m in measures]
    if n_jobs > 1 and len(jobs) > 1:
        from puf.processes import worker_pool

        with worker_pool(n_jobs) as pool:  # killed, not awaited, on Ctrl-C or SIGTERM
            results = pool.map(_one_measure, jobs)
            if progress:
                from tqdm import tqdm

                results = tqdm(results, total=len(jobs), desc="puf check", unit="measure")
            return [v for batch in list(results) for v in batch]
    out = []
    iterator = jobs
    if progress:
        from tqdm import tqdm

        iterator = tqdm(jobs, desc="puf check", unit="measure")
    for job in iterator:
        out.extend(_one_measure(job))
    return out


def verdict_frame(results):
    """Return one row per verdict (the tidy form, every :class:`Verdict` field).

    Examples
    --------
    >>> verdict_frame(verdicts("sd", properties=["range"], max_examples=5))[["measure", "status"]]
      measure status
    0      sd  holds
    """
    import pandas as pd

    return pd.DataFrame([v.to_dict() for v in results])


def verdict_matrix(measures=None, *, results=None, **options):
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
    puf                holds
    """
    if results is None:
        results = all_verdicts(measures, **options)
    frame = verdict_frame(results)
    matrix = frame.pivot(index="measure", columns="property", values="status")
    rows = list(dict.fromkeys(frame["measure"]))
    cols = [p for p in CATALOG if p in matrix.columns]
    return matrix.loc[rows, cols].rename_axis(index="measure", columns="property")
