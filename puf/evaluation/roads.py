"""Score measure variants on worlds: the one road from a world to the numbers a study shows.

``puf evaluate`` (:func:`puf.evaluation.evaluate_runs`) and the report's sweeps both score
their variants here, along the roads :func:`puf.evaluation.planner.plan_roads` chose, with
the settings of a :class:`puf.evaluation.study.Study`. :func:`score_worlds` takes several
worlds that share their histories (one per ranker) and computes each variant on each of
them: the pair measures of one similarity for every ranker and metric in one pass over the
pair tiles, the envy measures and UF on their engines, the rest from the (m,) effectiveness
or the dense Population (:meth:`puf.World.population`). Every value read from a world is
memoised in it (:meth:`puf.World.memo`), so a world with new relevance recomputes only what
reads the relevance; :func:`score_variants` and :func:`variant_scores` score one world.
"""

from __future__ import annotations

__all__ = ["WorldScores", "score_worlds", "score_variants", "variant_scores"]

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from ..lists import list_centroids
from ..pair_kernels import pair_kernel_of
from ..pieces import matrix_memo
from ..memory import memory_limit
from ..paper_list_measures import proportion_envious_users
from ..validation import undefined
from ..variant import METRICS, Variant
from ..world import World
from .planner import DEFAULT_SIMILARITY, plan_roads, study_similarity, unbound
from .study import Study, study_gamma


@dataclass
class WorldScores:
    """What :func:`score_worlds` found.

    Attributes
    ----------
    values : dict of str to list of float
        Per world, each variant's value (NaN where skipped or undefined).
    estimates : dict of str to dict of str to puf.engines.PairEstimate
        Per world and variant label, the sampled estimates (``sample=N``).
    roads : list of Road
        Each variant's road, in order.
    raised : dict of str to dict of str to str
        Per world, variant label -> what the measure raised there (its value NaN), with
        ``Study(raised="undefined")``.
    """

    values: dict
    estimates: dict = field(default_factory=dict)
    roads: list = field(default_factory=list)
    raised: dict = field(default_factory=dict)


def _gamma(variant, gamma, road=None):
    name = road.similarity if road is not None and road.similarity else variant.similarity
    return study_gamma(variant, gamma, name)


def _wrapped(variant, where, compute):
    try:
        return float(compute())
    except Warning:  # a warning turned into an error is the caller's to see as is
        raise
    except Exception as exc:  # name the measure (and where): the caller may know neither
        raise ValueError(f"measure {variant.label} failed{where}: {type(exc).__name__}: {exc}") from exc


def _raised(variant, cause):
    """What a measure raised: ``Type: message``, as its worker named it (a measure run in a worker
    raises ``RuntimeError: measure 'NAME': Type: message``; the prefix names the measure again)."""
    text = f"{type(cause).__name__}: {cause}"
    own = f"RuntimeError: measure {getattr(variant.measure.function, '__name__', '')!r}: "
    return text[len(own) :] if text.startswith(own) else text


def _bare_lists(world, k):
    """How many users' first k hold no item: d_L, the distance between lists, is undefined for them."""
    return int((np.asarray(world.rankings)[:, :k] < 0).all(axis=1).sum())


def _centroids(world, k):
    return world.memo("lists", ("centroids", k), lambda: list_centroids(world.rankings[:, :k], world.item_vectors))


def _source_inputs(world, road, gamma, overrides=None):
    if overrides and (road.similarity, gamma) in overrides:
        return {"matrix": overrides[road.similarity, gamma]}
    if road.source == "matrix":
        return {"matrix": world.shared_similarity(road.similarity, gamma=gamma)}
    return {"histories": world.histories, "item_features": world.item_features, "gamma": gamma}


