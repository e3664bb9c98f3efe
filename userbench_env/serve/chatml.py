"""ChatML with tools, both ways: render an OpenAI chat request to a prompt, parse a
completion back into text and tool calls.

SmolLM2 (and Qwen, Hermes) speak ChatML: ``<|im_start|>{role}\\n{content}<|im_end|>\\n``.
Tools travel the way Hermes/Qwen models were trained to read them:

- the request's ``tools`` are listed as JSON inside ``<tools></tools>`` at the end of
  the system message, with an instruction to answer a call as
  ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>``;
- an assistant message's ``tool_calls`` are rendered the same way after its text;
- ``tool`` messages become a ``user`` turn of ``<tool_response>`` blocks (consecutive
  results share one turn).

:func:`parse_completion` reads ``<tool_call>`` blocks back (only when the request had
tools); a block that is not a JSON object with a known function name and an object of
arguments stays in the text and is counted as an odd reply, never guessed at.
"""
from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from pydantic import BaseModel, Field

from userbench_env.core.messages import ToolCall

#: where generation stops: end of turn, the start of another turn (role confusion), end of text
STOP_STRINGS = ("<|im_end|>", "<|im_start|>", "<|endoftext|>")

TOOL_INSTRUCTION = (
    "# Tools\n\nYou may call one of these functions. Their signatures are listed below:\n<tools>\n{tools}\n</tools>\n\n"
    "To call a function, answer with a JSON object inside <tool_call></tool_call> tags:\n"
    '<tool_call>\n{{"name": <function-name>, "arguments": <arguments-json-object>}}\n</tool_call>'
)

_TOOL_CALL = re.compile(r"<tool_call>\s*(.*?)\s*(?:</tool_call>|$)", re.DOTALL)


def _content(message: dict[str, Any]) -> str:
    """A message's content as text (list-of-parts content joined)."""
    content = message.get("content")
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, dict))
    return str(content)


def _call_json(call: dict[str, Any]) -> str:
    function = call.get("function") or {}
    arguments = function.get("arguments")
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            pass
    return json.dumps({"name": function.get("name"), "arguments": arguments})


def _turn(role: str, text: str) -> str:
    return f"<|im_start|>{role}\n{text}<|im_end|>\n"


def render_prompt(messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]] | None = None) -> str:
    """The ChatML prompt for an OpenAI chat request, ending with the assistant's open turn.

    Raises ``ValueError`` for a message without a known role.
    """
    parts: list[str] = []
    system = [_content(m) for m in messages if m.get("role") == "system"]
    if tools:
        listed = "\n".join(json.dumps(tool.get("function", tool)) for tool in tools)
        system.append(TOOL_INSTRUCTION.format(tools=listed))
    if system:
        parts.append(_turn("system", "\n\n".join(s for s in system if s)))
    responses: list[str] = []
    for message in messages:
        role = message.get("role")
        if role == "tool":
            responses.append(f"<tool_response>\n{_content(message)}\n</tool_response>")
            continue
        if responses:
            parts.append(_turn("user", "\n".join(responses)))
            responses = []
        if role == "system":
            continue
        if role == "assistant":
            calls = [f"<tool_call>\n{_call_json(call)}\n</tool_call>" for call in message.get("tool_calls") or []]
            parts.append(_turn("assistant", "\n".join([t for t in [_content(message)] if t] + calls)))
        elif role == "user":
            parts.append(_turn("user", _content(message)))
        else:
            raise ValueError(f"message with unknown role {role!r}")
    if responses:
        parts.append(_turn("user", "\n".join(responses)))
    parts.append("<|im_start|>assistant\n")
    return "".join(parts)


class ParsedCompletion(BaseModel):
    """A completion read back: its text (None if empty), tool calls, and the odd things
    seen on the way (``empty``, ``bad_tool_call``, ``unknown_tool``)."""

    text: str | None = None
    tool_calls: list[ToolCall] = Field(default_factory=list)
    odd: list[str] = Field(default_factory=list)


def _read_call(raw: str, known: set[str]) -> tuple[ToolCall | None, str | None]:
    try:
        data = json.loads(raw)
    except json.JSONDecodeError:
        return None, "bad_tool_call"
    if not isinstance(data, dict) or not isinstance(data.get("name"), str):
        return None, "bad_tool_call"
    arguments = data.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError:
            return None, "bad_tool_call"
    if not isinstance(arguments, dict):
        return None, "bad_tool_call"
    if data["name"] not in known:
        return None, "unknown_tool"
    return ToolCall(name=data["name"], arguments=arguments), None


def parse_completion(text: str, tools: Sequence[dict[str, Any]] | None = None) -> ParsedCompletion:
    """Text and tool calls of a generated completion (see the module docstring)."""
    parsed = ParsedCompletion()
    remaining = text
    if tools:
        known = {str((tool.get("function") or tool).get("name")) for tool in tools}
        kept: list[str] = []
        last = 0
        for match in _TOOL_CALL.finditer(text):
            call, odd = _read_call(match.group(1), known)
            if call is None:
                parsed.odd.append(odd or "bad_tool_call")
                continue
            parsed.tool_calls.append(call)
            kept.append(text[last:match.start()])
            last = match.end()
        remaining = "".join(kept) + text[last:]
    stripped = remaining.strip()
    parsed.text = stripped or None
    if parsed.text is None and not parsed.tool_calls:
        parsed.odd.append("empty")
    return parsed
