"""Toolkit machinery shared by every domain: tools, schemas, calls and their output text.

A toolkit is a class whose tools are plain methods with type hints and a docstring,
marked with :func:`tool`. Other public methods are *helpers*: reachable only through
a task's initialization actions and env assertions, never by the agent or the user
(exactly as in tau2-bench).

Calling a tool through :meth:`Toolkit.call` reproduces tau2's contract byte for byte:

* the name must be a tool of this toolkit, else ``Tool '<name>' not found.``;
* arguments are passed as keyword arguments **without validation or coercion**;
* any exception becomes ``Error: <exception text>`` with the error flag set;
* a return value becomes text by :func:`to_content`;
* beyond tau2: the call runs under a time budget (:mod:`~userbench_env.domains.deadline`);
  a call past it answers ``Error: tool '<name>' ran past its time budget of <s> s``.
"""
from __future__ import annotations

import datetime as _dt
import inspect
import json
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Literal, get_type_hints

from userbench_env.core.messages import ToolResult
from userbench_env.domains.deadline import DEFAULT_TOOL_SECONDS, Budget, ToolTimeout

ToolKind = Literal["read", "write", "generic", "think"]


class Model(dict):
    """Marks a returned record as a *model object* (tau2 returns a pydantic model).

    Model returns are serialised with their numbers intact; plain dict/list returns
    have their bare numbers turned into strings (see :func:`to_content`). Wrap records
    with ``Model(record)``; the dict's insertion order is the printed field order.
    """

    __slots__ = ()


@dataclass(frozen=True)
class ToolSpec:
    """What :func:`tool` records on a method."""

    name: str
    kind: ToolKind
    mutates_state: bool
    discoverable: bool


