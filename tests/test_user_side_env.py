"""The user-side UserSideEnv: contract, fidelity reward, user tools, termination, errors, async."""
from __future__ import annotations

import asyncio
import json
import pickle
import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import AgentError, ScriptedAgent
from userbench_env.agents.scripted import CLOSING
from userbench_env.envs.conversation import GREETING
from userbench_env.envs.user_side import ProxyPolicy, UserSideEnv
from userbench_env.proxies.prompt import render_scenario

STEP_KEYS = {"turn", "agent_tool_calls", "user_tool_calls", "tool_errors", "invalid_actions", "agent_questions",
             "ufs_failed_so_far", "ufs_violations"}
TELECOM_TASK = "[mobile_data_issue]airplane_mode_on|data_mode_off[PERSONA:None]"


def _env(domain: str = "airline", **kwargs) -> UserSideEnv:
    return UserSideEnv(domain, task_source="tau2", **kwargs)


def play(env: UserSideEnv, policy, task_id: str, first: str | None = None) -> tuple[float, dict]:
    """One episode of ``policy`` (``first`` replaces its opening); the last reward and info."""
    observation, info = env.reset(options={"task_id": task_id})
    policy.reset(env.task)
    done, opening = False, True
    while not done:
        action = policy.act(observation, info)
        if opening and first is not None:
            action = first
        opening = False
        observation, reward, terminated, truncated, info = env.step(action)
        done = terminated or truncated
    return reward, info


@pytest.mark.parametrize("domain,source", [("airline", "tau2"), ("airline", "bundled"), ("telecom", "tau2"),
                                           ("telecom", "bundled"), ("retail", "bundled"), ("banking", "tau2")])
def test_check_env_passes(domain, source):
    env = gym.make(f"UserBench/{domain.title()}-User-v0", task_source=source)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*render fps.*")
        check_env(env.unwrapped)


def test_reset_returns_the_greeting_and_the_users_setup():
    env = _env()
    observation, info = env.reset(options={"task_id": "0"})
    assert observation == GREETING == "Hi! How can I help you today?"
    assert STEP_KEYS <= set(info) and info["turn"] == 0 and info["task_id"] == "0"
    assert info["instructions"] == render_scenario(env.task) and "You want to cancel reservation EHGLP3" in info["instructions"]
    assert info["system_prompt"].endswith(f"<scenario>\n{info['instructions']}\n</scenario>")
    assert info["tools"] == []  # airline customers have no tools
    telecom = _env("telecom")
    _, info = telecom.reset(options={"task_id": TELECOM_TASK})
    assert {"toggle_airplane_mode", "check_status_bar"} <= {t["function"]["name"] for t in info["tools"]}


def test_text_goes_to_the_agent_whose_tool_calls_stay_hidden():
    env = _env()
    env.reset(options={"task_id": "7"})
    observation, reward, terminated, truncated, info = env.step("Hi, I need to change some reservations.")
    assert observation == "Here is the information you asked for: 1628."  # the agent's first text
    assert (reward, terminated, truncated) == (0.0, False, False)
    assert info["agent_tool_calls"] == 5 and info["turn"] == 6 and info["user_tool_calls"] == 0
    assert [m.role for m in env.messages[:2]] == ["assistant", "user"]


def test_faithful_scripted_user_scores_fidelity_one_on_airline():
    env = _env()
    policy = ProxyPolicy("scripted")
    misses = []
    for task in env.tasks:
        reward, info = play(env, policy, task.id)
        episode = info["episode_record"]
        assert episode["error"] is None and episode["reward"] == reward
        if reward != 1.0:
            misses.append((task.id, episode["termination"], episode["failures_per_family"]))
    assert len(env.tasks) == 50 and len(misses) <= 2, misses  # measured: 50 of 50


