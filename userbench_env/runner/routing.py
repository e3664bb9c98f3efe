"""Routing to the cheapest faithful proxy: ``route:q=<q>`` picks ``U*(q)`` and uses it.

A route spec is ``route:q=0.9`` (optionally ``,on_miss=fail``). Given candidate proxy
specs, the route reads their cost-fidelity points (:mod:`userbench_env.analysis.frontier`)
from a *frontier file* (a ``frontier --json`` output, a points CSV, or a run store), or,
without one, measures them first on a calibration slice (episodes played for the purpose,
see :func:`calibrate_collect` / :func:`calibrate_eval`), then selects the cheapest
candidate whose UFS reaches ``q``. The choice (:class:`RouteChoice`: the proxy, its
measured UFS and cost, where they came from, and whether it reached ``q``) is recorded in
every episode record under ``route``.

When no candidate reaches ``q``: ``on_miss="fallback"`` (default) uses the most faithful
candidate (cheapest among ties) and records ``met: false``; ``on_miss="fail"`` raises
:class:`RoutingError` before any episode. A candidate with no point (not in the file, or
every calibration episode errored) cannot be chosen, and neither can an *unpriced* one
(its model has no known price: its cost is unknown, not $0) unless a price table
(``--prices``, the ``price_override`` proxy option) prices it; the choice lists the
candidates left out as unpriced.
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Awaitable, Callable, Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.analysis.frontier import Point, priced, read_points, select, unpriced
from userbench_env.errors import UserError

ROUTE_PREFIX = "route:"
OnMiss = Literal["fallback", "fail"]
#: episodes per candidate on the calibration slice unless the caller says otherwise
DEFAULT_CALIBRATION = 8
#: calibration episodes of ``collect`` use seeds from here on (apart from the run's own)
CALIBRATION_SEED = 1_000_000


class RoutingError(UserError, ValueError):
    """No candidate can be routed to (none reaches q under ``on_miss="fail"``, or none has a point)."""


class Route(BaseModel):
    """A parsed route spec: the required fidelity and what to do when no candidate reaches it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: float = Field(ge=0, le=1)
    on_miss: OnMiss = "fallback"


class RouteChoice(BaseModel):
    """The proxy a route chose, its measured UFS and cost per simulation, their source,
    and whether it reached ``q`` (``met``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    q: float
    proxy: str
    ufs: float
    cost_per_sim: float
    met: bool
    source: str
    candidates: list[str]
    unpriced: list[str] = Field(default_factory=list)


def is_route(spec: Any) -> bool:
    """Whether ``spec`` is a route spec string."""
    return isinstance(spec, str) and spec.strip().startswith(ROUTE_PREFIX)


def parse_route(spec: str) -> Route:
    """``route:q=0.9[,on_miss=fail]`` as a :class:`Route`; ``ValueError`` naming the problem."""
    body = spec.strip().removeprefix(ROUTE_PREFIX)
    fields: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in body.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise ValueError(f"route spec {spec!r}: expected key=value, got {part!r}")
        fields[key.strip()] = value.strip()
    if "q" not in fields:
        raise ValueError(f"route spec {spec!r} needs q, e.g. 'route:q=0.9'")
    try:
        return Route(q=float(fields.pop("q")), **fields)  # type: ignore[arg-type]
    except (ValueError, TypeError) as exc:
        raise ValueError(f"route spec {spec!r}: {exc}") from None


def read_frontier_points(path: str | os.PathLike[str], prices: Any = None) -> list[Point]:
    """Points from a frontier file: ``frontier --json`` output (``.json``, its ``points``),
    a points CSV (``.csv``), or a run store (anything else: JSONL records, via the report,
    repriced with the price table ``prices`` when given)."""
    path = Path(path)
    if not path.is_file():
        raise RoutingError(f"no frontier file at {path}")
    if path.suffix == ".csv":
        return read_points(path)
    if path.suffix == ".json":
        data = json.loads(path.read_text(encoding="utf-8"))
        if not isinstance(data, dict) or "points" not in data:
            raise RoutingError(f"{path} has no 'points' (write it with `userbench frontier ... --json`)")
        return [Point.model_validate(p) for p in data["points"]]
    return points_from_records(_store_records(path, prices))


def _store_records(path: Path, prices: Any) -> list[dict[str, Any]]:
    from userbench_env.analysis.load import load_records, reprice

    records = load_records([path])
    return reprice(records, prices) if prices is not None else records


def points_from_records(records: list[dict[str, Any]]) -> list[Point]:
    """The proxies' points measured in ``records`` (via the report)."""
    from userbench_env.analysis.frontier import points_from_report
    from userbench_env.analysis.report import build_report

    return points_from_report(build_report(records)) if records else []


