"""``userbench eval`` as a library call: proxies x agent x domains x trials into a store.

:func:`plan` expands an :class:`EvalConfig` into episode metadata (one per proxy,
domain, task and trial; seed = trial; each with its :class:`RunSettings`); :func:`run_eval`
skips the keys the store already holds (``retry_errors`` reruns errored ones), plays the
rest with the async engine and appends each record to the store the moment it is
finished. The episodes are played in this process or, with ``backend="ray"``, on the
actors of a Ray cluster; either way this process alone writes the store.

Before the first episode: every proxy and the agent are built once, and each LLM among
them checked (credentials found, its server reachable: :func:`check_models`); task ids
that no planned domain has are refused (:class:`UnknownTaskIds`); the store is locked
against a second writer (:meth:`EpisodeStore.exclusive`) and refused when it answers
another question (:func:`~userbench_env.runner.settings.check_append`). During the run
(:class:`RunAborted`, after the records already finished are stored): the first write
failure stops it (:class:`StoreWriteError`; resume continues from the stored records),
and so do ``max_consecutive_errors`` infrastructure errors in a row (:class:`ErrorStreak`).
"""
from __future__ import annotations

import asyncio
import errno
import os
import warnings
from pathlib import Path
from typing import Any, Awaitable, Hashable, Iterator

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.errors import UserError
from userbench_env.runner.agents import agent_factory
from userbench_env.runner.backends import Backend, BackendName
from userbench_env.runner.engine import Job
from userbench_env.runner.progress import Progress
from userbench_env.runner.record import EpisodeMeta
from userbench_env.runner.settings import RunSettings, check_append, outcome_options
from userbench_env.runner.store import EpisodeStore, episode_key
from userbench_env.runner.writer import StoreWriter

#: what marks a proxy spec (or the base spec of a wrapping proxy) as an LLM (through litellm, or direct)
LLM_MARKS = ("litellm:", "direct:")


def is_llm_spec(spec: str) -> bool:
    """True when the spec (or the base spec it wraps) names an LLM-played user."""
    return any(mark in spec for mark in LLM_MARKS)


def bundled_domains() -> list[str]:
    """Domains that have bundled tasks in this installation."""
    from userbench_env.datapaths import bundled_root
    from userbench_env.domains import DOMAINS

    root = bundled_root()
    return [name for name in DOMAINS if (root / name / "tasks.json").is_file()]


class EvalConfig(BaseModel):
    """One evaluation run (see the module docstring).

    ``proxy_options`` go to every proxy whose spec names a ``litellm:`` or ``direct:`` model (``base_url``, ``api_key``,
    ``price_override``, ``timeout``, ...); ``agent_options`` to an agent built from an LLM
    spec (same keys). ``hosting`` names how the user model is
    served (``local`` for scripted kinds, ``self-hosted`` with a ``base_url``, else
    ``api``) unless given per proxy. ``judge`` grades the judge criteria: ``None`` (rules
    only), ``"deferred"`` (left pending for ``userbench grade``) or a litellm model spec;
    ``rubrics`` is a rubric root whose judge criteria the envs add (``rubrics=`` of the env).
    ``max_consecutive_errors`` infrastructure errors in a row stop the run (0: never).
    """

    model_config = ConfigDict(extra="forbid")

    proxies: list[str] = Field(default_factory=lambda: ["scripted"])
    agent: str = "scripted"
    domains: list[str] = Field(default_factory=list)
    source: str = "bundled"
    split: str | None = "default"
    trials: int = Field(default=1, ge=1)
    task_ids: list[str] = Field(default_factory=list)
    limit: int | None = Field(default=None, ge=1)
    concurrency: int = Field(default=8, ge=1)
    max_turns: int = Field(default=100, ge=1)
    max_consecutive_errors: int = Field(default=10, ge=0)
    out: str = "runs/eval.jsonl"
    retry_errors: bool = False
    progress: bool = True
    data_path: str | None = None
    judge: str | None = None
    rubrics: str | None = None
    proxy_options: dict[str, Any] = Field(default_factory=dict)
    agent_options: dict[str, Any] = Field(default_factory=dict)
    hosting: dict[str, str] = Field(default_factory=dict)
    route: dict[str, Any] | None = None  # a routed run's choice (routing.RouteChoice), written into every record


