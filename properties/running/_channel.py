"""The harness's end of a measure's worker (private): start it, ask it, check each answer, kill it.

Requests go pickled; answers come back as JSON carrying their request's id and the pid of the worker
that said hello, so nothing the worker's process writes runs code here, and a foreign one is refused.
"""

from __future__ import annotations

__all__ = ["Channel", "ChannelError"]

from typing import TYPE_CHECKING, Any
from multiprocessing.connection import Connection
import contextlib
import json
import os
import select
import signal
import socket
import struct
import sys
import time
import warnings

from ._worker import BOOT, keep

if TYPE_CHECKING:
    from puf.metadata import Measure


class ChannelError(Exception):
    """Something that is not the worker's answer came on the socket."""


class Channel:
    """A worker's keeper (pid ``group``, a process group of its own), worker and socket: the keeper
    is forked from here and serves a Measure, or executes a fresh interpreter to load a spec."""

    def __init__(self, source: str | Measure) -> None:
        ours, theirs = socket.socketpair()
        harness = os.getpid()
        with warnings.catch_warnings(action="ignore", category=DeprecationWarning):  # fork with threads
            pid = os.fork()  # (a forked child closes the harness's other workers' sockets: isolation)
        if pid == 0:  # the keeper: never returns into the caller's code
            try:
                os.setsid()
                ours.close()
                if isinstance(source, str):  # a new interpreter, given no descriptor of ours but its socket
                    fd = theirs.fileno()
                    os.closerange(3, fd)
                    os.closerange(fd + 1, os.sysconf("SC_OPEN_MAX"))
                    os.set_inheritable(fd, True)
                    os.execv(sys.executable, [sys.executable, "-c", BOOT, str(fd), str(harness)])
                keep(Connection(theirs.detach()), harness, source)
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
        """``size`` bytes from the socket; TimeoutError past ``deadline``, EOFError at its end."""
        fd, data = self._connection.fileno(), b""
        while len(data) < size:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                raise TimeoutError
            if not (chunk := os.read(fd, size - len(data))):
                raise EOFError
            data += chunk
        return data

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the process group, after ``grace`` seconds for the keeper to end alone (its death
        is then named by its own status); return the keeper's exit code (None: not known)."""
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
