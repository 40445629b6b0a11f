"""The worker processes of users' measures: one :class:`MeasureWorker` per measure.

How the processes are made, and why they cannot reach the harness, is told in
:mod:`puf.properties.isolation`; this module holds the workers alive at a time
(a few, oldest closed first) and what a call through one of them can end with.
"""

from __future__ import annotations

__all__ = [
    "IMPORT_TIME_LIMIT",
    "WorkerTimeout",
    "WorkerDied",
    "WorkerBroken",
    "Outcome",
    "MeasureWorker",
    "worker_of",
    "release_workers",
    "live_workers",
]

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple
import atexit
import os

from puf.metadata import Measure

from ._channel import Channel, ChannelError, describe_status

IMPORT_TIME_LIMIT = 60.0
"""Seconds a fresh worker may take to start and import the measure's module."""


class WorkerTimeout(Exception):
    """The worker did not answer within the time limit; it has been killed."""


class WorkerDied(Exception):
    """The worker process ended during a call (``os._exit``, a crash, a kill, a signalled parent)."""


class WorkerBroken(WorkerDied):
    """An answer did not belong to its request (another process wrote it); the worker is killed."""


class Outcome(NamedTuple):
    """One call's outcome in a worker: the number (None when not a real number), type, error."""

    number: float | None
    kind: str
    error: str | None


class MeasureWorker:
    """The worker of one measure: ``source`` is a spec (a fresh interpreter) or a Measure (forked).

    Examples
    --------
    >>> from puf import as_measure
    >>> worker = MeasureWorker(as_measure(lambda effectiveness: sum(effectiveness)))
    >>> worker.call({"effectiveness": [0.25, 0.5]}, 1.0)
    (0.75, 'float')
    >>> [o.number for o in worker.call_many([{"effectiveness": [1.0]}] * 2, 1.0)]
    [1.0, 1.0]
    >>> _ = worker.close()
    """

    def __init__(self, source: str | Measure) -> None:
        self.source = source
        self.facts: dict[str, Any] | None = None  # a spec's measure metadata, once loaded
        self._channel: Channel | None = None

    def start(self, time_limit: float = IMPORT_TIME_LIMIT) -> dict[str, Any] | None:
        """Start the worker if none runs; return the metadata of a spec's measure (else None).

        Raises
        ------
        ValueError
            The spec cannot be loaded (the loader's one-line message).
        WorkerTimeout, WorkerDied
            Loading took over ``time_limit`` seconds, or the worker ended while loading.
        """
        if self._channel is not None:
            return self.facts
        others = [w._channel for w in _WORKERS.values() if w._channel is not None]
        self._channel = Channel(self.source, others)
        reply = self._ask(None, None, time_limit)  # the worker's hello: who it is
        if isinstance(self.source, str):
            reply = self._ask("load", self.source, time_limit)
            if reply[0] == "failed":
                self.close()
                raise ValueError(reply[1])
            self.facts = reply[1]
        return self.facts

    def _ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        if self._channel is None:
            raise WorkerDied("the worker is not running")
        try:
            return self._channel.ask(kind, payload, time_limit)
        except TimeoutError:
            self.close()
            raise WorkerTimeout(f"timed out after {time_limit:g} s") from None
        except ChannelError as exc:
            status = self.close(grace=2.0)
            kind_of = WorkerBroken if exc.foreign else WorkerDied
            raise kind_of(f"{exc} ({describe_status(status)})") from None

    def call(self, fields: Mapping[str, Any], time_limit: float | None) -> tuple[float | None, str]:
        """Return ``(number or None, type name)`` of the measure's value on ``fields``.

        Raises
        ------
        WorkerTimeout
            No answer within ``time_limit`` seconds (the worker is killed).
        WorkerDied
            The worker ended during the call, or an answer came from another process.
        RuntimeError
            The measure raised; the message is its first line.
        """
        self.start()
        reply = self._ask("call", fields, time_limit)
        if reply[0] == "raised":
            raise RuntimeError(reply[1])
        return reply[1], reply[2]

    def call_many(self, fields_list: Iterable[Mapping[str, Any]], time_limit: float | None) -> list[Outcome]:
        """Return one :class:`Outcome` per fields dict, all asked in one request.

        ``time_limit`` bounds the whole request; raises as :meth:`call` does,
        but a measure that raises gives an Outcome with ``error`` set.
        """
        self.start()
        reply = self._ask("many", list(fields_list), time_limit)
        return [Outcome(None, "", r[1]) if r[0] == "raised" else Outcome(r[1], r[2], None) for r in reply[1]]

    @property
    def running(self) -> bool:
        """True while the worker's processes are up."""
        return self._channel is not None

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the worker's process group and reap it; return the keeper's exit code (or None)."""
        channel, self._channel = self._channel, None
        return None if channel is None else channel.close(grace)


_WORKERS = {}  # a spec, or id(measure) -> MeasureWorker, oldest first
_MAX_WORKERS = 4


def worker_of(source: str | Measure) -> MeasureWorker:
    """The live worker of ``source`` (a spec or a Measure); a new one if none is alive."""
    key = source if isinstance(source, str) else id(source)
    worker = _WORKERS.get(key)
    if worker is not None and (worker.source is source or isinstance(source, str)):
        return worker
    while len(_WORKERS) >= _MAX_WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()
    worker = _WORKERS[key] = MeasureWorker(source)
    return worker


def release_workers() -> None:
    """Close every worker (the runner does when a measure's verdicts are done; also at exit)."""
    while _WORKERS:
        _WORKERS.pop(next(iter(_WORKERS))).close()


def live_workers() -> int:
    """How many workers are alive (each is a keeper and a worker process).

    Examples
    --------
    >>> release_workers(); live_workers()
    0
    """
    return sum(w.running for w in _WORKERS.values())


def _forget_in_child() -> None:
    """In a forked child: the workers are the parent's; close our copies of their sockets."""
    for worker in _WORKERS.values():
        if worker._channel is not None:
            worker._channel.abandon()
        worker._channel = None
    _WORKERS.clear()


atexit.register(release_workers)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_in_child)
