"""Terminal lines of at most 100 columns: the width, text folded under a hanging indent, tables.

What the commands print reads on a terminal of :data:`WIDTH` columns, whatever the terminal says
when it is wider or says nothing (a pipe, a file): a long line is folded at its spaces, its next
lines indented under where its text starts (a word longer than a line, a long path, stays whole);
a table whose rows are too wide wraps its last column under that column, or, when the last
column would be too narrow, shows its columns in blocks, each led by the first column.
"""

from __future__ import annotations

__all__ = ["WIDTH", "terminal_width", "folded", "fitted", "table", "print_message"]

from collections.abc import Sequence
from typing import TextIO
import shutil
import sys
import textwrap

WIDTH = 100
"""The widest line the commands print."""

_NARROWEST = 40  # a terminal narrower than this still gets lines of this width
_ROOM = 24  # the least room a wrapped last column keeps before the table is cut in blocks


def terminal_width() -> int:
    """The width the commands' lines take: the terminal's, at most :data:`WIDTH` (a pipe, a file
    or an unknown terminal: :data:`WIDTH`), at least 40.

    Examples
    --------
    >>> 40 <= terminal_width() <= WIDTH
    True
    """
    columns = shutil.get_terminal_size((WIDTH, 24)).columns
    return max(_NARROWEST, min(WIDTH, columns))


def folded(line: str, width: int, *, hang: int | None = None) -> str:
    """``line`` folded into lines of at most ``width`` characters at its spaces; the next lines
    start with ``hang`` spaces (default: the line's own indent plus 2). A word longer than a line
    (a long path) stays whole, on a line of its own, so that it can be copied.

    Examples
    --------
    >>> print(folded("value before 0.1, after 0.2, violation 0.1", 20, hang=6))
    value before 0.1,
          after 0.2,
          violation 0.1
    >>> folded("short", 20)
    'short'
    """
    if len(line) <= width:
        return line
    indent = len(line) - len(line.lstrip(" "))
    hang = min(indent + 2 if hang is None else hang, max(width - _ROOM, width // 2))  # room to fold into
    wrapper = textwrap.TextWrapper(
        width=width,
        initial_indent=" " * indent,
        subsequent_indent=" " * hang,
        break_on_hyphens=False,
        break_long_words=False,
    )
    return "\n".join(wrapper.wrap(line[indent:]))


def fitted(text: str, width: int, *, hang: int | None = None) -> str:
    """Every line of ``text`` folded to ``width`` characters (:func:`folded`).

    Examples
    --------
    >>> print(fitted("a b c d\\nshort", 5))
    a b c
      d
    short
    """
    return "\n".join(folded(line, width, hang=hang) for line in text.split("\n"))


def print_message(text: str, stream: TextIO | None = None) -> None:
    """Print the message ``text`` (a failure, what reading a run found) on ``stream`` (default
    stderr): folded to :func:`terminal_width` when the stream is a terminal, where a person reads
    it; one line in a pipe or a file, where a tool reads it a line per message (``grep``, a CI log).

    Examples
    --------
    >>> import io
    >>> stream = io.StringIO()   # not a terminal: one line, however long
    >>> print_message("puf check: " + "word " * 30, stream); stream.getvalue().count("\\n")
    1
    """
    stream = sys.stderr if stream is None else stream
    at_terminal = getattr(stream, "isatty", lambda: False)()
    print(fitted(text, terminal_width()) if at_terminal else text, file=stream)


def _rendered(rows: Sequence[Sequence[str]], widths: list[int], columns: list[int], width: int | None) -> str:
    """The ``columns`` of ``rows``, each line folded to ``width`` under the last column's start."""
    lines = ["  ".join(row[i].ljust(widths[i]) for i in columns).rstrip() for row in rows]
    if width is None:
        return "\n".join(lines)
    start = sum(widths[i] + 2 for i in columns[:-1])
    return "\n".join(folded(line, width, hang=start) for line in lines)


def table(rows: Sequence[Sequence[str]], width: int | None = None) -> str:
    """``rows`` (the first one the heading) as columns two spaces apart, in lines of at most
    ``width`` characters (None: as wide as they are).

    Examples
    --------
    >>> print(table([["name", "says"], ["sd", "the standard deviation of S"]], 20))
    name  says
    sd    the standard
          deviation of S
    >>> print(table([["m", "a", "b", "c"], ["1", "xxxxx", "yyyyy", "zzzzz"]], 15))
    m  a      b
    1  xxxxx  yyyyy
    <BLANKLINE>
    m  c
    1  zzzzz
    """
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    start = sum(widths[:-1]) + 2 * (len(widths) - 1)  # where the last column starts
    if width is None or width - start >= _ROOM or len(widths) < 3:
        return _rendered(rows, widths, list(range(len(widths))), width)
    blocks: list[list[int]] = []
    for i in range(1, len(widths)):
        used = widths[0] + sum(widths[j] + 2 for j in blocks[-1]) if blocks else width
        if used + 2 + widths[i] > width:
            blocks.append([i])
        else:
            blocks[-1].append(i)
    return "\n\n".join(_rendered(rows, widths, [0, *block], width) for block in blocks)
