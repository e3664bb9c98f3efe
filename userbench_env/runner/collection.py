"""Gated rollout collection for trainers: :func:`collect` and :func:`acollect`.

Plays ``episodes`` episodes of a registered env id with a policy, at most
``concurrency`` at once on one event loop, and returns the records the gate keeps
(see :mod:`userbench_env.runner.gate`), how many it rejected, and the infrastructure
errors (never counted as rejections, never returned as rollouts). Episode ``i`` is
reset with seed ``seed + i`` (the env draws its task from that seed unless
``env_kwargs`` fixes ``task_id``).
"""
from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field
from typing import Any, Iterator

from userbench_env.proxies.base import UserProxy
from userbench_env.runner.agents import agent_factory, agent_name
from userbench_env.runner.backends import Backend, BackendName
from userbench_env.runner.engine import Job
from userbench_env.runner.evaluation import ensure_proxy_kind
from userbench_env.runner.gate import GateSpec, make_gate
from userbench_env.runner.record import EpisodeMeta
from userbench_env.runner.routing import env_kwargs_for, is_route
from userbench_env.runner.store import EpisodeStore
from userbench_env.runner.writer import StoreWriter


@dataclass
class CollectResult:
    """Kept records (in episode order), the number the gate rejected, and errored records.

    Unpacks as ``records, rejected = collect(...)``.
    """

    records: list[dict[str, Any]] = field(default_factory=list)
    rejected: int = 0
    errors: list[dict[str, Any]] = field(default_factory=list)
    route: dict[str, Any] | None = None  # the routed choice, when the proxy was a route spec

    def __iter__(self) -> Iterator[Any]:
        """Yield ``records`` then ``rejected``."""
        return iter((self.records, self.rejected))


