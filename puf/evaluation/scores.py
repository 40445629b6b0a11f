"""Effectiveness and every registered fairness measure of ranked lists on a real dataset.

The columns are the registry's study variants (:func:`puf.variants`): each
measure that reads effectiveness on per-user P@k and NDCG@k, each other
measure once, so a newly registered measure gets its columns with no further
code. :data:`MEASURE_COLUMNS` is the current list, read from the registry.
"""

from __future__ import annotations

__all__ = [
    "MEASURE_COLUMNS",
    "measure_columns",
    "evaluate_runs",
    "raised_runs",
    "per_user_effectiveness",
    "write_pair_limits",
]

import dataclasses
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..effectiveness import ndcg_at_k, precision_at_k
from ..validation import check_k, check_nonnegative_scalar, check_rankings, check_unit_scalar
from ..variant import Variant, variants
from .roads import score_worlds
from .study import Study

if TYPE_CHECKING:
    from ..data import SplitDataset
    from ..engines.blocks import Scheduler


def measure_columns(measures: Iterable[str | Callable[..., Any] | Variant] | None = None) -> tuple[str, ...]:
    """Return the columns :func:`evaluate_runs` gives for ``measures`` (default every variant).

    Examples
    --------
    >>> measure_columns()[:4]
    ('P@k', 'NDCG@k', 'SD-P', 'SD-NDCG')
    >>> measure_columns(["PUF-P", "uf"])
    ('PUF-P', 'UF')
    """
    return tuple(v.label for v in _chosen(measures))


def __getattr__(name):
    # Read from the registry on each access, so it lists measures registered after import.
    if name == "MEASURE_COLUMNS":
        return measure_columns()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _chosen(measures):
    if measures is None:
        return variants()
    return tuple(v for spec in measures for v in variants(spec))


def _columns(chosen, k):
    return [v.label.replace("@k", f"@{k}") for v in chosen]


def _check_runs(dataset, runs, k):
    if not runs:
        raise ValueError("runs must name at least one run, got none")
    checked = {}
    for name, rankings in runs.items():
        array = check_rankings(rankings, n_items=dataset.n_items, name=f"runs[{name!r}]")
        if array.shape[0] != dataset.n_users:
            raise ValueError(
                f"runs[{name!r}] has {array.shape[0]} rows but dataset {dataset.name!r} has {dataset.n_users} users"
            )
        if array.shape[1] < k:  # short lists: the missing slots are misses
            array = np.pad(array, ((0, 0), (0, k - array.shape[1])), constant_values=-1)
        checked[str(name)] = array[:, :k]
    return checked


def _relevance(dataset, split):
    relevance = dataset.matrix(split)
    empty = np.flatnonzero(np.diff(relevance.indptr) == 0)
    if empty.size:
        raise ValueError(
            f"dataset {dataset.name!r}: user {dataset.users[int(empty[0])]!r} has an empty "
            f"{split} set ({empty.size} users do); effectiveness is undefined for them"
        )
    return relevance


def per_user_effectiveness(
    dataset: SplitDataset, runs: Mapping[str, ArrayLike], *, k: int = 10, split: str = "test"
) -> pd.DataFrame:
    """Per-user P@k and NDCG@k of every run, as a tidy table.

    Parameters
    ----------
    dataset : puf.data.SplitDataset
    runs : dict of str to array_like, shape (n_users, k')
        Ranked internal item ids per user (``-1`` pads).
    k : int, default 10
    split : {"test", "valid"}
        Relevance split.

    Returns
    -------
    pandas.DataFrame
        Columns ``ranker``, ``user_id``, ``P@k``, ``NDCG@k`` (k spelled out).

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabb"), "item_id": list("xyyx"),
    ...                       "rating": [5.0] * 4, "timestamp": [1, 2, 1, 2]})
    >>> data = preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1)
    >>> per_user_effectiveness(data, {"mine": [[1], [1]]}, k=1)
      ranker user_id  P@1  NDCG@1
    0   mine       a  1.0     1.0
    1   mine       b  0.0     0.0
    """
    k = check_k(k)
    relevance = _relevance(dataset, split)
    frames = []
    for name, rankings in _check_runs(dataset, runs, k).items():
        frames.append(
            pd.DataFrame(
                {
                    "ranker": name,
                    "user_id": np.asarray(dataset.users, dtype=object),
                    f"P@{k}": precision_at_k(rankings, relevance, k=k),
                    f"NDCG@{k}": ndcg_at_k(rankings, relevance, k=k),
                }
            )
        )
    return pd.concat(frames, ignore_index=True)


