"""Plain-text rendering of verdicts: tables, and counterexamples as small matrices."""

from __future__ import annotations

__all__ = [
    "format_example",
    "format_verdicts",
    "format_matrix",
    "direction_note",
    "raised_note",
    "stateful_note",
    "range_note",
    "defined_note",
    "example_size",
]

from typing import Any
import math
from collections.abc import Iterator, Mapping, Sequence
import numpy as np
from numpy.typing import ArrayLike
from puf.lines import folded, table
from puf.metadata import Measure

from ..catalog.judges import shown_pair, telling_decimals
from ..catalog.property import Property
from .verdict import Verdict
import pandas as pd


_LABEL = {
    "proven": "proven",
    "holds": "holds",
    "violated": "VIOLATED",
    "not-found": "not found",
    "undefined": "undefined",
    "not-applicable": "n/a",
}
_INFORMATIONAL = "violated (informational)"  # describes the measure (absolute or relative)
_DETAIL_ROOM = 50  # the least width a detail folds into under its own column
_ROLE = {"holds": "witness", "violated": "counterexample", "not-found": "population drawn", "undefined": "input"}


def _array(
    value: ArrayLike, indent: int, width: int | None, *, integer: bool = False, digits: int | None = None
) -> str:
    """A field as numpy prints it, its next lines under ``indent``, in ``width`` columns from there;
    ``digits``: that many decimals, small values not rounded to 0 (None: 4, and a value under
    0.00005 but not 0 in numpy's scientific notation, not shown as a 0 that it is not).

    >>> _array([0.0, 0.84375], 0, None), _array([3.3e-78, 3.3e-78], 0, None)
    ('[0.     0.8438]', '[3.3e-78 3.3e-78]')
    """
    values = np.asarray(value, dtype=int if integer else float)
    hidden = not integer and bool(np.any((values != 0) & (np.abs(values) < 5e-5)))
    text = np.array2string(
        values,
        precision=4 if digits is None else digits,
        suppress_small=digits is None and not hidden,
        max_line_width=120 if width is None else max(24, width - indent),
        floatmode="maxprec",
    )
    return text.replace("\n", "\n" + " " * indent)


def _rounded(value: ArrayLike, digits: int | None) -> bool:
    """True when :func:`_array` prints some value of ``value`` rounded (at ``digits`` decimals, or 4).

    >>> _rounded([0.5, 0.8438], None), _rounded([0.5, 0.84375], None), _rounded([0.5, 0.84375], 5)
    (False, True, False)
    """
    values = np.asarray(value, dtype=float)
    return not np.array_equal(values, np.round(values, 4 if digits is None else digits))


def _label(status: str, prop: Property | None) -> str:
    """A verdict as the tables print it; an informational property's violation says so."""
    if status == "violated" and prop is not None and prop.informational:
        return _INFORMATIONAL
    return _LABEL.get(status, status)


def _number(value: float | None) -> str:
    return "—" if value is None else f"{value:.6g}"


def _numbers(before: Any, after: Any) -> tuple[str, str]:
    """Two values with the digits that tell them apart (a stored "nan" or "inf" as it is)."""
    if isinstance(before, (int, float)) and isinstance(after, (int, float)):
        return shown_pair(float(before), float(after))
    return (_number(before) if not isinstance(before, str) else before), (
        _number(after) if not isinstance(after, str) else after
    )


