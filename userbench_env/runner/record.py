"""Episode records: what one finished (or failed) episode writes to the store.

A record is the JSON form of :class:`~userbench_env.core.episode.EpisodeRecord` plus a
few extra fields (``hosting``, ``reward_excluding_nl``, ``nl_pending``,
``invalid_actions``, ``settings``: the :class:`~userbench_env.runner.settings.RunSettings`
of the run, ``None`` outside ``eval``). ``error`` is set only for infrastructure failures (the proxy or
the judge failed, or the episode crashed): such records are excluded from every rate
and reported separately, and ``--retry-errors`` reruns them.
"""
from __future__ import annotations

import traceback
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.episode import EpisodeRecord

#: reward at or above this counts as an agent success
SUCCESS_REWARD = 1.0 - 1e-6


class EpisodeMeta(BaseModel):
    """Who ran what: the fields of a record fixed before the episode starts."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    key: str
    env_id: str = ""
    domain: str = ""
    source: str = ""
    task_id: str | None = None
    trial: int = 0
    seed: int | None = None
    proxy: str = ""
    agent: str = ""
    hosting: str = "local"
    options: dict[str, Any] = Field(default_factory=dict)
    settings: dict[str, Any] | None = None


def is_success(record: dict[str, Any]) -> bool:
    """True when the agent solved the task (R_tau == 1)."""
    return float(record.get("reward") or 0.0) >= SUCCESS_REWARD


def user_cost(record: dict[str, Any]) -> float | None:
    """The user side's cost of the episode in USD, or ``None`` when it is unknown: some call went
    to a model with no known price (``user_provenance.priced`` is false; ``--prices`` can price
    it). A proxy that calls no model (scripted, replay) really costs 0."""
    provenance = record.get("user_provenance")
    if isinstance(provenance, dict) and provenance.get("priced") is False:
        return None
    return float(record.get("user_cost_usd") or 0.0)


def _injections(env: Any) -> list[dict[str, Any]]:
    """The ground-truth injections of a perturbed proxy (``[]`` for other proxies)."""
    return [dict(i) for i in getattr(env.user_proxy, "injections", None) or []]


def build_record(meta: EpisodeMeta, env: Any, info: dict[str, Any], reward: float, duration_s: float) -> dict[str, Any]:
    """The record of a finished episode of a :class:`ConversationEnv` (terminal ``info``).

    ``reward`` is the last step's; it is recorded as ``None`` when the episode gives the
    agent no reward at all (``reward`` and ``reward_excluding_nl`` both ``None``: a user
    failure, see :mod:`userbench_env.envs.info`), so no rate counts it as the agent's 0.
    """
    episode = info.get("episode_record") or {}
    unscored = "reward" in episode and episode["reward"] is None and episode.get("reward_excluding_nl") is None
    task_id = episode.get("task_id") or (env.task.id if env.task is not None else meta.task_id)
    record = EpisodeRecord(
        key=meta.key,
        env_id=meta.env_id,
        domain=env.domain,
        source=env.task_source,
        task_id=task_id,
        trial=meta.trial,
        seed=meta.seed,
        proxy=meta.proxy,
        agent=meta.agent,
        termination=episode.get("termination") or "",
        reward=None if unscored else float(reward),
        reward_components=episode.get("reward_components") or {},
        ufs_pass=episode.get("ufs_pass"),
        criteria=episode.get("criteria") or [],
        failures_per_family=episode.get("failures_per_family") or {},
        probe=episode.get("probe"),
        turns=int(info.get("turn", 0)),
        agent_tool_calls=int(info.get("agent_tool_calls", 0)),
        user_tool_calls=int(info.get("user_tool_calls", 0)),
        tool_errors=int(info.get("tool_errors", 0)),
        agent_questions=int(info.get("agent_questions", 0)),
        user_provenance=episode.get("user_proxy") or {},
        user_prompt_tokens=int(episode.get("user_prompt_tokens", 0)),
        user_completion_tokens=int(episode.get("user_completion_tokens", 0)),
        user_cost_usd=float(episode.get("user_cost_usd", 0.0)),
        injections=_injections(env),
        messages=list(env.messages),
        error=episode.get("error"),
        duration_s=round(duration_s, 6),
    ).model_dump(mode="json")
    record.update(
        hosting=meta.hosting,
        reward_excluding_nl=episode.get("reward_excluding_nl"),
        nl_pending=bool(episode.get("nl_pending", False)),
        invalid_actions=int(info.get("invalid_actions", 0)),
        settings=meta.settings,
    )
    return record


def crash_record(meta: EpisodeMeta, exc: BaseException, duration_s: float) -> dict[str, Any]:
    """The record of an episode that raised: an infrastructure error with its traceback."""
    record = EpisodeRecord(
        key=meta.key, env_id=meta.env_id, domain=meta.domain, source=meta.source, task_id=meta.task_id or "",
        trial=meta.trial, seed=meta.seed, proxy=meta.proxy, agent=meta.agent, termination="crash",
        error=f"crash: {type(exc).__name__}: {exc}", duration_s=round(duration_s, 6),
    ).model_dump(mode="json")
    record.update(hosting=meta.hosting, settings=meta.settings, traceback="".join(traceback.format_exception(exc))[-4000:])
    return record
