"""Conversation messages, tool calls and tool results.

Roles follow tau2-bench: ``assistant`` is the agent, ``user`` the (simulated) customer,
``tool`` a tool result delivered to whoever made the call. A message carries either
text or tool calls; a tool message carries the result of exactly one call.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Role = Literal["system", "assistant", "user", "tool"]
Requestor = Literal["assistant", "user"]


class ToolCall(BaseModel):
    """One call of a named tool with keyword arguments.

    ``requestor`` says which toolkit runs it: ``assistant`` (agent tools) or ``user``
    (the customer's own tools, e.g. the telecom phone).
    """

    model_config = ConfigDict(extra="forbid")

    id: str = ""
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    requestor: Requestor = "assistant"


class ToolResult(BaseModel):
    """What a tool call returned: the exact content string and tau2's error flag."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    content: str
    error: bool = False


class Message(BaseModel):
    """One conversation message.

    ``content`` is the text (``None`` for a pure tool-call message); ``tool_calls`` the
    calls of an assistant or user message; ``tool_call_id``/``requestor``/``error`` are
    set on tool messages. ``turn`` is the agent-turn index the message belongs to.
    """

    model_config = ConfigDict(extra="forbid")

    role: Role
    content: str | None = None
    tool_calls: list[ToolCall] | None = None
    tool_call_id: str | None = None
    requestor: Requestor | None = None
    error: bool = False
    turn: int = 0

    @property
    def has_text(self) -> bool:
        """True when the message carries non-blank text."""
        return bool(self.content and self.content.strip())

    @property
    def is_tool_call(self) -> bool:
        """True when the message carries at least one tool call."""
        return bool(self.tool_calls)
