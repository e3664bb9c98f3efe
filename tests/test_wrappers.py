"""The Gymnasium wrappers on real envs: fidelity gate and weight, recording, chat messages, tool-call parsing."""
from __future__ import annotations

import json

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401
from runner_support import BlurtingUser
from userbench_env.agents import ScriptedAgent
from userbench_env.runner.store import EpisodeStore
from userbench_env.tasks import load_tasks
from userbench_env.wrappers import (ChatMessages, FidelityGate, FidelityWeightedReward, ParseToolCalls, RecordEpisodes,
                                    parse_tool_calls, pass_fraction)


def _disclosing_task():
    """A retail task with a premature-disclosure criterion the blurting user breaks."""
    return load_tasks("retail", "bundled", None)[0]


def make(proxy=None, task=None):
    task = task or _disclosing_task()
    return gym.make("UserBench/Retail-v0", user_proxy=proxy or BlurtingUser(), task_id=task.id), task


def play(env, task):
    agent = ScriptedAgent()
    obs, info = env.reset(seed=0)
    agent.reset(task)
    while True:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        if terminated or truncated:
            return reward, info


def test_gate_zeroes_or_marks_a_ufs_failure() -> None:
    env, task = make()
    reward, info = play(env, task)
    assert reward == 1.0 and info["episode_record"]["ufs_pass"] is False  # the agent succeeded, the user did not
    zeroed, info = play(FidelityGate(make()[0]), task)
    assert zeroed == 0.0 and info["fidelity_gate"]["rejected"]
    assert info["fidelity_gate"]["reason"].startswith("failed UFS: premature_disclosure")
    marked, info = play(FidelityGate(make()[0], mode="mark"), task)
    assert marked == 1.0 and info["fidelity_gate"]["rejected"]
    other, info = play(FidelityGate(make()[0], families=["goal_deviation"]), task)
    assert other == 1.0 and info["fidelity_gate"] == {"rejected": False, "reason": None}
    faithful, info = play(FidelityGate(make(proxy="scripted")[0]), task)
    assert faithful == 1.0 and not info["fidelity_gate"]["rejected"]


def test_weighted_reward_is_the_pass_fraction_of_judged_criteria() -> None:
    env, task = make()
    reward, info = play(FidelityWeightedReward(env), task)
    criteria = info["episode_record"]["criteria"]
    verdicts = [c["verdict"] for c in criteria]
    by_hand = verdicts.count("pass") / (verdicts.count("pass") + verdicts.count("fail"))
    # the blurting user fails every disclosure criterion and only those; the rest pass or do not apply
    disclosures = [c for c in criteria if c["mode"] == "volunteers_unasked_info"]
    assert disclosures and all(c["verdict"] == "fail" for c in disclosures)
    assert {c["verdict"] for c in criteria if c["mode"] != "volunteers_unasked_info"} <= {"pass", "not_applicable"}
    assert 0 < by_hand < 1 and "not_applicable" in verdicts  # a proper fraction, not-applicable criteria left out
    assert info["fidelity_weight"] == pytest.approx(by_hand) and reward == pytest.approx(by_hand)
    assert pass_fraction({"criteria": [{"verdict": "not_applicable"}]}) == 1.0
    with pytest.raises(ValueError, match="in \\[0, 1\\]"):
        play(FidelityWeightedReward(make()[0], weight=lambda episode: 2.0), task)


def test_record_episodes_writes_one_run_record_per_episode(tmp_path) -> None:
    env, task = make(proxy="scripted")
    recorder = RecordEpisodes(env, tmp_path / "eps.jsonl", agent="oracle")
    play(recorder, task)
    play(recorder, task)
    records = list(EpisodeStore(tmp_path / "eps.jsonl").records())
    assert [r["key"] for r in records] == [f"UserBench/Retail-v0|scripted|oracle|{task.id}|{i}" for i in (0, 1)]
    assert all(r["reward"] == 1.0 and r["ufs_pass"] is True and r["task_id"] == task.id for r in records)
    assert records[0]["messages"][0]["content"] == "Hi! How can I help you today?"
    assert records[0]["turns"] == len([m for m in records[0]["messages"] if m["role"] == "assistant"]) - 1  # not the greeting


