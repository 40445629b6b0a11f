"""The suite hands out its costliest files first, so that none runs alone at the end of a run."""

import pathlib
from types import SimpleNamespace

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_every_costliest_file_exists(file_order):
    listed, _ = file_order
    assert len(set(listed)) == len(listed)
    assert [name for name in listed if not (ROOT / name).is_file()] == []


def test_the_costliest_files_come_first_then_the_others_by_their_number_of_tests(file_order):
    listed, order = file_order
    costly, second = listed[0], listed[1]
    tests = [
        ("tests/test_small.py", "a"),
        (second, "a"),
        ("puf/many.py", "a"),
        (costly, "a"),
        ("puf/many.py", "b"),
        (second, "b"),
        ("tests/test_small.py", "b"),
        ("puf/many.py", "c"),
        ("tests/test_one.py", "a"),
    ]
    items = [SimpleNamespace(path=ROOT / name, name=test) for name, test in tests]
    order(items, ROOT)
    found = [(str(item.path.relative_to(ROOT)), item.name) for item in items]
    assert found == [
        (costly, "a"),
        (second, "a"),
        (second, "b"),
        ("puf/many.py", "a"),
        ("puf/many.py", "b"),
        ("puf/many.py", "c"),
        ("tests/test_small.py", "a"),
        ("tests/test_small.py", "b"),
        ("tests/test_one.py", "a"),
    ]
