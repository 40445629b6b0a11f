"""Search helpers run inside one example: jumps narrowed by bisection.

A continuity case may carry a *segment*, two populations of the same users
far apart. :func:`narrow_jump` walks it: it evaluates the measure at a few
points and halves the pieces, keeping a small beam of the pieces whose values
differ most, until the two ends are closer than ``tolerance`` in every field. A jump (a threshold at any value,
a tie broken, a user filtered out) survives the halving, so the last pair
shows a change far larger than its distance; on a Lipschitz measure the
ratio stays bounded by the Lipschitz constant, so no false alarm arises.

:class:`PropertySearch` is the body of one property's Hypothesis test: it
evaluates the measure on each case (narrowing segments, choosing the worst of
a case's alternatives) and judges it through the property object alone.
"""

from __future__ import annotations

__all__ = ["Found", "OutOfBudget", "FreshCalls", "MeasureCalls", "PropertySearch", "narrow_jump", "shown_fields"]

from collections.abc import Callable, Sequence
from typing import Any, NoReturn, Protocol, cast
import dataclasses
import math
import time

import numpy as np
from hypothesis import target

from puf.metadata import Measure
from puf.population import FIELDS, Population

from ..cases.case import WORLD_FIELDS, Case, distance, measure_level
from ..cases.groups import group_labels
from ..catalog.property import Property


def shown_fields(measure: Measure, prop: Property) -> list[str]:
    """The fields an example of ``prop`` on ``measure`` shows and stores: those the measure reads
    and those the property acts on or judges by.

    An effectiveness-only measure's example shows no similarity matrix and no utilities, even
    where its case came from a world (a stored example replays with the fields it lacks at their
    neutral values, properties.knowledge.known);
    where the property reads similarity only as groups of users (``Property.grouped``), it
    shows each user's group, ``groups``, in the matrix's place. A property acting on every
    field (a relabelling, a replication) defines its case by none in particular: the
    measure's own fields show it.

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.properties import get_property
    >>> shown_fields(as_measure("sd"), get_property("anonymity")), shown_fields(as_measure("sd"), get_property("rearrangement"))
    (['effectiveness'], ['effectiveness', 'similarity'])
    >>> sensitive = get_property("effectiveness-sensitive")
    >>> shown_fields(as_measure("sd"), sensitive), shown_fields(as_measure("me"), sensitive)
    (['effectiveness'], ['effectiveness', 'utility'])
    >>> shown_fields(as_measure("sd"), get_property("subgroup-consistency"))
    ['effectiveness', 'groups']
    >>> shown_fields(as_measure("puf"), get_property("subgroup-consistency"))
    ['effectiveness', 'similarity']
    """
    reads = measure.reads or ()
    acts_on = () if set(prop.needs) >= set(FIELDS) else prop.needs
    # A world's fields show only for a measure that reads them: an example a score-level measure
    # replays from a world speaks of the S the change moved.
    acts_on = tuple(f for f in acts_on if f not in WORLD_FIELDS or f in reads)
    used = {*reads, *acts_on, *prop.uses} or {"effectiveness"}
    as_groups = prop.grouped and "similarity" not in reads
    return [("groups" if as_groups and f == "similarity" else f) for f in FIELDS if f in used]


def interpolate(start: Population, end: Population, t: float) -> Population:
    """The population ``start + t·(end − start)`` (every field both have).

    Examples
    --------
    >>> from puf import Population
    >>> a, b = Population([0.0, 0.0], np.eye(2)), Population([1.0, 0.5], np.eye(2))
    >>> interpolate(a, b, 0.5).effectiveness.tolist()
    [0.5, 0.25]
    """
    a, b = start.fields(), end.fields()
    return start.replace(**{f: a[f] + t * (b[f] - a[f]) for f in a if f in b})


