"""The persona model: hundreds of labelled attributes in categories, some pinned.

A persona maps ``dimension_id`` to an :class:`Attribute` (value, human label and a
``'<Group>: <Subgroup>'`` category). ``pinned`` holds the (dimension -> value) traits a
task checks; a pinned value always reaches the rendered prompt. Two file formats load:
APB's ``persona.yaml`` (each attribute carries value, label, category) and our compact
one (``attributes: {dimension_id: value}``) whose labels and categories come from the
persona schema in the catalogue.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.surfaces.yamlio import read_yaml


class Attribute(BaseModel):
    """One persona attribute: its value (always a string), label and category."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    value: str
    label: str
    category: str = "Other"

    @property
    def group(self) -> str:
        """The category's first part (``'Interests'`` for ``'Interests: Food'``)."""
        return self.category.split(":", 1)[0].strip()


class Persona(BaseModel):
    """A full persona: id, provenance, attributes in file order and pinned traits."""

    model_config = ConfigDict(extra="forbid")

    persona_id: str
    version: str = "2.0"
    source: str = ""
    note: str = ""
    attributes: dict[str, Attribute]
    pinned: dict[str, str] = Field(default_factory=dict)

    def value(self, dimension_id: str) -> str | None:
        """The attribute's value, or ``None`` when the persona lacks it."""
        attr = self.attributes.get(dimension_id)
        return attr.value if attr else None

    def groups(self) -> dict[str, list[str]]:
        """Category -> dimension ids, in file order."""
        out: dict[str, list[str]] = {}
        for dim, attr in self.attributes.items():
            out.setdefault(attr.category, []).append(dim)
        return out

    def with_pins(self, pins: Mapping[str, str], labels: Mapping[str, tuple[str, str]] | None = None) -> "Persona":
        """A copy with ``pins`` pinned.

        A pinned dimension the persona lacks is added (label and category from
        ``labels[dim]`` when given); one it carries with another value raises
        ``ValueError`` (APB's linter rule: the persona must carry the pinned value).
        """
        attributes = dict(self.attributes)
        for dim, value in pins.items():
            have = attributes.get(dim)
            if have is None:
                label, category = (labels or {}).get(dim, (dim, "Other"))
                attributes[dim] = Attribute(value=value, label=label, category=category)
            elif have.value != value:
                raise ValueError(f"persona {self.persona_id} has {dim}={have.value!r}, task pins {value!r}")
        return self.model_copy(update={"attributes": attributes, "pinned": {**self.pinned, **pins}})

    def to_apb(self) -> dict[str, Any]:
        """The APB ``persona.yaml`` shape (pins are task data, not written)."""
        return {
            "persona_id": self.persona_id,
            "version": self.version,
            "source": self.source,
            "note": self.note,
            "attributes": {k: a.model_dump() for k, a in self.attributes.items()},
        }


def persona_from_data(data: Mapping[str, Any], schema: Mapping[str, tuple[str, str]] | None = None) -> Persona:
    """Build a persona from parsed YAML in either format.

    APB attributes are mappings with ``value``/``label``/``category``; compact ones are
    bare values, labelled from ``schema`` (dimension -> (label, category)), loaded from
    the bundled catalogue when not given.
    """
    raw = data.get("attributes") or {}
    if any(not isinstance(v, Mapping) for v in raw.values()) and schema is None:
        from userbench_env.surfaces.personas.catalog import load_schema

        schema = load_schema().labels()
    attributes: dict[str, Attribute] = {}
    for dim, entry in raw.items():
        if isinstance(entry, Mapping):
            attributes[str(dim)] = Attribute(
                value=_text(entry.get("value")), label=str(entry.get("label") or dim),
                category=str(entry.get("category") or "Other"),
            )
        else:
            label, category = (schema or {}).get(str(dim), (str(dim), "Other"))
            attributes[str(dim)] = Attribute(value=_text(entry), label=label, category=category)
    return Persona(
        persona_id=str(data.get("persona_id") or "persona"),
        version=str(data.get("version") or "2.0"),
        source=str(data.get("source") or ""),
        note=str(data.get("note") or ""),
        attributes=attributes,
    )


def load_persona(path: str | Path) -> Persona:
    """Load a ``persona.yaml`` (APB or compact format)."""
    data = read_yaml(path) or {}
    if not isinstance(data, Mapping):
        raise ValueError(f"{path}: a persona file must be a mapping")
    return persona_from_data(data)


def _text(value: Any) -> str:
    """Attribute values are strings; YAML booleans and numbers are written back as text."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "Yes" if value else "No"
    return str(value)
