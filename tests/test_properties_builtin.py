"""Pins the true verdict of every built-in measure on every property.

The pins live in ``properties/knowledge/known/<measure>.json`` (one file per registered
measure, format in ``properties/knowledge/known/README.md``), with the argument behind
every ``holds`` and the counterexample behind every ``violated`` cell. The
runner tries those counterexamples first, so the verdicts found here at
random_state=0 do not depend on Hypothesis' version, the Hypothesis profile,
the example budget (the ``ci`` profile's in CI, the default with
``PUF_FULL_BUDGET=1``), or luck. The PUF paper's findings are asserted separately
in ``test_the_paper_findings_are_pinned`` (SD, Gini and the envy measures
ignore similarity; UF ignores effectiveness; PUF responds to both and is
monotone in disparity and similarity; Gini is undefined at all-zero
effectiveness; the printed forms of PUF and ME leave [0, 1]).
"""

import os

import pytest

from puf.properties import CATALOG, all_verdicts
from puf.properties.running.display import format_example
from puf.properties.knowledge.known import load_known, pinned_status
from puf import MEASURES

PINNED = {name: (load_known(name) or {}).get("verdicts") for name in MEASURES}

PAPER_FINDINGS = {
    **{
        (m, p): "violated"
        for m in ("sd", "gini", "me", "mme", "peu")
        for p in ("similarity-sensitive", "similarity-zero")
    },
    ("uf", "effectiveness-sensitive"): "violated",
    **{
        ("puf", p): "holds"
        for p in (
            "similarity-sensitive",
            "effectiveness-sensitive",
            "similarity-monotone",
            "disparity-monotone",
            "rearrangement",
            "anonymity",
            "range",
        )
    },
    ("gini", "defined"): "violated",
    ("puf-as-printed", "range"): "violated",
    ("me-as-printed", "range"): "violated",
}


@pytest.fixture(scope="module")
def found(matrix_budget):
    """Every built-in measure through every property, seed 0 (2 processes): at the ``ci``
    profile's budget, or the default budget with ``PUF_FULL_BUDGET=1`` (tests/conftest.py)."""
    results = all_verdicts(list(PINNED), n_jobs=min(2, os.cpu_count() or 1), random_state=0, max_examples=matrix_budget)
    return {(v.measure, v.property): v for v in results}


@pytest.mark.parametrize("measure", list(MEASURES))
def test_every_builtin_measure_has_a_known_file(measure):
    assert PINNED[measure] is not None, f"no properties/knowledge/known/{measure}.json"
    assert list(PINNED[measure]) == list(CATALOG)


def test_the_paper_findings_are_pinned():
    for (measure, prop), status in PAPER_FINDINGS.items():
        assert PINNED[measure][prop] == status, (measure, prop)


@pytest.mark.parametrize("measure, prop", [(m, p) for m in MEASURES for p in CATALOG])
def test_pinned_verdict(found, measure, prop):
    if PINNED[measure] is None:
        pytest.fail(f"no properties/knowledge/known/{measure}.json")
    verdict = found[(measure, prop)]
    detail = f"{measure} / {prop}: {verdict.status} ({verdict.reason})"
    if verdict.example:
        detail += "\n" + format_example(verdict.example, status=verdict.status)
    assert verdict.status == pinned_status(measure, prop), detail
