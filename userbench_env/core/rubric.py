"""Fidelity rubrics: the criteria a simulated user must satisfy in one task."""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Family = Literal["groundedness", "premature_disclosure", "goal_deviation", "missed_information"]
CheckKind = Literal["rule", "judge"]


class Criterion(BaseModel):
    """One falsifiable statement about the user's behaviour.

    ``grounding`` is a span quoted verbatim from the blueprint or the simulation
    guidelines; ``check`` says whether a deterministic ``rule`` (named by ``rule`` with
    ``params``) or the LLM ``judge`` (asked ``statement``) decides it; ``applies_when``
    names the condition under which it applies (``always`` or a rule-defined trigger).
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    family: Family
    mode: str
    statement: str
    grounding: str
    applies_when: str = "always"
    check: CheckKind = "rule"
    rule: str | None = None
    params: dict[str, Any] = Field(default_factory=dict)


class Rubric(BaseModel):
    """The versioned set of criteria for one task."""

    model_config = ConfigDict(extra="forbid")

    task_id: str
    version: str = "1"
    generator: str = "from_blueprint"
    criteria: list[Criterion] = Field(default_factory=list)
    rejected: list[dict[str, Any]] = Field(default_factory=list)