def choose(route: Route, candidates: Iterable[str], points: Iterable[Point], source: str) -> RouteChoice:
    """``U*(q)`` among ``candidates`` (see the module docstring for a miss)."""
    names = list(dict.fromkeys(candidates))
    known = {p.proxy: p for p in points if p.proxy in names} if names else {p.proxy: p for p in points}
    if not known:
        raise RoutingError(f"no cost-fidelity point for any candidate ({', '.join(names) or 'none given'}) in {source}")
    pool = priced(known.values())
    left_out = unpriced(known.values())
    if not pool:
        raise RoutingError(f"no candidate has a known price ({', '.join(left_out)} in {source} are unpriced, and an "
                           "unknown cost is not $0): give their prices with --prices FILE")
    chosen = select(pool, route.q)
    met = chosen is not None
    if chosen is None:
        best = max(pool, key=lambda p: (p.ufs, -p.cost_per_sim, p.proxy))  # type: ignore[operator]
        if route.on_miss == "fail":
            raise RoutingError(f"no candidate reaches UFS >= {route.q:g}: the most faithful is {best.proxy} "
                               f"(UFS {best.ufs:.3f}) in {source}")
        chosen = best.proxy
    point = known[chosen]
    assert point.cost_per_sim is not None  # chosen from the priced pool
    return RouteChoice(q=route.q, proxy=chosen, ufs=point.ufs, cost_per_sim=point.cost_per_sim, met=met,
                       source=source, candidates=names or sorted(known), unpriced=left_out)


def env_kwargs_for(spec: str, env_kwargs: dict[str, Any]) -> dict[str, Any]:
    """``env_kwargs`` with ``user_proxy=spec``; ``user_proxy_options`` kept only for an LLM
    spec (candidates may mix scripted and LLM proxies; the options are the LLMs')."""
    from userbench_env.runner.evaluation import is_llm_spec

    out = {**env_kwargs, "user_proxy": spec}
    if not is_llm_spec(spec):
        out.pop("user_proxy_options", None)
    return out


async def calibrate_collect(env_id: str, policy: Any, candidates: list[str], episodes: int, concurrency: int,
                            env_kwargs: dict[str, Any], seed: int = CALIBRATION_SEED) -> list[Point]:
    """Each candidate's point measured on ``episodes`` ungated episodes of ``env_id``
    (seeds from ``seed``, apart from the run's)."""
    from userbench_env.runner.collection import acollect

    records: list[dict[str, Any]] = []
    for spec in candidates:
        result = await acollect(env_id, policy, episodes, concurrency=concurrency, gate=None, seed=seed,
                                env_kwargs=env_kwargs_for(spec, env_kwargs))
        records += result.records + result.errors
    return points_from_records(records)


async def resolve_route(route: Route, candidates: list[str], frontier: str | os.PathLike[str] | None,
                        calibrate: Callable[[], Awaitable[list[Point]]], prices: Any = None) -> RouteChoice:
    """The choice from ``frontier`` if given (a run store repriced with ``prices``), else from the
    points ``await calibrate()`` measures."""
    if frontier is not None:
        return choose(route, candidates, read_frontier_points(frontier, prices), f"frontier file {os.fspath(frontier)}")
    if not candidates:
        raise RoutingError("a route without a frontier file needs candidates to calibrate")
    return choose(route, candidates, await calibrate(), "calibration")


async def aroute_eval(config: Any, route: Route, frontier: str | os.PathLike[str] | None = None,
                      calibration: int | None = None) -> Any:
    """``config`` (an :class:`~userbench_env.runner.evaluation.EvalConfig` whose ``proxies``
    are the candidates) narrowed to the routed proxy, with the choice in ``route``.

    Without ``frontier``, the candidates are first evaluated on the first ``calibration``
    tasks per domain into ``<out>.calibration.jsonl`` (resumable like any store).
    """
    from userbench_env.analysis.load import load_records
    from userbench_env.runner.evaluation import arun_eval

    async def measure() -> list[Point]:
        slice_ = config.model_copy(update={"limit": calibration or DEFAULT_CALIBRATION, "progress": False,
                                           "out": f"{config.out}.calibration.jsonl", "route": None})
        await arun_eval(slice_)
        return points_from_records(load_records([slice_.out]))

    choice = await resolve_route(route, list(config.proxies), frontier, measure,
                                 config.proxy_options.get("price_override"))
    return config.model_copy(update={"proxies": [choice.proxy], "route": choice.model_dump()})
