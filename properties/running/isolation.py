"""A user's measure in a worker process, where it cannot touch the harness and is stopped for sure: a
fresh interpreter for a spec (:func:`load_isolated`), a fork for a function object. docs/design.md,
"The measure-call boundary", says how, and why no pool library runs it.
"""

from __future__ import annotations

__all__ = [
    "CAN_ISOLATE",
    "WorkerBroken",
    "MeasureWorker",
    "load_isolated",
    "fresh_outcomes",
    "worker_for",
    "release_workers",
    "live_workers",
    "printed_to",
]

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any
import atexit
import contextlib
import inspect
import os

from puf.loader import load_measure, spec_of, user_spec
from puf.metadata import Measure
from puf.parallel import WorkerDied, describe_exit, fork_available
from puf.registry import is_registered
from puf.returned import Outcome, not_a_number, outcome

from ._channel import Channel, ChannelError
from .budget import TIME_LIMIT_HINT, warm_up_limit

#: True where a user's measure can run in a worker process (one forked from here).
CAN_ISOLATE = fork_available()
_IMPORT_TIME_LIMIT = 60.0  # seconds to start a worker and import the measure's module
_PRINTED_TO: list[str | None] = [None]  # the file of :func:`printed_to` (None: the harness's stderr)


class WorkerBroken(WorkerDied):
    """An answer did not belong to its request (another process wrote it); the worker is killed."""


class MeasureWorker:
    """The worker of a spec (a fresh interpreter) or a Measure (forked from here; one loaded only in a
    worker by its spec). With ``fresh``, a measure that has a spec (a registered one: its name) is loaded
    by it in a new interpreter, which nothing kept from calls elsewhere (a cache, a normaliser) reaches.

    A call over its limit, a death or a foreign answer kills it (TimeoutError, WorkerDied, WorkerBroken);
    the next starts a new one, whose first request may take :func:`~.budget.warm_up_limit` more unless one
    of its requests hung before. With ``first_calls``, each request runs in a process forked for it from a
    worker that never calls.

    >>> from puf import as_measure
    >>> worker = MeasureWorker(as_measure(lambda effectiveness: sum(effectiveness)))
    >>> worker.call({"effectiveness": [0.25, 0.5]}, 1.0), MeasureWorker(as_measure("sd"), fresh=True).source
    ((0.75, 'float'), 'sd')
    >>> _ = worker.close()
    """

    def __init__(self, source: str | Measure, *, first_calls: bool = False, fresh: bool = False) -> None:
        function = getattr(source, "function", None)
        if isinstance(function, IsolatedFunction):
            source = function.source
        elif fresh and isinstance(source, Measure):
            source = (source.name if is_registered(source) else spec_of(function)) or source
        self.source, self.first_calls, self.warm, self._called = source, first_calls, True, False
        self._channel: Channel | None = None
        self.facts: dict[str, Any] | None = None  # a spec's measure metadata, once loaded

    def start(self) -> dict[str, Any] | None:
        """Start the worker if none runs; return a spec's measure metadata (ValueError: not loaded)."""
        if self._channel is None:
            self._channel = Channel(self.source, _PRINTED_TO[-1])
            self._ask(None, None, _IMPORT_TIME_LIMIT)  # the worker's hello: who it is
            if isinstance(self.source, str):
                status, facts = self._ask("load", self.source, _IMPORT_TIME_LIMIT)
                if status != "ready":
                    self.close()
                    raise ValueError(facts)
                self.facts = {k: tuple(v) if isinstance(v, list) else v for k, v in facts.items()}
        return self.facts

    def _ask(self, kind: str | None, payload: Any, time_limit: float | None) -> Any:
        assert self._channel is not None  # (started)
        try:
            return self._channel.ask(kind, payload, time_limit)
        except TimeoutError:
            self.close()
            raise TimeoutError(f"no answer within {time_limit:g} s") from None
        except (ChannelError, EOFError, OSError) as exc:
            status = describe_exit(self.close(grace=2.0))  # (the keeper's own status names a death)
            if isinstance(exc, ChannelError):
                raise WorkerBroken(f"{exc} ({status})") from None
            raise WorkerDied(f"the measure's process ended ({status})") from None

    def call_many(self, fields: Iterable[Mapping[str, Any]], time_limit: float | None) -> list[Outcome]:
        """An :class:`~puf.returned.Outcome` for each fields dict, in one request of ``time_limit`` s a call."""
        self.start()
        fields, limit = list(fields), None
        if time_limit is not None:
            warm = warm_up_limit(time_limit) if self.warm and not self._called else 0.0
            limit = len(fields) * (warm_up_limit(time_limit) if self.first_calls else time_limit) + warm
        try:
            reply = self._ask("first" if self.first_calls else "call", fields, limit)
        except TimeoutError:
            self.warm = False  # a worker that hung gets no warm-up again
            raise
        self._called = True
        return [Outcome(*found) for found in reply]

    def call(self, fields: Mapping[str, Any], time_limit: float | None) -> tuple[float | None, str]:
        """``(number or None, type name)`` of one call; RuntimeError (first line) if the measure raised."""
        (found,) = self.call_many([fields], time_limit)
        if found.error is not None:
            raise RuntimeError(found.error)
        return found.number, found.kind

    def close(self, grace: float = 0.0) -> int | None:
        """Kill the worker's process group; return the keeper's exit code (None: not known)."""
        channel, self._channel, self._called = self._channel, None, False
        return None if channel is None else channel.close(grace)


_WORKERS: dict[Any, MeasureWorker] = {}  # (a spec or id(measure), first_calls) -> its worker, oldest first


