"""A World: one domain instance with its own DB state, reachable through tool calls.

This is the public replay API shared by every domain::

    world = make_world("airline", source="tau2", task=task)   # initial state applied
    res = world.call("get_user_details", {"user_id": "..."}, requestor="agent")
    res.content, res.error
    world.db_hash("agent"), world.db_hash("user")            # tau2-compatible SHA-256
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Literal

from userbench_env.core.messages import Message, ToolCall, ToolResult
from userbench_env.core.task import EnvAssertion, InitialState
from userbench_env.domains.deadline import DEFAULT_TOOL_SECONDS
from userbench_env.domains.store import Document
from userbench_env.domains.toolkit import Toolkit

if TYPE_CHECKING:
    from userbench_env.domains.base import Domain

Side = Literal["agent", "user"]


def side_of(requestor: str) -> Side:
    """Map a requestor name (``agent``/``assistant``/``user``) to a toolkit side."""
    if requestor in ("agent", "assistant"):
        return "agent"
    if requestor == "user":
        return "user"
    raise ValueError(f"requestor must be 'agent', 'assistant' or 'user', not {requestor!r}")


class StateReplayError(RuntimeError):
    """A replayed tool call did not reproduce its recorded result (strict mode)."""


class World:
    """One domain instance: private DBs (forked from the shared base) and toolkits."""

    def __init__(
        self,
        domain: "Domain",
        source: str,
        agent_db: Document,
        user_db: Document | None,
        policy: str,
    ):
        self.domain = domain
        self.name = domain.name
        self.source = source
        self.policy = policy
        self.agent_db = agent_db
        self.user_db = agent_db if domain.shared_user_db else user_db
        self.agent: Toolkit = domain.agent_toolkit(agent_db, self)
        self.user: Toolkit | None = (
            domain.user_toolkit(self.user_db, self) if domain.user_toolkit is not None else None
        )
        #: Per-task settings a domain may keep on the world (e.g. banking's read-log list).
        self.settings: dict[str, Any] = {}
        #: The domain's data folder (set by ``make_world``), for data read lazily (banking's KB).
        self.data_folder: Path | None = None

    # -- tool calls ------------------------------------------------------------------
    def toolkit(self, side: Side) -> Toolkit | None:
        """The agent or user toolkit (``None`` when the domain has no user tools)."""
        return self.agent if side == "agent" else self.user

    def call(
        self, name: str, arguments: dict[str, Any] | None = None, requestor: str = "agent",
        seconds: float | None = DEFAULT_TOOL_SECONDS,
    ) -> ToolResult:
        """Execute one tool call through the normal path (then sync, as tau2 does), under a
        time budget of ``seconds`` (see :meth:`Toolkit.call`)."""
        side = side_of(requestor)
        kit = self.toolkit(side)
        if kit is None:
            return ToolResult(content="Error: User tools not available", error=True)
        result = kit.call(name, dict(arguments or {}), seconds)
        if not result.error:
            self.sync()
        return result

    def execute(self, call: ToolCall, seconds: float | None = DEFAULT_TOOL_SECONDS) -> ToolResult:
        """Execute a :class:`ToolCall` (its ``requestor`` picks the toolkit) under a budget of ``seconds``."""
        return self.call(call.name, call.arguments, call.requestor, seconds)

    def invoke(self, env_type: str, func_name: str, arguments: dict[str, Any]) -> Any:
        """Call any tool or helper method directly and return its raw value (no sync)."""
        kit = self.toolkit(side_of(env_type))
        if kit is None:
            raise ValueError("this domain has no user toolkit")
        return kit.invoke(func_name, dict(arguments))

    def sync(self) -> None:
        """Run the domain's synchronisation hook."""
        self.domain.sync(self)

    # -- state -------------------------------------------------------------------
    def db_hash(self, side: str = "agent") -> str | None:
        """tau2's hash of the agent or user DB (``None`` for a domain without a user DB)."""
        doc = self.agent_db if side_of(side) == "agent" else self.user_db
        return doc.hash() if doc is not None else None

    def tool_schemas(self, side: str = "agent", names: list[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function schemas of the listed tools of one side."""
        kit = self.toolkit(side_of(side))
        return [] if kit is None else kit.schemas(names)

    def run_assertion(self, assertion: EnvAssertion) -> bool:
        """Run an env assertion; it passes when the helper's bool equals ``assert_value``."""
        value = self.invoke(assertion.env_type, assertion.func_name, assertion.arguments)
        if not isinstance(value, bool):
            raise TypeError(f"assertion {assertion.func_name} returned {type(value).__name__}, not bool")
        return value == assertion.assert_value

    def apply_initial_state(self, state: InitialState | None) -> None:
        """Apply a task's initial state: data merge, initialization actions, history replay, sync."""
        if state is not None:
            data = state.initialization_data or {}
            for side, key in (("agent", "agent_data"), ("user", "user_data")):
                patch = data.get(key)
                if patch:
                    doc = self.agent_db if side == "agent" else self.user_db
                    if doc is None:
                        raise ValueError(f"{self.name} has no user DB for user_data")
                    touched = doc.merge(patch)
                    self.domain.normalize(doc, touched, side)
            for action in state.initialization_actions or []:
                self.invoke(action.env_type, action.func_name, action.arguments)
                self.sync()
            if state.message_history:
                self.replay_messages(_parse_history(state.message_history))
        self.sync()

    def replay_messages(self, messages: Iterable[Message], strict: bool = True) -> None:
        """Rebuild state from a transcript, as tau2's ``set_state`` does.

        Each tool call is paired with the tool message that follows it; calls to unknown
        tools and to non-mutating tools are skipped; the others are re-executed and, in
        strict mode, their content must equal the recorded one (compared as JSON when
        both parse).
        """
        pending: list[ToolCall] = []
        for message in messages:
            if message.role in ("assistant", "user") and message.tool_calls:
                pending.extend(message.tool_calls)
                continue
            if message.role != "tool":
                continue
            if not pending:
                raise StateReplayError("a tool message has no preceding tool call")
            call = pending.pop(0)
            if message.tool_call_id is not None and call.id and message.tool_call_id != call.id:
                raise StateReplayError(f"tool message {message.tool_call_id} does not answer call {call.id}")
            requestor = call.requestor if call.requestor else (message.requestor or "assistant")
            kit = self.toolkit(side_of(requestor))
            if kit is None or not kit.has_tool(call.name) or not kit.mutates_state(call.name):
                continue
            result = self.call(call.name, call.arguments, requestor)
            if strict and not _same_content(result.content, message.content or ""):
                raise StateReplayError(
                    f"replaying {call.name} gave {result.content!r}, recorded {message.content!r}"
                )
        self.sync()


def _same_content(a: str, b: str) -> bool:
    try:
        return json.loads(a) == json.loads(b)
    except (ValueError, TypeError):
        return a == b


def _parse_history(raw: list[dict[str, Any]]) -> list[Message]:
    messages = []
    for item in raw:
        calls = item.get("tool_calls")
        messages.append(
            Message(
                role=item["role"],
                content=item.get("content"),
                tool_calls=[
                    ToolCall(
                        id=c.get("id", ""),
                        name=c["name"],
                        arguments=c.get("arguments") or {},
                        requestor=c.get("requestor", "assistant"),
                    )
                    for c in calls
                ]
                if calls
                else None,
                tool_call_id=item.get("id") if item["role"] == "tool" else None,
                requestor=item.get("requestor"),
                error=bool(item.get("error", False)),
            )
        )
    return messages
