"""The report at any size: which measures a real-data table gives exactly, estimates or skips, and why.

With ``max_pairs`` (``puf report --max-pairs N``) the measures on the exact roads
over all m(m−1)/2 user pairs are skipped beyond N pairs, and with ``sample``
(``--sample N``) the pair measures are estimated from N drawn pairs, as in
``puf evaluate`` (:func:`puf.evaluation.planner.plan_roads`). A sweep's tidy
table then has the columns :data:`PAIR_COLUMNS` too (each row's road, its 95%
interval, the reason of a skip): :func:`point_notes` gives them per point,
:func:`split_pair_rows` takes the skipped rows out before the curves are drawn
and labelled, and :func:`pair_text` and :func:`with_roads` say in the section
which measures were skipped or estimated and why. :func:`estimate_table` and
:func:`estimates_text` do the same for the measures-per-ranker table.
Without either option nothing here runs and every table is as before.
"""

from __future__ import annotations

__all__ = [
    "PAIR_COLUMNS",
    "point_notes",
    "split_pair_rows",
    "pair_text",
    "raised_text",
    "with_roads",
    "ranker_table",
    "estimate_table",
    "estimates_text",
    "agreement_text",
]

import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pandas as pd

if TYPE_CHECKING:
    from puf.evaluation.roads import WorldScores

#: The columns a sweep's tidy table gains with ``max_pairs`` or ``sample``.
PAIR_COLUMNS = ["road", "ci_low", "ci_high", "reason"]


def point_notes(found: WorldScores, chosen: Sequence[Any]) -> list[tuple[str, float, float, str]]:
    """Per variant of one sweep point: (road, 95% interval low, high, reason), the :data:`PAIR_COLUMNS`.

    ``road`` is ``"exact"``, ``"sampled"`` (the value is the estimate from the
    drawn pairs), ``"skipped"`` (the value is NaN; ``reason`` says why) or ``"raised"``
    (the measure raised: the value is NaN; ``reason`` is the error).

    Parameters
    ----------
    found : puf.evaluation.roads.WorldScores
        One world's scores (:func:`reports.sweeps.point_results`).
    chosen : sequence of puf.Variant
        The variants, in the order of ``found``.

    Returns
    -------
    list of tuple

    Examples
    --------
    >>> import puf
    >>> from puf.reports.sweeps import Base, point_results
    >>> chosen = puf.variants("SD-P") + puf.variants("PUF-P") + puf.variants("Inconsistency-P")
    >>> found = point_results(Base(n_users=20, n_items=100, k=5, max_pairs=100, sample=500), 0, chosen, {})
    >>> [note[0] for note in point_notes(found, chosen)]
    ['exact', 'sampled', 'skipped']
    >>> point_notes(found, chosen)[2][3][:37]
    'its exact road reads all 190 user pai'
    """
    estimates, raised = found.estimates["world"], found.raised.get("world", {})
    notes = []
    for variant, road in zip(chosen, found.roads):
        if variant.label in raised:
            notes.append(("raised", math.nan, math.nan, raised[variant.label]))
        elif road.kind == "skipped":
            notes.append(("skipped", math.nan, math.nan, road.reason))
        elif variant.label in estimates:
            estimate = estimates[variant.label]
            notes.append(("sampled", float(estimate.ci_low), float(estimate.ci_high), ""))
        else:
            notes.append(("exact", math.nan, math.nan, ""))
    return notes


def split_pair_rows(table: pd.DataFrame) -> tuple[pd.DataFrame, dict[str, str], list[str]]:
    """(the rows to draw and label, skipped label -> reason, sampled labels) of a sweep's tidy table.

    A table without :data:`PAIR_COLUMNS` is returned as it is, with nothing skipped or sampled.

    Examples
    --------
    >>> import pandas as pd
    >>> t = pd.DataFrame({"measure": ["SD-P", "PUF-P", "UF"], "parameter": "zero_relevance", "value": 0.5,
    ...                   "seed": 0, "score": [0.5, 0.1, float("nan")], "road": ["exact", "sampled", "skipped"],
    ...                   "ci_low": [float("nan"), 0.09, float("nan")], "ci_high": [float("nan"), 0.11, float("nan")],
    ...                   "reason": ["", "", "too many pairs"]})
    >>> drawn, skipped, sampled = split_pair_rows(t)
    >>> list(drawn.measure), list(drawn.columns)[-1], skipped, sampled
    (['SD-P', 'PUF-P'], 'score', {'UF': 'too many pairs'}, ['PUF-P'])
    """
    if "road" not in table.columns:
        return table, {}, []
    skipped_rows = table[table["road"] == "skipped"]
    skipped = dict(zip(skipped_rows["measure"], skipped_rows["reason"]))
    sampled = list(dict.fromkeys(table.loc[table["road"] == "sampled", "measure"]))
    kept = table[table["road"] != "skipped"].drop(columns=PAIR_COLUMNS).reset_index(drop=True)
    return kept, skipped, sampled


