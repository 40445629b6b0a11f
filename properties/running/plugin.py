"""pytest plugin: ``pytest --measure MODULE:FUNCTION [--known FILE]`` checks a measure against every property.

``--measure`` takes what ``puf check`` takes (one loader, :func:`puf.load_measure`):
``MODULE:FUNCTION``, ``FILE.py:FUNCTION`` or a registered name, from any folder.
The ini settings ``puf_measures`` and ``puf_known`` (``pyproject.toml``'s
``[tool.pytest.ini_options]`` or ``pytest.ini``, paths relative to that file)
do the same for a plain ``pytest``; the command line takes precedence.

Registered under the ``pytest11`` entry point, so it loads with every pytest
run: it is inert unless a measure is given (it adds no test and imports
nothing beyond pytest). Each measure x property pair becomes one test,
``<spec>::<property>``; the measure's row is computed once, by the first of its
tests to run, with the same budget (``properties.running.budget.DEFAULT_MAX_EXAMPLES``)
and seed as ``puf check``, so both give the same verdicts in the same time
(``--measure-max-examples`` changes the budget). Under pytest-xdist (``-n 2``)
each worker computes the properties of the tests it runs, so each verdict is
computed once, and the findings of the summary come with the tests' reports. ``pytest --measure X`` alone
collects only X's tests: test files are collected as well when named on the
command line.

With ``--known FILE`` (one per ``--measure``, in order; written by
``puf check MEASURE --known FILE``) a test passes when its verdict equals the
pinned one and fails naming the cell when it changed: a ``holds`` that breaks,
or a pinned ``violated`` whose stored counterexample no longer shows it. The
file's stored examples are replayed before anything else. Without a pinned
verdict, ``violated`` and ``undefined`` fail with the counterexample, except on
the informational properties (scale and translation invariance), which never
fail; ``not-found`` (no witness found: no proof either way) passes and is listed
in the summary; ``not-applicable`` skips.
"""

from __future__ import annotations

__all__ = [
    "pytest_addoption",
    "pytest_configure",
    "pytest_report_header",
    "pytest_collection_modifyitems",
    "pytest_sessionfinish",
    "pytest_terminal_summary",
    "MeasureChecks",
    "PropertyItem",
    "PropertyFailure",
]

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any
from pathlib import Path
import contextlib
import gc
import sys

import pytest

if TYPE_CHECKING:
    from _pytest._code.code import TerminalRepr

    from puf.metadata import Measure

    from .verdict import Verdict

_PLAN = pytest.StashKey()  # [(label, spec, known path or None)]
_LOADED = pytest.StashKey()  # spec -> Measure or the ValueError loading it gave
_ROWS = pytest.StashKey()  # spec -> {property: Verdict}: each measure's row, computed once
# What a test tells the summary, in its report's user_properties: they reach the summary from
# pytest-xdist's workers as from this process.
_NOTE = "puf-harness finding"  # a finding that is not a failure, as a line
_VERDICT = "puf-harness verdict"  # what the measure's own notes read of a verdict (plain data)
_FROZEN = pytest.StashKey()  # True once the run froze the heap (pytest_sessionfinish)
_REFUSED = pytest.StashKey()  # spec -> the test that said why the measure could not be checked


@contextlib.contextmanager
def _plain_imports() -> Iterator[None]:
    """Import without pytest's assertion rewriting while the harness loads and runs: its modules
    and Hypothesis's hold no test, yet pytest rewrites every module of a distribution that
    registers a plugin (Hypothesis does), and where compiled code is not cached
    (``PYTHONDONTWRITEBYTECODE``) it parses them again on every run, a second or more of CPU
    that ``puf check`` does not spend. The test files pytest collects are rewritten as ever."""
    from _pytest.assertion.rewrite import AssertionRewritingHook

    hooks = [(i, f) for i, f in enumerate(sys.meta_path) if isinstance(f, AssertionRewritingHook)]
    for _, hook in reversed(hooks):
        sys.meta_path.remove(hook)
    try:
        yield
    finally:
        for index, hook in hooks:
            sys.meta_path.insert(index, hook)