def narrow_jump(
    evaluate: Callable[[Population], float],
    start: Population,
    end: Population,
    *,
    tolerance: float = 1e-7,
    points: int = 8,
    beam: int = 3,
) -> tuple[Population, Population, float, float] | None:
    """Return ``(pop_a, pop_b, value_a, value_b)``: the steepest short piece of the segment.

    ``evaluate`` maps a population to a float (NaN allowed: NaN points are never kept).
    The segment is cut into ``points`` pieces; every piece is halved, and the ``beam``
    halves whose values differ most are kept and halved again, down to ``tolerance``.
    A jump keeps its size as its piece shrinks while a continuous change halves with it,
    so a jump's piece stays in the beam even when the measure's trend elsewhere is larger.
    None when fewer than two points of the segment have finite values.

    Examples
    --------
    >>> from puf import Population
    >>> a, b = Population([0.0, 0.0], np.eye(2)), Population([1.0, 0.0], np.eye(2))
    >>> step = lambda pop: float(pop.effectiveness[0] > 0.3)   # a jump at S(0) = 0.3
    >>> low, high, f_low, f_high = narrow_jump(step, a, b)
    >>> f_low, f_high, distance(low, high) <= 1e-7
    (0.0, 1.0, True)
    """
    grid = [k / points for k in range(points + 1)]
    values = [evaluate(interpolate(start, end, t)) for t in grid]
    pieces = [
        (grid[i], grid[i + 1], values[i], values[i + 1])
        for i in range(points)
        if math.isfinite(values[i]) and math.isfinite(values[i + 1])
    ]
    if not pieces:
        return None
    length = distance(start, end)
    while pieces and (pieces[0][1] - pieces[0][0]) * length > tolerance:
        halves = []
        for low, high, f_low, f_high in pieces:
            mid = 0.5 * (low + high)
            f_mid = evaluate(interpolate(start, end, mid))
            if not math.isfinite(f_mid):
                continue
            halves += [(low, mid, f_low, f_mid), (mid, high, f_mid, f_high)]
        if not halves:
            break
        halves.sort(key=lambda piece: -abs(piece[3] - piece[2]))
        pieces = halves[:beam]
    low, high, f_low, f_high = max(pieces, key=lambda piece: abs(piece[3] - piece[2]))
    return interpolate(start, end, low), interpolate(start, end, high), f_low, f_high


class Found(AssertionError):
    """Raised inside the Hypothesis test when a case fails (or is a witness): a test failure,
    so Hypothesis shrinks it.

    Examples
    --------
    >>> issubclass(Found, AssertionError)
    True
    """


class OutOfBudget(BaseException):
    """The property's call or time budget ran out; not an Exception, so it stops Hypothesis at once.

    Examples
    --------
    >>> issubclass(OutOfBudget, Exception)
    False
    """


class FreshCalls(Protocol):
    """A caller in a worker of its own (a property's ``fresh_workers``): the values of populations
    asked in order, and its end."""

    def many(self, populations: Sequence[Population], *, raised_as_nan: bool = False) -> list[float]: ...

    def close(self) -> object: ...


@dataclasses.dataclass(frozen=True)
class MeasureCalls:
    """How a search calls its measure, handed to it by what runs it (the runner's
    :data:`~puf.properties.running.runner.MEASURE_CALLS`): the search judges values and does not
    itself stand on the measure-call boundary.

    ``call(measure, population, time_limit)`` is the measure's value, raising ``raised`` when the
    measure raised or returned no number and ``timed_out`` over ``time_limit``; ``first_call`` is
    ``call`` made as the first call of a process that has made no other (None: not available);
    ``fresh(measure, time_limit, first_calls=...)`` is a :class:`FreshCalls`; ``warned`` is the first
    warning a call gives, or None (None: not available).

    Examples
    --------
    >>> from puf.properties.running.runner import MEASURE_CALLS
    >>> MEASURE_CALLS.raised.__name__, MEASURE_CALLS.timed_out.__name__
    ('MeasureError', 'Timeout')
    """

    call: Callable[[Measure, Population, float | None], float]
    fresh: Callable[..., FreshCalls]
    raised: type[Exception]
    timed_out: type[BaseException]
    first_call: Callable[[Measure, Population, float | None], float] | None = None
    warned: Callable[[Measure, Population, float | None], str | None] | None = None


