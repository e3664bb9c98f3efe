"""Gated rollout collection (``collect`` / ``acollect``) with real envs, policies and proxies."""
from __future__ import annotations

import asyncio

import pytest

from runner_support import BlurtingUser
from userbench_env.agents import ScriptedAgent
from userbench_env.runner import Gate, acollect, collect
from userbench_env.runner.store import EpisodeStore


def test_collect_with_a_faithful_user_keeps_every_episode(tmp_path) -> None:
    result = collect("UserBench/Retail-v0", ScriptedAgent, episodes=6, concurrency=3, seed=10, out=str(tmp_path / "r.jsonl"))
    records, rejected = result
    assert (len(records), rejected, result.errors) == (6, 0, [])
    assert [r["seed"] for r in records] == list(range(10, 16))
    assert all(r["reward"] == 1.0 and r["ufs_pass"] is True and r["messages"] for r in records)
    assert len(list(EpisodeStore(tmp_path / "r.jsonl").records())) == 6


def test_gate_rejects_premature_disclosure_and_counts_it() -> None:
    kwargs = {"user_proxy": BlurtingUser, "task_source": "bundled"}
    ungated = collect("UserBench/Retail-v0", "scripted", episodes=8, concurrency=4, gate=None, env_kwargs=kwargs)
    failing = [r for r in ungated.records if r["ufs_pass"] is False]
    assert failing and all(r["failures_per_family"]["premature_disclosure"] >= 1 for r in failing)
    gated = collect("UserBench/Retail-v0", "scripted", episodes=8, concurrency=4, gate="ufs", env_kwargs=kwargs)
    assert gated.rejected == len(failing) and len(gated.records) == 8 - len(failing)
    assert all(r["ufs_pass"] is not False for r in gated.records)
    other_family = collect("UserBench/Retail-v0", "scripted", episodes=8, concurrency=4,
                           gate=["goal_deviation"], env_kwargs=kwargs)
    assert other_family.rejected == 0
    strict = collect("UserBench/Retail-v0", "scripted", episodes=8, concurrency=4,
                     gate=Gate(families=("premature_disclosure",), reject_unknown=True), env_kwargs=kwargs)
    assert strict.rejected == len(failing) + sum(r["ufs_pass"] is None for r in ungated.records)


def test_async_collect_with_a_function_policy_from_a_running_loop() -> None:
    said: list[str] = []

    async def policy(observation, info):
        said.append(observation)
        await asyncio.sleep(0)
        return "Thank you, goodbye! ###STOP###"

    async def main():
        return await acollect("UserBench/Airline-v0", policy, episodes=4, concurrency=4, gate=None)

    result = asyncio.run(main())
    assert len(result.records) == 4 and result.rejected == 0
    assert all(r["termination"] == "agent_stop" and r["turns"] == 1 for r in result.records)
    assert len(said) == 4 and all(s.startswith("Hi.") for s in said)


def test_a_shared_proxy_object_is_refused_for_concurrent_episodes() -> None:
    with pytest.raises(ValueError, match="cannot be shared"):
        collect("UserBench/Retail-v0", "scripted", episodes=2, concurrency=2, env_kwargs={"user_proxy": BlurtingUser()})


def test_a_crashing_policy_is_an_error_record_not_an_exception() -> None:
    def broken(observation, info):
        raise RuntimeError("policy bug")

    result = collect("UserBench/Retail-v0", broken, episodes=2, concurrency=2)
    assert result.records == [] and result.rejected == 0
    assert [e["error"] for e in result.errors] == ["crash: RuntimeError: policy bug"] * 2
