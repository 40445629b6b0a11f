"""Pins the verdict of every built-in measure on every property.

A change in a measure's behaviour (or in the harness) changes a verdict and
fails here. The pins are findings, not wishes: the PUF paper's findings are
asserted separately in ``test_the_paper_findings`` (SD, Gini and the envy
measures ignore similarity; UF ignores effectiveness; PUF responds to both and
is monotone in disparity and similarity; Gini is undefined at all-zero
effectiveness; the printed forms of PUF and ME leave [0, 1]). Every other cell
is whatever the harness finds with the default settings and random_state=0,
which do not depend on the Hypothesis profile, so the pins hold under ``ci``
and ``dev`` alike. Re-pin after a deliberate change with
``puf check --all --json FILE``.
"""

import os

import pytest

from properties import CATALOG, all_verdicts
from properties.display import format_example
from puf import MEASURES

PINNED = {
    "puf": {
        "range": "holds",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "holds",
        "pigou-dalton": "violated",
        "similarity-monotone": "holds",
        "similarity-sensitive": "holds",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "holds",
        "rearrangement": "holds",
        "replication-invariance": "violated",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "puf-as-printed": {
        "range": "violated",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "holds",
        "pigou-dalton": "violated",
        "similarity-monotone": "holds",
        "similarity-sensitive": "holds",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "holds",
        "rearrangement": "holds",
        "replication-invariance": "violated",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "sd": {
        "range": "holds",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "holds",
        "pigou-dalton": "holds",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "holds",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "gini": {
        "range": "holds",
        "defined": "violated",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "holds",
        "pigou-dalton": "holds",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "holds",
        "scale-invariance": "holds",
        "translation-invariance": "violated",
        "continuity": "holds",
    },
    "me": {
        "range": "holds",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "violated",
        "pigou-dalton": "violated",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "violated",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "me-as-printed": {
        "range": "violated",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "violated",
        "pigou-dalton": "violated",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "violated",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "mme": {
        "range": "holds",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "violated",
        "pigou-dalton": "violated",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "holds",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "peu": {
        "range": "holds",
        "defined": "holds",
        "anonymity": "holds",
        "zero-at-equality": "holds",
        "disparity-monotone": "violated",
        "pigou-dalton": "holds",
        "similarity-monotone": "holds",
        "similarity-sensitive": "violated",
        "effectiveness-sensitive": "holds",
        "similarity-zero": "violated",
        "rearrangement": "violated",
        "replication-invariance": "holds",
        "scale-invariance": "violated",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
    "uf": {
        "range": "holds",
        "defined": "violated",
        "anonymity": "holds",
        "zero-at-equality": "violated",
        "disparity-monotone": "holds",
        "pigou-dalton": "holds",
        "similarity-monotone": "violated",
        "similarity-sensitive": "holds",
        "effectiveness-sensitive": "violated",
        "similarity-zero": "undefined",
        "rearrangement": "violated",
        "replication-invariance": "violated",
        "scale-invariance": "holds",
        "translation-invariance": "holds",
        "continuity": "holds",
    },
}


PAPER_FINDINGS = {
    **{(m, p): "violated" for m in ("sd", "gini", "me", "mme", "peu")
       for p in ("similarity-sensitive", "similarity-zero")},
    ("uf", "effectiveness-sensitive"): "violated",
    **{("puf", p): "holds" for p in ("similarity-sensitive", "effectiveness-sensitive",
                                     "similarity-monotone", "disparity-monotone", "rearrangement",
                                     "anonymity", "range")},
    ("gini", "defined"): "violated",
    ("puf-as-printed", "range"): "violated",
    ("me-as-printed", "range"): "violated",
}


@pytest.fixture(scope="module")
def found():
    """Every built-in measure through every property, default settings, seed 0 (2 processes)."""
    results = all_verdicts(list(PINNED), n_jobs=min(2, os.cpu_count() or 1), random_state=0)
    return {(v.measure, v.property): v for v in results}


def test_every_builtin_measure_and_property_is_pinned():
    # The PUF paper's nine; the field's measures are pinned in properties/known (test_known_field.py).
    assert list(PINNED) == list(MEASURES)[:9]
    for measure, row in PINNED.items():
        assert list(row) == list(CATALOG), measure


def test_the_paper_findings_are_pinned():
    for (measure, prop), status in PAPER_FINDINGS.items():
        assert PINNED[measure][prop] == status, (measure, prop)


@pytest.mark.parametrize("measure, prop", [(m, p) for m in PINNED for p in PINNED[m]])
def test_pinned_verdict(found, measure, prop):
    verdict = found[(measure, prop)]
    detail = f"{measure} / {prop}: {verdict.status} ({verdict.reason})"
    if verdict.example:
        detail += "\n" + format_example(verdict.example, status=verdict.status)
    assert verdict.status == PINNED[measure][prop], detail
