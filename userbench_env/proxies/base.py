"""The user-proxy contract: one interface for every kind of simulated (or real) user.

A proxy is reset with a task and a seed, then asked for one :class:`UserTurn` at a time
given a :class:`UserView`: the conversation as the user sees it (the agent's text
messages, its own messages, its own tool calls and their results) and its tools. A turn
is text or exactly one user tool call; text may carry an end token.

Infrastructure failures (provider down, timeouts after retries, unusable replies) raise
:class:`ProxyError`; envs turn it into an episode error, never a crash and never a
failure of the agent.
"""
from __future__ import annotations

import asyncio
from abc import ABC, abstractmethod
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Task

StopKind = Literal["STOP", "TRANSFER", "OUT-OF-SCOPE"]

#: tau2's end tokens, tested as substrings of the user's text.
STOP_TOKENS: dict[str, StopKind] = {
    "###STOP###": "STOP",
    "###TRANSFER###": "TRANSFER",
    "###OUT-OF-SCOPE###": "OUT-OF-SCOPE",
}


def find_stop(text: str | None) -> StopKind | None:
    """The end token contained in ``text`` (tau2's substring rule), or ``None``."""
    if not text:
        return None
    for token, kind in STOP_TOKENS.items():
        if token in text:
            return kind
    return None


class Usage(BaseModel):
    """User-side LLM usage: tokens and cost in USD."""

    model_config = ConfigDict(extra="forbid")

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    calls: int = 0

    def add(self, other: "Usage") -> None:
        """Accumulate ``other`` into this usage."""
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.cost_usd += other.cost_usd
        self.calls += other.calls


class UserView(BaseModel):
    """The conversation from the user's side and the user's tools (OpenAI schemas).

    ``messages`` holds assistant *text* messages, the user's own messages and the
    results of the user's own tool calls (role ``tool``), in order. ``turn`` is the
    current agent-turn index.
    """

    model_config = ConfigDict(extra="forbid")

    messages: list[Message] = Field(default_factory=list)
    tools: list[dict[str, Any]] = Field(default_factory=list)
    turn: int = 0

    @property
    def last_agent_text(self) -> str:
        """The most recent assistant text the user has seen ('' if none)."""
        for message in reversed(self.messages):
            if message.role == "assistant" and message.content:
                return message.content
        return ""


class UserTurn(BaseModel):
    """One user turn: text (maybe with an end token) or exactly one user tool call."""

    model_config = ConfigDict(extra="forbid")

    text: str | None = None
    tool_call: ToolCall | None = None
    usage: Usage = Field(default_factory=Usage)

    @property
    def stop(self) -> StopKind | None:
        """The end token in the text, if any."""
        return find_stop(self.text)


class ProxyError(RuntimeError):
    """An infrastructure failure of the proxy (after its own retries)."""


class UserProxy(ABC):
    """Base class of every user proxy.

    Subclasses implement :meth:`respond` (and may override :meth:`arespond` with a truly
    asynchronous version). ``provenance`` identifies the proxy in records; ``usage`` is
    the cumulative usage of the current episode (reset by :meth:`reset`).
    """

    name: str = "proxy"

    def __init__(self) -> None:
        self.usage = Usage()
        self.task: Task | None = None
        self.seed: int | None = None

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Start a new episode for ``task``; forget the previous one."""
        self.task = task
        self.seed = seed
        self.usage = Usage()

    @abstractmethod
    def respond(self, view: UserView) -> UserTurn:
        """The user's next turn given what the user has seen."""

    async def arespond(self, view: UserView) -> UserTurn:
        """Asynchronous :meth:`respond` (default: run it in a worker thread)."""
        return await asyncio.to_thread(self.respond, view)

    @property
    def provenance(self) -> dict[str, Any]:
        """Who played the user: name, model, prompt hash, temperature, seed."""
        return {"name": self.name, "model": None, "prompt_hash": None, "temperature": None, "seed": self.seed}
