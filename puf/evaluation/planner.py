"""How each measure is computed at a given size: the road a variant takes, chosen from memory.

:func:`plan_roads` gives every variant one :class:`Road`:

- ``"effectiveness"``: reads S alone; computed from the (m,) array.
- ``"pairs"``: declares a pair kernel (:func:`puf.pair_kernel`); all such
  variants of one similarity share one pass over the pair tiles
  (:func:`puf.engines.pair_pass.pair_sums`), reading the similarity matrix
  while it fits in ``memory``, else computing the tiles from the histories.
  ``"sample"``: the same kernels on sampled pairs (``sample=N``).

``memory`` defaults to :func:`puf.memory.memory_budget`, the limit the dense
builders' guard (:func:`puf.memory.check_memory`) applies too.
- ``"envy"``, ``"uf"`` (``"uf-sample"``), ``"neighbours"``: the built-ins with
  a scale engine (:func:`puf.engines.envy_measures`,
  :func:`puf.engines.uf_streaming`, :func:`puf.engines.sample_uf`, and
  inconsistency from :func:`puf.engines.neighbors.nearest_neighbors`).
- ``"dense"``: any other measure, on the dense Population, while its m x m
  pieces fit in ``memory``;
- ``"skipped"``: with the reason and the memory it would need; also, with
  ``max_pairs``, an exact road over all m(m−1)/2 user pairs (``"pairs"``,
  ``"uf"``, ``"neighbours"``) when there are more pairs than that, so a
  large study can skip the passes it has no time for and estimate them
  with ``sample=N`` instead.
"""

from __future__ import annotations

__all__ = [
    "DEFAULT_SIMILARITY",
    "study_similarity",
    "DEFAULT_MEMORY",
    "Road",
    "plan_roads",
    "unbound",
    "dense_bytes",
    "format_bytes",
    "GENRE_FREE",
    "PAIR_ROADS",
]

import functools
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .. import memory as _memory
from ..lipschitz import inconsistency
from ..memory import memory_budget, similarity_bytes
from ..pair_kernels import pair_kernel_of
from ..paper_list_measures import mean_envy, mean_envy_as_printed, mean_max_envy, proportion_envious_users, uf
from ..validation import check_k
from ..variant import Variant

DEFAULT_SIMILARITY = "jaccard"
"""What a variant reads as similarity unless it declares its own (UF declares sim_UF)."""


def study_similarity(variant: Variant, default: str = DEFAULT_SIMILARITY) -> str:
    """The similarity name a variant reads in a study whose own default is ``default``.

    A variant declaring the study default (Jaccard, or None) reads ``default``
    (e.g. sim_UF in the report's γ sweep); one declaring another similarity
    (UF's ``"uf"``) keeps it.

    Parameters
    ----------
    variant : puf.Variant
    default : str, default "jaccard"
        A name in :data:`puf.SIMILARITIES`.

    Returns
    -------
    str

    Examples
    --------
    >>> import puf
    >>> study_similarity(puf.variants("PUF-P")[0]), study_similarity(puf.variants("UF")[0])
    ('jaccard', 'uf')
    >>> study_similarity(puf.variants("PUF-P")[0], "uf")
    'uf'
    """
    own = getattr(variant, "similarity", None) or DEFAULT_SIMILARITY
    return default if own == DEFAULT_SIMILARITY else own


DEFAULT_MEMORY = _memory.DEFAULT_BUDGET
"""Bytes the dense pieces take at most when no limit is set (:data:`puf.memory.DEFAULT_BUDGET`)."""
GENRE_FREE = ("jaccard", "cosine")
"""Similarities computed from the histories alone, without the items' features."""
#: Similarities the pair pass computes tile by tile from the histories.
TILED = ("jaccard", "uf")
#: Built-ins with a streaming engine: function -> road.
ENGINE_ROADS = {
    mean_envy: "envy",
    mean_envy_as_printed: "envy",
    mean_max_envy: "envy",
    proportion_envious_users: "envy",
    uf: "uf",
    inconsistency: "neighbours",
}
_PAIR_MATRICES = ("similarity", "utility", "list_distance")
PAIR_ROADS = ("pairs", "uf", "neighbours")
"""The exact roads whose work grows with the m(m−1)/2 user pairs (``max_pairs`` bounds them)."""


