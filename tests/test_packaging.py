"""Packaging: one import namespace (``puf.*``) that a researcher's own modules cannot shadow."""

import pathlib
import subprocess
import sys
import textwrap
import tomllib

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent
FOLDERS = {
    "puf": "puf",
    "puf.synthetic": "synthetic",
    "puf.properties": "properties",
    "puf.reports": "reports",
    "puf.cli": "cli",
}


def test_every_package_folder_is_installed_under_puf():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert config["package-dir"] == {k: v for k, v in FOLDERS.items() if k != "puf"}
    on_disk = set()
    for name, folder in FOLDERS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder).parts
            on_disk.add(".".join((name, *relative)))
    assert set(config["packages"]) == on_disk


@pytest.fixture
def shadowing_folder(tmp_path):
    """A researcher's folder holding its own synthetic.py, properties.py, reports.py and cli.py."""
    for name in ("synthetic", "properties", "reports", "cli"):
        (tmp_path / f"{name}.py").write_text(f"raise ImportError('the user\\'s own {name}.py')\n")
    (tmp_path / "mine.py").write_text(
        textwrap.dedent("""
        import numpy as np

        def gap(effectiveness):
            return float(np.max(effectiveness) - np.min(effectiveness))
        """)
    )
    return tmp_path


def _run(args, cwd):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True, timeout=600)


def test_puf_check_ignores_the_users_own_modules(shadowing_folder):
    result = _run(
        ["-m", "puf.cli", "check", "mine:gap", "--max-examples", "3", "--property", "range"], shadowing_folder
    )
    assert result.returncode == 0, result.stderr
    assert "range" in result.stdout


def test_pytest_measure_ignores_the_users_own_modules(shadowing_folder):
    result = _run(
        [
            "-m",
            "pytest",
            "-p",
            "no:cacheprovider",
            "--measure",
            "mine:gap",
            "--measure-max-examples",
            "3",
            "-k",
            "range and not arrangement and not attainable",
            "-q",
        ],
        shadowing_folder,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "passed" in result.stdout


@pytest.mark.parametrize("plugin", ["no:xdist", "xdist"])
def test_the_suite_collects_with_and_without_xdist(plugin):
    # xdist's options live in conftest.py, not addopts: a plain pytest without it must run.
    if plugin == "xdist":
        pytest.importorskip("xdist")
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", plugin, "--collect-only", "-q", "tests/test_grammar.py"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout + run.stderr
