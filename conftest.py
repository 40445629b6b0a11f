"""Hypothesis settings profiles for the whole suite (tests and doctests).

``ci``: derandomized, no example database, no deadline, few examples; chosen
automatically when the environment variable ``CI`` is set. ``dev``: the
default for local runs. ``thorough``: long local runs
(``HYPOTHESIS_PROFILE=thorough pytest``). ``HYPOTHESIS_PROFILE`` always wins.
"""

import importlib
import importlib.abc
import importlib.util
import os
import sys

import pytest
from hypothesis import HealthCheck, settings


class _InstalledNames(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Import ``synthetic.x`` (and ``properties``, ``reports``, ``cli``) as the module ``puf.synthetic.x``.

    The folders install as ``puf.synthetic``, ``puf.properties``, ``puf.reports`` and ``puf.cli``, but
    ``--doctest-modules`` collects their files by path under the folder's own name. Without this,
    each module would exist twice (two registries, two classes of the same name).
    """

    PARTS = ("synthetic", "properties", "reports", "cli")

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self.PARTS:
            return importlib.util.spec_from_loader(fullname, self)
        return None

    def create_module(self, spec):
        return importlib.import_module(f"puf.{spec.name}")

    def exec_module(self, module):
        pass  # already executed under its installed name


sys.meta_path.insert(0, _InstalledNames())

settings.register_profile(
    "ci",
    derandomize=True,
    database=None,
    deadline=None,
    max_examples=25,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", deadline=None, max_examples=100)
settings.register_profile("thorough", deadline=None, max_examples=1000, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_collection_modifyitems(config, items):
    """Skip the doctests that import torch, saying why, where the ``neural`` extra is not installed.

    Their test modules skip themselves the same way (``tests/test_rankers_neural.py``).
    """
    import importlib.util

    if importlib.util.find_spec("torch") is not None:
        return
    skip = pytest.mark.skip(
        reason="torch is not installed (pip install torch==2.13.0, then pip install -e '.[neural]')"
    )
    neural = os.path.join("puf", "rankers", "neural")
    for item in items:
        examples = getattr(getattr(item, "dtest", None), "examples", ())
        if neural in str(item.path) and any("torch" in e.source for e in examples):
            item.add_marker(skip)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config):
    """pytest-xdist's scheduling, set only where it is installed, so a plain ``pytest`` runs without it.

    ``--dist loadfile`` keeps each file's module fixtures (the pinned matrix, the report) in
    one worker, computed once; ``--maxprocesses 4`` caps ``-n auto`` on large machines, where
    more workers each repeat those fixtures. An explicit ``--dist`` or ``--maxprocesses`` wins.
    Registered after xdist, this runs before xdist's own tryfirst hook, which turns ``-n`` into
    workers (and would set ``--dist load``).
    """
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.dist == "no" and not config.option.distload:
        config.option.dist = "loadfile"
    if not config.option.maxprocesses:
        config.option.maxprocesses = 4