def _pair_group(worlds, group, chosen, study, scores, where, undefined_lists=frozenset()):
    """One pass (or one sample) for every (world, variant) of a group of one similarity, but the
    ``undefined_lists`` pairs (world name, index of the variant)."""
    from puf.engines.pair_pass import PairJob, pair_sums, sampled_pair_means

    first = next(iter(worlds.values()))
    m, road, k, sample = first.m, group[0][1], study.k, study.sample
    own = _gamma(chosen[group[0][0]], study.gamma, road)
    options = dict(study.options, **({"random_state": study.random_state} if sample else {}))
    jobs, slots, runs = [], [], list(worlds)
    for index, _ in group:
        variant = chosen[index]
        form, bound = pair_kernel_of(variant.measure.function)
        for r, name in enumerate(runs):
            if (name, index) in undefined_lists:
                continue
            s = worlds[name].effectiveness(METRICS[variant.metric], k) if variant.metric else None
            jobs.append(PairJob(form, bound, s, r if "list_distance" in form.reads else None))
            slots.append((name, index, form, s))
            if form.weights is not None:  # a weighted mean: Σ weights is one more total of the pass
                jobs.append(PairJob(form.weight_kernel(), bound, s, jobs[-1].lists))
                slots.append(None)
    if not jobs:
        return
    listed = {j.lists for j in jobs if j.lists is not None}
    centroids = [_centroids(worlds[name], k) if r in listed else None for r, name in enumerate(runs)] if listed else ()
    common = dict(
        m=m,
        similarity=road.source,
        inputs=_source_inputs(first, road, own, study.overrides),
        centroids=centroids,
        **options,
    )
    n_all = m * (m - 1) / 2
    labels = ", ".join(chosen[index].label for index, _ in group)
    try:
        if road.kind == "pairs":
            totals = pair_sums(jobs, **common)
        else:
            means = sampled_pair_means(jobs, sample_size=sample, **common)
    except Warning:
        raise
    except Exception as exc:  # a kernel of one of them raised: name them (and where)
        raise ValueError(f"measures {labels} failed{where}: {type(exc).__name__}: {exc}") from exc
    if road.kind == "pairs":
        for slot, total, weight_total in zip(slots, totals, totals[1:] + [None]):
            if slot is not None:
                name, index, form, s = slot
                weights = weight_total if form.weights is not None else None
                value = form.value(total=total, n_pairs=n_all, weight_total=weights, effectiveness=s)
                scores.values[name][index] = value
        return
    from puf.engines import PairEstimate
    from puf.engines.sampling import Z95

    for (name, index, form, _), (mean, se) in zip(slots, means):  # samplable kernels: no weights
        value = form.value(total=mean * n_all, n_pairs=n_all)
        error = abs(form.value(total=se * n_all, n_pairs=n_all))
        low, high = chosen[index].measure.range
        scores.values[name][index] = value
        scores.estimates[name][chosen[index].label] = PairEstimate(
            value, error, max(low, value - Z95 * error), min(high, value + Z95 * error), sample
        )


def _envy(world, variant, study):
    import inspect

    from puf.engines import envy_measures

    function, bound = unbound(variant.measure.function)
    epsilon = bound.get(
        "epsilon",
        inspect.signature(function).parameters["epsilon"].default if function is proportion_envious_users else None,
    )
    k = study.k

    def outputs():  # one record of the engine's named outputs (a world memoises arrays)
        found = envy_measures(world.rankings[:, :k], world.relevance, k=k, epsilon=epsilon or 0.0, **study.options)
        return np.array([tuple(found.values())], dtype=[(name, np.float64) for name in found])

    parts = world.memo("judged", ("envy", k, epsilon), outputs)
    output, factor = variant.measure.engine_output  # declared by the measure (puf.measure's engine_output)
    return factor * float(parts[output][0])


def _uf(world, variant, study, gamma):
    from puf.engines import uf_streaming

    _, bound = unbound(variant.measure.function)
    base = bound.get("base", math.e)
    k = study.k
    inputs = (world.histories, world.item_features, world.rankings[:, :k], world.item_vectors)
    if study.sample:
        return _sampled_uf(world, inputs, (k, gamma, base, study.sample), study)
    return float(
        world.memo(
            "users_lists",
            ("uf", k, gamma, base),
            lambda: uf_streaming(*inputs, gamma=gamma, base=base, **study.options),
        )
    )