def proxy_kind(spec: str) -> str:
    """The kind of a proxy spec string (``litellm`` for ``litellm:openai/x``)."""
    return spec.strip().partition(":")[0]


def hosting_of(spec: str, config: EvalConfig) -> str:
    """How the proxy's model is served: ``local``, ``self-hosted`` or ``api``."""
    if spec in config.hosting:
        return config.hosting[spec]
    if not is_llm_spec(spec):
        return "local"
    return "self-hosted" if config.proxy_options.get("base_url") else "api"


def ensure_proxy_kind(spec: str) -> None:
    """Import ``userbench_env.proxies.<kind>`` when the spec's kind is not registered yet
    (proxy modules register their spec kind on import)."""
    import importlib
    import importlib.util

    from userbench_env.proxies import PROXY_SPECS

    kind = proxy_kind(spec)
    if kind not in PROXY_SPECS and kind.isidentifier() and importlib.util.find_spec(f"userbench_env.proxies.{kind}"):
        importlib.import_module(f"userbench_env.proxies.{kind}")


def env_id_of(domain: str) -> str:
    """The registered env id of a conversation domain."""
    return f"UserBench/{domain.title()}-v0"


def plan(config: EvalConfig) -> list[EpisodeMeta]:
    """Every episode of the run, in a stable order (proxy, domain, task, trial)."""
    from userbench_env.domains import canonical_domain_name
    from userbench_env.tasks import load_tasks

    domains = [canonical_domain_name(d) for d in (config.domains or bundled_domains())]
    settings = {proxy: run_settings(proxy, config).model_dump() for proxy in config.proxies}
    metas: list[EpisodeMeta] = []
    found: set[str] = set()
    for domain in domains:
        tasks = load_tasks(domain, config.source, config.split, config.data_path)
        if config.task_ids:
            tasks = [t for t in tasks if t.id in set(config.task_ids)]
            found.update(t.id for t in tasks)
        if config.limit is not None:
            tasks = tasks[: config.limit]
        for proxy in config.proxies:
            for task in tasks:
                for trial in range(config.trials):
                    metas.append(EpisodeMeta(
                        key=episode_key(proxy, config.agent, domain, config.source, task.id, trial),
                        env_id=env_id_of(domain), domain=domain, source=config.source, task_id=task.id,
                        trial=trial, seed=trial, proxy=proxy, agent=config.agent,
                        hosting=hosting_of(proxy, config), options={"task_id": task.id}, settings=settings[proxy],
                    ))
    unknown = [task_id for task_id in dict.fromkeys(config.task_ids) if task_id not in found]
    if unknown:
        listing = f"--domain {domains[0]}" if len(domains) == 1 else "--domain D"
        raise UnknownTaskIds(f"unknown task id {', '.join(unknown)} in {', '.join(domains)} (source {config.source}, "
                             f"split {config.split or 'all'}): `userbench tasks {listing}` lists the task ids")
    return metas


class UnknownTaskIds(UserError, ValueError):
    """A requested task id is in none of the planned domains."""


def run_settings(spec: str, config: EvalConfig) -> RunSettings:
    """The settings of the episodes of proxy ``spec`` in this run (:mod:`userbench_env.runner.settings`)."""
    return RunSettings(
        agent=config.agent, agent_options=outcome_options(agent_options(config)),
        max_turns=config.max_turns, judge=config.judge, rubrics=config.rubrics, source=config.source,
        split=config.split, proxy_options=outcome_options(proxy_options(spec, config)),
    )