def test_dumping_every_known_value_up_front_is_premature_disclosure():
    env = _env()
    policy = ProxyPolicy("scripted")
    penalised = 0
    for task in env.tasks:
        values = "; ".join(f"{item.kind}: {item.value}" for item in task.blueprint.known_info)
        reward, info = play(env, policy, task.id, first=f"Hi. I need help. Everything you may need: {values}")
        episode = info["episode_record"]
        if reward == 0.0 and episode["ufs_pass"] is False and "premature_disclosure" in episode["failures_per_family"]:
            penalised += 1
            assert any(c["family"] == "premature_disclosure" and c["verdict"] == "fail" and c["evidence_turn"] == 0
                       for c in episode["criteria"])
    assert penalised >= 48  # measured: 50 of 50


def test_episode_carries_fidelity_reward_task_reward_and_agent_provenance():
    env = _env()
    reward, info = play(env, ProxyPolicy("scripted"), "7")
    episode = info["episode_record"]
    assert reward == episode["reward"] == 1.0 and episode["ufs_pass"] is True
    assert episode["task_reward"] == 1.0 and episode["reward_components"]["communicate"] == 1.0
    assert "task_reward_excluding_nl" in episode and "reward_excluding_nl" not in episode
    assert episode["agent"] == {"name": "scripted-oracle", "model": None} and episode["agent_cost_usd"] == 0.0
    assert episode["user_proxy"]["name"] == "policy"
    assert {c["verdict"] for c in episode["criteria"]} <= {"pass", "not_applicable"}
    pickle.loads(pickle.dumps(info))


def test_user_tool_calls_run_in_the_world_and_answer_the_user_only():
    env = _env("telecom")
    env.reset(options={"task_id": TELECOM_TASK})
    observation, reward, terminated, truncated, info = env.step('{"name": "check_status_bar", "arguments": {}}')
    assert "Airplane Mode" in observation and not terminated
    assert info["user_tool_calls"] == 1 and info["turn"] == 0 and info["agent_tool_calls"] == 0
    call = env.messages[-2].tool_calls[0]
    assert call.requestor == "user" and env.messages[-1].tool_call_id == call.id and env.messages[-1].content == observation
    # OpenAI-style message dicts work too, and a missing tool is an error result, not a crash
    observation, *_, info = env.step({"role": "assistant", "content": None, "tool_calls": [
        {"type": "function", "function": {"name": "no_such_tool", "arguments": "{}"}}]})
    assert observation.startswith("Error") and info["tool_errors"] == 1


def test_telecom_episode_performs_the_gold_user_writes():
    env = _env("telecom")
    reward, info = play(env, ProxyPolicy("scripted"), TELECOM_TASK)
    episode = info["episode_record"]
    assert reward == 1.0 and episode["task_reward"] == 1.0 and info["user_tool_calls"] >= 2
    assert episode["probe"]["rate"] == 1.0 and episode["probe"]["missing"] == []


@pytest.mark.parametrize("bad", ["", "   ", '{"name": ', json.dumps([{"name": "a"}, {"name": "b"}]), 42])
def test_invalid_actions_get_an_error_observation_and_count(bad):
    env = _env()
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step(bad)
    assert observation.startswith("Error: invalid action: ") and not terminated
    assert info["invalid_actions"] == 1 and info["tool_errors"] == 1 and info["turn"] == 0
    observation, *_ = env.step("Hi. I want to cancel a reservation.")  # the episode goes on
    assert observation == CLOSING  # the scripted oracle's closing


def test_too_many_invalid_actions_terminate():
    env = _env(max_errors=3)
    env.reset(options={"task_id": "0"})
    for _ in range(3):
        observation, reward, terminated, truncated, info = env.step("")
    assert terminated and reward == 0.0 and info["episode_record"]["termination"] == "too_many_errors"
    assert env.step("hello") == ("", 0.0, True, False, env._info())


def test_the_policys_stop_token_ends_the_episode():
    env = _env()
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step("Never mind, bye. ###STOP###")
    assert terminated and not truncated and observation == ""
    assert info["episode_record"]["termination"] == "user_stop" and env.messages[-1].content == "Never mind, bye. ###STOP###"


class Quitter:
    """An agent that hangs up at once."""

    name = "quitter"

    def reset(self, task) -> None:
        pass

    def act(self, observation, info) -> str:
        return "I cannot help with that. Goodbye. ###STOP###"