def format_example(
    example: Mapping[str, Any],
    *,
    status: str = "violated",
    indent: int = 4,
    width: int | None = None,
    repeated: bool = False,
    whole: str = "puf check --json FILE writes them whole",
) -> str:
    """Render a verdict's example: the change, the values, and the fields as matrices.

    Parameters
    ----------
    example : dict
        ``Verdict.example``.
    status : str
        The verdict's status, which names the example's role.
    indent : int
        Spaces before every line.
    width : int, optional
        Characters a line may take, ``indent`` included (a terminal's width); default: lines are
        not wrapped.
    repeated : bool, default False
        The example of a property that asks one population twice (``fresh_workers``:
        ``deterministic``): its values are P's alone and P's asked after the other population,
        which its ``after`` holds, and they are named so.
    whole : str, default "puf check --json FILE writes them whole"
        Where the whole values are, said under an example that prints some value rounded.

    Returns
    -------
    str

    Examples
    --------
    >>> ex = {"change": "every similarity between users is 0", "value_before": 0.5,
    ...       "value_after": None, "violation": 0.5, "error": None, "after": None,
    ...       "before": {"effectiveness": [0.0, 1.0], "similarity": [[1, 0], [0, 1]]}}
    >>> print(format_example(ex, indent=0))
    counterexample (m = 2): every similarity between users is 0
    value 0.5, violation 0.5
    effectiveness  [0. 1.]
    similarity     [[1. 0.]
                    [0. 1.]]
    """
    pad = " " * indent
    room = None if width is None else width - indent  # what a line may take after the pad
    before, after = example.get("before") or {}, example.get("after")
    m = example_size(example) or "?"
    lines = [f"{_ROLE.get(status, 'example')} (m = {m}): {(example.get('change') or '').strip()}".rstrip(": ")]
    if example.get("error"):
        lines.append(f"error: {example['error']}")
    elif status == "not-found" and example.get("violation"):
        # (The population drawn is one end's; the gap is the other end's, from every value found.)
        nearest = f" (the nearest: {example['nearest']})" if example.get("nearest") else ""
        lines.append(
            f"value {_number(example.get('value_before'))}; the values found stop "
            f"{example['violation']:.3g} short of an end of the range{nearest}"
        )
    elif example.get("value_after") is None:
        lines.append(
            f"value {_number(example.get('value_before'))}"
            + (f", violation {example['violation']:.3g}" if example.get("violation") else "")
        )
    elif repeated:
        values = _numbers(example["value_before"], example["value_after"])
        lines.append("value of P alone {}, asked after the other population {}".format(*values))
    else:
        lines.append("value before {}, after {}".format(*_numbers(example["value_before"], example["value_after"])))
    derived = example.get("derived") or {}
    if not example.get("error") and {"group", "group_changed"} <= set(derived):
        # (the subgroup axioms' premise: what the changed group alone is worth, before and after)
        lines.append(
            "the group's value before {}, after {}".format(*_numbers(derived["group"], derived["group_changed"]))
        )
    if room is not None:
        lines = [folded(line, room, hang=2) for line in lines]
    roles = (" (P)", " (asked first)") if repeated else (" (before)", " (after)")
    column = max([len(k) for k in before] + [len(k) + len(roles[1]) for k in (after or {})] + [0]) + 2
    # A field that a change moves prints with the digits that tell its two states apart.
    digits = {name: telling_decimals(before[name], value) for name, value in (after or {}).items() if name in before}
    for name, value in before.items():
        label = name if after is None else name + roles[0]
        lines.append(
            label.ljust(column) + _array(value, column, room, integer=name == "groups", digits=digits.get(name))
        )
    for name, value in (after or {}).items():
        if name in before and np.array_equal(np.asarray(value), np.asarray(before[name])):
            continue
        shown = _array(value, column, room, integer=name == "groups", digits=digits.get(name))
        lines.append((name + roles[1]).ljust(column) + shown)
    shown_fields = [(name, value) for name, value in [*before.items(), *(after or {}).items()] if name != "groups"]
    if any(_rounded(value, digits.get(name)) for name, value in shown_fields):
        note = f"(values rounded to the decimals shown; {whole})"
        lines.append(note if room is None else folded(note, room, hang=2))
    return "\n".join(pad + line for line in "\n".join(lines).split("\n"))


