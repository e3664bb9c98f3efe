"""What the local chat server answers: canned replies or a scripted user.

A responder turns one chat-completion request body (a dict) into a :class:`Reply`
(text and/or tool calls). Responders run on the server's event loop: a synchronous
``reply`` must be fast; a slow one should be a coroutine (``async def reply``), which
the server awaits. Anything with such a ``reply(request)`` method plugs in (e.g. a
scripted agent).
"""
from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.messages import ToolCall
from userbench_env.core.task import Task
from userbench_env.proxies.base import UserProxy
from userbench_env.proxies.chat import chat_to_view
from userbench_env.proxies.prompt import render_scenario


class Reply(BaseModel):
    """One assistant reply: text, tool calls, or both."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)


class RequestError(ValueError):
    """The request cannot be answered by this responder (the server returns HTTP 400)."""


class Responder(Protocol):
    """Anything that answers a chat-completion request body."""

    def reply(self, request: dict[str, Any]) -> Reply | Awaitable[Reply]:
        """The reply to ``request`` (raise :class:`RequestError` for a bad request)."""
        ...


class CannedResponder:
    """Fixed replies by conversation position: the n-th reply answers a request whose
    conversation already holds n assistant messages (cycling through ``replies``).

    Position-based (not arrival-based), so concurrent conversations each see the
    same sequence.
    """

    def __init__(self, replies: Sequence[str | Reply]) -> None:
        if not replies:
            raise ValueError("CannedResponder needs at least one reply")
        self.replies = [r if isinstance(r, Reply) else Reply(text=r) for r in replies]

    def reply(self, request: dict[str, Any]) -> Reply:
        """The canned reply for this conversation position."""
        done = sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")
        return self.replies[done % len(self.replies)]


def scenario_of(system_prompt: str) -> str:
    """The text between ``<scenario>`` and ``</scenario>`` in a user system prompt."""
    start = system_prompt.find("<scenario>\n")
    end = system_prompt.rfind("\n</scenario>")
    if start < 0 or end < start:
        raise RequestError("the system prompt has no <scenario> block")
    return system_prompt[start + len("<scenario>\n"):end]


def _default_scripted() -> UserProxy:
    from userbench_env.proxies.scripted import ScriptedUserProxy

    return ScriptedUserProxy()


class ScriptedUserResponder:
    """Plays the user with a scripted proxy, behind an LLM-user request.

    The request is what :class:`~userbench_env.proxies.llm.LLMUserProxy` sends: a
    system prompt holding a task's scenario and the flipped conversation. The task is
    found by its rendered scenario among ``tasks``; a fresh proxy from ``factory`` is
    reset with it (and ``seed``, else the request's seed) and answers the view.
    """

    def __init__(
        self,
        tasks: Iterable[Task],
        factory: Callable[[], UserProxy] = _default_scripted,
        seed: int | None = None,
    ) -> None:
        self.by_scenario = {render_scenario(task): task for task in tasks}
        self.factory = factory
        self.seed = seed

    def reply(self, request: dict[str, Any]) -> Reply:
        """The scripted user's next turn for the conversation in ``request``."""
        try:
            system, view = chat_to_view(request.get("messages") or [], request.get("tools"))
        except (KeyError, TypeError, ValueError) as exc:
            raise RequestError(f"unreadable conversation: {exc}") from exc
        task = self.by_scenario.get(scenario_of(system))
        if task is None:
            raise RequestError("no known task has this scenario")
        proxy = self.factory()
        proxy.reset(task, self.seed if self.seed is not None else request.get("seed"))
        turn = proxy.respond(view)
        return Reply(text=turn.text, tool_calls=[turn.tool_call] if turn.tool_call else [])
