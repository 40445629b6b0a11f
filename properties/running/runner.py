"""The verdicts of a measure on given properties: :func:`verdicts` puts a measure through
:class:`~puf.properties.catalog.property.Property` objects with Hypothesis, one
:class:`~puf.properties.running.verdict.Verdict` each (:func:`puf.properties.verdicts` looks the
properties up in the catalog by name and hands them here).

Each property runs as a ``@given`` test built here and called directly, its body
a :class:`~puf.properties.running.search.PropertySearch` that knows the property only as
an object (its cases, explicit cases, judge and explanation). A universal
property that fails is shrunk to a minimal counterexample (after ``target()``
has pushed the search towards the largest violation; :mod:`properties.running.shrink`
then shrinks a find from any source); an existential one that succeeds is shrunk
to a minimal witness. The statuses a verdict can have are
:data:`properties.catalog.property.STATUSES`.
"""

from __future__ import annotations

__all__ = ["MEASURE_CALLS", "verdicts", "shrunk_example", "confirmed"]

from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any
import contextlib
import dataclasses
import time

import numpy as np
from hypothesis import HealthCheck, Phase, Verbosity, given, seed, settings

from puf import as_measure
from puf.metadata import Measure
from puf.registry import is_registered

from ..cases.case import LARGEST, WORLD_FIELDS, Case, measure_level
from ..cases.preconditions import meets
from .verdict import Verdict
from .calls import FreshCaller, MeasureError, Timeout, call_measure, check_returns_number, first_call, warning_of
from .isolation import release_workers
from .budget import DEFAULT_TIME_BUDGET, DEFAULT_TIME_LIMIT, check_run_options, example_budget
from ..catalog.property import Property
from ..catalog.judges import MEASURE_EPSILON, explain_excess, nearest_to_missed_end, shown_pair
from ..knowledge.known import PINNED_SOURCE, example_case, known_examples
from ..knowledge.known.derived import derived_reason, unranked, unread_reason, unreached
from ..knowledge.power_table import measured_power
from ..proving.bounds import unreached_end
from ..proving.proofs import Proof, check_mode, combine, prove, settles
from .search import Found, MeasureCalls, OutOfBudget, PropertySearch
from .shrink import shrink, users_held


#: How every search the runner starts calls the measure: through the measure-call boundary
#: (:mod:`.calls`: a user's measure in its worker, killed at the time limit).
MEASURE_CALLS = MeasureCalls(call_measure, FreshCaller, MeasureError, Timeout, first_call, warning_of)


def confirmed(measure: Measure, prop: Property, case: Case) -> dict[str, Any] | None:
    """The judge's snapshot of a solver's counterexample ``case`` when it confirms the violation,
    else None: a search judges it as any other case (the solver decides, the judge confirms).

    Examples
    --------
    >>> from puf import Population
    >>> from puf.properties import get_property
    >>> case = Case(Population([0.0, 1.0], np.eye(2)))
    >>> confirmed(as_measure(lambda effectiveness: 2 * max(effectiveness)), get_property("range"), case)["value_before"]
    2.0
    >>> confirmed(as_measure("sd"), get_property("range"), case) is None
    True
    """
    search = PropertySearch(
        measure, prop, measure_calls=MEASURE_CALLS, max_examples=1, time_limit=10.0, time_budget=60.0
    )
    try:
        search.check(case)
    except Found:
        return None if search.failure is None else search.failure[1]
    return None


def _recorded_seed(seed_value: int | None) -> int | None:
    """The seed as a Verdict records it: an int, or None for Hypothesis' own randomness."""
    return None if seed_value is None else int(seed_value)


def _seed(random_state: int | np.random.Generator | None) -> int | None:
    if isinstance(random_state, np.random.Generator):
        return int(random_state.integers(2**32))
    return random_state


