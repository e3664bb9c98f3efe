"""The cost-fidelity frontier and proxy selection.

A point is a proxy with its user cost per simulation (USD) and its UFS. A proxy is
*strictly dominated* when another costs no more and scores no less, and is strictly
better on one of the two; the *efficient frontier* is every other proxy, by cost
ascending. The selection ``U*(q)`` is the cheapest proxy with UFS >= q (ties: higher
UFS, then name), ``None`` when no proxy reaches q. The cost of an RL epoch of N
rollouts with ``U*(q)`` is N times its cost per simulation.
"""
from __future__ import annotations

import csv
import os
from typing import Any, Iterable

from pydantic import BaseModel, ConfigDict, Field


class Point(BaseModel):
    """One proxy on the cost-fidelity plane."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    proxy: str
    cost_per_sim: float = Field(ge=0)
    ufs: float = Field(ge=0, le=1)


def points_from_report(report: dict[str, Any]) -> list[Point]:
    """Points of the proxies of a report that have a cost and a UFS."""
    return [Point(proxy=p["proxy"], cost_per_sim=p["cost_per_sim"], ufs=p["ufs"])
            for p in report["proxies"] if p["cost_per_sim"] is not None and p["ufs"] is not None]


def read_points(path: str | os.PathLike[str]) -> list[Point]:
    """Points from a CSV with columns ``proxy,cost_per_sim,ufs``; ValueError names a bad row."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"proxy", "cost_per_sim", "ufs"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {', '.join(sorted(missing))} (need proxy,cost_per_sim,ufs)")
        points = []
        for line, row in enumerate(reader, start=2):
            try:
                points.append(Point(proxy=row["proxy"].strip(), cost_per_sim=float(row["cost_per_sim"]), ufs=float(row["ufs"])))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}, line {line}: {exc}") from None
    return points


def dominates(a: Point, b: Point) -> bool:
    """True when ``a`` strictly dominates ``b``."""
    return a.cost_per_sim <= b.cost_per_sim and a.ufs >= b.ufs and (a.cost_per_sim < b.cost_per_sim or a.ufs > b.ufs)


def dominated(points: list[Point]) -> list[str]:
    """Names of the strictly dominated proxies, by cost ascending."""
    return [p.proxy for p in _by_cost(points) if any(dominates(q, p) for q in points)]


def frontier(points: list[Point]) -> list[str]:
    """Names of the proxies on the efficient frontier, by cost ascending."""
    return [p.proxy for p in _by_cost(points) if not any(dominates(q, p) for q in points)]


def _by_cost(points: Iterable[Point]) -> list[Point]:
    return sorted(points, key=lambda p: (p.cost_per_sim, -p.ufs, p.proxy))


def select(points: list[Point], q: float) -> str | None:
    """``U*(q)``: the cheapest proxy with UFS >= q, or None."""
    for p in _by_cost(points):
        if p.ufs >= q:
            return p.proxy
    return None


def q_label(q: float) -> str:
    """The JSON key of a required fidelity (``0.9`` -> ``"0.9"``)."""
    return f"{q:g}"


def frontier_result(points: list[Point], qs: Iterable[float]) -> dict[str, Any]:
    """``{"frontier": [...], "dominated": [...], "selection": {"<q>": proxy | None}}``."""
    return {"frontier": frontier(points), "dominated": dominated(points),
            "selection": {q_label(q): select(points, q) for q in qs}}


def epoch_costs(points: list[Point], qs: Iterable[float], rollouts: int) -> dict[str, float | None]:
    """Per q, the cost in USD of ``rollouts`` simulations with ``U*(q)`` (None when none qualifies)."""
    cost = {p.proxy: p.cost_per_sim for p in points}
    return {q_label(q): (rollouts * cost[chosen] if (chosen := select(points, q)) is not None else None) for q in qs}
