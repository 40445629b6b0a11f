"""``puf evaluate``: effectiveness and every fairness measure of rankers or runs on real data."""

from __future__ import annotations

__all__ = ["register", "run"]

from pathlib import Path
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any
import os
import argparse
import contextlib

from ..exitcodes import EXIT_OK
from .score_table import format_table
from ._evaluate_options import (
    add_list_options,
    add_pair_options,
    add_scheduler_option,
    engine_options,
    parse_columns,
    chosen_measures,
    device_params,
    parse_memory,
    pair_options,
    parse_rankers,
    parse_runs,
)

if TYPE_CHECKING:
    import pandas as pd

    from puf.data.preprocessing import SplitDataset


def register(subparsers: argparse._SubParsersAction) -> None:
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
        "evaluate",
        help="P@k, NDCG@k and every fairness measure of rankers on real data",
        description="Fit baseline rankers (or read your runs) on a dataset, print P@k, NDCG@k, "
        "and every registered fairness measure (puf measures) per ranker, and write per-user "
        "effectiveness, the table and the measures' Kendall-tau agreement to --out.",
    )
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument(
        "--data", metavar="NAME|PATH", help="ml-100k, ml-1m (fetched on first use), or a folder/.inter file"
    )
    source.add_argument("--inter", metavar="FILE", help="your RecBole .inter file")
    parser.add_argument("--item", metavar="FILE", help=".item file with genres (with --inter)")
    parser.add_argument(
        "--rankers",
        default=None,
        help="comma-separated rankers, 'paper' (the PUF paper's seven: userknn, "
        "itemknn, bpr, nmf, multvae, ngcf, ncl) or 'all' (every installed "
        "one; default unless --run given)",
    )
    parser.add_argument(
        "--retrain",
        action="store_true",
        help="train again even if lists for this dataset, ranker, seed and "
        "settings are cached (CACHE/runs), and cache the new lists",
    )
    parser.add_argument(
        "--run",
        dest="runs",
        action="append",
        default=[],
        metavar="NAME=FILE",
        help="your run: a TREC run file (qid Q0 docid rank score tag), or CSV, TSV or Parquet "
        "with user, item and rank or score columns (or both), or with user and items columns (each "
        "user's list in one cell, best first), or without a header 'user item score' lines (Elliot, "
        "LibRec) or 'user [item:score,...]' lines (MyMediaLite), or JSON (.json: records, columns, "
        "or user -> ids, [item, score] pairs or {item: score}; .jsonl: a record a line); text files "
        "may be gzip-compressed (.gz) (repeatable)",
    )
    add_list_options(parser)
    parser.add_argument("--k", type=int, default=10, help="cut-off (default 10)")
    parser.add_argument(
        "--gamma",
        type=float,
        default=None,
        help="Jaccard weight in UF's similarity (default: the γ each measure declares, UF's 0.5)",
    )
    parser.add_argument(
        "--epsilon",
        type=float,
        default=None,
        help="envy threshold of the measures taking one (default: each one's own, PEU's 0.05)",
    )
    parser.add_argument("--seed", type=int, default=0, help="random_state of the rankers and of the --sample pairs")
    parser.add_argument(
        "--measure",
        dest="measures",
        action="append",
        default=[],
        metavar="MODULE:FUNCTION",
        help="also evaluate your measure (MODULE:FUNCTION, FILE.py:FUNCTION or a "
        "registered name; repeatable); a pair kernel declared with "
        "puf.pair_kernel lets it run at any size",
    )
    add_pair_options(parser, estimates="estimates.csv")
    parser.add_argument(
        "--memory",
        default=None,
        metavar="SIZE",
        help="memory the dense m x m pieces may take, e.g. 4GB or 500MB (default: "
        "PUF_MAX_MEMORY, else 4GB or what is available if less); measures beyond it "
        "run on the engines or are listed as skipped with the memory they need",
    )
    parser.add_argument(
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="threads of the engines (default: every usable core); refused with --scheduler, whose workers run them",
    )
    add_scheduler_option(parser)
    parser.add_argument(
        "--device", default="cpu", metavar="DEVICE", help="torch device of the neural rankers, e.g. cuda (default cpu)"
    )
    parser.add_argument(
        "--out",
        metavar="DIR",
        default=None,
        help="output folder (default: ./puf-evaluate-<dataset>); refused if it exists and is not empty, unless --force",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into an existing, non-empty --out (the files of a previous evaluate there are replaced or removed)",
    )
    parser.add_argument(
        "--wait",
        action="store_true",
        help="if another run is writing --out, wait for it to finish instead of refusing",
    )
    parser.add_argument(
        "--format",
        choices=("table", "json", "csv"),
        default="table",
        help="how to print the per-ranker table (default table)",
    )
    parser.add_argument("--cache", metavar="DIR", default=None, help="dataset cache folder")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress or timings")
    parser.set_defaults(func=run)


