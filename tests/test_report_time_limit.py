"""``puf report --time-limit`` governs every call of a measure the report makes: the sweeps',
the property verdicts' and the designed measures' search, with the one default of every command."""

import contextlib

import pytest

import puf.reports.report as report_module
from puf.cli import main
from puf.properties.running.budget import DEFAULT_TIME_LIMIT


class _Stop(Exception):
    """Raised by a stand-in once it has seen what it was given: nothing more need run."""


@pytest.fixture
def built(monkeypatch):
    """The options ``puf report`` hands to ``build_report``."""
    given = {}

    def build_report(out, **options):
        given.update(options)
        raise ValueError("stopped: the options were recorded")

    monkeypatch.setattr(report_module, "build_report", build_report)
    return given


@pytest.mark.parametrize("option, limit", [([], DEFAULT_TIME_LIMIT), (["--time-limit", "0.7"], 0.7)])
def test_the_command_hands_its_limit_to_the_whole_report(built, tmp_path, capsys, option, limit):
    code = main(["report", "--quick", "--quiet", "--out", str(tmp_path / "r"), *option])
    assert code == 2 and "stopped: the options were recorded" in capsys.readouterr().err
    assert built["time_limit"] == limit


def test_a_bad_limit_is_refused_before_any_work(built, tmp_path, capsys):
    assert main(["report", "--quick", "--quiet", "--out", str(tmp_path / "r"), "--time-limit", "0"]) == 2
    assert "--time-limit must be a finite number of seconds > 0, got 0.0" in capsys.readouterr().err
    assert not built


def test_the_verdicts_run_at_the_reports_limit(monkeypatch, tmp_path):
    from puf import properties

    given = {}

    @contextlib.contextmanager
    def verdicts_in_background(measures, **options):
        given.update(options)
        raise _Stop
        yield  # a generator, as the real one is

    monkeypatch.setattr(properties, "verdicts_in_background", verdicts_in_background)
    with pytest.raises(_Stop):
        report_module.build_report(tmp_path, quick=True, time_limit=0.7)
    assert given["time_limit"] == 0.7


def test_the_designed_measures_run_at_the_reports_limit(monkeypatch, tmp_path):
    import puf.reports.design as design_module

    given = {}

    def design_section(out, **options):
        given.update(options)
        return "section"

    monkeypatch.setattr(design_module, "design_section", design_section)
    sections = report_module._designed(tmp_path, {"require": ["range"]}, 5, 0, False, 0.7)
    assert sections == ["section"] and given["time_limit"] == 0.7


def test_a_slow_measure_times_out_in_the_verdicts_at_the_given_limit():
    """What the limit does there: a call over it makes the verdict undefined, naming it."""
    import time

    from puf.properties import all_verdicts

    def slow(effectiveness):
        time.sleep(0.5)
        return float(max(effectiveness))

    (verdict,) = all_verdicts([slow], properties=["range"], max_examples=1, time_limit=0.2)
    assert verdict.status == "undefined" and verdict.reason.startswith("timed out after 0.2 s")