def format_verdicts(
    results: Sequence[Verdict], *, catalog: Mapping[str, Property], examples: bool = True, width: int | None = None
) -> str:
    """Render one measure's verdicts as a table, each followed by its example.

    Parameters
    ----------
    results : list of Verdict
    catalog : dict of str to Property
        The catalog (:data:`puf.properties.CATALOG`), which says what property is informational.
    examples : bool, default True
        Print counterexamples, witnesses and offending inputs under their row.
    width : int, optional
        Characters a line may take (a terminal's width): a detail wraps under its column; default:
        lines are not wrapped.

    Returns
    -------
    str

    Examples
    --------
    >>> from puf.properties import CATALOG, verdicts
    >>> print(format_verdicts(verdicts("sd", properties=["anonymity"], max_examples=5), catalog=CATALOG))
    ... # doctest: +ELLIPSIS
    measure sd (score level)
    property   verdict    detail
    anonymity  proven     proven for every m, by symmetric aggregation: a sum, mean or max over all users ...
    """
    if not results:
        return ""
    first = max(len("property"), *(len(v.property) for v in results))
    head = f"measure {results[0].measure} ({results[0].level} level)"
    column = max(9, *(len(_label(v.status, catalog.get(v.property))) for v in results))
    lines = [head, f"{'property'.ljust(first)}  {'verdict'.ljust(column)}  detail"]
    detail = first + column + 4  # where the detail column starts
    # A detail folds under its column while that leaves it room, else under the examples.
    hang = detail if width is None or width - detail >= _DETAIL_ROOM else first + 2
    for v in results:
        label = _label(v.status, catalog.get(v.property)).ljust(column)
        row = f"{v.property.ljust(first)}  {label}  {v.reason}".rstrip()
        lines.append(row if width is None else folded(row, width, hang=hang))
        if examples and v.example and (v.status not in ("holds", "proven") or v.kind == "existential"):
            prop = catalog.get(v.property)
            repeated = prop is not None and prop.fresh_workers
            lines.append(format_example(v.example, status=v.status, indent=first + 2, width=width, repeated=repeated))
    return "\n".join(lines)


def format_matrix(matrix: pd.DataFrame, *, catalog: Mapping[str, Property], width: int | None = None) -> str:
    """Render a measure x property status matrix with properties as rows; ``catalog``
    (:data:`puf.properties.CATALOG`) says what property is informational.

    Parameters
    ----------
    matrix : pandas.DataFrame
        Status per measure (rows) and property (columns).
    width : int, optional
        Characters a line may take: the measures' columns come in blocks that fit, each led by
        the properties; default: one block.

    Examples
    --------
    >>> import pandas as pd
    >>> from puf.properties import CATALOG
    >>> frame = pd.DataFrame({"range": ["holds", "violated"]}, index=["sd", "x"])
    >>> print(format_matrix(frame, catalog=CATALOG))
    property  sd     x
    range     holds  VIOLATED
    >>> print(format_matrix(pd.DataFrame({"scale-invariance": ["violated"]}, index=["sd"]), catalog=CATALOG))
    property          sd
    scale-invariance  violated (i)
    (i) informational: scale and translation invariance describe a measure (relative or absolute), neither outcome is a defect
    """
    by_property = matrix.T
    rows = [["property", *map(str, by_property.columns)]]
    rows += [
        [str(name), *(_label(s, catalog.get(name)).replace(_INFORMATIONAL, "violated (i)") for s in row)]
        for name, row in zip(by_property.index, by_property.to_numpy().tolist())
    ]
    text = table(rows, width)
    if any("violated (i)" in c for r in rows for c in r):
        note = (
            "(i) informational: scale and translation invariance describe a measure "
            "(relative or absolute), neither outcome is a defect"
        )
        text += "\n" + (note if width is None else folded(note, width, hang=4))
    return text


#: The properties a measure whose higher values are fairer violates when read as lower-is-fairer.
_REVERSED_BY = ("zero-at-equality", "disparity-monotone", "pigou-dalton")