@contextlib.contextmanager
def _no_local_constants() -> Iterator[None]:
    """Hide the constants Hypothesis harvests from every local module in ``sys.modules``.

    Hypothesis mixes literals found in the source of already-imported local
    modules into generation, so the same seed gave different verdicts
    depending on what else the process had imported (``puf check`` versus a
    pytest run that collected other tests). Internal API: if it moves,
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


def _hypothesis_test(
    search: PropertySearch, *, max_examples: int, random_state: int | None, database: Any
) -> Callable[[], None]:
    """The property's ``@given`` test around ``search.check``."""
    prop, measure = search.prop, search.measure

    def body(case: Case) -> None:
        search.check(case)

    test = given(prop.cases(search.level, measure))(body)  # (hand-made cases are replayed before it)
    test = settings(
        max_examples=max_examples,
        database=database,
        deadline=None,
        derandomize=False,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        verbosity=Verbosity.quiet,
        print_blob=False,
        phases=(Phase.explicit, Phase.reuse, Phase.generate, Phase.target, Phase.shrink),
    )(test)
    if random_state is not None:
        test = seed(random_state)(test)
    test._hypothesis_internal_database_key = f"puf-harness:{measure.name}:{prop.name}".encode()
    return test


def _replayed_cases(measure: Measure, prop: Property, known: bool | Mapping[str, Any]) -> list[Case]:
    """The cases tried before any search: stored examples of ``prop`` that ``measure`` can be
    called on, and the property's hand-made cases (``Property.explicit``) that meet its statement
    for this measure.

    ``known`` is True (the packaged known files), False (none), or a known file's content
    (a measure's pinned file): its example of the property first, then the measure's own packaged
    ones (a built-in's pinned find), then the hand-made cases and the other measures' examples
    together, smallest first, so that a measure failing several is shown the smallest. The
    packaged examples of the properties ``prop`` replays (:attr:`Property.replays`) join them,
    those that meet ``prop``'s precondition.

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.properties import get_property
    >>> cases = _replayed_cases(as_measure("gini"), get_property("defined"), True)
    >>> cases[0].change.startswith("known example (gini)")
    True
    >>> cases = _replayed_cases(as_measure("mme"), get_property("lorenz-consistency"), True)
    >>> [case.change.split(":")[0] for case in cases if "pigou-dalton" in case.change][0]
    'known example (mme, pigou-dalton)'
    """
    level = measure_level(measure)
    own: list[tuple[Case, bool]] = []  # (case, stored for this property: its statement's own instance)
    if isinstance(known, dict) and known.get("examples", {}).get(prop.name):
        own.append((example_case(prop.name, known["examples"][prop.name], source=PINNED_SOURCE), True))
    others = [(case, False) for case in prop.explicit(level)]
    for stored_as in (prop.name, *prop.replays) if known else ():
        for name, stored in known_examples(stored_as):
            given = set(stored["before"]) | ({"similarity"} if "groups" in stored["before"] else set())
            if not set(measure.reads or ()) <= given:  # (a group stands for similarity 1 within it, 0 across)
                continue
            source = name if stored_as == prop.name else f"{name}, {stored_as}"
            if level == "score" and WORLD_FIELDS & set(stored["before"]):  # (its words speak of lists)
                source += ", at world level"
            entry = (example_case(prop.name, stored, source=source), stored_as == prop.name)
            (own if name == measure.name else others).append(entry)
    own.sort(key=lambda entry: not entry[1])  # (stable: the property's own before the replayed)
    others.sort(key=lambda entry: entry[0].before.m)  # (stable: hand-made first at one size)
    # A hand-made case moving a field this measure does not read, or an example stored for another
    # property, is a case of this one only where it meets the statement's precondition.
    return [case for case, stored in own + others if stored or meets(prop.cases, case, level, measure)]


def _check_one(
    measure: Measure,
    prop: Property,
    *,
    max_examples: int,
    random_state: int | None,
    time_limit: float,
    time_budget: float,
    database: Any,
    known: bool | Mapping[str, Any],
) -> tuple[str, str, dict[str, Any] | None, PropertySearch]:
    """Return ``(status, reason, example, search)`` of one property on one measure."""
    search = PropertySearch(
        measure,
        prop,
        measure_calls=MEASURE_CALLS,
        max_examples=max_examples,
        time_limit=time_limit,
        time_budget=time_budget,
    )
    test = _hypothesis_test(search, max_examples=max_examples, random_state=random_state, database=database)
    note = ""
    try:
        with _no_local_constants():
            if not search.replay(_replayed_cases(measure, prop, known)):
                search.searching = True
                test()
                search.searching = False
                if prop.kind == "existential":
                    search.grid()
    except Found:
        pass
    except Timeout:  # (a call outside a case: the stronger search's)
        return "undefined", f"timed out after {time_limit:g} s", search.timed_out, search
    except OutOfBudget:
        note = f" (search stopped at {search.stopped or 'its call or time budget'})"
    except Exception as exc:  # Hypothesis' own errors, e.g. Flaky from a non-deterministic measure
        if search.failure is None:
            return "undefined", f"{type(exc).__name__}: {exc}".splitlines()[0], None, search
        note = f" (Hypothesis: {type(exc).__name__})"
    finally:
        search.close()
    if search.slow_from is not None:
        if search.failure is None and not search.checked and not search.undefined:
            return "undefined", f"timed out after {time_limit:g} s", search.timed_out, search
        note += f" (cases of m ≥ {search.slow_from} set aside: a call there timed out after {time_limit:g} s)"
    if search.failure is not None:
        if not shrink(search):
            note += " (shrinking stopped at its budget)"
        elif search.failure_case is not None and search.failure_case.before.m > LARGEST:
            m = search.failure_case.before.m
            held = users_held(search.prop, search.failure_case)
            note += (
                f" (its change moves all {m} users together: none was removed)"
                if held
                else f" (it needs its {m} users: none could be removed)"
            )
        # A user's measure may keep what earlier calls gave (a built-in is a function of its input).
        if unsteady := search.unsteady() or (not is_registered(measure) and search.stale()):
            return "undefined", unsteady + note, search.failure[1] if search.failure else None, search
    return (*_status(search, note), search)