def _ranker_names(names: str | list[str], show: bool) -> str | list[str]:
    """Check the libraries of the rankers (``"all"`` or names, 'paper' already expanded by
    :func:`_check_arguments`): 'all' says in one line which optional rankers it skips, named
    rankers whose library is missing are an ImportError saying how to install it."""
    import sys

    from puf.rankers import RANKERS, missing_requirement

    if names == "all":
        missing = [m for m in map(missing_requirement, RANKERS) if m]
        if missing and show:
            print("puf evaluate: skipping " + "; ".join(missing), file=sys.stderr)
        return "all"
    missing = [m for m in map(missing_requirement, names) if m]
    if missing:  # before any training, not after the first rankers have run
        raise ImportError("; ".join(missing))
    return names


def _run_cache(cache: str | None) -> Path:
    from puf.data.dataset_cache import cache_dir

    return cache_dir(cache) / "runs"


def run(args: argparse.Namespace) -> int:
    r"""Run ``puf evaluate``; return 0, 1 (download failed) or 2 (bad input).

    Arguments, input files, ranker names and the output folder are checked
    before any data is loaded or downloaded; an existing non-empty ``--out``
    is refused unless ``--force``.

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
    import sys

    from puf.evaluation import evaluate_runs, raised_runs, run_rankers

    show = not args.quiet
    # Failures end in cli.main, the one handler: one line on stderr and the exit code of its kind.
    # Everything that can be checked without the data is checked first: a wrong ranker
    # name or output folder must not cost a 45 MB download or the whole evaluation.
    files, names = _check_arguments(args)
    measures = chosen_measures(args.measures)
    pairs = pair_options(args)
    if names is not None:
        names = _ranker_names(names, show)
    out = _out_folder(args)
    # The cluster is connected first, so that a wrong --scheduler costs no download or training;
    # the output folder is this run's until it ends, and the data is loaded once it is.
    with engine_options(args.scheduler) as engine, _claim(args, out) as staging:
        dataset = _load(args)
        read = _read_runs(args, files, dataset)
        runs = {name: lists.rankings for name, lists in read.items()}
        timings, facts = {}, {}
        if names is not None:
            runs.update(
                run_rankers(
                    dataset,
                    names,
                    k=args.k,
                    random_state=args.seed,
                    timings=timings,
                    progress=show,
                    facts=facts,
                    cache=_run_cache(args.cache),
                    retrain=args.retrain,
                    params=device_params(names, args.device),
                )
            )
        # what a measure prints (it runs here) goes to stderr: stdout is the table's
        with contextlib.redirect_stdout(sys.stderr):
            table = evaluate_runs(
                dataset,
                runs,
                k=args.k,
                gamma=args.gamma,
                epsilon=args.epsilon,
                progress=show,
                measures=measures,
                memory=None if args.memory is None else parse_memory(args.memory),
                random_state=args.seed,
                n_jobs=args.jobs,
                max_pairs=pairs["max_pairs"],
                sample=pairs["sample"],
                raised="undefined",  # one run a measure cannot score leaves the rest of the table
                **engine,
            )
        written = _write(staging, dataset, runs, table, timings, facts, args.k)
        if read:
            _write_lists(staging, read)
            written.append("lists.csv")
    print(format_table(table, args.format))
    from puf.lines import fitted, terminal_width

    def say(text: str) -> None:
        print(fitted(text, terminal_width()), file=sys.stderr)

    if len(runs) == 2:  # a result's caveat, shown even with --quiet
        say(
            "puf evaluate: agreement.csv compares measures over 2 rankers, where every Kendall's τ is "
            "+1 or −1 by construction; it needs 3 or more rankers to say anything"
        )
    for label, reason in table.attrs["skipped"].items():  # a result, shown even with --quiet
        say(f"puf evaluate: skipped {label} at {dataset.n_users} users: {reason}")
    for label, (where, error) in raised_runs(table).items():
        say(
            f"puf evaluate: {label} raised on {len(where)} of {len(table)} runs ({', '.join(where)}), undefined there: {error}"
        )
    if show:
        for name, seconds in timings.items():
            epochs = (
                f", {facts[name]['epochs']} epochs (best {facts[name]['best_epoch']})"
                if "epochs" in facts[name]
                else ""
            )
            if facts[name].get("resumed_from"):
                epochs += f", resumed after epoch {facts[name]['resumed_from']}"
            say(
                f"{name}: fit + recommend {seconds:.2f} s{epochs}"
                + (" (cached lists)" if facts[name]["cached"] else "")
            )
        say(f"{dataset.name}: {dataset.n_users} users, {dataset.n_items} items; wrote {out}/" + ", ".join(written))
    return EXIT_OK


_OUTPUTS = (
    "scores.csv",
    "per_user.csv",
    "agreement.csv",
    "timings.csv",
    "skipped.csv",
    "estimates.csv",
    "raised.csv",
    "lists.csv",
)


@contextlib.contextmanager
def _claim(args: argparse.Namespace, out: Path) -> Iterator[Path]:
    """Lock ``out`` and yield the folder to write in (the run cache locks each entry it trains)."""
    from ._output import claimed_folder

    command = " ".join(
        [
            "puf evaluate",
            *(f"--{key} {value}" for key, value in (("data", args.data), ("inter", args.inter), ("out", out)) if value),
        ]
    )
    with claimed_folder(out, force=args.force, wait=args.wait, command=command, stale=_OUTPUTS) as staging:
        yield staging


def _existing_file(path: str | os.PathLike[str], option: str) -> None:
    import pathlib

    path = pathlib.Path(path)
    if path.is_dir():
        raise ValueError(f"{option} {path}: is a folder, not a file")
    if not path.is_file():
        raise ValueError(f"{option} {path}: no such file")
    try:
        open(path, "rb").close()
    except OSError as exc:
        raise ValueError(f"{option} {path}: cannot read it ({exc.strerror})") from None


def _check_arguments(args: argparse.Namespace) -> tuple[dict[str, str], str | list[str] | None]:
    """Check what needs no data; return (run files by name, ranker names or None)."""
    if args.item and not args.inter:
        raise ValueError("--item needs --inter")
    if args.k < 1:
        raise ValueError(f"--k must be >= 1, got {args.k}")
    # Checked here, not by the measures: those run after the download and the training.
    from puf.validation import check_nonnegative_scalar, check_unit_scalar

    if args.gamma is not None:
        check_unit_scalar(args.gamma, name="--gamma")
    if args.epsilon is not None:
        check_nonnegative_scalar(args.epsilon, name="--epsilon")
    if args.seed < 0:
        raise ValueError(f"--seed must be >= 0, got {args.seed}")
    if args.jobs is not None and args.jobs < 1:
        raise ValueError(f"--jobs must be >= 1, got {args.jobs}")
    if args.jobs is not None and args.scheduler is not None:  # it would be ignored: no local engine runs
        raise ValueError(
            f"--jobs {args.jobs} sets the local engine's threads, and --scheduler {args.scheduler} runs the "
            "engines on the cluster's workers instead (their threads: dask worker --nthreads); drop --jobs"
        )
    if args.memory is not None:
        parse_memory(args.memory)
    pair_options(args)
    if args.inter:
        _existing_file(args.inter, "--inter")
    if args.item:
        _existing_file(args.item, "--item")
    if args.cache:
        import pathlib

        cache = pathlib.Path(args.cache)
        if cache.exists() and not cache.is_dir():
            raise ValueError(f"--cache {cache}: is a file, not a folder")
    files = parse_runs(args.runs)
    for path in files.values():
        _existing_file(path, "--run")
    parse_columns(args.columns)
    if not files and (args.strict or args.drop_seen or args.columns):
        raise ValueError("--strict, --drop-seen and --columns need --run: they say how run files are read")
    names = args.rankers or (None if files else "all")
    if names is not None:
        names = parse_rankers(names)
        clash = set(files) & set(names) if names != "all" else set()
        if clash:
            raise ValueError(f"--run names {sorted(clash)} clash with --rankers")
    if args.out:
        from ._output import check_output_folder

        check_output_folder(args.out, force=args.force)  # again once the dataset name is known
    return files, names


def _load(args: argparse.Namespace) -> SplitDataset:
    from puf.data import load, load_atomic

    return load_atomic(args.inter, args.item) if args.inter else load(args.data, cache=args.cache)


def _out_folder(args: argparse.Namespace) -> Path:
    """``--out`` (default ``puf-evaluate-<dataset>``), resolved once: links followed, made absolute."""
    from puf.data import dataset_name

    from ._output import resolved_folder

    name = Path(args.inter).stem if args.inter else dataset_name(args.data)
    return resolved_folder(args.out or f"puf-evaluate-{name}")


def _read_runs(args: argparse.Namespace, files: Mapping[str, str], dataset: SplitDataset) -> dict[str, Any]:
    """Each --run's lists (:func:`puf.evaluation.read_lists`); what was skipped, seen or short said in one line."""
    from puf.evaluation import read_lists
    from puf.lines import print_message

    read = {
        name: read_lists(
            path, dataset, k=args.k, strict=args.strict, drop_seen=args.drop_seen, columns=parse_columns(args.columns)
        )
        for name, path in files.items()
    }
    for name, lists in read.items():  # a result, shown even with --quiet
        if lists.summary():
            print_message(f"puf evaluate: run {name}: {lists.summary()}")
    return read


