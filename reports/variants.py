"""Measure variants: a fairness measure on one effectiveness metric, as a sweep plots it.

A measure that reads effectiveness needs a metric: ``"SD-NDCG"`` is
:func:`puf.sd` on per-user NDCG@k. A label is ``NAME-METRIC``, ``NAME`` a
registered measure (any case) and ``METRIC`` a key of :data:`METRICS`; a
measure that reads no effectiveness is named alone (``"UF"``, ``"ME"``);
``"P@k"`` and ``"NDCG@k"`` are the mean effectiveness itself, for reference.
A user's function (parameters named after Population fields) becomes one
variant per metric in :data:`USER_METRICS` when it reads effectiveness, else
one variant.
"""

__all__ = ["METRICS", "USER_METRICS", "Variant", "variants"]

import re
from dataclasses import dataclass

import numpy as np

from puf import as_measure
from puf.registry import Measure

METRICS = {"P": "precision", "R": "recall", "NDCG": "ndcg", "HR": "hit_rate",
           "RR": "reciprocal_rank", "AP": "average_precision"}
USER_METRICS = ("P", "NDCG")
_DISPLAY = {"sd": "SD", "gini": "Gini", "puf": "PUF", "puf-as-printed": "PUF-as-printed",
            "me": "ME", "me-as-printed": "ME-as-printed", "mme": "MME", "peu": "PEU", "uf": "UF"}
_ENVY = {"me", "me-as-printed", "mme", "peu"}
_MEAN = Measure(lambda effectiveness: float(np.mean(effectiveness)), "mean effectiveness",
                ("effectiveness",), direction="higher", definition="mean of S over users")


@dataclass(frozen=True)
class Variant:
    """A measure evaluated on one effectiveness metric: the unit a sweep plots.

    Attributes
    ----------
    label : str
        As shown in tables and legends, e.g. ``"SD-NDCG"``.
    measure : puf.Measure
        The measure (mean effectiveness for ``"P@k"``-style labels).
    metric : str or None
        Key of :data:`METRICS`, or None when the measure reads no effectiveness.
    family : str
        The figure panel it belongs to (``"SD"``, ``"Envy"``, ``"Effectiveness"``, ...).

    Examples
    --------
    >>> v = variants("sd-ndcg")[0]
    >>> v.label, v.metric, v.family
    ('SD-NDCG', 'NDCG', 'SD')
    """

    label: str
    measure: Measure
    metric: str | None
    family: str

    def __call__(self, fields):
        return float(self.measure(**{f: fields[f] for f in self.measure.reads}))


def _named(measure, metric):
    name = _DISPLAY.get(measure.name, measure.name)
    family = "Envy" if measure.name in _ENVY else name
    if "effectiveness" not in measure.reads:
        if metric is not None:
            raise ValueError(f"measure {measure.name!r} reads no effectiveness; name it without -{metric}")
        return Variant(name, measure, None, family)
    if metric is None:
        raise ValueError(f"measure {measure.name!r} reads effectiveness: name a metric, "
                         f"e.g. {name}-NDCG (metrics: {', '.join(METRICS)})")
    return Variant(f"{name}-{metric}", measure, metric, family)


def variants(spec, *, metrics=USER_METRICS):
    """Return the sweep variants a label, a name or a user's function stands for.

    Parameters
    ----------
    spec : str, callable, puf.Measure or Variant
        ``"SD-NDCG"``, ``"uf"``, ``"P@k"``; or a measure function/Measure,
        which expands to one variant per metric when it reads effectiveness.
    metrics : tuple of str, default ("P", "NDCG")
        Metrics a function that reads effectiveness is expanded over.

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
    >>> variants("SD-XYZ")
    Traceback (most recent call last):
    ...
    ValueError: unknown measure 'sd-xyz'; known measures: puf, puf-as-printed, sd, gini, me, me-as-printed, mme, peu, uf
    """
    if isinstance(spec, Variant):
        return (spec,)
    if not isinstance(spec, str):
        measure = as_measure(spec)
        if "effectiveness" not in measure.reads:
            return (_named(measure, None),)
        return tuple(_named(measure, m) for m in metrics)
    mean = re.fullmatch(r"([A-Za-z]+)@k", spec)
    if mean and mean.group(1).upper() in METRICS:
        return (Variant(f"{mean.group(1).upper()}@k", _MEAN, mean.group(1).upper(), "Effectiveness"),)
    name, _, suffix = spec.rpartition("-")
    if name and suffix.upper() in METRICS:
        return (_named(as_measure(name.lower()), suffix.upper()),)
    return (_named(as_measure(spec.lower()), None),)