def evaluate_runs(
    dataset: SplitDataset,
    runs: Mapping[str, ArrayLike],
    *,
    k: int = 10,
    gamma: float | None = None,
    epsilon: float | None = None,
    split: str = "test",
    measures: Iterable[str | Callable[..., Any] | Variant] | None = None,
    progress: bool = False,
    memory: int | None = None,
    sample: int | None = None,
    random_state: int | np.random.Generator | None = 0,
    n_jobs: int | None = None,
    engine: str = "local",
    scheduler: Scheduler = None,
    max_pairs: int | None = None,
    raised: str = "stop",
) -> pd.DataFrame:
    """Effectiveness and every fairness measure of each run on a dataset.

    Parameters
    ----------
    dataset : puf.data.SplitDataset
        Needs ``item_features`` (genres) for UF (sim_UF and the list distance).
    runs : dict of str to array_like, shape (n_users, k')
        Ranked internal item ids per user, best first (``-1`` pads).
    k : int, default 10
        Cut-off.
    gamma : float in [0, 1], optional
        Jaccard weight in UF's sim_UF = γ·Jaccard + (1−γ)·sim_JS(genres);
        default the γ each measure declares (UF: 0.5).
    epsilon : float, optional
        Envy threshold, bound to every measure declaring ``epsilon`` among its
        ``study_options`` (PEU); default each function's own (PEU: 0.05).
    split : {"test", "valid"}
        Relevance split; every user needs a non-empty one.
    measures : iterable of (str, callable or Variant), optional
        Variant labels (``"SD-NDCG"``), registered names or functions
        (expanded over P and NDCG by :func:`puf.variants`); default every
        study variant of the registry.
    progress : bool, default False
        Show a tqdm bar over each pass of the engines.
    memory : int, optional
        Bytes the dense m x m pieces may take (default :func:`puf.memory.memory_budget`:
        ``PUF_MAX_MEMORY``, else 4 GB or what is available if less; the dense
        builders' guard applies the same limit meanwhile). Each measure
        takes the road :func:`puf.evaluation.planner.plan_roads` gives it at
        this size: pair measures in one pass over the pair tiles for all runs
        and metrics, the envy measures and UF on their engines, any other
        measure on the dense pieces while they fit; what fits no road is skipped.
    sample : int, optional
        Estimate every pair measure (and UF) from ``sample`` uniformly drawn
        pairs, with a 95% interval (``table.attrs["estimates"]``).
    random_state : int, default 0
        Seed of the drawn pairs (``sample`` only).
    n_jobs, engine, scheduler
        Where the engines run (:func:`puf.engines.jaccard_puf`).
    max_pairs : int, optional
        Skip (listing them, with the reason) the exact measures over all
        m(m−1)/2 user pairs when there are more pairs than this: the pair
        measures, UF and inconsistency, whose exact time grows with the pairs;
        default no limit (:func:`puf.evaluation.planner.plan_roads`).
    raised : {"stop", "undefined"}, default "stop"
        A measure that raises on a run stops the evaluation with a ValueError naming it,
        the run and the error; with "undefined" its value on that run is NaN and
        ``table.attrs["raised"]`` holds one row per such cell (ranker, measure, error).

    Returns
    -------
    pandas.DataFrame
        Index ``ranker``; columns :func:`measure_columns` with k spelled out,
        less the skipped ones, which ``table.attrs["skipped"]`` lists (label ->
        reason, with the memory the measure would need); with ``sample``,
        ``table.attrs["estimates"]`` holds one row per ranker and estimated
        measure (value, standard error, 95% interval, pairs); ``table.attrs["raised"]``
        the cells where a measure raised (``raised="undefined"``).
        P@k and NDCG@k are means over users; a measure of effectiveness is
        computed on the per-user P@k (``-P``) or NDCG@k (``-NDCG``); measures
        reading similarity read Jaccard over training histories, except those
        declaring a similarity of their own (UF: ``"uf"``, sim_UF(γ)); ME, MME, PEU
        read phi_u(L_v); UF reads the genre list distance. Lower is fairer for
        all fairness columns. NaN (with :class:`puf.UndefinedMeasureWarning`)
        where a measure is undefined.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dataclasses
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabbcc"), "item_id": list("xyyxxz"),
    ...                       "rating": [5.0] * 6, "timestamp": [1, 2] * 3})
    >>> data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1),
    ...                            item_features=np.eye(3))
    >>> table = evaluate_runs(data, {"mine": [[1], [1], [0]]}, k=1)
    >>> table.loc["mine", ["P@1", "SD-P", "PUF-P", "Variance-P"]].round(4).tolist()  # P = (1, 0, 0)
    [0.3333, 0.4714, 0.3333, 0.2222]
    """
    k = check_k(k)
    gamma = None if gamma is None else check_unit_scalar(gamma, name="gamma")
    epsilon = None if epsilon is None else check_nonnegative_scalar(epsilon, name="epsilon")
    chosen = _with_options(_chosen(measures), {} if epsilon is None else {"epsilon": epsilon})
    if not chosen:
        raise ValueError("measures must name at least one measure, got none")
    runs = _check_runs(dataset, runs, k)
    world, features_from = _world(dataset, _relevance(dataset, split), next(iter(runs.values())))
    # One world per run, sharing the first's histories: the similarities are computed once.
    worlds = {name: world.replace(rankings=rankings) for name, rankings in runs.items()}
    study = Study(
        k=k,
        gamma=gamma,
        sample=sample,
        random_state=random_state,
        max_pairs=max_pairs,
        engine=engine,
        scheduler=scheduler,
        n_jobs=n_jobs,
        progress=progress,
        raised=raised,
    )
    scores = score_worlds(worlds, chosen, study, memory=memory, features_from=features_from)
    kept = [i for i, road in enumerate(scores.roads) if road.kind != "skipped"]
    columns = _columns(chosen, k)
    labels = {v.label: column for v, column in zip(chosen, columns)}
    table = pd.DataFrame.from_dict(
        {name: [values[i] for i in kept] for name, values in scores.values.items()},
        orient="index",
        columns=[columns[i] for i in kept],
        dtype=np.float64,
    )
    table.index.name = "ranker"
    table.attrs.update(
        {
            "dataset": dataset.name,
            "k": k,
            "gamma": gamma,
            "epsilon": epsilon,
            "split": split,
            "users": dataset.n_users,
            "skipped": {columns[i]: road.reason for i, road in enumerate(scores.roads) if road.kind == "skipped"},
            "estimates": _estimate_rows(scores.estimates, labels),
            "raised": [
                {"ranker": name, "measure": labels[label], "error": error}
                for name, found in scores.raised.items()
                for label, error in found.items()
            ],
        }
    )
    return table


