"""pytest plugin: ``pytest --measure MODULE:FUNCTION`` checks a measure against every property.

``--measure`` takes what ``puf check`` takes (one loader, :func:`puf.load_measure`):
``MODULE:FUNCTION``, ``FILE.py:FUNCTION`` or a registered name, from any folder.

Registered under the ``pytest11`` entry point, so it loads with every pytest
run: it is inert unless ``--measure`` is given (it adds no test and imports
nothing beyond pytest). With ``--measure`` (repeatable) each measure x
property pair becomes one test, ``<spec>::<property>``, run with the same
budget (``properties.budget.DEFAULT_MAX_EXAMPLES``) and seed as ``puf check``, so
both give the same verdicts (``--measure-max-examples`` changes the budget).
``violated`` and ``undefined`` verdicts fail and
print the counterexample; ``not-applicable`` skips.
"""

__all__ = ["pytest_addoption", "pytest_configure", "pytest_collection_modifyitems", "PropertyItem",
           "PropertyFailure"]

import pytest


def pytest_addoption(parser):
    """Add ``--measure`` and ``--measure-max-examples``."""
    group = parser.getgroup("puf-harness", "fairness measure property checks")
    group.addoption("--measure", action="append", default=[], metavar="MODULE:FUNCTION",
                    help="check this fairness measure (MODULE:FUNCTION, FILE.py:FUNCTION or a "
                         "registered name) against every property (repeatable)")
    group.addoption("--measure-max-examples", type=int, default=None, metavar="N",
                    help="examples per property (default: the shared default budget, as puf check)")


def pytest_configure(config):
    """Refuse a ``--measure-max-examples`` below 1 (it would check nothing) as a usage error."""
    from puf.properties.budget import example_budget

    try:
        example_budget(config.getoption("measure_max_examples", default=None),
                       name="--measure-max-examples")
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from None


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(session, config, items):
    """Append one :class:`PropertyItem` per measure and property (before -k/-m selection)."""
    specs = config.getoption("measure", default=None) or []
    if not specs:
        return
    from puf.properties.catalog import CATALOG

    for spec in dict.fromkeys(specs):  # a spec given twice is checked once
        for name in CATALOG:
            items.append(PropertyItem.from_parent(session, name=f"{spec}::{name}",
                                                  nodeid=f"{spec}::{name}", spec=spec,
                                                  property_name=name))


class PropertyFailure(Exception):
    """A property came out violated or undefined; carries the verdict."""

    def __init__(self, verdict):
        super().__init__(f"{verdict.property}: {verdict.status}")
        self.verdict = verdict


_LOADED = {}


def _measure(spec):
    """Import a spec once per pytest run; a ValueError (bad import or signature) is remembered."""
    if spec not in _LOADED:
        from puf.properties.isolation import load_isolated

        try:
            _LOADED[spec] = load_isolated(spec)  # imported in a worker process, never here
        except ValueError as exc:
            _LOADED[spec] = exc
    if isinstance(_LOADED[spec], ValueError):
        raise _LOADED[spec]
    return _LOADED[spec]


class PropertyItem(pytest.Item):
    """One property check of one measure."""

    def __init__(self, *, spec, property_name, **kwargs):
        super().__init__(**kwargs)
        self.spec = spec
        self.property_name = property_name

    def runtest(self):
        from puf.properties.runner import verdicts

        verdict = verdicts(
            _measure(self.spec), properties=[self.property_name],
            max_examples=self.config.getoption("measure_max_examples"), random_state=0,
        )[0]
        if verdict.status == "not-applicable":
            pytest.skip(verdict.reason)
        if verdict.status in ("violated", "undefined"):
            raise PropertyFailure(verdict)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, PropertyFailure):
            from puf.properties.display import format_verdicts

            verdict = excinfo.value.verdict
            return (f"{self.spec}: property {verdict.property!r} is {verdict.status}\n"
                    + format_verdicts([verdict]))
        if isinstance(excinfo.value, ValueError):
            return f"{self.spec}: {excinfo.value}"
        return super().repr_failure(excinfo, style=style)

    def reportinfo(self):
        return self.path, None, f"{self.spec}::{self.property_name}"
