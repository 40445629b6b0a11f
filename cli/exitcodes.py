"""The one map from how a ``puf`` command ended to its exit code.

==== ==========================================================================
0    done (``puf check`` verdicts, violated ones included, are findings: still 0)
1    a dataset download failed (network, pip): ``ConnectionError``, which
     ``puf.data.DownloadError`` is
2    bad input: an argument, a file or folder that is missing, unreadable or
     unwritable, a measure that cannot be imported or does not return a number
     (``ValueError``, ``ImportError``, ``OSError``)
70   an internal error (a bug in the harness): any other exception
130  interrupted (Ctrl-C, ``KeyboardInterrupt``)
141  the reader of the output went away (``puf check ... | head``): nothing
     more printed, as SIGPIPE ends a process (``BrokenPipeError``)
143  terminated (SIGTERM, as ``kill``, CI runners and schedulers send it;
     :class:`Terminated`); SIGHUP gives 129
==== ==========================================================================

SIGTERM and SIGHUP are handled as Ctrl-C is: the run stops, its output folder is
left as it was, its worker processes are ended.

The dispatcher (:func:`puf.cli.main`) and every command that prints its own
one-line message take the code from :func:`exit_code`, so no command spells a
number.
"""

from __future__ import annotations

__all__ = [
    "EXIT_OK",
    "EXIT_DOWNLOAD",
    "EXIT_BAD_INPUT",
    "EXIT_INTERNAL",
    "EXIT_INTERRUPTED",
    "EXIT_BROKEN_PIPE",
    "EXIT_CODES",
    "Terminated",
    "exit_code",
    "terminations_interrupt",
]

from typing import NoReturn
from collections.abc import Iterator
import contextlib
import os
import signal
import threading
from types import FrameType

from puf.parallel import raised_again

#: The exit codes: done, download failed, bad input, internal error, interrupted.
EXIT_OK, EXIT_DOWNLOAD, EXIT_BAD_INPUT, EXIT_INTERNAL, EXIT_INTERRUPTED = 0, 1, 2, 70, 130


class Terminated(KeyboardInterrupt):
    """The run received SIGTERM or SIGHUP; a KeyboardInterrupt, so it unwinds as Ctrl-C does."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _terminate(signum: int, frame: FrameType | None) -> NoReturn:
    raise Terminated(signum)


def _send_again(interrupt: BaseException) -> None:
    """Send the signal of a SIGTERM, SIGHUP or Ctrl-C whose exception Python dropped again, from a
    thread, so that it lands where it unwinds the run (:func:`puf.parallel.raised_again`)."""
    signum = interrupt.signum if isinstance(interrupt, Terminated) else signal.SIGINT
    again = threading.Timer(0.01, os.kill, (os.getpid(), signum))
    again.daemon = True  # (the run may end before it fires)
    again.start()


@contextlib.contextmanager
def terminations_interrupt() -> Iterator[None]:
    """Within the body, SIGTERM and SIGHUP raise :class:`Terminated` (main thread only). One
    whose exception Python dropped (in an at-fork callback, a finaliser) is sent again, as is
    a Ctrl-C's.

    Examples
    --------
    >>> import os
    >>> try:
    ...     with terminations_interrupt():
    ...         os.kill(os.getpid(), signal.SIGTERM)
    ...         signal.pause()
    ... except Terminated as exc:
    ...     exit_code(exc)
    143
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    names = [s for s in ("SIGTERM", "SIGHUP") if hasattr(signal, s)]
    previous = {name: signal.signal(getattr(signal, name), _terminate) for name in names}
    try:
        with raised_again(KeyboardInterrupt, _send_again):
            yield
    finally:
        for name, handler in previous.items():
            signal.signal(getattr(signal, name), handler)


#: (exception class, exit code); the first class the exception is an instance of wins, so a
#: failed download (a ConnectionError, hence an OSError) is 1, not 2.
#: The code of a run whose output's reader went away (a BrokenPipeError): 128 + SIGPIPE's 13.
EXIT_BROKEN_PIPE = 141

EXIT_CODES = (
    (KeyboardInterrupt, EXIT_INTERRUPTED),
    (BrokenPipeError, EXIT_BROKEN_PIPE),  # (before ConnectionError, which it is)
    (ConnectionError, EXIT_DOWNLOAD),
    (ValueError, EXIT_BAD_INPUT),
    (ImportError, EXIT_BAD_INPUT),
    (OSError, EXIT_BAD_INPUT),
)


def exit_code(exc: BaseException) -> int:
    """Return the exit code for a command that ended with ``exc``.

    Parameters
    ----------
    exc : BaseException
        What the command raised (or caught and reported in one line).

    Returns
    -------
    int
        The code of the first matching class in :data:`EXIT_CODES`, else
        ``EXIT_INTERNAL`` (70).

    Examples
    --------
    >>> from puf.data import DownloadError
    >>> exit_code(DownloadError("no network")), exit_code(FileNotFoundError("x.csv"))
    (1, 2)
    >>> exit_code(ValueError("k must be >= 1")), exit_code(ZeroDivisionError())
    (2, 70)
    """
    if isinstance(exc, Terminated):
        return 128 + int(exc.signum)
    for kind, code in EXIT_CODES:
        if isinstance(exc, kind):
            return code
    return EXIT_INTERNAL
