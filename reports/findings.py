"""What a report found: the PUF paper's claims the sweeps test, each a sentence with its numbers.

:func:`findings` reads the report's own tables (the trends of ``responses.csv``,
the pairing contrasts of ``contrasts.csv`` and the zero-relevance sweep's scores)
and states, per data source, each claim of the PUF paper the sweeps test, as
reproduced or not, with the figure that shows it:

- SD, Gini and the envy measures (ME, MME, PEU) respond to effectiveness disparity and not
  to similarity;
- UF responds to similarity and not to effectiveness disparity;
- PUF responds to both;
- PUF scores the most unfair pairing above the most fair one, which the
  similarity-blind measures cannot tell apart;
- on the zero-relevance sweep SD = √(p(1 − p)), and Gini = p, undefined at p = 1.

Each measure given with ``--measure`` gets the same three readings in one
sentence (effectiveness disparity, similarity, pairing), stated without a verdict.
"""

from __future__ import annotations

__all__ = ["Finding", "BLIND", "findings", "finding_table"]

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: The similarity-blind measures of the PUF paper, as the sweeps label them.
BLIND = ("SD", "Gini", "ME", "MME", "PEU")
_SIMILARITY_SWEEPS = ("skewness", "skewness_free_mean")
_IDENTITY_ATOL = 1e-9


@dataclass(frozen=True)
class Finding:
    """One claim and what the run found.

    Attributes
    ----------
    data : str
        The data source (``"synthetic"`` or a dataset's name).
    claim : str
        The claim, in a few words.
    reproduced : bool or None
        Whether the run reproduces it; None for a reading of a user's measure.
    sentence : str
        What the run found, with its numbers.
    figures : tuple of str
        The report sections (and figure files' stems) that show it.

    Examples
    --------
    >>> Finding("synthetic", "UF ignores relevance", True, "UF is flat.", ("zero_relevance",)).reproduced
    True
    """

    data: str
    claim: str
    reproduced: bool | None
    sentence: str
    figures: tuple[str, ...]


def _stem(label: str) -> str:
    """The measure a sweep label belongs to: ``"SD-NDCG"`` -> ``"SD"``, ``"UF"`` -> ``"UF"``."""
    for metric in ("-P", "-NDCG"):
        if label.endswith(metric):
            return label[: -len(metric)]
    return label


def _moves(trend: str) -> bool:
    return trend not in ("flat", "undefined")


def _num(value: float) -> str:
    return "—" if not np.isfinite(value) else f"{value:.3g}"


class _Reading:
    """One data source's trends and contrasts, looked up by measure stem and sweep."""

    def __init__(self, responses: pd.DataFrame, contrasts: pd.DataFrame) -> None:
        self.responses = responses.assign(stem=responses["measure"].map(_stem))
        self.contrasts = contrasts.assign(stem=contrasts["measure"].map(_stem))

    def rows(self, stems: Sequence[str], sweeps: Sequence[str]) -> pd.DataFrame:
        r = self.responses
        return r[r["stem"].isin(stems) & r["sweep"].isin(sweeps)]

    def key(self, sweep: str) -> str:
        """The section key (figure stem) of a sweep of this data source."""
        rows = self.responses[self.responses["sweep"] == sweep]
        return str(rows["figure"].iloc[0]) if len(rows) else ""

    def shown(self, stem: str, sweep: str) -> pd.Series | None:
        """The row a sentence quotes for a measure on a sweep: its NDCG variant where it has one."""
        rows = self.rows([stem], [sweep])
        if rows.empty:
            return None
        ndcg = rows[rows["measure"].str.endswith("-NDCG")]
        return (ndcg if len(ndcg) else rows).iloc[0]

    def similarity_change(self, stems: Sequence[str]) -> tuple[float, bool]:
        """(largest change, any curve moving) over the skewness sweeps, every pairing."""
        rows = self.rows(stems, _SIMILARITY_SWEEPS)
        defined = rows[rows["trend"] != "undefined"]
        change = float(defined["change"].max()) if len(defined) else float("nan")
        return change, bool(defined["trend"].map(_moves).any())

    def contrast(self, stems: Sequence[str]) -> pd.DataFrame:
        c = self.contrasts
        return c[c["stem"].isin(stems)]


