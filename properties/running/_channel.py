"""Both ends of a measure's worker (private): :class:`Channel` starts, asks and kills it; :func:`keep` is it.

Requests go pickled; answers come back as JSON naming their request and the worker that said hello, so
nothing the worker's process writes runs code in the harness, and a foreign answer is refused.
"""

from __future__ import annotations

__all__ = ["Channel", "ChannelError", "keep"]

from collections.abc import Mapping
from multiprocessing.connection import Connection
from typing import TYPE_CHECKING, Any, NoReturn
import contextlib
import dataclasses
import json
import os
import signal
import socket
import struct
import sys
import time
import warnings

from puf.parallel import die_with_parent, start_child
from puf.returned import outcome, raised_line

if TYPE_CHECKING:
    from puf.metadata import Measure

# What a fresh worker interpreter runs, given its socket as descriptor 3, the harness's pid and its
# import path (a module the harness imports from a folder it added, a test's or a notebook's, loads).
_BOOT = (
    "import json, sys; sys.path[:] = json.loads(sys.argv[2]); "
    "from puf.properties.running._channel import keep; keep(3, int(sys.argv[1]), None)"
)


class ChannelError(Exception):
    """Something that is not the worker's answer came on the socket."""


class Channel:
    """The harness's end of a worker: its keeper (pid ``group``, leading a process group of its own),
    forked from here to serve a Measure or to execute a fresh interpreter that loads a spec; what the
    measure prints goes to the file ``output`` (appended), or with None to the harness's stderr."""

    def __init__(self, source: str | Measure, output: str | None = None) -> None:
        ours, theirs = socket.socketpair()
        harness = os.getpid()
        with warnings.catch_warnings(action="ignore", category=DeprecationWarning):  # fork with threads
            pid = os.fork()  # (a forked child closes the harness's other workers' sockets: isolation)
        if pid == 0:  # the keeper: never returns into the caller's code
            try:
                os.setsid()
                ours.close()
                if output is not None:  # (the worker's stdout follows its stderr)
                    os.dup2(sink := os.open(output, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600), 2)
                    os.close(sink)
                if isinstance(source, str):  # a new interpreter, given no descriptor of ours but its socket
                    os.dup2(theirs.fileno(), 3)
                    os.set_inheritable(3, True)  # (dup2 onto itself leaves it close-on-exec)
                    os.closerange(4, os.sysconf("SC_OPEN_MAX"))
                    path = json.dumps(sys.path, default=str)  # (a Path someone appended is a str there)
                    os.execv(sys.executable, [sys.executable, "-c", _BOOT, str(harness), path])
                keep(theirs.detach(), harness, source)
            finally:
                os._exit(1)
        theirs.close()
        self.group, self.worker_pid, self._next_id, self._connection = pid, None, 0, Connection(ours.detach())

    def abandon(self) -> None:
        """Close this process's copy of the socket, leaving the worker alone (in a forked child)."""
        with contextlib.suppress(OSError):
            self._connection.close()

    def ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        """Send a request (kind None: read the hello) and return the reply: TimeoutError unless it came
        whole within ``time_limit`` seconds, EOFError or OSError if the worker ended, ChannelError if foreign."""
        request_id, self._next_id = self._next_id, self._next_id + 1
        deadline = None if time_limit is None else time.monotonic() + time_limit
        try:
            if kind is not None:
                self._connection.send((request_id, kind, payload))
            (size,) = struct.unpack("!i", self._read(4, deadline))
            if not 0 <= size <= 64 << 20:  # an answer is a few numbers and strings
                raise ValueError(size)
            answer_id, pid, reply = json.loads(self._read(size, deadline))
        except (EOFError, OSError):  # (TimeoutError too)
            raise
        except Exception:
            raise ChannelError("something that is not an answer came on the worker's socket") from None
        self.worker_pid = pid if kind is None and self.worker_pid is None else self.worker_pid
        if answer_id != request_id or pid != self.worker_pid:
            raise ChannelError(
                f"process {pid} answered request {answer_id} for the worker {self.worker_pid}, which was "
                f"asked request {request_id} (the measure forked, or wrote on the socket)"
            )
        return reply

    def _read(self, size: int, deadline: float | None) -> bytes:
        data = b""
        while len(data) < size:
            if not self._connection.poll(None if deadline is None else max(0.0, deadline - time.monotonic())):
                raise TimeoutError
            if not (chunk := os.read(self._connection.fileno(), size - len(data))):
                raise EOFError
            data += chunk
        return data

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the process group, after ``grace`` seconds for the keeper to end alone (its death is then
        named by its own status); return the keeper's exit code (None: not known)."""
        self.abandon()
        deadline, ended = time.monotonic() + grace, (0, 0)
        with contextlib.suppress(ChildProcessError):
            while not (ended := os.waitpid(self.group, os.WNOHANG))[0] and time.monotonic() < deadline:
                time.sleep(0.01)
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.group, signal.SIGKILL)
        with contextlib.suppress(ChildProcessError):
            ended = ended if ended[0] else os.waitpid(self.group, 0)
        return os.waitstatus_to_exitcode(ended[1]) if ended[0] else None


