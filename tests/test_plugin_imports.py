"""`pytest --measure` loads and runs the harness without pytest's assertion rewriting (which would
parse Hypothesis again on every run where bytecode is not cached), while the test files pytest
collects in the same run keep their rewritten asserts."""

pytest_plugins = ["pytester"]

CONFTEST = """
import sys

def pytest_sessionfinish(session):
    rewritten = sorted(
        name for name, module in list(sys.modules.items())
        if name.split(".")[0] in ("hypothesis", "puf") and "@py_builtins" in vars(module)
    )
    print("rewritten harness modules:", len(rewritten), rewritten[:3])
"""


def test_the_harness_is_imported_plain_and_a_users_test_is_still_rewritten(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_mine="def test_lists():\n    assert [1, 2] == [1, 3]\n")
    result = pytester.runpytest_subprocess(
        "-s", "-p", "no:cacheprovider", "-p", "no:xdist", "--measure", "sd", "-k", "anonymity or lists", "test_mine.py"
    )
    result.stdout.fnmatch_lines(["*rewritten harness modules: 0 []*"])
    result.stdout.fnmatch_lines(["*At index 1 diff: 2 != 3*"])  # the user's assert, rewritten
    outcomes = result.parseoutcomes()
    assert outcomes.get("passed") == 1 and outcomes.get("failed") == 1, outcomes


FROZEN = """
import gc

def pytest_unconfigure(config):
    print("frozen objects:", gc.get_freeze_count() > 0)
"""


def test_a_run_of_property_checks_alone_freezes_its_heap_before_pytest_cleans_up(pytester):
    """pytest's cleanup collects the garbage five times; after property checks alone the objects
    left are the harness's, frozen so those collections skip them. A run with a user's test
    file keeps every collection."""
    pytester.makeconftest(FROZEN)
    pytester.makepyfile(test_mine="def test_ok():\n    assert True\n")
    alone = pytester.runpytest_subprocess(
        "-s", "-p", "no:cacheprovider", "-p", "no:xdist", "--measure", "sd", "-k", "anonymity"
    )
    alone.stdout.fnmatch_lines(["*frozen objects: True*"])
    mixed = pytester.runpytest_subprocess(
        "-s", "-p", "no:cacheprovider", "-p", "no:xdist", "--measure", "sd", "-k", "anonymity or ok", "test_mine.py"
    )
    mixed.stdout.fnmatch_lines(["*frozen objects: False*"])
    assert mixed.parseoutcomes().get("passed") == 2


def test_a_run_inside_another_leaves_its_heap_unfrozen(pytester):
    """Frozen for pytest's cleanup only: a run of property checks inside this process (pytester's
    in-process run) unfreezes the heap as it ends."""
    import gc

    pytester.makeconftest(FROZEN)
    result = pytester.runpytest("-s", "-p", "no:cacheprovider", "-p", "no:xdist", "--measure", "sd", "-k", "anonymity")
    result.stdout.fnmatch_lines(["*frozen objects: True*"])
    assert gc.get_freeze_count() == 0