def raised_runs(table: pd.DataFrame) -> dict[str, tuple[list[str], str]]:
    """Each measure that raised on some runs of an :func:`evaluate_runs` table (``raised="undefined"``):
    measure -> (the runs, in table order, the first error).

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame(index=pd.Index(["ease", "bpr"], name="ranker"))
    >>> table.attrs["raised"] = [{"ranker": r, "measure": "mine-P", "error": "ValueError: x"} for r in ("ease", "bpr")]
    >>> raised_runs(table)
    {'mine-P': (['ease', 'bpr'], 'ValueError: x')}
    """
    found: dict[str, tuple[list[str], str]] = {}
    for row in table.attrs.get("raised") or []:
        found.setdefault(row["measure"], ([], row["error"]))[0].append(row["ranker"])
    return found


def _estimate_rows(estimates, labels):
    return [
        {
            "ranker": name,
            "measure": labels[label],
            "value": e.value,
            "standard_error": e.standard_error,
            "ci_low": e.ci_low,
            "ci_high": e.ci_high,
            "pairs": e.n_pairs,
        }
        for name, found in estimates.items()
        for label, e in found.items()
    ]


def _world(dataset, relevance, rankings):
    """The dataset as a World, and what would supply item features when it has none."""
    from ..world import World

    features, features_from = dataset.item_features, None
    if features is None:
        # Every item alike, a placeholder: the measures reading features are skipped.
        features = np.ones((dataset.n_items, 1))
        features_from = f"an .item file with genres for dataset {dataset.name!r} (--item)"
    return World(
        histories=dataset.matrix("train"), relevance=relevance, rankings=rankings, item_features=features
    ), features_from


def _with_options(chosen, options):
    """Bind the study's options (ε) to the measures declaring them in their ``study_options``."""
    bound = []
    for v in chosen:
        extra = {name: value for name, value in options.items() if name in v.measure.study_options}
        if extra:
            measure = dataclasses.replace(v.measure, function=functools.partial(v.measure.function, **extra))
            v = dataclasses.replace(v, measure=measure)
        bound.append(v)
    return tuple(bound)


def write_pair_limits(table: pd.DataFrame, folder: Any, *, stem: str = "") -> list[str]:
    """Write what :func:`evaluate_runs` skipped and estimated: ``{stem}skipped.csv``, ``{stem}estimates.csv``.

    Parameters
    ----------
    table : pandas.DataFrame
        An :func:`evaluate_runs` table; its ``attrs["skipped"]`` (measure -> reason)
        and ``attrs["estimates"]`` (rows of the sampled estimates) are written.
    folder : str or os.PathLike
        An existing folder.
    stem : str, default ""
        Prefix of the two file names (``"ml_1m_"`` gives ``ml_1m_skipped.csv``).

    Returns
    -------
    list of str
        The names of the files written (none when nothing was skipped or estimated).

    Examples
    --------
    >>> import pathlib, tempfile, pandas as pd
    >>> table = pd.DataFrame()
    >>> table.attrs.update(skipped={"UF": "too many pairs"}, estimates=[])
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> write_pair_limits(table, folder, stem="toy_")
    ['toy_skipped.csv']
    >>> print((folder / "toy_skipped.csv").read_text().strip())
    measure,reason
    UF,too many pairs
    """
    from pathlib import Path

    written = []
    skipped, estimates = table.attrs.get("skipped") or {}, table.attrs.get("estimates") or []
    if skipped:
        frame = pd.DataFrame({"measure": list(skipped), "reason": list(skipped.values())})
        frame.to_csv(Path(folder) / f"{stem}skipped.csv", index=False)
        written.append(f"{stem}skipped.csv")
    if estimates:
        pd.DataFrame(estimates).to_csv(Path(folder) / f"{stem}estimates.csv", index=False)
        written.append(f"{stem}estimates.csv")
    return written
