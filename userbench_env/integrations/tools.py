"""Python methods generated from OpenAI tool schemas (for trainers that read tools off a class).

:func:`tool_method` turns one ``{"type": "function", "function": {...}}`` schema into a
function whose name, signature (JSON types as type hints, optional parameters defaulting
to ``None``) and Google-style docstring (the description, ``Args:`` with each
parameter's description and ``(choices: [...])`` for enums) carry the schema, so
``transformers.utils.get_json_schema`` recovers it. Calling the method forwards the
arguments it was given, unchanged and unvalidated, to ``call(self, name, arguments)``:
the env validates them and answers a bad call with its own error text.
"""
from __future__ import annotations

import inspect
import json
import re
from typing import Any, Callable, Optional

_JSON_TYPES: dict[str, Any] = {"string": str, "integer": int, "number": float, "boolean": bool, "object": dict}


def json_type_hint(schema: dict[str, Any]) -> Any:
    """The Python type hint of a JSON-schema property: ``anyOf`` (nulls dropped) is its
    members' hint when they agree, else ``Any``; a ``$ref`` (a pydantic model) is ``dict``."""
    options = schema.get("anyOf")
    if options:
        hints = {json_type_hint(o) for o in options if o.get("type") != "null"}
        return hints.pop() if len(hints) == 1 else Any
    if "$ref" in schema:
        return dict
    kind = schema.get("type")
    if kind == "array":
        items = schema.get("items")
        return list[json_type_hint(items)] if items else list  # type: ignore[misc]
    return _JSON_TYPES.get(kind, Any) if isinstance(kind, str) else Any


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def tool_docstring(function: dict[str, Any]) -> str:
    """The Google-style docstring of a schema's ``function`` part."""
    lines = [function.get("description") or function["name"]]
    properties = (function.get("parameters") or {}).get("properties") or {}
    if properties:
        lines += ["", "Args:"]
        for name, prop in properties.items():
            text = _one_line(prop.get("description") or prop.get("title") or name)
            if prop.get("enum"):
                text += f" (choices: {json.dumps(prop['enum'])})"
            lines.append(f"    {name}: {text}")
    return "\n".join(lines)


def tool_method(schema: dict[str, Any], call: Callable[[Any, str, dict[str, Any]], str]) -> Callable[..., str]:
    """A method for one OpenAI tool schema (see the module docstring)."""
    function = schema["function"]
    name = function["name"]
    if not name.isidentifier():
        raise ValueError(f"tool name {name!r} is not a Python identifier")
    parameters = function.get("parameters") or {}
    properties = parameters.get("properties") or {}
    required = set(parameters.get("required") or [])

    def method(self: Any, **arguments: Any) -> str:
        return call(self, name, arguments)

    params = [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
    annotations: dict[str, Any] = {"return": str}
    for key in sorted(properties, key=lambda k: k not in required):  # required first, order kept
        hint = json_type_hint(properties[key])
        if key in required:
            params.append(inspect.Parameter(key, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hint))
        else:
            hint = Optional[hint]
            params.append(inspect.Parameter(key, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=hint, default=None))
        annotations[key] = hint
    method.__name__ = method.__qualname__ = name
    method.__doc__ = tool_docstring(function)
    method.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    method.__annotations__ = annotations
    return method