@dataclass(frozen=True)
class Road:
    """How one variant is computed.

    Attributes
    ----------
    kind : str
        ``"effectiveness"``, ``"pairs"``, ``"sample"``, ``"envy"``, ``"uf"``,
        ``"uf-sample"``, ``"dense"`` or ``"skipped"``.
    similarity : str or None
        The similarity it reads (a key of :data:`puf.SIMILARITIES`).
    source : str or None
        For the pair roads: ``"matrix"`` (the similarity matrix in memory) or the
        similarity computed tile by tile (``"jaccard"``, ``"uf"``).
    reason : str
        Why it is skipped (``"skipped"`` only).
    needs : int
        Bytes the dense road would need (``"skipped"`` and ``"dense"``).
    """

    kind: str
    similarity: str | None = None
    source: str | None = None
    reason: str = ""
    needs: int = 0


def unbound(function: Callable[..., Any]) -> tuple[Callable[..., Any], dict[str, Any]]:
    """(function, options): a measure function with its :func:`functools.partial` options peeled.

    Examples
    --------
    >>> import functools, puf
    >>> unbound(functools.partial(puf.proportion_envious_users, epsilon=0.1))[1]
    {'epsilon': 0.1}
    """
    options = {}
    while isinstance(function, functools.partial) and not function.args:
        options = {**function.keywords, **options}
        function = function.func
    return function, options


def _streamed(variant: Variant, reads: tuple[str, ...], m: int, memory: int, sample: int | None) -> bool:
    """True when the variant's pair kernel is streamed over pairs (tiles, or drawn pairs).

    A kernel reading similarity or lists always is; one reading S alone when pairs are
    drawn (a kernel that drawn pairs cannot estimate is computed in full), or for a
    grammar form, whose own function holds m x m arrays, when those would not fit in ``memory``.
    """
    from ..grammar import form_of

    kernel = pair_kernel_of(variant.measure.function)
    if kernel is None:
        return False
    if reads != ("effectiveness",) or (sample and kernel[0].samplable):
        return True
    return form_of(unbound(variant.measure.function)[0]) is not None and dense_bytes(m, 2) > memory


def dense_bytes(m: int, matrices: int) -> int:
    """Bytes of the dense road for ``matrices`` m x m float64 pieces: each kept and copied once.

    Examples
    --------
    >>> dense_bytes(1000, 2)
    40000000
    """
    return _memory.dense_bytes(m, copies=2 * matrices + 1)


def format_bytes(size: float) -> str:
    """``size`` bytes as ``"1.2 GB"`` (powers of 1000).

    Examples
    --------
    >>> format_bytes(152_000_000_000), format_bytes(2_500_000)
    ('152.0 GB', '2.5 MB')
    """
    for unit, scale in (("TB", 1e12), ("GB", 1e9), ("MB", 1e6)):
        if size >= scale:
            return f"{size / scale:.1f} {unit}"
    return f"{size / 1e3:.1f} kB"


def _count(n):
    return f"{n:,}" if n < 10**7 else f"{n:.2g}"


def _skip(reason, needs=0, similarity=None):
    return Road("skipped", similarity=similarity, reason=reason, needs=needs)


def _sourced_road(kind, name, m, memory):
    """A road reading the similarity: from its matrix while it fits, else tile by tile."""
    needs = similarity_bytes(name, m)  # what building the matrix asks for (puf.memory)
    if needs <= memory:
        return Road(kind, similarity=name, source="matrix")
    if name in TILED:
        return Road(kind, similarity=name, source=name)
    return _skip(
        f"its similarity {name!r} has no tiled engine, and its m x m matrix needs "
        f"{format_bytes(needs)} (memory limit {format_bytes(memory)})",
        needs,
        name,
    )


