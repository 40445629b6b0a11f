"""The worker side of :mod:`puf.properties.isolation` (private): a keeper and its worker.

Every user measure gets two processes in a process group of their own. The *keeper*
does nothing but wait: it dies with the harness (a parent-death signal) and is the
worker's parent, so a measure that signals its parent signals the keeper, never the
harness (the keeper dies, the worker with it, and the harness reads that as the
measure's failure). The *worker* dies with the keeper, imports the measure (a spec:
only here, never in the harness) and answers requests on its socket. Every answer
carries the request's id and the worker's pid; a process the measure forks is marked
at the fork and exits instead of answering, so one socket has one speaker.

A fresh worker is ``python -c`` of :data:`BOOT` with the socket's descriptor and the
harness's pid as arguments: a new interpreter, which never saw the harness's state.
"""

from __future__ import annotations

__all__ = ["BOOT", "boot", "keep", "measure_facts", "warm_up_fields"]

from typing import TYPE_CHECKING, Any, NoReturn
from collections.abc import Iterable, Mapping
import dataclasses
import os
import pickle
import signal
import sys
import warnings

import numpy as np

from puf.parallel import describe_exit, die_with_parent
from puf.returned import returned_kind, returned_number
from multiprocessing.connection import Connection

if TYPE_CHECKING:
    from puf.metadata import Measure

BOOT = "from puf.properties.running._worker import boot; boot()"
"""The code a fresh worker interpreter runs (``python -c BOOT FD HARNESS_PID``)."""


def boot() -> None:
    """Entry point of a fresh interpreter: become the keeper of a worker that loads a spec."""
    descriptor, harness_pid = int(sys.argv[1]), int(sys.argv[2])
    keep(Connection(descriptor), harness_pid, None)


def keep(connection: Connection, parent_pid: int, measure: Measure | None) -> NoReturn:
    """Run the keeper in this process; never returns.

    ``measure`` is the measure to serve (a forked keeper holds it already), or
    None when the worker is to load the spec that the harness sends first.
    """
    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the harness decides when we end
    keeper = os.getpid()
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            die_with_parent(keeper)
            _serve(connection, measure)
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    connection.close()  # the worker alone speaks to the harness
    while True:
        try:
            code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
            break
        except InterruptedError:
            continue
        except ChildProcessError:
            code = 0
            break
    os._exit(128 - code if code < 0 else code)  # killed by signal n: 128 + n, as shells say


def _forked_by_the_measure() -> None:
    """In a process the measure forked: end with the worker, and never answer for it."""
    die_with_parent(os.getppid())


def measure_facts(measure: Measure) -> dict[str, Any]:
    """What the harness needs to stand in for ``measure``: its metadata and where it comes from."""
    facts = {f.name: getattr(measure, f.name) for f in dataclasses.fields(measure) if f.name != "function"}
    function = measure.function
    facts["origin"] = f"{getattr(function, '__module__', '?')}:{getattr(function, '__qualname__', measure.name)}"
    return facts


def _load(spec: str) -> tuple[Measure | None, tuple[str, Any]]:
    """Load ``spec`` here; return (measure, reply) with reply ("ready", facts) or ("failed", text)."""
    from puf.loader import load_measure

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            measure = load_measure(spec)
        return measure, ("ready", measure_facts(measure))
    except BaseException as exc:  # KeyboardInterrupt at import too: the user's module failed
        text = str(exc) if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
        return None, ("failed", (text or type(exc).__name__).splitlines()[0])


def warm_up_fields(reads: Iterable[str]) -> dict[str, Any]:
    """The fields of the small population a measure that reads ``reads`` is first called on.

    Examples
    --------
    >>> sorted(warm_up_fields(["effectiveness"]))
    ['effectiveness', 'similarity']
    """
    from puf import Population, World

    if {"utility", "list_distance"} & set(reads):
        world = World(
            np.array([[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]),
            np.array([[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]),
            [[0, 2], [1, 0]],
            np.eye(3),
        )
        return world.population(metric="precision").fields()
    return Population([0.0, 1.0], [[1.0, 0.5], [0.5, 1.0]]).fields()


def _value(measure: Measure | None, fields: Mapping[str, Any]) -> tuple[Any, ...]:
    """("ok", number or None, type name) or ("raised", first line) of one call."""
    if measure is None:  # asked before a spec was loaded
        return ("raised", "no measure is loaded")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            value = measure(**fields)
        return ("ok", returned_number(value), returned_kind(value))
    except BaseException as exc:  # SystemExit and KeyboardInterrupt too: reported, not obeyed
        text = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
        return ("raised", text.splitlines()[0])


def _first_call(measure: Measure | None, fields: Mapping[str, Any], connection: Connection) -> tuple[Any, ...]:
    """:func:`_value` in a process forked for it: the measure's first call in a process
    (this one never calls it, so each fork starts as the module was loaded)."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read)
        connection.close()  # this copy says nothing to the harness: the worker answers
        with os.fdopen(write, "wb") as out:
            out.write(pickle.dumps(_value(measure, fields)))
        os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as source:
        data = source.read()
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    try:
        reply: tuple[Any, ...] = pickle.loads(data)
        return reply
    except Exception:
        return ("raised", f"the measure's process ended ({describe_exit(code)})")


def _serve(connection: Connection, measure: Measure | None) -> None:
    """The worker's loop: (id, "load", spec) | (id, "warm", None) | (id, "call", fields) |
    (id, "many", [fields]) | (id, "first", [fields]), each of the last a first call in a process."""
    me = os.getpid()
    os.register_at_fork(after_in_child=_forked_by_the_measure)
    os.dup2(2, 1)  # what a measure prints is not the harness's output
    signal.signal(signal.SIGTERM, signal.SIG_DFL)

    def answer(request_id: int, reply: Any) -> None:
        if os.getpid() != me:
            os._exit(0)  # a copy the measure forked: only the worker answers
        connection.send((request_id, me, reply))

    answer(0, ("ready", None))
    while True:
        try:
            request_id, kind, payload = connection.recv()
        except (EOFError, OSError):
            return
        if kind == "load":
            measure, reply = _load(payload)
        elif kind == "call":
            reply = _value(measure, payload)
        elif kind == "warm":  # the untimed first call of this process; its value is not used
            reply = _value(measure, warm_up_fields(measure.reads if measure is not None else ()))
        elif kind == "first":
            reply = ("many", [_first_call(measure, fields, connection) for fields in payload])
        else:
            reply = ("many", [_value(measure, fields) for fields in payload])
        try:
            answer(request_id, reply)
        except (OSError, ValueError):
            return
