"""The suite is sealed: the user's dataset cache, home and working folder are out of its reach."""

import os
import pathlib

import pytest

from puf.data import cache_dir


def _under(path, folders):
    path = os.path.realpath(path)
    return any(path == f or path.startswith(f + os.sep) for f in folders)


def test_the_dataset_cache_and_home_are_temporary_folders(seal, tmp_path_factory):
    assert not _under(cache_dir(), seal.guarded)
    assert not _under(pathlib.Path.home(), seal.guarded)
    assert not _under(os.environ["XDG_CACHE_HOME"], seal.guarded)
    assert _under(cache_dir(), seal.allowed)


def test_a_write_in_the_user_folders_is_recorded_and_a_temporary_one_is_not(seal, tmp_path):
    # A path in a folder that does not exist: the open is seen by the hook and then fails, so
    # the user's folder is not touched by this test either.
    user = pathlib.Path(seal.guarded[0]) / "puf-no-such-folder" / "scores.csv"
    with pytest.raises(FileNotFoundError):
        open(user, "w")
    recorded = list(seal.written)
    seal.written.clear()  # else this test would fail for what it just did on purpose
    (tmp_path / "scores.csv").write_text("x")
    with open(os.devnull, "rb"):
        pass
    assert recorded == [os.path.abspath(user)] and seal.written == []


def test_the_user_folders_as_they_were_are_the_watched_ones(seal):
    assert set(seal.user) == {"home", "dataset cache", "working folder"}
    for folder in seal.user.values():
        assert os.path.realpath(folder) in seal.guarded
    assert os.path.realpath(pathlib.Path.home()) != os.path.realpath(seal.user["home"])
    assert os.path.realpath(cache_dir()) != os.path.realpath(seal.user["dataset cache"])
