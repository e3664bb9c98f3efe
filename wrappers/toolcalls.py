"""ParseToolCalls: model text with tool-call markup turned into env actions.

Recognised markup (the text outside it is kept as the message content):

* ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` (Hermes / Qwen), repeated;
* ``<function=NAME>{...arguments...}</function>`` (Llama 3.1);
* ``[TOOL_CALLS] [{"name": ..., "arguments": {...}}, ...]`` (Mistral);
* a fenced ```` ```json ```` block holding ``{"name", "arguments"}`` or a list of them.

With calls, the action is an OpenAI assistant message with ``tool_calls``; without,
the text unchanged. Markup whose JSON does not parse is passed on as a call with
unparseable arguments, so the env answers with its own clear error observation (and
counts it), never an exception. Model output is data: nothing is evaluated.
"""
from __future__ import annotations

import json
import re
from typing import Any

import gymnasium as gym

_HERMES = re.compile(r"<tool_call>\s*(.*?)\s*</tool_call>", re.S)
_LLAMA = re.compile(r"<function=([\w.\-]+)>\s*(.*?)\s*</function>", re.S)
_MISTRAL = re.compile(r"\[TOOL_CALLS\]\s*(\[.*\]|\{.*\})", re.S)
_FENCED = re.compile(r"```(?:json)?\s*(\{.*?\}|\[.*?\])\s*```", re.S)
_NAME = re.compile(r'"name"\s*:\s*"([^"]+)"')


def _call(name: str, arguments: Any) -> dict[str, Any]:
    raw = arguments if isinstance(arguments, str) else json.dumps(arguments if arguments is not None else {})
    return {"id": "", "type": "function", "function": {"name": name, "arguments": raw}}


def _calls_from_json(blob: str) -> list[dict[str, Any]] | None:
    """Calls in a JSON object/list blob; a single broken call when it does not parse."""
    try:
        decoded = json.loads(blob)
    except (ValueError, RecursionError):  # RecursionError: nested past the stack
        found = _NAME.search(blob)
        return [_call(found.group(1) if found else "", blob)]  # unparseable: the env reports it
    items = decoded if isinstance(decoded, list) else [decoded]
    if not all(isinstance(i, dict) and "name" in i for i in items):
        return None
    return [_call(str(i["name"]), i.get("arguments", i.get("parameters", {}))) for i in items]


def parse_tool_calls(text: str) -> Any:
    """The env action for model ``text`` (see the module docstring)."""
    if not isinstance(text, str):
        return text
    calls: list[dict[str, Any]] = []
    rest = text
    for pattern in (_HERMES, _LLAMA, _MISTRAL, _FENCED):
        for found in pattern.finditer(rest):
            if pattern is _LLAMA:
                try:
                    arguments: Any = json.loads(found.group(2) or "{}")
                except (ValueError, RecursionError):
                    arguments = found.group(2)
                parsed: list[dict[str, Any]] | None = [_call(found.group(1), arguments)]
            else:
                parsed = _calls_from_json(found.group(1))
            if parsed is not None:
                calls += parsed
                rest = rest.replace(found.group(0), " ", 1)
    if not calls:
        return text
    content = " ".join(rest.split()) or None
    return {"role": "assistant", "content": content, "tool_calls": calls}


class ParseToolCalls(gym.ActionWrapper):
    """Turn text actions with tool-call markup into tool-call actions (:func:`parse_tool_calls`)."""

    def action(self, action: Any) -> Any:
        """The env action for ``action``."""
        return parse_tool_calls(action)
