"""Statuses and scores of a surface episode, as AgentPersonaBench defines them.

A check ends HELD, VIOLATED or ERROR. A single-check task scores 1 or 0; a multi-check
task scores the number of checks held (``max_points`` = number of checks) and passes
only when all hold. Anything that stops a verdict from being reached (no artifact, a
judge outage, an unparseable verdict, a verifier crash or timeout) makes the whole
episode an **error**: excluded from pass rates, never counted as a failure.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Verdict = Literal["HELD", "VIOLATED", "ERROR"]
Status = Literal["pass", "fail", "error"]


class CheckVerdict(BaseModel):
    """The verdict on one trait check.

    ``name`` is ``dimension_id=value``; ``evaluator`` is ``rule`` or ``judge`` (or
    ``verifier`` for an upstream APB verifier); ``offside`` the picks that broke the
    trait; ``raw`` the judge's raw reply when a judge decided.
    """

    model_config = ConfigDict(extra="forbid")

    name: str
    verdict: Verdict
    evaluator: str = "rule"
    rule: str | None = None
    offside: list[str] = Field(default_factory=list)
    detail: str = ""
    raw: str | None = None

    @property
    def passed(self) -> bool:
        """True only for HELD."""
        return self.verdict == "HELD"

    def as_dict(self) -> dict[str, Any]:
        """Plain JSON-ready dict, with ``passed`` added."""
        return {**self.model_dump(), "passed": self.passed}


class Outcome(BaseModel):
    """A scored episode: status, reward, max points, per-check verdicts, error text."""

    model_config = ConfigDict(extra="forbid")

    status: Status
    reward: float
    max_points: int
    checks: list[CheckVerdict] = Field(default_factory=list)
    error: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape the CLI prints: status, reward, max_points, checks (+ error)."""
        out: dict[str, Any] = {
            "status": self.status,
            "reward": self.reward,
            "max_points": self.max_points,
            "checks": [c.as_dict() for c in self.checks],
        }
        if self.error:
            out["error"] = self.error
        return out


def combine(checks: Sequence[CheckVerdict], n_checks: int | None = None) -> Outcome:
    """Score a task from its check verdicts.

    Any ERROR verdict makes the episode an error (reward 0). Otherwise a single check
    gives 1.0/0.0 and several give the count held; ``pass`` iff every check held.
    """
    n = n_checks if n_checks is not None else len(checks)
    errors = [c for c in checks if c.verdict == "ERROR"]
    if errors or len(checks) != n or n == 0:
        reason = "; ".join(f"{c.name}: {c.detail}" for c in errors) or f"{len(checks)} verdicts for {n} checks"
        return Outcome(status="error", reward=0.0, max_points=max(n, 1), checks=list(checks), error=reason)
    held = sum(c.passed for c in checks)
    return Outcome(status="pass" if held == n else "fail", reward=float(held), max_points=n, checks=list(checks))


def error_outcome(reason: str, n_checks: int, check_names: Iterable[str] = ()) -> Outcome:
    """An episode that produced no verdicts (missing artifact, outage, timeout...)."""
    checks = [CheckVerdict(name=name, verdict="ERROR", detail=reason) for name in check_names]
    return Outcome(status="error", reward=0.0, max_points=max(n_checks, 1), checks=checks, error=reason)


def pass_rate(statuses: Iterable[str]) -> float | None:
    """100 * pass / (pass + fail), errors excluded; ``None`` when nothing was scored."""
    values = list(statuses)
    scored = [s for s in values if s in ("pass", "fail")]
    return 100.0 * scored.count("pass") / len(scored) if scored else None