def proxy_options(spec: str, config: EvalConfig) -> dict[str, Any]:
    """The options given to ``make_proxy(spec)``: ``proxy_options`` for LLM specs only."""
    return config.proxy_options if is_llm_spec(spec) else {}


def check_proxies(config: EvalConfig) -> None:
    """Build each proxy and the agent once so a bad spec fails before any episode (``ValueError``),
    and check each LLM among them (:func:`check_models`)."""
    from userbench_env.proxies import make_proxy

    for spec in config.proxies:
        ensure_proxy_kind(spec)
        check_models(make_proxy(spec, **proxy_options(spec, config)))
    check_models(agent_factory(config.agent, **agent_options(config))())


def llm_callers(player: Any) -> Iterator[Any]:
    """The LLM callers (objects with a ``transport`` and a ``model``) of a proxy or agent:
    itself, and along the chain of proxies it wraps (``base``)."""
    while player is not None:
        if hasattr(player, "transport") and hasattr(player, "model"):
            yield player
        player = getattr(player, "base", None)


def check_models(player: Any) -> None:
    """``ConfigurationError`` (a ``ValueError``) naming the model when an LLM of ``player`` cannot be
    called: no credentials for its provider, or its server not reachable (the transport's ``check``)."""
    for caller in llm_callers(player):
        caller.transport.check(caller.model)


def agent_options(config: EvalConfig) -> dict[str, Any]:
    """The options given to the agent factory: ``agent_options`` for an LLM agent only."""
    return config.agent_options if is_llm_spec(config.agent) else {}


def env_factory(config: EvalConfig) -> Any:
    """``make_env(cell)`` for cells ``(proxy spec, domain)``."""
    from userbench_env.envs.conversation import ConversationEnv
    from userbench_env.proxies import make_proxy

    def make_env(cell: Hashable) -> ConversationEnv:
        proxy, domain = cell  # type: ignore[misc]
        ensure_proxy_kind(proxy)  # a fresh (e.g. Ray worker) process may not know the kind yet
        return ConversationEnv(
            domain, config.source, split=None, user_proxy=make_proxy(proxy, **proxy_options(proxy, config)),
            max_turns=config.max_turns, data_path=config.data_path, on_proxy_error="record", judge=config.judge,
            rubrics=config.rubrics,
        )

    return make_env


class EvalResult(BaseModel):
    """What a run did: planned, skipped (already in the store), run, and its totals."""

    planned: int
    skipped: int
    ran: int
    errors: int
    out: str


class RunAborted(RuntimeError):
    """The run stopped before its end (records already finished are stored); the message says
    why and how to go on."""


class StoreWriteError(RunAborted):
    """The store could not be written (the ``OSError`` is the cause)."""


class ErrorStreak(RunAborted):
    """``max_consecutive_errors`` episodes in a row ended in an infrastructure error."""


class Stop:
    """Ends a run early: ``stop(reason)`` cancels the episodes in flight, and :meth:`play`
    returns (``reason`` is kept; later calls change nothing)."""

    def __init__(self) -> None:
        self.reason: Exception | None = None
        self._task: asyncio.Future[None] | None = None

    def __call__(self, reason: Exception) -> None:
        if self.reason is None:
            self.reason = reason
            if self._task is not None:
                self._task.cancel()

    async def play(self, episodes: Awaitable[None]) -> None:
        """Await ``episodes`` until they end or the run is stopped."""
        self._task = asyncio.ensure_future(episodes)
        try:
            await self._task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if self.reason is None or (current is not None and current.cancelling()):
                raise  # cancelled from outside, not stopped


def write_failure(store: EpisodeStore, error: Exception, metas: list[EpisodeMeta]) -> StoreWriteError:
    """The one-line :class:`StoreWriteError` of a failed write: the store, the OS error, how many
    of the run's episodes are safely stored, and that running again resumes from there."""
    planned = {meta.key for meta in metas}
    stored = len(planned & set(store.latest()))
    if isinstance(error, OSError) and error.strerror:
        reason = f"[{errno.errorcode.get(error.errno or 0, error.errno)}] {error.strerror}"
    else:
        reason = f"{type(error).__name__}: {error}"
    return StoreWriteError(f"cannot write {store.path}: {reason}; {stored} of the run's {len(planned)} episodes are "
                           "safely stored there; run the same command again to resume from there")


