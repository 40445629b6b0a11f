"""Show that the harness's outputs are byte-identical between a base commit and this tree.

Runs, once on the code of ``--base`` (exported with ``git archive`` into a temporary
folder and installed into a temporary virtual environment that shares this Python's
packages) and once on this tree (the ``puf`` that ``--python`` imports):

- ``puf check --all --json``: every verdict of every measure;
- ``puf evaluate --data ml-100k`` with a quick ranker set (``--rankers``), from a copy
  of the cached data set, so the user's cache is neither read for runs nor written;
- ``puf report --quick``: the sweeps' CSVs and ``properties.json``;

then compares every file byte for byte (each command runs in its own folder with
relative paths, so even the recorded command lines agree) and prints one line per file
(``same`` or ``DIFFERS``) and a summary. Only ``evaluate/timings.csv`` (wall times) is
listed without being compared. Exit status 0 when every compared file is identical.

Usage: ``python benchmarks/same_outputs.py --base COMMIT [--tree COMMIT | --python PYTHON]
[--rankers random,mostpop,userknn,itemknn] [--keep DIR]`` (``--tree`` installs that
commit like the base, so the work tree may change while it runs).
"""

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
UNCOMPARED = {Path("evaluate/timings.csv")}  # wall times


def _run(command, *, cwd, env=None):
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    if done.returncode not in (0, 1):  # puf check exits 1 when a verdict is a finding
        sys.stderr.write(done.stdout[-2000:] + done.stderr[-4000:])
        raise SystemExit(f"failed ({done.returncode}): {' '.join(map(str, command))}")
    return time.perf_counter() - started


def _install(commit, folder):
    """The code of ``commit`` in ``folder/src``, installed into ``folder/venv``; return its python."""
    folder.mkdir(parents=True, exist_ok=True)
    source, venv = folder / "src", folder / "venv"
    source.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", commit], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = venv / "bin" / "python"
    subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "-e", str(source)], check=True)
    return python


def _outputs(python, folder, rankers):
    """Run the three commands with ``python``'s puf; their outputs go under ``folder``."""
    folder.mkdir()
    cache = folder / "cache"
    shutil.copytree(Path.home() / ".cache" / "puf-harness" / "ml-100k", cache / "ml-100k")
    env = dict(os.environ, CI="true", MPLBACKEND="Agg")
    puf = [str(python), "-m", "puf.cli"]
    seconds = {}
    seconds["check"] = _run(puf + ["check", "--all", "--quiet", "--json", "check.json"], cwd=folder, env=env)
    seconds["evaluate"] = _run(
        puf
        + [
            "evaluate",
            "--data",
            "ml-100k",
            "--rankers",
            rankers,
            "--cache",
            "cache",
            "--out",
            "evaluate",
            "--quiet",
            "--format",
            "csv",
        ],
        cwd=folder,
        env=env,
    )
    seconds["report"] = _run(puf + ["report", "--quick", "--quiet", "--out", "report"], cwd=folder, env=env)
    shutil.rmtree(cache)
    return seconds


def _files(folder):
    return sorted(p.relative_to(folder) for p in folder.rglob("*") if p.is_file())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", required=True, help="the commit to compare with")
    parser.add_argument("--tree", help="a commit to compare instead of the work tree")
    parser.add_argument(
        "--python", default=sys.executable, help="the Python whose puf is this tree (default: this one)"
    )
    parser.add_argument(
        "--rankers",
        default="random,mostpop,userknn,itemknn",
        help="the rankers of puf evaluate (default: random,mostpop,userknn,itemknn)",
    )
    parser.add_argument(
        "--keep", help="keep both outputs in this folder (default: removed); a base output already there is reused"
    )
    args = parser.parse_args(argv)

    if args.tree is None:
        where = subprocess.run(
            [args.python, "-c", "import puf; print(puf.__file__)"], cwd="/", capture_output=True, text=True, check=True
        ).stdout.strip()
        if not Path(where).resolve().is_relative_to(ROOT):
            raise SystemExit(f"--python imports puf from {where}, not from {ROOT}")
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="puf-same-"))
    work.mkdir(parents=True, exist_ok=True)
    try:
        if (work / "base").is_dir():  # kept from an earlier run against the same base
            base_seconds = {}
        else:
            base_python = _install(args.base, work / "base-code")
            base_seconds = _outputs(base_python, work / "base", args.rankers)
        shutil.rmtree(work / "tree", ignore_errors=True)
        shutil.rmtree(work / "tree-code", ignore_errors=True)
        python = args.python if args.tree is None else _install(args.tree, work / "tree-code")
        tree_seconds = _outputs(python, work / "tree", args.rankers)
        base_files, tree_files = _files(work / "base"), _files(work / "tree")
        differ = 0
        for name in sorted(set(base_files) | set(tree_files)):
            if name in UNCOMPARED:
                state = "not compared"
            elif name not in base_files or name not in tree_files:
                state = "only in " + ("base" if name in base_files else "tree")
            else:
                same = filecmp.cmp(work / "base" / name, work / "tree" / name, shallow=False)
                state = "same" if same else "DIFFERS"
            differ += state not in ("same", "not compared")
            print(f"{state:<13} {name}")
        compared = sum(1 for n in base_files if n not in UNCOMPARED)
        short = {
            name: subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", commit], capture_output=True, text=True
            ).stdout.strip()
            for name, commit in (("base", args.base), ("tree", args.tree or "HEAD"))
        }
        tree = short["tree"] if args.tree else "the work tree"
        print(
            f"base {short['base']} vs {tree}: {compared} files compared, {differ} differ; seconds base "
            f"{', '.join(f'{k} {v:.0f}' for k, v in base_seconds.items())}; tree "
            f"{', '.join(f'{k} {v:.0f}' for k, v in tree_seconds.items())}"
        )
        return 0 if differ == 0 else 1
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
