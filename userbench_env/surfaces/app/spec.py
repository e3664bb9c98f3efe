"""The app catalogue a task carries: what the Tk app shows and what it writes.

An :class:`AppSpec` is task data: title, catalogue rows (id, section, name,
description, price), the basket's count limits, the submit button and confirmation
texts, and the output file name and list key. The rows' hidden labels are the task's
answer key; they reach the app only at launch (:func:`launch_payload`) and are never
drawn. APB's QuickBite catalogue (``derived/vegan-app-quickbite-catalog.json``) converts
with :func:`spec_from_apb_catalog`.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator


class AppItem(BaseModel):
    """One catalogue row as drawn: opaque id, section, name, description, price."""

    model_config = ConfigDict(extra="forbid")

    id: str
    section: str = "Menu"
    name: str
    description: str = ""
    price: str = ""


class AppSpec(BaseModel):
    """A task's app: rows, basket limits, texts, and the file the submit button writes."""

    model_config = ConfigDict(extra="forbid")

    title: str
    subtitle: str = ""
    items: list[AppItem]
    min_picks: int = 1
    max_picks: int = 3
    add_label: str = "+"
    basket_title: str = "Your basket"
    submit_label: str = "Place order"
    confirmation: str = "Order placed"
    output_file: str = "order.json"
    list_key: str = "orderedItems"
    note_label: str = "Note"

    @model_validator(mode="after")
    def _consistent(self) -> AppSpec:
        ids = [i.id for i in self.items]
        if len(set(ids)) != len(ids):
            raise ValueError("app catalogue ids must be unique")
        if not 1 <= self.min_picks <= self.max_picks <= len(self.items):
            raise ValueError(f"basket limits {self.min_picks}-{self.max_picks} do not fit {len(self.items)} rows")
        if "/" in self.output_file or self.output_file.startswith("."):
            raise ValueError(f"output_file must be a plain file name, not {self.output_file!r}")
        return self

    def sections(self) -> dict[str, list[str]]:
        """Section -> row ids, in catalogue order (the universe of known ids)."""
        out: dict[str, list[str]] = {}
        for item in self.items:
            out.setdefault(item.section, []).append(item.id)
        return out

    def item(self, item_id: str) -> AppItem | None:
        """The row with this id, or ``None``."""
        return next((i for i in self.items if i.id == item_id), None)


def launch_payload(spec: AppSpec, labels: Mapping[str, Mapping[str, bool | int]]) -> dict[str, Any]:
    """What the app reads at launch: the spec plus hidden labels per row (JSON-ready)."""
    hidden = {item.id: {name: values[item.id] for name, values in labels.items() if item.id in values}
              for item in spec.items}
    return {**spec.model_dump(), "hidden": hidden}


class ApbCatalog(BaseModel):
    """APB's QuickBite catalogue as transcribed in ``apb-sample/derived`` (one label)."""

    model_config = ConfigDict(extra="ignore")

    app: str
    restaurant_label: str = ""
    min_dishes: int
    max_dishes: int
    output_file: str
    output_shape: dict[str, Any] = Field(default_factory=dict)
    items: list[dict[str, Any]]


def spec_from_apb_catalog(path: str | Path) -> tuple[AppSpec, dict[str, dict[str, bool | int]]]:
    """An :class:`AppSpec` and the hidden label maps from an APB catalogue JSON file.

    The list key is the list-valued key of ``output_shape``; every boolean row field
    becomes a label map (QuickBite: ``animal``).
    """
    raw = ApbCatalog.model_validate(json.loads(Path(path).read_text(encoding="utf-8")))
    list_key = next((k for k, v in raw.output_shape.items() if isinstance(v, list)), "orderedItems")
    fields = set(AppItem.model_fields)
    items = [AppItem(**{k: v for k, v in row.items() if k in fields}) for row in raw.items]
    labels: dict[str, dict[str, bool | int]] = {}
    for row in raw.items:
        for key, value in row.items():
            if isinstance(value, bool):
                labels.setdefault(key, {})[str(row["id"])] = value
    spec = AppSpec(title=raw.app, subtitle=raw.restaurant_label, items=items, min_picks=raw.min_dishes,
                   max_picks=raw.max_dishes, output_file=raw.output_file, list_key=list_key)
    return spec, labels
