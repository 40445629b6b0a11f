"""The harness's end of a measure's worker (private): start it, ask it, check each answer, kill it.

Requests go to the worker pickled (the harness trusts itself); answers come back as JSON,
read by :func:`json.loads`, so nothing the worker's process writes runs code in the harness.
An answer must carry the id of the request it answers and the pid of the worker that said
hello; anything else is foreign (a process the measure forked, or the measure writing on
the socket itself).
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

_MAX_ANSWER = 64 << 20  # bytes; an answer is a few numbers and strings


class ChannelError(Exception):
    """The worker ended, or something that is not its answer came on the socket (``foreign``)."""

    def __init__(self, message: str, *, foreign: bool = False) -> None:
        super().__init__(message)
        self.foreign = foreign


class Channel:
    """A worker's keeper (``group``: a process group of its own), worker and socket.

    ``source`` is a spec, which a fresh interpreter loads (the keeper, forked from here,
    executes ``python -c BOOT``), or a Measure, served by a keeper forked from here.
    """

    def __init__(self, source: str | Measure) -> None:
        ours, theirs = socket.socketpair()
        harness = os.getpid()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
            pid = os.fork()  # (a forked child forgets the harness's other workers: isolation)
        if pid == 0:  # the keeper: never returns into the caller's code
            try:
                os.setsid()
                ours.close()
                if isinstance(source, str):
                    os.set_inheritable(theirs.fileno(), True)
                    os.execv(sys.executable, [sys.executable, "-c", BOOT, str(theirs.fileno()), str(harness)])
                keep(Connection(theirs.detach()), harness, source)
            finally:
                os._exit(1)
        theirs.close()
        self.group, self.worker_pid, self._next_id = pid, None, 0
        self._connection = Connection(ours.detach())

    def abandon(self) -> None:
        """Close this process's copy of the socket, leaving the worker alone (in a forked child)."""
        with contextlib.suppress(OSError):
            self._connection.close()

    def ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        """Send a request (kind None: read the hello) and return the worker's reply.

        Raises ``TimeoutError`` when the whole reply has not come within ``time_limit``
        seconds, and ChannelError when the worker ended or the answer is not its own.
        """
        request_id, self._next_id = self._next_id, self._next_id + 1
        deadline = None if time_limit is None else time.monotonic() + time_limit
        try:
            if kind is not None:
                self._connection.send((request_id, kind, payload))
            (size,) = struct.unpack("!i", self._read(4, deadline))
            if not 0 <= size <= _MAX_ANSWER:
                raise ValueError(size)
            answer_id, pid, reply = json.loads(self._read(size, deadline))
        except TimeoutError:
            raise TimeoutError(time_limit) from None
        except (EOFError, OSError):
            raise ChannelError("the measure's process ended") from None
        except Exception:
            raise ChannelError("something that is not an answer came on the worker's socket", foreign=True) from None
        if kind is None and self.worker_pid is None:
            self.worker_pid = pid
        if answer_id != request_id or pid != self.worker_pid:
            raise ChannelError(
                f"process {pid} answered request {answer_id} for the worker {self.worker_pid}, which was "
                f"asked request {request_id} (the measure forked, or wrote on the socket)",
                foreign=True,
            )
        return reply

    def _read(self, size: int, deadline: float | None) -> bytes:
        """``size`` bytes, all of them before ``deadline`` (a partial message too: TimeoutError)."""
        fd, data = self._connection.fileno(), bytearray()
        while len(data) < size:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                raise TimeoutError(left)
            chunk = os.read(fd, size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the process group (after ``grace`` seconds to end alone); return the keeper's code."""
        self.abandon()
        code = self._wait(grace) if grace else None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.group, signal.SIGKILL)
        return code if code is not None else self._wait(None)

    def _wait(self, timeout: float | None) -> int | None:
        """The keeper's exit code once it ended (None if still running after ``timeout``)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            try:
                pid, status = os.waitpid(self.group, 0 if deadline is None else os.WNOHANG)
            except ChildProcessError:
                return None
            if pid:
                return os.waitstatus_to_exitcode(status)
            if deadline is not None and time.monotonic() >= deadline:
                return None
            time.sleep(0.01)
