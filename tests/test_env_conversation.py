"""The agent-side ConversationEnv: contract, action forms, termination, info, vectorization."""
from __future__ import annotations

import asyncio
import json
import pickle
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.envs.actions import parse_action
from userbench_env.envs.conversation import GREETING, ConversationEnv
from userbench_env.proxies.base import ProxyError, UserTurn, UserView
from userbench_env.proxies.scripted import ScriptedUserProxy

STEP_KEYS = {"turn", "agent_tool_calls", "user_tool_calls", "tool_errors", "agent_questions", "ufs_failed_so_far", "ufs_violations"}


def _env(**kwargs) -> ConversationEnv:
    return ConversationEnv("airline", task_source="tau2", **kwargs)


@pytest.mark.parametrize("source", ["tau2", "bundled"])
def test_check_env_passes(source):
    env = gym.make("UserBench/Airline-v0", task_source=source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*render fps.*")
        check_env(env.unwrapped)


def test_reset_returns_the_opening_and_agent_setup():
    env = _env()
    observation, info = env.reset(options={"task_id": "0"})
    assert observation.startswith("Hi. I want to cancel reservation EHGLP3.")
    assert env.messages[0].content == GREETING == "Hi! How can I help you today?"
    assert info["task_id"] == "0"
    names = {t["function"]["name"] for t in info["tools"]}
    assert {"get_user_details", "cancel_reservation"} <= names
    assert "<policy>" in info["system_prompt"] and env.world.policy in info["system_prompt"]
    assert STEP_KEYS <= set(info) and info["turn"] == 0


def test_seeded_reset_is_reproducible_and_samples_the_split():
    env = _env()
    first = [env.reset(seed=s)[0] for s in range(5)]
    again = [env.reset(seed=s)[0] for s in range(5)]
    assert first == again
    assert len({env.reset(seed=s)[1]["task_id"] for s in range(30)}) > 5


@pytest.mark.parametrize(
    "action",
    [
        '{"name": "get_user_details", "arguments": {"user_id": "emma_kim_9957"}}',
        [{"name": "get_user_details", "arguments": {"user_id": "emma_kim_9957"}}],
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_user_details", "arguments": '{"user_id": "emma_kim_9957"}'}}]},
    ],
)
def test_tool_call_forms_run_against_the_world_without_the_user(action):
    env = _env()
    env.reset(options={"task_id": "0"})
    n_user = sum(m.role == "user" for m in env.messages)
    observation, reward, terminated, truncated, info = env.step(action)
    assert json.loads(observation)["user_id"] == "emma_kim_9957"
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["agent_tool_calls"] == 1 and info["turn"] == 1
    assert sum(m.role == "user" for m in env.messages) == n_user


def test_several_calls_give_a_json_list_and_errors_are_counted():
    env = _env()
    env.reset(options={"task_id": "0"})
    observation, *_, info = env.step(json.dumps([
        {"name": "get_reservation_details", "arguments": {"reservation_id": "EHGLP3"}},
        {"name": "get_reservation_details", "arguments": {"reservation_id": "NOPE00"}}]))
    results = json.loads(observation)
    assert [r["error"] for r in results] == [False, True]
    assert results[1]["content"] == "Error: Reservation NOPE00 not found"
    assert info["agent_tool_calls"] == 2 and info["tool_errors"] == 1


@pytest.mark.parametrize("bad", ["", "   ", '{"name": ', '{"arguments": {}}', '{"name": "x", "arguments": "[1]"}', 42])
def test_malformed_actions_get_an_error_observation(bad):
    env = _env()
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step(bad)
    assert observation.startswith("Error: invalid action: ")
    assert info["invalid_actions"] == 1 and info["tool_errors"] == 1 and not terminated


def test_parse_action_keeps_text_beside_tool_calls():
    parsed = parse_action({"role": "assistant", "content": "Checking.", "tool_calls": [{"function": {"name": "a", "arguments": ""}}]})
    assert parsed.text == "Checking." and parsed.calls[0].name == "a" and parsed.calls[0].arguments == {}
    assert parse_action("[not json").text == "[not json"


def test_too_many_errors_terminates_with_reward_zero():
    env = _env()
    env.reset(options={"task_id": "0"})
    for _ in range(10):
        observation, reward, terminated, truncated, info = env.step('{"name": "no_such_tool", "arguments": {}}')
    assert terminated and not truncated and reward == 0.0
    assert info["episode_record"]["termination"] == "too_many_errors" and info["tool_errors"] == 10
    assert env.step("hello")[2] is True


def test_turn_budget_truncates():
    env = _env(max_turns=2)
    env.reset(options={"task_id": "0"})
    env.step("Let me look into it.")
    _, reward, terminated, truncated, info = env.step("Still looking.")
    assert truncated and not terminated and reward == 0.0
    assert info["episode_record"]["termination"] == "max_turns"


def test_agent_stop_token_ends_the_episode():
    env = _env()
    env.reset(options={"task_id": "0"})
    _, reward, terminated, _, info = env.step("Goodbye. ###STOP###")
    assert terminated and info["episode_record"]["termination"] == "agent_stop"
    assert reward == 1.0  # task 0: nothing may change, nothing to communicate


class _Failing(ScriptedUserProxy):
    def respond(self, view: UserView) -> UserTurn:
        if view.turn >= 1:
            raise ProxyError("provider down")
        return super().respond(view)


def test_proxy_error_is_recorded_in_the_episode_under_record():
    env = _env(user_proxy=_Failing(), on_proxy_error="record")
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step("How can I help?")
    assert terminated and reward == 0.0 and observation == ""
    assert info["episode_record"]["error"] == "ProxyError: provider down" and info["episode_record"]["termination"] == "error"


def test_proxy_error_is_raised_by_default_and_the_episode_is_over():
    env = _env(user_proxy=_Failing())
    env.reset(options={"task_id": "0"})
    with pytest.raises(ProxyError, match="provider down"):
        env.step("How can I help?")
    observation, reward, terminated, truncated, info = env.step("Still there?")  # the ended episode stays ended
    assert terminated and observation == "" and info["episode_record"]["termination"] == "error"


def test_bad_on_proxy_error_is_refused():
    with pytest.raises(ValueError, match="on_proxy_error"):
        _env(on_proxy_error="ignore")


class _ToolLooper(ScriptedUserProxy):
    """Keeps calling a tool it does not have."""

    def respond(self, view: UserView) -> UserTurn:
        if view.turn == 0:
            return super().respond(view)
        from userbench_env.core.messages import ToolCall

        return UserTurn(tool_call=ToolCall(name="toggle_data", requestor="user"))


def test_user_tool_calls_are_counted_capped_and_hidden_from_the_agent():
    env = _env(user_proxy=_ToolLooper(), max_user_tool_calls=3)
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step("Can you check?")
    assert info["user_tool_calls"] == 10 and info["tool_errors"] == info["user_tool_errors"] == 10
    # the user's loop is the user's failure (issue 25), not the agent's too_many_errors with R_tau 0
    assert terminated and info["episode_record"]["termination"] == "user_failure" and reward == 0.0
    assert info["episode_record"]["reward"] is None and info["episode_record"]["ufs_pass"] is False
    assert observation == ""


def test_info_is_flat_and_picklable():
    env = _env()
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": "7"})
    agent.reset(env.task)
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
        done = terminated or truncated
        pickle.loads(pickle.dumps(info))
    episode = info["episode_record"]
    assert reward == 1.0 and episode["reward"] == 1.0
    assert set(episode) >= {"task_id", "termination", "reward_components", "ufs_pass", "criteria", "failures_per_family",
                            "probe", "user_proxy", "user_prompt_tokens", "user_completion_tokens", "user_cost_usd", "error"}
    assert episode["user_proxy"]["name"] == "scripted"

    def plain(value):
        if isinstance(value, dict):
            return all(isinstance(k, str) and plain(v) for k, v in value.items())
        if isinstance(value, list):
            return all(plain(v) for v in value)
        return value is None or isinstance(value, (str, int, float, bool))

    assert plain({k: v for k, v in info.items()})


class _AsyncScripted(ScriptedUserProxy):
    """A proxy with a native ``arespond`` whose ``respond`` must not be used."""

    def respond(self, view: UserView) -> UserTurn:
        raise AssertionError("sync path used")

    async def arespond(self, view: UserView) -> UserTurn:
        await asyncio.sleep(0)
        return ScriptedUserProxy.respond(self, view)


def test_async_api_drives_async_proxies():
    async def main():
        env = _env(user_proxy=_AsyncScripted())
        agent = ScriptedAgent()
        observation, info = await env.areset(options={"task_id": "3"})
        agent.reset(env.task)
        done = False
        while not done:
            observation, reward, terminated, truncated, info = await env.astep(agent.act(observation, info))
            done = terminated or truncated
        return reward, info

    reward, info = asyncio.run(main())
    assert reward == 1.0 and info["episode_record"]["termination"] == "user_stop"


def _make():
    return gym.make("UserBench/Airline-v0", task_source="tau2", max_turns=6)


def test_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([_make, _make])
    observations, infos = envs.reset(seed=3)
    assert all(isinstance(o, str) and o.startswith("Hi.") for o in observations)
    observations, rewards, *_ = envs.step(("Could you please tell me your user id?",) * 2)
    assert all(o.startswith("My user id is ") for o in observations)
    envs.close()


def test_async_vector_env_runs_eight_episodes():
    envs = gym.vector.AsyncVectorEnv([_make, _make], shared_memory=False)
    envs.reset(seed=11)
    finished = []
    # (the closing reports the request done: a bare "anything else?" no longer ends the scripted user's episode)
    actions = ("Could you please tell me your user id?", "All done. Is there anything else I can help you with?")
    step = 0
    while len(finished) < 8:
        _, rewards, terminated, truncated, infos = envs.step((actions[step % 2],) * 2)
        step += 1
        for i in range(2):
            if terminated[i] or truncated[i]:
                # gymnasium stacks nested info dicts key by key
                finished.append({k: infos["episode_record"][k][i] for k in ("task_id", "termination", "error")})
    envs.close()
    assert all(e["termination"] == "user_stop" and e["error"] is None for e in finished)
    assert len({e["task_id"] for e in finished}) > 1


def test_async_vector_env_with_shared_memory_says_how_to_fix_it():
    with pytest.raises(ValueError, match="shared_memory=False"):
        gym.vector.AsyncVectorEnv([_make, _make])
