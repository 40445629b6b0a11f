"""The verdict runner: put a measure through the property catalog with Hypothesis.

Each property runs as a ``@given`` test built here and called directly. A
universal property that fails is shrunk to a minimal counterexample (after
``target()`` has pushed the search towards the largest violation); an
existential one that succeeds is shrunk to a minimal witness. The failing
case is recorded in a closure, so the last one recorded is the one Hypothesis
replays at the end: the minimal one.
"""

__all__ = ["Verdict", "STATUSES", "DEFAULT_MAX_EXAMPLES", "verdicts"]

import contextlib
import dataclasses
import math
import time
from dataclasses import asdict, dataclass

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, example, given, seed, settings, target

from puf import as_measure

from ._calls import (MeasureError, Timeout, call_measure, check_returns_number,
                     check_run_options, end_calls)
from .budget import DEFAULT_MAX_EXAMPLES, examples_for
from .power import measured_power
from ._search import distance, narrow_jump
from .catalog import CATALOG, get_property
from .known import example_case, known_examples

STATUSES = ("holds", "violated", "undefined", "not-applicable")
_WORLD_FIELDS = {"utility", "list_distance"}


@dataclass(frozen=True)
class Verdict:
    """The verdict of one property on one measure.

    Attributes
    ----------
    measure, property : str
        Names.
    status : {"holds", "violated", "undefined", "not-applicable"}
        ``holds``: no counterexample (universal) or a witness found
        (existential); ``violated``: a minimal counterexample (universal) or
        no witness in ``n_examples`` tries (existential); ``undefined``: the
        measure raised, timed out, or was NaN on every example;
        ``not-applicable``: no example admitted the transformation.
    kind, level : str
        Universal or existential; checked on ``score`` populations or ``world``s.
    n_examples : int
        Examples checked (trivial and undefined ones not counted).
    n_undefined : int
        Examples set aside because the measure returned NaN on them (the
        ``defined`` property reports those).
    reason : str
        One line saying why.
    example : dict or None
        The counterexample, witness or offending input: ``change``,
        ``before``/``after`` fields, ``value_before``/``value_after``, ``violation``.
    seconds : float
        Wall time of the check.
    sizes : tuple of int
        The numbers of users m of the examples checked.
    power : float or None
        The measured detection rate of this property's search at this budget
        (share of the flaw corpus's planted flaws of the property it finds,
        ``properties/power_table.json``); None where not measured.

    Examples
    --------
    >>> v = verdicts("sd", properties=["similarity-sensitive"], max_examples=10)[0]
    >>> v.status, v.to_dict()["property"]
    ('violated', 'similarity-sensitive')
    """

    measure: str
    property: str
    status: str
    kind: str
    level: str
    n_examples: int
    n_undefined: int
    reason: str
    example: dict | None = None
    seconds: float = 0.0
    sizes: tuple = ()
    power: float | None = None

    def to_dict(self):
        """Return a JSON-ready dict (NaN and infinities as the strings "nan", "inf", "-inf").

        Examples
        --------
        >>> v = verdicts("gini", properties=["defined"], max_examples=10)[0]
        >>> v.to_dict()["example"]["value_before"]
        'nan'
        """
        return _json_ready(asdict(self))


