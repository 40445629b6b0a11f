"""Measure variants as the sweeps use them: re-exported from :func:`puf.variants` (module ``puf._variants``).

A label is ``NAME-METRIC`` (``"SD-NDCG"``), a measure that reads no
effectiveness is named alone (``"UF"``), and ``"P@k"``/``"NDCG@k"`` are the
mean effectiveness. The definitions live in the core so that ``puf evaluate``
and the report's sweeps list the same variants of the same registry.

Examples
--------
>>> [v.label for v in variants("PUF-P") + variants("uf")]
['PUF-P', 'UF']
"""

__all__ = ["METRICS", "USER_METRICS", "Variant", "variants"]

from puf._variants import METRICS, USER_METRICS, Variant, variants
