"""Drivers of the envs' turn machines: one generator, run sync or async.

An env's turn logic is a generator that yields a request whenever it needs the other
party (a :class:`~userbench_env.proxies.base.UserView` for a user proxy, an
``(observation, info)`` pair for a counterpart agent), receives the answer through
``send``, and returns its result. :func:`drive` answers with a blocking function,
:func:`adrive` with a coroutine function; an exception of the given ``errors`` types
raised by the answerer is thrown into the machine at the yield (where the env turns it
into an episode error), any other exception propagates.
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Generator
from typing import Any

Machine = Generator[Any, Any, Any]
Errors = type[BaseException] | tuple[type[BaseException], ...]


def drive(machine: Machine, answer: Callable[[Any], Any], errors: Errors) -> Any:
    """Run ``machine`` to its end, answering each request with ``answer(request)``; its result."""
    try:
        request = next(machine)
        while True:
            try:
                reply = answer(request)
            except errors as exc:
                request = machine.throw(exc)
            else:
                request = machine.send(reply)
    except StopIteration as stop:
        return stop.value


async def adrive(machine: Machine, answer: Callable[[Any], Awaitable[Any]], errors: Errors) -> Any:
    """:func:`drive` with an asynchronous ``answer``."""
    try:
        request = next(machine)
        while True:
            try:
                reply = await answer(request)
            except errors as exc:
                request = machine.throw(exc)
            else:
                request = machine.send(reply)
    except StopIteration as stop:
        return stop.value