async def acollect(
    env_id: str,
    policy: Any,
    episodes: int,
    concurrency: int = 8,
    gate: GateSpec = "ufs",
    seed: int = 0,
    env_kwargs: dict[str, Any] | None = None,
    out: str | None = None,
    backend: BackendName = "local",
    ray_address: str | None = None,
    workers: int | None = None,
    user_proxy: str | None = None,
    candidates: list[str] | None = None,
    frontier: str | None = None,
    calibration: int | None = None,
) -> CollectResult:
    """Collect ``episodes`` gated rollouts (see the module docstring).

    ``policy``: an agent spec name, agent class/factory, or ``fn(observation, info)``
    (see :func:`~userbench_env.runner.agents.agent_factory`). ``gate``: ``"ufs"``
    (default), family names, a :class:`~userbench_env.runner.gate.Gate`, a predicate,
    or ``None``. ``env_kwargs["user_proxy"]``: a spec string, or a zero-argument factory
    of proxies (one proxy per concurrent env; a proxy *object* would be shared by all
    of them, so it is only safe with ``concurrency=1``). ``out``: also append every record (kept, rejected or errored) to this
    JSONL store. ``backend="ray"``: play on ``workers`` Ray actors (``concurrency`` each) of
    the cluster at ``ray_address`` (see :class:`~userbench_env.runner.backends.Backend`);
    the policy and proxy factories are then pickled to the actors (each episode gets its
    own copy; a class or function from a module must be importable there, while one defined
    locally or in ``__main__`` travels by value).

    ``user_proxy`` (shorthand for ``env_kwargs["user_proxy"]``) may be a route spec,
    ``route:q=0.9``: the cheapest of ``candidates`` whose UFS reaches q is read from the
    ``frontier`` file or measured first on ``calibration`` episodes per candidate, then
    used for the run; the choice is in every record's ``route`` and in the result
    (see :mod:`userbench_env.runner.routing`).
    """
    import gymnasium as gym

    import userbench_env  # noqa: F401  (registers the env ids)
    from userbench_env.registration import is_conversation_env

    kwargs = dict(env_kwargs or {})
    if user_proxy is not None:
        kwargs["user_proxy"] = user_proxy
    route = None
    if is_route(kwargs.get("user_proxy")):
        route = await route_collect(env_id, policy, kwargs, list(candidates or []), frontier, calibration, concurrency)
        kwargs = env_kwargs_for(route["proxy"], kwargs)
    if is_conversation_env(env_id):
        kwargs.setdefault("on_proxy_error", "record")  # a failed episode is a record, not a crash of the run
    if isinstance(kwargs.get("user_proxy"), UserProxy) and concurrency > 1:
        raise ValueError("a user proxy object cannot be shared by concurrent episodes: pass a spec string or a factory")
    runner = Backend(name=backend, ray_address=ray_address, workers=workers)
    runner.check()
    rejects = make_gate(gate)
    make_agent = agent_factory(policy)
    name = agent_name(policy)
    raw_proxy = kwargs.get("user_proxy", "scripted")
    proxy = raw_proxy if isinstance(raw_proxy, str) else agent_name(raw_proxy)
    writer = StoreWriter(EpisodeStore(out)) if out else None

    def make_env(_cell: Any) -> Any:
        # a zero-argument proxy factory gives every concurrent env its own proxy
        proxy_spec = kwargs.get("user_proxy")
        if isinstance(proxy_spec, str):
            ensure_proxy_kind(proxy_spec)  # a fresh (e.g. Ray worker) process may not know the kind yet
        own = {"user_proxy": proxy_spec()} if callable(proxy_spec) and not isinstance(proxy_spec, UserProxy) else {}
        return gym.make(env_id, disable_env_checker=True, **{**kwargs, **own}).unwrapped

    jobs = [
        Job(EpisodeMeta(key=f"{env_id}|{proxy}|{name}|{seed + i}", env_id=env_id, proxy=proxy, agent=name,
                        trial=i, seed=seed + i), env_id, make_agent)
        for i in range(episodes)
    ]
    by_key: dict[str, dict[str, Any]] = {}

    def sink(record: dict[str, Any]) -> None:
        if route is not None:
            record["route"] = route
        by_key[record["key"]] = record
        if writer is not None:
            writer.submit(record)

    with writer.store.exclusive() if writer is not None else contextlib.nullcontext():
        await runner.run(jobs, make_env, concurrency, sink)
        if writer is not None:
            await writer.drain()
    result = CollectResult(route=route)
    for job in jobs:
        record = by_key[job.meta.key]
        if record.get("error"):
            result.errors.append(record)
        elif rejects is not None and rejects(record):
            result.rejected += 1
        else:
            result.records.append(record)
    return result


def collect(env_id: str, policy: Any, episodes: int, concurrency: int = 8, gate: GateSpec = "ufs", seed: int = 0,
            env_kwargs: dict[str, Any] | None = None, out: str | None = None, backend: BackendName = "local",
            ray_address: str | None = None, workers: int | None = None, user_proxy: str | None = None,
            candidates: list[str] | None = None, frontier: str | None = None,
            calibration: int | None = None) -> CollectResult:
    """Synchronous :func:`acollect` (starts its own event loop; call ``acollect`` from one)."""
    return asyncio.run(acollect(env_id, policy, episodes, concurrency, gate, seed, env_kwargs, out, backend,
                                ray_address, workers, user_proxy, candidates, frontier, calibration))


async def route_collect(env_id: str, policy: Any, kwargs: dict[str, Any], candidates: list[str], frontier: str | None,
                        calibration: int | None, concurrency: int) -> dict[str, Any]:
    """The routed choice (as a dict) for ``kwargs["user_proxy"]``, a route spec."""
    from userbench_env.runner.routing import DEFAULT_CALIBRATION, calibrate_collect, parse_route, resolve_route

    async def measure() -> list:
        return await calibrate_collect(env_id, policy, candidates, calibration or DEFAULT_CALIBRATION, concurrency,
                                       {k: v for k, v in kwargs.items() if k != "user_proxy"})

    prices = (kwargs.get("user_proxy_options") or {}).get("price_override")
    choice = await resolve_route(parse_route(kwargs["user_proxy"]), candidates, frontier, measure, prices)
    return choice.model_dump()
