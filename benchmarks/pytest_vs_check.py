"""Time ``pytest --measure`` against ``puf check`` on the same measure and budget, side by side.

    python benchmarks/pytest_vs_check.py                       # a researcher's measure, budget 60
    python benchmarks/pytest_vs_check.py --measure sd --max-examples 30 --rounds 3

Both run the measure's whole row once per round in a fresh interpreter, in turns (check,
pytest, then pytest, check, ...), so that a change of the machine's load reaches both alike; the
default measure is a similarity-weighted gap written to a temporary folder, loaded from its
file as a user's would be. Prints each round's wall and CPU seconds (user + system, the run's
worker processes included), the medians and their ratios (pytest / check; on a loaded machine
the CPU ratio is the steadier one). The plugin computes a measure's row once, as ``puf check``
does, and loads and runs the harness without pytest's assertion rewriting (which, where bytecode
is not cached, ``PYTHONDONTWRITEBYTECODE``, would parse Hypothesis again on every run), and
freezes the harness's objects before pytest's cleanup collects the garbage five times, so the
ratio stays near 1: the rest is pytest's own start-up and reporting, a fixed cost that shows at
small budgets. Report ``uptime`` beside the numbers: on a shared machine, only ratios of runs
made side by side compare.
"""

import argparse
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

MEASURE = '''
import numpy as np


def gap(effectiveness, similarity):
    """Similarity-weighted mean squared gap over unordered pairs."""
    s = np.asarray(effectiveness)
    upper = np.triu_indices(len(s), 1)
    return float(np.mean(similarity[upper] * (s[:, None] - s[None, :])[upper] ** 2))
'''


def _cpu():
    """User + system seconds of this process's waited-for descendants (the run and its workers)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _timed(command, folder):
    """``(wall seconds, CPU seconds)`` of one run of ``command``."""
    start, cpu = time.perf_counter(), _cpu()
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):  # 1: a violated property (check) or a failed test (pytest)
        raise SystemExit(f"{' '.join(command)} ended with {done.returncode}:\n{done.stderr[-2000:]}")
    return seconds, _cpu() - cpu


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--measure", default=None, help="a spec or registered name (default: the gap above)")
    parser.add_argument("--max-examples", type=int, default=60)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        spec = args.measure
        if spec is None:
            (Path(folder) / "mymeasure.py").write_text(MEASURE, encoding="utf-8")
            spec = "mymeasure.py:gap"
        check = [sys.executable, "-m", "puf.cli", "check", spec, "--quiet", "--max-examples", str(args.max_examples)]
        plugin = [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            "-p",
            "no:cacheprovider",
            "-p",
            "no:xdist",
            "--measure",
            spec,
            "--measure-max-examples",
            str(args.max_examples),
        ]
        times = {"check": [], "pytest": []}
        for round_ in range(args.rounds):
            # Each round in the other order (check first, then pytest first, ...): a load that
            # rises or falls through the run reaches both sides alike.
            for side in ("check", "pytest")[:: 1 if round_ % 2 == 0 else -1]:
                times[side].append(_timed(check if side == "check" else plugin, folder))
            (check_wall, check_cpu), (pytest_wall, pytest_cpu) = times["check"][-1], times["pytest"][-1]
            print(
                f"round {round_ + 1}: puf check {check_wall:.1f} s ({check_cpu:.1f} s CPU), "
                f"pytest --measure {pytest_wall:.1f} s ({pytest_cpu:.1f} s CPU)",
                flush=True,
            )
    medians = {side: [statistics.median(run[i] for run in runs) for i in (0, 1)] for side, runs in times.items()}
    (check_wall, check_cpu), (pytest_wall, pytest_cpu) = medians["check"], medians["pytest"]
    print(
        f"{spec}, budget {args.max_examples}, medians: puf check {check_wall:.1f} s ({check_cpu:.1f} s CPU), "
        f"pytest --measure {pytest_wall:.1f} s ({pytest_cpu:.1f} s CPU); ratio pytest / check "
        f"{pytest_wall / check_wall:.2f} wall, {pytest_cpu / check_cpu:.2f} CPU"
    )


if __name__ == "__main__":
    main()
