"""Shrinking moves every value the example shows towards 0, ½, 1 and short decimals: a user's
effectiveness and each entry of a pair field the measure reads (similarity, utility), as long as
the property still fails the same way; the entries of a user the change touches stay."""

import numpy as np
import pytest

from puf import Population, as_measure
from puf.properties import get_property
from puf.properties.cases.case import Case
from puf.properties.running.runner import MEASURE_CALLS
from puf.properties.running.search import Found, PropertySearch
from puf.properties.running.shrink import shrink


def _shrunk(measure, prop, case):
    search = PropertySearch(
        as_measure(measure),
        get_property(prop),
        measure_calls=MEASURE_CALLS,
        max_examples=5,
        time_limit=2.0,
        time_budget=60.0,
    )
    with pytest.raises(Found):
        search.check(case)
    assert shrink(search)
    return search


def _pair_field(m, seed, *, symmetric):
    rng = np.random.default_rng(seed)
    field = np.round(rng.uniform(0.55, 0.95, size=(m, m)), 3)
    return np.triu(field, 1) + np.triu(field, 1).T + np.eye(m) if symmetric else field


def test_similarity_entries_move_towards_0_and_1():
    def twice_the_closest_pair(similarity):
        sim = np.asarray(similarity)
        return float(2 * sim[~np.eye(len(sim), dtype=bool)].max())  # above 1 once a pair is over ½

    pop = Population(np.full(5, 0.3), _pair_field(5, 0, symmetric=True))
    example = _shrunk(twice_the_closest_pair, "range", Case(pop)).failure[1]
    assert example["before"]["similarity"] == [[1.0, 1.0], [1.0, 1.0]]


def test_utility_entries_move_towards_simple_values():
    def twice_the_mean_utility(utility):
        return float(2 * np.mean(utility))  # above 1 once the mean utility is over ½

    pop = Population(np.zeros(4), np.eye(4), utility=_pair_field(4, 1, symmetric=False))
    example = _shrunk(twice_the_mean_utility, "range", Case(pop)).failure[1]
    utility = np.asarray(example["before"]["utility"])
    assert utility.shape == (2, 2) and set(np.unique(utility)) <= {0.0, 0.5, 1.0}
    assert 2 * utility.mean() > 1


def test_the_pair_a_change_touches_keeps_its_similarity():
    """similarity-monotone raises the similarity of users 0 and 1: their entries stay as drawn,
    the entry of two users it leaves alone moves."""

    def falls_with_similarity(effectiveness, similarity):
        s, sim = np.asarray(effectiveness), np.asarray(similarity)
        if len(s) < 4:
            return 0.0  # planted: its smallest failing m is 4
        return float(np.abs(s[:, None] - s[None, :]).max() * (1 - sim[0, 1]))  # fairer as sim(0, 1) rises

    sim = _pair_field(5, 2, symmetric=True)
    sim[0, 1] = sim[1, 0] = 0.25
    raised = sim.copy()
    raised[0, 1] = raised[1, 0] = 0.75
    s = np.array([0.2, 0.9, 0.4, 0.6, 0.3])
    case = Case(Population(s, sim), Population(s, raised), "similarity of users 0 and 1 raised")
    example = _shrunk(falls_with_similarity, "similarity-monotone", case).failure[1]
    before, after = np.asarray(example["before"]["similarity"]), np.asarray(example["after"]["similarity"])
    assert before.shape == (4, 4)
    assert (before[0, 1], after[0, 1]) == (0.25, 0.75)  # the pair the change raises
    assert before[0, 2] == sim[0, 2] and before[1, 3] == sim[1, 3]  # rows of users it touches
    assert before[2, 3] == after[2, 3] == 0.0  # two users it leaves alone, the measure blind to them


def test_a_single_population_keeps_the_values_of_its_premise():
    """zero-at-equality's population has every S equal: no value of it moves, so the example
    shown is still a case of the property (float16 rounds the SD of three equal 0.35 to 2.4e-4)."""

    def sd_in_half_precision(effectiveness):
        return float(np.std(np.asarray(effectiveness, dtype=np.float16)))

    example = _shrunk(sd_in_half_precision, "zero-at-equality", Case(Population(np.full(3, 0.35), np.eye(3))))
    assert example.failure[1]["before"]["effectiveness"] == [0.35, 0.35, 0.35]


