"""The welfare economists' axioms of inequality and envy, as catalog entries with their judges.

Each entry is the keyword arguments of one :class:`~puf.properties.catalog.property.Property`
(the catalog builds them): Lorenz consistency, equal additions, the mirror between outcomes and
shortfalls, and envy-freeness as the fairest state. Their formal statements say exactly what
the search tests (:mod:`properties.cases.welfare_cases`); their judges, here, check each
premise on the populations they are given (so a stored or shrunk example is judged by what it
is) and return an excess (> 0: violated), or NaN when the populations are no instance of the
property. Comparisons follow :mod:`properties.catalog.judges`: lower is fairer unless the
measure declares ``direction="higher"``, weak judgments allow the tolerance and strict ones the
float resolution. Their composition rules are in :mod:`properties.catalog.welfare_rules`.
"""

from __future__ import annotations

__all__ = [
    "WELFARE_ENTRIES",
    "lorenz_not_less_fair",
    "addition_not_less_fair",
    "mirror_ranked",
    "envy_free_fairest",
    "explain_mirror",
    "explain_envy",
]

from collections.abc import Mapping
from typing import Any
import math

from puf.metadata import Measure

from . import judges
from ..cases.case import Case
from ..cases.case import TRANSFER_WORLD
from ..cases.welfare_cases import added_amount, envy_free, lorenz_dominates, max_envy, strict_envy
from ..cases.welfare_cases import envy_free_cases, equal_addition_cases, lorenz_cases, mirror_cases
from ..cases.welfare_cases import lorenz_examples, mirror_examples, mirror_parts
from .welfare_rules import equal_additions, lorenz_consistency, mirror_consistency


def lorenz_not_less_fair(measure: Measure, before: float, after: float, case: Case) -> float:
    """``case.after`` Lorenz-dominates ``case.before`` (their effectiveness): its value must not
    be less fair, to the tolerance.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> p = Population([0.1, 0.3], [[1, 0], [0, 1]])
    >>> case = Case(p, p.replace(effectiveness=[0.2, 0.6]))      # equal Lorenz curves, doubled
    >>> lorenz_not_less_fair(as_measure("sd"), 0.1, 0.2, case) > 0
    True
    >>> math.isnan(lorenz_not_less_fair(as_measure("sd"), 0.2, 0.1, Case(case.after, p.replace(effectiveness=[0.0, 0.4]))))
    True
    """
    assert case.after is not None  # a Lorenz case compares two populations
    if not lorenz_dominates(case.after.effectiveness, case.before.effectiveness):
        return math.nan
    return judges.not_less_fair(measure, before, after, case)


def addition_not_less_fair(measure: Measure, before: float, after: float, case: Case) -> float:
    """``case.after`` adds one c > 0 to every outcome of ``case.before``: its value must not be
    less fair by more than the float resolution.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> p = Population([0.1, 0.3], [[1, 0], [0, 1]])
    >>> case = Case(p, p.replace(effectiveness=[0.2, 0.4]))
    >>> addition_not_less_fair(as_measure("gini"), 0.25, 1 / 6, case) < 0
    True
    >>> addition_not_less_fair(as_measure("gini"), 0.25, 0.25 + 2e-16, case) < 0 < addition_not_less_fair(
    ...     as_measure("gini"), 0.25, 0.25 + 1e-14, case)
    True
    """
    assert case.after is not None  # an addition compares two populations
    if math.isnan(added_amount(case.before, case.after)):
        return math.nan
    rise = judges.unfairness(measure, after) - judges.unfairness(measure, before)
    return rise - judges.resolution(case.before.m, before, after)


def mirror_ranked(measure: Measure, before: float, after: float, case: Case) -> float:
    """f(P), f(P') must rank as f(1 − P), f(1 − P') do (``case.values``: ``mirror_before``,
    ``mirror_after``): the excess is how far both orders are strict, in opposite directions,
    beyond the float resolution; NaN when a mirrored value is undefined.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> from puf import as_measure
    >>> flipped = SimpleNamespace(values={"mirror_before": 0.5, "mirror_after": 0.1})
    >>> round(mirror_ranked(as_measure("gini"), 0.05, 0.1, flipped), 12)
    0.05
    >>> kept = SimpleNamespace(values={"mirror_before": 0.05, "mirror_after": 0.1})
    >>> mirror_ranked(as_measure("sd"), 0.05, 0.1, kept) < 0
    True
    """
    values = case.values or {}
    shortfall_before, shortfall_after = values.get("mirror_before", math.nan), values.get("mirror_after", math.nan)
    if not (math.isfinite(shortfall_before) and math.isfinite(shortfall_after)):
        return math.nan
    outcomes, shortfalls = after - before, shortfall_after - shortfall_before
    flip = max(min(outcomes, -shortfalls), min(-outcomes, shortfalls))
    return flip - judges.resolution(getattr(getattr(case, "before", None), "m", 1), before, after, *values.values())