def _quote(reading: _Reading, stem: str, sweep: str) -> str:
    row = reading.shown(stem, sweep)
    return "not run" if row is None else f"{row['measure']} is {row['trend']}, change {_num(float(row['change']))}"


def _undefined_at(reading: _Reading, stem: str) -> str:
    """Where the zero-relevance row a reading quotes is undefined: its trend is read over the rest."""
    row = reading.shown(stem, "zero_relevance")
    if row is None or row["trend"] == "undefined" or not isinstance(at := row.get("undefined_at"), str) or not at:
        return ""
    where = at.split(", ")
    shown = ", ".join(where) if len(where) <= 3 else f"{where[0]}, ..., {where[-1]}"
    return f" (undefined at {len(where)} point{'s' * (len(where) > 1)}: {shown}; read over the rest)"


def _blind(data: str, reading: _Reading) -> Finding | None:
    zero = reading.rows(BLIND, ["zero_relevance"])
    if zero.empty:
        return None
    change, moving = reading.similarity_change(BLIND)
    responds = bool(zero["trend"].map(_moves).all())
    quotes = "; ".join(_quote(reading, stem, "zero_relevance") for stem in BLIND)
    return Finding(
        data,
        "SD, Gini, ME, MME and PEU respond to effectiveness disparity, not to similarity",
        responds and not moving,
        f"On the zero-relevance sweep {quotes}. Along the skewness sweeps "
        + ("none of them moves (every curve flat, " if not moving else "some move (")
        + f"largest change {_num(change)}).",
        (reading.key("zero_relevance"), reading.key("skewness")),
    )


def _uf(data: str, reading: _Reading) -> Finding | None:
    row = reading.shown("UF", "zero_relevance")
    if row is None:
        return None
    change, moving = reading.similarity_change(["UF"])
    return Finding(
        data,
        "UF responds to similarity, not to effectiveness disparity",
        row["trend"] == "flat" and moving,
        f"On the zero-relevance sweep {_quote(reading, 'UF', 'zero_relevance')}; along the skewness "
        f"sweeps it {'changes by up to' if moving else 'stays flat, largest change'} {_num(change)}.",
        (reading.key("zero_relevance"), reading.key("skewness")),
    )


def _puf(data: str, reading: _Reading) -> Finding | None:
    zero = reading.rows(["PUF"], ["zero_relevance"])
    if zero.empty:
        return None
    change, moving = reading.similarity_change(["PUF"])
    return Finding(
        data,
        "PUF responds to both effectiveness disparity and similarity",
        bool(zero["trend"].map(_moves).all()) and moving,
        f"On the zero-relevance sweep {_quote(reading, 'PUF', 'zero_relevance')}; along the skewness "
        f"sweeps it {'changes by up to' if moving else 'stays flat, largest change'} {_num(change)}.",
        (reading.key("zero_relevance"), reading.key("skewness")),
    )


def _pairing_sweep(reading: _Reading, stem: str = "PUF") -> str | None:
    """The sweep every pairing sentence of one data source reads: the pairing sweep itself where
    the data has it (synthetic), else the first sweep with PUF's pairings (else ``stem``'s)."""
    for rows in (reading.contrast(["PUF"]), reading.contrast([stem])):
        if len(rows):
            return "pairing" if (rows["sweep"] == "pairing").any() else str(rows["sweep"].iloc[0])
    return None


def _shown_contrast(rows: pd.DataFrame) -> pd.Series | None:
    """The contrast row a sentence quotes: the NDCG variant where there is one, else the first."""
    if rows.empty:
        return None
    ndcg = rows["measure"].str.endswith("-NDCG")
    return rows[ndcg].iloc[0] if ndcg.any() else rows.iloc[0]


