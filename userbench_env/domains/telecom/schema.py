"""Declarative record shapes used to normalise the telecom TOML files like tau2's validation.

tau2 validates ``db.toml``/``user_db.toml`` into pydantic models and hashes the model dump.
Reproducing that dump needs, per record: every declared field in declaration order,
defaults for absent fields, ints widened to floats, ISO strings parsed to ``date`` /
``datetime`` and enum values checked. A :data:`Shape` lists ``(name, convert, default)``;
:func:`normalise` applies it. Converters are idempotent, so an already-normalised record
(or one re-merged by ``initialization_data``) passes through unchanged.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any, Callable, Iterable

from userbench_env.domains.store import copy_value

#: Marks a field without a default.
REQUIRED = object()

Convert = Callable[[Any], Any]
Shape = list[tuple[str, Convert | None, Any]]


def as_float(value: Any) -> Any:
    """Widen an int to float as pydantic's lax ``float`` does (bools and others unchanged)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return value


def as_date(value: Any) -> Any:
    """Parse an ISO ``YYYY-MM-DD`` string into a ``date`` (dates pass through)."""
    if isinstance(value, str):
        return _dt.date.fromisoformat(value)
    return value


def as_datetime(value: Any) -> Any:
    """Parse an ISO date-time string into a ``datetime`` (date/datetime values pass through)."""
    if isinstance(value, str):
        return _dt.datetime.fromisoformat(value)
    return value


def one_of(*allowed: str) -> Convert:
    """A converter accepting only the given enum values (kept as plain strings)."""

    def check(value: Any) -> Any:
        if value not in allowed:
            raise ValueError(f"{value!r} is not one of {', '.join(allowed)}")
        return value

    return check


def record(shape: Shape, where: str) -> Convert:
    """A converter normalising a nested record of ``shape``."""
    return lambda value: normalise(value, shape, where)


def list_of(convert: Convert) -> Convert:
    """A converter applying ``convert`` to every item of a list."""
    return lambda value: [convert(item) for item in value]


def normalise(raw: dict[str, Any], shape: Shape, where: str) -> dict[str, Any]:
    """A new record with every field of ``shape`` in order, defaults filled, values converted.

    Unknown keys raise ``ValueError`` (tau2's telecom models forbid extras); so does a
    missing required field. ``None`` is kept as-is for optional fields.
    """
    if not isinstance(raw, dict):
        raise ValueError(f"{where}: expected a table, got {type(raw).__name__}")
    names = [name for name, _, _ in shape]
    unknown = [key for key in raw if key not in names]
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for name, convert, default in shape:
        if name in raw:
            value = raw[name]
            out[name] = convert(value) if convert is not None and value is not None else value
        elif default is REQUIRED:
            raise ValueError(f"{where}: missing field {name}")
        else:
            out[name] = copy_value(default)
    return out


def normalise_all(raw: Iterable[dict[str, Any]], shape: Shape, where: str) -> list[dict[str, Any]]:
    """:func:`normalise` over a list of records."""
    return [normalise(item, shape, f"{where}[{i}]") for i, item in enumerate(raw)]
