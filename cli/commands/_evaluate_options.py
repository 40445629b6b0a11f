"""The options of ``puf evaluate`` that need parsing: table formats, sizes, runs, measures (private)."""

from __future__ import annotations

__all__ = [
    "parse_memory",
    "parse_pair_count",
    "add_pair_options",
    "pair_options",
    "parse_rankers",
    "parse_runs",
    "add_list_options",
    "parse_columns",
    "add_scheduler_option",
    "engine_options",
    "chosen_measures",
    "device_params",
]

from typing import TYPE_CHECKING, Any
from collections.abc import Iterable, Iterator, Sequence
import contextlib
import math

if TYPE_CHECKING:
    import argparse

    from puf.metadata import Measure


_UNITS = {
    "": 1,
    "B": 1,
    "KB": 10**3,
    "MB": 10**6,
    "GB": 10**9,
    "TB": 10**12,
    "KIB": 2**10,
    "MIB": 2**20,
    "GIB": 2**30,
    "TIB": 2**40,
}


def parse_memory(text: str | float) -> int:
    """Bytes from a size such as ``"4GB"``, ``"512MiB"`` or ``"1e9"``.

    Examples
    --------
    >>> parse_memory("4GB"), parse_memory("1.5 MiB"), parse_memory("100")
    (4000000000, 1572864, 100)
    >>> parse_memory("lots")
    Traceback (most recent call last):
    ...
    ValueError: --memory must be a size such as 4GB or 500MB, got 'lots'
    """
    import re

    match = re.fullmatch(r"\s*([0-9.]+(?:e[0-9]+)?)\s*([A-Za-z]*)\s*", str(text))
    unit = match.group(2).upper() if match else None
    if not match or unit not in _UNITS:
        raise ValueError(f"--memory must be a size such as 4GB or 500MB, got {text!r}")
    try:
        size = float(match.group(1)) * _UNITS[unit]
    except ValueError:
        raise ValueError(f"--memory must be a size such as 4GB or 500MB, got {text!r}") from None
    if size < 1:
        raise ValueError(f"--memory must be at least 1 byte, got {text!r}")
    return int(size)


def parse_pair_count(text: str) -> int:
    """A whole number of user pairs from ``"1e9"``, ``"2500000000"`` or ``"2_500_000_000"``.

    Examples
    --------
    >>> parse_pair_count("1e9"), parse_pair_count("2_500_000")
    (1000000000, 2500000)
    >>> parse_pair_count("0.5")
    Traceback (most recent call last):
    ...
    ValueError: --max-pairs must be a whole number of pairs >= 1 such as 1e9, got '0.5'
    """
    try:
        count = float(str(text).replace("_", ""))
    except ValueError:
        count = math.nan
    if not (math.isfinite(count) and count >= 1 and count == int(count)):
        raise ValueError(f"--max-pairs must be a whole number of pairs >= 1 such as 1e9, got {text!r}")
    return int(count)


def add_pair_options(parser: argparse.ArgumentParser, *, estimates: str) -> None:
    """Add ``--sample N`` and ``--max-pairs N``, the options bounding the work over user pairs.

    ``puf evaluate`` and ``puf report`` both take them, with the same meaning;
    :func:`pair_options` reads them.

    Parameters
    ----------
    parser : argparse.ArgumentParser
    estimates : str
        Where the 95% intervals of the estimates are written (named in the help).

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_pair_options(parser, estimates="estimates.csv")
    >>> args = parser.parse_args(["--max-pairs", "1e9", "--sample", "1000"])
    >>> args.max_pairs, args.sample
    ('1e9', 1000)
    """
    parser.add_argument(
        "--sample",
        type=int,
        default=None,
        metavar="N",
        help="estimate every pair measure (PUF, MD, Lipschitz, UF, yours) from N "
        f"sampled user pairs, with a 95%% interval ({estimates})",
    )
    parser.add_argument(
        "--max-pairs",
        default=None,
        metavar="N",
        help="list the exact measures over all user pairs (PUF, MD, Lipschitz, UF, "
        "Inconsistency, yours) as skipped when the users have more than N pairs, "
        "e.g. 1e9 (default: no limit); --sample N estimates them",
    )


def pair_options(args: argparse.Namespace) -> dict[str, int | None]:
    """``max_pairs`` and ``sample`` from the options :func:`add_pair_options` added, checked.

    Raises
    ------
    ValueError
        Naming the option and its value: ``--max-pairs`` not a whole number >= 1,
        ``--sample`` below 2 pairs.

    Examples
    --------
    >>> import argparse
    >>> pair_options(argparse.Namespace(max_pairs="1e9", sample=1000))
    {'max_pairs': 1000000000, 'sample': 1000}
    >>> pair_options(argparse.Namespace(max_pairs=None, sample=1))
    Traceback (most recent call last):
    ...
    ValueError: --sample must be >= 2 pairs, got 1
    """
    max_pairs, sample = getattr(args, "max_pairs", None), getattr(args, "sample", None)
    if sample is not None and sample < 2:
        raise ValueError(f"--sample must be >= 2 pairs, got {sample}")
    return {"max_pairs": None if max_pairs is None else parse_pair_count(max_pairs), "sample": sample}


