"""The examples each property checks, at score level and at world level (private).

A *case* is a population before (and after) one transformation. Score-level
cases transform Population fields directly. World-level cases transform the
World and derive both populations from it, so a change of relevance reaches
effectiveness *and* utility, a change of lists reaches utility and list
distance, and a change of histories reaches similarity. Where a property's
change is continuous (a small perturbation, a rescaling, one similarity
raised alone) no discrete world change expresses it; those cases transform
the derived fields the measure reads, which is exact for similarity since
histories feed nothing else.
"""

__all__ = ["Case", "CASES", "EXPLICIT"]

import dataclasses
import functools
from dataclasses import dataclass

import numpy as np
from hypothesis import strategies as st
from puf.synthetic import add_shared_history, weighted_gap_sum

from . import _worlds as W
from ._pairing import pairing_order
from .strategies import _UNIT, _draw_effectiveness, _draw_similarity, populations, worlds

_LARGEST = 12  # users in the largest population drawn (strategies' default max_users)
# Fractions in (0, 1), kept >= 1e-3 so that a scaling by 1/fraction never under- or overflows.
_FRACTION = st.one_of(st.integers(1, 9).map(lambda i: i / 10), st.floats(1e-3, 0.999))
_FRACTION_OR_ONE = st.one_of(st.just(1.0), _FRACTION)
_FRACTION_OR_ZERO = st.one_of(st.just(0.0), _FRACTION)
_HALF_OR_LESS = st.one_of(st.just(0.5), _FRACTION.map(lambda t: t / 2))


@functools.lru_cache(maxsize=None)
def _permutations(m):
    return st.permutations(range(m))


@dataclass(frozen=True, eq=False, repr=False)
class Case:
    """One example: ``before`` and optionally ``after`` a transformation described by ``change``.

    ``alternatives`` are further cases of the same transformation (other amounts,
    other users): the runner judges all and keeps the worst, which costs measure
    calls, not Hypothesis examples. ``segment``: ``before`` and ``after``
    are the ends of a segment the runner narrows to its steepest piece (continuity).
    """

    before: object
    after: object = None
    change: str = ""
    strict: bool = False
    trivial: bool = False
    delta: float = 0.0
    alternatives: tuple = ()
    segment: bool = False

    def __repr__(self):
        # Short: Hypothesis prints a failing example's repr, and populations are large.
        return f"Case(m={self.before.m}, change={self.change!r}, alternatives={len(self.alternatives)})"

    def _repr_pretty_(self, printer, cycle):
        # Hypothesis' pretty printer lists a dataclass's fields unless it finds this method.
        printer.text(repr(self))


def _trivial(pop, why):
    return Case(pop, None, why, trivial=True)


@functools.lru_cache(maxsize=None)
def _source(level):
    if level == "score":
        return populations().map(lambda p: (p, None))
    return worlds().map(lambda w: (W.derive(w), w))


def _users(draw, m, count):
    first = draw(st.integers(0, m - 1))
    if count == 1:
        return first
    second = draw(st.integers(0, m - 2))
    return first, second + (second >= first)


@st.composite
def single(draw, level, measure):
    return Case(draw(_source(level))[0])


@st.composite
def anonymity(draw, level, measure):
    pop, world = draw(_source(level))
    order = np.array(draw(_permutations(pop.m)))
    # The drawn relabelling, and two that move every user: reversed and rotated by one.
    cases = [_relabelled(pop, world, o) for o in (order, np.arange(pop.m)[::-1], np.roll(np.arange(pop.m), 1))]
    return dataclasses.replace(cases[0], alternatives=tuple(cases[1:]))


def _relabelled(pop, world, order):
    after = pop.permute(order) if world is None else W.derive(W.permute_users(world, order))
    return Case(pop, after, f"users relabelled: new user i is old user order[i], order={order.tolist()}")


@st.composite
def zero_at_equality(draw, level, measure):
    pop, world = draw(_source(level))
    if world is None:
        c = draw(_UNIT)
        return Case(pop.replace(effectiveness=np.full(pop.m, c)), change=f"every S(u) = {c:g}")
    if draw(st.booleans()):
        return Case(W.derive(W.own_list_relevance(world)),
                    change="each user's relevant items are exactly its own list (S = 1, no envy)")
    zero = np.zeros((world.m, world.n_items))
    return Case(W.derive(world.replace(relevance=zero)), change="no relevant item for anyone (S = 0)")


def _list_relevance(world):
    relevance = W.dense(world.relevance)
    return relevance, relevance[np.arange(world.m)[:, None], world.rankings] > 0


def _choose(draw, users, positions_ok, rankings):
    """Pick one user of ``users`` and one of its list positions where ``positions_ok``."""
    user = int(users[draw(st.integers(0, len(users) - 1))])
    positions = np.flatnonzero(positions_ok[user])
    return user, int(rankings[user, positions[draw(st.integers(0, len(positions) - 1))]])


