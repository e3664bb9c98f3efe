"""The cost-fidelity frontier and proxy selection.

A point is a proxy with its user cost per simulation (USD) and its UFS. A proxy whose
cost is not known (``cost_per_sim`` ``None``: it called a model with no known price) is
*unpriced*: it is listed as such, but it is on no frontier, dominates nothing and is
never selected, since an unknown cost is not $0 (``--prices`` prices it). Among priced
proxies, a proxy is
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

from userbench_env.analysis.tables import UNPRICED


class Point(BaseModel):
    """One proxy on the cost-fidelity plane."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    proxy: str
    cost_per_sim: float | None = Field(ge=0)  # None: unpriced
    ufs: float = Field(ge=0, le=1)


def priced(points: Iterable[Point]) -> list[Point]:
    """The points whose cost is known."""
    return [p for p in points if p.cost_per_sim is not None]


def unpriced(points: Iterable[Point]) -> list[str]:
    """Names of the points whose cost is not known."""
    return [p.proxy for p in points if p.cost_per_sim is None]


def points_from_report(report: dict[str, Any]) -> list[Point]:
    """Points of the proxies of a report that have a UFS (an unpriced one with cost ``None``)."""
    return [Point(proxy=p["proxy"], cost_per_sim=p["cost_per_sim"] if p["priced"] else None, ufs=p["ufs"])
            for p in report["proxies"] if p["ufs"] is not None and p["priced"] is not None]


def read_points(path: str | os.PathLike[str]) -> list[Point]:
    """Points from a CSV with columns ``proxy,cost_per_sim,ufs`` (a cost ``unpriced`` or empty
    is not known); ValueError names a bad row."""
    with open(path, newline="", encoding="utf-8") as handle:
        reader = csv.DictReader(handle)
        missing = {"proxy", "cost_per_sim", "ufs"} - set(reader.fieldnames or [])
        if missing:
            raise ValueError(f"{path}: missing columns {', '.join(sorted(missing))} (need proxy,cost_per_sim,ufs)")
        points = []
        for line, row in enumerate(reader, start=2):
            try:
                cost = (row["cost_per_sim"] or "").strip()
                points.append(Point(proxy=row["proxy"].strip(), cost_per_sim=None if cost in ("", UNPRICED) else float(cost),
                                    ufs=float(row["ufs"])))
            except (ValueError, TypeError) as exc:
                raise ValueError(f"{path}, line {line}: {exc}") from None
    return points


def dominates(a: Point, b: Point) -> bool:
    """True when ``a`` strictly dominates ``b`` (both priced)."""
    assert a.cost_per_sim is not None and b.cost_per_sim is not None
    return a.cost_per_sim <= b.cost_per_sim and a.ufs >= b.ufs and (a.cost_per_sim < b.cost_per_sim or a.ufs > b.ufs)


def dominated(points: list[Point]) -> list[str]:
    """Names of the strictly dominated priced proxies, by cost ascending."""
    known = priced(points)
    return [p.proxy for p in _by_cost(known) if any(dominates(q, p) for q in known)]


def frontier(points: list[Point]) -> list[str]:
    """Names of the priced proxies on the efficient frontier, by cost ascending."""
    known = priced(points)
    return [p.proxy for p in _by_cost(known) if not any(dominates(q, p) for q in known)]


def _by_cost(points: Iterable[Point]) -> list[Point]:
    return sorted(points, key=lambda p: (p.cost_per_sim, -p.ufs, p.proxy))


def check_q(q: float) -> float:
    """``q`` when it is a required fidelity for ``frontier --q`` (a UFS share in (0, 1]);
    ``ValueError`` otherwise."""
    if not 0 < q <= 1:
        raise ValueError(f"a required UFS q must be in (0, 1], got {q:g}")
    return q


def select(points: list[Point], q: float) -> str | None:
    """``U*(q)``: the cheapest priced proxy with UFS >= q, or None."""
    for p in _by_cost(priced(points)):
        if p.ufs >= q:
            return p.proxy
    return None


def q_label(q: float) -> str:
    """The JSON key of a required fidelity (``0.9`` -> ``"0.9"``)."""
    return f"{q:g}"


def frontier_result(points: list[Point], qs: Iterable[float]) -> dict[str, Any]:
    """``{"frontier": [...], "dominated": [...], "unpriced": [...], "selection": {"<q>": proxy | None}}``."""
    return {"frontier": frontier(points), "dominated": dominated(points), "unpriced": unpriced(points),
            "selection": {q_label(q): select(points, q) for q in qs}}


def epoch_costs(points: list[Point], qs: Iterable[float], rollouts: int) -> dict[str, float | None]:
    """Per q, the cost in USD of ``rollouts`` simulations with ``U*(q)`` (None when none qualifies)."""
    cost = {p.proxy: p.cost_per_sim for p in priced(points)}
    return {q_label(q): (rollouts * cost[chosen] if (chosen := select(points, q)) is not None else None) for q in qs}