def direction_note(measure: Measure, verdicts: Sequence[Verdict]) -> str | None:
    """A line for a measure taken as lower-is-fairer whose verdicts read as higher-is-fairer: equal
    effectiveness not at its fairest but at its highest value, a transfer towards equality raising
    its value, widening gaps lowering it (all three violated); None otherwise, for a measure that
    declares higher, or for one that reads utility or lists, whose value equal effectiveness does
    not settle (an envy measure violates all three at its declared direction).

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> from puf import as_measure
    >>> eq = V(property="zero-at-equality", status="violated", example={"value_before": 1.0})
    >>> pd_ = V(property="pigou-dalton", status="violated", example={"value_before": 0.81, "value_after": 0.9})
    >>> dm = V(property="disparity-monotone", status="violated", example={})
    >>> print(direction_note(as_measure(lambda effectiveness: 1.0), [eq, dm, pd_]))
    Every verdict takes lower values as fairer, and this measure reads the other way: 1 at equal effectiveness, and a transfer towards equality raised it (0.81 → 0.9). If its higher values are fairer, declare it: @puf.measure(direction="higher").
    >>> direction_note(as_measure("me"), [eq, dm, pd_]) is None   # envy: reads utility
    True
    """
    found = {v.property: v for v in verdicts if v.status == "violated"}
    reads = set(measure.reads or ())
    if measure.direction != "lower" or not set(_REVERSED_BY) <= set(found):
        return None
    if "effectiveness" not in reads or reads & {"utility", "list_distance"}:
        return None
    equal = found["zero-at-equality"].example or {}
    transfer = found["pigou-dalton"].example or {}
    at_equality = f"{_number(equal.get('value_before'))} at equal effectiveness, and " if equal else ""
    before, after = transfer.get("value_before"), transfer.get("value_after")
    at_top = [v for v in (equal.get("value_before"), before, after) if isinstance(v, (int, float))]
    if len(at_top) == 3 and at_top[0] < max(at_top[1:]):  # not highest at equality: not reversed
        return None
    raised = f" ({_number(before)} → {_number(after)})" if before is not None and after is not None else ""
    return (
        f"Every verdict takes lower values as fairer, and this measure reads the other way: {at_equality}"
        f"a transfer towards equality raised it{raised}. If its higher values are fairer, declare it: "
        '@puf.measure(direction="higher").'
    )


def raised_note(measure: Measure, verdicts: Sequence[Verdict]) -> str | None:
    """A line for a measure that raised one error on every example of at least half its properties
    (a measure written for tensors or Series, say): what it raised and what it is given; None
    otherwise. A measure that raises at a corner only is not meant: its verdicts say where.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> from puf import as_measure
    >>> error = {"error": "AttributeError: 'numpy.ndarray' object has no attribute 'float'"}
    >>> raised = [V(status="undefined", n_examples=0, example=error) for _ in range(3)]
    >>> print(raised_note(as_measure(lambda effectiveness: effectiveness.float()), raised))
    The measure raised on every example of 3 of its 3 properties, each time AttributeError: 'numpy.ndarray' object has no attribute 'float'; their verdicts say nothing of its fairness. It is called with each field it reads as a float64 numpy array (effectiveness of m values).
    """
    raised = [v for v in verdicts if v.status == "undefined" and not v.n_examples and (v.example or {}).get("error")]
    errors = {v.example["error"] for v in raised if v.example}
    if len(errors) != 1 or 2 * len(raised) < len(verdicts):
        return None
    given = ", ".join(f"{name} {'of m values' if name == 'effectiveness' else 'm x m'}" for name in measure.reads or ())
    return (
        f"The measure raised on every example of {len(raised)} of its {len(verdicts)} properties, each time "
        f"{errors.pop()}; their verdicts say nothing of its fairness. It is called with each field it reads "
        f"as a float64 numpy array ({given})."
    )


def stateful_note(verdicts: Sequence[Verdict]) -> str | None:
    """A line for a measure whose ``deterministic`` row is violated: its other rows were judged on
    values that may come from earlier calls (a cache keyed on a summary of its input returns the
    same stale value when asked again); its finds were asked again alone, each population the first
    call of a new process (:meth:`~.search.PropertySearch.stale`), but a row that holds was not;
    None otherwise.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> print(stateful_note([V(property="deterministic", status="violated"), V(property="range", status="holds")]))
    Its deterministic row is violated: the measure gives a population another value after other calls (a cache, a sample, a clock). Each find above was asked again, each population alone in a new process (one that did not show again is undefined), but a row that holds was judged on values that may be left from earlier calls.
    """
    if not any(v.property == "deterministic" and v.status == "violated" for v in verdicts):
        return None
    return (
        "Its deterministic row is violated: the measure gives a population another value after other "
        "calls (a cache, a sample, a clock). Each find above was asked again, each population alone in a "
        "new process (one that did not show again is undefined), but a row that holds was judged on "
        "values that may be left from earlier calls."
    )