def test_agent_stop_shows_its_last_message():
    env = _env(agent=Quitter())
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step("Hi. I want to cancel my reservation.")
    assert terminated and observation == "I cannot help with that. Goodbye. ###STOP###"
    assert info["episode_record"]["termination"] == "agent_stop" and info["episode_record"]["agent"]["name"] == "quitter"


class Chatter(ScriptedAgent):
    """Never closes the conversation."""

    def act(self, observation, info) -> str:
        return "Let me look into it."


def test_turn_budget_truncates():
    env = _env(agent=Chatter(), max_turns=2)
    env.reset(options={"task_id": "0"})
    assert env.step("Hi.")[2:4] == (False, False)  # agent turn 1 waits for the user
    assert env.step("Okay.")[2:4] == (False, False)  # closes turn 1; agent turn 2 waits
    observation, reward, terminated, truncated, info = env.step("Fine.")  # closes turn 2: the budget
    assert truncated and not terminated and info["episode_record"]["termination"] == "max_turns"
    # the reward scores the user's turns, not the outcome: faithful turns keep it at 1
    assert reward == info["episode_record"]["reward"] == 1.0 and info["episode_record"]["task_reward"] == 0.0


class Broken(ScriptedAgent):
    def act(self, observation, info):
        raise AgentError("provider down")


def test_agent_error_is_raised_by_default():
    env = _env(agent=Broken())
    env.reset(options={"task_id": "0"})
    with pytest.raises(AgentError, match="provider down"):
        env.step("Hi.")


def test_agent_error_is_flagged_not_raised_under_record():
    env = _env(agent=Broken(), on_proxy_error="record")
    env.reset(options={"task_id": "0"})
    observation, reward, terminated, truncated, info = env.step("Hi.")
    assert terminated and reward == 0.0 and observation == ""
    assert info["episode_record"]["error"] == "AgentError: provider down" and info["episode_record"]["termination"] == "error"


class AsyncScripted(ScriptedAgent):
    """An agent with a native ``aact`` whose ``act`` must not be used."""

    def act(self, observation, info):
        raise AssertionError("sync path used")

    async def aact(self, observation, info):
        await asyncio.sleep(0)
        return ScriptedAgent.act(self, observation, info)


def test_async_api_drives_async_agents():
    async def main():
        env = _env(agent=AsyncScripted())
        policy = ProxyPolicy("scripted")
        observation, info = await env.areset(options={"task_id": "3"})
        policy.reset(env.task)
        done = False
        while not done:
            observation, reward, terminated, truncated, info = await env.astep(await policy.aact(observation, info))
            done = terminated or truncated
        return reward, info

    reward, info = asyncio.run(main())
    assert reward == 1.0 and info["episode_record"]["termination"] == "user_stop"


def test_env_ids_and_options():
    for title in ("Airline", "Retail", "Telecom", "Banking"):
        assert gym.spec(f"UserBench/{title}-User-v0").kwargs == {"domain": title.lower()}
    env = gym.make("UserBench/Airline-User-v0", task_source="tau2", agent="scripted", max_turns=7).unwrapped
    assert isinstance(env.agent, ScriptedAgent) and env.max_turns == 7
    with pytest.raises(TypeError, match="user_proxy"):
        UserSideEnv("airline", user_proxy="scripted")
    with pytest.raises(ValueError, match="unknown agent spec"):
        UserSideEnv("airline", agent="nobody")


def test_sync_vector_env():
    envs = gym.vector.SyncVectorEnv([lambda: gym.make("UserBench/Airline-User-v0", task_source="tau2")] * 2)
    observations, infos = envs.reset(seed=5)
    assert list(observations) == [GREETING, GREETING]
    observations, rewards, terminated, truncated, infos = envs.step(("Hi, I need help. ###STOP###",) * 2)
    assert all(terminated) and list(infos["episode_record"]["termination"]) == ["user_stop", "user_stop"]
    envs.close()
