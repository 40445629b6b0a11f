"""The disk cache of trained rankers' lists: a damaged entry counts as absent."""

import numpy as np
import pytest

from puf.rankers.cache import load_run, save_run


def test_round_trip(tmp_path):
    save_run(tmp_path, "x.npz", np.array([[3, 1, -1]]), {"seconds": 2.0, "epochs": 4})
    rankings, facts = load_run(tmp_path, "x.npz")
    assert rankings.dtype == np.int64 and rankings.tolist() == [[3, 1, -1]]
    assert facts == {"seconds": 2.0, "epochs": 4}


@pytest.mark.parametrize("damage", ["truncated", "garbage", "empty"])
def test_damaged_entry_counts_as_absent(tmp_path, damage):
    save_run(tmp_path, "x.npz", np.arange(200).reshape(20, 10), {"seconds": 1.0})
    path = tmp_path / "x.npz"
    whole = path.read_bytes()
    path.write_bytes({"truncated": whole[: len(whole) // 2], "garbage": b"not a zip at all", "empty": b""}[damage])
    assert load_run(tmp_path, "x.npz") is None
