"""The harness's end of a measure's worker (private): start it, ask it, check each answer, kill it.

An answer is read by an unpickler that builds plain values only (tuples, lists, dicts,
strings, numbers, None): whatever the worker's process writes on the socket, reading it
runs no code in the harness. It must carry the id of the request it answers and the pid
of the worker that said hello; anything else is foreign (a process the measure forked,
or the measure writing on the socket itself).
"""

from __future__ import annotations

__all__ = ["Channel", "ChannelError"]

from typing import TYPE_CHECKING, Any, NoReturn
from collections.abc import Iterable
import contextlib
import io
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import time
import warnings
from multiprocessing.connection import Connection


from ._worker import BOOT, keep

if TYPE_CHECKING:
    from puf.metadata import Measure

_MAX_ANSWER = 64 << 20  # bytes; an answer is a few numbers and strings


class ChannelError(Exception):
    """The worker ended, or something that is not its answer came on the socket (``foreign``)."""

    def __init__(self, message: str, *, foreign: bool = False) -> None:
        super().__init__(message)
        self.foreign = foreign


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> NoReturn:
        raise pickle.UnpicklingError(f"{module}.{name} is not a plain value")


class Channel:
    """A worker's processes and socket: ``source`` a spec (fresh interpreter) or a Measure (fork).

    ``others`` are the channels of other workers, whose sockets a forked keeper closes.
    """

    def __init__(self, source: str | Measure, others: Iterable[Channel] = ()) -> None:
        parent, child = socket.socketpair()
        self._popen = None
        try:
            if isinstance(source, str):
                self._popen = subprocess.Popen(
                    [sys.executable, "-c", BOOT, str(child.fileno()), str(os.getpid())],
                    pass_fds=(child.fileno(),),
                    start_new_session=True,
                    stdin=subprocess.DEVNULL,
                    stdout=sys.__stderr__.fileno() if sys.__stderr__ is not None else subprocess.DEVNULL,
                )
                self.group = self._popen.pid
            else:
                self.group = self._fork(parent, child, source, others)
        finally:
            child.close()
        self._connection = Connection(parent.detach())
        self.worker_pid = None
        self._next_id = 0

    @staticmethod
    def _fork(parent: socket.socket, child: socket.socket, measure: Measure, others: Iterable[Channel]) -> int:
        harness = os.getpid()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # fork with threads (3.12+)
            pid = os.fork()
        if pid == 0:  # the keeper: never returns into the caller's code
            try:
                os.setsid()
                parent.close()
                for other in others:
                    other.abandon()
                keep(Connection(child.detach()), harness, measure)
            finally:
                os._exit(1)
        return pid

    def abandon(self) -> None:
        """Close this process's copy of the socket, leaving the worker alone (in a forked child)."""
        with contextlib.suppress(OSError):
            self._connection.close()

    def ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        """Send a request (kind None: read the hello) and return the worker's reply.

        Raises ``TimeoutError`` when the whole reply has not come within ``time_limit``
        seconds (a partial message too), and ChannelError
        when the worker ended or the answer is not its own.
        """
        request_id, self._next_id = self._next_id, self._next_id + 1
        deadline = None if time_limit is None else time.monotonic() + time_limit
        try:
            if kind is not None:
                self._connection.send((request_id, kind, payload))
            ready = self._connection.poll(time_limit)
        except (OSError, ValueError):
            ready = True  # the worker is gone: reading says how
        if not ready:
            raise TimeoutError(time_limit)
        try:
            data = self._receive(deadline)
        except TimeoutError:  # an OSError: the message did not end within the limit
            raise TimeoutError(time_limit) from None
        except (EOFError, OSError):
            raise ChannelError("the measure's process ended") from None
        try:
            answer = _PlainUnpickler(io.BytesIO(data)).load()
            answer_id, pid, reply = answer
        except Exception:
            raise ChannelError("something that is not an answer came on the worker's socket", foreign=True) from None
        if kind is None and self.worker_pid is None:
            self.worker_pid = pid
        if answer_id != request_id or pid != self.worker_pid:
            raise ChannelError(
                f"process {pid} answered request {answer_id} for the worker "
                f"{self.worker_pid}, which was asked request {request_id} "
                "(the measure forked, or wrote on the socket)",
                foreign=True,
            )
        return reply

    def _receive(self, deadline: float | None) -> bytes:
        """One message (multiprocessing's framing), all of it before ``deadline`` (TimeoutError)."""
        (size,) = struct.unpack("!i", self._read(4, deadline))
        if size == -1:
            (size,) = struct.unpack("!Q", self._read(8, deadline))
        if size > _MAX_ANSWER:
            raise ChannelError(f"a message of {size} bytes came on the worker's socket", foreign=True)
        return self._read(size, deadline)

    def _read(self, size: int, deadline: float | None) -> bytes:
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
        with contextlib.suppress(OSError):
            self._connection.close()
        code = self._wait(grace) if grace else None
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self.group, signal.SIGKILL)
        return code if code is not None else self._wait(None)

    def _wait(self, timeout: float | None) -> int | None:
        """The keeper's exit code once it ended (None if still running after ``timeout``)."""
        if self._popen is not None:
            try:
                return self._popen.wait(timeout)
            except subprocess.TimeoutExpired:
                return None
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
