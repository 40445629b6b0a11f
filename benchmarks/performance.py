"""Time the harness's everyday jobs and store them as the site's performance table.

Each job is a ``puf`` command run in a fresh process (``python -m puf.cli`` of the
interpreter that runs this script), timed for wall seconds, CPU seconds (user + system of the process and its
children) and peak resident memory (the largest child), with the 1-minute load average
before and after. The results go to ``benchmarks/performance.json`` with the machine, the
date and the commit, and the documentation site renders that file as its performance
table (``docs/_ext/registry_tables.py``), so the page shows only what was measured.

Usage::

    python benchmarks/performance.py                  # every job, rewrites the JSON
    python benchmarks/performance.py --only check-all  # one job, kept beside the others
    python benchmarks/performance.py --list

A load average above the number of cores means the machine was busy with more than the
job, so the wall time is an upper bound; the CPU seconds are the steadier figure.
"""

import argparse
import datetime
import json
import os
import platform
import shlex
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STORED = ROOT / "benchmarks" / "performance.json"
OUT = "{tmp}"  # replaced by a fresh folder per job, so no run finds an earlier one's output

#: The jobs, by name: what a researcher runs day to day, in the order the table shows them.
JOBS = {
    "report-quick": ("puf report --quick", f"puf report --quick --quiet --out {OUT}/report"),
    "report": ("puf report (the embedded default)", f"puf report --quiet --out {OUT}/report"),
    "check-all": ("puf check --all (every measure, every property)", "puf check --all"),
    "check-one": ("puf check puf (one measure, every property)", "puf check puf"),
    "evaluate-ml-100k": (
        "puf evaluate on ML-100K, seven quick rankers retrained",
        "puf evaluate --data ml-100k --rankers random,mostpop,userknn,itemknn,ease,als,bpr --retrain "
        f"--out {OUT}/evaluate --quiet",
    ),
}


def machine():
    """The machine in neutral terms: cores, architecture and memory ("2-core x86-64, 24 GB")."""
    try:
        pages = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
        memory = f", {pages / 2**30:.0f} GB"
    except (ValueError, OSError, AttributeError):
        memory = ""
    return f"{os.cpu_count()}-core {platform.machine().replace('_', '-')}{memory}"


def _commit():
    try:
        found = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    except OSError:
        return None
    return found.stdout.strip() or None


def time_job(command):
    """Run ``command`` (a shell-free argument string) and return its measurements.

    Returns
    -------
    dict
        ``wall`` and ``cpu`` seconds, ``peak_mb`` (largest child's resident set), ``load``
        (1-minute load average before and after) and the ``returncode``.
    """
    with tempfile.TemporaryDirectory(prefix="puf-perf-") as tmp:
        argv = shlex.split(command.replace(OUT, tmp))
        if argv[0] == "puf":  # the harness this interpreter imports, whatever PATH holds
            argv[:1] = [sys.executable, "-m", "puf.cli"]
        load_before = os.getloadavg()[0]
        start = time.perf_counter()
        with open(os.path.join(tmp, "stderr.txt"), "w+") as errors:
            process = subprocess.Popen(argv, cwd=tmp, stdout=subprocess.DEVNULL, stderr=errors)
            # wait4 gives this child's own usage with its reaped descendants' (the workers).
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
            errors.seek(0)
            stderr = errors.read()
    if process.returncode != 0:
        raise SystemExit(f"{command!r} exited {process.returncode}:\n{stderr[-2000:]}")
    cpu = usage.ru_utime + usage.ru_stime
    return {
        "wall": round(wall, 1),
        "cpu": round(cpu, 1),
        "peak_mb": round(usage.ru_maxrss / 1024),  # kilobytes on Linux: the largest process of the job
        "load": [round(load_before, 2), round(os.getloadavg()[0], 2)],
        "returncode": process.returncode,
    }


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", choices=list(JOBS), help="run these jobs, keep the others' rows")
    parser.add_argument("--list", action="store_true", help="print the jobs and their commands")
    args = parser.parse_args(argv)
    if args.list:
        for name, (what, command) in JOBS.items():
            print(f"{name:20} {what}\n{'':20} {command}")
        return
    stored = json.loads(STORED.read_text(encoding="utf-8")) if STORED.is_file() and args.only else {"jobs": {}}
    for name in args.only or list(JOBS):
        what, command = JOBS[name]
        print(f"{name}: {command}", file=sys.stderr, flush=True)
        result = time_job(command)
        stored["jobs"][name] = {
            "what": what,
            "command": command.replace(f"{OUT}/", "").replace(OUT, "."),
            "date": datetime.date.today().isoformat(),
            "commit": _commit(),
            **{k: v for k, v in result.items() if k != "returncode"},
        }
        print(f"  {result['wall']} s wall, {result['cpu']} s CPU, peak {result['peak_mb']} MB", file=sys.stderr)
    stored["machine"] = machine()
    stored["jobs"] = {name: stored["jobs"][name] for name in JOBS if name in stored["jobs"]}
    STORED.write_text(json.dumps(stored, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {STORED.relative_to(ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
