"""Measure variants: a registered measure on one effectiveness metric, the unit studies report.

A measure that reads effectiveness needs a metric: ``"SD-NDCG"`` is
:func:`puf.sd` on per-user NDCG@k. A label is ``NAME-METRIC``, ``NAME`` a
registered measure (any case) and ``METRIC`` a key of :data:`METRICS`; a
measure that reads no effectiveness is named alone (``"UF"``, ``"ME"``);
``"P@k"`` and ``"NDCG@k"`` are the mean effectiveness itself, for reference.
``variants()`` with no argument lists every variant studies show, from the
registry: ``puf evaluate``'s columns and the report's sweeps both use it, so a
newly registered measure appears in both with no further code.
"""

__all__ = ["METRICS", "USER_METRICS", "Variant", "variants"]

import re
from dataclasses import dataclass

import numpy as np

from .registry import FAMILIES, MEASURES, Measure, as_measure

METRICS = {"P": "precision", "R": "recall", "NDCG": "ndcg", "HR": "hit_rate",
           "RR": "reciprocal_rank", "AP": "average_precision"}
"""Effectiveness metrics a label may name, as keys of :data:`puf.EFFECTIVENESS`."""
USER_METRICS = ("P", "NDCG")
"""The metrics studies evaluate every effectiveness-reading measure on."""
# Display names where the registered name is not shown as is (acronyms, capitals).
_DISPLAY = {"sd": "SD", "gini": "Gini", "puf": "PUF", "puf-as-printed": "PUF-as-printed",
            "me": "ME", "me-as-printed": "ME-as-printed", "mme": "MME", "peu": "PEU", "uf": "UF",
            "ge-0": "GE-0", "ge-1": "GE-1", "ge-2": "GE-2", "atkinson-0.5": "Atkinson-0.5",
            "atkinson-1": "Atkinson-1", "atkinson-2": "Atkinson-2", "cv": "CV", "jain": "Jain",
            "hoover": "Hoover", "variance": "Variance", "mean-difference": "MD",
            "max-min": "Max-min", "inconsistency": "Inconsistency",
            "lipschitz-violation": "Lipschitz-violation", "lipschitz-excess": "Lipschitz-excess"}
_LABELS = {label.lower(): name for name, label in _DISPLAY.items()}
_MEAN = Measure(lambda effectiveness: float(np.mean(effectiveness)), "mean effectiveness",
                ("effectiveness",), direction="higher", definition="mean of S over users",
                family="other")


@dataclass(frozen=True)
class Variant:
    """A measure evaluated on one effectiveness metric: the unit a table or sweep shows.

    Attributes
    ----------
    label : str
        As shown in tables and legends, e.g. ``"SD-NDCG"``.
    measure : puf.Measure
        The measure (mean effectiveness for ``"P@k"``-style labels).
    metric : str or None
        Key of :data:`METRICS`, or None when the measure reads no effectiveness.
    family : str
        Its own panel name (``"SD"``, ``"Envy"``, ``"Effectiveness"``, ...);
        ``measure.family`` is the wider family (inequality indices, envy,
        similarity-aware).

    Examples
    --------
    >>> v = variants("sd-ndcg")[0]
    >>> v.label, v.metric, v.family, v.measure.family, v.similarity
    ('SD-NDCG', 'NDCG', 'SD', 'inequality indices', None)
    """

    label: str
    measure: Measure
    metric: str | None
    family: str

    @property
    def similarity(self):
        """The similarity kind it reads in studies: None (the default, Jaccard) or "uf"."""
        return self.measure.similarity

    def __call__(self, fields):
        return float(self.measure(**{f: fields[f] for f in self.measure.reads}))


def _named(measure, metric):
    name = _DISPLAY.get(measure.name, measure.name)
    family = "Envy" if measure.family == "envy" and measure.name in _DISPLAY else name
    if "effectiveness" not in measure.reads:
        if metric is not None:
            raise ValueError(f"measure {measure.name!r} reads no effectiveness; name it without -{metric}")
        return Variant(name, measure, None, family)
    if metric is None:
        raise ValueError(f"measure {measure.name!r} reads effectiveness: name a metric, "
                         f"e.g. {name}-NDCG (metrics: {', '.join(METRICS)})")
    return Variant(f"{name}-{metric}", measure, metric, family)


def _expand(measure, metrics):
    if "effectiveness" not in measure.reads:
        return (_named(measure, None),)
    return tuple(_named(measure, m) for m in metrics)


def _lookup(name):
    return as_measure(_LABELS.get(name.lower(), name.lower()))


def _every_variant(metrics):
    """Mean effectiveness first, then each family's measures in registry order."""
    means = tuple(Variant(f"{m}@k", _MEAN, m, "Effectiveness") for m in metrics)
    shown = [m for m in MEASURES.values() if m.tables]
    ordered = [m for family in FAMILIES for m in shown if m.family == family]
    return means + tuple(v for m in ordered for v in _expand(m, metrics))


def variants(spec=None, *, metrics=USER_METRICS):
    """Return the variants a label, a name or a function stands for; default every study variant.

    Parameters
    ----------
    spec : str, callable, puf.Measure or Variant, optional
        ``"SD-NDCG"``, ``"uf"``, ``"P@k"``; or a measure function/Measure,
        which expands to one variant per metric when it reads effectiveness.
        None: every variant studies show, from the registry (mean effectiveness
        per metric, then every measure with ``tables=True`` by family).
    metrics : tuple of str, default ("P", "NDCG")
        Metrics a measure that reads effectiveness is expanded over.

    Returns
    -------
    tuple of Variant

    Examples
    --------
    >>> [v.label for v in variants("PUF-P") + variants("uf") + variants("NDCG@k")]
    ['PUF-P', 'UF', 'NDCG@k']
    >>> def gap(effectiveness):
    ...     return float(max(effectiveness) - min(effectiveness))
    >>> [v.label for v in variants(gap)]
    ['gap-P', 'gap-NDCG']
    >>> [v.label for v in variants()][:6]
    ['P@k', 'NDCG@k', 'SD-P', 'SD-NDCG', 'Gini-P', 'Gini-NDCG']
    >>> variants("SD-XYZ")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown measure 'sd-xyz'; known measures: puf, puf-as-printed, sd, gini, ...
    """
    unknown = [m for m in metrics if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; known: {', '.join(METRICS)}")
    if spec is None:
        return _every_variant(tuple(metrics))
    if isinstance(spec, Variant):
        return (spec,)
    if not isinstance(spec, str):
        return _expand(as_measure(spec), metrics)
    mean = re.fullmatch(r"([A-Za-z]+)@k", spec)
    if mean and mean.group(1).upper() in METRICS:
        return (Variant(f"{mean.group(1).upper()}@k", _MEAN, mean.group(1).upper(), "Effectiveness"),)
    name, _, suffix = spec.rpartition("-")
    if name and suffix.upper() in METRICS:
        return (_named(_lookup(name), suffix.upper()),)
    return (_named(_lookup(spec), None),)
