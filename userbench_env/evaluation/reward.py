"""R_tau of one finished episode, combined as tau2-bench does (spec section 4)."""
from __future__ import annotations

import math
import os
from typing import Any, Optional

from userbench_env.core.messages import Message
from userbench_env.core.task import Task
from userbench_env.evaluation.actions import action_checks
from userbench_env.evaluation.communicate import communicate_checks
from userbench_env.evaluation.environment import (
    assertion_results,
    predicted_world,
    reference_world,
    same_state,
)
from userbench_env.evaluation.nl_judge import JudgeSpec, judge_assertions
from userbench_env.evaluation.result import COMPONENT_KEYS, NLCheck, RewardResult

#: Terminations that are scored; anything else earns 0.
SCORED_TERMINATIONS = frozenset({"user_stop", "agent_stop"})


def _score(checks: list[bool]) -> float:
    return 1.0 if all(checks) else 0.0


def _product(factors: list[float]) -> float:
    return float(math.prod(factors))


def evaluate_episode(
    task: Task,
    messages: list[Message] | list[dict[str, Any]],
    termination: str,
    source: str = "bundled",
    include_nl: bool = True,
    judge: Optional[Any] = None,
    data_path: str | os.PathLike[str] | None = None,
) -> RewardResult:
    """Score one episode of ``task`` with tau2's task reward.

    ``messages`` is the whole transcript, starting with the task's message history if
    it has one: :class:`Message` objects or their dicts (as a run store's records hold
    them). Only ``user_stop``/``agent_stop`` are scored (else reward 0). A task
    without evaluation criteria scores 1. NL assertions are judged only when
    ``NL_ASSERTION`` is in the reward basis and ``include_nl`` is true: with ``judge``
    (a model string, dict or :class:`JudgeSpec`; ``"deferred"`` counts as none) one LLM
    call grades them; without one they are pending (``reward`` is ``None``,
    ``nl_pending`` true). A malformed judge reply raises ``JudgeReplyError``.
    """
    messages = [m if isinstance(m, Message) else Message.model_validate(m) for m in messages]
    spec = task.evaluation
    basis = list(spec.reward_basis) if spec is not None else []
    empty = dict.fromkeys(COMPONENT_KEYS)
    if termination not in SCORED_TERMINATIONS:
        return RewardResult(
            reward=0.0, reward_excluding_nl=0.0, reward_basis=basis, termination=termination,
            components=empty, note="terminated prematurely",
        )
    if spec is None:
        return RewardResult(
            reward=1.0, reward_excluding_nl=1.0, reward_basis=basis, termination=termination,
            components=empty, note="no evaluation criteria",
        )

    # DB and env assertions (skipped entirely when both lists are null)
    assertions = spec.env_assertions or []
    if spec.actions is None and spec.env_assertions is None:
        db_match, met = True, []
    else:
        world = predicted_world(task, messages, source, data_path)
        db_match = same_state(world, reference_world(task, source, data_path))
        met = assertion_results(world, assertions)
    db_reward = 1.0 if db_match else 0.0
    assertion_reward = _score(met)
    env_reward = _product(
        [f for kind, f in (("DB", db_reward), ("ENV_ASSERTION", assertion_reward)) if kind in basis]
    )

    gold = spec.actions or []
    acts = action_checks(gold, messages)
    infos = spec.communicate_info or []
    said = communicate_checks(infos, messages)

    factors = {"ACTION": _score(acts), "COMMUNICATE": _score(said)}
    excluding_nl = env_reward * _product([factors[k] for k in factors if k in basis])

    nl_checks: list[NLCheck] = []
    nl_reward: Optional[float] = None
    nl_pending = False
    nl_assertions = spec.nl_assertions or []
    if include_nl and "NL_ASSERTION" in basis:
        if not nl_assertions:
            nl_reward = 1.0
        elif judge is None or judge == "deferred":
            nl_pending = True
        else:
            nl_checks = judge_assertions(messages, nl_assertions, JudgeSpec.parse(judge))
            nl_reward = _score([c.met for c in nl_checks])
    if nl_pending:
        reward: Optional[float] = None
    elif nl_reward is not None:
        reward = excluding_nl * nl_reward
    else:
        reward = excluding_nl

    components = {
        "db": db_reward,
        "action": factors["ACTION"] if gold else None,
        "communicate": factors["COMMUNICATE"] if infos else None,
        "env_assertions": assertion_reward if assertions else None,
        "nl_assertions": nl_reward if nl_assertions else None,
    }
    return RewardResult(
        reward=reward,
        reward_excluding_nl=excluding_nl,
        reward_basis=basis,
        termination=termination,
        components=components,
        db_match=db_match,
        env_assertions_met=met,
        env_reward=env_reward,
        action_reward=factors["ACTION"],
        communicate_reward=factors["COMMUNICATE"],
        nl_reward=nl_reward,
        nl_pending=nl_pending,
        action_checks=acts,
        communicate_checks=said,
        nl_checks=nl_checks,
    )
