"""Preprocessing: threshold, repeated k-core, per-user time-ordered split, index maps."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puf.data import SplitDataset, genre_features, kcore, load_atomic, preprocess, split_by_time


def reference_kcore(rows, core):
    """Plain loop: drop under-core users and items until nothing changes."""
    rows = list(rows)
    while True:
        users = pd.Series([u for u, _ in rows]).value_counts()
        items = pd.Series([i for _, i in rows]).value_counts()
        kept = [(u, i) for u, i in rows if users[u] >= core and items[i] >= core]
        if len(kept) == len(rows):
            return kept
        rows = kept


interactions = st.lists(st.tuples(st.integers(0, 7), st.integers(0, 7)), max_size=60)


@settings(deadline=None)
@given(rows=interactions, core=st.integers(1, 4))
def test_kcore_matches_reference_and_holds(rows, core):
    frame = pd.DataFrame(rows, columns=["user_id", "item_id"], dtype=np.int64)
    result = kcore(frame, core=core)
    assert sorted(map(tuple, result.to_numpy().tolist())) == sorted(reference_kcore(rows, core))
    if len(result):
        assert result["user_id"].value_counts().min() >= core
        assert result["item_id"].value_counts().min() >= core


@settings(deadline=None)
@given(rows=interactions, core=st.integers(1, 4))
def test_kcore_mask_keeps_the_reference_rows_in_place(rows, core):
    from puf.data.preprocessing import kcore_mask

    users = np.array([u for u, _ in rows], dtype=np.int64)
    items = np.array([i for _, i in rows], dtype=np.int64)
    mask = kcore_mask(users, items, core=core)
    assert mask.dtype == bool and mask.shape == (len(rows),)
    assert sorted(r for r, keep in zip(rows, mask) if keep) == sorted(reference_kcore(rows, core))


def test_kcore_mask_refuses_what_is_not_codes():
    from puf.data.preprocessing import kcore_mask

    with pytest.raises(ValueError, match="one length, got shapes \\(2,\\) and \\(1,\\)"):
        kcore_mask([0, 1], [0])
    with pytest.raises(ValueError, match="integer arrays"):
        kcore_mask([0.5], [0])
    with pytest.raises(ValueError, match="codes >= 0, got -1"):
        kcore_mask([0, -1], [0, 0])


def test_kcore_drops_rows_with_a_missing_id_before_counting():
    # The row of the missing user would lift item y to 2 interactions.
    frame = pd.DataFrame({"user_id": ["a", "a", "b", "b", None], "item_id": ["x", "y", "x", "z", "y"]})
    assert kcore(frame, core=2)["user_id"].tolist() == []
    assert kcore(frame.iloc[:4], core=1).index.tolist() == [0, 1, 2, 3]


def test_kcore_needs_repetition():
    # user c has 2 items; dropping c leaves item z with one user, which then drops too,
    # which leaves user b with one item: one pass would not reach the 2-core.
    frame = pd.DataFrame({"user_id": list("aabbcc"), "item_id": list("xyxzzw")})
    assert kcore(frame, core=2)["user_id"].tolist() == []
    frame = pd.DataFrame({"user_id": list("aabbcd"), "item_id": list("xyxyzz")})
    assert kcore(frame, core=2)["user_id"].tolist() == list("aabb")


@pytest.mark.parametrize(
    "n, expected",
    [
        # RecBole: valid = floor(0.2 n), test = floor(0.2 n); a share below one item still gets one
        (1, (1, 0, 0)),
        (2, (1, 0, 1)),
        (3, (1, 1, 1)),
        (4, (2, 1, 1)),
        (5, (3, 1, 1)),
        (7, (5, 1, 1)),
        (10, (6, 2, 2)),
        (14, (10, 2, 2)),
        (15, (9, 3, 3)),
    ],
)
def test_split_sizes_follow_recbole(n, expected):
    frame = pd.DataFrame({"user_id": ["u"] * n, "timestamp": np.arange(n)[::-1]})
    labels = split_by_time(frame)
    assert tuple((labels == s).sum() for s in ("train", "valid", "test")) == expected


def test_split_orders_by_time_with_file_order_for_ties():
    frame = pd.DataFrame({"user_id": ["u"] * 5, "timestamp": [3, 1, 3, 0, 3]})
    # time order: rows 3 (t0), 1 (t1), then 0, 2, 4 (t3, file order): train 3,1,0; valid 2; test 4
    assert split_by_time(frame).tolist() == ["train", "train", "valid", "train", "test"]


@pytest.mark.parametrize("ratios", [(0.5, 0.5), (0, 1, 1), (1, -1, 1), (0, 0, 0)])
def test_split_rejects_bad_ratios(ratios):
    frame = pd.DataFrame({"user_id": ["u"], "timestamp": [0]})
    with pytest.raises(ValueError, match="ratios must be three non-negative numbers"):
        split_by_time(frame, ratios=ratios)


def random_interactions(seed, users=40, items=30, size=900):
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "user_id": rng.integers(0, users, size).astype(str),
            "item_id": rng.integers(0, items, size).astype(str),
            "rating": rng.integers(1, 6, size).astype(float),
            "timestamp": rng.integers(0, 50, size).astype(float),
        }
    )
    return frame.drop_duplicates(["user_id", "item_id"], ignore_index=True)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_preprocess_invariants(seed):
    raw = random_interactions(seed)
    data = preprocess(raw)
    parts = [data.train, data.valid, data.test]
    everything = pd.concat(parts, ignore_index=True)
    # relevance threshold
    assert (everything["rating"] >= 3).all()
    # the k-core held before users were dropped for short training histories
    kept = kcore(raw[raw["rating"] >= 3], core=5)
    assert set(zip(everything["user_id"], everything["item_id"])) <= set(zip(kept["user_id"], kept["item_id"]))
    # every kept user has >= 5 training interactions and a test interaction
    if data.n_users:
        assert data.train.groupby("user").size().min() >= 5
        assert set(data.test["user"]) == set(range(data.n_users))
    # splits disjoint
    keys = [set(zip(p["user"], p["item"])) for p in parts]
    assert not (keys[0] & keys[1]) and not (keys[0] & keys[2]) and not (keys[1] & keys[2])
    # time order per user: train <= valid <= test
    latest = data.train.groupby("user")["timestamp"].max()
    for later in (data.valid, data.test):
        earliest = later.groupby("user")["timestamp"].min()
        assert (latest.reindex(earliest.index) <= earliest).all()
    # index maps agree with the external ids
    for part in parts:
        assert (data.users[part["user"]] == part["user_id"].astype(str).to_numpy()).all()
        assert (data.items[part["item"]] == part["item_id"].astype(str).to_numpy()).all()


def test_preprocess_hand_example():
    # user a: 8 items rated >= 3 (one rated 2 is dropped) -> 6 / 1 / 1 by time;
    # user b: 6 items -> 4 / 1 / 1, fewer than 5 training items -> b dropped everywhere.
    a = pd.DataFrame(
        {
            "user_id": "a",
            "item_id": [f"i{j}" for j in range(9)],
            "rating": [5, 4, 3, 5, 4, 3, 5, 4, 2.0],
            "timestamp": range(9, 0, -1),
        }
    )
    b = pd.DataFrame({"user_id": "b", "item_id": [f"i{j}" for j in range(6)], "rating": 5.0, "timestamp": range(6)})
    data = preprocess(pd.concat([a, b]), core=1)
    assert data.users.tolist() == ["a"]
    assert data.test["item_id"].tolist() == ["i0"]  # latest
    assert data.valid["item_id"].tolist() == ["i1"]
    assert sorted(data.train["item_id"]) == ["i2", "i3", "i4", "i5", "i6", "i7"]
    assert data.params == {"threshold": 3.0, "core": 1, "ratios": (0.6, 0.2, 0.2), "min_train": 5}


def test_numeric_ids_sort_naturally_and_matrix_is_binary():
    frame = pd.DataFrame(
        {
            "user_id": ["10", "10", "9", "9", "10"],
            "item_id": ["2", "11", "2", "11", "2"],
            "rating": 5.0,
            "timestamp": [1, 2, 1, 2, 3],
        }
    )
    data = preprocess(frame, core=1, ratios=(1, 0, 0), min_train=1)
    assert data.users.tolist() == ["9", "10"] and data.items.tolist() == ["2", "11"]
    train = data.matrix("train")
    assert train.dtype == np.float64 and train.toarray().tolist() == [[1, 1], [1, 1]]
    assert data.matrix("train", values="rating").toarray().tolist() == [[5, 5], [10, 5]]
    with pytest.raises(ValueError, match="split must be one of"):
        data.matrix("training")


def test_ids_of_any_length_are_tokens_in_natural_order(tmp_path):
    """20-digit ids (hashes) and ids past 2**64 sort as numbers without overflowing; leading zeros tie stably."""
    big = [str(2**63), str(2**64 + 5), "18446744073709551616", "7", "0012", "12"]
    rows = [f"{u}\t{i}\t5\t{t}" for t, u in enumerate(big) for i in ("3", str(10**30))]
    inter = tmp_path / "hashes.inter"
    inter.write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n")
    data = load_atomic(inter, core=1, ratios=(1, 0, 0), min_train=1)
    assert data.users.tolist() == ["7", "0012", "12", str(2**63), "18446744073709551616", str(2**64 + 5)]
    assert data.items.tolist() == ["3", str(10**30)]
    assert data.matrix("train").sum() == len(rows)


def test_implicit_data_without_rating_or_time():
    frame = pd.DataFrame({"user_id": ["u"] * 10, "item_id": [str(i) for i in range(10)]})
    data = preprocess(frame, core=1)
    assert (len(data.train), len(data.valid), len(data.test)) == (6, 2, 2)
    assert data.test["item_id"].tolist() == ["8", "9"]  # file order is time order


def test_missing_column_is_named():
    with pytest.raises(ValueError, match="interactions has no column 'item_id'"):
        preprocess(pd.DataFrame({"user_id": ["u"]}))


def test_load_atomic_attaches_genres(tmp_path):
    inter = tmp_path / "toy.inter"
    rows = [f"u{u}\ti{i}\t4\t{i}" for u in range(2) for i in range(8)]
    inter.write_text("user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n")
    item = tmp_path / "toy.item"
    item.write_text("item_id:token\tgenre:token_seq\ni0\tDrama War\ni1\tDrama\n")
    data = load_atomic(inter, item, core=2)
    assert isinstance(data, SplitDataset) and data.n_items == 8
    assert data.feature_names == ("(none)", "Drama", "War")
    assert data.item_features[:3].tolist() == [[0, 1, 1], [0, 1, 0], [1, 0, 0]]
    assert (data.item_features.sum(axis=1) >= 1).all()


def test_genre_features_from_space_separated_token_and_errors():
    table = pd.DataFrame({"item_id": ["a"], "genre": ["Action Sci-Fi"]})
    features, names = genre_features(["a"], table)
    assert names == ("Action", "Sci-Fi") and features.tolist() == [[1, 1]]
    with pytest.raises(ValueError, match="no genre column"):
        genre_features(["a"], pd.DataFrame({"item_id": ["a"], "title": ["x"]}))