def worker_for(measure: Measure | str, *, first_calls: bool = False) -> MeasureWorker:
    """The shared worker of a measure or a spec (the last eight are kept: a sweep alternates measures);
    with ``first_calls``, its shared worker of first calls (``MeasureWorker(measure, first_calls=True)``:
    each request in a process forked from one that has made no call; a spec's loads it in a new
    interpreter, a function object's is forked from here, where the search calls no user's measure).

    >>> worker_for("sd") is worker_for("sd") is not worker_for("sd", first_calls=True)
    True
    """
    worker = MeasureWorker(measure, first_calls=first_calls)
    source = worker.source if isinstance(worker.source, str) else id(worker.source)  # (a worker keeps its measure)
    key = (source, first_calls)
    if key not in _WORKERS and len(_WORKERS) >= 8:
        _WORKERS.pop(next(iter(_WORKERS))).close()
    return _WORKERS.setdefault(key, worker)


def release_workers() -> None:
    """Close every shared worker (the runner does after a measure's verdicts; also at exit).

    >>> release_workers(); live_workers()
    0
    """
    while _WORKERS:
        _WORKERS.popitem()[1].close()


def live_workers() -> int:
    """How many shared workers are alive (each is a keeper and a worker process).

    >>> live_workers() >= 0
    True
    """
    return sum(w._channel is not None for w in _WORKERS.values())


@contextlib.contextmanager
def printed_to(path: str | os.PathLike[str]) -> Iterator[None]:
    """Append what measures print (stdout and stderr, their imports' too) to the file ``path``, not
    the harness's stderr, in each worker started in the block; the shared ones end with it.

    >>> import pathlib, tempfile
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "loud.py").write_text("def top(effectiveness):\\n    print('hi')\\n    return max(effectiveness)")
    >>> with printed_to(folder / "printed.txt"):
    ...     load_isolated(f"{folder / 'loud.py'}:top")(effectiveness=[0.0, 0.5])
    0.5
    >>> (folder / "printed.txt").read_text()
    'hi\\n'
    """
    release_workers()  # (a worker started before prints where it did)
    _PRINTED_TO.append(os.fspath(path))
    try:
        yield
    finally:
        release_workers()
        _PRINTED_TO.pop()


def _forget_in_child() -> None:
    # In a forked child the workers are the parent's: close its copies of their sockets, never them.
    for worker in _WORKERS.values():
        if worker._channel is not None:
            worker._channel.abandon()
    _WORKERS.clear()


atexit.register(release_workers)
if CAN_ISOLATE:
    os.register_at_fork(after_in_child=_forget_in_child)


class IsolatedFunction:
    """The picklable function of a measure loaded only in a worker (:func:`load_isolated`): a call asks
    the worker of ``spec``; TimeoutError, RuntimeError (it died or raised), TypeError (no number)."""

    def __init__(self, spec: str, time_limit: float, *, reads: Iterable[str], name: str, origin: str) -> None:
        self.source, self.time_limit, self.origin = spec, float(time_limit), origin
        self.__name__ = self.__qualname__ = name
        self.__signature__ = inspect.Signature([inspect.Parameter(r, inspect.Parameter.KEYWORD_ONLY) for r in reads])

    def __call__(self, **fields: Any) -> float:
        name = repr(self.__name__)
        try:
            number, kind = worker_for(self.source).call(fields, self.time_limit)
        except TimeoutError:
            raise TimeoutError(f"measure {name} timed out after {self.time_limit:g} s; {TIME_LIMIT_HINT}") from None
        except RuntimeError as exc:  # (WorkerDied too)
            raise RuntimeError(f"measure {name}: {exc}") from None
        if number is None:
            raise TypeError(f"measure {name} {not_a_number(kind)}")
        return number


def load_isolated(spec: str | Measure, *, time_limit: float = 10.0) -> Measure:
    """The :class:`puf.Measure` a spec names (as :func:`puf.load_measure`), imported in a fresh worker
    only, of ``time_limit`` seconds a call; ValueError if it cannot load within a minute. A registered
    name or a function of ``puf`` is the harness's own and loads here.

    >>> import pathlib, tempfile
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "mine.py"
    >>> _ = path.write_text("import numpy\\nnumpy.std = None\\ndef top(effectiveness):\\n    return max(effectiveness)")
    >>> top = load_isolated(f"{path}:top")
    >>> top.name, top.reads, top(effectiveness=[0.0, 0.5])
    ('top', ('effectiveness',), 0.5)
    >>> import numpy; numpy.std is None  # the module ran in the worker, not here
    False
    """
    if not CAN_ISOLATE or (user := user_spec(spec)) is None:  # (a Measure is handed back)
        return load_measure(spec)
    try:
        facts = dict(worker_for(user).start() or {})
    except (TimeoutError, WorkerDied) as exc:
        raise ValueError(f"cannot import {str(spec).strip().rpartition(':')[0]!r}: {exc}") from None
    function = IsolatedFunction(user, time_limit, reads=facts["reads"], name=facts["name"], origin=facts.pop("origin"))
    return Measure(function, **facts)


def fresh_outcomes(measure: Measure, fields_list: Sequence[Mapping[str, Any]], *, time_limit: float) -> list[Outcome]:
    """Evaluate ``measure`` on each fields dict in a new process (``MeasureWorker(measure, fresh=True)``), then end it.

    >>> from puf import as_measure
    >>> fresh_outcomes(as_measure("sd"), [{"effectiveness": [0.0, 1.0]}], time_limit=30.0)
    [Outcome(number=0.5, kind='float', error=None, epsilon=2.220446049250313e-16, warning=None)]
    """
    if not CAN_ISOLATE:
        return [outcome(measure, fields, Exception) for fields in fields_list]
    with contextlib.closing(MeasureWorker(measure, fresh=True)) as worker:
        return worker.call_many(fields_list, time_limit)