def test_a_change_that_acts_on_each_user_alone_loses_users():
    """Every user is moved by an equal addition, and each alone: any user leaves both populations,
    so a find at m = 20 shrinks to m = 2 (the mean rises by c, which equal-additions forbids)."""
    before = Population(np.round(np.linspace(0.1, 0.6, 20) * 2**20) / 2**20, np.eye(20))
    case = Case(before, before.replace(effectiveness=before.effectiveness + 0.25), "c = 0.25 added to every S")
    example = _shrunk(lambda effectiveness: float(np.mean(effectiveness)), "equal-additions", case).failure[1]
    assert len(example["before"]["effectiveness"]) == 2
    assert np.allclose(np.subtract(example["after"]["effectiveness"], example["before"]["effectiveness"]), 0.25)


def test_a_find_that_fails_only_at_some_sizes_reaches_the_smallest():
    """Users leave in blocks of half, a quarter, ... before one at a time: a flaw planted at
    m = 5 and 10 alone (none at 6-9) is shown at m = 5, where removing one user at a time from 10
    stops at once, both for a single population and for an equal addition."""

    def flawed_at_five_and_ten(effectiveness):
        s = np.asarray(effectiveness, dtype=float)
        return float(np.std(s) + 0.5 * np.mean(s) * (len(s) % 5 == 0))

    before = Population(np.full(10, 0.4), np.eye(10))
    equal = _shrunk(flawed_at_five_and_ten, "zero-at-equality", Case(before)).failure[1]
    assert equal["before"]["effectiveness"] == [0.4] * 5
    added = Case(before, before.replace(effectiveness=before.effectiveness + 0.25), "c = 0.25 added to every S")
    example = _shrunk(flawed_at_five_and_ten, "equal-additions", added).failure[1]
    assert example["before"]["effectiveness"] == [0.4] * 5 and example["after"]["effectiveness"] == [0.65] * 5
    assert example["change"].endswith("(shrunk from m = 10: users removed)")  # (each moved: none was left alone)


def _headcount(effectiveness):
    """Sen's headcount ratio at the line ½: widening gaps lifts users over it, so it can fall."""
    return float(np.mean(np.asarray(effectiveness) < 0.5))


def _widening(after, c, mu):
    """A disparity-monotone case: S = c + μ(S′ − c) before, S′ after, as the strategy says it."""
    lam = "∞ (from S = c)" if mu == 0 else f"1/{mu:g}"
    s = np.asarray(after, dtype=float)
    m = len(s)
    before = Population(c + mu * (s - c), np.eye(m))
    return Case(before, before.replace(effectiveness=s), f"every gap S(u) − c scaled by λ = {lam} around c = {c:g}")


def test_a_widening_loses_users_while_its_centre_stays_in_their_range():
    """Gaps widened about a centre c move every user, each alone: users leave both populations as
    long as c stays inside the range of the users left. Here c is the lowest S′, so that user
    (the change leaves it alone) stays; the find of 12 users is shown at m = 2."""
    after = [0.1, 0.2, 0.3, 0.35, 0.4, 0.45, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0]
    example = _shrunk(_headcount, "disparity-monotone", _widening(after, 0.1, 0.0)).failure[1]
    s_before, s_after = example["before"]["effectiveness"], example["after"]["effectiveness"]
    assert len(s_before) == 2 and s_before == [0.1, 0.1] and min(s_after) == 0.1 and max(s_after) >= 0.5
    assert "around c = 0.1 (shrunk from m = 12: users removed" in example["change"]


def test_no_step_takes_a_find_outside_its_statement():
    """Moving the value of the user at the centre (both populations: the change leaves it alone)
    would leave a widening about another centre and factor than the text says; removing the users
    that hold the centre in range would leave none. Neither step is taken: every shrunk case still
    meets the strategy's precondition, its text included."""
    from puf.properties.cases.preconditions import precondition_of

    prop = get_property("disparity-monotone")
    after = [0.26, 0.3, 0.7, 0.8, 0.9]
    search = _shrunk(_headcount, "disparity-monotone", _widening(after, 0.26, 0.0))
    precondition_of(prop.cases)(search.failure_case, "score", search.measure)  # raises if outside
    assert search.failure[1]["before"]["effectiveness"][0] == 0.26  # not moved to ½ or 0


def _raises_without_a_similar_user(effectiveness, similarity):
    """A PUF that is undefined (raises) where a user is similar to no other user."""
    s, sim = np.asarray(effectiveness, dtype=float), np.array(similarity, dtype=float)
    np.fill_diagonal(sim, 0.0)
    if (sim.sum(axis=1) == 0).any():
        raise ValueError("a user has no similar user")
    m = len(s)
    return float((sim * np.abs(s[:, None] - s[None, :])).sum() / (m * (m - 1)))