@st.composite
def disparity_monotone(draw, level, measure):
    pop, world = draw(_source(level))
    s = pop.effectiveness
    if world is None:
        c, mu = draw(_UNIT), draw(_FRACTION_OR_ZERO)
        # Other centres and factors of the same widening, judged in the same example: flaws that
        # show only for large gaps need a large λ, those at one end a centre there.
        others = []
        for centre in sorted({c, 0.0, 1.0, float(s.min()), float(s.max()), float(s.mean())}):
            for factor in (0.3, 0.6, 0.9):
                if (centre, factor) != (c, mu):
                    others.append((centre + factor * (s - centre), centre, factor))
        return Case(pop.replace(effectiveness=c + mu * (s - c)), pop,
                    f"every gap S(u) − c scaled by λ = 1/{mu:g} around c = {c:g}",
                    alternatives=tuple(_widened(pop, narrow, centre, factor)
                                       for narrow, centre, factor in others))
    relevance, relevant = _list_relevance(world)
    top = np.flatnonzero((s == s.max()) & (~relevant).any(axis=1))
    if top.size:
        user, item = _choose(draw, top, ~relevant, world.rankings)
        grade = draw(st.integers(1, 3))
        after = W.set_relevance(world, user, item, grade)
        return Case(pop, W.derive(after),
                    f"best-off user {user}: listed item {item} relevance 0 → {grade} (every gap to it widens)")
    bottom = np.flatnonzero((s == s.min()) & relevant.any(axis=1))
    if bottom.size:
        user, item = _choose(draw, bottom, relevant, world.rankings)
        after = W.set_relevance(world, user, item, 0.0)
        return Case(pop, W.derive(after),
                    f"worst-off user {user}: listed item {item} relevance "
                    f"{relevance[user, item]:g} → 0 (every gap to it widens)")
    return _trivial(pop, "every user already at 0 or 1")


def _widened(pop, narrow, centre, factor):
    """An alternative of a disparity case: the narrowed population before, ``pop`` after."""
    return Case(pop.replace(effectiveness=narrow), pop,
                f"every gap S(u) − c scaled by λ = 1/{factor:g} around c = {centre:g}")


def _transfer(pop, i, j, tau):
    s = pop.effectiveness
    after = s.copy()
    after[i], after[j] = s[i] + tau * (s[j] - s[i]), s[j] - tau * (s[j] - s[i])
    return Case(pop, pop.replace(effectiveness=after),
                f"transfer: S({i}), S({j}) moved towards each other by {tau:g} of their gap")


@st.composite
def pigou_dalton(draw, level, measure):
    pop, world = draw(_source(level))
    s = pop.effectiveness
    if world is None:
        i, j = _users(draw, pop.m, 2)
        tau = draw(_HALF_OR_LESS)
        main = _transfer(pop, i, j, tau)
        # The same transfer by other amounts, and between the extremes and their neighbours.
        order = np.argsort(s, kind="stable")
        pairs = {(i, j), (int(order[0]), int(order[-1])), (int(order[-2]), int(order[-1])),
                 (int(order[0]), int(order[1]))}
        if pop.m <= 6:  # few users: every pair (a transfer's side effect may sit anywhere)
            pairs |= {(a, b) for a in range(pop.m) for b in range(a + 1, pop.m)}
        # The same transfers where similar users are alike (sim 1 within 0.1 of effectiveness,
        # 0 otherwise): pulling a user out of its group is where similarity-aware measures break.
        close = (np.abs(s[:, None] - s[None, :]) <= 0.1).astype(float)
        grouped = pop.replace(similarity=close)
        others = tuple(_transfer(base, a, b, t) for base in (pop, grouped) for a, b in sorted(pairs)
                       if a != b for t in (0.5, 0.25, 0.1, 0.02)
                       if (base, a, b, t) != (pop, i, j, tau))
        return Case(pop, main.after, main.change, alternatives=others)
    relevance, relevant = _list_relevance(world)
    if s.max() - s.min() < 2.0 / world.k - 1e-12:
        return _trivial(pop, "no two users 2/k apart")
    low, up = _choose(draw, np.flatnonzero(s == s.min()), ~relevant, world.rankings)
    high, down = _choose(draw, np.flatnonzero(s == s.max()), relevant, world.rankings)
    after = W.set_relevance(W.set_relevance(world, low, up, 1.0), high, down, 0.0)
    return Case(pop, W.derive(after),
                f"transfer of 1/k: worst-off user {low} item {up} relevance 0 → 1, "
                f"best-off user {high} item {down} relevance {relevance[high, down]:g} → 0")