def pair_text(skipped: Mapping[str, str], sampled: Sequence[str], *, m: int, sample: int | None) -> str:
    """The sentences saying which measures of a sweep were skipped (why) or estimated ('' for none).

    Examples
    --------
    >>> print(pair_text({"UF": "its exact road reads all 780 user pairs, more than max_pairs = 100"},
    ...                 ["PUF-P"], m=40, sample=500))
    ... # doctest: +NORMALIZE_WHITESPACE
     Skipped at 40 users (not drawn, no label): UF (its exact road reads all 780 user pairs, more than
     max_pairs = 100). Estimated from 500 drawn user pairs per point (--sample; the CSV gives each point's 95%
     interval, ci_low and ci_high): PUF-P; their labels are read on the estimates, so the sampling error
     can move a curve near the flatness tolerance.
    """
    text = ""
    if skipped:
        listed = "; ".join(f"{label} ({reason})" for label, reason in skipped.items())
        text += f" Skipped at {m:,} users (not drawn, no label): {listed}."
    if sampled:
        text += (
            f" Estimated from {sample:,} drawn user pairs per point (--sample; the CSV gives each point's "
            f"95% interval, ci_low and ci_high): {', '.join(sampled)}; their labels are read on the estimates, so the "
            "sampling error can move a curve near the flatness tolerance."
        )
    return text


def raised_text(table: pd.DataFrame) -> str:
    """The sentences naming each measure that raised at points of a sweep's tidy table ('' for none).

    Examples
    --------
    >>> import pandas as pd
    >>> error, nan = "ValueError: math domain error", float("nan")
    >>> t = pd.DataFrame({"measure": ["f-P"] * 3 + ["f-NDCG"] * 3, "parameter": "zero_relevance",
    ...                   "value": [0.0, 0.5, 1.0] * 2, "seed": 0, "score": [0.1, nan, nan] * 2,
    ...                   "road": ["exact", "raised", "raised"] * 2, "ci_low": nan, "ci_high": nan,
    ...                   "reason": ["", error, error] * 2})
    >>> print(raised_text(t))  # doctest: +NORMALIZE_WHITESPACE
     f-P and f-NDCG raised at 2 of their 3 points each (zero_relevance = 0.5, 1), the first time
     ValueError: math domain error: their values there are undefined, gaps in the curves, left out of
     the trends.
    """
    if "road" not in table.columns:
        return ""
    told: dict[tuple[Any, ...], list[str]] = {}
    for label, rows in table[table["road"] == "raised"].groupby("measure", sort=False):
        values = ", ".join(f"{v:g}" if isinstance(v, float) else str(v) for v in dict.fromkeys(sorted(rows["value"])))
        key = (
            len(rows),
            int((table["measure"] == label).sum()),
            rows["parameter"].iloc[0],
            values,
            rows["reason"].iloc[0],
        )
        told.setdefault(key, []).append(str(label))
    text = ""
    for (count, total, parameter, values, error), labels in told.items():
        many = len(labels) > 1
        text += (
            f" {' and '.join(labels) if len(labels) < 3 else ', '.join(labels)} raised at {count} of "
            f"{'their' if many else 'its'} {total} points{' each' if many else ''} ({parameter} = {values}), "
            f"the first time {error}: {'their' if many else 'its'} values there are undefined, gaps in the "
            f"{'curves' if many else 'curve'}, left out of the {'trends' if many else 'trend'}."
        )
    return text


def with_roads(shown: pd.DataFrame, skipped: Mapping[str, str], sampled: Sequence[str]) -> pd.DataFrame:
    """A sweep's label table with a ``road`` column, and a row per skipped measure saying so.

    Examples
    --------
    >>> import pandas as pd
    >>> shown = pd.DataFrame({"measure": ["SD-P", "PUF-P"], "label": ["responds", "responds"]})
    >>> with_roads(shown, {"UF": "too many pairs"}, ["PUF-P"]).to_dict("records")
    ... # doctest: +NORMALIZE_WHITESPACE
    [{'measure': 'SD-P', 'label': 'responds', 'road': 'exact'},
     {'measure': 'PUF-P', 'label': 'responds', 'road': 'sampled'},
     {'measure': 'UF', 'label': 'skipped', 'road': 'skipped: too many pairs'}]
    >>> with_roads(shown, {}, []) is not shown  # the road column is added even with nothing skipped
    True
    """
    from .tables import members

    def road(label: str) -> str:
        return "sampled" if any(m in sampled for m in members(label)) else "exact"

    shown = shown.assign(road=[road(label) for label in shown["measure"]])
    blank = {"measure", "road", "condition"}
    rows = []
    for label, reason in skipped.items():
        row = {
            c: math.nan if pd.api.types.is_numeric_dtype(shown[c]) else ("" if c in blank else "skipped")
            for c in shown.columns
        }
        rows.append({**row, "measure": label, "road": f"skipped: {reason}"})
    return pd.concat([shown, pd.DataFrame(rows, columns=shown.columns)], ignore_index=True) if rows else shown


