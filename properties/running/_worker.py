"""The worker side of :mod:`~puf.properties.running.isolation` (private): a keeper, which dies with
the harness, and its child the worker, which dies with the keeper and answers each request as JSON.
"""

from __future__ import annotations

__all__ = ["BOOT", "keep", "outcome", "warm_up_fields"]

from typing import TYPE_CHECKING, Any, NoReturn
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
import dataclasses
import json
import os
import signal
import warnings

import numpy as np

from puf.parallel import describe_exit, die_with_parent
from puf.returned import returned_epsilon, returned_kind, returned_number

if TYPE_CHECKING:
    from puf.metadata import Measure

BOOT = "import sys; from puf.properties.running._worker import keep; keep(int(sys.argv[1]), int(sys.argv[2]), None)"
"""What a fresh worker interpreter runs: ``python -c BOOT SOCKET_FD HARNESS_PID``."""


def keep(connection: Connection | int, parent_pid: int, measure: Measure | None) -> NoReturn:
    """Be the keeper of a worker serving ``measure`` (None: the spec the harness sends first),
    and exit with the worker's status (killed by signal n: 128 + n, as shells say).

    The worker says hello, then answers (id, "load", spec), (id, "call", [fields]), (id, "first",
    [fields]) and (id, "together", [fields]) until EOF; "first" calls each in a process forked for
    it, "together" all in order in one (the worker never calls the measure then).
    """
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides when we end
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    connection, keeper = Connection(connection) if isinstance(connection, int) else connection, os.getpid()
    if (worker := os.fork()) != 0:
        connection.close()  # the worker alone speaks to the harness
        code = os.waitstatus_to_exitcode(os.waitpid(worker, 0)[1])
        os._exit(128 - code if code < 0 else code)
    try:
        die_with_parent(keeper)
        os.register_at_fork(after_in_child=lambda: die_with_parent(os.getppid()))
        os.dup2(2, 1)  # what a measure prints is not the harness's output
        os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
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
                reply = [_first_outcomes(measure, [fields], connection)[0] for fields in payload]
            elif kind == "together":
                reply = _first_outcomes(measure, payload, connection)
            else:
                reply = [outcome(measure, fields) for fields in payload]
        os._exit(0)
    finally:
        os._exit(1)  # (an error in the worker: it never returns into the caller's code)


def warm_up_fields(reads: Iterable[str]) -> dict[str, Any]:
    """The fields of the small population a measure that reads ``reads`` is first called on.

    >>> sorted(warm_up_fields(["effectiveness"]))
    ['effectiveness', 'similarity']
    """
    from puf import Population, World

    if {"utility", "list_distance"} & set(reads):
        relevance, items = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]])
        return World(relevance, items, [[0, 2], [1, 0]], np.eye(3)).population(metric="precision").fields()
    return Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]]).fields()


def outcome(measure: Measure | None, fields: Mapping[str, Any], catch: type[BaseException] = BaseException) -> list:
    """A call's ``[number or None, type name, None, the epsilon of its float type]``, or ``[None, "",
    the first line it raised]``.

    >>> outcome(lambda effectiveness: "high", {"effectiveness": [0.0]})
    [None, 'str', None, 2.220446049250313e-16]
    """
    try:
        with warnings.catch_warnings(action="ignore"):
            value = measure(**fields)  # type: ignore[misc]
        return [returned_number(value), returned_kind(value), None, returned_epsilon(value)]
    except catch as exc:  # in a worker SystemExit and KeyboardInterrupt too: reported, not obeyed
        return [None, "", _first_line(exc)]


def _first_line(exc: BaseException, *, named: bool = True) -> str:
    """The first line of ``Type: message`` (of the message alone unless ``named``), or the type."""
    return (f"{type(exc).__name__}: {exc}" if named else str(exc)).splitlines()[0] if str(exc) else type(exc).__name__


def _first_outcomes(measure: Measure | None, fields: list[Mapping[str, Any]], connection: Connection) -> list[Any]:
    """The outcomes of calls in one process forked for them, in order: the first is its first call."""
    worker, (read, write) = os.getpid(), os.pipe()
    if (pid := os.fork()) == 0:
        connection.close()  # this copy says nothing to the harness
        reply = json.dumps([outcome(measure, one) for one in fields], default=str).encode()
        if os.getppid() == worker:  # (not a copy the measure forked)
            os.write(write, reply)
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as source:
        data = source.read()
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        return [list(outcome) for outcome in json.loads(data)]
    except (ValueError, TypeError):
        return [[None, "", f"the measure's process ended ({describe_exit(code)})"]] * len(fields)


def _load(spec: str) -> tuple[Measure | None, list[Any]]:
    """The measure ``spec`` names, and the answer: ``["ready", its metadata]`` or ``["failed", why]``."""
    from puf.loader import load_measure

    try:
        with warnings.catch_warnings(action="ignore"):
            measure = load_measure(spec)
    except BaseException as exc:  # KeyboardInterrupt at import too: the user's module failed
        return None, ["failed", _first_line(exc, named=not isinstance(exc, ValueError))]
    facts = {f.name: getattr(measure, f.name) for f in dataclasses.fields(measure) if f.name != "function"}
    origin = f"{getattr(measure.function, '__module__', '?')}:{getattr(measure.function, '__qualname__', '')}"
    return measure, ["ready", {**facts, "origin": origin}]
