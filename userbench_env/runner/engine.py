"""The async episode engine: bounded concurrency on one event loop.

``concurrency`` worker coroutines pull jobs from one iterator; each job borrows an env
of its *cell* (envs are reused, one per in-flight episode), plays one episode with
``areset``/``astep`` (LLM calls are awaited, so they never block the loop; the env
itself is cheap) and hands the record to ``on_record``. A job that raises becomes a
crash record, never an exception out of the run.

Where an episode is played is a *player* (``await play(job) -> record``):
:func:`run_jobs` plays in this process; the Ray backend
(:mod:`userbench_env.runner.ray_backend`) gives :func:`drain_jobs` players that send
each job to an actor running :func:`play_job` on its own loop.
"""
from __future__ import annotations

import asyncio
import inspect
import time
from collections import defaultdict
from functools import partial
from typing import Any, Awaitable, Callable, Hashable, Iterable, Sequence

from userbench_env.runner.agents import agent_act
from userbench_env.runner.record import EpisodeMeta, build_record, crash_record

EnvFactory = Callable[[Hashable], Any]
RecordSink = Callable[[dict[str, Any]], Awaitable[None] | None]
Player = Callable[["Job"], Awaitable[dict[str, Any]]]


class Job:
    """One episode to play: its record metadata, env cell and agent factory."""

    __slots__ = ("meta", "cell", "make_agent")

    def __init__(self, meta: EpisodeMeta, cell: Hashable, make_agent: Callable[[], Any]) -> None:
        self.meta = meta
        self.cell = cell
        self.make_agent = make_agent


class EnvPool:
    """Idle envs by cell; ``take`` builds a new one when none is idle."""

    def __init__(self, make_env: EnvFactory) -> None:
        self.make_env = make_env
        self.idle: dict[Hashable, list[Any]] = defaultdict(list)

    def take(self, cell: Hashable) -> Any:
        """An idle env of ``cell`` (or a fresh one)."""
        idle = self.idle[cell]
        return idle.pop() if idle else self.make_env(cell)

    def give(self, cell: Hashable, env: Any) -> None:
        """Return an env after its episode."""
        self.idle[cell].append(env)


async def _reset(env: Any, seed: int | None, options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    if hasattr(env, "areset"):
        return await env.areset(seed=seed, options=options or None)
    return env.reset(seed=seed, options=options or None)


async def _step(env: Any, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
    if hasattr(env, "astep"):
        return await env.astep(action)
    return env.step(action)


async def play_episode(env: Any, agent: Any, meta: EpisodeMeta) -> dict[str, Any]:
    """Play one episode of ``env`` with ``agent``; the record (a crash record on error)."""
    start = time.perf_counter()
    try:
        observation, info = await _reset(env, meta.seed, meta.options)
        if hasattr(agent, "reset"):
            agent.reset(env.task)
        reward, done = 0.0, "episode_record" in info
        while not done:
            action = await agent_act(agent, observation, info)
            observation, reward, terminated, truncated, info = await _step(env, action)
            done = terminated or truncated
        return build_record(meta, env, info, reward, time.perf_counter() - start)
    except Exception as exc:  # one broken episode must not stop the run
        return crash_record(meta, exc, time.perf_counter() - start)


async def play_job(pool: EnvPool, job: Job) -> dict[str, Any]:
    """Play ``job`` on an env of its cell from ``pool``; a crashed env is dropped, not reused."""
    env = pool.take(job.cell)
    record = await play_episode(env, job.make_agent(), job.meta)
    if record.get("termination") != "crash":  # a crashed env may be in any state
        pool.give(job.cell, env)
    return record


async def drain_jobs(jobs: Iterable[Job], players: Sequence[Player], on_record: RecordSink) -> None:
    """Hand every job to exactly one player, one worker coroutine per player; each record goes
    to ``on_record`` as soon as it is finished. The number of players bounds the episodes in flight."""
    queue = iter(jobs)

    async def worker(play: Player) -> None:
        for job in queue:  # the shared iterator hands each job to exactly one worker
            sunk = on_record(await play(job))
            if inspect.isawaitable(sunk):
                await sunk

    await asyncio.gather(*(worker(play) for play in players))


async def run_jobs(jobs: Iterable[Job], make_env: EnvFactory, concurrency: int, on_record: RecordSink) -> None:
    """Play every job in this process with at most ``concurrency`` episodes in flight."""
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    pool = EnvPool(make_env)
    await drain_jobs(jobs, [partial(play_job, pool)] * concurrency, on_record)
