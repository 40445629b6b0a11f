"""The ``puf`` command line: a thin dispatcher over :mod:`puf.cli.commands`.

The top of the stack: it imports every other part of the harness and nothing imports it.
Every command ends with one of the exit codes of :mod:`puf.cli.exitcodes`, their one home.
Every failure prints one line, ``puf COMMAND: ...``, on stderr, folded only at a terminal
(:func:`puf.lines.print_message`); no traceback.
"""

from __future__ import annotations

__all__ = ["main", "command", "build_parser"]

from collections.abc import Iterator, Sequence
from typing import NoReturn
import argparse
import contextlib
import importlib
import os
import signal
import sys
import threading

from puf.lines import print_message

from .commands import COMMANDS
from .exitcodes import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    Terminated,
    exit_code,
    terminations_interrupt,
)

#: Seconds the interpreter's exit may take, after a run a signal or Ctrl-C ended, before the
#: process ends with the run's code anyway.
EXIT_GRACE = 10.0


class _Parser(argparse.ArgumentParser):
    """A parser whose help and usage fit the terminal, at most :data:`puf.lines.WIDTH` columns
    (argparse's own width is the terminal's, however wide); its subcommands' parsers are its kind."""

    def _get_formatter(self) -> argparse.HelpFormatter:
        from puf.lines import terminal_width

        return argparse.HelpFormatter(prog=self.prog, width=terminal_width())


def build_parser() -> argparse.ArgumentParser:
    """Return the ``puf`` argument parser with every available subcommand.

    Examples
    --------
    >>> parser = build_parser()
    >>> parser.parse_args(["measures"]).command
    'measures'
    """
    from puf import __version__

    parser = _Parser(
        prog="puf",
        description="Property-based harness for individual user fairness measures.",
    )
    parser.add_argument("--version", action="version", version=f"puf-harness {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"puf.cli.commands.{name}")
        except ModuleNotFoundError as exc:
            # A subcommand whose module is not part of this install is simply absent.
            if exc.name != f"puf.cli.commands.{name}":
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``puf`` command line and return its exit code.

    Examples
    --------
    >>> main(["measures", "--format", "names"])  # doctest: +ELLIPSIS
    puf
    puf-as-printed
    ...
    0
    """
    with _bars_that_fit():  # before the commands' modules import tqdm, which reads it then
        return _run(argv)


def command() -> NoReturn:
    """The ``puf`` program (the console script, ``python -m puf.cli``): :func:`main` on the
    command line, then exit with its code.

    A run that SIGTERM, SIGHUP or Ctrl-C ended exits within :data:`EXIT_GRACE` seconds. The signal
    can land inside the standard library's locked code (a process pool's queue, a future's
    condition, as its results are awaited) and leave a lock held that the pool's manager thread
    then waits for; the interpreter's exit waits for that thread, which would be forever.

    Examples
    --------
    >>> import subprocess, sys
    >>> subprocess.run([sys.executable, "-m", "puf.cli", "--version"], capture_output=True, text=True).stdout  # doctest: +ELLIPSIS
    'puf-harness ...'
    """
    code = main()
    signals = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    if code in {EXIT_INTERRUPTED, *(exit_code(Terminated(signum)) for signum in signals)}:
        ending = threading.Timer(EXIT_GRACE, _end_now, (code,))
        ending.daemon = True  # (an exit that finishes in time is not waited for)
        ending.start()
    sys.exit(code)


def _end_now(code: int) -> None:
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(code)


def _run(argv: Sequence[str] | None) -> int:
    """:func:`main`'s work: parse, run the command, turn a failure into one line and a code."""
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:  # said by the command's own parser, whose usage names its options
        commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        (commands.choices.get(args.command) or parser).error(f"unrecognized arguments: {' '.join(unknown)}")
    if args.command is None:
        parser.print_help()
        return EXIT_OK
    try:
        # SIGTERM unwinds as Ctrl-C does.
        with terminations_interrupt(), _warnings_in_one_line(args.command):
            code = int(args.func(args) or EXIT_OK)
            sys.stdout.flush()  # (a reader gone away is met here, not in the interpreter's exit)
            return code
    except BrokenPipeError as exc:  # the reader of stdout stopped (`| head`): nothing to tell it
        with contextlib.suppress(OSError, ValueError):  # (a stdout of no descriptor: nothing to close)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # (stdout is flushed at exit)
        return exit_code(exc)
    except KeyboardInterrupt as exc:
        word = f"terminated ({signal.Signals(exc.signum).name})" if isinstance(exc, Terminated) else "interrupted"
        print_message(f"puf {args.command}: {word}")
        return exit_code(exc)
    except Exception as exc:  # the last line of defence: one line, an exit code, no traceback
        return _report_failure(args.command, exc)


@contextlib.contextmanager
def _bars_that_fit() -> Iterator[None]:
    """Progress bars as wide as the commands' lines (tqdm reads ``TQDM_NCOLS`` when it is
    imported, in the workers too), unless the user set their width; the environment as it was after."""
    from puf.lines import terminal_width

    if "TQDM_NCOLS" in os.environ:
        yield
        return
    os.environ["TQDM_NCOLS"] = str(terminal_width())
    try:
        yield
    finally:
        os.environ.pop("TQDM_NCOLS", None)


@contextlib.contextmanager
def _warnings_in_one_line(command: str) -> Iterator[None]:
    """Warnings as ``puf COMMAND: warning: MESSAGE``, without the source line they came from,
    folded to the commands' width."""
    import warnings

    from puf.lines import fitted, terminal_width

    def show(message: Warning | str, category: type[Warning], *_: object, **__: object) -> None:
        from tqdm import tqdm  # (imported once the commands' bar width is set)

        # Through tqdm: a progress bar running on stderr is cleared first and drawn again after,
        # so the warning gets a line of its own instead of the bar's.
        tqdm.write(fitted(f"puf {command}: warning: {message}", terminal_width()), file=sys.stderr)

    with warnings.catch_warnings():
        warnings.showwarning = show
        yield


def _report_failure(command: str, exc: Exception) -> int:
    """Print ``exc`` in one line and return its exit code (see the module docstring)."""
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    code = exit_code(exc)
    if code == EXIT_INTERNAL:
        if os.environ.get("PUF_DEBUG"):
            raise exc
        text = (
            f"internal error: {type(exc).__name__}: {text} "
            "(rerun with PUF_DEBUG=1 for the traceback, and please report it)"
        )
    elif code == EXIT_BAD_INPUT and isinstance(exc, OSError) and not isinstance(exc, (ValueError, ImportError)):
        text = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else text
    text += "".join(f"; {note}" for note in getattr(exc, "__notes__", ()))  # e.g. where files were kept
    print_message(f"puf {command}: {text}")
    return code
