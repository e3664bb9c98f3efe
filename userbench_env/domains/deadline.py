"""Time budgets for tool calls, enforced from outside the tool.

:class:`Budget` arms a deadline for the calling thread; one shared watchdog thread
raises :class:`ToolTimeout` *in that thread* (``PyThreadState_SetAsyncExc``) when the
deadline passes while the budget is still open. This works in any thread (no signals,
no ``SIGALRM`` conflicts) and never leaves a stray thread running the tool, but like
every Python-level interrupt it lands between bytecodes: a single long C operation
(a huge integer product, one ``re`` match) finishes first. Tools whose work can be
unbounded inside one C call therefore bound it themselves (``calculate`` caps every
intermediate result; banking ``grep`` runs its regex with a timeout of
:func:`remaining`).

:class:`ToolTimeout` derives from ``BaseException`` so that a tool's own
``except Exception`` does not swallow it; :meth:`~userbench_env.domains.toolkit.Toolkit.call`
catches it and answers with an error result. A call interrupted in the middle of a
write may leave that write partly done (tau2's tools write at their end, after their
reads and checks, so in practice an interrupted call has written nothing).
"""
from __future__ import annotations

import ctypes
import heapq
import itertools
import threading
import time

from userbench_env.core.limits import DEFAULT_TOOL_SECONDS

__all__ = ["DEFAULT_TOOL_SECONDS", "Budget", "ToolTimeout", "remaining"]

_SET_ASYNC_EXC = ctypes.pythonapi.PyThreadState_SetAsyncExc


class ToolTimeout(BaseException):
    """Raised inside a tool call that ran past its time budget."""


class _Armed:
    __slots__ = ("thread_id", "deadline", "fired")

    def __init__(self, thread_id: int, deadline: float) -> None:
        self.thread_id, self.deadline, self.fired = thread_id, deadline, False


class _Watchdog:
    """One daemon thread firing :class:`ToolTimeout` into threads whose budget ran out."""

    def __init__(self) -> None:
        # Callers take the C-level lock directly (``with self._lock``): a timeout landing in
        # a Python-level ``Condition.__enter__`` could leave the lock held for good.
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._heap: list[tuple[float, int]] = []
        self._live: dict[int, _Armed] = {}
        self._ids = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, seconds: float) -> int:
        """Open a budget of ``seconds`` for the calling thread; its token."""
        with self._lock:
            token = next(self._ids)
            armed = _Armed(threading.get_ident(), time.monotonic() + seconds)
            self._live[token] = armed
            heapq.heappush(self._heap, (armed.deadline, token))
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="userbench-tool-watchdog", daemon=True)
                self._thread.start()
            elif self._heap[0][1] == token:
                self._cond.notify()
            return token

    def disarm(self, token: int) -> bool:
        """Close a budget (idempotent); whether it fired. A fired exception that has not
        been raised yet is withdrawn, so nothing is raised after this returns."""
        with self._lock:
            armed = self._live.pop(token, None)
            if armed is None:
                return True
            if armed.fired:
                _SET_ASYNC_EXC(ctypes.c_ulong(armed.thread_id), None)
            return armed.fired

    def _run(self) -> None:
        with self._cond:
            while True:
                while self._heap and self._heap[0][1] not in self._live:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._cond.wait()
                    continue
                deadline, token = self._heap[0]
                wait = deadline - time.monotonic()
                if wait > 0:
                    self._cond.wait(wait)
                    continue
                heapq.heappop(self._heap)
                armed = self._live[token]
                armed.fired = True
                _SET_ASYNC_EXC(ctypes.c_ulong(armed.thread_id), ctypes.py_object(ToolTimeout))


_WATCHDOG = _Watchdog()
_local = threading.local()


class Budget:
    """A time budget for the calling thread, open from construction to :meth:`close`.

    Use as ``budget = Budget(s)``; ``try: ... finally: budget.close()`` and catch
    :class:`ToolTimeout` around both (it may be raised anywhere before ``close`` returns,
    never after). ``seconds=None`` is no budget.
    """

    def __init__(self, seconds: float | None) -> None:
        self.seconds = seconds
        self.deadline = None if seconds is None else time.monotonic() + seconds
        self._outer = getattr(_local, "deadline", None)
        _local.deadline = self.deadline if self._outer is None or self.deadline is None else min(self._outer, self.deadline)
        self._token = None if seconds is None else _WATCHDOG.arm(seconds)

    def close(self) -> bool:
        """End the budget (idempotent); whether it ran out."""
        _local.deadline = self._outer
        return False if self._token is None else _WATCHDOG.disarm(self._token)


def remaining() -> float | None:
    """Seconds left in the calling thread's open budget (``None`` outside one; at least 0)."""
    deadline = getattr(_local, "deadline", None)
    return None if deadline is None else max(0.0, deadline - time.monotonic())
