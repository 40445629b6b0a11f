"""Sweep tables as they are drawn and shown: identical curves merged, ratios to the random pairing.

A sweep's tidy table (``measure, value, seed, score``) is reshaped here before
:func:`reports.figures.plot_sweep` draws it and the report shows its labels:
:func:`merge_identical` merges the P and NDCG variants of a measure where they
coincide, :func:`merged_rows` shows their response rows once, and
:func:`relative_to_random` adds each pairing's ratio to the random pairing for
measures that fall over a decade.
"""

from __future__ import annotations

__all__ = ["merge_identical", "merge_coinciding", "members", "merged_rows", "relative_to_random"]

from collections.abc import Sequence
import numpy as np
import pandas as pd
from numpy.typing import NDArray

_BOTH = " (P and NDCG)"


def merge_identical(table: pd.DataFrame, *, atol: float = 1e-12) -> tuple[pd.DataFrame, list[str]]:
    """Merge the P and NDCG variants of a measure where their scores are identical.

    With all-or-nothing lists (every list fully relevant or holding no relevant
    item) P@k and NDCG@k are both 0 or 1 for every user, so ``SD-P`` and
    ``SD-NDCG`` are the same curve; one line ``SD-P = SD-NDCG`` says so and
    saves a panel.

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy sweep output.
    atol : float
        Largest difference still called identical (NaN matches NaN).

    Returns
    -------
    (pandas.DataFrame, list of str)
        The table with every merged pair as one measure, and the merged labels.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": ["SD-P", "SD-NDCG", "Gini-P", "Gini-NDCG"], "value": 0.5,
    ...                   "seed": 0, "score": [0.5, 0.5, 0.5, 0.4]})
    >>> merged, names = merge_identical(t)
    >>> names, merged["measure"].tolist()
    (['SD-P = SD-NDCG'], ['SD-P = SD-NDCG', 'Gini-P', 'Gini-NDCG'])
    """
    rename, drop = {}, []
    labels = list(dict.fromkeys(table["measure"]))
    for label in labels:
        twin = "NDCG@k" if label == "P@k" else f"{label[:-2]}-NDCG" if label.endswith("-P") else None
        if twin not in labels:
            continue
        a = table[table["measure"] == label]["score"].to_numpy(float)
        b = table[table["measure"] == twin]["score"].to_numpy(float)
        if a.shape == b.shape and np.allclose(a, b, rtol=0, atol=atol, equal_nan=True):
            rename[label] = f"{label} = {twin}"
            drop.append(twin)
    if not rename:
        return table, []
    out = table[~table["measure"].isin(drop)].copy()
    out["measure"] = out["measure"].replace(rename)
    return out.reset_index(drop=True), list(rename.values())


def _curve(table: pd.DataFrame, label: str) -> tuple[pd.DataFrame, NDArray[np.float64]]:
    sub = table[table["measure"] == label]
    return sub.drop(columns=["measure", "score"]).reset_index(drop=True), sub["score"].to_numpy(float)


def merge_coinciding(table: pd.DataFrame, *, atol: float = 1e-12) -> tuple[pd.DataFrame, list[str]]:
    """Merge measures whose (non-constant) curves are equal at every point and seed.

    On all-or-nothing lists every effectiveness is 0 or 1, so every gap
    |S(u) − S(v)| is 0 or 1, and measures that weigh a gap differently
    (|gap|, gap², max(0, |gap| − (1 − sim))) take one value: PUF,
    Lipschitz-excess and a squared gap draw one curve. One line ``A = B = C``
    says so. Constant curves are left alone (many measures are 0 for different
    reasons).

    Parameters
    ----------
    table : pandas.DataFrame
        Tidy sweep output (after :func:`merge_identical`).
    atol : float
        Largest difference still called equal (NaN matches NaN).

    Returns
    -------
    (pandas.DataFrame, list of str)
        The table with each group of coinciding measures as one, and the merged labels.

    Examples
    --------
    >>> t = pd.DataFrame({"measure": ["PUF-P", "PUF-P", "Lx-P", "Lx-P", "SD-P", "SD-P"],
    ...                   "value": [0.0, 0.5] * 3, "seed": 0, "score": [0, .1, 0, .1, 0, .5]})
    >>> merged, names = merge_coinciding(t)
    >>> names, merged["measure"].unique().tolist()
    (['PUF-P = Lx-P'], ['PUF-P = Lx-P', 'SD-P'])
    """
    labels = list(dict.fromkeys(table["measure"]))
    curves = {label: _curve(table, label) for label in labels}
    groups, taken = [], set()
    for i, label in enumerate(labels):
        keys, score = curves[label]
        finite = score[np.isfinite(score)]
        if label in taken or finite.size < 2 or np.ptp(finite) <= atol:
            continue
        group = [label] + [
            other
            for other in labels[i + 1 :]
            if other not in taken
            and curves[other][1].shape == score.shape
            and curves[other][0].equals(keys)
            and np.allclose(curves[other][1], score, rtol=0, atol=atol, equal_nan=True)
        ]
        if len(group) > 1:
            groups.append(group)
            taken.update(group)
    if not groups:
        return table, []
    names = [_group_name(group) for group in groups]
    rename = {label: name for group, name in zip(groups, names) for label in group}
    out = table[~table["measure"].isin([label for group in groups for label in group[1:]])].copy()
    out["measure"] = out["measure"].replace(rename)
    return out.reset_index(drop=True), names