def shrunk_example(search: PropertySearch, example: dict[str, Any]) -> dict[str, Any]:
    """A counterexample found outside the search (a proof's), judged by it and shrunk as its own
    finds are (:func:`properties.running.shrink.shrink`); returned as it was when the search does not
    confirm it.

    Examples
    --------
    >>> from puf import as_measure
    >>> from puf.properties import get_property
    >>> search = PropertySearch(as_measure(lambda effectiveness: 2 * max(effectiveness)), get_property("range"),
    ...                         measure_calls=MEASURE_CALLS, max_examples=5, time_limit=2.0, time_budget=60.0)
    >>> found = shrunk_example(search, {"change": "m = 4", "before": {"effectiveness": [0.3, 0.7, 0.2, 0.9]},
    ...                                 "after": None})
    >>> found["before"]["effectiveness"], found["change"]
    ([0.0, 1.0], 'm = 2 (shrunk from m = 4: users the change leaves alone removed, 2 values made simpler)')
    """
    if search.prop.fresh_workers:  # its workers are closed: judged in fresh ones only
        return example
    case = dataclasses.replace(example_case(search.prop.name, example), change=example.get("change", ""))
    search.max_calls += 1
    try:
        search.check(case)
    except Found:
        shrink(search)
        return search.failure[1] if search.failure is not None else example
    except (OutOfBudget, Timeout):
        pass
    return example


#: Why an example is undecided: a step or a difference the float the measure returns cannot resolve.
_UNDECIDED = "each within the resolution of the float type the measure returns"


def _status(search: PropertySearch, note: str) -> tuple[str, str, dict[str, Any] | None]:
    prop, failure, n = search.prop, search.failure, search.checked
    if failure is not None:
        kind, found = failure
        if kind == "raised" and not prop.judges_undefined:
            return "undefined", f"the measure raised: {found['error']}{note}", found
        if kind == "excess" and prop.kind == "existential":
            before, after = shown_pair(found["value_before"], found["value_after"])
            return "holds", f"witness: value {before} → {after}{note}", found
        if kind == "excess" and prop.refine is not None:  # a failed search for a witness: no proof
            tried = (
                f"nor by the grid {{0, ½, 1}}^m and a local search ({search.candidates} more values)"
                if search.candidates
                else "with no grid at world level"
            )
            found = {**found, "nearest": nearest_to_missed_end(search.measure, found)}
            return (
                "not-found",
                f"{_explained(prop, search.measure, found)}: not reached, {tried}; no proof either way{note}",
                found,
            )
        found = search.with_warning(found, search.failure_case)
        return "violated", _explained(prop, search.measure, found) + note, found
    coarse = MEASURE_EPSILON.get() > 2.0**-52  # (a step within its resolution is undecided)
    if n == 0 and search.undefined:
        shown = search.with_warning(*search.nan_case[1:]) if search.nan_case else None
        if coarse and search.undecided == search.undefined:
            return "undefined", f"undecided on all {search.undecided} examples, {_UNDECIDED}{note}", shown
        said, what = shown or {}, "NaN or ±inf"
        if said.get("error"):
            what = f"e.g. {said['error']}"
        elif said.get("warning"):
            what = f"e.g. {said['value_before']}, after {said['warning']}"
        return "undefined", f"undefined on all {search.undefined} examples ({what}){note}", shown
    if n == 0:
        return "not-applicable", f"no example admitted the transformation{note}", None
    sizes = _sizes(search.sizes)
    if prop.kind == "existential":
        demo = (search.demo or (0, None))[1]
        unread = not set(prop.needs) & set(search.measure.reads or ())
        if unread:  # the proof of the negation: what the change touches never reaches the measure
            return "violated", unread_reason(prop.needs) + note, None
        tried = f"{n} candidates ({sizes}, and the grid {{0, ½, 1}}^m for small m)"
        return "not-found", f"no change moved the value: no witness found in {tried}{note}", demo
    k = search.undecided
    undecided = f"; {k} example{'s' * (k != 1)} undecided, {_UNDECIDED}" if coarse and k else ""
    return "holds", f"no counterexample in {n} examples ({sizes}){undecided}{note}", None