def _write_lists(out: Path, read: Mapping[str, Any]) -> None:
    """``lists.csv``: per --run, what reading it skipped, found or dropped (:meth:`puf.evaluation.RunLists.counts`)."""
    import pandas as pd

    table = pd.DataFrame.from_dict({name: lists.counts() for name, lists in read.items()}, orient="index")
    table.to_csv(out / "lists.csv", index_label="run")


def _write(
    out: Path,
    dataset: SplitDataset,
    runs: Mapping[str, Any],
    table: pd.DataFrame,
    timings: Mapping[str, float],
    facts: Mapping[str, Mapping[str, Any]],
    k: int,
) -> list[str]:
    """Write this run's files and remove the ones a previous run left that this one does not make."""
    import pandas as pd

    from puf.evaluation import measure_agreement, per_user_effectiveness, write_pair_limits

    written = ["scores.csv", "per_user.csv"]
    table.to_csv(out / "scores.csv")
    per_user_effectiveness(dataset, runs, k=k).to_csv(out / "per_user.csv", index=False)
    if len(runs) >= 2:
        measure_agreement(table).to_csv(out / "agreement.csv", index_label="measure")
        written.append("agreement.csv")
    written += write_pair_limits(table, out)
    if raised := table.attrs.get("raised"):  # stderr names them once; the folder keeps each cell
        pd.DataFrame(raised, columns=["ranker", "measure", "error"]).to_csv(out / "raised.csv", index=False)
        written.append("raised.csv")
    if timings:
        with open(out / "timings.csv", "w", encoding="utf-8") as handle:
            handle.write("ranker,seconds,cached,epochs,best_epoch\n")
            handle.writelines(
                f"{n},{s:.3f},{facts[n]['cached']},{facts[n].get('epochs', '')},{facts[n].get('best_epoch', '')}\n"
                for n, s in timings.items()
            )
        written.append("timings.csv")
    for stale in set(_OUTPUTS) - set(written):
        (out / stale).unlink(missing_ok=True)  # a stale file beside new scores would mislead
    return written