def pytest_addoption(parser: pytest.Parser) -> None:
    """Add ``--measure``, ``--known``, ``--measure-max-examples``, ``--measure-time-limit``,
    ``--measure-time-budget`` and the ini settings."""
    from puf.properties.running.budget import DEFAULT_TIME_BUDGET, DEFAULT_TIME_LIMIT

    group = parser.getgroup("puf-harness", "fairness measure property checks")
    group.addoption(
        "--measure",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="check this fairness measure (MODULE:FUNCTION, FILE.py:FUNCTION or a "
        "registered name) against every property (repeatable)",
    )
    group.addoption(
        "--known",
        action="append",
        default=[],
        metavar="FILE",
        help="the pinned verdicts of the --measure at the same position, written by "
        "`puf check MEASURE --known FILE`: a test fails when its verdict changes",
    )
    group.addoption(
        "--measure-max-examples",
        type=int,
        default=None,
        metavar="N",
        help="examples per property (default: the shared default budget, as puf check)",
    )
    group.addoption(
        "--measure-time-limit",
        type=float,
        default=DEFAULT_TIME_LIMIT,
        metavar="SECONDS",
        help=f"seconds allowed per call of a measure (default {DEFAULT_TIME_LIMIT:g}, as puf check --time-limit)",
    )
    group.addoption(
        "--measure-time-budget",
        type=float,
        default=DEFAULT_TIME_BUDGET,
        metavar="SECONDS",
        help=f"seconds one property's search may take (default {DEFAULT_TIME_BUDGET:g}, as puf check --time-budget)",
    )
    parser.addini(
        "puf_measures",
        type="linelist",
        default=[],
        help="measures to check, as --measure (paths relative to the ini file)",
    )
    parser.addini(
        "puf_known",
        type="linelist",
        default=[],
        help="their pinned verdict files, as --known, one per measure in order",
    )


def _ini_path(config: pytest.Config, text: str, *, spec: bool) -> str:
    """An ini setting's relative ``FILE.py`` (of a spec) or known file, relative to the ini file."""
    if config.inipath is None:
        return text
    path, colon, name = text.rpartition(":") if spec else (text, "", "")
    if spec and not path.endswith(".py"):
        return text  # MODULE:FUNCTION or a registered name
    resolved = config.inipath.parent / path
    if Path(path).is_absolute() or not resolved.exists():
        return text
    return f"{resolved}{colon}{name}"


def _plan(config: pytest.Config) -> list[tuple[str, str, str | None]]:
    """[(label, spec, known file or None)]: each measure as written, as loaded, and its pinned file.

    A usage error when the files do not pair with the measures or one cannot be read.
    """
    labels, known = config.getoption("measure") or [], config.getoption("known") or []
    specs = labels
    if not labels:
        labels = config.getini("puf_measures")
        specs = [_ini_path(config, s, spec=True) for s in labels]
        known = known or [_ini_path(config, k, spec=False) for k in config.getini("puf_known")]
    pairs = list(dict.fromkeys(zip(labels, specs)))  # a spec given twice is checked once
    if known and len(known) != len(pairs):
        raise pytest.UsageError(
            f"--known: give one file per --measure, in order ({len(pairs)} "
            f"measure{'s' * (len(pairs) != 1)}, {len(known)} known file"
            f"{'s' * (len(known) != 1)})"
        )
    if known:
        from puf.properties.catalog.listing import CATALOG
        from puf.properties.knowledge.pinned import read_pinned

        for path in known:
            try:
                read_pinned(path, catalog=CATALOG)
            except ValueError as exc:
                raise pytest.UsageError(str(exc)) from None
    return [(label, spec, path) for (label, spec), path in zip(pairs, known or [None] * len(pairs))]