def _pairing(data: str, reading: _Reading) -> Finding | None:
    sweep = _pairing_sweep(reading)
    puf = reading.contrast(["PUF"])
    puf = puf[puf["sweep"] == sweep]
    shown = _shown_contrast(puf)
    if sweep is None or shown is None:
        return None
    blind = reading.contrast(BLIND)
    blind = blind[blind["sweep"] == sweep]
    apart = blind[blind["verdict"] != "no difference"]
    gap = float(blind["gap"].abs().max()) if len(blind) else float("nan")
    sentence = (
        f"On the {sweep.replace('_', ' ')} sweep {shown['measure']} scores the most unfair pairing "
        f"higher at {int(shown['above'])} of {int(shown['points'])} points (mean gap {_num(float(shown['gap']))}); "
    )
    if blind.empty:
        sentence += "no similarity-blind measure was run on it."
    elif apart.empty:
        sentence += (
            f"{', '.join(dict.fromkeys(blind['stem']))} cannot tell the pairings apart (largest mean gap {_num(gap)})."
        )
    else:
        sentence += f"{', '.join(dict.fromkeys(apart['stem']))} also tell them apart (largest mean gap {_num(gap)})."
    return Finding(
        data,
        "PUF scores the most unfair pairing above the most fair one",
        bool((puf["verdict"] == "unfair above").all()),
        sentence,
        (reading.key(sweep),),
    )


def _shares(table: pd.DataFrame) -> np.ndarray:
    """Each row's realised zero-relevance share q: 1 − mean P@k at its point and seed, else the nominal p.

    With m users a share p puts round(p·m) users at zero relevance, so q = p exactly only
    where p·m is a whole number (the synthetic worlds); on real data the identities hold for q.
    """
    precision = table[table["measure"] == "P@k"].set_index(["value", "seed"])["score"]
    if precision.empty:
        return table["value"].to_numpy(float)
    index = pd.MultiIndex.from_frame(table[["value", "seed"]])
    return 1.0 - precision.reindex(index).to_numpy(float)


def _identities(data: str, table: pd.DataFrame | None, key: str) -> list[Finding]:
    """SD = √(q(1 − q)) and Gini = q (NaN at q = 1) on the zero-relevance sweep's every point and seed."""
    if table is None:
        return []
    q, found = _shares(table), []
    exact = bool(np.allclose(q, table["value"].to_numpy(float), rtol=0, atol=1e-12))
    q, share = (table["value"].to_numpy(float), "p") if exact else (q, "q")
    for stem, expected, claim in (
        ("SD", np.sqrt(q * (1 - q)), "SD = √(p(1 − p)) on the zero-relevance sweep"),
        ("Gini", np.where(q < 1, q, np.nan), "Gini = p on the zero-relevance sweep, undefined at p = 1"),
    ):
        rows = (table["measure"].map(_stem) == stem).to_numpy()
        if not rows.any():
            continue
        score, want = table["score"].to_numpy(float)[rows], expected[rows]
        both = np.isfinite(score) & np.isfinite(want)
        worst = float(np.max(np.abs(score[both] - want[both]))) if both.any() else float("nan")
        nan_right = bool((np.isnan(score) == np.isnan(want)).all())
        formula = f"√({share}(1 − {share}))" if stem == "SD" else share
        sentence = f"Largest |{stem} − {formula}| over every point and seed: {_num(worst)}"
        if not exact:
            sentence += (
                " (q is the realised share of users at zero relevance, round(p·m)/m, read as 1 − mean P@k; "
                f"it differs from the nominal p by up to {_num(float(np.max(np.abs(q - table['value']))))})"
            )
        if stem == "Gini":
            sentence += "; undefined (NaN) at p = 100% " + ("and nowhere else" if nan_right else "— not as expected")
        found.append(Finding(data, claim, bool(worst <= _IDENTITY_ATOL and nan_right), sentence + ".", (key,)))
    return found


_UNSTEADY = (
    " Its verdicts find it not deterministic (the same population gave another value when asked "
    "again), so part of each change here is its own noise."
)


