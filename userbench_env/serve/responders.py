"""What the local chat server answers: canned replies, a scripted user or a replayed agent.

A responder turns one chat-completion request body (a dict) into a :class:`Reply`
(text and/or tool calls). Responders run on the server's event loop: a synchronous
``reply`` must be fast; a slow one should be a coroutine (``async def reply``), which
the server awaits. Anything with such a ``reply(request)`` method plugs in.
"""
from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.messages import ToolCall
from userbench_env.core.task import Task
from userbench_env.proxies.base import UserProxy
from userbench_env.proxies.chat import chat_to_view
from userbench_env.proxies.prompt import render_scenario


class Reply(BaseModel):
    """One assistant reply: text, tool calls, or both. A model-backed responder also
    gives its real token counts and finish reason (else the server estimates them)."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    finish_reason: str | None = None


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


def agent_observations(messages: Sequence[dict[str, Any]]) -> list[str]:
    """The observations an agent-side env gave the agent, from an LLM agent's chat.

    Each run of ``user``/``tool`` messages between the agent's turns is one observation
    (assistant messages before the first user message, such as the greeting, are not
    the agent's turns): user texts joined by newlines; one tool result as its content;
    several as the env's JSON list ``[{"id", "content"}]``.
    """
    runs: list[list[dict[str, Any]]] = []
    in_run = False
    for message in messages:
        role = message.get("role")
        if role in ("user", "tool"):
            if not in_run:
                runs.append([])
                in_run = True
            runs[-1].append(message)
        elif role == "assistant":
            in_run = False
    observations = []
    for run in runs:
        tools = [m for m in run if m.get("role") == "tool"]
        if not tools:
            observations.append("\n".join(str(m.get("content") or "") for m in run))
        elif len(tools) == 1:
            observations.append(str(tools[0].get("content") or ""))
        else:
            observations.append(json.dumps([{"id": m.get("tool_call_id"), "content": m.get("content")} for m in tools]))
    return observations


def _default_agent() -> Any:
    from userbench_env.agents.scripted import ScriptedAgent

    return ScriptedAgent()


class AgentReplayResponder:
    """Plays the agent behind an LLM-agent request by replaying a deterministic agent.

    A fresh agent from ``factory`` (default :class:`~userbench_env.agents.ScriptedAgent`)
    is reset with ``task`` and fed the request's observations in order
    (:func:`agent_observations`, with an empty info); its last action, parsed as an
    env action (:mod:`userbench_env.envs.actions`), is the reply. One task per responder
    (an agent's request names the policy, not the task).
    """

    def __init__(self, task: Task, factory: Callable[[], Any] = _default_agent) -> None:
        self.task = task
        self.factory = factory

    def reply(self, request: dict[str, Any]) -> Reply:
        """The replayed agent's action for the conversation in ``request``."""
        from userbench_env.envs.actions import parse_action

        observations = agent_observations(request.get("messages") or [])
        if not observations:
            raise RequestError("the conversation has no user message yet")
        agent = self.factory()
        agent.reset(self.task)
        for observation in observations:
            action = agent.act(observation, {})
        parsed = parse_action(action)
        if parsed.error is not None:
            raise RequestError(f"the replayed agent's action is invalid: {parsed.error}")
        return Reply(text=parsed.text, tool_calls=parsed.calls)
