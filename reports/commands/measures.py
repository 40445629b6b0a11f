"""``puf measures``: the table of every registered measure."""

__all__ = ["register", "run", "measures_table"]


def measures_table():
    """Return one row per registered measure: name, reads, range, fairer end, family, definition.

    Examples
    --------
    >>> rows = measures_table()
    >>> rows[0]["name"], rows[0]["family"], rows[0]["reads"]
    ('puf', 'similarity-aware', 'effectiveness, similarity')
    >>> next(r for r in rows if r["name"] == "ge-1")["range"]
    '[0, inf]'
    """
    from puf import MEASURES

    return [
        {
            "name": m.name,
            "family": m.family,
            "reads": ", ".join(m.reads),
            "range": f"[{m.range[0]:g}, {m.range[1]:g}]",
            "fairer": m.direction,
            "definition": m.definition,
        }
        for m in MEASURES.values()
    ]


def register(subparsers):
    parser = subparsers.add_parser("measures", help="list every registered fairness measure")
    parser.add_argument(
        "--format", choices=("table", "names"), default="table",
        help="a table (default) or the bare names, one a line",
    )
    parser.set_defaults(func=run)


def run(args):
    rows = measures_table()
    if args.format == "names":
        print("\n".join(r["name"] for r in rows))
        return 0
    columns = ("name", "reads", "range", "fairer", "family", "definition")
    widths = {c: max(len(c), *(len(r[c]) for r in rows)) for c in columns}
    print("  ".join(c.ljust(widths[c]) for c in columns).rstrip())
    print("  ".join("-" * widths[c] for c in columns))
    for r in rows:
        print("  ".join(r[c].ljust(widths[c]) for c in columns).rstrip())
    return 0
