"""A web task's page and outputs: APB's ``solution/web.json`` plus where the page comes from.

``outputs`` say how the final page becomes the artifact: ``dom`` (an attribute over a
CSS selector, as a list under ``key``), ``js`` (the JSON value of a page expression)
and ``text`` (the text of a selector, or of the whole page). ``role`` names the user in
the persona prompt and ``notes`` join the goal. The page is an APB ``input/site``
folder (``site``, optionally started by a page ``server`` command that prints its port
as the first JSON line), or one of our templates filled with ``page`` data.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from userbench_env.surfaces.sandbox import TaskError, inside

#: the cart list every APB web task reads
DEFAULT_PICK_KEY = "orderedItemIds"


class WebOutput(BaseModel):
    """One output of ``web.json``: how a piece of the final page becomes artifact data."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["dom", "js", "text"]
    path: str = ""
    key: str = ""
    selector: str = ""
    attr: str = ""
    expr: str = ""

    @property
    def name(self) -> str:
        """The artifact key: ``key``, else the output file's stem (``order_result``)."""
        return self.key or Path(self.path).stem or self.kind


class PageItem(BaseModel):
    """One item on a bundled page: opaque id, name, detail line and price text."""

    model_config = ConfigDict(extra="forbid")

    id: str
    name: str
    detail: str = ""
    price: str = ""


class PageSpec(BaseModel):
    """Data for one of our page templates (``shop``, ``booking`` or ``signup``).

    ``cap`` is how many items the cart holds; ``noun`` names an item ("dish",
    "session"); ``venue`` and ``heading``/``intro`` are the page's own words;
    ``submit``/``confirmation`` the final button and its message.
    """

    model_config = ConfigDict(extra="forbid")

    template: Literal["shop", "booking", "signup"]
    venue: str
    heading: str
    intro: str = ""
    noun: str = "item"
    cap: int = 3
    submit: str = "Confirm"
    confirmation: str = "Done - thank you."
    items: list[PageItem]


class WebSpec(BaseModel):
    """Everything the web surface needs about a task's page (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    role: str = "a user"
    notes: list[str] = Field(default_factory=list)
    outputs: list[WebOutput] = Field(default_factory=list)
    site: str | None = None
    entry: str = "index.html"
    server: list[str] | None = None
    page: PageSpec | None = None
    pick_key: str | None = None

    @property
    def picks_from(self) -> str:
        """The artifact key holding the picks: ``pick_key``, else the first ``dom`` output's."""
        if self.pick_key:
            return self.pick_key
        dom = [o.name for o in self.outputs if o.kind == "dom"]
        return dom[0] if dom else DEFAULT_PICK_KEY


def load_web_spec(folder: str | Path) -> WebSpec | None:
    """The web spec of an APB task folder (``solution/web.json`` + ``input/site``).

    ``None`` when the folder has neither. A missing ``web.json`` gives APB's usual
    output (``data-id`` over ``#cart-items li`` as ``orderedItemIds``). The ``entry``
    page must lie inside the site folder; a malformed ``web.json`` or an ``entry``
    leading out of the folder is a :class:`TaskError`.
    """
    folder = Path(folder)
    site = inside(folder, "input/site", "site folder")
    raw_path = inside(folder, "solution/web.json", "web.json")
    if not raw_path.is_file() and not site.is_dir():
        return None
    try:
        raw = json.loads(raw_path.read_text(encoding="utf-8")) if raw_path.is_file() else {
            "outputs": [{"kind": "dom", "attr": "data-id", "selector": "#cart-items li", "key": DEFAULT_PICK_KEY}],
        }
    except (ValueError, RecursionError) as exc:
        raise TaskError(f"{raw_path} is not valid JSON: {type(exc).__name__}") from exc
    if not isinstance(raw, dict):
        raise TaskError(f"{raw_path} must be a JSON object")
    server = raw.get("server")
    if isinstance(server, dict):
        server = server.get("command")
    if isinstance(server, str):
        server = server.split()
    entry = str(raw.get("entry") or "index.html")
    if site.is_dir():
        inside(site, entry, "web.json entry")
    try:
        return WebSpec(
            role=str(raw.get("role") or "a user"), notes=[str(n) for n in raw.get("notes", [])],
            outputs=[WebOutput.model_validate(o) for o in raw.get("outputs", [])],
            site=str(site) if site.is_dir() else None, entry=entry,
            server=[str(part) for part in server] if server else None,
        )
    except (ValidationError, TypeError) as exc:
        raise TaskError(f"{raw_path}: malformed web spec ({' '.join(str(exc).split())[:200]})") from exc
