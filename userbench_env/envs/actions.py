"""Parsing an agent action into a message: text, tool calls, or a reasoned rejection.

Accepted forms (as a string or as the already-decoded object):

* plain text: a message to the user;
* a JSON object ``{"name": ..., "arguments": {...}}`` (arguments may be a JSON string);
* a JSON list of such objects (several calls in one turn, run in order);
* an OpenAI assistant message ``{"role": "assistant", "content": ..., "tool_calls":
  [{"id", "type": "function", "function": {"name", "arguments": "<json>"}}]}``; with no
  tool calls its content is a text message. Text carried beside tool calls is kept in
  the transcript but never shown to the user (tau2's routing).

A string starting with ``{`` must be one of the JSON forms. Anything unusable (empty
text, broken JSON, a call without a name, non-object arguments) or against the input
policy (:mod:`userbench_env.core.limits`: length, characters, depth, entries, calls per
action, argument size) gives an :class:`AgentAction` with ``error`` set; parsing never
raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from userbench_env.core.messages import ToolCall
from userbench_env.core.limits import (
    DEFAULT_LIMITS,
    InputLimits,
    InvalidInput,
    NotJson,
    arguments_problem,
    decode_json,
    text_problem,
    value_problem,
)


@dataclass
class AgentAction:
    """A parsed action: ``text`` and/or ``calls``, or an ``error`` explaining the rejection."""

    text: str | None = None
    calls: list[ToolCall] = field(default_factory=list)
    error: str | None = None


class _Invalid(ValueError):
    pass


def _call(raw: Any, limits: InputLimits) -> ToolCall:
    if not isinstance(raw, dict):
        raise _Invalid(f"a tool call must be an object, got {type(raw).__name__}")
    body = raw.get("function") if isinstance(raw.get("function"), dict) else raw
    name = body.get("name")
    if not isinstance(name, str) or not name.strip():
        raise _Invalid("a tool call needs a non-empty string 'name'")
    arguments = body.get("arguments", {})
    if isinstance(arguments, str):
        try:
            arguments = decode_json(arguments, limits) if arguments.strip() else {}
        except NotJson as exc:
            raise _Invalid(f"arguments of {name!r} are not valid JSON: {exc}") from None
        except InvalidInput as exc:
            raise _Invalid(f"arguments of {name!r}: {exc}") from None
    if arguments is None:
        arguments = {}
    if not isinstance(arguments, dict):
        raise _Invalid(f"arguments of {name!r} must be an object, got {type(arguments).__name__}")
    problem = arguments_problem(arguments, limits)
    if problem is not None:
        raise _Invalid(f"arguments of {name!r}: {problem}")
    return ToolCall(id=str(raw.get("id") or ""), name=name.strip(), arguments=arguments)


def _calls(raw: list[Any], limits: InputLimits) -> list[ToolCall]:
    if len(raw) > limits.max_calls:
        raise _Invalid(f"{len(raw)} tool calls in one action, more than the limit of {limits.max_calls}")
    return [_call(item, limits) for item in raw]


def _from_object(obj: Any, limits: InputLimits) -> AgentAction:
    if isinstance(obj, list):
        if not obj:
            raise _Invalid("an empty list of tool calls")
        return AgentAction(calls=_calls(obj, limits))
    if not isinstance(obj, dict):
        raise _Invalid(f"expected text, a tool call object or a list of them, got {type(obj).__name__}")
    if "tool_calls" in obj or obj.get("role") == "assistant":
        content = obj.get("content")
        if content is not None and not isinstance(content, str):
            raise _Invalid("assistant message content must be a string")
        raw_calls = obj.get("tool_calls") or []
        if not isinstance(raw_calls, list):
            raise _Invalid("assistant message tool_calls must be a list")
        calls = _calls(raw_calls, limits)
        text = content if content and content.strip() else None
        if not calls and text is None:
            raise _Invalid("assistant message has neither text nor tool calls")
        return AgentAction(text=text, calls=calls)
    return AgentAction(calls=[_call(obj, limits)])


def parse_action(action: Any, limits: InputLimits = DEFAULT_LIMITS) -> AgentAction:
    """Parse one agent action (see the module docstring) under ``limits``; never raises."""
    try:
        if not isinstance(action, str):
            problem = value_problem(action, limits)
            if problem is not None:
                raise _Invalid(problem)
            return _from_object(action, limits)
        problem = text_problem(action, limits)
        if problem is not None:
            raise _Invalid(problem)
        stripped = action.strip()
        if not stripped:
            raise _Invalid("empty action: send text or a tool call")
        if stripped[0] in "{[":
            try:
                decoded = decode_json(stripped, limits)
            except NotJson as exc:
                if stripped[0] == "{":
                    raise _Invalid(f"action looks like JSON but does not parse: {exc}") from None
                return AgentAction(text=action)
            except InvalidInput as exc:
                raise _Invalid(str(exc)) from None
            if stripped[0] == "[" and not (isinstance(decoded, list) and decoded and all(isinstance(d, dict) for d in decoded)):
                return AgentAction(text=action)
            return _from_object(decoded, limits)
        return AgentAction(text=action)
    except _Invalid as exc:
        return AgentAction(error=str(exc))
