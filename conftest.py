"""The suite's seal and Hypothesis settings profiles, for the whole suite (tests and doctests).

The seal: no test reads or writes the user's dataset cache, home or working folder. For the
run, ``HOME``, ``XDG_CACHE_HOME``, ``XDG_DATA_HOME`` and ``PUF_HARNESS_CACHE`` name
temporary folders (the dataset cache is one per run, shared by pytest-xdist's workers, and
filled from the pinned sources where a test needs a dataset), and an audit hook
(:func:`sys.addaudithook`) records every file a test opens for writing, creates, renames or
removes under the user's folders as they were: such a test fails, naming the path. Hypothesis keeps
its folder (the example database) in the run's temporary folder too.

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
from hypothesis.configuration import set_hypothesis_home_dir


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


# The files whose tests cost the most CPU seconds, costliest first (each file's CPU seconds in
# docs/benchmarks/performance.md, "The CI run"). They are collected, and so handed to
# pytest-xdist's workers, before every other file: handed out last, one of them would run alone
# at the end of the run while the other core idles.
COSTLIEST_FIRST = (
    "tests/test_properties_builtin.py",
    "tests/test_reports_report.py",
    "tests/test_properties_power.py",
    "tests/test_own_measure.py",
    "tests/test_proofs.py",
    "tests/test_hostile.py",
    "tests/test_reports_real.py",
    "tests/test_figure_text.py",
    "tests/test_measure_calls.py",
    "tests/test_design.py",
)


def costliest_first(items, root):
    """Sort ``items`` in place: the files of :data:`COSTLIEST_FIRST` in its order, then the other
    files by their number of tests, most first (pytest-xdist's own order), each file's tests kept
    together and in their order."""
    from collections import Counter

    files = [os.path.relpath(item.path, root).replace(os.sep, "/") for item in items]
    counts = Counter(files)
    rank = {name: (COSTLIEST_FIRST.index(name) if name in COSTLIEST_FIRST else len(COSTLIEST_FIRST)) for name in counts}
    order = sorted(range(len(items)), key=lambda i: (rank[files[i]], -counts[files[i]], files[i], i))
    items[:] = [items[i] for i in order]


def pytest_collection_modifyitems(config, items):
    """The costliest files first (:func:`costliest_first`), and the doctests that import torch
    skipped, saying why, where the ``neural`` extra is not installed.

    The torch test modules skip themselves the same way (``tests/test_rankers_neural.py``).
    """
    import importlib.util

    costliest_first(items, config.rootpath)
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
    one worker, computed once, and hands the files out in collection order (costliest first, not
    xdist's most tests first); ``--maxprocesses 4`` caps ``-n auto`` on large machines, where
    more workers each repeat those fixtures. An explicit ``--dist`` or ``--maxprocesses`` wins.
    Registered after xdist, this runs before xdist's own tryfirst hook, which turns ``-n`` into
    workers (and would set ``--dist load``).
    """
    if not config.pluginmanager.hasplugin("xdist"):
        return
    if config.option.dist == "no" and not config.option.distload:
        config.option.dist = "loadfile"
        config.option.loadscopereorder = False  # the files in collection order: costliest first
    if not config.option.maxprocesses:
        config.option.maxprocesses = 4


def _user_cache():
    """The dataset cache the user's runs use (the rule of ``puf.data.cache_dir``), before the seal."""
    if os.environ.get("PUF_HARNESS_CACHE"):
        return os.path.expanduser(os.environ["PUF_HARNESS_CACHE"])
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "puf-harness")


def _forms(path):
    return {os.path.abspath(path), os.path.realpath(path)}


class _Seal:
    """The audit hook's state: the user's folders, the temporary ones inside them, what was written."""

    user = {"home": os.path.expanduser("~"), "dataset cache": _user_cache(), "working folder": os.getcwd()}
    guarded = tuple(sorted(set().union(*map(_forms, user.values()))))
    allowed: tuple[str, ...] = ()
    active = False
    written: list[str] = []