def _sampled_uf(world, inputs, setting, study):
    """UF from drawn pairs; from a seed, once per world and its histories and lists (a sweep's worlds differ
    in relevance alone, which UF does not read), the same estimate each time."""
    from puf.engines import PairEstimate, sample_uf

    k, gamma, base, sample = setting
    random_state = study.random_state

    def draw():
        found = sample_uf(
            *inputs, gamma=gamma, base=base, sample_size=sample, random_state=random_state, **study.options
        )
        return np.array([found.value, found.standard_error, found.ci_low, found.ci_high, found.n_pairs], dtype=float)

    seeded = isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool)
    parts = world.memo("users_lists", ("uf-sample", *setting, int(random_state)), draw) if seeded else draw()
    return PairEstimate(float(parts[0]), float(parts[1]), float(parts[2]), float(parts[3]), int(parts[4]))


def _same_users(a, b):
    """Whether two worlds hold the same histories, item features and item vectors (UF's shared inputs)."""
    x, y = a.histories, b.histories
    return (
        x.shape == y.shape
        and x.nnz == y.nnz
        and all(np.array_equal(getattr(x, f), getattr(y, f)) for f in ("indptr", "indices", "data"))
        and np.array_equal(a.item_features, b.item_features)
        and np.array_equal(a.item_vectors, b.item_vectors)
    )


def _uf_together(worlds, chosen, roads, study):
    """Seed each world's exact UF from one pass over the pair tiles for all of them (they share their users)."""
    from puf.engines import uf_streaming_runs

    if len(worlds) < 2 or all(road.kind != "uf" for road in roads):
        return
    first = next(iter(worlds.values()))
    if not all(_same_users(first, w) for w in worlds.values()):
        return
    done = set()
    for variant, road in zip(chosen, roads):
        own = _gamma(variant, study.gamma, road)
        base = unbound(variant.measure.function)[1].get("base", math.e)
        if road.kind != "uf" or (own, base) in done:
            continue
        done.add((own, base))
        runs = [w.rankings[:, : study.k] for w in worlds.values()]
        try:
            values = uf_streaming_runs(
                first.histories, first.item_features, runs, first.item_vectors, gamma=own, base=base, **study.options
            )
        except Warning:
            raise
        except Exception:  # each world's own road then raises, naming the measure and the run
            continue
        for world, value in zip(worlds.values(), values):
            world.memo("users_lists", ("uf", study.k, own, base), lambda value=value: value)


def _neighbours(world, variant, road, study, gamma):
    from puf.engines.neighbors import inconsistency_from_neighbors, nearest_neighbors

    from ..validation import check_k

    _, bound = unbound(variant.measure.function)
    n = check_k(bound.get("n_neighbors", 5), name="n_neighbors")
    if world.m < n + 1:
        return undefined(f"inconsistency with n_neighbors={n} is undefined for m = {world.m} < {n + 1} users")

    overrides = study.overrides

    def compute():
        return nearest_neighbors(
            world.m, n, similarity=road.source, inputs=_source_inputs(world, road, gamma, overrides), **study.options
        )

    overridden = overrides and (road.similarity, gamma) in overrides
    neighbors = (
        matrix_memo(overrides[road.similarity, gamma], ("neighbours", road.source, n), compute)
        if overridden
        else world.memo("users", ("neighbours", road.similarity, road.source, gamma, n), compute)
    )
    return inconsistency_from_neighbors(world.effectiveness(METRICS[variant.metric], study.k), neighbors)


