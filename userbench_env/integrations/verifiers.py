"""verifiers adapter: UserBench's agent-side envs as a ``verifiers`` (0.4, ``verifiers.v1``) environment.

verifiers 0.4 splits an environment into a taskset (``vf.Taskset`` yielding ``vf.Task``\\ s
of ``vf.TaskData``) and an env (``vf.Env``) whose ``run(task, agents)`` drives agents
through ``agent.interaction(task)``: each ``await interaction.turn(message)`` sends one
user message and returns the agent's reply (a ``Segment``). Here the env is the
control flow of a UserBench episode, like verifiers' own TextArena env:

* the user proxy opens (the env's greeting is the agent's side, as in tau2), the agent
  replies, and between agent turns our env answers: a reply with tool calls (Hermes
  ``<tool_call>{"name": ..., "arguments": {...}}</tool_call>`` markup, the protocol the
  system prompt states; parsed by :func:`userbench_env.wrappers.parse_tool_calls`) runs
  against the domain world and its result comes back as ``<tool_response>...</tool_response>``;
  a plain reply goes to the user proxy and the user's reply comes back;
* the episode ends on the env's own terminations (user stop, transfer, errors, turn
  budget, infrastructure error), or when the agent's run ends (its ``max_turns``):
  then as the agent's stop;
* the rubric is recorded on the agent's trace: ``rewards[<reward>]`` with ``reward`` one
  of ``r_tau``, ``ufs_gated`` (default) or ``fidelity_weighted``
  (:func:`~userbench_env.integrations.episode.score_episode`), ``None`` when the
  episode carries no learning signal (UFS gate) or had an infrastructure error (the
  user proxy's, or the agent's own run failing); the three scores and ``ufs_pass`` as
  metrics; ``info["episode_record"]`` is the env's own.

The agent's program is verifiers' ``null`` chat harness as :class:`UserBenchHarness`
(:mod:`~userbench_env.integrations.verifiers_harness`): run as a local subprocess on this
interpreter, so nothing is downloaded at run time (verifiers' stock path fetches ``uv``
from the internet on a machine without it).

The domain tools are stated in the system prompt rather than served over MCP: the
world lives in this process, per episode. Tasks come from the ``test`` split by default
(:func:`~userbench_env.integrations.episode.split_task_ids`; ``part="train"`` for
training). Build the env with :func:`load_environment`; importing this module also
registers the taskset id ``userbench`` with verifiers' loader, and
``python -m userbench_env.integrations.verifiers userbench [vf-eval flags]`` is
``vf-eval`` with it (``--env.taskset.env-id``, ``--env.reward``, ``--env.taskset.part``).
"""
from __future__ import annotations

import asyncio
import json
import sys
from typing import Any, Literal

import verifiers.v1 as vf

from userbench_env.integrations.episode import (
    REWARD_KINDS,
    EpisodeSession,
    RewardKind,
    episode_rows,
    score_episode,
)
from userbench_env.integrations.verifiers_harness import UserBenchHarness
from userbench_env.wrappers.toolcalls import parse_tool_calls

#: the taskset id this module answers to in verifiers' loader (a module of that name)
TASKSET_ID = "userbench"

TOOL_PROTOCOL = (
    "\n\n# Tools\n\nTo call tools, reply with one or more blocks, and nothing else:\n"
    '<tool_call>\n{{"name": <tool name>, "arguments": <arguments object>}}\n</tool_call>\n'
    "Their results come back inside <tool_response></tool_response>. Any other reply is a message to the "
    "customer, whose answer comes back as the next message.\n\nAvailable tools (JSON schemas):\n{tools}"
)


class UserBenchTasksetConfig(vf.TasksetConfig):
    """Which episodes: an agent-side env id, a task source, the split part, seeds."""

    env_id: str = "UserBench/Retail-v0"
    task_source: str = "bundled"
    part: Literal["train", "test"] = "test"
    seeds: list[int] = [0]
    limit: int | None = None
    user_proxy: str | None = None


class UserBenchData(vf.TaskData):
    """A task's wire data: the episode row (:class:`~userbench_env.integrations.episode.EpisodeRow`)."""

    row: dict[str, Any]


class UserBenchTask(vf.Task[UserBenchData, vf.State, vf.TaskConfig]):
    """One UserBench episode; scored by :class:`UserBenchEnv` (cross-turn, from the env)."""


def agent_system_prompt(session: EpisodeSession) -> str:
    """The env's system prompt (instructions and policy) plus the text tool protocol."""
    tools = "\n".join(json.dumps(t["function"]) for t in session.tools)
    return session.system_prompt + TOOL_PROTOCOL.format(tools=tools)