def _shown_values(verdicts: Sequence[Verdict]) -> Iterator[tuple[str, float, int | None]]:
    """Each value a verdict's example shows: (its property, the value, the example's m)."""
    for verdict in verdicts:
        example = verdict.example or {}
        for key in ("value_before", "value_after"):
            value = example.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                yield verdict.property, float(value), example_size(example)


def range_note(measure: Measure, verdicts: Sequence[Verdict]) -> str | None:
    """A line for a measure whose ``range`` row holds while another row shows a value outside its
    declared range: every example is a valid population, so the value is one, and the range search
    drew none like it (a near-tie a ratio blows up, say); None otherwise. A value past an end by
    less than the rounding of the coarsest float a measure may return (float16, m units of 2⁻¹⁰)
    is not counted.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> from puf import as_measure
    >>> shown = {"value_before": 0.0, "value_after": 3202.66, "before": {"effectiveness": [0.0, 0.0]}}
    >>> rows = [V(property="range", status="holds", example=None),
    ...         V(property="continuity", status="violated", example=shown)]
    >>> print(range_note(as_measure(lambda effectiveness: 0.0), rows))
    Its range row holds, but its continuity row shows the value 3202.66 (m = 2), outside the declared range [0, 1]: the range search drew no population like that one. A measure whose values lie elsewhere declares where: @puf.measure(range=(low, high)).
    """
    if not any(v.property == "range" and v.status == "holds" for v in verdicts):
        return None
    low, high = measure.range
    for name, value, m in _shown_values(verdicts):
        margin = (m or 1) * 2.0**-10 * max(1.0, abs(value))
        if math.isfinite(value) and not low - margin <= value <= high + margin:
            return (
                f"Its range row holds, but its {name} row shows the value {_number(value)}{_at(m)}, "
                f"outside the declared range [{low:g}, {high:g}]: the range search drew no population like "
                "that one. A measure whose values lie elsewhere declares where: @puf.measure(range=(low, high))."
            )
    return None


def defined_note(verdicts: Sequence[Verdict]) -> str | None:
    """A line for a measure whose ``defined`` row holds while another row shows it NaN or infinite:
    every example is a valid population, so the defined search drew none like it; None otherwise.

    Examples
    --------
    >>> from types import SimpleNamespace as V
    >>> shown = {"value_before": float("nan"), "before": {"effectiveness": [0.0, 0.5, 1.0]}}
    >>> rows = [V(property="defined", status="holds", example=None),
    ...         V(property="similarity-zero", status="undefined", example=shown)]
    >>> print(defined_note(rows))
    Its defined row holds, but its similarity-zero row shows the value nan (m = 3): the defined search drew no population like that one.
    """
    if not any(v.property == "defined" and v.status == "holds" for v in verdicts):
        return None
    for name, value, m in _shown_values(verdicts):
        if not math.isfinite(value):
            return (
                f"Its defined row holds, but its {name} row shows the value {_number(value)}{_at(m)}: the "
                "defined search drew no population like that one."
            )
    return None


def _at(m: int | None) -> str:
    return f" (m = {m})" if m else ""


def example_size(example: Mapping[str, Any]) -> int | None:
    """The number of users of a verdict's example: its ``m``, or the length of a field it shows
    (None: it shows none).

    Examples
    --------
    >>> example_size({"before": {"effectiveness": [0.0, 0.5, 1.0]}}), example_size({"m": 4}), example_size({})
    (3, 4, None)
    """
    if example.get("m") is not None:
        return int(example["m"])
    fields = example.get("before") or {}
    return len(next(iter(fields.values()))) if fields else None
