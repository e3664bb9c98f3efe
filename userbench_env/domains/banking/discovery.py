"""What the agent is told when it unlocks or hands out a discoverable tool.

The text comes from the discoverable tool's docstring, read the way tau2 reads it: the
description is everything before the ``Args:`` line (the whole docstring when there is
none, ``Returns:`` section included); each ``name (type[, optional]): text`` line of the
``Args:`` section (up to ``Returns:``) is a parameter, ``string`` when no type is given.
These texts are tool *outputs* in tau2 transcripts, so the docstrings of discoverable
tools are written in that format and must not be reworded.
"""
from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Callable

_ARGS_SPLIT = re.compile(r"\n\s*Args:\s*\n")
_RETURNS_SPLIT = re.compile(r"\n\s*Returns:\s*\n")
_PARAM_LINE = re.compile(r"^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$", re.MULTILINE)
_OPTIONAL = re.compile(r",?\s*optional", re.IGNORECASE)


@dataclass(frozen=True)
class ParamDoc:
    """One documented parameter of a discoverable tool."""

    name: str
    type: str
    description: str
    required: bool


@dataclass(frozen=True)
class ToolDoc:
    """A discoverable tool's name, description and documented parameters."""

    name: str
    description: str
    params: tuple[ParamDoc, ...]

    def for_agent(self) -> str:
        """The ``Tool: / Description: / Parameters:`` block shown after an unlock."""
        lines = [
            f"  - {p.name}: {p.type} ({'required' if p.required else 'optional'}) - {p.description}"
            for p in self.params
        ]
        params = "\n".join(lines) if lines else "  (no parameters)"
        return f"Tool: {self.name}\nDescription: {self.description}\nParameters:\n{params}"


@lru_cache(maxsize=None)
def _parse(name: str, doc: str) -> ToolDoc:
    parts = _ARGS_SPLIT.split(doc, maxsplit=1)
    params: dict[str, ParamDoc] = {}
    if len(parts) > 1:
        args_section = _RETURNS_SPLIT.split(parts[1], maxsplit=1)[0]
        for match in _PARAM_LINE.finditer(args_section):
            type_info = match.group(2) or "string"
            params[match.group(1)] = ParamDoc(
                name=match.group(1),
                type=_OPTIONAL.sub("", type_info).strip() or "string",
                description=match.group(3).strip(),
                required="optional" not in type_info.lower(),
            )
    return ToolDoc(name=name, description=parts[0].strip(), params=tuple(params.values()))


def tool_doc(func: Callable[..., Any]) -> ToolDoc:
    """The :class:`ToolDoc` of a discoverable tool method (cached)."""
    return _parse(func.__name__, inspect.getdoc(func) or "")