def _yours(data: str, reading: _Reading, stem: str, *, unsteady: bool = False) -> Finding:
    change, moving = reading.similarity_change([stem])
    # The sweep PUF's pairing sentence reads, so the two compare; where the measure is undefined
    # there, the sweep with the most points where both pairings are defined.
    sweep, contrast = _pairing_sweep(reading, stem), reading.contrast([stem])
    shown = _shown_contrast(contrast[contrast["sweep"] == sweep])
    if (shown is None or not int(shown["points"])) and len(contrast) and int(contrast["points"].max()):
        shown = contrast.sort_values("points", ascending=False, kind="stable").iloc[0]
        sweep = str(shown["sweep"])
    on = f"most unfair against most fair pairing on the {str(sweep).replace('_', ' ')} sweep"
    pairs = (
        "not in a pairing sweep"
        if sweep is None
        else f"not run on the {sweep.replace('_', ' ')} sweep"
        if shown is None
        else f"{on}: undefined (no point where both are defined)"
        if not int(shown["points"])
        else f"{on}: {shown['verdict']} at {int(shown['above'])} of {int(shown['points'])} points"
    )
    similarity = (
        f"responds to similarity (changes by up to {_num(change)} along the skewness sweeps)"
        if moving
        else "undefined along the skewness sweeps"
        if not np.isfinite(change) and len(reading.rows([stem], _SIMILARITY_SWEEPS))
        else "not run on the skewness sweeps"
        if not np.isfinite(change)
        else f"does not respond to similarity (flat along the skewness sweeps, change {_num(change)})"
    )
    return Finding(
        data,
        f"your measure {stem}",
        None,
        f"Zero-relevance sweep: {_quote(reading, stem, 'zero_relevance')}{_undefined_at(reading, stem)}; "
        f"{similarity}; {pairs}." + (_UNSTEADY if unsteady else ""),
        (reading.key("zero_relevance"), reading.key("skewness")),
    )


def findings(
    responses: pd.DataFrame,
    contrasts: pd.DataFrame,
    zero_relevance: Mapping[str, tuple[str, pd.DataFrame]],
    *,
    yours: Sequence[str] = (),
    unsteady: Collection[str] = (),
) -> list[Finding]:
    """Every claim the report's sweeps test, per data source, from the report's own tables.

    Parameters
    ----------
    responses : pandas.DataFrame
        The trends (``responses.csv``: ``data, sweep, figure, measure, condition, trend,
        change, ...``).
    contrasts : pandas.DataFrame
        The pairing contrasts (``contrasts.csv``: ``data, sweep, figure, measure, verdict,
        gap, above, points``).
    zero_relevance : dict of str to (str, pandas.DataFrame)
        Data source -> (section key, the zero-relevance sweep's table).
    yours : sequence of str
        The names of the user's measures (each gets one reading per data source).
    unsteady : collection of str
        The user's measures whose ``deterministic`` verdict is violated: their reading says that
        part of every change is the measure's own noise.

    Returns
    -------
    list of Finding

    Examples
    --------
    >>> import pandas as pd
    >>> rows = [("synthetic", "zero_relevance", "zero_relevance", "UF", "", "flat", 0.0),
    ...         ("synthetic", "skewness", "skewness", "UF", "pairing = random", "falling", 0.3)]
    >>> responses = pd.DataFrame(rows, columns=["data", "sweep", "figure", "measure", "condition", "trend", "change"])
    >>> contrasts = pd.DataFrame(columns=["data", "sweep", "figure", "measure", "verdict", "gap", "above", "points"])
    >>> [(f.claim, f.reproduced) for f in findings(responses, contrasts, {})]
    [('UF responds to similarity, not to effectiveness disparity', True)]
    """
    found: list[Finding] = []
    for data in dict.fromkeys(responses["data"]):
        reading = _Reading(responses[responses["data"] == data], contrasts[contrasts["data"] == data])
        for make in (_blind, _uf, _puf, _pairing):
            finding = make(data, reading)
            found += [finding] if finding is not None else []
        key, table = zero_relevance.get(data, ("", None))
        found += _identities(data, table, key)
        found += [_yours(data, reading, stem, unsteady=stem in unsteady) for stem in yours]
    return found


def finding_table(found: Sequence[Finding]) -> pd.DataFrame:
    """The findings as a table (``findings.csv``): data, claim, reproduced, sentence, figures.

    Examples
    --------
    >>> finding_table([Finding("synthetic", "c", True, "s.", ("a", "b"))]).to_dict("records")
    [{'data': 'synthetic', 'claim': 'c', 'reproduced': 'yes', 'sentence': 's.', 'figures': 'a.png b.png'}]
    """
    words = {True: "yes", False: "no", None: ""}
    return pd.DataFrame(
        [
            (f.data, f.claim, words[f.reproduced], f.sentence, " ".join(f"{k}.png" for k in f.figures if k))
            for f in found
        ],
        columns=["data", "claim", "reproduced", "sentence", "figures"],
    )
