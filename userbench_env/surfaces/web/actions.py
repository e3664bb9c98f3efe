"""The web action format: one JSON object per step, the first valid one in the reply.

``{"action": "click", "ref": 3}``, ``{"action": "type", "ref": 5, "text": "Sam"}``
(replaces the field's content), ``{"action": "select", "ref": 7, "option": "Table 7"}``
(by visible option text), ``{"action": "scroll", "direction": "down"}`` (700 px, up or
down) and ``{"action": "done"}``. A ref may be written ``3``, ``"3"`` or ``"[3]"``.
Model output is data: it is parsed, never evaluated.
"""
from __future__ import annotations

import json
from typing import Annotated, Any, Literal

from pydantic import (
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
)

SCROLL_PX = 700


def _ref(value: Any) -> Any:
    """Accept ``3``, ``"3"`` and ``"[3]"``."""
    if isinstance(value, str):
        stripped = value.strip().strip("[]").strip()
        return int(stripped) if stripped.isdigit() else value
    return value


Ref = Annotated[int, BeforeValidator(_ref), Field(ge=1)]


class _Action(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Click(_Action):
    """Click control ``ref``."""

    action: Literal["click"]
    ref: Ref


class Type(_Action):
    """Replace the text of field ``ref`` with ``text``."""

    action: Literal["type"]
    ref: Ref
    text: str


class Select(_Action):
    """Choose the option shown as ``option`` in dropdown ``ref``."""

    action: Literal["select"]
    ref: Ref
    option: str


class Scroll(_Action):
    """Scroll the page 700 px up or down."""

    action: Literal["scroll"]
    direction: Literal["up", "down"] = "down"


class Done(_Action):
    """End the episode."""

    action: Literal["done"]


WebAction = Annotated[Click | Type | Select | Scroll | Done, Field(discriminator="action")]
_ADAPTER: TypeAdapter[Any] = TypeAdapter(WebAction)

ACTION_HELP = (
    'Reply with one JSON object: {"action": "click", "ref": N} | {"action": "type", "ref": N, "text": "..."} | '
    '{"action": "select", "ref": N, "option": "<visible option text>"} | {"action": "scroll", "direction": "down"|"up"} | '
    '{"action": "done"}. N is a control number [N] from the page.'
)


class InvalidAction(ValueError):
    """The reply holds no usable action."""


def json_objects(text: str) -> list[Any]:
    """Every top-level JSON object found in ``text``, in order."""
    decoder, out, index = json.JSONDecoder(), [], 0
    while (start := text.find("{", index)) != -1:
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            index = start + 1
            continue
        out.append(value)
        index = end
    return out


def parse_action(text: str) -> Click | Type | Select | Scroll | Done:
    """The first valid action object in ``text``; :class:`InvalidAction` when there is none."""
    objects = json_objects(text)
    if not objects:
        raise InvalidAction("no JSON object in the reply")
    first_error = ""
    for obj in objects:
        if isinstance(obj, dict) and "action" not in obj and isinstance(obj.get("type"), str) \
                and obj["type"] in ("click", "select", "scroll", "done"):
            obj = {**obj, "action": obj["type"]}
        try:
            return _ADAPTER.validate_python(obj)
        except ValidationError as exc:
            first_error = first_error or "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'action'}: {e['msg']}" for e in exc.errors()[:3])
    raise InvalidAction(first_error)


def describe(action: Click | Type | Select | Scroll | Done) -> str:
    """A short line for the action history."""
    if isinstance(action, Click):
        return f"click [{action.ref}]"
    if isinstance(action, Type):
        return f"type [{action.ref}] {json.dumps(action.text)}"
    if isinstance(action, Select):
        return f"select [{action.ref}] {json.dumps(action.option)}"
    if isinstance(action, Scroll):
        return f"scroll {action.direction}"
    return "done"
