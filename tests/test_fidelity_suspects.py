"""Suspect verdicts (issue 22): a rule that cannot be sure marks its criterion ``suspect``
with the evidence turn and why; without a judge it does not fail UFS; info, episode
records, summaries and gates show it, and the strict reading fails on it."""
from __future__ import annotations

import gymnasium as gym

import userbench_env  # noqa: F401
from userbench_env.fidelity import ufs_summary
from userbench_env.fidelity.outcomes import insists
from userbench_env.fidelity.text import reason_parts, scenario_text
from userbench_env.proxies.replay import ReplayUserProxy
from userbench_env.runner.gate import Gate
from userbench_env.tasks import load_tasks
from userbench_env.wrappers import FidelityGate


def _task_with_a_fallback() -> str:
    """An airline task whose reason for calling holds a fallback and that does not say to insist."""
    return next(t.id for t in load_tasks("airline", source="tau2", split="base")
                if reason_parts(t.blueprint)[1] and not insists(scenario_text(t.blueprint)))


def _make(**options):
    """An airline env whose user opens briefly and stops at the agent's first answer."""
    user = ReplayUserProxy([{"text": "Hi, I need help with my reservation."}, {"text": "Ok, thanks. ###STOP###"}])
    return gym.make("UserBench/Airline-v0", task_source="tau2", user_proxy=user, **options)


def _episode(env) -> dict:
    """The user, told at once that its request cannot be done, stops: its fallback unraised."""
    env.reset(options={"task_id": _task_with_a_fallback()})
    *_, info = env.step("I'm sorry, I can't do that. Is there anything else I can help you with?")
    return info


def test_a_suspect_shows_in_info_record_summary_and_gates_and_fails_only_the_strict_reading():
    info = _episode(_make())
    assert info["ufs_suspects"] == 1 and info["ufs_violations"] == []
    record = info["episode_record"]
    suspect = [c for c in record["criteria"] if c["verdict"] == "suspect"]
    assert [c["mode"] for c in suspect] == ["premature_stop"]
    assert suspect[0]["evidence_turn"] == 1 and "fallback" in suspect[0]["why"] and suspect[0]["statement"]
    assert (record["ufs_pass"], record["ufs_suspects"], record["ufs_pass_strict"]) == (True, 1, False)
    summary = ufs_summary([record])
    assert (summary["ufs"], summary["ufs_strict"], summary["suspects"], summary["suspect_episodes"]) == (1.0, 0.0, 1, 1)
    assert not Gate().rejects(record) and Gate(suspects="fail").reason(record) == "suspect (strict reading): goal_deviation"
    assert not Gate(families=("groundedness",), suspects="fail").rejects(record)
    for suspects, rejected in (("pass", False), ("fail", True)):
        info = _episode(FidelityGate(_make(), suspects=suspects, mode="mark"))
        assert info["fidelity_gate"]["rejected"] is rejected
