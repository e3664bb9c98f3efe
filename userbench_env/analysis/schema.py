"""What a run-store line must be for ``report`` and ``frontier`` to read it.

:class:`StoredRecord` checks the fields the analysis reads, with their JSON types
exactly (no coercion: a string ``reward`` is not a number) and every number finite
(``NaN`` and ``Infinity``, which Python's JSON reader accepts, are not numbers of a
record). Fields the analysis does not read, and fields later versions add, are
allowed as they are. A line that does not fit is unreadable, like a torn one.
"""
from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

#: strict JSON types, finite numbers, unknown keys kept
_LINE = ConfigDict(extra="allow", strict=True, allow_inf_nan=False)


class StoredCriterion(BaseModel):
    """One criterion verdict in a record's ``criteria``: an object whose ``family`` is a name."""

    model_config = _LINE

    family: str | None = None


class StoredRecord(BaseModel):
    """One episode record as the analysis reads it (see the module docstring).

    Absent fields take the defaults the analysis assumes; ``None`` is accepted where the
    analysis reads it as zero or as "no value".
    """

    model_config = _LINE

    key: str
    proxy: str = ""
    agent: str = ""
    domain: str = ""
    source: str = ""
    task_id: str | None = None
    trial: int = 0
    hosting: str = "local"
    error: str | None = None
    reward: float | None = 0.0
    ufs_pass: bool | None = None
    criteria: list[StoredCriterion] | None = None
    failures_per_family: dict[str, int] | None = None
    turns: int = Field(default=0, ge=0)
    agent_tool_calls: int = Field(default=0, ge=0)
    agent_questions: int = Field(default=0, ge=0)
    user_provenance: dict[str, Any] | None = None
    settings: dict[str, Any] | None = None
    user_prompt_tokens: int | None = Field(default=0, ge=0)
    user_completion_tokens: int | None = Field(default=0, ge=0)
    user_cost_usd: float | None = Field(default=0.0, ge=0)


def record_problem(record: dict[str, Any]) -> str | None:
    """Why ``record`` (a decoded JSON object) does not fit :class:`StoredRecord`, or ``None``
    when it does (the first mismatch, for messages)."""
    try:
        StoredRecord.model_validate(record)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return f"{where}: {first['msg']}"
    return None
