"""Retail and banking: the scripted pair solves the tau2 base sets, and both envs pass check_env."""
from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from scripted_support import run_episode, scripted_misses

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.envs.conversation import ConversationEnv


@pytest.mark.parametrize("domain,count", [("retail", 114), ("banking", 97)])
def test_scripted_pair_solves_at_least_90_percent_excluding_nl(tau2_data, domain, count):
    env = ConversationEnv(domain, task_source="tau2")
    assert len(env.tasks) == count
    misses = scripted_misses(env)
    assert len(misses) <= count // 10, misses


def test_banking_user_writes_are_performed_through_the_user_tools(tau2_data):
    """Banking's gold user actions (direct and through ``call_discoverable_user_tool``) are real user calls."""
    env = ConversationEnv("banking", task_source="tau2")
    task = next(t for t in env.tasks if any(a.name == "call_discoverable_user_tool" for a in t.gold_actions))

    info = run_episode(env, task.id)
    calls = [c for m in env.messages if m.role == "user" and m.tool_calls for c in m.tool_calls]
    assert "call_discoverable_user_tool" in [c.name for c in calls]
    assert info["user_tool_calls"] == len(calls) and info["episode_record"]["probe"]["rate"] == 1.0


@pytest.mark.parametrize("env_id", ["UserBench/Retail-v0", "UserBench/Banking-v0"])
@pytest.mark.parametrize("source", ["tau2", "bundled"])
def test_check_env_passes(tau2_data, env_id, source):
    made = gym.make(env_id, task_source=source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*render fps.*")
        check_env(made.unwrapped)