def parse_rankers(text: str) -> str | list[str]:
    """The rankers ``--rankers`` names: ``"all"``, or the names ('paper' is the PUF paper's seven).

    Raises
    ------
    ValueError
        An unknown name (listing the known ones), or no name at all.

    Examples
    --------
    >>> parse_rankers("mostpop, itemknn")
    ['mostpop', 'itemknn']
    >>> parse_rankers("all")
    'all'
    >>> parse_rankers("mostpop,popular")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: unknown ranker 'popular'; known rankers: random, mostpop, ...
    """
    from puf.rankers import PAPER_RANKERS, RANKERS

    if text == "all":
        return "all"
    names = [n.strip() for n in text.split(",") if n.strip()]
    if names == ["paper"]:
        return list(PAPER_RANKERS)
    unknown = [n for n in names if n.lower() not in RANKERS]
    if unknown:
        raise ValueError(f"unknown ranker {unknown[0]!r}; known rankers: {', '.join(RANKERS)}")
    if not names:
        raise ValueError("--rankers names no ranker")
    return names


def parse_runs(specs: Iterable[str]) -> dict[str, str]:
    runs = {}
    for spec in specs:
        name, equals, path = spec.partition("=")
        if not equals or not name or not path:
            raise ValueError(f"--run must be NAME=FILE, got {spec!r}")
        if name in runs:
            raise ValueError(f"--run name {name!r} given twice")
        runs[name] = path
    return runs


def add_list_options(parser: argparse.ArgumentParser) -> None:
    """Add ``--strict``, ``--drop-seen`` and ``--columns``: how ``--run`` files are read.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_list_options(parser)
    >>> args = parser.parse_args(["--drop-seen", "--columns", "user=uid,score=pred"])
    >>> args.strict, args.drop_seen, args.columns
    (False, True, 'user=uid,score=pred')
    """
    parser.add_argument(
        "--strict",
        action="store_true",
        help="refuse a --run listing users or items the dataset's split does not hold (default: skip "
        "and count the users; score the items as misses at their ranks, and count them)",
    )
    parser.add_argument(
        "--drop-seen",
        action="store_true",
        help="drop the items of a user's training or validation data from its --run lists before the "
        "cut at k (default: keep them, scored as misses, and count them)",
    )
    parser.add_argument(
        "--columns",
        default=None,
        metavar="ROLE=NAME,...",
        help="the --run tables' column names, when not user/user_id, item/item_id, rank, score or "
        "items/item_list: e.g. user=uid,item=movie,score=prediction or user=customer_id,items=prediction",
    )


def parse_columns(text: str | None) -> dict[str, str] | None:
    """``--columns user=uid,score=pred`` as role -> column name.

    Examples
    --------
    >>> parse_columns("user=uid, score=pred")
    {'user': 'uid', 'score': 'pred'}
    >>> parse_columns("uid")
    Traceback (most recent call last):
    ...
    ValueError: --columns must be ROLE=NAME,... with roles user, item, rank, score, items; got 'uid'
    """
    from puf.evaluation.run_files import COLUMN_NAMES

    if text is None:
        return None
    columns = {}
    for spec in text.split(","):
        role, equals, name = (part.strip() for part in spec.partition("="))
        if not equals or not name or role not in COLUMN_NAMES or role in columns:
            roles = ", ".join(COLUMN_NAMES)
            raise ValueError(f"--columns must be ROLE=NAME,... with roles {roles}; got {text!r}")
        columns[role] = name
    if "rank" in columns and "score" in columns:
        raise ValueError(f"--columns names rank and score; a run is ordered by one of them, got {text!r}")
    return columns


def add_scheduler_option(parser: argparse.ArgumentParser) -> None:
    """Add ``--scheduler ADDRESS``: the engines' blocks as tasks on a dask.distributed cluster.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> add_scheduler_option(parser)
    >>> parser.parse_args(["--scheduler", "tcp://10.0.0.5:8786"]).scheduler
    'tcp://10.0.0.5:8786'
    """
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="run the engines' blocks on the dask.distributed cluster of this scheduler, e.g. "
        "tcp://10.0.0.5:8786 (needs the dask extra); the values are those of a local run",
    )


@contextlib.contextmanager
def engine_options(address: str | None) -> Iterator[dict[str, Any]]:
    """The engines' ``engine`` and ``scheduler`` for ``--scheduler``: one client for the whole command.

    Connected before any work, so a wrong address fails at once; closed when the command ends.

    Raises
    ------
    ImportError
        ``--scheduler`` without dask.distributed installed (the message says what to install).
    ValueError
        The scheduler cannot be reached.

    Examples
    --------
    >>> with engine_options(None) as options:
    ...     options
    {'engine': 'local', 'scheduler': None}
    """
    if address is None:
        yield {"engine": "local", "scheduler": None}
        return
    from puf.engines.dask import DaskExecutor

    try:
        connected = DaskExecutor(address)
    except ValueError as exc:
        raise ValueError(f"--scheduler {address}: {exc}") from None
    with connected:
        yield {"engine": "dask", "scheduler": connected.client}


def chosen_measures(specs: Sequence[str] | None) -> list[Measure] | None:
    """None (every registered measure) or those and the --measure specs, through the one loader."""
    if not specs:
        return None
    from puf import MEASURES, load_measure

    loaded = [load_measure(spec) for spec in specs]
    known = {m.function for m in MEASURES.values()}
    registered: list[str | Measure] = ["P@k", "NDCG@k"] + [m for m in MEASURES.values() if m.tables]
    return registered + [m for m in loaded if m.function not in known]


def device_params(names: str | Iterable[str], device: str) -> dict[str, dict[str, str]]:
    """The torch rankers' ``device`` keyword, for the named (or all) rankers."""
    from puf.rankers import RANKERS
    from puf.rankers.neural import TorchRanker

    chosen = RANKERS if names == "all" else names
    return {
        name: {"device": device}
        for name in chosen
        if issubclass(RANKERS[name.lower()], TorchRanker) and device != "cpu"
    }