def _out_of_reach(
    measure: Measure, prop: Property, proofs: str, status: str, reason: str, found: dict[str, Any] | None
) -> tuple[str, str]:
    """``(status, reason)``: a witness not found at some m (``Property.refine``: an end of the
    declared range not reached) stays ``not-found`` unless the solver proves that no population
    of that m reaches it (:func:`properties.proving.bounds.unreached_end`): then ``violated``."""
    if status != "not-found" or prop.refine is None or proofs == "none" or found is None:
        return status, reason
    proof = unreached_end(measure, found)
    if proof is None:
        return status, reason
    scope, argument = proof
    return "violated", f"{_explained(prop, measure, found)}: not reached; proven {scope}: {argument}"


def _explained(prop: Property, measure: Measure, found: Mapping[str, Any]) -> str:
    """The reason ``prop`` gives for ``found`` (:attr:`Property.explain`, by default the excess),
    told the measure's declared range as ``found["range"]`` and whether it is a registered one's."""
    return (prop.explain or explain_excess)({**found, "range": measure.range, "registered": is_registered(measure)})


def _sizes(sizes: Collection[int]) -> str:
    """The sizes m checked, as ranges, with the largest one: "m = 2–6, 8; largest m = 8".

    Beyond the small populations' 12 users, the sizes are counted, not listed.

    Examples
    --------
    >>> _sizes({2, 3, 4, 8})
    'm = 2–4, 8; largest m = 8'
    >>> _sizes({2, 3, 13, 40, 250})
    'm = 2–3 and 3 sizes in 13–250; largest m = 250'
    >>> _sizes({28, 188}), _sizes({188})
    ('2 sizes in 28–188; largest m = 188', 'm = 188; largest m = 188')
    """
    if not sizes:
        return "no size"
    small = sorted(m for m in sizes if m <= LARGEST)
    large = sorted(m for m in sizes if m > LARGEST)
    parts = []
    if small:
        start = prev = small[0]
        for m in small[1:] + [None]:
            if m is not None and m == prev + 1:
                prev = m
                continue
            parts.append(str(start) if start == prev else f"{start}–{prev}")
            if m is not None:
                start = prev = m
    if len(large) > 1:
        parts.append(f"{len(large)} sizes in {large[0]}–{large[-1]}")
    elif large:
        parts.append(str(large[0]))
    listed = ", ".join(parts[:-1]) + " and " + parts[-1] if large and len(parts) > 1 else ", ".join(parts)
    text = listed if len(large) > 1 and len(parts) == 1 else f"m = {listed}"
    return f"{text}; largest m = {max(sizes)}"


def _proven(
    measure: Measure, prop: Property, proof: Proof, max_examples: int, seed_value: int | None, start: float
) -> Verdict:
    """The verdict of a cell a proof settles for every m: its argument, and no examples."""
    return Verdict(
        measure.name,
        prop.name,
        "proven",
        prop.kind,
        measure_level(measure),
        0,
        0,
        f"proven {proof.scope}: {proof.argument}",
        None,
        round(time.perf_counter() - start, 3),
        (),
        None,
        max_examples,
        _recorded_seed(seed_value),
        proof.scope,
    )


@contextlib.contextmanager
def _judged_at(epsilon: float) -> Iterator[None]:
    """Judge with the machine epsilon ``epsilon`` of the measure's float type (:data:`MEASURE_EPSILON`)."""
    token = MEASURE_EPSILON.set(epsilon)
    try:
        yield
    finally:
        MEASURE_EPSILON.reset(token)