def tool(
    kind: ToolKind = "read",
    *,
    mutates_state: bool | None = None,
    discoverable: bool = False,
    name: str | None = None,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Mark a toolkit method as a tool.

    ``mutates_state`` defaults to ``kind == "write"`` (tau2's rule); evaluation replays
    only mutating calls. ``discoverable`` tools are callable but not listed (banking).
    """

    def mark(func: Callable[..., Any]) -> Callable[..., Any]:
        func.__tool_spec__ = ToolSpec(  # type: ignore[attr-defined]
            name=name or func.__name__,
            kind=kind,
            mutates_state=(kind == "write") if mutates_state is None else mutates_state,
            discoverable=discoverable,
        )
        return func

    return mark


# -- output serialisation ------------------------------------------------------------


def _plain_leaf_processing(value: Any) -> Any:
    """tau2's conversion of a plain container before JSON encoding."""
    if isinstance(value, Model):
        return dict(value)
    if isinstance(value, dict):
        return {k: _plain_leaf_processing(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_leaf_processing(v) for v in value]
    if isinstance(value, (bool, int, float)):
        return str(value)
    if isinstance(value, (_dt.date, _dt.datetime)):
        return value.isoformat()
    return value


def to_content(value: Any) -> str:
    """Turn a tool's return value into the tool-message text exactly as tau2 does.

    Strings are used as-is, ``None`` is ``null``, a :class:`Model` keeps its numbers,
    plain containers have their bare numbers/bools stringified (model values inside
    are left alone), a bare number or bool is its ``str()`` JSON-quoted. JSON uses
    Python's default separators, ASCII escaping and ``str()`` for anything else.
    """
    if isinstance(value, str):
        return value
    if value is None:
        return "null"
    if isinstance(value, Model):
        return json.dumps(dict(value), default=str)
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(_plain_leaf_processing(value), default=str)
    if isinstance(value, (bool, int, float)):
        return json.dumps(str(value))
    return json.dumps(value, default=str)


def timeout_result(name: str, seconds: float | None) -> ToolResult:
    """The error answer of a call of tool ``name`` that ran past its budget of ``seconds``."""
    return ToolResult(content=f"Error: tool '{name}' ran past its time budget of {seconds:g} s", error=True)


# -- schemas -------------------------------------------------------------------------

_ARGS_HEADER = re.compile(r"^\s*(Args|Arguments|Parameters):\s*$")
_SECTION_HEADER = re.compile(r"^\s*(Returns|Raises|Yields|Examples?|Notes?):\s*$")
_ARG_LINE = re.compile(r"^\s*(\w+)\s*(\([^)]*\))?\s*:\s*(.*)$")


def parse_docstring(doc: str | None) -> tuple[str, dict[str, str]]:
    """Split a Google-style docstring into (description, {argument: description})."""
    if not doc:
        return "", {}
    lines = inspect.cleandoc(doc).splitlines()
    description: list[str] = []
    args: dict[str, str] = {}
    section = "description"
    current: str | None = None
    for line in lines:
        if _ARGS_HEADER.match(line):
            section, current = "args", None
            continue
        if _SECTION_HEADER.match(line):
            section, current = "other", None
            continue
        if section == "description":
            description.append(line)
        elif section == "args":
            match = _ARG_LINE.match(line)
            if match and (line.startswith("    ") or not line.startswith(" ")):
                if not line.startswith("        "):
                    current = match.group(1)
                    args[current] = match.group(3).strip()
                    continue
            if current and line.strip():
                args[current] = (args[current] + " " + line.strip()).strip()
    return "\n".join(description).strip(), args


def _function_schema(name: str, func: Callable[..., Any]) -> dict[str, Any]:
    from pydantic import create_model

    signature = inspect.signature(func)
    hints = get_type_hints(func)
    description, arg_docs = parse_docstring(func.__doc__)
    fields: dict[str, Any] = {}
    for pname, param in signature.parameters.items():
        if pname == "self":
            continue
        annotation = hints.get(pname, Any)
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[pname] = (annotation, default)
    model = create_model(f"{name}_args", **fields)  # type: ignore[call-overload]
    params = model.model_json_schema()
    params.pop("title", None)
    for pname, prop in params.get("properties", {}).items():
        prop.pop("title", None)
        if pname in arg_docs:
            prop["description"] = arg_docs[pname]
    params.setdefault("properties", {})
    params["type"] = "object"
    return {
        "type": "function",
        "function": {"name": name, "description": description, "parameters": params},
    }


# -- the toolkit ---------------------------------------------------------------------


class Toolkit:
    """Base class of every domain toolkit (agent side or user side).

    Subclasses define tools with :func:`tool`. ``db`` is the world's private
    :class:`~userbench_env.domains.store.Document`; ``world`` gives access to the other
    side where a domain needs it (telecom sync, banking's shared DB).
    """

    #: Toolkit-wide cache of ``{tool name: (method name, ToolSpec)}`` per class.
    _tool_index: ClassVar[dict[str, tuple[str, ToolSpec]]]

    def __init__(self, db: Any, world: Any = None):
        self.db = db
        self.world = world

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        index: dict[str, tuple[str, ToolSpec]] = {}
        for klass in reversed(cls.__mro__):
            for attr, value in vars(klass).items():
                spec = getattr(value, "__tool_spec__", None)
                if spec is not None:
                    index[spec.name] = (attr, spec)
        cls._tool_index = index

    # -- introspection -----------------------------------------------------------
    @classmethod
    def tool_specs(cls) -> dict[str, ToolSpec]:
        """Every tool of the toolkit (listed and discoverable) by name."""
        return {name: spec for name, (_, spec) in cls._tool_index.items()}

    def has_tool(self, name: str) -> bool:
        """True if ``name`` is a tool (listed or discoverable) of this toolkit."""
        return name in self._tool_index

    def listed_tools(self) -> list[str]:
        """Names of the tools offered to the model (discoverable ones left out)."""
        return [n for n, (_, s) in self._tool_index.items() if not s.discoverable]

    def mutates_state(self, name: str) -> bool:
        """Whether evaluation replay re-executes calls of tool ``name``."""
        return self._tool_index[name][1].mutates_state

    @classmethod
    def _schemas(cls) -> dict[str, dict[str, Any]]:
        cache = cls.__dict__.get("_schema_cache")
        if cache is None:
            cache = {}
            for name, (attr, _) in cls._tool_index.items():
                cache[name] = _function_schema(name, getattr(cls, attr))
            cls._schema_cache = cache  # type: ignore[attr-defined]
        return cache

    def schemas(self, names: list[str] | None = None) -> list[dict[str, Any]]:
        """OpenAI function schemas of ``names`` (default: every listed tool)."""
        wanted = self.listed_tools() if names is None else names
        all_schemas = self._schemas()
        return [all_schemas[n] for n in wanted]

    # -- calling -----------------------------------------------------------------
    def method(self, name: str) -> Callable[..., Any]:
        """The bound method for tool or helper ``name`` (``AttributeError`` if none)."""
        if name in self._tool_index:
            return getattr(self, self._tool_index[name][0])
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self, name)

    def invoke(self, name: str, arguments: dict[str, Any]) -> Any:
        """Call any tool or helper with keyword arguments and return its raw value."""
        return self.method(name)(**arguments)

    def call(self, name: str, arguments: dict[str, Any], seconds: float | None = DEFAULT_TOOL_SECONDS) -> ToolResult:
        """Run tool ``name`` as tau2's environment does and return the message content.

        The call (tool and output serialisation) runs under a time budget of ``seconds``
        (``None``: none) enforced from outside the tool (:mod:`~userbench_env.domains.deadline`);
        past it the answer is :func:`timeout_result`. Every ``Exception`` a tool raises is
        its ordinary error answer (tau2's contract, byte for byte); :class:`ToolTimeout` is a
        ``BaseException`` so neither the tool nor that blanket handler can mistake it for
        one, and any other ``BaseException`` propagates.
        """
        if name not in self._tool_index:
            return ToolResult(content=f"Error: Tool '{name}' not found.", error=True)
        budget = None
        try:
            budget = Budget(seconds)
            try:
                try:
                    value = getattr(self, self._tool_index[name][0])(**arguments)
                except Exception as exc:  # every failure is the tool's answer, never a crash
                    result = ToolResult(content=f"Error: {exc}", error=True)
                else:
                    result = ToolResult(content=to_content(value), error=False)
            finally:
                budget.close()
        except ToolTimeout:
            if budget is not None:
                budget.close()
            return timeout_result(name, seconds)
        return result