@st.composite
def similarity_monotone(draw, level, measure):
    pop, _ = draw(_source(level))
    s, sim = pop.effectiveness, pop.similarity
    rows, cols = np.nonzero(np.triu(s[:, None] != s[None, :], k=1) & (sim < 1.0))
    if rows.size == 0:
        # Equal effectiveness or everyone alike (half the edge cases): rather than waste the
        # example, draw plain effectiveness and similarity for the same users.
        pop = pop.replace(effectiveness=_draw_effectiveness(draw, pop.m, _LARGEST, False),
                          similarity=_draw_similarity(draw, pop.m, _LARGEST, False))
        s, sim = pop.effectiveness, pop.similarity
        rows, cols = np.nonzero(np.triu(s[:, None] != s[None, :], k=1) & (sim < 1.0))
    if rows.size == 0:
        return _trivial(pop, "no pair with unequal effectiveness and similarity below 1")
    pick = draw(st.integers(0, rows.size - 1))
    u, v = int(rows[pick]), int(cols[pick])
    fraction = draw(_FRACTION_OR_ONE)
    main = _raised(pop, u, v, fraction)
    # Other amounts for the drawn pair, and the pair with the smallest gap raised fully.
    gaps = np.abs(s[rows] - s[cols])
    small = int(np.argmin(gaps))
    others = [_raised(pop, u, v, f) for f in (1.0, 0.5, 0.05, 0.01) if f != fraction]
    others.append(_raised(pop, int(rows[small]), int(cols[small]), 1.0))
    return Case(pop, main.after, main.change, alternatives=tuple(others))


def _raised(pop, u, v, fraction):
    sim = pop.similarity
    new = sim[u, v] + fraction * (1.0 - sim[u, v])
    raised = sim.copy()
    raised[u, v] = raised[v, u] = new
    return Case(pop, pop.replace(similarity=raised), f"sim({u},{v}) raised {sim[u, v]:g} → {new:g}")


@st.composite
def similarity_sensitive(draw, level, measure):
    pop, world = draw(_source(level))
    if world is None:
        return Case(pop, pop.replace(similarity=_draw_similarity(draw, pop.m, _LARGEST, True)),
                    "similarity matrix replaced, effectiveness fixed")
    u, v = _users(draw, pop.m, 2)
    count = draw(st.integers(1, 3))
    try:
        after = add_shared_history(world, u, v, n_items=count)
    except ValueError:  # no private items to trade: add shared ones, other pairs may move too
        after = world
        for _ in range(count):
            after = W.add_shared_item(after, u, v) or after
    return Case(pop, W.derive(after), f"{count} shared history item(s) added to users {u} and {v}")


@st.composite
def effectiveness_sensitive(draw, level, measure):
    pop, world = draw(_source(level))
    if world is None:
        return Case(pop, pop.replace(effectiveness=_draw_effectiveness(draw, pop.m, _LARGEST, True)),
                    "effectiveness replaced, similarity fixed")
    user = draw(st.integers(0, world.m - 1))
    item = int(world.rankings[user, draw(st.integers(0, world.k - 1))])
    if draw(st.booleans()):
        item = draw(st.integers(0, world.n_items - 1))
    relevance = W.dense(world.relevance)
    old = relevance[user, item]
    grade = draw(st.integers(0, 2).map(lambda g: g + (g >= old)))
    case = _regraded(pop, world, relevance, user, item, grade)
    # A random item is mostly in no list, so its grade reaches no utility; a measure that counts
    # users whose envy exceeds a threshold (PEU) moves only when one envy crosses it. So the same
    # user's grades are also changed where they reach envy most: the first item of another
    # user's list (users after this one, in turn) raised to the top grade, the first non-relevant
    # item of the user's own list raised, the first relevant one dropped to 0. No extra draw: the
    # examples of every other measure are unchanged.
    own = world.rankings[user]
    listed = np.concatenate([world.rankings[(user + i) % world.m] for i in range(1, world.m)])
    envied = [i for i in listed if i not in own and relevance[user, i] < _TOP_GRADE][:1]
    raised = [i for i in own if relevance[user, i] < _TOP_GRADE][:1]
    dropped = [i for i in own if relevance[user, i] > 0][:1]
    alternatives = [_regraded(pop, world, relevance, user, int(i), g)
                    for items, g in ((envied, _TOP_GRADE), (raised, _TOP_GRADE), (dropped, 0))
                    for i in items]
    return dataclasses.replace(case, alternatives=tuple(alternatives))


_TOP_GRADE = 3  # the strategies' worlds grade relevance 0..3


def _regraded(pop, world, relevance, user, item, grade):
    return Case(pop, W.derive(W.set_relevance(world, user, item, grade)),
                f"user {user} item {item} relevance {relevance[user, item]:g} → {grade}")


