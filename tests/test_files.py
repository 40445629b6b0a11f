"""Staged folders and locks (puf.files): nothing the user had is lost when a move fails."""

import os

import pytest

from puf import files


def test_old_files_that_cannot_be_moved_back_are_kept_and_named(tmp_path, monkeypatch, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    (out / "b.txt").write_text("old b")
    real = os.replace
    calls = []

    def failing(source, destination):
        calls.append((str(source), str(destination)))
        if len(calls) == 4:  # a.txt in, b.txt aside, then the new b.txt cannot go in
            raise OSError("disk full")
        if len(calls) > 4 and ".old-" in str(source):  # nor can the old files come back
            raise OSError("disk full")
        return real(source, destination)

    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(OSError) as raised:
        with files.staged_folder(out) as staging:
            (staging / "a.txt").write_text("new a")
            (staging / "b.txt").write_text("new b")
    kept = [p for p in out.iterdir() if ".old-" in p.name]  # staged inside the existing folder
    assert len(kept) == 1 and sorted(p.name for p in kept[0].iterdir()) == ["a.txt", "b.txt"]
    assert (kept[0] / "b.txt").read_text() == "old b"
    assert str(kept[0]) in "\n".join(getattr(raised.value, "__notes__", []))
    from cli import _report_failure

    assert _report_failure("report", raised.value) == 2
    assert str(kept[0]) in capsys.readouterr().err


def test_old_files_moved_back_leave_no_folder_aside(tmp_path, monkeypatch):
    out = tmp_path / "out"
    out.mkdir()
    (out / "a.txt").write_text("old a")
    real = os.replace
    calls = []

    def failing(source, destination):
        calls.append(source)
        if len(calls) == 2:
            raise OSError("disk full")
        return real(source, destination)

    monkeypatch.setattr(files.os, "replace", failing)
    with pytest.raises(OSError):
        with files.staged_folder(out) as staging:
            (staging / "a.txt").write_text("new a")
    assert (out / "a.txt").read_text() == "old a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out"]


def test_a_lock_file_removed_while_being_taken_is_taken_anew(tmp_path, monkeypatch):
    # The holder before us removes the file between our check and our stat: take it again.
    lock, seen = tmp_path / ".out.lock", []

    class Racing:
        def __getattr__(self, name):
            return getattr(os, name)

        def stat(self, path, *args, **kwargs):
            seen.append(path)
            if len(seen) == 1:
                raise FileNotFoundError(2, "No such file or directory", str(path))
            return os.stat(path, *args, **kwargs)

    monkeypatch.setattr(files, "os", Racing())
    with files.hold_lock(lock, what="output folder out"):
        assert lock.exists()
    assert not lock.exists() and len(seen) == 2


def test_a_run_that_waits_for_a_lock_says_so_once_naming_the_holder(tmp_path):
    import threading
    import time

    lock, taken, order = tmp_path / ".entry.lock", threading.Event(), []

    def first():
        with files.hold_lock(lock, what="run cache entry e", command="puf evaluate --rankers ease"):
            taken.set()
            time.sleep(0.3)
            order.append("first")

    thread = threading.Thread(target=first)
    thread.start()
    taken.wait(30)
    with pytest.warns(
        files.LockWait, match=r"run cache entry e is in use by pid \d+ \(puf evaluate --rankers ease\); waiting"
    ):
        with files.hold_lock(lock, what="run cache entry e", wait=True):
            order.append("second")
    thread.join(30)
    assert order == ["first", "second"]