def ranker_table(scores: pd.DataFrame) -> pd.DataFrame:
    """The measures-per-ranker table as shown: sampled columns named so, a ``skipped`` column per skipped measure.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"P@10": [0.5], "PUF-P": [0.12346]}, index=pd.Index(["a"], name="ranker"))
    >>> scores.attrs.update(skipped={"UF": "too many pairs"}, estimates=[{"ranker": "a", "measure": "PUF-P"}])
    >>> ranker_table(scores).to_dict("records")
    [{'ranker': 'a', 'P@10': 0.5, 'PUF-P (sampled)': 0.1235, 'UF': 'skipped'}]
    """
    shown = scores.reset_index().round(4)
    sampled = {row["measure"] for row in scores.attrs.get("estimates") or []}
    shown = shown.rename(columns={label: f"{label} (sampled)" for label in sampled})
    for label in scores.attrs.get("skipped", {}):
        shown[label] = "skipped"
    return shown


def estimate_table(scores: pd.DataFrame) -> pd.DataFrame | None:
    """The estimates of an evaluation table (``attrs["estimates"]``) with their intervals, or None.

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame({"PUF-P": [0.1]}, index=pd.Index(["a"], name="ranker"))
    >>> scores.attrs["estimates"] = [{"ranker": "a", "measure": "PUF-P", "value": 0.1, "standard_error": 0.001,
    ...                               "ci_low": 0.098, "ci_high": 0.102, "pairs": 1000}]
    >>> estimate_table(scores).to_dict("records")
    [{'ranker': 'a', 'measure': 'PUF-P', 'estimate': 0.1, '95% interval': '[0.098, 0.102]', 'pairs': 1000}]
    >>> estimate_table(pd.DataFrame()) is None
    True
    """
    rows = scores.attrs.get("estimates") or []
    if not rows:
        return None
    frame = pd.DataFrame(rows)
    return pd.DataFrame(
        {
            "ranker": frame["ranker"],
            "measure": frame["measure"],
            "estimate": frame["value"].round(4),
            "95% interval": [f"[{lo:.4g}, {hi:.4g}]" for lo, hi in zip(frame["ci_low"], frame["ci_high"])],
            "pairs": frame["pairs"],
        }
    )


def estimates_text(scores: pd.DataFrame, *, files: Sequence[str]) -> str:
    """The sentence naming the measures of an evaluation table that are sampled estimates ('' for none).

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame()
    >>> scores.attrs["estimates"] = [{"ranker": "a", "measure": "PUF-P", "pairs": 1000}]
    >>> print(estimates_text(scores, files=["toy_estimates.csv"]))  # doctest: +NORMALIZE_WHITESPACE
     Estimated from 1,000 drawn user pairs (--sample: sampled, not exact; the table below and
     toy_estimates.csv give each 95% interval): PUF-P.
    """
    rows = scores.attrs.get("estimates") or []
    if not rows:
        return ""
    labels = ", ".join(dict.fromkeys(r["measure"] for r in rows))
    return (
        f" Estimated from {rows[0]['pairs']:,} drawn user pairs (--sample: sampled, not exact; the table below and "
        f"{', '.join(files)} give each 95% interval): {labels}."
    )


def agreement_text(scores: pd.DataFrame) -> str:
    """What the agreement over an evaluation table reads when some measures are sampled or skipped ('' if none).

    Examples
    --------
    >>> import pandas as pd
    >>> scores = pd.DataFrame()
    >>> scores.attrs.update(skipped={"UF": "too many pairs"}, estimates=[{"measure": "PUF-P"}])
    >>> print(agreement_text(scores))
     The sampled measures (PUF-P) enter with their estimates; the skipped ones (UF) are left out.
    """
    sampled = list(dict.fromkeys(row["measure"] for row in scores.attrs.get("estimates") or []))
    skipped = list(scores.attrs.get("skipped") or {})
    parts = [f"the sampled measures ({', '.join(sampled)}) enter with their estimates"] if sampled else []
    parts += [f"the skipped ones ({', '.join(skipped)}) are left out"] if skipped else []
    return f" {'; '.join(parts)}.".replace(" the", " The", 1) if parts else ""