class PropertySearch:
    """One property's search on one measure: the body of its Hypothesis test, and what it found.

    :meth:`check` judges one case and raises :class:`Found` on a counterexample
    (universal) or a witness (existential), recording it in ``failure``; the last
    one recorded is the one Hypothesis replays at the end: the minimal one.

    Examples
    --------
    >>> from puf import Population, as_measure
    >>> from puf.properties import get_property
    >>> from puf.properties.running.runner import MEASURE_CALLS
    >>> search = PropertySearch(as_measure("gini"), get_property("defined"), measure_calls=MEASURE_CALLS,
    ...                         max_examples=10, time_limit=2.0, time_budget=60.0)
    >>> search.replay([Case(Population([0.0, 0.0], np.eye(2)))]), search.failure[1]["value_before"]
    (True, nan)
    """

    def __init__(
        self,
        measure: Measure,
        prop: Property,
        *,
        measure_calls: MeasureCalls,
        max_examples: int,
        time_limit: float,
        time_budget: float,
    ) -> None:
        self.measure, self.prop, self.level = measure, prop, measure_level(measure)
        self.measure_calls = measure_calls
        self.time_limit, self.time_budget = time_limit, time_budget
        # A deterministic cap on calls (generation, targeting and shrinking together) keeps
        # world-level shrinking bounded; the time budget is only a safety net for slow measures.
        self.max_calls = 5 * max_examples + 100
        self.checked = self.undefined = self.calls = 0
        self.stopped: str | None = None  # the budget that stopped the search ("its call budget"), if one did
        # Of the undefined: judgments that came out NaN on finite values (a step within the
        # resolution of a coarser float the measure returns, or a derived value undefined).
        self.undecided = 0
        # What was found: (kind, example); the existential demonstration and the smallest NaN
        # example, each with its rank.
        self.failure: tuple[str, dict[str, Any]] | None = None
        self.failure_case: Case | None = None
        self.demo: tuple[tuple[bool, bool, int], dict[str, Any]] | None = None
        self.nan_case: tuple[int, dict[str, Any], Case] | None = None
        self.searching = False
        # The example being evaluated when a call ran out of time, as the verdict shows it, and
        # the smallest m at which one did: a case as large is set aside, not asked (a measure
        # too slow for the large draws is still judged on the sizes it can be called at).
        self.timed_out: dict[str, Any] | None = None
        self.slow_from: int | None = None
        # Shrinking: a property with fresh workers asks each case's other populations and P
        # again in a process of their own, not after the search's earlier cases.
        self.shrinking = False
        # The stronger search's values by size m, and the candidates it and the grid tried.
        self.refined: dict[int, tuple[dict[str, float], int]] = {}
        self.candidates = 0
        self.sizes: set[int] = set()
        # derived populations' values (and what they raised), by identity (see evaluate_case)
        self.memo: dict[int, tuple[Population, float, str | None]] = {}
        self.start = time.perf_counter()
        # Two workers of the property's own (``fresh_workers``): one asked each case's P alone,
        # each time as the first call of a process, the other the case's other populations,
        # each followed by P.
        self.callers = (
            (measure_calls.fresh(measure, time_limit, first_calls=True), measure_calls.fresh(measure, time_limit))
            if prop.fresh_workers
            else None
        )

    def close(self) -> None:
        """End the property's own workers, if any."""
        for caller in self.callers or ():
            caller.close()

    def snapshot(
        self, case: Case, before: float | None, after: float | None, excess: float | None, error: str | None = None
    ) -> dict[str, Any]:
        """The example as the verdict shows and stores it (plain lists and numbers)."""
        shown = shown_fields(self.measure, self.prop)

        def fields(pop: Population | None) -> dict[str, Any] | None:
            if pop is None:
                return None
            present = {**pop.fields(), "groups": None}
            return {
                f: group_labels(pop.similarity) if f == "groups" else np.asarray(present[f]).tolist()
                for f in shown
                if f in present
            }

        snapshot = {
            "change": case.change,
            "before": fields(case.before),
            "after": fields(case.after),
            "value_before": before,
            "value_after": after,
            "violation": None if excess is None else float(excess),
            "error": error,
        }
        if case.values:  # the derived populations' values: what a subgroup or range judge read
            snapshot["derived"] = dict(case.values)
        return snapshot

    def fail(self, kind: str, example: dict[str, Any], case: Case) -> NoReturn:
        self.failure, self.failure_case = (kind, example), case
        raise Found(self.prop.name)

    def check(self, case: Case) -> None:
        """The test body: evaluate the measure on ``case`` and judge it (raise on a find). A case
        on which a call runs over the time limit is set aside, and so is every case as large after
        it (:attr:`slow_from`)."""
        self.calls += 1
        if self.calls > self.max_calls:
            self.stopped = "its call budget"
            raise OutOfBudget
        if time.perf_counter() - self.start > self.time_budget:
            self.stopped = f"its time budget of {self.time_budget:g} s"
            raise OutOfBudget
        if case.trivial:
            return
        m = max(case.before.m, 0 if case.after is None else case.after.m)
        if self.slow_from is not None and m >= self.slow_from:
            return
        try:
            if self.callers:
                case, before, after = self._repeated(case)
            else:
                case, before, after = evaluate_case(
                    case, self.measure, self.prop, self.time_limit, self.memo, measure_calls=self.measure_calls
                )
        except self.measure_calls.raised as exc:
            if self.prop.judges_undefined:
                self.fail("raised", self.snapshot(case, None, None, None, str(exc)), case)
            self._set_aside(case, None, None, error=str(exc))
            return
        except self.measure_calls.timed_out:
            self.timed_out = self.snapshot(case, None, None, None, "timed out")
            self.slow_from = m if self.slow_from is None else min(self.slow_from, m)
            return
        self.sizes.add(case.before.m)
        if self.prop.judges_undefined:
            self._judge_value(case, before, after)
        elif not math.isfinite(before) or (after is not None and not math.isfinite(after)):
            self._set_aside(case, before, after)
        else:
            self._judge(case, before, after)

    def _repeated(self, case: Case) -> tuple[Case, float, float | None]:
        """``(option, f(P) in the first worker, f(P) in the second)`` of the option whose two
        values differ most: the second worker is asked each option's other population, then P
        (while shrinking, each option's in a fresh process of its own)."""
        assert self.callers is not None  # only properties with fresh workers repeat (their cases have an after)
        first, second = self.callers
        options = (case, *case.alternatives)
        alone = first.many([case.before])[0]
        # An other population the measure cannot score is still a call before P: asked, set aside.
        if self.shrinking:  # each option in a process of its own: what a smaller case shows is its own
            again = [
                first.many([cast(Population, option.after), option.before], raised_as_nan=True)[1] for option in options
            ]
        else:
            pairs = [pop for option in options for pop in (cast(Population, option.after), option.before)]
            again = second.many(pairs, raised_as_nan=True)[1::2]

        def gap(value: float) -> float:
            return abs(value - alone) if math.isfinite(value - alone) else math.inf

        worst = max(range(len(options)), key=lambda i: gap(again[i]))
        return dataclasses.replace(options[worst], alternatives=()), alone, again[worst]

    def _judge_value(self, case: Case, before: float, after: float | None) -> None:
        """Judge a value that may be undefined (a value that is not a number has no size)."""
        if self.prop.judge(self.measure, before, after, case) > 0:
            self.fail("excess", self.snapshot(case, before, after, None), case)
        self.checked += 1

    def unsteady(self) -> str | None:
        """Why the find does not show what it seems to, or None: its populations asked again gave
        values that move by a tenth of the find's gap or more (a measure that samples, caches or
        reads a clock is no function of them, so a gap between two of its values shows nothing of
        the property; a jitter far below the gap, a float sum's last bit, leaves the find shown).
        A find on one population (a value out of range is one the measure returned), a raise, a
        call too slow to ask again and a property about repeated calls (``fresh_workers``:
        ``deterministic``) are their own evidence.

        Examples
        --------
        >>> import itertools
        >>> from puf import Population, as_measure
        >>> from puf.properties import get_property
        >>> from puf.properties.running.runner import MEASURE_CALLS
        >>> values = itertools.cycle([0.2, 0.5, 0.3])
        >>> noisy = as_measure(lambda effectiveness: next(values))
        >>> search = PropertySearch(noisy, get_property("anonymity"), measure_calls=MEASURE_CALLS,
        ...                         max_examples=10, time_limit=2.0, time_budget=60.0)
        >>> pop = Population([0.0, 1.0], np.eye(2))
        >>> search.replay([Case(pop, pop.permute([1, 0]), "users relabelled")])
        True
        >>> print(search.unsteady())
        not reproducible: asked again, the same population gave 0.2, not 0.5, a move of 0.3 against the find's gap of 0.3 (a sampled, cached or timed measure; see deterministic)
        """
        case = self.failure_case
        if self.failure is None or case is None or case.after is None or self.failure[1].get("error"):
            return None
        if self.prop.fresh_workers:
            return None
        firsts = (self.failure[1]["value_before"], self.failure[1]["value_after"])
        jitter, shown = 0.0, (0.0, 0.0)
        case = dataclasses.replace(case, alternatives=(), segment=False)
        # Asked again up to three times: a sampling measure's values on a small population are few
        # (a bootstrap SD of two users is 0 or 0.5), so one repeat can meet the same ones by chance
        # (a slow measure, over a second a repeat, is asked once); once a repeat moves, one more
        # says how far, not whether.
        started = time.perf_counter()
        for attempt in range(3):
            if attempt and not jitter and time.perf_counter() - started > attempt:
                break
            try:
                _, before, after = evaluate_case(
                    case,
                    self.measure,
                    self.prop,
                    self.time_limit,
                    measure_calls=self.measure_calls,
                )
            except self.measure_calls.timed_out:  # too slow to ask again: no evidence either way
                return None
            except self.measure_calls.raised as exc:
                return f"not reproducible: asked again on the same populations, the measure raised ({exc})"
            for first, again in zip(firsts, (before, after)):
                if first is None or again is None or first == again or (math.isnan(first) and math.isnan(again)):
                    continue
                moved = abs(again - first) if math.isfinite(again - first) else math.inf
                if moved > jitter:
                    jitter, shown = moved, (first, again)
            if jitter and attempt:
                break
        if not jitter:
            return None
        gap = abs(firsts[1] - firsts[0]) if None not in firsts else math.inf
        if 10 * jitter < gap:
            return None
        return (
            f"not reproducible: asked again, the same population gave {shown[1]:.6g}, not {shown[0]:.6g}, "
            f"a move of {jitter:.3g} against the find's gap of {gap:.3g} (a sampled, cached or timed "
            "measure; see deterministic)"
        )

    def stale(self) -> str | None:
        """Why the find does not hold of its populations themselves, or None: asked each alone, as
        the first call of a process of its own (``measure_calls.first_call``), they do not show it.
        A measure that keeps what earlier calls gave (a cache keyed on a summary of its input, a
        running maximum) can return, on a population, the value of another: the find then shows
        the calls' order, not the property. Properties about repeated calls (``fresh_workers``) and
        a witness not found (``refine``) are not asked again, nor is a find whose populations are
        too slow to be.

        Examples
        --------
        >>> from puf import Population, as_measure
        >>> from puf.properties import get_property
        >>> from puf.properties.running.runner import MEASURE_CALLS
        >>> seen = {}
        >>> def by_mean(effectiveness):  # a cache keyed on the mean alone
        ...     return seen.setdefault(round(float(np.mean(effectiveness)), 9), float(np.std(effectiveness)))
        >>> measure = as_measure(by_mean)
        >>> MEASURE_CALLS.call(measure, Population([0.0, 1.0], np.eye(2)), 2.0)  # kept at mean 0.5
        0.5
        >>> search = PropertySearch(measure, get_property("zero-at-equality"), measure_calls=MEASURE_CALLS,
        ...                         max_examples=10, time_limit=2.0, time_budget=60.0)
        >>> search.replay([Case(Population([0.5, 0.5], np.eye(2)))])
        True
        >>> print(search.stale())
        not reproducible alone: each population asked alone, as the first call of a new process, gave 0, not 0.5: no violation (the measure's value depends on earlier calls: a cache or a running statistic; see deterministic)
        """
        case, failure, alone = self.failure_case, self.failure, self.measure_calls.first_call
        if failure is None or case is None or alone is None or self.prop.fresh_workers or self.prop.refine:
            return None
        asked: dict[int, float] = {}

        def first_call(measure: Measure, pop: Population, time_limit: float | None) -> float:
            asked[id(pop)] = alone(measure, pop, time_limit)
            return asked[id(pop)]

        again = PropertySearch(
            self.measure,
            self.prop,
            measure_calls=dataclasses.replace(self.measure_calls, call=first_call),
            max_examples=1,
            time_limit=self.time_limit,
            time_budget=self.time_budget,
        )
        shown = dataclasses.replace(case, alternatives=(), segment=False)
        try:
            again.check(shown)
        except (Found, OutOfBudget):  # (out of budget: no evidence either way)
            return None
        if again.slow_from is not None:
            return None
        firsts = (failure[1].get("value_before"), failure[1].get("value_after"))
        moved = [
            f"{value:.6g}, not {first:.6g}"
            for first, pop in zip(firsts, (shown.before, shown.after))
            if first is not None and (value := asked.get(id(pop))) is not None and value != first
        ]
        if again.nan_case is not None and again.nan_case[1].get("error"):
            gave = f"the measure raised ({again.nan_case[1]['error']})"
        else:  # (the same values, and others on the populations a judge derives)
            gave = f"gave {' and '.join(moved)}: no violation" if moved else "showed no violation"
        return (
            "not reproducible alone: each population asked alone, as the first call of a new process, "
            f"{gave} (the measure's value depends on earlier calls: a cache or a running statistic; see deterministic)"
        )

    def _set_aside(self, case: Case, before: float | None, after: float | None, *, error: str | None = None) -> None:
        """An undefined value (NaN, ±inf, or a call that raised) is not judged: `defined` reports
        it; it is counted here, and the smallest such example kept to show."""
        self.undefined += 1
        if self.nan_case is None or case.before.m < self.nan_case[0]:
            self.nan_case = (case.before.m, self.snapshot(case, before, after, None, error), case)

    def with_warning(self, example: dict[str, Any], case: Case | None) -> dict[str, Any]:
        """``example`` with the first warning the measure gives on ``case``'s population (one call more)
        as ``warning``, where it returned NaN or ±inf there and raised nothing."""
        value, warned = example.get("value_before"), self.measure_calls.warned
        if (
            case is None
            or warned is None
            or example.get("error")
            or not isinstance(value, float)
            or math.isfinite(value)
        ):
            return example
        return {**example, "warning": warned(self.measure, case.before, self.time_limit)}

    def _refined(self, case: Case, before: float, after: float | None) -> tuple[Case, float]:
        """The case with the property's stronger search's values added (once per size m), and
        its excess judged again: a shortfall the search alone found is not yet a finding."""
        assert self.prop.refine is not None  # only properties with a stronger search refine
        m = case.before.m
        if m not in self.refined:

            def value(pop: Population) -> float:
                if time.perf_counter() - self.start > self.time_budget:
                    raise OutOfBudget  # the stronger search spends the property's time like the rest
                try:
                    return self.measure_calls.call(self.measure, pop, self.time_limit)
                except self.measure_calls.raised:
                    return math.nan

            try:
                self.refined[m] = self.prop.refine(case, value, self.measure)
            except OutOfBudget:  # out of time: the shortfall stands, as not-found (never violated)
                self.refined[m] = ({}, 0)
            self.candidates += self.refined[m][1]
        case = dataclasses.replace(case, values={**(case.values or {}), **self.refined[m][0]})
        return case, self.prop.judge(self.measure, before, after, case)

    def grid(self) -> None:
        """Try the property's exhaustive small grid (outside Hypothesis); a witness is a find."""
        if self.prop.grid is None or not set(self.prop.needs) & set(self.measure.reads or ()):
            return
        cases = self.prop.grid(self.level, self.measure)
        self.max_calls += len(cases)
        self.candidates += len(cases)
        for case in cases:
            self.check(case)

    def _judge(self, case: Case, before: float, after: float | None) -> None:
        excess = self.prop.judge(self.measure, before, after, case)
        if excess > 0 and self.prop.refine is not None:
            case, excess = self._refined(case, before, after)
        if math.isnan(excess):  # too small a step to call, or a subgroup's NaN: nothing to judge
            self.undecided += 1
            self._set_aside(case, before, after, error=case.derived_error)
            return
        if math.isfinite(excess) and self.searching:
            target(float(np.clip(excess, -1e6, 1e6)), label=self.prop.name)
        if excess > 0:
            self.fail("excess", self.snapshot(case, before, after, excess), case)
        self.checked += 1
        if self.prop.kind == "existential":
            rank = _demo_rank(case)
            if self.demo is None or rank < self.demo[0]:
                self.demo = (rank, self.snapshot(case, before, after, excess))

    def replay(self, stored: Sequence[Case]) -> bool:
        """Try stored examples first, outside Hypothesis; True when one was a find.

        A known violation is found on any Hypothesis release, and a found one ends
        the property without a search; ``stored`` are the cases of the examples this
        measure can be called on (the runner reads them from the known files).
        """
        for case in stored:
            try:
                self.check(case)
            except Found:
                return True
        return False