def _single(world, variant, road, study, estimate):
    """The value of a variant whose road needs no joint pass over pair tiles."""
    k, overrides = study.k, study.overrides
    if road.kind == "neighbours":
        return _neighbours(world, variant, road, study, _gamma(variant, study.gamma, road))
    if road.kind == "effectiveness":
        return variant({"effectiveness": world.effectiveness(METRICS[variant.metric], k)})
    if road.kind == "envy":
        return _envy(world, variant, study)
    if road.kind.startswith("uf"):
        value = _uf(world, variant, study, _gamma(variant, study.gamma, road))
        if study.sample:
            estimate.append(value)
        return float(value)
    own = (road.similarity, _gamma(variant, study.gamma, road))

    def dense():
        population = world.population(
            metric=METRICS[variant.metric or "NDCG"],
            k=k,
            similarity=road.similarity,
            gamma=own[1],
            fields=variant.measure.reads,
        )
        if overrides and own in overrides:
            population = population.replace(similarity=overrides[own])
        return variant(population.fields())

    if overrides and own in overrides and set(variant.measure.reads) <= _USERS_LISTS_FIELDS:
        # A value of a given matrix and the lists alone (UF): the same for every relevance of them.
        token = int(matrix_memo(overrides[own], "value token", _new_token))
        return float(world.memo("users_lists", ("dense value", variant.label, k, own, token), dense))
    return dense()


_USERS_LISTS_FIELDS = {"similarity", "list_distance"}  # fields read from the users and the lists alone
_TOKENS = iter(range(1, 2**62))


def _new_token():
    """A number no other matrix is given: names a matrix in memo keys for as long as it lives."""
    return next(_TOKENS)


def _overridden(roads, chosen, study):
    """Roads reading a given similarity matrix: from that matrix (UF: on the dense road).

    Only a measure that reads the similarity is moved: envy and effectiveness measures keep
    their roads (the envy engine, one pass for ME, MME and PEU), whatever matrix is given.
    """
    changed = []
    for variant, road in zip(chosen, roads):
        reads = "similarity" in variant.measure.reads
        own = (road.similarity, _gamma(variant, study.gamma, road))
        if reads and own in study.overrides and road.kind != "skipped":
            if road.kind in ("pairs", "sample", "neighbours"):
                road = replace(road, source="matrix")
            elif road.kind != "effectiveness":
                road = replace(road, kind="dense", source=None)
        changed.append(road)
    return changed