@pytest.hookimpl(tryfirst=True)  # its cleanup added first, so run last: after pytest's own
def pytest_configure(config: pytest.Config) -> None:
    """Refuse a ``--measure-max-examples`` below 1 or unpaired ``--known`` files as usage errors;
    unfreeze the heap (:func:`pytest_sessionfinish`) once pytest's cleanup is done."""
    config.stash[_FROZEN] = False
    config.add_cleanup(lambda: gc.unfreeze() if config.stash.get(_FROZEN, False) else None)
    from puf.properties.running.budget import example_budget

    try:
        example_budget(config.getoption("measure_max_examples", default=None), name="--measure-max-examples")
        for option in ("measure_time_limit", "measure_time_budget"):
            limit = config.getoption(option, default=1.0)
            if not 0 < limit < float("inf"):
                name = "--" + option.replace("_", "-")
                raise ValueError(f"{name} must be a finite number of seconds > 0, got {limit}")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None
    config.stash[_PLAN] = _plan(config)
    config.stash[_LOADED] = {}
    config.stash[_ROWS] = {}
    config.stash[_REFUSED] = {}
    if config.getoption("measure") and config.args_source != pytest.Config.ArgsSource.ARGS:
        # `pytest --measure X` alone checks X: the test files under the folder it runs in (a
        # clone's own suite, say) are collected only when named on the command line.
        config.args = []


def pytest_report_header(config: pytest.Config) -> list[str] | None:
    """Say in the header which measures are checked, against what."""
    plan = config.stash.get(_PLAN, [])
    if not plan:
        return None
    with _plain_imports():
        from puf.properties.catalog.listing import CATALOG

    return [
        f"puf-harness: {spec} x {len(CATALOG)} properties, "
        + (f"verdicts pinned in {known}" if known else "no pinned verdicts (--known FILE pins them)")
        for spec, _, known in plan
    ]


class MeasureChecks(pytest.Collector):
    """The property checks of one measure: one :class:`PropertyItem` per catalog property."""

    def __init__(self, *, label: str, spec: str, known: str | None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.label, self.spec, self.known = label, spec, known

    def collect(self) -> list[PropertyItem]:
        with _plain_imports():
            from puf.properties.catalog.listing import CATALOG

        return [
            PropertyItem.from_parent(
                self, name=name, label=self.label, spec=self.spec, known=self.known, property_name=name
            )
            for name in CATALOG
        ]


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list[pytest.Item]) -> None:
    """Append one :class:`PropertyItem` per measure and property (before -k/-m selection).

    Each measure's checks are reported as collected, so the header counts them.
    """
    from _pytest.reports import CollectReport

    for label, spec, known in config.stash.get(_PLAN, []):
        checks = MeasureChecks.from_parent(session, name=label, nodeid=label, label=label, spec=spec, known=known)
        found = checks.collect()
        config.hook.pytest_collectreport(report=CollectReport(label, "passed", None, [*found]))
        items.extend(found)


class PropertyFailure(Exception):
    """A property's verdict fails its test; carries the verdict and the message."""

    def __init__(self, verdict: Verdict, message: str) -> None:
        super().__init__(message)
        self.verdict, self.message = verdict, message


def _measure(config: pytest.Config, spec: str) -> Measure:
    """Import a spec once per run; a ValueError (bad import or signature) is remembered."""
    loaded = config.stash[_LOADED]
    if spec not in loaded:
        with _plain_imports():
            from puf.properties.running.isolation import load_isolated

            try:
                loaded[spec] = load_isolated(spec)  # imported in a worker process, never here
            except ValueError as exc:
                loaded[spec] = exc
    if isinstance(loaded[spec], ValueError):
        raise loaded[spec]
    return loaded[spec]