class UserBenchTaskset(vf.Taskset[UserBenchTask, UserBenchTasksetConfig]):
    """The episodes of one env id's split part: the user opens, so ``prompt`` is None."""

    def load(self) -> Any:
        """One task per (task of the part, seed); the agent's system prompt from the env."""
        cfg = self.config
        rows = episode_rows(cfg.env_id, cfg.part, cfg.task_source, tuple(cfg.seeds), cfg.user_proxy, limit=cfg.limit)
        probe = EpisodeSession()
        probe.start(rows[0])
        system_prompt = agent_system_prompt(probe)
        for row in rows:
            yield UserBenchTask(
                UserBenchData(id=f"{row['task_id']}#{row['seed']}", name=row["task_id"], prompt=None,
                              system_prompt=system_prompt, row=row),
                cfg.task,
            )


def agent_config(**fields: Any) -> vf.AgentConfig:
    """The agent as a local subprocess; ``fields`` are further ``vf.AgentConfig`` fields
    (e.g. ``max_turns``). Its harness is left to the taskset's default, the one this
    module exports: :class:`UserBenchHarness` (verifiers' tool-less ``null`` chat
    harness, needing no download)."""
    return vf.AgentConfig(runtime={"type": "subprocess"}, **fields)


class UserBenchEnvConfig(vf.EnvConfig):
    """The agent (:func:`agent_config`) and the env knobs."""

    agent: vf.AgentConfig = agent_config()
    reward: RewardKind = "ufs_gated"
    user_proxy: str = "scripted"
    max_turns: int = 30


def tool_response(observation: str) -> str:
    """A tool result as the agent reads it."""
    return f"<tool_response>\n{observation}\n</tool_response>"


class UserBenchEnv(vf.Env[UserBenchEnvConfig]):
    """A UserBench episode between the agent and the user proxy (see the module docstring)."""

    async def run(self, task: Any, agents: Any) -> None:
        """Play one episode; record the rubric on the agent's trace."""
        session = EpisodeSession(user_proxy=self.config.user_proxy, max_turns=self.config.max_turns)
        message = await asyncio.to_thread(session.start, task.data.row)
        async with agents.agent.interaction(task) as interaction:
            while not session.done:
                segment = await interaction.turn(message)
                if segment.terminated:
                    break
                action = parse_tool_calls(segment.last_reply)
                observation = await asyncio.to_thread(session.act, action)
                message = tool_response(observation) if isinstance(action, dict) else observation
        episode = await asyncio.to_thread(session.finish)
        record_rubric(interaction.trace, episode, self.config.reward, agent_failed=not interaction.trace.ok)


def record_rubric(trace: Any, episode: dict[str, Any], reward: RewardKind, agent_failed: bool = False) -> None:
    """The rubric on ``trace``: ``rewards[reward]`` (``None``: no signal), each kind's
    score and ``ufs_pass`` as metrics (a ``None`` score is left out), and the episode.
    An agent-side failure (its model endpoint, its harness) scores ``None`` like an
    infrastructure error on the env's side: the episode did not measure the policy."""
    scores = {kind: None if agent_failed else score_episode(episode, kind) for kind in REWARD_KINDS}
    value = scores[reward]
    if value is None:
        trace.rewards[reward] = None
    else:
        trace.record_reward(reward, value, 1.0)
    for kind, score in scores.items():
        if score is not None:
            trace.record_metric(kind, score)
    if episode.get("ufs_pass") is not None:
        trace.record_metric("ufs_pass", float(episode["ufs_pass"]))
    trace.info["episode_record"] = episode


def load_environment(env_id: str = "UserBench/Retail-v0", task_source: str = "bundled",
                     part: Literal["train", "test"] = "test", reward: RewardKind = "ufs_gated",
                     user_proxy: str = "scripted", max_turns: int = 30, seeds: tuple[int, ...] = (0,),
                     limit: int | None = None, **agent: Any) -> UserBenchEnv:
    """The verifiers env over ``env_id`` (any agent-side id); ``agent`` fields go to the
    agent's ``vf.AgentConfig`` (e.g. ``max_turns``)."""
    taskset = UserBenchTasksetConfig(id=TASKSET_ID, env_id=env_id, task_source=task_source, part=part,
                                     seeds=list(seeds), limit=limit)
    config = UserBenchEnvConfig(taskset=taskset, reward=reward, user_proxy=user_proxy, max_turns=max_turns,
                                agent=agent_config(**agent))
    return UserBenchEnv(config)


__all__ = ["UserBenchEnv", "UserBenchTaskset", "UserBenchHarness"]

# verifiers' loader imports a taskset (and a harness) by id as a module exporting its classes (`__all__`)
sys.modules.setdefault(TASKSET_ID, sys.modules[__name__])


if __name__ == "__main__":  # `python -m userbench_env.integrations.verifiers ...`: vf-eval with the id registered
    import importlib

    importlib.import_module("userbench_env.integrations.verifiers")  # registers TASKSET_ID (this file runs as __main__)
    from verifiers.v1.cli.eval.main import main as vf_eval

    vf_eval()