def test_users_similar_only_among_themselves_leave_together():
    """Five pairs of similar users, a transfer between users 0 and 8 that widens both their pairs'
    gaps: removing any one user of a pair the change leaves alone leaves its partner similar to
    no one, where the measure raises; each pair leaves whole, so the find is shown at m = 4."""
    pairs = [(0, 2), (1, 4), (3, 6), (5, 7), (8, 9)]
    similarity = np.eye(10)
    for u, v in pairs:
        similarity[u, v] = similarity[v, u] = 1.0
    s = np.array([0.0, 0.3, 0.0, 0.3, 0.3, 0.3, 0.3, 0.3, 1.0, 1.0])
    before = Population(s, similarity)
    after = before.replace(effectiveness=np.where(np.isin(np.arange(10), [0, 8]), 0.5, s))
    case = Case(before, after, "transfer: S(0), S(8) moved towards each other by 0.5 of their gap")
    example = _shrunk(_raises_without_a_similar_user, "pigou-dalton", case).failure[1]
    assert example["before"]["effectiveness"] == [0.0, 0.0, 1.0, 1.0]
    assert example["before"]["similarity"] == np.kron(np.eye(2), np.ones((2, 2))).tolist()
    assert example["change"] == (
        "transfer: S(0), S(2) moved towards each other by 0.5 of their gap "
        "(shrunk from m = 10: users the change leaves alone removed)"
    )


def test_a_similarity_replaced_whole_loses_users_and_values():
    """Replacing the similarity matrix moves every pair, each alone: any user leaves both
    populations, and the effectiveness the change leaves as it was moves, so a witness of
    similarity-sensitive found at m = 6 is shown at m = 2."""
    s = np.array([0.27, 0.04, 0.81, 0.91, 0.6, 0.73])
    before = Population(s, _pair_field(6, 2, symmetric=True))
    case = Case(before, before.replace(similarity=np.ones((6, 6))), "similarity matrix replaced, effectiveness fixed")
    example = _shrunk(_raises_without_a_similar_user, "similarity-sensitive", case).failure[1]
    assert len(example["before"]["effectiveness"]) == 2 and example["after"]["similarity"] == [[1.0, 1.0], [1.0, 1.0]]
    assert set(example["before"]["effectiveness"]) == {0.0, 1.0}
    assert example["change"].startswith(
        "similarity matrix replaced, effectiveness fixed (shrunk from m = 6: users removed"
    )


def test_a_change_that_names_its_users_keeps_them():
    """History items added to users 2 and 3 change their similarity with everyone, so every user
    is touched; the users the text names stay, any other leaves both populations, and the text is
    numbered as the users left are."""
    from puf.properties.running.shrink import _smaller

    before = Population([0.2, 0.5, 0.9, 0.4], np.eye(4))
    raised = before.similarity.copy()
    raised[2, :2] = raised[:2, 2] = raised[3, :3] = raised[:3, 3] = 0.25
    prop = get_property("similarity-sensitive")
    named = Case(before, before.replace(similarity=raised), "1 shared history item(s) added to users 2 and 3")
    assert _smaller(prop, named, 2) is None and _smaller(prop, named, 3) is None
    smaller = _smaller(prop, named, 0)
    assert smaller is not None and smaller.before.m == 3
    assert smaller.change == "1 shared history item(s) added to users 1 and 2"
    assert _smaller(prop, smaller, 1) is None and _smaller(prop, smaller, 0) is not None
    unnamed = Case(before, before.replace(similarity=raised), "similarity matrix replaced, effectiveness fixed")
    assert _smaller(prop, unnamed, 2) is not None


def test_a_rescaling_among_a_propertys_other_changes_loses_users():
    """lorenz-consistency's changes act on users together (a transfer), but its rescaling alone
    acts on each user alone (``Case.entrywise``): a find "P halved, then every S × 2" of a measure
    that reads a spread above ½ shrinks from m = 30 to m = 2; a transfer's users stay."""
    from puf.properties.running.shrink import _smaller

    s = np.linspace(0.01, 0.45, 30)
    before = Population(s, np.eye(30))
    scaled = Case(before, before.replace(effectiveness=2 * s), "P halved, then every S × 2", entrywise=True)
    example = _shrunk(lambda effectiveness: float(np.ptp(effectiveness) > 0.5), "lorenz-consistency", scaled)
    assert len(example.failure[1]["before"]["effectiveness"]) == 2
    moved = s.copy()
    moved[[0, 29]] = s[0] + 0.25 * (s[29] - s[0]), s[29] - 0.25 * (s[29] - s[0])
    transfer = Case(before, before.replace(effectiveness=moved), "1 progressive transfer, then every S × 1")
    assert _smaller(get_property("lorenz-consistency"), transfer, 0) is None
