"""The items of a served web page: ``.item[data-id]`` tags, their ``data-*`` labels and names.

APB pages carry their ground truth as ``data-<label>`` attributes on each item
(``data-animal="true"``); the verifier reads them from the served HTML, never the live
DOM. :func:`boolean_labels` names the labels a page carries, so a task without a rule
overlay can find its label map (a page with exactly one boolean label).
"""
from __future__ import annotations

from html.parser import HTMLParser

from pydantic import BaseModel, ConfigDict


class HtmlItem(BaseModel):
    """One ``.item[data-id]`` of the served HTML: its attributes and its first text (name)."""

    model_config = ConfigDict(extra="forbid")

    attrs: dict[str, str]
    name: str = ""

    @property
    def id(self) -> str:
        """The item's ``data-id``."""
        return self.attrs["data-id"]


class _ItemParser(HTMLParser):
    """Collects every start tag carrying ``data-id`` with the first text inside it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.items: list[HtmlItem] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        found = {k: v or "" for k, v in attrs}
        if "data-id" in found:
            self.items.append(HtmlItem(attrs=found))

    def handle_data(self, data: str) -> None:
        if self.items and data.strip() and not self.items[-1].name:
            self.items[-1].name = " ".join(data.split())


def html_items(html: str) -> list[HtmlItem]:
    """The page's items: start tags with ``data-id`` and class ``item``, in page order."""
    parser = _ItemParser()
    parser.feed(html)
    return [i for i in parser.items if "item" in i.attrs.get("class", "").split()]


def label_value(text: str) -> bool | int:
    """One ``data-<label>`` value: ``true``/``false`` or an integer tier (``ValueError`` otherwise)."""
    low = text.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    if low.lstrip("-").isdigit() and len(low) <= 9:
        return int(low)
    raise ValueError(f"label value {text[:40]!r} is neither a boolean nor an integer")


def boolean_labels(items: list[HtmlItem]) -> list[str]:
    """Label names (``data-<name>``, ``data-id`` aside) whose every value on the items is
    ``true`` or ``false``, in order of first appearance."""
    names: dict[str, bool] = {}
    for item in items:
        for attr, value in item.attrs.items():
            if attr.startswith("data-") and attr != "data-id":
                name = attr.removeprefix("data-")
                names[name] = names.get(name, True) and value.strip().lower() in ("true", "false")
    return [name for name, boolean in names.items() if boolean]
