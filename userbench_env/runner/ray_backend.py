"""The Ray backend: episodes played by Ray actors, records streamed back to the driver.

``workers`` async actors each hold their own env pool and event loop and play the jobs
sent to them with the engine's :func:`~userbench_env.runner.engine.play_job`, at most
``concurrency`` at once. The driver runs ``concurrency`` feeding coroutines per actor
over one shared job iterator (:func:`~userbench_env.runner.engine.drain_jobs`), so each
job goes to exactly one actor, a fast actor takes more jobs than a slow one, and every
record reaches the driver's sink (the only writer of the store) the moment it is done.

An actor that dies (its process or node is lost) turns its in-flight episodes into crash
records, infrastructure errors that ``retry_errors`` reruns; Ray restarts the actor for
the jobs that follow. Ray is imported only here, when the backend runs: the workers need
``userbench-env`` installed and the task data at the paths the run names.

Which cluster (:func:`cluster_address`): the one named by the ``address`` argument
(``--ray-address``), else by ``RAY_ADDRESS``, else a new local cluster of this run's own
(``address="local"``), whatever a past ``ray start`` left behind (Ray would otherwise
try the cluster named in its leftover ``ray_current_cluster`` file). A named
``host:port`` that does not accept connections is a :class:`ClusterUnreachable` naming
it, before any episode (Ray itself would retry for minutes).
"""
from __future__ import annotations

import asyncio
import os
import socket
import time
from types import ModuleType
from typing import Any, Iterable

from userbench_env.errors import UserError, extra_hint
from userbench_env.runner.engine import EnvFactory, EnvPool, Job, Player, RecordSink, drain_jobs, play_job
from userbench_env.runner.record import crash_record

MISSING_RAY = f"the ray backend needs Ray, which is not installed: {extra_hint('ray')}"


def import_ray() -> ModuleType:
    """The ``ray`` module; ``ImportError`` with the install command when it is missing."""
    try:
        import ray
    except ImportError as exc:
        raise ImportError(MISSING_RAY) from exc
    return ray


#: seconds a named cluster has to accept a connection
CONNECT_TIMEOUT_S = 5.0


class ClusterUnreachable(UserError):
    """The Ray cluster the run names does not answer."""


def cluster_address(address: str | None) -> tuple[str, str]:
    """The address ``ray.init`` gets and where it came from: ``address`` (``--ray-address``),
    else ``RAY_ADDRESS``, else ``"local"`` (a new cluster of this run's own)."""
    if address:
        return address, "--ray-address"
    named = os.environ.get("RAY_ADDRESS", "").strip()
    if named:
        return named, "RAY_ADDRESS"
    return "local", "default"


def check_cluster(address: str | None) -> None:
    """:class:`ClusterUnreachable` when the cluster :func:`cluster_address` names (a
    ``host:port`` or ``ray://host:port``) does not accept a connection within
    :data:`CONNECT_TIMEOUT_S`; ``local`` and ``auto`` are Ray's to resolve."""
    target, origin = cluster_address(address)
    if target in ("local", "auto"):
        return
    host, _, port = target.split("://", 1)[-1].rpartition(":")
    advice = "start it (`ray start --head`) or leave out --ray-address and RAY_ADDRESS to run on a local cluster"
    if not port.isdigit():
        raise ClusterUnreachable(f"{target} (from {origin}) is not a Ray address: use host:port or ray://host:port")
    try:
        socket.create_connection((host or "127.0.0.1", int(port)), timeout=CONNECT_TIMEOUT_S).close()
    except OSError as exc:
        raise ClusterUnreachable(f"no Ray cluster answers at {target} (from {origin}): "
                                 f"{exc.strerror or exc}; {advice}") from None


class EpisodeActor:
    """The body of one Ray actor: plays the jobs it is sent on envs from its own pool."""

    def __init__(self, make_env: EnvFactory) -> None:
        self.pool = EnvPool(make_env)

    async def ready(self) -> bool:
        """True once the actor is built (so a setup that cannot load on the workers fails early)."""
        return True

    async def play(self, job: Job) -> dict[str, Any]:
        """The record of ``job`` played on this actor's event loop."""
        return await play_job(self.pool, job)


#: how long a driver waits for a lost actor to come back before sending it more jobs
RESTART_WAIT_S = 120.0


async def _await_restart(ray: ModuleType, actor: Any) -> None:
    """Return once ``actor`` answers again after losing its process (or is gone for good).

    Ray restarts a lost actor, but a job sent before the driver has learnt of the loss
    goes to the dead incarnation and fails with ``ActorUnavailableError`` ("the actor is
    restarting"). Waiting for the no-op :meth:`EpisodeActor.ready` before the feeder
    takes its next job keeps one lost process to the episodes it was really playing.
    No episode is re-sent: only the health probe repeats.
    """
    deadline = time.monotonic() + RESTART_WAIT_S
    while time.monotonic() < deadline:
        try:
            await actor.ready.remote()
            return
        except ray.exceptions.ActorUnavailableError:
            await asyncio.sleep(0.05)
        except ray.exceptions.RayActorError:  # dead for good: the next jobs record the crash
            return


def _player(ray: ModuleType, actor: Any) -> Player:
    """A driver-side player sending each job to ``actor``; a lost actor gives a crash record."""

    async def play(job: Job) -> dict[str, Any]:
        start = time.perf_counter()
        try:
            return await actor.play.remote(job)
        except ray.exceptions.RayActorError as exc:
            record = crash_record(job.meta, exc, time.perf_counter() - start)
            await _await_restart(ray, actor)
            return record

    return play


async def run_jobs_ray(jobs: Iterable[Job], make_env: EnvFactory, concurrency: int, on_record: RecordSink,
                       workers: int | None = None, address: str | None = None) -> None:
    """Play every job on ``workers`` Ray actors, ``concurrency`` in flight on each.

    Uses the Ray session of this process when one is initialised; otherwise connects to
    the cluster of :func:`cluster_address` (``None``: ``RAY_ADDRESS``, else a new local
    cluster whatever Ray's leftover state) and shuts that session down afterwards.
    ``workers=None`` means one actor per CPU of the cluster; each actor reserves one CPU.
    """
    if concurrency < 1:
        raise ValueError("concurrency must be >= 1")
    ray = import_ray()
    jobs = list(jobs)
    if not jobs:  # a fully resumed run needs no cluster
        return
    owned = not ray.is_initialized()
    if owned:
        check_cluster(address)
        ray.init(address=cluster_address(address)[0], include_dashboard=False)
    actors: list[Any] = []
    try:
        count = workers or max(1, int(ray.cluster_resources().get("CPU", 1)))
        actor_class = ray.remote(EpisodeActor).options(
            num_cpus=1, max_concurrency=concurrency, max_restarts=-1, max_task_retries=0, scheduling_strategy="SPREAD",
        )
        actors = [actor_class.remote(make_env) for _ in range(count)]
        await asyncio.gather(*(actor.ready.remote() for actor in actors))  # a broken setup fails before any episode
        await drain_jobs(jobs, [_player(ray, actor) for actor in actors for _ in range(concurrency)], on_record)
    finally:
        for actor in actors:
            ray.kill(actor)
        if owned:
            ray.shutdown()
