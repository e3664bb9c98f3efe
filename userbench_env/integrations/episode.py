"""One agent-side episode driven turn by turn from a trainer, and the rewards of its end.

Shared by the TRL and verifiers adapters (neither library is imported here):

* :class:`EpisodeRow`: what a dataset row names: env id, task source, split, task id,
  seed, and optionally a user proxy spec overriding the adapter's;
* :class:`EpisodeSession`: holds one ``gym.make``'d agent-side env; ``start(row)``
  returns the user's opening message, ``act(action)`` plays one agent turn (a tool call
  or a message to the user) and returns what the agent sees, with the episode's end
  spelled out in that text; ``finish(final_reply)`` ends an episode the agent left open
  (its final plain reply, if any, goes to the user; then the agent's own stop) and
  returns ``info["episode_record"]``;
* :func:`score_episode`: R_tau, R_tau gated by UFS (``None``: no learning signal) or
  R_tau times the share of passing criteria; an infrastructure error is ``None``,
  never 0;
* :func:`split_task_ids` and :func:`episode_rows`: the training and evaluation rows,
  from disjoint task splits.
"""
from __future__ import annotations

import hashlib
from typing import Any, Literal

import gymnasium as gym
from pydantic import BaseModel, ConfigDict

from userbench_env.envs.info import agent_scored
from userbench_env.runner.gate import Gate
from userbench_env.wrappers.fidelity import pass_fraction

#: the entry point of the agent-side envs (``UserBench/{Airline,Retail,Telecom,Banking}-v0``)
AGENT_SIDE_ENTRY_POINT = "userbench_env.envs.conversation:ConversationEnv"

#: what a reward function computes from a finished episode
RewardKind = Literal["r_tau", "ufs_gated", "fidelity_weighted"]
REWARD_KINDS: tuple[RewardKind, ...] = ("r_tau", "ufs_gated", "fidelity_weighted")

#: the share of a source's tasks held out for evaluation when it has no train/test splits
TEST_SHARE = 0.2


class EpisodeRow(BaseModel):
    """The episode a dataset row names (extra columns such as ``prompt`` are ignored)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    env_id: str
    task_source: str = "bundled"
    split: str | None = None
    task_id: str
    seed: int = 0
    user_proxy: str | None = None


def agent_side_domain(env_id: str) -> str:
    """The domain of an agent-side env id; ``ValueError`` for any other id."""
    try:
        spec = gym.spec(env_id)
    except gym.error.Error as exc:
        raise ValueError(f"unknown env id {env_id!r}: {exc}") from None
    if spec.entry_point != AGENT_SIDE_ENTRY_POINT:
        raise ValueError(f"{env_id!r} is not an agent-side env; use UserBench/{{Airline,Retail,Telecom,Banking}}-v0")
    return str(spec.kwargs["domain"])


class EpisodeSession:
    """One episode at a time of an agent-side env, played turn by turn (see the module docstring).

    ``env_kwargs`` go to ``gym.make`` (``user_proxy``, ``max_turns``, ``judge``, ...); a
    row's ``user_proxy`` overrides theirs. The env is rebuilt only when a row names
    another env id, source, split or proxy. A user proxy's infrastructure failure ends
    the episode with ``info["episode_record"]["error"]`` set (``on_proxy_error="record"``, as
    the runners do), so one outage never stops a training run.
    """

    def __init__(self, **env_kwargs: Any) -> None:
        self.env_kwargs = {"on_proxy_error": "record", **env_kwargs}
        self.env: gym.Env | None = None
        self._key: tuple[Any, ...] | None = None
        self.row: EpisodeRow | None = None
        self.system_prompt = ""
        self.tools: list[dict[str, Any]] = []
        self.info: dict[str, Any] = {}
        self.done = True
        self.turns = 0

    # -- the episode ---------------------------------------------------------------------
    def start(self, row: EpisodeRow | dict[str, Any]) -> str:
        """Start the episode ``row`` names; returns the user's opening message."""
        row = row if isinstance(row, EpisodeRow) else EpisodeRow.model_validate(row)
        agent_side_domain(row.env_id)
        kwargs = dict(self.env_kwargs)
        if row.user_proxy is not None:
            kwargs["user_proxy"] = row.user_proxy
        key = (row.env_id, row.task_source, row.split, repr(sorted(kwargs.items())))
        if self.env is None or key != self._key:
            if self.env is not None:
                self.env.close()
            self.env = gym.make(row.env_id, task_source=row.task_source, split=row.split, **kwargs)
            self._key = key
        self.row = row
        observation, info = self.env.reset(seed=row.seed, options={"task_id": row.task_id})
        self.system_prompt = str(info.get("system_prompt", ""))
        self.tools = list(info.get("tools") or [])
        self.info = info
        self.turns = 0
        self.done = "episode_record" in info
        return str(observation)

    def act(self, action: Any) -> str:
        """One agent turn (a message text, or ``{"name", "arguments"}`` for a tool call);
        returns the observation. The turn that ends the episode says so in the text
        (``[conversation over: <termination>]``); a turn after the end is refused."""
        if self.env is None:
            raise RuntimeError("no episode: call start(row) first")
        if self.done:
            return f"Error: {self.end_note()} Do not call any more tools."
        observation, _, terminated, truncated, info = self.env.step(action)
        self.info = info
        self.turns += 1
        if terminated or truncated:
            self.done = True
            return f"{observation}\n{self.end_note()}".strip()
        return str(observation)

    def finish(self, final_reply: str | None = None) -> dict[str, Any]:
        """The finished episode's ``info["episode_record"]``. An episode still open (the agent
        stopped calling tools, or its completion budget ran out) first gets the agent's
        ``final_reply``, if any, as its message to the user (a chat agent's plain answer
        is what the customer reads), then ends as the agent's stop. Idempotent: once the
        episode is over, ``final_reply`` is ignored."""
        if self.env is None:
            raise RuntimeError("no episode: call start(row) first")
        if not self.done and final_reply and final_reply.strip():
            self.act(final_reply.strip())
        if not self.done:
            from userbench_env.envs.conversation import AGENT_STOP

            self.act(AGENT_STOP)
        return self.info["episode_record"]

    @property
    def termination(self) -> str | None:
        """Why the episode ended (``user_stop``, ``agent_stop``, ``max_turns``, ``error``, ...), or None."""
        episode = self.info.get("episode_record")
        return episode["termination"] if episode else None

    def end_note(self) -> str:
        """The text that tells the agent the conversation is over, and why."""
        return f"[conversation over: {self.termination}]"


