"""What a user's measure prints during a command: kept in a file, named in one line (private).

A measure's ``print`` runs in its worker process on every call, thousands of times in one
``puf check``; on the terminal it would bury the table and break the progress bar. The
lines go to a temporary file instead, which the command names at its end.
"""

from __future__ import annotations

__all__ = ["kept_prints"]

from collections.abc import Iterator
import contextlib
import os
import tempfile

from puf.lines import fitted, terminal_width


@contextlib.contextmanager
def kept_prints(command: str, who: str = "the measure") -> Iterator[None]:
    """Keep what measures print in their workers during the block in a temporary file; at its
    end print one line naming the file, or remove the file if nothing was printed. Where no
    temporary file can be made, what they print goes to stderr.

    Examples
    --------
    >>> from puf.properties.running.isolation import worker_for
    >>> from puf import as_measure
    >>> with kept_prints("puf check"):
    ...     _ = worker_for(as_measure(lambda effectiveness: print("hi") or 1.0)).call({"effectiveness": [0.0]}, 9.0)
    ... # doctest: +ELLIPSIS
    puf check: the measure printed 1 line (the first: 'hi'); kept in .../puf-prints-....txt
    """
    from puf.properties.running.isolation import printed_to

    try:
        descriptor, path = tempfile.mkstemp(prefix="puf-prints-", suffix=".txt")
    except OSError:  # no temporary folder to write in: the prints go to stderr, as from Python
        yield
        return
    os.close(descriptor)
    try:
        with printed_to(path):
            yield
    finally:
        with open(path, "rb") as handle:
            first = handle.readline()
            count = bool(first) + sum(1 for _ in handle)
        if count:
            text = first.decode(errors="replace").rstrip("\r\n")
            text = text if len(text) <= 60 else text[:59] + "…"
            lines = f"{count:,} line{'s' * (count != 1)}"
            print(fitted(f"{command}: {who} printed {lines} (the first: {text!r}); kept in {path}", terminal_width()))
        else:
            os.unlink(path)
