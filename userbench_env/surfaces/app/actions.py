"""App actions: one JSON object per step, with pixel coordinates, validated.

Shape (APB's computer-use JSON, flattened): ``{"type": ..., "x", "y", "end_x", "end_y",
"text", "keys", "scroll_x", "scroll_y", "button", "seconds"}``. An object with an
``action`` key (``{"analysis", "plan", "action": {...}}``) is unwrapped first. Types:
``click``, ``double_click``, ``triple_click``, ``right_click``, ``move`` (need x, y),
``type`` (text), ``key`` (keys: ``"Return"``, ``"ctrl+a"`` or a list), ``scroll`` (x, y
and scroll_y / scroll_x in wheel notches, positive = down/right), ``drag`` (x, y to
end_x, end_y), ``wait`` (seconds, at most 3) and ``done`` (ends the episode; so do
``answer`` and ``terminate``).

Input the display could not take is invalid here, before it reaches xdotool: text with
a NUL byte, more than :data:`MAX_KEYS` keys, or a key that is not an X key name or a
``+`` combination of them (so nothing can look like a command-line flag).
"""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from userbench_env.core.limits import NotJson, decode_json

ActionType = Literal["click", "double_click", "triple_click", "right_click", "move", "type", "key", "scroll",
                     "drag", "wait", "done"]
POINTER = {"click", "double_click", "triple_click", "right_click", "move", "scroll", "drag"}
#: at most this many keys in one ``key`` action
MAX_KEYS = 32
#: an X keysym name (``Return``, ``a``, ``KP_Enter``, ``F5``) or a ``+`` combination (``ctrl+shift+Tab``)
_KEY_RE = re.compile(r"[A-Za-z0-9_]{1,40}(\+[A-Za-z0-9_]{1,40}){0,5}")
TERMINAL_ALIASES = {"answer": "done", "terminate": "done", "left_click": "click", "doubleclick": "double_click",
                    "keypress": "key", "mouse_move": "move"}


class AppAction(BaseModel):
    """One validated computer action (see the module docstring)."""

    model_config = ConfigDict(extra="ignore")

    type: ActionType
    x: int | None = None
    y: int | None = None
    end_x: int | None = None
    end_y: int | None = None
    text: str | None = Field(default=None, max_length=2000)
    keys: str | list[str] | None = None
    scroll_x: int = Field(default=0, ge=-20, le=20)
    scroll_y: int = Field(default=0, ge=-20, le=20)
    button: Literal["left", "middle", "right"] = "left"
    seconds: float = Field(default=1.0, ge=0.0, le=3.0)

    @model_validator(mode="after")
    def _needs(self) -> AppAction:
        if self.type in POINTER and (self.x is None or self.y is None):
            raise ValueError(f"{self.type} needs x and y")
        if self.type == "drag" and (self.end_x is None or self.end_y is None):
            raise ValueError("drag needs end_x and end_y")
        if self.type == "type" and not self.text:
            raise ValueError("type needs a non-empty text")
        if self.type == "key" and not self.keys:
            raise ValueError("key needs keys, e.g. \"Return\" or \"ctrl+a\"")
        if self.text is not None and "\x00" in self.text:
            raise ValueError("text must not contain a NUL character")
        keys = [self.keys] if isinstance(self.keys, str) else self.keys or []
        if len(keys) > MAX_KEYS:
            raise ValueError(f"at most {MAX_KEYS} keys per action, got {len(keys)}")
        bad = next((k for k in keys if not _KEY_RE.fullmatch(k)), None)
        if bad is not None:
            raise ValueError(f"{bad[:40]!r} is not a key name (e.g. \"Return\", \"a\", \"ctrl+a\")")
        return self

    def check_bounds(self, width: int, height: int) -> None:
        """``ValueError`` when a coordinate lies off the screen."""
        for name, value, limit in (("x", self.x, width), ("y", self.y, height),
                                   ("end_x", self.end_x, width), ("end_y", self.end_y, height)):
            if value is not None and not 0 <= value < limit:
                raise ValueError(f"{name}={value} is off the {width}x{height} screen")

    def to_driver(self) -> dict[str, Any]:
        """The plain dict the driver performs."""
        return self.model_dump(exclude_none=True)


def parse_action(text: str, width: int, height: int) -> AppAction:
    """Parse and validate one action; ``ValueError`` with a readable reason when invalid.

    The JSON is read under the input policy of every env
    (:func:`~userbench_env.core.limits.decode_json`: depth, entries, string keys, no NUL).
    """
    try:
        data = decode_json(text)
    except NotJson as exc:
        raise ValueError(f"not JSON ({exc})") from exc
    if isinstance(data, dict) and isinstance(data.get("action"), dict):
        data = data["action"]
    if not isinstance(data, dict) or not isinstance(data.get("type"), str):
        raise ValueError('an action is a JSON object with a "type"')  # noqa: TRY004 (a parse error)
    data = {**data, "type": TERMINAL_ALIASES.get(data["type"], data["type"])}
    try:
        action = AppAction.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise ValueError(f"{where + ': ' if where else ''}{first['msg']}") from exc
    action.check_bounds(width, height)
    return action