def verdicts(
    measure: Any,
    properties: Sequence[Property],
    *,
    max_examples: int | None = None,
    random_state: int | np.random.Generator | None = 0,
    time_limit: float = DEFAULT_TIME_LIMIT,
    time_budget: float = DEFAULT_TIME_BUDGET,
    database: Any = None,
    known: bool | Mapping[str, Any] = True,
    proofs: str = "rules",
    progress: Any = None,
    keep_workers: bool = False,
) -> list[Verdict]:
    """Put ``measure`` through ``properties``, :class:`Property` objects: one verdict each, in order
    (``progress``: something with ``update(n)``, advanced by one per verdict, or None). A user's
    measure's shared worker ends with its verdicts unless ``keep_workers`` (a pool process that
    checks it again keeps its import, and ends the worker with itself).

    The runner knows no property by name: :func:`puf.properties.verdicts` looks the names up in
    the catalog, hands the properties here and documents the options.

    Examples
    --------
    >>> from puf.properties import get_property
    >>> [(v.property, v.status) for v in verdicts("puf", [get_property("range")], max_examples=10)]
    [('range', 'proven')]
    >>> verdicts("puf", ["range"])
    Traceback (most recent call last):
    ...
    ValueError: properties must be Property objects (puf.properties.verdicts takes names), got 'range'
    """
    measure = as_measure(measure)
    max_examples = example_budget(max_examples)
    chosen = check_run_options(time_limit=time_limit, time_budget=time_budget, properties=properties)
    for prop in [properties] if chosen is None else chosen:
        if not isinstance(prop, Property):
            raise ValueError(f"properties must be Property objects (puf.properties.verdicts takes names), got {prop!r}")
    check_mode(proofs)
    # Every margin of the judgments below is at the float resolution of what the measure returns.
    with _judged_at(check_returns_number(measure, time_limit)):
        seed_value = _seed(random_state)
        results = []
        for prop in properties:
            name = prop.name
            start = time.perf_counter()
            proof = prove(measure, prop, mode=proofs, confirm=confirmed)
            if settles(proof):
                results.append(_proven(measure, prop, proof, max_examples, seed_value, start))
                if progress is not None:
                    progress.update(1)
                continue
            # A change that reaches no field the measure reads leaves its value exactly as it was,
            # and two pairings told apart by fields it does not read are, to it, one relabelled:
            # a step of 0 is no rounding of a coarser float, so it is judged as a float64 one is.
            blind = (unreached(measure, prop) and not prop.single_population) or unranked(measure, prop)
            with _judged_at(2.0**-52) if blind else contextlib.nullcontext():
                status, reason, found, search = _check_one(
                    measure,
                    prop,
                    max_examples=max_examples,
                    random_state=seed_value,
                    time_limit=time_limit,
                    time_budget=time_budget,
                    database=database,
                    known=known,
                )
            status, reason = _out_of_reach(measure, prop, proofs, status, reason, found)
            # The corpus measured the whole search: one that set sizes aside, or stopped at a budget, is not it.
            whole = status == "holds" and prop.kind == "universal" and search.slow_from is None and not search.stopped
            power = measured_power(name, max_examples) if whole else None
            if power is not None:
                reason += f"; this search finds {100 * power[0]:.0f}% of the corpus's planted {name} flaws at {power[1]} examples"
            status, reason, found, scope = combine(status, reason, found, proof)
            derived = (
                derived_reason(measure, prop, status) if status in ("holds", "violated", "not-applicable") else None
            )
            if derived and status == "not-applicable":  # why no example came, in place of that
                reason = derived
            elif derived and not reason.startswith(derived):  # what the measure reads says why, then the run
                reason = f"{derived}; {reason}"
            if proof is not None and found is not None and search.failure is None and status == "violated":
                found = shrunk_example(search, found)  # the solver's counterexample, shrunk as any find
            results.append(
                Verdict(
                    measure.name,
                    name,
                    status,
                    prop.kind,
                    search.level,
                    search.checked,
                    search.undefined,
                    reason,
                    found,
                    round(time.perf_counter() - start, 3),
                    tuple(sorted(search.sizes)),
                    None if power is None else power[0],
                    max_examples,
                    _recorded_seed(seed_value),
                    scope,
                )
            )
            if progress is not None:
                progress.update(1)
    if not keep_workers:
        release_workers()
    return results
