"""The user's side of a conversation as OpenAI chat messages, with roles flipped, and back.

An LLM playing the user sees the agent's texts as ``user`` turns and its own turns as
``assistant`` turns (with its tool calls), each followed by its tool results
(``tool``). :func:`view_to_chat` builds that list; :func:`chat_to_view` is its inverse
(used by the local server to hand an incoming request to a scripted user).
"""
from __future__ import annotations

import json
from typing import Any

from userbench_env.core.messages import Message, ToolCall
from userbench_env.proxies.base import UserView


def _call_id(call: ToolCall, position: int) -> str:
    return call.id or f"user_call_{position}"


def view_to_chat(system: str, view: UserView) -> list[dict[str, Any]]:
    """The chat messages for an LLM user: the system prompt then the flipped conversation.

    Tool calls without an id get a positional one; a tool result without a
    ``tool_call_id`` answers the oldest unanswered call.
    """
    chat: list[dict[str, Any]] = [{"role": "system", "content": system}]
    pending: list[str] = []
    position = 0
    for message in view.messages:
        if message.role == "assistant":
            if message.has_text:
                chat.append({"role": "user", "content": message.content})
        elif message.role == "user":
            entry: dict[str, Any] = {"role": "assistant", "content": message.content}
            if message.tool_calls:
                calls = []
                for call in message.tool_calls:
                    call_id = _call_id(call, position)
                    position += 1
                    pending.append(call_id)
                    calls.append(
                        {"id": call_id, "type": "function",
                         "function": {"name": call.name, "arguments": json.dumps(call.arguments)}}
                    )
                entry["tool_calls"] = calls
            chat.append(entry)
        elif message.role == "tool":
            call_id = message.tool_call_id or (pending[0] if pending else f"user_call_{position}")
            if call_id in pending:
                pending.remove(call_id)
            chat.append({"role": "tool", "tool_call_id": call_id, "content": message.content or ""})
    return chat


def chat_to_view(messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None) -> tuple[str, UserView]:
    """The system prompt and the :class:`UserView` behind a flipped chat request.

    Raises ``ValueError`` on a tool call whose arguments are not a JSON object.
    """
    system = ""
    view_messages: list[Message] = []
    turn = 0
    for raw in messages:
        role = raw.get("role")
        content = raw.get("content")
        if role == "system":
            system = content or ""
        elif role == "user":
            turn += 1
            view_messages.append(Message(role="assistant", content=content, turn=turn))
        elif role == "assistant":
            calls = [
                ToolCall(id=c.get("id") or "", name=c["function"]["name"],
                         arguments=parse_arguments(c["function"].get("arguments")), requestor="user")
                for c in raw.get("tool_calls") or []
            ]
            view_messages.append(Message(role="user", content=content, tool_calls=calls or None, turn=turn))
        elif role == "tool":
            view_messages.append(
                Message(role="tool", content=content, tool_call_id=raw.get("tool_call_id"), requestor="user", turn=turn)
            )
    return system, UserView(messages=view_messages, tools=list(tools or []), turn=turn)


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict: a JSON object string (or an already-parsed dict).

    An empty string means no arguments. Raises ``ValueError`` on anything else (JSON
    nested past the stack included); the input policy itself is applied by the env that
    runs the call.
    """
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        parsed = json.loads(raw)
    except (TypeError, ValueError, RecursionError) as exc:
        raise ValueError(f"tool-call arguments are not valid JSON: {raw!r}") from exc
    if not isinstance(parsed, dict):
        raise ValueError(f"tool-call arguments are not a JSON object: {raw!r}")
    return parsed
