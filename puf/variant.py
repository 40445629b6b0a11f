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

from __future__ import annotations

__all__ = ["METRICS", "USER_METRICS", "Variant", "variants"]

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from .metadata import FAMILIES, Measure, check_similarity_choice
from .registry import MEASURES, as_measure

METRICS = {
    "P": "precision",
    "R": "recall",
    "NDCG": "ndcg",
    "HR": "hit_rate",
    "RR": "reciprocal_rank",
    "AP": "average_precision",
}
"""Effectiveness metrics a label may name, as keys of :data:`puf.EFFECTIVENESS`."""
USER_METRICS = ("P", "NDCG")
"""The metrics studies evaluate every effectiveness-reading measure on."""
_MEAN = Measure(
    lambda effectiveness: float(np.mean(effectiveness)),
    "mean effectiveness",
    direction="higher",
    definition="mean of S over users",
    family="other",
)


@dataclass(frozen=True)
class Variant:
    """A measure evaluated on one effectiveness metric: the unit a table or sweep shows.

    It carries everything a study needs, from the measure's metadata, so no
    measure is special-cased by name: derive the Population with
    ``world.population(metric=METRICS[v.metric], k=k, similarity=v.similarity,
    gamma=...)`` (``v.gamma``, or the study's γ where it sweeps one; any
    metric for ``metric=None``) and call ``v(population.fields())``.

    Attributes
    ----------
    label : str
        As shown in tables and legends, e.g. ``"SD-NDCG"``: the measure's
        :attr:`~puf.Measure.label`, then the metric.
    measure : puf.Measure
        The measure (mean effectiveness for ``"P@k"``-style labels).
    metric : str or None
        Key of :data:`METRICS`, or None when the measure reads no effectiveness.
    panel : str
        Its figure panel (``"SD"``, ``"Envy"``, ``"Effectiveness"``, ...): the
        measure's :attr:`~puf.Measure.panel`. Its family (inequality indices,
        envy, similarity-aware) is ``measure.family``.
    similarity : str, default "jaccard"
        The user similarity it reads, a key of :data:`puf.SIMILARITIES`: the
        measure's declared one (UF: ``"uf"``, sim_UF).
    gamma : float or None, default None
        γ of that similarity when it takes one (sim_UF; UF declares 0.5, the
        studies' default, which a γ sweep replaces); None otherwise.

    Examples
    --------
    >>> v = variants("sd-ndcg")[0]
    >>> v.label, v.metric, v.panel, v.measure.family, v.similarity, v.gamma
    ('SD-NDCG', 'NDCG', 'SD', 'inequality indices', 'jaccard', None)
    >>> (u,) = variants("UF")
    >>> u.similarity, u.gamma
    ('uf', 0.5)
    """

    label: str
    measure: Measure
    metric: str | None
    panel: str
    similarity: str = "jaccard"
    gamma: float | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "gamma", check_similarity_choice(self.similarity, self.gamma))

    def __call__(self, fields: Mapping[str, Any]) -> float:
        return float(self.measure(**fields))  # the Measure picks what it reads


def _named(measure, metric):
    def variant(label):
        return Variant(label, measure, metric, measure.panel, measure.similarity, measure.gamma)

    if "effectiveness" not in measure.reads:
        if metric is not None:
            raise ValueError(f"measure {measure.name!r} reads no effectiveness; name it without -{metric}")
        return variant(measure.label)
    if metric is None:
        raise ValueError(
            f"measure {measure.name!r} reads effectiveness: name a metric, "
            f"e.g. {measure.label}-NDCG (metrics: {', '.join(METRICS)})"
        )
    return variant(f"{measure.label}-{metric}")


def _expand(measure, metrics):
    if "effectiveness" not in measure.reads:
        return (_named(measure, None),)
    return tuple(_named(measure, m) for m in metrics)


def _lookup(name):
    """The measure a label or a name stands for, in any case (``"MD"``, ``"mean-difference"``)."""
    known = {m.label.lower(): key for key, m in MEASURES.items()}
    known.update((key.lower(), key) for key in MEASURES)
    return as_measure(known.get(name.lower(), name.lower()))


def _mean(metric):
    return Variant(f"{metric}@k", _MEAN, metric, "Effectiveness")


def _every_variant(metrics):
    """Mean effectiveness first, then each family's measures in registry order."""
    means = tuple(_mean(m) for m in metrics)
    shown = [m for m in MEASURES.values() if m.tables]
    ordered = [m for family in FAMILIES for m in shown if m.family == family]
    return means + tuple(v for m in ordered for v in _expand(m, metrics))


def variants(
    spec: str | Callable[..., Any] | Measure | Variant | None = None, *, metrics: str | tuple[str, ...] = USER_METRICS
) -> tuple[Variant, ...]:
    """Return the variants a label, a name or a function stands for; default every study variant.

    Parameters
    ----------
    spec : str, callable, puf.Measure or Variant, optional
        ``"SD-NDCG"``, ``"uf"``, ``"P@k"``; or a measure function/Measure,
        which expands to one variant per metric when it reads effectiveness.
        None: every variant studies show, from the registry (mean effectiveness
        per metric, then every measure with ``tables=True`` by family).
    metrics : str or tuple of str, default ("P", "NDCG")
        Metrics a measure that reads effectiveness is expanded over (a single
        one may be given alone).

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
    if isinstance(metrics, str):
        metrics = (metrics,)  # one metric, not a sequence of characters
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
        return (_mean(mean.group(1).upper()),)
    name, _, suffix = spec.rpartition("-")
    if name and suffix.upper() in METRICS:
        return (_named(_lookup(name), suffix.upper()),)
    return (_named(_lookup(spec), None),)