def envy_free_fairest(measure: Measure, value: float, after: float | None, case: Case) -> float:
    """Envy-free utility (no φ_u(L_v) above φ_u(L_u)): the value must be the fairest end, to the
    tolerance; an envy of at least :data:`~properties.welfare_cases.MIN_ENVY`: it must be
    less fair than the fairest end by more than the float resolution
    (:func:`~.judges.strict_excess`). NaN otherwise (no utility, an envy too small to call, or a
    distance from the fairest end within a coarse float's rounding).

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> free = Case(Population([0.5, 0.5], [[1, 0], [0, 1]], utility=[[0.5, 0.5], [0.2, 0.4]]))
    >>> envious = Case(free.before.replace(utility=[[0.5, 0.52], [0.2, 0.4]]))
    >>> envy_free_fairest(as_measure("me"), 0.0, None, free) < 0, envy_free_fairest(as_measure("me"), 0.0, None, envious) > 0
    (True, True)
    """
    utility = case.before.utility
    if utility is None:
        return math.nan
    if envy_free(utility):
        return judges.at_fairest(measure, value, after, case)
    if not strict_envy(utility):
        return math.nan
    fairest = measure.fairest
    gain = judges.unfairness(measure, value) - judges.unfairness(measure, fairest)
    return judges.strict_excess(case.before.m, gain, value)


def explain_mirror(example: Mapping[str, Any]) -> str:
    """The reason of a ``mirror-consistency`` violation: the two orders, and the strong form's gap.

    Examples
    --------
    >>> explain_mirror({"value_before": 0.05, "value_after": 0.1,
    ...                 "derived": {"mirror_before": 0.5, "mirror_after": 0.1}})
    'f(P) = 0.05 < f(P′) = 0.1 but f(1 − P) = 0.5 > f(1 − P′) = 0.1; strong form f(1 − P) = f(P) fails too (0.5 against 0.05)'
    """
    a, b = example["value_before"], example["value_after"]
    derived = example.get("derived", {})
    ma, mb = derived.get("mirror_before", math.nan), derived.get("mirror_after", math.nan)
    first, second = ("<", ">") if a < b else (">", "<")
    shown_a, shown_ma = judges.shown_pair(a, ma)
    (a_, b_), (ma_, mb_) = judges.shown_pair(a, b), judges.shown_pair(ma, mb)
    strong = "fails too" if abs(a - ma) > 1e-9 * max(1.0, abs(a), abs(ma)) else "holds on P"
    return (
        f"f(P) = {a_} {first} f(P′) = {b_} but f(1 − P) = {ma_} {second} f(1 − P′) = {mb_}; "
        f"strong form f(1 − P) = f(P) {strong} ({shown_ma} against {shown_a})"
    )


def explain_envy(example: Mapping[str, Any]) -> str:
    """The reason of an ``envy-free-fairest`` violation: the largest envy and the value.

    Examples
    --------
    >>> explain_envy({"before": {"utility": [[0.98, 1.0], [0.0, 1.0]]}, "value_before": 0.0})
    'an envy of 0.02 (user values another list above its own) gives 0, the fairest value'
    >>> explain_envy({"before": {"utility": [[1.0, 0.5], [0.0, 1.0]]}, "value_before": 0.25})
    'no envy (every user values its own list most) but the value is 0.25, not the fairest'
    """
    envy, value = max_envy(example["before"]["utility"]), example["value_before"]
    if envy > 0:
        return f"an envy of {envy:.3g} (user values another list above its own) gives {value:.6g}, the fairest value"
    return f"no envy (every user values its own list most) but the value is {value:.6g}, not the fairest"