def episode_r_tau(episode: dict[str, Any]) -> float:
    """The episode's R_tau as the env reports it (excluding NL assertions while they are pending)."""
    reward = episode.get("reward")
    return float(reward if reward is not None else (episode.get("reward_excluding_nl") or 0.0))


def score_episode(episode: dict[str, Any], kind: RewardKind, gate: Gate | None = None) -> float | None:
    """The reward of a finished episode, ``None`` when it must carry no learning signal.

    ``r_tau``: R_tau. ``ufs_gated``: R_tau, or ``None`` when ``gate`` (default: fail on
    any UFS failure, the gate of docs/training.md) rejects the episode. ``fidelity_weighted``:
    R_tau times the share of judged criteria that passed. Any kind is ``None`` for an
    infrastructure error (``episode["error"]``) or a user failure (the user broke the
    episode, see :mod:`userbench_env.envs.info`): neither is ever scored 0.
    """
    if not agent_scored(episode):
        return None
    reward = episode_r_tau(episode)
    if kind == "r_tau":
        return reward
    if kind == "ufs_gated":
        return None if (gate or Gate()).rejects(episode) else reward
    if kind == "fidelity_weighted":
        return reward * pass_fraction(episode)
    raise ValueError(f"unknown reward kind {kind!r}; choose one of {', '.join(REWARD_KINDS)}")


def _held_out(task_id: str, test_share: float) -> bool:
    digest = hashlib.sha256(task_id.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2**64 < test_share


def split_task_ids(
    domain: str, source: str = "bundled", part: Literal["train", "test"] = "train", data_path: Any = None,
    test_share: float = TEST_SHARE,
) -> tuple[str | None, list[str]]:
    """``(split name for the env, task ids)`` of the ``train`` or ``test`` part of a source.

    The source's own ``train``/``test`` splits when it has both (our bundled worlds;
    tau2's airline, retail and telecom); otherwise a deterministic split of every task
    by a hash of its id (``test_share`` held out), with split ``None`` for the env.
    The two parts never share a task.
    """
    from userbench_env.tasks import available_splits, load_tasks

    if part not in ("train", "test"):
        raise ValueError("part must be 'train' or 'test'")
    if {"train", "test"} <= set(available_splits(domain, source, data_path)):
        return part, [t.id for t in load_tasks(domain, source, part, data_path)]
    ids = [t.id for t in load_tasks(domain, source, None, data_path)]
    return None, [i for i in ids if _held_out(i, test_share) == (part == "test")]


def episode_rows(
    env_id: str, part: Literal["train", "test"] = "train", task_source: str = "bundled", seeds: tuple[int, ...] = (0,),
    user_proxy: str | None = None, data_path: Any = None, limit: int | None = None,
) -> list[dict[str, Any]]:
    """One row per (task of ``part``, seed), in task order, at most ``limit`` tasks:
    ``{"env_id", "task_source", "split", "task_id", "seed", "user_proxy"}``."""
    split, ids = split_task_ids(agent_side_domain(env_id), task_source, part, data_path)
    ids = ids[:limit] if limit is not None else ids
    if not ids:
        raise ValueError(f"no {part} tasks for {env_id} ({task_source})")
    return [
        EpisodeRow(env_id=env_id, task_source=task_source, split=split, task_id=i, seed=s, user_proxy=user_proxy).model_dump()
        for i in ids for s in seeds
    ]