# Events that change a file or folder: the positions of the paths they change, and of the
# folder descriptors those paths may be relative to (shutil.rmtree's inner steps; the
# rmtree itself is seen with its whole path).
_CHANGES = {
    "os.rename": ((0, 1), (2, 3)),
    "os.mkdir": ((0,), (2,)),
    "os.remove": ((0,), (1,)),
    "os.rmdir": ((0,), (1,)),
    "os.truncate": ((0,), ()),
    "os.symlink": ((1,), (2,)),
    "os.link": ((1,), (2, 3)),
    "os.chmod": ((0,), (2,)),
    "os.utime": ((0,), (3,)),
    "shutil.rmtree": ((0,), (1,)),
    "shutil.copyfile": ((1,), ()),
    "shutil.move": ((0, 1), ()),
}
_WRITING = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC


def _inside(path, folders):
    return any(path == folder or path.startswith(folder + os.sep) for folder in folders)


def _check(path):
    if isinstance(path, int) or path is None:
        return
    path = os.fsdecode(os.fspath(path))
    absolute = os.path.abspath(path)
    # Bytecode caches are the interpreter's, written on a module's first import.
    if "__pycache__" in absolute or _inside(absolute, _Seal.allowed):
        return
    if _inside(absolute, _Seal.guarded):
        _Seal.written.append(absolute)


def _audit(event, args):
    if not _Seal.active:
        return
    if event == "open":
        if len(args) == 3 and isinstance(args[2], int) and args[2] & _WRITING:
            _check(args[0])
    elif event in _CHANGES:
        paths, folders = _CHANGES[event]
        if any(isinstance(args[i], int) and args[i] >= 0 for i in folders if i < len(args)):
            return
        for position in paths:
            _check(args[position])


sys.addaudithook(_audit)


def _shared_temporary(factory):
    """A folder for the whole run: pytest-xdist's workers share their controller's base folder."""
    base = factory.getbasetemp()
    return base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base


@pytest.fixture(scope="session", autouse=True)
def _sealed_run(tmp_path_factory):
    """Point the user's folders at temporary ones for the test run; the hook watches the real ones."""
    import tempfile

    own = tmp_path_factory.mktemp("sealed")
    cache = _shared_temporary(tmp_path_factory) / "puf-harness-cache"
    cache.mkdir(exist_ok=True)
    patch = pytest.MonkeyPatch()
    patch.setenv("HOME", str(own / "home"))
    patch.setenv("XDG_CACHE_HOME", str(own / "home" / ".cache"))
    patch.setenv("XDG_DATA_HOME", str(own / "home" / ".local" / "share"))
    patch.setenv("MPLCONFIGDIR", str(own / "matplotlib"))
    patch.setenv("PUF_HARNESS_CACHE", str(cache))
    set_hypothesis_home_dir(str(own / "hypothesis"))
    temporary = _forms(tempfile.gettempdir()) | _forms(tmp_path_factory.getbasetemp()) | _forms(cache)
    _Seal.allowed = tuple(sorted(temporary))
    try:
        yield cache
    finally:
        patch.undo()


@pytest.fixture(autouse=True)
def _no_writes_outside(_sealed_run):
    """Fail a test that wrote in the user's dataset cache, home or working folder, naming the paths."""
    _Seal.written.clear()
    _Seal.active = True
    try:
        yield
    finally:
        _Seal.active = False
    if _Seal.written:
        paths = sorted(set(_Seal.written))
        _Seal.written.clear()
        pytest.fail(f"the test wrote outside its temporary folders: {', '.join(paths[:5])}", pytrace=False)


@pytest.fixture
def file_order():
    """The order the suite's files are handed out in: :data:`COSTLIEST_FIRST` and :func:`costliest_first`."""
    return COSTLIEST_FIRST, costliest_first


@pytest.fixture
def seal():
    """The seal's state (its watched folders and what it recorded), for the test of the seal itself."""
    return _Seal