@st.composite
def similarity_zero(draw, level, measure):
    pop, world = draw(_source(level))
    if world is None:
        return Case(pop.replace(similarity=np.eye(pop.m)), change="every similarity between users is 0")
    return Case(W.derive(W.drop_shared_history(world)),
                change="histories made disjoint (each item kept by its first holder): every Jaccard is 0")


@st.composite
def rearrangement(draw, level, measure):
    pop, world = draw(_source(level))
    case = _pairings(pop, world)
    if case.strict or case.trivial or world is not None:
        return case
    # No pairing of this draw changes Σ sim·|gap| (m = 2, equal S, uniform similarity: a third of
    # the first draws), so it cannot show a measure blind to the pairing. Judge the smallest
    # population where pairings differ too: three users, two of them similar, S from the draw.
    from puf import Population

    values = np.unique(pop.effectiveness)
    values = values[[0, len(values) // 2, -1]] if len(values) >= 3 else np.array([0.0, 0.5, 1.0])
    similar_pair = np.eye(3)
    similar_pair[0, 1] = similar_pair[1, 0] = 1.0
    smallest = _pairings(Population(values, similar_pair), None)
    return dataclasses.replace(case, alternatives=(smallest,))


def _pairings(pop, world):
    s, sim = pop.effectiveness, pop.similarity
    fair, unfair = (pairing_order(s, sim, mode) for mode in ("most_fair", "most_unfair"))
    gap = weighted_gap_sum(s[unfair], sim) - weighted_gap_sum(s[fair], sim)
    if gap < -1e-9:
        return _trivial(pop, "pairing search ranked the pairings the wrong way")
    if world is None:
        before, after = pop.replace(effectiveness=s[fair]), pop.replace(effectiveness=s[unfair])
    else:
        before, after = (W.derive(W.move_outcomes(world, o)) for o in (fair, unfair))
    return Case(before, after, f"most_fair pairing (order {fair.tolist()}) vs most_unfair "
                f"(order {unfair.tolist()})", strict=gap > 1e-9)


@st.composite
def replication(draw, level, measure):
    pop, world = draw(_source(level))
    r = draw(st.integers(2, 3))
    if world is not None:
        return Case(pop, W.derive(W.replicate(world, r)), f"every user copied {r} times")
    size = r * pop.m
    sim = np.tile(pop.similarity, (r, r))
    sim[np.arange(size)[:, None] % pop.m == np.arange(size)[None, :] % pop.m] = 1.0
    after = pop.replace(effectiveness=np.tile(pop.effectiveness, r), similarity=sim)
    return Case(pop, after, f"every user copied {r} times (a user and its copies: similarity 1)")


def _explicit_single(level):
    """Hand-made minimal populations tried first for range and defined: two users at the extremes."""
    from puf import Population, World

    if level == "score":
        cases = [Case(Population([0.0, 1.0], np.ones((2, 2))), change="explicit: S = (0, 1), everyone similar"),
                 Case(Population([0.0, 0.0], np.eye(2)), change="explicit: S = 0, nobody similar")]
        # Every size up to the largest drawn, at the extremes and at the values measures treat
        # specially (0, ½, 1): a flaw at one m or one special value is tried, not hoped for.
        for m in range(3, _LARGEST + 1):
            half = (np.arange(m) >= m // 2).astype(float)
            cases += [Case(Population(half, np.ones((m, m))),
                           change=f"explicit: m = {m}, S half 0 and half 1, everyone similar"),
                      Case(Population(np.zeros(m), np.eye(m)), change=f"explicit: m = {m}, S = 0, nobody similar"),
                      Case(Population(np.linspace(0.0, 1.0, m), np.full((m, m), 0.5)),
                           change=f"explicit: m = {m}, S evenly spread, every similarity ½")]
        return cases
    # Two users, each list made of the other's relevant items: maximal envy.
    swapped = World(np.array([[1.0, 0, 0, 0], [0, 0, 1.0, 0]]), np.array([[0, 0, 1.0, 1.0], [1.0, 1.0, 0, 0]]),
                    [[0, 1], [2, 3]], np.eye(4))
    return [Case(W.derive(swapped), change="explicit: each user's list holds only the other's relevant items")]


EXPLICIT = {"range": _explicit_single, "defined": _explicit_single}
CASES = {
    "range": single,
    "defined": single,
    "anonymity": anonymity,
    "zero-at-equality": zero_at_equality,
    "disparity-monotone": disparity_monotone,
    "pigou-dalton": pigou_dalton,
    "similarity-monotone": similarity_monotone,
    "similarity-sensitive": similarity_sensitive,
    "effectiveness-sensitive": effectiveness_sensitive,
    "similarity-zero": similarity_zero,
    "rearrangement": rearrangement,
    "replication-invariance": replication,
}
