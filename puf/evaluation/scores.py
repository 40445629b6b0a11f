"""Effectiveness and every fairness measure of ranked lists on a real dataset."""

__all__ = ["MEASURE_COLUMNS", "evaluate_runs", "per_user_effectiveness"]

import numpy as np
import pandas as pd

from .._validation import check_k, check_nonnegative_scalar, check_rankings, check_unit_scalar
from ..effectiveness import ndcg_at_k, precision_at_k
from ..lists import list_distance, utility_matrix
from ..measures import (gini, mean_envy, mean_max_envy, pairwise_user_unfairness,
                        proportion_envious_users, sd, uf)
from ..similarity import jaccard_similarity, uf_similarity

MEASURE_COLUMNS = ("P@k", "NDCG@k", "SD-P", "SD-NDCG", "Gini-P", "Gini-NDCG", "ME", "MME", "PEU",
                   "UF", "PUF-P", "PUF-NDCG")
"""Columns of :func:`evaluate_runs`; ``@k`` is spelled with the actual k (``P@10``)."""


def _columns(k):
    return [c.replace("@k", f"@{k}") for c in MEASURE_COLUMNS]


def _check_runs(dataset, runs, k):
    if not runs:
        raise ValueError("runs must name at least one run, got none")
    checked = {}
    for name, rankings in runs.items():
        array = check_rankings(rankings, n_items=dataset.n_items, name=f"runs[{name!r}]")
        if array.shape[0] != dataset.n_users:
            raise ValueError(f"runs[{name!r}] has {array.shape[0]} rows but dataset "
                             f"{dataset.name!r} has {dataset.n_users} users")
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


def per_user_effectiveness(dataset, runs, *, k=10, split="test"):
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
        frames.append(pd.DataFrame({
            "ranker": name, "user_id": np.asarray(dataset.users, dtype=object),
            f"P@{k}": precision_at_k(rankings, relevance, k=k),
            f"NDCG@{k}": ndcg_at_k(rankings, relevance, k=k),
        }))
    return pd.concat(frames, ignore_index=True)


def evaluate_runs(dataset, runs, *, k=10, gamma=0.5, epsilon=0.05, split="test", progress=False):
    """Effectiveness and every fairness measure of each run on a dataset.

    Parameters
    ----------
    dataset : puf.data.SplitDataset
        Needs ``item_features`` (genres) for UF.
    runs : dict of str to array_like, shape (n_users, k')
        Ranked internal item ids per user, best first (``-1`` pads).
    k : int, default 10
        Cut-off.
    gamma : float in [0, 1], default 0.5
        Jaccard weight in UF's sim_UF = γ·Jaccard + (1−γ)·sim_JS(genres).
    epsilon : float, default 0.05
        PEU's envy threshold.
    split : {"test", "valid"}
        Relevance split; every user needs a non-empty one.
    progress : bool, default False
        Show a tqdm bar over the runs.

    Returns
    -------
    pandas.DataFrame
        Index ``ranker``; columns :data:`MEASURE_COLUMNS` with k spelled out.
        P@k and NDCG@k are means over users; SD/Gini/PUF are computed on the
        per-user P@k (``-P``) or NDCG@k (``-NDCG``); PUF uses Jaccard over
        training histories; ME, MME, PEU read phi_u(L_v); UF reads sim_UF and
        the genre list distance. Lower is fairer for all fairness columns.
        NaN (with :class:`puf.UndefinedMeasureWarning`) where DESIGN.md says a
        measure is undefined.

    Examples
    --------
    >>> import numpy as np, pandas as pd, dataclasses
    >>> from puf.data import preprocess
    >>> frame = pd.DataFrame({"user_id": list("aabbcc"), "item_id": list("xyyxxz"),
    ...                       "rating": [5.0] * 6, "timestamp": [1, 2] * 3})
    >>> data = dataclasses.replace(preprocess(frame, core=1, ratios=(1, 0, 1), min_train=1),
    ...                            item_features=np.eye(3))
    >>> table = evaluate_runs(data, {"mine": [[1], [1], [0]]}, k=1)
    >>> table.loc["mine", ["P@1", "SD-P", "PUF-P"]].round(4).tolist()  # P = (1, 0, 0)
    [0.3333, 0.4714, 0.3333]
    """
    k = check_k(k)
    gamma = check_unit_scalar(gamma, name="gamma")
    epsilon = check_nonnegative_scalar(epsilon, name="epsilon")
    if dataset.item_features is None:
        raise ValueError(f"dataset {dataset.name!r} has no item_features (genres); UF needs them")
    runs = _check_runs(dataset, runs, k)
    relevance = _relevance(dataset, split)
    histories = dataset.matrix("train")
    jaccard = jaccard_similarity(histories)
    sim_uf = uf_similarity(histories, dataset.item_features, gamma=gamma)
    rows = {}
    names = list(runs)
    if progress:
        from tqdm.auto import tqdm

        names = tqdm(names, desc="measures", unit="run")
    for name in names:
        rankings = runs[name]
        p, n = precision_at_k(rankings, relevance, k=k), ndcg_at_k(rankings, relevance, k=k)
        utility = utility_matrix(rankings, relevance, k=k)
        rows[name] = [
            p.mean(), n.mean(), sd(p), sd(n), gini(p), gini(n),
            mean_envy(utility), mean_max_envy(utility),
            proportion_envious_users(utility, epsilon=epsilon),
            uf(sim_uf, list_distance(rankings, dataset.item_features, k=k)),
            pairwise_user_unfairness(p, jaccard), pairwise_user_unfairness(n, jaccard),
        ]
    table = pd.DataFrame.from_dict(rows, orient="index", columns=_columns(k), dtype=np.float64)
    table.index.name = "ranker"
    table.attrs.update({"dataset": dataset.name, "k": k, "gamma": gamma, "epsilon": epsilon,
                        "split": split, "users": dataset.n_users})
    return table