def _pinned(config: pytest.Config, spec: str, path: str) -> dict[str, Any]:
    """The pinned file of ``spec`` (read once per run), checked against the measure's name."""
    loaded = config.stash[_LOADED]
    key = ("known", path)
    if key not in loaded:
        from puf.properties.catalog.listing import CATALOG
        from puf.properties.knowledge.pinned import read_pinned

        try:
            loaded[key] = read_pinned(path, catalog=CATALOG, measure=_measure(config, spec).name)
        except ValueError as exc:
            loaded[key] = exc
    if isinstance(loaded[key], ValueError):
        raise loaded[key]
    return loaded[key]


class PropertyItem(pytest.Item):
    """One property check of one measure."""

    def __init__(
        self, *, spec: str, property_name: str, label: str | None = None, known: str | None = None, **kwargs: Any
    ) -> None:
        super().__init__(**kwargs)
        self.spec, self.property_name, self.known = spec, property_name, known
        self.label = label or spec
        self._nodeid = f"{self.label}::{property_name}"

    def _row(self) -> dict[str, Verdict]:
        """The verdicts of this measure on every selected property, computed once per run (as
        ``puf check`` computes its row) and read by each of the measure's tests. Under
        pytest-xdist each worker computes the properties of the tests it is given, one at a
        time, keeping the measure's worker process between them."""
        row = self.config.stash[_ROWS].setdefault(self.spec, {})
        if self.property_name not in row:
            spread = hasattr(self.config, "workerinput")  # (a pytest-xdist worker)
            chosen = [
                item.property_name
                for item in self.session.items
                if isinstance(item, PropertyItem) and item.spec == self.spec and not spread
            ]
            pinned = _pinned(self.config, self.spec, self.known) if self.known else None
            with _plain_imports():  # (Hypothesis imports more of itself as the search runs)
                from puf.properties.catalog.listing import get_property
                from puf.properties.running.runner import verdicts

                found = verdicts(
                    _measure(self.config, self.spec),
                    [get_property(name) for name in chosen or [self.property_name]],
                    max_examples=self.config.getoption("measure_max_examples"),
                    time_limit=self.config.getoption("measure_time_limit"),
                    time_budget=self.config.getoption("measure_time_budget"),
                    random_state=0,
                    known=pinned or True,
                    keep_workers=spread,
                )
            row.update({v.property: v for v in found})
        return row

    def runtest(self) -> None:
        from puf.properties.catalog.listing import CATALOG
        from puf.properties.knowledge.pinned import pinned_change, unpinned_failure
        from puf.properties.running.display import example_size

        refused = self.config.stash[_REFUSED]
        if self.spec in refused:  # one failure says why; the measure's other tests are not run
            pytest.skip(f"not checked: {self.label} was refused (see {refused[self.spec]})")
        try:
            pinned = _pinned(self.config, self.spec, self.known) if self.known else None
            verdict = self._row()[self.property_name]
            measure = _measure(self.config, self.spec)
        except ValueError:
            refused[self.spec] = self.nodeid
            raise
        example = {k: v for k, v in (verdict.example or {}).items() if k in ("error", "value_before", "value_after")}
        example["m"] = example_size(verdict.example or {})  # (the arrays stay out of the XML)
        read = {"status": verdict.status, "n_examples": verdict.n_examples, "example": example}
        read.update(reads=list(measure.reads or ()), direction=measure.direction, range=list(measure.range))
        self.user_properties.append((_VERDICT, read))
        if pinned is not None and self.property_name in pinned["verdicts"]:
            message = pinned_change(verdict, pinned, path=self.known, spec=self.label)
        else:
            message = unpinned_failure(verdict, catalog=CATALOG)
            if message is None and verdict.status in ("violated", "not-found"):  # a finding, not a failure
                what = "violated (informational)" if verdict.status == "violated" else "witness not found"
                self.user_properties.append((_NOTE, f"{self.label} / {verdict.property}: {what} — {verdict.reason}"))
        if message is not None:
            raise PropertyFailure(verdict, message)
        if verdict.status == "not-applicable":
            pytest.skip(verdict.reason)

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str | TerminalRepr:
        if isinstance(excinfo.value, PropertyFailure):
            from puf.lines import folded, terminal_width
            from puf.properties.catalog.listing import CATALOG
            from puf.properties.running.display import format_verdicts

            width = terminal_width()
            head = folded(f"{self.label}: {excinfo.value.message}", width)
            return head + "\n" + format_verdicts([excinfo.value.verdict], catalog=CATALOG, width=width)
        if isinstance(excinfo.value, ValueError):
            return f"{self.label}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self) -> tuple[Path, None, str]:
        return self.path, None, f"{self.label}::{self.property_name}"


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter, exitstatus: int, config: pytest.Config) -> None:
    """List the findings that passed: a measure's own notes (it reads the other way; it raised on
    every example), violated informational properties (scale or translation invariance) and
    witnesses not found (a failed search is no proof), each folded to the commands' width."""
    notes = _notes(
        [r for reports in terminalreporter.stats.values() for r in reports if isinstance(r, pytest.TestReport)]
    )
    if notes:
        from puf.lines import folded, terminal_width

        terminalreporter.section("puf-harness: findings that are not failures")
        for line in notes:
            terminalreporter.line(folded(line, terminal_width()))