def first_line(text: Any, most: int = 200) -> str:
    """The first line of ``text``, at most ``most`` characters."""
    return (str(text).splitlines() or [""])[0][:most]


async def arun_eval(config: EvalConfig, backend: BackendName = "local", ray_address: str | None = None,
                    workers: int | None = None) -> EvalResult:
    """Run (or resume) the evaluation described by ``config``; see the module docstring.

    ``backend="ray"`` plays the episodes on ``workers`` Ray actors (``concurrency`` each)
    of the cluster at ``ray_address`` (see :class:`~userbench_env.runner.backends.Backend`);
    without Ray installed it raises ``ImportError`` before any episode.
    """
    runner = Backend(name=backend, ray_address=ray_address, workers=workers)
    runner.check()
    metas = plan(config)
    check_proxies(config)
    store = EpisodeStore(config.out)
    with store.exclusive():
        check_append(str(store.path), store.records(), {spec: run_settings(spec, config) for spec in config.proxies})
        return await _play(config, runner, store, metas)


async def _play(config: EvalConfig, runner: Backend, store: EpisodeStore, metas: list[EpisodeMeta]) -> EvalResult:
    """Play the planned episodes the (locked) store does not hold yet; see :func:`arun_eval`."""
    done = store.done_keys(retry_errors=config.retry_errors)
    if store.unreadable:
        warnings.warn(f"{store.path}: skipped {store.unreadable} unreadable line(s) (a torn tail or corrupt "
                      "records); their episodes run again", RuntimeWarning, stacklevel=3)
    todo = [m for m in metas if m.key not in done]
    make_agent = agent_factory(config.agent, **agent_options(config))
    jobs = [Job(meta, (meta.proxy, meta.domain), make_agent) for meta in todo]
    progress = Progress(len(jobs), enabled=config.progress)
    stop = Stop()
    writer = StoreWriter(store, on_failure=stop)
    streak = 0

    async def sink(record: dict[str, Any]) -> None:
        """Store ``record``; its worker starts no episode until the record is on disk (or its write
        failed), so a failed write costs at most one finished episode per worker."""
        nonlocal streak
        if config.route is not None:
            record["route"] = config.route
        written = writer.submit(record)  # group-committed with the other workers' records
        written.add_done_callback(lambda f: progress.add(record) if not f.cancelled() and f.exception() is None else None)
        streak = streak + 1 if record.get("error") else 0
        if config.max_consecutive_errors and streak >= config.max_consecutive_errors:
            stop(ErrorStreak(f"stopped after {streak} infrastructure errors in a row (last: {first_line(record['error'])}); "
                             f"they are stored in {store.path}: fix the cause, then run the same command with "
                             "--retry-errors"))
        await asyncio.wait([written])  # a write error is the writer's to report (it stops the run)

    try:
        await stop.play(runner.run(jobs, env_factory(config), config.concurrency, sink))
        await writer.settle()
    finally:
        progress.close()
    if writer.failure is not None:
        raise write_failure(store, writer.failure, metas) from writer.failure
    if stop.reason is not None:
        raise stop.reason
    return EvalResult(planned=len(metas), skipped=len(metas) - len(todo), ran=len(jobs), errors=progress.stats.errors,
                      out=os.fspath(Path(config.out)))


def run_eval(config: EvalConfig, backend: BackendName = "local", ray_address: str | None = None,
             workers: int | None = None) -> EvalResult:
    """Synchronous :func:`arun_eval` (starts its own event loop)."""
    return asyncio.run(arun_eval(config, backend, ray_address, workers))
