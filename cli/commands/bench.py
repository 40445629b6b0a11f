"""``puf bench``: time the scale engines against the dense baselines on synthetic data.

Each size's data bundle is generated once (seeded; MovieLens-like shapes, power-law
item popularity); each case then runs in its own subprocess, so the peak memory
reported is that case's alone. Dense baselines (similarity via a scipy sparse
product, then the dense formula) run in the same process where they fit in half
the available memory.
"""

from __future__ import annotations

__all__ = ["register", "run", "add_arguments", "run_benchmarks", "benchmark_table"]

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any
import argparse
import os
import sys

from ..exitcodes import EXIT_OK


def add_arguments(parser: argparse.ArgumentParser, *, default_sizes: Sequence[str] = ("ml1m",)) -> None:
    """Add the ``bench`` options to an argparse parser (shared with benchmarks/scale.py).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_arguments(parser, default_sizes=("small",))
    >>> parser.parse_args([]).size
    ['small']
    """
    from puf.cli.benchmark import CASES, SIZES

    parser.add_argument(
        "--size",
        nargs="+",
        choices=tuple(SIZES),
        default=list(default_sizes),
        help=f"data sizes to run (default: {' '.join(default_sizes)})",
    )
    parser.add_argument(
        "--cases",
        nargs="+",
        choices=CASES,
        default=None,
        metavar="CASE",  # the choices are listed in the help, which wraps, not in the usage line
        help=f"measures to time: {', '.join(CASES)} (default: all)",
    )
    parser.add_argument("--no-baseline", dest="baseline", action="store_false", help="skip the dense baselines")
    parser.add_argument(
        "--timeout", type=float, default=1800.0, metavar="SECONDS", help="per-case time limit (default 1800)"
    )
    parser.add_argument("--seed", type=int, default=0, help="data seed (default 0)")
    parser.add_argument("--output", metavar="FILE", default=None, help="also write the Markdown table to FILE")
    parser.add_argument("--quiet", action="store_true", help="no progress messages")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``bench`` to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["bench", "--size", "small", "--quiet"]).size
    ['small']
    """
    parser = subparsers.add_parser(
        "bench",
        help="benchmark the scale engines (PUF, ME/MME/PEU, UF) on synthetic data",
        description="Time each engine and its dense baseline on synthetic MovieLens-sized data; "
        "print wall time, peak memory and the speed-up.",
    )
    add_arguments(parser)
    parser.set_defaults(func=run)


def _available_bytes() -> int:
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")


def _subprocess(case: str, path: str, baseline: bool, timeout: float) -> dict[str, Any]:
    import json
    import subprocess

    command = [sys.executable, "-m", "puf.cli.benchmark", case, path]
    command += ["--baseline"] if baseline else []
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timeout after {timeout:g} s"}
    if done.returncode != 0:
        return {"error": (done.stderr.strip().splitlines() or ["failed"])[-1]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def run_benchmarks(
    sizes: Iterable[str],
    cases: Sequence[str] | None,
    *,
    baseline: bool = True,
    timeout: float = 1800.0,
    seed: int = 0,
    log: Callable[[str], object] | None = None,
) -> list[dict[str, Any]]:
    """Run every (size, case) and return one row dict per pair (cases None: per-size defaults).

    Examples
    --------
    >>> rows = run_benchmarks(["small"], ["cosine-puf"], baseline=False)
    >>> rows[0]["case"], rows[0]["engine"]["value"] >= 0
    ('cosine-puf', True)
    """
    import tempfile

    from puf.cli.benchmark import BASELINES, DEFAULT_CASES, baseline_bytes, make_bundle, save_bundle

    log = log or (lambda message: None)
    rows = []
    with tempfile.TemporaryDirectory(prefix="puf-bench-") as folder:
        for size in sizes:
            log(f"[{size}] generating data (seed {seed})")
            bundle = make_bundle(size, random_state=seed)
            m = bundle["histories"].shape[0]
            interactions = bundle["histories"].nnz + bundle["relevance"].nnz
            path = os.path.join(folder, f"{size}.npz")
            save_bundle(bundle, path)
            del bundle
            for case in cases or DEFAULT_CASES[size]:
                log(f"[{size}] {case}: engine")
                row = {
                    "size": size,
                    "users": m,
                    "interactions": interactions,
                    "case": case,
                    "engine": _subprocess(case, path, False, timeout),
                    "dense": None,
                }
                if baseline and case in BASELINES:
                    need = baseline_bytes(case, m)
                    if need < 0.5 * _available_bytes():
                        log(f"[{size}] {case}: dense baseline")
                        row["dense"] = _subprocess(case, path, True, timeout)
                    else:
                        row["dense"] = {"error": f"skipped: needs ~{need / 1e9:.0f} GB"}
                rows.append(row)
    return rows


def _value_text(value: Any) -> str:
    if isinstance(value, dict) and "ci_low" in value:
        half = (value["ci_high"] - value["ci_low"]) / 2
        return f"{value['value']:.6g} ± {half:.2g} (±{100 * half / max(abs(value['value']), 1e-300):.2f}%)"
    if isinstance(value, dict):
        return ", ".join(f"{k}={v:.4g}" for k, v in value.items())
    return f"{value:.6g}"


def _gap(engine: Mapping[str, Any], dense: Mapping[str, Any]) -> float:
    a, b = engine["value"], dense["value"]
    if isinstance(a, dict):
        return max(abs(a[k] - b[k]) for k in a)
    return abs(a - b)


def _terminal(markdown: str) -> str:
    """A Markdown table as plain columns that fit the terminal (:func:`puf.lines.table`).

    Examples
    --------
    >>> print(_terminal("| size | value |\\n|---|---|\\n| small | 0.5 |"))
    size   value
    small  0.5
    """
    from puf.lines import table, terminal_width

    lines = [line for i, line in enumerate(markdown.splitlines()) if i != 1]  # the rule under the heading
    return table([[cell.strip() for cell in line.strip()[1:-1].split("|")] for line in lines], terminal_width())


def benchmark_table(rows: Iterable[Mapping[str, Any]]) -> str:
    """Markdown table: wall time, peak memory, speed-up over the dense baseline.

    Examples
    --------
    >>> row = {"size": "small", "users": 3000, "interactions": 167856, "case": "envy",
    ...        "engine": {"error": "timeout after 1 s"}, "dense": None}
    >>> print(benchmark_table([row]).splitlines()[-1])
    | small | 3,000 | 167,856 | envy | timeout after 1 s |  |  |  |  |  |  |  |
    """
    header = (
        "size",
        "users",
        "interactions",
        "measure",
        "engine s",
        "engine CPU s",
        "engine peak MB",
        "dense s",
        "dense peak MB",
        "speed-up",
        "value",
        "check",
    )
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    from puf.cli.benchmark import SAMPLED

    exact = {(r["size"], r["case"]): r["engine"].get("value") for r in rows}
    for r in rows:
        engine, dense = r["engine"], r["dense"]
        cells = [r["size"], f"{r['users']:,}", f"{r['interactions']:,}", r["case"]]
        if "error" in engine:
            cells += [engine["error"], "", "", "", "", "", "", ""]
        else:
            cells += [f"{engine['seconds']:.2f}", f"{engine['cpu_seconds']:.1f}", f"{engine['peak_mb']:.0f}"]
            if dense and "error" not in dense:
                cells += [
                    f"{dense['seconds']:.2f}",
                    f"{dense['peak_mb']:.0f}",
                    f"{dense['seconds'] / engine['seconds']:.1f}x",
                ]
                check = f"max abs diff {_gap(engine, dense):.1e}"
            else:
                cells += [dense["error"] if dense else "n/a", "", ""]
                check = ""
            value = engine["value"]
            truth = exact.get((r["size"], SAMPLED.get(r["case"])))
            if isinstance(value, dict) and "ci_low" in value and isinstance(truth, float):
                inside = value["ci_low"] <= truth <= value["ci_high"]
                se = value["standard_error"]
                z = (value["value"] - truth) / se if se else 0.0
                check = (
                    f"exact {truth:.6g}: error "
                    f"{100 * abs(value['value'] - truth) / max(abs(truth), 1e-300):.2f}% "
                    f"(z = {z:+.2f}, {'inside' if inside else 'outside'} the 95% CI)"
                )
            cells += [_value_text(value), check]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def run(args: argparse.Namespace) -> int:
    """Run ``puf bench``; print the table; return 0 (a bad option: ValueError, exit 2).

    Examples
    --------
    >>> import argparse
    >>> args = argparse.Namespace(size=["small"], cases=["envy"], baseline=False, timeout=600,
    ...                           seed=0, output=None, quiet=True)
    >>> run(args)  # doctest: +ELLIPSIS
    size   users  ...
    0
    """
    if not 0 < args.timeout < float("inf"):
        raise ValueError(f"--timeout must be a number of seconds > 0, got {args.timeout}")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")  # numpy's words name no option
    if args.output:
        from ._output import check_writable_file

        check_writable_file(args.output, option="--output")  # before the runs, not after
    log = None if args.quiet else (lambda message: print(message, file=sys.stderr, flush=True))
    rows = run_benchmarks(args.size, args.cases, baseline=args.baseline, timeout=args.timeout, seed=args.seed, log=log)
    table = benchmark_table(rows)
    print(_terminal(table))
    if args.output:
        from puf.files import atomic_file

        with atomic_file(args.output) as handle:
            handle.write(table + "\n")
    return EXIT_OK