#: The keyword arguments of the catalog's welfare properties, one dict each (``Property(**entry)``).
WELFARE_ENTRIES: tuple[dict[str, Any], ...] = (
    dict(
        name="lorenz-consistency",
        statement="a population whose relative Lorenz curve lies nowhere below another's is not less fair",
        formal="∀ P, P' of the same m users, similarity (and every field but S) fixed, Σ S > 0, Σ S' > 0, "
        "L_{S'}(k) ≥ L_S(k) − 10⁻¹² for k = 1, …, m − 1, where L_S(k) = (sum of the k smallest S(u)) / Σ S "
        "(the relative Lorenz curve of the shares; means may differ): f(P') ≤ f(P) + tol (lower "
        "fairer); P' made by one to three progressive transfers of τ ∈ (0, ½] followed by a "
        "rescaling S' := aS' (a up to 1/max S' or in (0, 1)), by the rescaling alone (equal "
        "curves: S against S/max S, S/2 against S), by a move towards the mean rescaled to the top, "
        "or drawn anew and kept when one of the two dominates; hand-made: S = (0.1, 0.3) and "
        "(0.1, 0.1, 0.1, 0.3, 0.3, 0.3) doubled, every similarity 0.75; the stored pigou-dalton "
        "examples that meet this statement replayed too (a transfer is a Lorenz improvement); a mean "
        "of 0 has no Lorenz curve and is excluded; world level: the worst-off user gains one relevant listed item and the "
        "best-off loses one, their gap ≥ 2/k (a transfer at a fixed mean); " + TRANSFER_WORLD,
        source="Atkinson (1970), Lorenz dominance as the ranking every relative index consistent "
        "with transfers agrees on; Foster (1985), Lorenz consistency of relative inequality "
        "measures (a relative index is Lorenz-consistent iff it is Schur-convex and scale-invariant)",
        kind="universal",
        meant_for="relative inequality indices (absolute ones rise when everyone is scaled up)",
        needs=("effectiveness",),
        world="worst-off user gains one relevant listed item, best-off user loses one",
        cases=lorenz_cases,
        explicit=lorenz_examples,
        replays=("pigou-dalton",),
        judge=lorenz_not_less_fair,
        proof_rule=lorenz_consistency,
    ),
    dict(
        name="equal-additions",
        statement="adding the same amount to every user's outcome does not make the value less fair",
        formal="∀ P, c > 0 with S + c and utility + c in [0, 1]: f(P[S := S + c, utility := "
        "utility + c]) ≤ f(P) + r, r the float resolution (lower fairer); c a drawn share "
        "in [10⁻³, 1] of the room 1 − max, besides the whole room, half of it and 10⁻³ of it "
        "(a P with an outcome at 1 first scaled by a ∈ (0, 1) in half the draws); P and c on the "
        "2⁻²⁰ grid, so the addition is exact in floating point (no gap moves by rounding); "
        "world level: the derived effectiveness and utility shifted (no world change adds to "
        "every user alike)",
        source="Dalton (1920), equal additions to all incomes diminish inequality; Kolm (1976), "
        "relative (rightist) and absolute (leftist) indices: a relative index falls, an absolute "
        "one is unchanged, an index that rises ranks by shortfalls",
        kind="universal",
        meant_for="relative and absolute inequality indices (a rise is a defect in either reading)",
        needs=("effectiveness", "utility"),
        entrywise=True,
        world="derived effectiveness and utility shifted up by one amount",
        cases=equal_addition_cases,
        judge=addition_not_less_fair,
        proof_rule=equal_additions,
    ),
    dict(
        name="mirror-consistency",
        statement="outcomes in [0, 1] are ranked as their shortfalls 1 − S are",
        formal="∀ P, P' of the same m users (similarity, lists and list distances fixed): "
        "not [f(P) < f(P') − r and f(1 − P) > f(1 − P') + r] and not [f(P) > f(P') + r and "
        "f(1 − P) < f(1 − P') − r], 1 − P = P[S := 1 − S, utility := 1 − utility], r the float "
        "resolution of the four values; P and P' on the 2⁻²⁰ grid (1 − P exact in floating point); P' = 1 − P, P with two users brought to their mean, P "
        "shifted, P rescaled, or drawn anew; hand-made: S = (0.2, 0.4) and (0.2, 0.2, 0.2, 0.4, 0.4, "
        "0.4) against 1 − S, every similarity 0.75. With P' = 1 − P this asks f(P) ≐ f(1 − P) to r: "
        "the strong form f(S) = f(1 − S), reported (to tol) in a violation's reason, is implied "
        "for the pairs searched; a case whose mirrored value is undefined is set aside",
        source="Erreygers (2009), attainment and shortfall inequality, the mirror property; "
        "Lambert and Zheng (2011), consistent ranking of attainments and shortfalls",
        kind="universal",
        meant_for="measures of bounded outcomes (effectiveness or utility in [0, 1])",
        needs=("effectiveness", "utility"),
        entrywise=True,
        world="derived effectiveness and utility replaced by 1 − them (lists and histories fixed)",
        cases=mirror_cases,
        explicit=mirror_examples,
        derived=mirror_parts,
        judge=mirror_ranked,
        proof_rule=mirror_consistency,
        explain=explain_mirror,
    ),
    dict(
        name="envy-free-fairest",
        statement="envy-free lists give the fairest value, and any strict envy does not",
        formal="∀ world-level P with utility U (U[u, v] = φ_u(L_v)): max_{u≠v} (U[u, v] − U[u, u]) "
        "≤ 2⁻⁵¹ (envy-free) ⇒ f(P) ≐ fairest end of the declared range; max_{u≠v} (U[u, v] − "
        "U[u, u]) ≥ 0.01 (the minimum step: a strict envy) ⇒ f(P) less fair than the fairest "
        "end by more than r; worlds with relevance only on each user's own list (envy-free), "
        "with one user's envy of another added, with lists fully relevant or nothing relevant, "
        "as drawn, and the hand-made envies of 0.02 and 0.2 and a world of equal lists; a "
        "measure that reads no utility has no envy to judge (not applicable)",
        source="Foley (1967), envy-freeness as equity; Varian (1974), fairness as envy-free efficiency",
        kind="universal",
        meant_for="measures of utility (envy)",
        needs=("utility",),
        world="relevance kept only on each user's own list, then one envy added; lists fully "
        "relevant; nothing relevant; as drawn",
        cases=envy_free_cases,
        judge=envy_free_fairest,
        explain=explain_envy,
        single_population=True,
    ),
)
