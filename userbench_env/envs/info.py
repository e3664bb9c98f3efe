"""The info contract of the conversation envs: flat, picklable dicts (ARCHITECTURE section 5).

Every step reports the episode's counters and rule-check state (:func:`step_info`); the
terminal step adds ``episode`` (:func:`episode_summary`), a plain dict of plain values.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from userbench_env.fidelity.scoring import episode_verdict, suspect_count


@dataclass
class Counters:
    """Per-episode counters reported in every step's info."""

    turn: int = 0
    agent_tool_calls: int = 0
    user_tool_calls: int = 0
    tool_errors: int = 0
    invalid_actions: int = 0
    agent_questions: int = 0


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