def _narrowed(case: Case, prop: Property, value: Callable[[Population], float]) -> tuple[Case, float, float] | None:
    """A segment narrowed to its steepest piece (``prop.narrow``, else :func:`narrow_jump`), and a
    pair of a property that narrows judged by its narrowing (``segment=True`` where its gap does
    not persist: nothing to judge); None for any other case."""
    if prop.narrow is not None and not case.segment and case.after is not None and case.after.m == case.before.m:
        # A pair (stored, or a find with users removed) is a jump only where its gap persists as
        # it is halved: one user fewer can leave a steep continuous change (√x at 0) in its place.
        if prop.narrow(value, case.before, case.after) is None:
            return dataclasses.replace(case, segment=True), value(case.before), value(case.after)
        return None
    if not case.segment or case.after is None:  # (a segment has both ends)
        return None
    narrowed = (prop.narrow or narrow_jump)(value, case.before, case.after)
    if narrowed is None:
        return case, value(case.before), value(case.after)
    low, high, f_low, f_high = narrowed
    gap = distance(low, high)
    change = case.change + f", narrowed by bisection to δ = {gap:.3g}"
    return (
        dataclasses.replace(case, before=low, after=high, segment=False, delta=gap or math.inf, change=change),
        f_low,
        f_high,
    )