def _json_ready(value):
    if isinstance(value, dict):
        return {k: _json_ready(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_json_ready(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


class _Failure(AssertionError):
    """Raised inside the Hypothesis test when a case fails (or is a witness)."""


class _OutOfTime(BaseException):
    """The property's time budget ran out; stops Hypothesis at once."""


def _snapshot(case, measure, prop, before, after, excess, error=None):
    # Effectiveness and similarity always (a Population needs both, so the example
    # replays as a known example), the other fields when the measure or property uses them.
    shown = [f for f in ("effectiveness", "similarity", "utility", "list_distance")
             if f in measure.reads or f in prop.needs or f in ("effectiveness", "similarity")]

    def fields(pop):
        if pop is None:
            return None
        present = pop.fields()
        return {f: np.asarray(present[f]).tolist() for f in shown if f in present}

    return {
        "change": case.change,
        "before": fields(case.before),
        "after": fields(case.after),
        "value_before": before,
        "value_after": after,
        "violation": None if excess is None else float(excess),
        "error": error,
    }


def _level(measure):
    return "world" if _WORLD_FIELDS & set(measure.reads) else "score"


def _seed(random_state):
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**32))
    return random_state


@contextlib.contextmanager
def _no_local_constants():
    """Hide the constants Hypothesis harvests from every local module in ``sys.modules``.

    Hypothesis mixes literals found in the source of already-imported local
    modules into generation, so the same seed gave different verdicts
    depending on what else the process had imported (``puf check`` versus a
    pytest session that collected other tests). Internal API: if it moves,
    this does nothing.
    """
    try:
        from hypothesis.internal.conjecture import providers

        original, empty = providers._get_local_constants, providers.Constants()
        providers.CONSTANTS_CACHE.cache.clear()
    except (ImportError, AttributeError):
        yield
        return
    providers._get_local_constants = lambda: empty
    try:
        yield
    finally:
        providers._get_local_constants = original
        providers.CONSTANTS_CACHE.cache.clear()


def _check_one(measure, prop, *, max_examples, random_state, time_limit, budget, database, known):
    level = _level(measure)
    state = {"checked": 0, "undefined": 0, "failure": None, "demo": None, "calls": 0,
             "nan_case": None, "searching": False, "sizes": set()}
    # A deterministic cap on calls (generation, targeting and shrinking together) keeps
    # world-level shrinking bounded; the time budget is only a safety net for slow measures.
    max_calls = 5 * max_examples + 100
    start = time.perf_counter()

    def fail(outcome):
        state["failure"] = outcome
        raise _Failure(prop.name)

    def body(case):
        state["calls"] += 1
        if state["calls"] > max_calls or time.perf_counter() - start > budget:
            raise _OutOfTime
        if case.trivial:
            return
        try:
            case, before, after = _evaluate(case, measure, prop, time_limit)
        except MeasureError as exc:
            fail(("raised", _snapshot(case, measure, prop, None, None, None, str(exc))))
        except Timeout as exc:
            exc.snapshot = _snapshot(case, measure, prop, None, None, None, "timed out")
            raise
        state["sizes"].add(case.before.m)
        if prop.name == "defined":
            if not math.isfinite(before):
                fail(("excess", _snapshot(case, measure, prop, before, None, None)))
            state["checked"] += 1
            return
        if math.isnan(before) or (after is not None and math.isnan(after)):
            state["undefined"] += 1
            if state["nan_case"] is None or case.before.m < state["nan_case"][0]:
                state["nan_case"] = (case.before.m, _snapshot(case, measure, prop, before, after, None))
            return
        excess = prop.judge(measure, before, after, case)
        if math.isfinite(excess) and state["searching"]:
            target(float(np.clip(excess, -1e6, 1e6)), label=prop.name)
        if excess > 0:
            fail(("excess", _snapshot(case, measure, prop, before, after, excess)))
        state["checked"] += 1
        demo, rank = state["demo"], _demo_rank(case)
        if prop.kind == "existential" and (demo is None or rank < demo[0]):
            state["demo"] = (rank, _snapshot(case, measure, prop, before, after, excess))

    def search():
        # Stored examples first, outside Hypothesis: a known violation is found on any
        # Hypothesis release, and a found one ends the property without a search.
        for source, stored in known_examples(prop.name, first=measure.name) if known else ():
            if not set(measure.reads) <= set(stored["before"]):
                continue
            try:
                body(example_case(prop.name, stored, source=source))
            except _Failure:
                return
        state["searching"] = True
        test()

    test = given(prop.cases(level, measure))(body)
    for case in prop.explicit(level):
        test = example(case)(test)
    test = settings(
        max_examples=max_examples, database=database, deadline=None, derandomize=False,
        suppress_health_check=list(HealthCheck), report_multiple_bugs=False,
        verbosity=Verbosity.quiet, print_blob=False,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    )(test)
    if random_state is not None:
        test = seed(random_state)(test)
    test._hypothesis_internal_database_key = f"puf-harness:{measure.name}:{prop.name}".encode()
    note = ""
    try:
        with _no_local_constants():
            search()
    except _Failure:
        pass
    except Timeout as exc:
        return level, "undefined", f"timed out after {time_limit:g} s", exc.snapshot, state
    except _OutOfTime:
        note = " (search stopped at its call or time budget)"
    except Exception as exc:  # Hypothesis' own errors, e.g. Flaky from a non-deterministic measure
        if state["failure"] is None:
            return level, "undefined", f"{type(exc).__name__}: {exc}".splitlines()[0], None, state
        note = f" (Hypothesis: {type(exc).__name__})"
    return (level, *_status(prop, state, note), state)


def _evaluate(case, measure, prop, time_limit):
    """Return ``(case, value_before, value_after)``: the case judged, after narrowing a segment
    or choosing the worst of its alternatives (the one with the largest excess)."""

    def value(pop):
        return call_measure(measure, pop, time_limit)

    if case.segment:
        narrowed = narrow_jump(value, case.before, case.after)
        if narrowed is None:
            return case, value(case.before), value(case.after)
        low, high, f_low, f_high = narrowed
        case = dataclasses.replace(
            case, before=low, after=high, segment=False, delta=distance(low, high) or math.inf,
            change=case.change + f", narrowed by bisection to δ = {distance(low, high):.3g}")
        return case, f_low, f_high
    cache = {}

    def cached(pop):
        if id(pop) not in cache:
            cache[id(pop)] = (pop, value(pop))
        return cache[id(pop)][1]

    before = cached(case.before)
    after = None if case.after is None else cached(case.after)
    if not case.alternatives:
        return case, before, after
    best = None
    for option in (dataclasses.replace(case, alternatives=()), *case.alternatives):
        b, a = cached(option.before), cached(option.after)
        if math.isnan(b) or math.isnan(a):
            continue
        excess = prop.judge(measure, b, a, option)
        if best is None or excess > best[0]:
            best = (excess, option, b, a)
    if best is None:
        return dataclasses.replace(case, alternatives=()), before, after
    return best[1], best[2], best[3]


def _demo_rank(case):
    """Order of preference of an existential property's demonstration: telling ones first.

    A demonstration that the value does not move is most telling when the
    fields vary (a constant effectiveness leaves every measure of gaps at 0,
    whatever the similarity), then the smaller the better.
    """
    before = case.before
    sim = before.similarity[~np.eye(before.m, dtype=bool)]
    return (bool(np.ptp(before.effectiveness) == 0), bool(np.ptp(sim) == 0), before.m)


def _status(prop, state, note):
    failure, n = state["failure"], state["checked"]
    if failure is not None and failure[0] == "raised":
        if prop.name == "defined":
            return "violated", f"raised on a valid population: {failure[1]['error']}{note}", failure[1]
        return "undefined", f"the measure raised: {failure[1]['error']}{note}", failure[1]
    if failure is not None:
        example = failure[1]
        if prop.name == "defined":
            return "violated", f"returned {example['value_before']} on a valid population{note}", example
        if prop.kind == "existential":
            return "holds", f"witness: value {example['value_before']:.6g} → {example['value_after']:.6g}{note}", example
        before, after = example["value_before"], example["value_after"]
        if prop.name == "rearrangement" and abs(before - after) <= 1e-9 * max(1.0, abs(before)):
            return "violated", (f"most_fair not strictly fairer than most_unfair (both "
                                f"{before:.6g}){note}"), example
        return "violated", f"counterexample, violation {example['violation']:.3g}{note}", example
    if n == 0 and state["undefined"]:
        return ("undefined", f"NaN on all {state['undefined']} examples{note}",
                (state["nan_case"] or (0, None))[1])
    if n == 0:
        return "not-applicable", f"no example admitted the transformation{note}", None
    sizes = _sizes(state["sizes"])
    if prop.kind == "existential":
        return "violated", f"no change in {n} tries ({sizes}) moved the value{note}", (state["demo"] or (0, None))[1]
    return "holds", f"no counterexample in {n} examples ({sizes}){note}", None


def _sizes(sizes):
    """The sizes m checked, as ranges: "m = 2–6, 8"."""
    if not sizes:
        return "no size"
    ordered, parts = sorted(sizes), []
    start = prev = ordered[0]
    for m in ordered[1:] + [None]:
        if m is not None and m == prev + 1:
            prev = m
            continue
        parts.append(str(start) if start == prev else f"{start}–{prev}")
        if m is not None:
            start = prev = m
    return "m = " + ", ".join(parts)


def verdicts(measure, *, properties=None, max_examples=DEFAULT_MAX_EXAMPLES, random_state=0,
             time_limit=2.0, budget=60.0, database=None, known=True):
    """Put ``measure`` through the property catalog.

    Parameters
    ----------
    measure : str, callable or puf.Measure
        A registered name or any function whose parameters are Population fields.
    properties : str or iterable of str, optional
        Property names (one name may be given alone); default the whole
        :data:`properties.CATALOG`.
    max_examples : int, default ``properties.budget.DEFAULT_MAX_EXAMPLES`` (60)
        The example budget: Hypothesis examples per property before shrinking,
        times the property's weight (:func:`properties.budget.examples_for`).
    random_state : int, numpy Generator or None, default 0
        Seed; the same seed gives the same verdicts. None: Hypothesis' own randomness.
    time_limit : float, default 2.0
        Seconds allowed per measure call, > 0; a call over it makes the verdict
        ``undefined: timed out after N s``. A user's measure runs in a worker
        process killed at the limit (so even C code that ignores signals stops);
        the built-ins run in-process under SIGALRM (main thread).
    budget : float, default 60.0
        Seconds allowed per property; the search stops there and reports what it has.
    database : hypothesis database, optional
        Example database (keyed by measure and property); default none.
    known : bool, default True
        Try the stored examples of ``properties/known/`` first (every file's
        examples of the property); False measures the search alone.

    Returns
    -------
    list of Verdict
        One per property, in catalog order.

    Raises
    ------
    ValueError
        If the measure has an unknown parameter or does not return a number, or
        an option is out of range (``time_limit`` or ``budget`` <= 0, ``max_examples`` < 1).

    Examples
    --------
    >>> [(v.property, v.status) for v in verdicts("puf", properties=["range", "anonymity"],
    ...                                             max_examples=10)]
    [('range', 'holds'), ('anonymity', 'holds')]
    """
    measure = as_measure(measure)
    properties = check_run_options(time_limit=time_limit, budget=budget,
                                   max_examples=max_examples, properties=properties)
    check_returns_number(measure, time_limit)
    names = list(CATALOG) if properties is None else [get_property(p).name for p in properties]
    seed_value = _seed(random_state)
    results = []
    for name in names:
        prop = CATALOG[name]
        start = time.perf_counter()
        level, status, reason, example, state = _check_one(
            measure, prop, max_examples=examples_for(name, max_examples), random_state=seed_value,
            time_limit=time_limit, budget=budget, database=database, known=known)
        power = measured_power(name, max_examples) if status == "holds" and prop.kind == "universal" else None
        if power is not None:
            reason += (f"; this search finds {100 * power[0]:.0f}% of the corpus's planted "
                       f"{name} flaws at {power[1]} examples")
        results.append(Verdict(measure.name, name, status, prop.kind, level, state["checked"],
                               state["undefined"], reason, example,
                               round(time.perf_counter() - start, 3), tuple(sorted(state["sizes"])),
                               None if power is None else power[0]))
    end_calls()  # a user measure's worker process is not kept past its verdicts
    return results
