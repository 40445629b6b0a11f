"""The worker side of :mod:`puf.properties.isolation` (private): a keeper and its worker.

The *keeper* dies with the harness and is the worker's parent, so a measure that signals its
parent ends its own worker, never the harness. The *worker* dies with the keeper, imports
the measure (a spec: only here, a fresh interpreter started as ``python -c BOOT FD PID``)
and answers each request as JSON ``[request id, its pid, reply]``: plain data, never a
pickle. A process the measure forks dies with it and exits instead of answering.
"""

from __future__ import annotations

__all__ = ["BOOT", "boot", "keep", "warm_up_fields"]

from typing import TYPE_CHECKING, Any, NoReturn
from collections.abc import Iterable, Mapping
from multiprocessing.connection import Connection
import dataclasses
import json
import os
import signal
import sys
import warnings

import numpy as np

from puf.parallel import describe_exit, die_with_parent
from puf.returned import returned_kind, returned_number

if TYPE_CHECKING:
    from puf.metadata import Measure

BOOT = "from puf.properties._worker import boot; boot()"
"""The code a fresh worker interpreter runs (``python -c BOOT FD HARNESS_PID``)."""


def boot() -> None:
    """Entry point of a fresh interpreter: become the keeper of a worker that loads a spec."""
    keep(Connection(int(sys.argv[1])), int(sys.argv[2]), None)


def keep(connection: Connection, parent_pid: int, measure: Measure | None) -> NoReturn:
    """Be the keeper of a worker serving ``measure`` (None: the spec the harness sends first);
    exit with the worker's status (killed by signal n: 128 + n, as shells say)."""
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides when we end
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    keeper = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 1
        try:
            die_with_parent(keeper)
            _serve(connection, measure)
            code = 0
        finally:
            os._exit(code)
    connection.close()  # the worker alone speaks to the harness
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    os._exit(128 - code if code < 0 else code)


def _load(spec: str) -> tuple[Measure | None, list[Any]]:
    """(measure, ["ready", its metadata]) or (None, ["failed", the loader's first line])."""
    from puf.loader import load_measure

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measure = load_measure(spec)
    except BaseException as exc:  # KeyboardInterrupt at import too: the user's module failed
        text = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        return None, ["failed", (text or type(exc).__name__).splitlines()[0]]
    facts = {f.name: getattr(measure, f.name) for f in dataclasses.fields(measure) if f.name != "function"}
    function = measure.function
    facts["origin"] = f"{getattr(function, '__module__', '?')}:{getattr(function, '__qualname__', measure.name)}"
    return measure, ["ready", facts]


def warm_up_fields(reads: Iterable[str]) -> dict[str, Any]:
    """The fields of the small population a measure that reads ``reads`` is first called on.

    Examples
    --------
    >>> sorted(warm_up_fields(["effectiveness"]))
    ['effectiveness', 'similarity']
    """
    from puf import Population, World

    if {"utility", "list_distance"} & set(reads):
        relevance, rankings = np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]), [[0, 2], [1, 0]]
        world = World(relevance, np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]), rankings, np.eye(3))
        return world.population(metric="precision").fields()
    return Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]]).fields()


def _value(measure: Measure | None, fields: Mapping[str, Any]) -> list[Any]:
    """[number or None, type name, None] or [None, "", first line of what it raised]."""
    try:
        if measure is None:
            raise RuntimeError("no measure is loaded")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = measure(**fields)
        return [returned_number(value), returned_kind(value), None]
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: reported, not obeyed
        return [None, "", (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__).splitlines()[0]]


def _first_call(measure: Measure | None, fields: Mapping[str, Any], connection: Connection) -> list[Any]:
    """:func:`_value` in a process forked for it, the measure's first call in a process (this
    one never calls it); the answer comes back as JSON on a pipe."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        child = os.getpid()
        connection.close()  # this copy says nothing to the harness
        reply = json.dumps(_value(measure, fields), default=str)
        if os.getpid() == child:  # (not a copy the measure forked)
            os.write(write, reply.encode())
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as source:
        data = source.read()
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        return list(json.loads(data))
    except ValueError:
        return [None, "", f"the measure's process ended ({describe_exit(code)})"]


def _serve(connection: Connection, measure: Measure | None) -> None:
    """Answer (id, "load", spec), (id, "call", [fields]) and (id, "first", [fields]) until EOF."""
    me = os.getpid()
    os.register_at_fork(after_in_child=lambda: die_with_parent(os.getppid()))
    os.dup2(2, 1)  # what a measure prints is not the harness's output
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)

    def answer(request_id: int, reply: Any) -> None:
        if os.getpid() != me:
            os._exit(0)  # a copy the measure forked: only the worker answers
        connection.send_bytes(json.dumps([request_id, me, reply], default=str).encode())

    answer(0, "ready")
    while True:
        try:
            request_id, kind, payload = connection.recv()
        except (EOFError, OSError):
            return
        if kind == "load":
            measure, reply = _load(payload)
        elif kind == "first":
            reply = [_first_call(measure, fields, connection) for fields in payload]
        else:
            reply = [_value(measure, fields) for fields in payload]
        answer(request_id, reply)