def evaluate_case(
    case: Case,
    measure: Measure,
    prop: Property,
    time_limit: float,
    memo: dict[int, tuple[Population, float, str | None]] | None = None,
    *,
    measure_calls: MeasureCalls,
) -> tuple[Case, float, float | None]:
    """Return ``(case, value_before, value_after)``: the case judged, after narrowing a segment
    or choosing the worst of its alternatives (the one with the largest excess).

    ``memo``: a dict keeping the values of derived populations by identity across cases (the
    candidate extremes of one size are the same objects every time); ``measure_calls``: how the
    measure is called (:class:`MeasureCalls`)."""

    def value(pop: Population) -> float:
        return measure_calls.call(measure, pop, time_limit)

    def derived_value(pop: Population) -> tuple[float, str | None]:
        if memo is not None and id(pop) in memo:
            return memo[id(pop)][1:]
        try:
            found, error = value(pop), None
        except measure_calls.raised as exc:
            found, error = math.nan, str(exc)  # a derived population that raises is set aside as a NaN one is
        if memo is not None:
            memo[id(pop)] = (pop, found, error)  # the population kept: its id stays its own
        return found, error

    def with_values(option: Case) -> Case:
        if prop.derived is None:
            return option
        found = {
            name: derived_value(pop)
            for name, pop in prop.derived(option).items()
            if set(measure.reads or ()) <= set(pop.fields())
        }
        error = next((f"{e}, on the derived population {name}" for name, (_, e) in found.items() if e), None)
        return dataclasses.replace(option, values={name: v for name, (v, _) in found.items()}, derived_error=error)

    cache: dict[int, tuple[Population, float]] = {}

    def cached(pop: Population) -> float:
        if id(pop) not in cache:
            cache[id(pop)] = (pop, value(pop))
        return cache[id(pop)][1]

    case = with_values(case)
    # (cached: a pair's narrowing asks its two ends, which are then judged, without asking again)
    narrowed = _narrowed(case, prop, cached)
    if narrowed is not None:
        return narrowed
    before = cached(case.before)
    after = None if case.after is None else cached(case.after)
    if not case.alternatives:
        return case, before, after
    best = None
    for option in (dataclasses.replace(case, alternatives=()), *map(with_values, case.alternatives)):
        if option.after is None:  # every alternative has its after population
            continue
        b, a = cached(option.before), cached(option.after)
        if not (math.isfinite(b) and math.isfinite(a)):
            continue
        excess = prop.judge(measure, b, a, option)
        if best is None or excess > best[0] or math.isnan(best[0]):  # an undecided option (NaN) ranks last
            best = (excess, option, b, a)
    if best is None:
        return dataclasses.replace(case, alternatives=()), before, after
    return best[1], best[2], best[3]


def _demo_rank(case: Case) -> tuple[bool, bool, int]:
    """Order of preference of an existential property's demonstration: telling ones first.

    A demonstration that the value does not move is most telling when the
    fields vary (a constant effectiveness leaves every measure of gaps at 0,
    whatever the similarity), then the smaller the better.
    """
    before = case.before
    sim = before.similarity[~np.eye(before.m, dtype=bool)]
    return (bool(np.ptp(before.effectiveness) == 0), bool(np.ptp(sim) == 0), before.m)