def keep(fd: int, parent_pid: int, measure: Measure | None) -> NoReturn:
    """Be the keeper of a worker on the socket ``fd``, dying with the harness (``parent_pid``) and exiting
    with the worker's status. The worker serves ``measure`` (None: the spec of the first request): it
    says hello, then answers (id, "load", spec), (id, "call", [fields]) and (id, "first", [fields])."""
    start_child(parent_pid)
    connection, keeper = Connection(fd), os.getpid()
    if (worker := os.fork()) != 0:
        connection.close()  # the worker alone speaks to the harness
        _exit_as(worker)
    try:
        die_with_parent(keeper)
        os.register_at_fork(after_in_child=lambda: die_with_parent(os.getppid()))
        os.dup2(2, 1)  # what a measure prints is not the harness's output
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
        # A line at a time, to the descriptor (not a copy of the harness's pytest or notebook
        # stream): what a measure printed before it hung and was killed is there.
        sys.stdout = sys.stderr = open(2, "w", buffering=1, errors="backslashreplace", closefd=False)
        me, request_id = os.getpid(), 0
        reply: Any = "ready"  # the hello, then each request's answer
        while os.getpid() == me:  # a copy the measure forked ends here: only the worker answers
            connection.send_bytes(json.dumps([request_id, me, reply], default=str).encode())
            try:
                request_id, kind, payload = connection.recv()
            except (EOFError, OSError):
                break
            if kind == "load":
                measure, reply = _load(payload)
            elif kind == "first":
                reply = _first_outcomes(measure, payload, connection)
            else:
                reply = [outcome(measure, fields) for fields in payload]
        os._exit(0)
    finally:
        os._exit(1)  # (an error in the worker: it never returns into the caller's code)


def _exit_as(child: int) -> NoReturn:
    """Wait for ``child`` and exit with its status (killed by signal n: 128 + n, as shells say)."""
    code = os.waitstatus_to_exitcode(os.waitpid(child, 0)[1])
    os._exit(128 - code if code < 0 else code)


def _first_outcomes(measure: Measure | None, fields: list[Mapping[str, Any]], connection: Connection) -> Any:
    """The outcomes of ``fields`` in a process forked for them; if it ends without them, so does the worker."""
    worker, (read, write) = os.getpid(), os.pipe()
    if (pid := os.fork()) == 0:
        connection.close()  # this copy says nothing to the harness
        reply = json.dumps([outcome(measure, one) for one in fields], default=str).encode()
        if os.getppid() == worker:  # (not a copy the measure forked)
            os.write(write, reply)
        os._exit(0)
    os.close(write)
    with open(read, "rb") as source:
        try:
            answer = json.loads(source.read())
        except ValueError:
            _exit_as(pid)
    os.waitpid(pid, 0)
    return answer


def _load(spec: str) -> tuple[Measure | None, list[Any]]:
    """The measure ``spec`` names, and the answer: ``["ready", its metadata]`` or ``["failed", why]``."""
    from puf.loader import load_measure  # (not at the top: a fresh worker says hello before this import)

    sys.argv = [spec.rpartition(":")[0]]  # (a module that parses its arguments at import sees none)
    try:
        with warnings.catch_warnings(action="ignore"):
            measure = load_measure(spec)
    except BaseException as exc:  # KeyboardInterrupt at import too: the user's module failed
        return None, ["failed", raised_line(exc, named=not isinstance(exc, ValueError))]
    facts = {f.name: getattr(measure, f.name) for f in dataclasses.fields(measure) if f.name != "function"}
    origin = f"{getattr(measure.function, '__module__', '?')}:{getattr(measure.function, '__qualname__', '')}"
    return measure, ["ready", {**facts, "origin": origin}]