def plan_roads(
    chosen: Sequence[Variant],
    *,
    m: int,
    memory: int | None = None,
    sample: int | None = None,
    similarity: str = "jaccard",
    features_from: str | None = None,
    max_pairs: int | None = None,
) -> list[Road]:
    """The :class:`Road` of each variant for ``m`` users within ``memory`` bytes.

    Parameters
    ----------
    chosen : sequence of puf.Variant
    m : int
        Number of users.
    memory : int, optional
        Bytes the dense pieces may take; default :func:`puf.memory.memory_budget`
        (``--memory`` or ``PUF_MAX_MEMORY``, else 4 GB or what is available if
        less): the limit the dense builders' guard applies too.
    sample : int, optional
        Pairs to draw: every measure with a pair kernel (and UF) is estimated.
    similarity : str, default "jaccard"
        The study's similarity (:func:`puf.evaluation.study_similarity`).
    features_from : str, optional
        When the data has no item features: what would supply them (e.g. "an
        .item file (--item)"); measures reading them are skipped, saying so.
    max_pairs : int, optional
        Skip the exact roads over all user pairs (:data:`PAIR_ROADS`) when
        m(m−1)/2 exceeds this, saying so; default no limit. Their time grows
        with the pairs (at ML-20M's 138k users, 9.6e9 pairs: hours of CPU on
        two cores), while ``sample`` estimates them from drawn pairs in seconds.

    Returns
    -------
    list of Road

    Examples
    --------
    >>> import puf
    >>> roads = plan_roads(puf.variants("SD-P") + puf.variants("PUF-P") + puf.variants("PUF-P"),
    ...                    m=138_000)
    >>> [r.kind for r in roads], roads[1].source
    (['effectiveness', 'pairs', 'pairs'], 'jaccard')
    >>> plan_roads(puf.variants("PUF-P"), m=138_000, similarity="js")[0].reason
    "its similarity 'js' has no tiled engine, and its m x m matrix needs 304.7 GB (memory limit 4.0 GB)"
    >>> plan_roads(puf.variants("PUF-P"), m=138_000, max_pairs=10**9)[0].reason
    'its exact road reads all 9.5e+09 user pairs, more than max_pairs = 1e+09; sample=N (--sample N) estimates it from N drawn pairs'
    """
    m = check_k(m, name="m")
    if max_pairs is not None:
        max_pairs = check_k(max_pairs, name="max_pairs")
    memory = memory_budget() if memory is None else memory
    roads = []
    for variant in chosen:
        name = study_similarity(variant, similarity)
        reads = variant.measure.reads
        function, _ = unbound(variant.measure.function)
        genres = ("similarity" in reads and name not in GENRE_FREE) or "list_distance" in reads
        if genres and features_from is not None:
            roads.append(_skip(f"it needs item features (genres), which {features_from} supplies", similarity=name))
        elif _streamed(variant, reads, m, memory, sample):
            kernel = pair_kernel_of(variant.measure.function)
            kind = "sample" if sample and kernel is not None and kernel[0].samplable else "pairs"
            roads.append(_sourced_road(kind, name, m, memory) if "similarity" in reads else Road(kind, similarity=name))
        elif ENGINE_ROADS.get(function) == "neighbours":
            roads.append(_sourced_road("neighbours", name, m, memory))
        elif function in ENGINE_ROADS:
            kind = ENGINE_ROADS[function]
            roads.append(Road(kind + ("-sample" if sample and kind == "uf" else ""), similarity=name))
        elif reads == ("effectiveness",):
            roads.append(Road("effectiveness"))
        else:
            matrices = sum(1 for f in _PAIR_MATRICES if f in reads or f == "similarity")
            needs = dense_bytes(m, matrices)
            read = " and ".join(f for f in _PAIR_MATRICES if f in reads)
            roads.append(
                Road("dense", similarity=name, needs=needs)
                if needs <= memory
                else _skip(
                    f"it reads the m x m {read} and has no streamed form; the dense road needs "
                    f"{format_bytes(needs)} (memory limit {format_bytes(memory)})",
                    needs,
                    name,
                )
            )
    n_pairs = m * (m - 1) // 2
    if max_pairs is None or n_pairs <= max_pairs:
        return roads
    return [
        _over_pairs(v, road, n_pairs, max_pairs) if road.kind in PAIR_ROADS else road for v, road in zip(chosen, roads)
    ]


def _over_pairs(variant, road, n_pairs, max_pairs):
    """The skipped road of an exact pair road over more than ``max_pairs`` pairs, saying what else there is."""
    kernel = pair_kernel_of(variant.measure.function)
    samplable = road.kind == "uf" or (road.kind == "pairs" and kernel is not None and kernel[0].samplable)
    instead = "sample=N (--sample N) estimates it from N drawn pairs" if samplable else "it has no sampled estimate"
    return _skip(
        f"its exact road reads all {_count(n_pairs)} user pairs, more than max_pairs = {_count(max_pairs)}; {instead}",
        similarity=road.similarity,
    )