def score_worlds(
    worlds: Mapping[str, World],
    chosen: Sequence[Variant],
    study: Study | None = None,
    *,
    similarity: str = DEFAULT_SIMILARITY,
    memory: int | None = None,
    features_from: str | None = None,
    where: str = "",
) -> WorldScores:
    """Each variant's value on each world, every measure on the road its size allows.

    Parameters
    ----------
    worlds : dict of str to puf.World
        Worlds sharing their users (e.g. one per ranker: same histories, other lists).
    chosen : sequence of puf.Variant
    study : puf.evaluation.study.Study, optional
        The settings (cut-off, γ, sampling, pair limit, given similarity matrices, where the
        engines run); default ``Study()``.
    similarity : str, default "jaccard"
        The study's default similarity (:func:`puf.evaluation.planner.study_similarity`).
    memory : int, optional
        Bytes the dense m x m pieces may take (:func:`puf.evaluation.planner.plan_roads`);
        default :func:`puf.memory.memory_budget`. When given, it is also the limit of
        the dense builders' guard while the worlds are scored (:func:`puf.memory.memory_limit`).
    features_from : str, optional
        The worlds' item features are placeholders: skip what reads them, naming this source.
    where : str
        Appended to ``"measure LABEL failed"`` when a measure raises.

    Returns
    -------
    WorldScores

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> score_worlds({"a": w}, puf.variants("SD-P") + puf.variants("PUF-P")).values  # J = 1/3
    {'a': [0.5, 0.3333333333333333]}
    """
    study = Study() if study is None else study
    if study.raised not in ("stop", "undefined"):
        raise ValueError(f"raised must be 'stop' or 'undefined', got {study.raised!r}")
    if memory is not None:
        with memory_limit(memory):
            return score_worlds(worlds, chosen, study, similarity=similarity, features_from=features_from, where=where)
    first = next(iter(worlds.values()))
    study = replace(study, k=first.k) if study.k is None else study
    roads = plan_roads(
        chosen,
        m=first.m,
        sample=study.sample,
        similarity=similarity,
        features_from=features_from,
        max_pairs=study.max_pairs,
    )
    roads = _overridden(roads, chosen, study) if study.overrides else roads
    scores = WorldScores({name: [math.nan] * len(chosen) for name in worlds}, {name: {} for name in worlds}, roads)
    bare = {name: _bare_lists(world, study.k) for name, world in worlds.items()}
    reading_lists = [index for index, variant in enumerate(chosen) if "list_distance" in (variant.measure.reads or ())]
    undefined_lists = {(name, index) for name in worlds if bare[name] for index in reading_lists}
    groups = {}
    for index, (variant, road) in enumerate(zip(chosen, roads)):
        if road.kind in ("pairs", "sample"):
            key = (road.kind, road.similarity, road.source, _gamma(variant, study.gamma, road))
            groups.setdefault(key, []).append((index, road))
    for group in groups.values():
        _pair_group(worlds, group, chosen, study, scores, where, undefined_lists)
    _uf_together({name: world for name, world in worlds.items() if not bare[name]}, chosen, roads, study)
    for name, world in worlds.items():
        here = f"{where} on run {name!r}" if len(worlds) > 1 and not where else where
        for index, (variant, road) in enumerate(zip(chosen, roads)):
            if (name, index) in undefined_lists and road.kind != "skipped":
                held = "1 user's list holds" if bare[name] == 1 else f"{bare[name]:,} users' lists hold"
                scores.values[name][index] = undefined(
                    f"{variant.label} is undefined{here}: {held} no item in the first {study.k}, and the "
                    "distance between two lists needs an item in each"
                )
                continue
            if road.kind in ("pairs", "sample", "skipped"):
                continue
            estimate = []
            try:
                value = _wrapped(variant, here, lambda: _single(world, variant, road, study, estimate))
            except ValueError as exc:
                # (a call over the time limit stops the study in either mode: a measure too slow)
                if study.raised == "stop" or exc.__cause__ is None or isinstance(exc.__cause__, TimeoutError):
                    raise
                value = math.nan
                scores.raised.setdefault(name, {})[variant.label] = _raised(variant, exc.__cause__)
            if estimate:
                scores.estimates[name][variant.label] = estimate[0]
            scores.values[name][index] = value
    return scores


def score_variants(
    world: World,
    chosen: Sequence[Variant],
    *,
    k: int | None = None,
    similarity: str = DEFAULT_SIMILARITY,
    gamma: float | None = None,
    adjust: Callable[..., Any] | None = None,
    where: str = "",
    memory: int | None = None,
) -> list[float]:
    """Each variant's value on ``world``, through :meth:`puf.World.population`.

    Parameters
    ----------
    world : puf.World
    chosen : sequence of puf.Variant
        E.g. :func:`puf.variants`.
    k : int, optional
        Cut-off; default the world's list length.
    similarity : str, default "jaccard"
        The study's default similarity (see :func:`puf.evaluation.planner.study_similarity`).
    gamma : float in [0, 1], optional
        The study's γ (sim_UF's weight of shared history), for every variant
        whose similarity takes one; default each variant's own ``gamma``
        (:class:`puf.Variant`), or :meth:`puf.World.population`'s default
        when it declares none.
    adjust : callable, optional
        ``adjust(similarity, similarity_name) -> similarity``: the (m, m)
        matrix it returns is what every variant reading that similarity reads
        (e.g. a sweep reshaping it to a skewness).
    where : str
        Appended to ``"measure LABEL failed"`` when a measure raises
        (e.g. ``" on run 'ease'"``).
    memory : int, optional
        As in :func:`score_worlds`.

    Returns
    -------
    list of float
        In the order of ``chosen``; NaN (with :class:`puf.UndefinedMeasureWarning`)
        where a measure is undefined.

    Raises
    ------
    ValueError
        A measure raised: the message names it, ``where`` and the error.

    Notes
    -----
    ``adjust`` is applied once per similarity the variants read; every road
    reading that similarity then reads the adjusted matrix.

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> score_variants(w, puf.variants("SD-P") + puf.variants("PUF-P"))  # J = 1/3
    [0.5, 0.3333333333333333]
    """
    return variant_scores(
        world, chosen, k=k, similarity=similarity, gamma=gamma, adjust=adjust, where=where, memory=memory
    ).values["world"]