def test_chat_messages_show_the_agent_view_with_tools() -> None:
    task = next(t for t in load_tasks("retail", "bundled", None) if t.gold_actions)
    env = ChatMessages(gym.make("UserBench/Retail-v0", task_id=task.id))
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert obs["tools"] == info["tools"] and obs["messages"][0] == {"role": "system", "content": info["system_prompt"]}
    assert [m["role"] for m in obs["messages"]] == ["system", "assistant", "user"]
    action = json.dumps({"name": task.gold_actions[0].name, "arguments": task.gold_actions[0].arguments})
    obs, *_ = env.step(action)
    call, result = obs["messages"][-2:]
    assert call["role"] == "assistant" and call["tool_calls"][0]["function"]["name"] == task.gold_actions[0].name
    assert json.loads(call["tool_calls"][0]["function"]["arguments"]) == task.gold_actions[0].arguments
    assert result["role"] == "tool" and result["tool_call_id"] == call["tool_calls"][0]["id"]
    obs, *_ = env.step("")  # invalid action: the env's error is shown as a system message
    assert obs["messages"][-1]["role"] == "system" and obs["messages"][-1]["content"].startswith("Error: invalid action")


def test_chat_messages_hide_the_users_own_tool_calls() -> None:
    task = next(t for t in load_tasks("telecom", "bundled", None) if any(a.requestor == "user" for a in t.gold_actions))
    env = ChatMessages(gym.make("UserBench/Telecom-v0", task_id=task.id))
    agent = ScriptedAgent()
    obs, info = env.reset(seed=0)
    agent.reset(task)
    done = False
    while not done:
        obs, reward, terminated, truncated, info = env.step(agent.act(obs, info))
        done = terminated or truncated
    transcript = env.unwrapped.messages
    assert any(m.role == "user" and m.tool_calls for m in transcript)
    assert not any(m["role"] == "user" and m.get("tool_calls") for m in obs["messages"])
    user_ids = {m.tool_call_id for m in transcript if m.role == "tool" and m.requestor == "user"}
    assert not any(m.get("tool_call_id") in user_ids for m in obs["messages"])


@pytest.mark.parametrize("text", [
    'Let me look. <tool_call>{"name": "get_user_details", "arguments": {"user_id": "U1"}}</tool_call>',
    '<function=get_user_details>{"user_id": "U1"}</function>',
    '[TOOL_CALLS] [{"name": "get_user_details", "arguments": {"user_id": "U1"}}]',
    'Checking:\n```json\n{"name": "get_user_details", "arguments": {"user_id": "U1"}}\n```',
])
def test_tool_call_markup_becomes_an_openai_call(text) -> None:
    action = parse_tool_calls(text)
    assert action["tool_calls"][0]["function"] == {"name": "get_user_details", "arguments": '{"user_id": "U1"}'}
    assert parse_tool_calls("Just text, {not a call}.") == "Just text, {not a call}."


def test_parse_tool_calls_wrapper_runs_calls_and_reports_broken_markup() -> None:
    task = next(t for t in load_tasks("retail", "bundled", None) if t.gold_actions)
    gold = task.gold_actions[0]
    env = ParseToolCalls(gym.make("UserBench/Retail-v0", task_id=task.id))
    env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step(
        f'I will check. <tool_call>{json.dumps({"name": gold.name, "arguments": gold.arguments})}</tool_call>')
    assert info["agent_tool_calls"] == 1 and not obs.startswith("Error: invalid action")
    obs, reward, terminated, truncated, info = env.step('<tool_call>{"name": "get_order_details", "arguments": {oops</tool_call>')
    assert obs.startswith("Error: invalid action: arguments of 'get_order_details' are not valid JSON")
    assert info["invalid_actions"] == 1 and info["agent_tool_calls"] == 1
