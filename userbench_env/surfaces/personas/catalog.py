"""Our trait catalogue and persona schema, loaded from data in ``tasks/surfaces/catalog``.

A :class:`Trait` is a persona dimension pinned at one value, with what holding and
violating it look like and an errand scenario (items that fit or break it, the perk
that makes breaking tempting, the cost of holding). The :class:`Schema` lists every
dimension a generated persona fills, with its label, category and value scale; trait
dimensions are part of it.
"""
from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict

from userbench_env.datapaths import bundled_root
from userbench_env.surfaces.yamlio import read_yaml


class Dimension(BaseModel):
    """One persona dimension: id, human label, category and its possible values."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    label: str
    category: str
    values: tuple[str, ...]


class Trait(BaseModel):
    """A pinnable trait (dimension at one value) with its behaviour and scenario."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dimension_id: str
    label: str
    category: str
    values: tuple[str, ...]
    value: str
    direction: Literal["avoid", "exhibit"]
    held: str
    violated: str
    venue: str
    errand: str
    noun: str
    perk: str
    cost: str
    fits: tuple[str, ...]
    breaks: tuple[str, ...]

    @property
    def name(self) -> str:
        """``dimension_id=value``, the check's key in results."""
        return f"{self.dimension_id}={self.value}"

    @property
    def dimension(self) -> Dimension:
        """The trait's dimension as a schema entry."""
        return Dimension(id=self.dimension_id, label=self.label, category=self.category, values=self.values)


class Schema(BaseModel):
    """Every dimension a generated persona carries, in output order."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    dimensions: tuple[Dimension, ...]

    def labels(self) -> dict[str, tuple[str, str]]:
        """dimension id -> (label, category)."""
        return {d.id: (d.label, d.category) for d in self.dimensions}

    def get(self, dimension_id: str) -> Dimension | None:
        """The dimension with this id, or ``None``."""
        return next((d for d in self.dimensions if d.id == dimension_id), None)


def catalog_dir() -> Path:
    """The bundled catalogue folder."""
    return bundled_root() / "surfaces" / "catalog"


@lru_cache(maxsize=4)
def load_traits(path: str | None = None) -> tuple[Trait, ...]:
    """The trait catalogue (default: the bundled ``traits.yaml``)."""
    data = read_yaml(Path(path) if path else catalog_dir() / "traits.yaml")
    traits = tuple(Trait.model_validate(entry) for entry in data["traits"])
    names = [t.dimension_id for t in traits]
    if len(set(names)) != len(names):
        raise ValueError("trait catalogue lists a dimension twice")
    for trait in traits:
        if trait.value not in trait.values:
            raise ValueError(f"{trait.dimension_id}: value {trait.value!r} is not among its values")
    return traits


def get_trait(dimension_id: str) -> Trait:
    """The catalogue trait for one dimension; ``KeyError`` when absent."""
    for trait in load_traits():
        if trait.dimension_id == dimension_id:
            return trait
    raise KeyError(f"no trait {dimension_id!r} in the catalogue")


@lru_cache(maxsize=4)
def load_schema(path: str | None = None) -> Schema:
    """The persona schema: expanded families, explicit dimensions, then trait dimensions.

    A trait dimension replaces a family dimension with the same id (its value list
    wins), so a pinned value is always a legal value of its dimension.
    """
    data = read_yaml(Path(path) if path else catalog_dir() / "schema.yaml")
    scales: dict[str, list[str]] = data["scales"]
    dims: dict[str, Dimension] = {}
    for family in data["families"]:
        for item in family["items"]:
            dim_id = family["prefix"] + _slug(str(item))
            dims[dim_id] = Dimension(
                id=dim_id, label=family["label"].format(item=item), category=family["category"],
                values=tuple(str(v) for v in scales[family["scale"]]),
            )
    for entry in data.get("dimensions", []):
        dims[entry["id"]] = Dimension(
            id=entry["id"], label=entry["label"], category=entry["category"],
            values=tuple(str(v) for v in entry["values"]),
        )
    for trait in load_traits():
        dims[trait.dimension_id] = trait.dimension
    return Schema(dimensions=tuple(dims.values()))


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", text.lower().replace("+", "plus")).strip("_")