def variant_scores(
    world: World,
    chosen: Sequence[Variant],
    *,
    k: int | None = None,
    similarity: str = DEFAULT_SIMILARITY,
    gamma: float | None = None,
    adjust: Callable[..., Any] | None = None,
    where: str = "",
    memory: int | None = None,
    max_pairs: int | None = None,
    sample: int | None = None,
    random_state: int | np.random.Generator | None = 0,
    raised: str = "stop",
) -> WorldScores:
    """What :func:`score_variants` finds, with each variant's road and the sampled estimates.

    Parameters
    ----------
    world, chosen, k, similarity, gamma, adjust, where, memory
        As in :func:`score_variants`.
    max_pairs : int, optional
        Skip the exact roads over all m(m−1)/2 user pairs when there are more
        pairs than this (:func:`puf.evaluation.planner.plan_roads`); default no limit.
    sample : int, optional
        Estimate every pair measure (and UF) from ``sample`` drawn pairs, with a 95% interval.
    random_state : int, default 0
        Seed of the drawn pairs (``sample`` only).
    raised : {"stop", "undefined"}, default "stop"
        As :attr:`puf.evaluation.study.Study.raised`.

    Returns
    -------
    WorldScores
        ``values["world"]`` (NaN where skipped), ``estimates["world"]`` (variant
        label -> :class:`puf.engines.PairEstimate`), ``roads`` (each variant's
        road, with the reason where it is ``"skipped"``) and ``raised["world"]``.

    Examples
    --------
    >>> import numpy as np, puf
    >>> w = puf.World(np.array([[1, 1, 0], [0, 1, 1]]), np.array([[0, 0, 1], [1, 0, 0]]),
    ...               [[2], [1]], np.eye(3))
    >>> found = variant_scores(w, puf.variants("SD-P") + puf.variants("PUF-P"), max_pairs=1)
    >>> found.values["world"], [road.kind for road in found.roads]  # 2 users: 1 pair
    ([0.5, 0.3333333333333333], ['effectiveness', 'pairs'])
    >>> w3 = puf.World(np.eye(3), np.eye(3), [[0], [1], [2]], np.eye(3))  # 3 users: 3 pairs
    >>> found = variant_scores(w3, puf.variants("SD-P") + puf.variants("PUF-P"), max_pairs=2)
    >>> found.values["world"][0], found.roads[1].kind
    (0.0, 'skipped')
    >>> print(found.roads[1].reason)  # doctest: +NORMALIZE_WHITESPACE
    its exact road reads all 3 user pairs, more than max_pairs = 2; sample=N (--sample N) estimates it
    from N drawn pairs
    >>> found = variant_scores(w3, puf.variants("PUF-P"), max_pairs=2, sample=100)
    >>> found.roads[0].kind, found.estimates["world"]["PUF-P"].n_pairs
    ('sample', 100)
    """
    from ..validation import check_similarity

    overrides = {}
    for variant in chosen if adjust is not None else ():
        name = study_similarity(variant, similarity)
        own = study_gamma(variant, gamma, name)
        if adjust is not None and (name, own) not in overrides and "similarity" in variant.measure.reads:
            overrides[name, own] = check_similarity(adjust(world.shared_similarity(name, gamma=own), name), m=world.m)
    study = Study(
        k=k,
        gamma=gamma,
        sample=sample,
        random_state=random_state,
        max_pairs=max_pairs,
        overrides=overrides,
        raised=raised,
    )
    return score_worlds({"world": world}, chosen, study, similarity=similarity, memory=memory, where=where)
