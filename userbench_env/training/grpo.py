"""Group-relative policy optimisation (GRPO) on an agent-side env's fidelity-gated reward.

Each step takes ``tasks_per_step`` training tasks and plays each ``group`` times with the
policy (:class:`~userbench_env.training.policy.LocalPolicyAgent`, sampling at
``temperature``, rollout ``g`` with episode seed ``g``) opposite the user proxy, through
:class:`~userbench_env.integrations.episode.EpisodeSession`. Each rollout is scored by
:func:`~userbench_env.integrations.episode.score_episode` (``ufs_gated`` by default:
R_tau, or ``None`` when the user failed UFS). An agent that produced an unusable turn
(:class:`~userbench_env.agents.base.AgentError`) failed the task: its episode is ended as
the agent's stop and scored as usual. Within a group, rollouts with a reward get the
advantage ``(r - mean) / (std + 1e-4)`` over those rollouts; rollouts gated to ``None``
get none and are left out of the baseline; a group whose rewards are all equal gives no
gradient. The loss is ``-advantage x mean log-probability of the rollout's own turns``
(the chat re-rendered as the server renders it, :mod:`.tokens`), averaged over the
rollouts with an advantage; one AdamW step per batch (on-policy, so no ratio clipping
or reference KL is needed).
"""
from __future__ import annotations

import random
import statistics
import time
from typing import Any, Callable, Sequence

from pydantic import BaseModel

from userbench_env.agents.base import AgentError
from userbench_env.envs.conversation import AGENT_STOP
from userbench_env.integrations.episode import EpisodeSession, RewardKind, score_episode
from userbench_env.runner.gate import Gate
from userbench_env.training.sft import token_logprobs
from userbench_env.training.tokens import tokenize_chat


class GrpoStepLog(BaseModel):
    """One GRPO step: mean R_tau of the rollouts, share gated out, groups with a signal,
    mean reward, loss, tokens (prompt + completion of every turn) and seconds."""

    phase: str = "grpo"
    step: int
    r_tau: float
    gated_share: float
    groups_with_signal: int
    loss: float
    tokens: int
    seconds: float


class Rollout(BaseModel):
    """A finished rollout: the chat the policy kept, its reward and its episode record."""

    messages: list[dict[str, Any]]
    tools: list[dict[str, Any]]
    reward: float | None
    episode: dict[str, Any]
    tokens: int


def play_rollout(session: EpisodeSession, agent: Any, row: dict[str, Any], kind: RewardKind, gate: Gate | None) -> Rollout:
    """One episode of ``row`` played by ``agent`` (its ``seed`` set by the caller), scored."""
    agent.reset()
    observation = session.start(row)
    info = session.info
    while not session.done:
        try:
            action = agent.act(observation, info)
        except AgentError:
            action = AGENT_STOP
        observation = session.act(action)
        info = session.info
    episode = session.finish()
    return Rollout(messages=agent.chat, tools=agent.tools, reward=score_episode(episode, kind, gate), episode=episode,
                   tokens=agent.usage.prompt_tokens + agent.usage.completion_tokens)


def advantages(rewards: Sequence[float | None]) -> list[float]:
    """Group-relative advantages (module docstring); 0 for ``None`` rewards."""
    scored = [r for r in rewards if r is not None]
    if len(scored) < 2 or len(set(scored)) == 1:
        return [0.0] * len(rewards)
    mean, std = statistics.fmean(scored), statistics.pstdev(scored)
    return [0.0 if r is None else (r - mean) / (std + 1e-4) for r in rewards]


def train_grpo(model: Any, tokenizer: Any, engine: Any, rows: Sequence[dict[str, Any]], steps: int = 8, group: int = 4,
               tasks_per_step: int = 2, learning_rate: float = 5e-6, temperature: float = 1.0, max_tokens: int = 96,
               system_prompt: str | None = None, tool_names: Sequence[str] | None = None, kind: RewardKind = "ufs_gated",
               gate: Gate | None = None, seed: int = 0, max_length: int = 2048,
               env_kwargs: dict[str, Any] | None = None, train_layers: int | None = None,
               on_step: Callable[[GrpoStepLog], None] | None = None) -> list[GrpoStepLog]:
    """Train ``model`` in place with GRPO on ``rows`` (episode rows of training tasks;
    module docstring). ``engine`` generates with ``model`` (a
    :class:`~userbench_env.serve.engines.TransformersEngine` built on it); its prefix
    caches are dropped after each update; ``train_layers``: update only the top N
    decoder layers (gradients stop below them). Returns the step logs."""
    import torch

    from userbench_env.training.policy import LocalPolicyAgent
    from userbench_env.training.sft import train_only_top

    if train_layers:
        train_only_top(model, train_layers)

    rng = random.Random(seed)
    order = list(rows)
    rng.shuffle(order)
    session = EpisodeSession(**(env_kwargs or {}))
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=learning_rate, weight_decay=0.0)
    logs: list[GrpoStepLog] = []
    for step in range(steps):
        start = time.perf_counter()
        model.eval()
        batch = [order[(step * tasks_per_step + i) % len(order)] for i in range(tasks_per_step)]
        rollouts: list[tuple[Rollout, float]] = []
        groups_with_signal = 0
        for row in batch:
            played = []
            for g in range(group):
                agent = LocalPolicyAgent(engine, temperature=temperature, seed=seed + step * group + g,
                                         max_tokens=max_tokens, system_prompt=system_prompt, tool_names=tool_names)
                played.append(play_rollout(session, agent, {**row, "seed": g}, kind, gate))
            group_advantages = advantages([r.reward for r in played])
            groups_with_signal += any(a != 0.0 for a in group_advantages)
            rollouts += list(zip(played, group_advantages))
        model.train()
        learning = [(r, a) for r, a in rollouts if a != 0.0]
        loss_value = 0.0
        for rollout, advantage in learning:
            example = tokenize_chat(tokenizer, rollout.messages, rollout.tools, max_length)
            loss = -advantage * token_logprobs(model, example["input_ids"], example["labels"]).mean() / len(learning)
            loss.backward()
            loss_value += float(loss)
        if learning:
            torch.nn.utils.clip_grad_norm_(trained, 1.0)
            optimizer.step()
            optimizer.zero_grad()
            engine.forget_prefixes()
        model.eval()
        scored = [r.reward for r, _ in rollouts if r.reward is not None]
        unerrored = [r for r, _ in rollouts if not r.episode.get("error")]
        log = GrpoStepLog(
            step=step + 1, r_tau=statistics.fmean(score_episode(r.episode, "r_tau") or 0.0 for r in unerrored) if unerrored else 0.0,
            gated_share=1 - len(scored) / len(rollouts), groups_with_signal=groups_with_signal, loss=loss_value,
            tokens=sum(r.tokens for r, _ in rollouts), seconds=time.perf_counter() - start)
        logs.append(log)
        if on_step is not None:
            on_step(log)
    for parameter in model.parameters():
        parameter.requires_grad = True
    return logs
