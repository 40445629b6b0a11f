"""``puf evaluate``: effectiveness and every fairness measure of rankers or runs on real data."""

__all__ = ["register", "run", "format_table"]

import json
import math


def register(subparsers):
    """Add ``evaluate`` to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> args = parser.parse_args(["evaluate", "--data", "ml-100k", "--run", "a=run.csv"])
    >>> args.data, args.runs, args.k
    ('ml-100k', ['a=run.csv'], 10)
    """
    parser = subparsers.add_parser(
        "evaluate", help="P@k, NDCG@k and every fairness measure of rankers on real data",
        description="Fit baseline rankers (or read your runs) on a dataset, print P@k, NDCG@k, "
                    "and every registered fairness measure (puf measures) per ranker, and write per-user "
                    "effectiveness, the table and the measures' Kendall-tau agreement to --out.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--data", metavar="NAME|PATH",
                        help="ml-100k, ml-1m (fetched on first use), or a folder/.inter file")
    source.add_argument("--inter", metavar="FILE", help="your RecBole .inter file")
    parser.add_argument("--item", metavar="FILE", help=".item file with genres (with --inter)")
    parser.add_argument("--rankers", default=None,
                        help="comma-separated rankers or 'all' (default: all, unless --run given)")
    parser.add_argument("--run", dest="runs", action="append", default=[], metavar="NAME=FILE",
                        help="your run: CSV/TSV of user,item,rank|score (repeatable)")
    parser.add_argument("--k", type=int, default=10, help="cut-off (default 10)")
    parser.add_argument("--gamma", type=float, default=0.5,
                        help="Jaccard weight in UF's similarity (default 0.5)")
    parser.add_argument("--epsilon", type=float, default=0.05, help="PEU threshold (default 0.05)")
    parser.add_argument("--seed", type=int, default=0, help="random_state of the rankers")
    parser.add_argument("--out", metavar="DIR", default=None,
                        help="output folder (default: ./puf-evaluate-<dataset>)")
    parser.add_argument("--format", choices=("table", "json", "csv"), default="table",
                        help="how to print the per-ranker table (default table)")
    parser.add_argument("--cache", metavar="DIR", default=None, help="dataset cache folder")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress or timings")
    parser.set_defaults(func=run)


def format_table(table, fmt):
    """Render the per-ranker table as ``table``, ``json`` or ``csv`` text.

    Examples
    --------
    >>> import pandas as pd
    >>> table = pd.DataFrame({"P@10": [0.5, float("nan")]}, index=pd.Index(["a", "b"], name="ranker"))
    >>> print(format_table(table, "json"))
    {"a": {"P@10": 0.5}, "b": {"P@10": null}}
    >>> print(format_table(table, "csv"))
    ranker,P@10
    a,0.5
    b,
    """
    if fmt == "json":
        clean = {name: {c: (None if math.isnan(v) else float(v)) for c, v in row.items()}
                 for name, row in table.to_dict(orient="index").items()}
        return json.dumps(clean)
    if fmt == "csv":
        return table.to_csv().rstrip("\n")
    return table.to_string(float_format=lambda v: f"{v:.4f}", na_rep="undefined")


def _parse_runs(specs):
    runs = {}
    for spec in specs:
        name, equals, path = spec.partition("=")
        if not equals or not name or not path:
            raise ValueError(f"--run must be NAME=FILE, got {spec!r}")
        if name in runs:
            raise ValueError(f"--run name {name!r} given twice")
        runs[name] = path
    return runs


def run(args):
    r"""Run ``puf evaluate``; return 0, 1 (download failed) or 2 (bad input).

    Examples
    --------
    >>> import argparse, pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> rows = [f"u{u}\ti{(u + j) % 8}\t4\t{j}" for u in range(6) for j in range(8)]
    >>> _ = (folder / "toy.inter").write_text(
    ...     "user_id:token\titem_id:token\trating:float\ttimestamp:float\n" + "\n".join(rows))
    >>> _ = (folder / "toy.item").write_text(
    ...     "item_id:token\tgenre:token_seq\n" + "\n".join(f"i{i}\tG{i % 3}" for i in range(8)))
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers())
    >>> args = parser.parse_args(["evaluate", "--inter", str(folder / "toy.inter"),
    ...     "--item", str(folder / "toy.item"), "--rankers", "mostpop", "--format", "csv",
    ...     "--out", str(folder / "out"), "--quiet"])
    >>> run(args)  # doctest: +ELLIPSIS
    ranker,P@10,NDCG@10,SD-P,SD-NDCG,Gini-P,Gini-NDCG,...,ME,MME,PEU,PUF-P,PUF-NDCG,UF,...
    mostpop,...
    0
    """
    import pathlib
    import sys

    from puf.data import DownloadError, load, load_atomic
    from puf.evaluation import (evaluate_runs, measure_agreement, per_user_effectiveness,
                                read_run, run_rankers)

    show = not args.quiet
    try:
        if args.item and not args.inter:
            raise ValueError("--item needs --inter")
        dataset = (load_atomic(args.inter, args.item) if args.inter
                   else load(args.data, cache=args.cache))
        files = _parse_runs(args.runs)
        runs = {name: read_run(path, dataset, k=args.k) for name, path in files.items()}
        names = args.rankers or (None if files else "all")
        timings = {}
        if names is not None:
            names = "all" if names == "all" else [n.strip() for n in names.split(",") if n.strip()]
            clash = set(runs) & set(names if names != "all" else [])
            if clash:
                raise ValueError(f"--run names {sorted(clash)} clash with --rankers")
            runs.update(run_rankers(dataset, names, k=args.k, random_state=args.seed,
                                    timings=timings, progress=show))
        table = evaluate_runs(dataset, runs, k=args.k, gamma=args.gamma, epsilon=args.epsilon,
                              progress=show)
    except ValueError as exc:
        print(f"puf evaluate: error: {exc}", file=sys.stderr)
        return 2
    except DownloadError as exc:
        print(f"puf evaluate: {exc}", file=sys.stderr)
        return 1
    except ImportError as exc:  # an optional ranker's library is missing
        print(f"puf evaluate: error: {exc}", file=sys.stderr)
        return 2
    out = pathlib.Path(args.out or f"puf-evaluate-{dataset.name}")
    out.mkdir(parents=True, exist_ok=True)
    table.to_csv(out / "scores.csv")
    per_user_effectiveness(dataset, runs, k=args.k).to_csv(out / "per_user.csv", index=False)
    if len(runs) >= 2:
        measure_agreement(table).to_csv(out / "agreement.csv", index_label="measure")
    if timings:
        with open(out / "timings.csv", "w", encoding="utf-8") as handle:
            handle.write("ranker,seconds\n")
            handle.writelines(f"{n},{s:.3f}\n" for n, s in timings.items())
    print(format_table(table, args.format))
    if show:
        for name, seconds in timings.items():
            print(f"{name}: fit + recommend {seconds:.2f} s", file=sys.stderr)
        print(f"{dataset.name}: {dataset.n_users} users, {dataset.n_items} items; "
              f"wrote {out}/scores.csv, per_user.csv"
              + (", agreement.csv" if len(runs) >= 2 else ""), file=sys.stderr)
    return 0