def _notes(reports: list[pytest.TestReport]) -> list[str]:
    """The summary's lines from the tests' reports: each measure's notes, from its verdicts
    (:func:`~puf.properties.running.display.direction_note`, ``raised_note``, ``stateful_note``,
    ``range_note``, ``defined_note``), then the findings,
    in catalog order.

    Examples
    --------
    >>> from types import SimpleNamespace as Report
    >>> read = {"status": "holds", "n_examples": 5, "example": {}, "reads": ["effectiveness"], "direction": "lower",
    ...         "range": [0.0, 1.0]}
    >>> found = (_NOTE, "f / scale-invariance: violated (informational) — why")
    >>> _notes([Report(nodeid="f::scale-invariance", user_properties=[(_VERDICT, read), found])])
    ['f / scale-invariance: violated (informational) — why']
    """
    from types import SimpleNamespace

    from puf.properties.catalog.listing import CATALOG
    from puf.properties.running.display import defined_note, direction_note, raised_note, range_note, stateful_note

    order = {name: i for i, name in enumerate(CATALOG)}
    found: dict[str, dict[tuple[str, str], Any]] = {}  # label -> (property, kind) -> what it told
    for report in reports:
        label, _, name = report.nodeid.rpartition("::")
        for key, value in report.user_properties:
            if key in (_VERDICT, _NOTE):
                found.setdefault(label, {})[name, key] = value
    lines = []
    for label, told in found.items():
        read = {name: SimpleNamespace(property=name, **v) for (name, key), v in told.items() if key == _VERDICT}
        row = sorted(read.values(), key=lambda v: order.get(v.property, len(order)))
        if row:
            measure: Any = SimpleNamespace(reads=row[0].reads, direction=row[0].direction, range=tuple(row[0].range))
            notes = (
                direction_note(measure, row),
                raised_note(measure, row),
                stateful_note(row),
                range_note(measure, row),
                defined_note(row),
            )
            lines += [f"{label}: {note}" for note in notes if note]
        lines += [v for (name, key), v in sorted(told.items(), key=lambda kv: order.get(kv[0][0], 0)) if key == _NOTE]
    return lines


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """After a run of property checks alone, collect the garbage once and freeze what is left.

    pytest's cleanup then collects five times more to find exceptions raised in finalisers, and
    each collection walks every object alive: here the harness, its catalog and Hypothesis's
    caches (the measure itself runs in worker processes), half a second of CPU that ``puf
    check`` does not spend. The one collection still finds the harness's own; a run that
    collected test files as well keeps pytest's full cleanup. The heap is unfrozen after it, so
    a run inside another (pytester's) leaves that one's collections as they were.
    """
    ran = list(session.items)
    if ran and all(isinstance(item, PropertyItem) for item in ran):
        gc.collect()
        gc.freeze()
        ran[0].config.stash[_FROZEN] = True
