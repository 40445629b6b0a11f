"""``puf measures``: the table of every registered measure.

Each row shows the declared range (what the ``range`` property checks) and the
values the measure can take (its ``attainable`` metadata); they differ for
SD ([0, 0.5] inside [0, 1]) and the printed forms ([0, 2], outside [0, 1]).
"""

from __future__ import annotations

__all__ = ["register", "run", "measures_table"]

import argparse
from ..exitcodes import EXIT_OK


def _interval(low: float, high: float) -> str:
    """``[0, 1]``, with an open end at an infinity: ``(−∞, ∞)``."""
    left = "(−∞" if low == float("-inf") else f"[{low:g}"
    right = "∞)" if high == float("inf") else f"{high:g}]"
    return f"{left}, {right}"


def measures_table() -> list[dict[str, str]]:
    """Return one row per registered measure: name, reads, declared range, values, fairer end, family,
    definition.

    ``declared`` is the range the measure declares (and the ``range`` property
    checks); ``values`` the values it can take on valid input, as the README's
    table lists them (the measure's ``attainable``; "—" when it declares none).

    Examples
    --------
    >>> rows = measures_table()
    >>> rows[0]["name"], rows[0]["family"], rows[0]["reads"]
    ('puf', 'similarity-aware', 'effectiveness, similarity')
    >>> [(r["declared"], r["values"]) for r in rows if r["name"] in ("sd", "uf", "ge-1")]
    [('[0, 1]', '[0, 0.5]'), ('(−∞, ∞)', '(−∞, ∞)'), ('[0, ∞)', '[0, ln m]')]
    """
    from puf import MEASURES

    return [
        {
            "name": m.name,
            "family": m.family,
            "reads": ", ".join(m.reads),
            "declared": _interval(*m.range),
            "values": m.attainable or "—",
            "fairer": m.direction,
            "definition": m.definition,
        }
        for m in MEASURES.values()
    ]


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add ``measures`` to the ``puf`` parser.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser(prog="puf")
    >>> register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["measures", "--format", "names"]).format
    'names'
    """
    parser = subparsers.add_parser("measures", help="list every registered fairness measure")
    parser.add_argument(
        "--format",
        choices=("table", "names"),
        default="table",
        help="a table (default) or the bare names, one a line",
    )
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Print every registered measure (a table, or the names one a line); return 0.

    Examples
    --------
    >>> import argparse
    >>> run(argparse.Namespace(format="names"))  # doctest: +ELLIPSIS
    puf
    ...
    0
    """
    rows = measures_table()
    if args.format == "names":
        print("\n".join(r["name"] for r in rows))
        return EXIT_OK
    from puf.lines import table, terminal_width

    columns = ("name", "reads", "declared", "values", "fairer", "family", "definition")
    print(table([columns, *([r[c] for c in columns] for r in rows)], terminal_width()))
    return EXIT_OK
