"""The info contract of the conversation envs: flat, picklable dicts (ARCHITECTURE section 5).

Every step reports the episode's counters and rule-check state (:func:`step_info`); the
terminal step adds ``episode_record`` (:func:`episode_summary`), a plain dict of plain values.

Who an ending is charged to: an infrastructure error (``error`` set: the proxy could not
produce a valid turn, the judge failed) is nobody's and is excluded from every rate; a
*user failure* (termination :data:`USER_FAILURE`: the user's tool calls failed
``max_errors`` times, e.g. a user looping on tool calls past its per-turn budget) is the
user's: it fails the env-decided criterion :func:`user_failure_verdict` (family
``goal_deviation``, mode ``never_answers_agent``) and the agent gets no R_tau
(``reward`` and ``reward_excluding_nl`` are ``None``; the step's reward is 0.0, a
float as Gymnasium requires, and carries no signal: see :func:`agent_scored`).
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from userbench_env.fidelity.scoring import episode_verdict, suspect_count
from userbench_env.fidelity.taxonomy import TAXONOMY

#: the termination of an episode the user ended by its own failure (module docstring)
USER_FAILURE = "user_failure"
#: the taxonomy mode a user failure fails
USER_FAILURE_MODE = TAXONOMY["never_answers_agent"]


@dataclass
class Counters:
    """Per-episode counters reported in every step's info."""

    turn: int = 0
    agent_tool_calls: int = 0
    user_tool_calls: int = 0
    tool_errors: int = 0  # the agent's and the user's (invalid actions included)
    user_tool_errors: int = 0  # the user's part of tool_errors
    invalid_actions: int = 0
    agent_questions: int = 0

    @property
    def agent_errors(self) -> int:
        """The agent's tool errors and invalid actions (what ``max_errors`` bounds for the agent)."""
        return self.tool_errors - self.user_tool_errors


def user_failure_verdict(turn: int, reason: str) -> dict[str, Any]:
    """The failed criterion of a user failure (a verdict dict like the rule tracker's), at ``turn``."""
    mode = USER_FAILURE_MODE
    return {"id": f"{mode.family}/{mode.name}", "family": mode.family, "mode": mode.name, "verdict": "fail",
            "evidence_turn": turn, "source": "env", "reason": reason}


def agent_scored(episode: Mapping[str, Any]) -> bool:
    """True when the episode scores the agent: neither an infrastructure error nor a user failure."""
    return not episode.get("error") and episode.get("termination") != USER_FAILURE


def step_info(counters: Counters, violations: list[str], suspects: int = 0) -> dict[str, Any]:
    """The per-step info: counters, ``ufs_failed_so_far``, ``ufs_violations`` (a copy) and
    ``ufs_suspects`` (how many criteria are suspect so far: possible violations a rule could
    not be sure of, which do not fail UFS without a judge)."""
    info: dict[str, Any] = dict(vars(counters))  # flat ints: a shallow copy is asdict, cheaper
    info["ufs_failed_so_far"] = bool(violations)
    info["ufs_violations"] = list(violations)
    info["ufs_suspects"] = suspects
    return info


def episode_summary(
    *,
    task_id: str,
    termination: str,
    reward: float | None,
    reward_excluding_nl: float | None,
    nl_pending: bool,
    reward_components: dict[str, float | None],
    criteria: list[dict[str, Any]],
    proxy: dict[str, Any],
    usage: dict[str, Any],
    error: str | None,
    probe: dict[str, Any] | None = None,
    injections: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    """The terminal ``info["episode_record"]`` dict: reward, fidelity verdicts (``ufs_pass``;
    ``ufs_suspects``, the suspect verdicts, and ``ufs_pass_strict``, the verdict reading them
    as failures), the user-action
    probe (:mod:`userbench_env.fidelity.probe`, beside UFS), provenance, cost; ``injections``
    (a perturbed proxy's ground truth, ``[{"turn", "mode"}, ...]``) when given. ``criteria``
    must be dicts the caller hands over (they are kept, not copied)."""
    ufs_pass, failures = episode_verdict(criteria)
    suspects = suspect_count(criteria)
    summary = {
        "task_id": task_id,
        "termination": termination,
        "reward": reward,
        "reward_excluding_nl": reward_excluding_nl,
        "nl_pending": nl_pending,
        "reward_components": dict(reward_components),
        "ufs_pass": ufs_pass,
        "ufs_suspects": suspects,
        "ufs_pass_strict": episode_verdict(criteria, suspects="fail")[0] if suspects else ufs_pass,
        "criteria": list(criteria),  # fresh verdict dicts (RuleTracker.verdicts): kept, not copied
        "failures_per_family": failures,
        "probe": dict(probe) if probe is not None else None,
        "user_proxy": dict(proxy),
        "user_prompt_tokens": int(usage.get("prompt_tokens", 0)),
        "user_completion_tokens": int(usage.get("completion_tokens", 0)),
        "user_cost_usd": float(usage.get("cost_usd", 0.0)),
        "error": error,
    }
    if injections is not None:
        summary["injections"] = [dict(i) for i in injections]
    return summary