def _group_name(group: Sequence[str]) -> str:
    """ "A-P = A-NDCG" and "B-P = B-NDCG" -> "A = B (P and NDCG)"; otherwise "A = B"."""
    pairs = [label.split(" = ") for label in group]
    if all(len(p) == 2 and p[0].endswith("-P") and p[1] == p[0][:-2] + "-NDCG" for p in pairs):
        return " = ".join(p[0][:-2] for p in pairs) + _BOTH
    return " = ".join(group)


def members(label: str) -> list[str]:
    """The sweep labels a drawn label stands for.

    Examples
    --------
    >>> members("PUF = f (P and NDCG)")
    ['PUF-P', 'PUF-NDCG', 'f-P', 'f-NDCG']
    >>> members("SD-P = SD-NDCG"), members("UF")
    (['SD-P', 'SD-NDCG'], ['UF'])
    """
    if label.endswith(_BOTH):
        return [f"{stem}-{metric}" for stem in label[: -len(_BOTH)].split(" = ") for metric in ("P", "NDCG")]
    return label.split(" = ")


def relative_to_random(table: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """Add 'M ÷ random pairing' curves for measures that fall over a decade under random pairing.

    Parameters
    ----------
    table : pandas.DataFrame
        A sweep crossed with the pairing (a ``pairing`` column holding ``"random"``).

    Returns
    -------
    (pandas.DataFrame, list of str)
        The table with the ratio curves appended, and their labels; the table
        unchanged and ``[]`` without a random pairing.

    Examples
    --------
    >>> t = pd.DataFrame({"measure": "PUF-P", "pairing": ["random"] * 2 + ["most_fair"] * 2,
    ...                   "value": [0.0, 8.0] * 2, "seed": 0, "score": [0.1, 0.001, 0.05, 0.0005]})
    >>> drawn, names = relative_to_random(t)
    >>> names, drawn[drawn.measure == names[0]].score.tolist()
    (['PUF-P ÷ random pairing'], [1.0, 1.0, 0.5, 0.5])
    """
    if "pairing" not in table or "random" not in set(table["pairing"]):
        return table, []
    frames, names = [table], []
    for measure, sub in table.groupby("measure", sort=False):
        random = sub[sub["pairing"] == "random"].set_index(["value", "seed"])["score"]
        means = random.groupby("value").mean()
        if not (means > 0).all() or means.max() / means.min() < 10:
            continue
        ratio = sub.copy()
        ratio["score"] = (
            sub["score"].to_numpy() / random.reindex(pd.MultiIndex.from_frame(sub[["value", "seed"]])).to_numpy()
        )
        ratio["measure"] = f"{measure} ÷ random pairing"
        frames.append(ratio.replace([np.inf, -np.inf], np.nan))
        names.append(ratio["measure"].iloc[0])
    return pd.concat(frames, ignore_index=True), names


def merged_rows(responses: pd.DataFrame, merged: Sequence[str]) -> pd.DataFrame:
    """Response rows of a merged pair (SD-P = SD-NDCG) shown once, under the merged name.

    Parameters
    ----------
    responses : pandas.DataFrame
        Response labels with a ``measure`` column.
    merged : list of str
        Merged labels, as :func:`merge_identical` returns them.

    Returns
    -------
    pandas.DataFrame

    Examples
    --------
    >>> rows = pd.DataFrame({"measure": ["SD-P", "SD-NDCG", "UF"], "label": ["responds"] * 2 + ["flat"]})
    >>> merged_rows(rows, ["SD-P = SD-NDCG"]).measure.tolist()
    ['SD-P = SD-NDCG', 'UF']
    """
    rename = {members(name)[0]: name for name in merged}
    twins = {twin for name in merged for twin in members(name)[1:]}
    shown = responses[~responses["measure"].isin(twins)].copy()
    shown["measure"] = shown["measure"].replace(rename)
    return shown
