"""Telecom dual control in UserBench/Telecom-v0: the user acts on the phone, the env runs and counts it."""
from __future__ import annotations

import warnings

import gymnasium as gym
import pytest
from gymnasium.utils.env_checker import check_env
from scripted_support import run_episode, scripted_misses

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.agents.scripted import user_action_request
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.proxies.base import UserTurn, UserView
from userbench_env.proxies.llm import LLMUserProxy
from userbench_env.proxies.scripted import ScriptedUserProxy
from userbench_env.serve import ChatServer, ScriptedUserResponder

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

ACK = "OK, I have done what you asked."


class RecordingProxy(ScriptedUserProxy):
    """The scripted user that keeps every view it gets and answers a tool result with a fixed text."""

    def __init__(self) -> None:
        super().__init__()
        self.views: list[UserView] = []

    def respond(self, view: UserView) -> UserTurn:
        self.views.append(view.model_copy(deep=True))
        last = view.messages[-1]
        if last.role == "tool":
            return UserTurn(text=ACK)
        return super().respond(view)


def _user_writes(task) -> list[str]:
    return [a.name for a in task.gold_actions if a.requestor == "user"]


@pytest.fixture(scope="module")
def env(tau2_data) -> ConversationEnv:
    return ConversationEnv("telecom", task_source="tau2")


@pytest.fixture(scope="module")
def busy_task(env):
    """A base task whose gold solution has the agent *and* the user act, the user at least three times."""
    return next(t for t in env.tasks if len(_user_writes(t)) >= 3 and any(a.requestor == "assistant" for a in t.gold_actions))


def test_user_tool_calls_are_executed_and_counted_per_step(env, busy_task):
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": busy_task.id})
    agent.reset(env.task)
    requests = {user_action_request(a) for a in busy_task.gold_actions if a.requestor == "user"}
    start_hash = env.world.db_hash("user")
    assert info["user_tool_calls"] == 0
    seen, done = 0, False
    while not done:
        action = agent.act(observation, info)
        observation, _, terminated, truncated, info = env.step(action)
        done = terminated or truncated
        asked = action in requests
        assert info["user_tool_calls"] == seen + asked
        seen = info["user_tool_calls"]
    user_calls = [c for m in env.messages if m.role == "user" and m.tool_calls for c in m.tool_calls]
    assert [c.name for c in user_calls] == _user_writes(busy_task)
    assert seen == len(user_calls) and all(c.requestor == "user" for c in user_calls)
    results = [m for m in env.messages if m.role == "tool" and m.requestor == "user"]
    assert len(results) == len(user_calls) and not any(r.error for r in results)
    assert env.world.db_hash("user") != start_hash
    assert info["episode_record"]["reward"] == 1.0 and info["agent_tool_calls"] == sum(
        a.requestor == "assistant" for a in busy_task.gold_actions)


def test_user_tool_results_reach_only_the_proxy(tau2_data, busy_task):
    proxy = RecordingProxy()
    env = ConversationEnv("telecom", task_source="tau2", user_proxy=proxy)
    agent = ScriptedAgent()
    observation, info = env.reset(options={"task_id": busy_task.id})
    agent.reset(env.task)
    observations, done = [observation], False
    while not done:
        observation, _, terminated, truncated, info = env.step(agent.act(observation, info))
        observations.append(observation)
        done = terminated or truncated
    user_results = [m.content for m in env.messages if m.role == "tool" and m.requestor == "user"]
    agent_results = [m.content for m in env.messages if m.role == "tool" and m.requestor == "assistant"]
    assert len(user_results) == len(_user_writes(busy_task)) and agent_results
    # The agent sees the user's text, never the phone's output.
    assert observations.count(ACK) == len(user_results)
    assert not any(result in obs for result in user_results for obs in observations)
    assert not any("Status Bar" in obs for obs in observations)
    # The proxy sees its own results (exact contents), never the agent's tool traffic.
    answered = [v.messages[-1].content for v in proxy.views if v.messages[-1].role == "tool"]
    assert answered == user_results
    for view in proxy.views:
        for m in view.messages:
            assert not (m.role == "assistant" and m.tool_calls)
            assert not (m.role == "tool" and m.requestor != "user")
    assert not any(result in (m.content or "") for v in proxy.views for m in v.messages for result in agent_results)


def test_scripted_pair_solves_at_least_90_percent_of_the_telecom_base_tasks(env):
    assert len(env.tasks) == 114
    misses = scripted_misses(env)
    assert len(misses) <= len(env.tasks) // 10, misses


def test_llm_user_gets_the_phone_tools_and_its_tool_calls_run_on_the_phone(env, busy_task):
    reference = run_episode(env, busy_task.id)
    reference_hash = env.world.db_hash("user")
    names = env.world.user.listed_tools()
    with ChatServer(ScriptedUserResponder([busy_task])) as server:
        proxy = LLMUserProxy("openai/local-user", base_url=server.base_url, api_key="sk-local", timeout=10.0,
                             backoff=0.001, max_retries=2, price_override={"local-user": {"input": 1.0, "output": 1.0}})
        llm_env = ConversationEnv("telecom", task_source="tau2", user_proxy=proxy)
        info = run_episode(llm_env, busy_task.id)
    bodies = server.stats.bodies
    assert len(bodies) == server.stats.requests == proxy.usage.calls
    for body in bodies:
        assert body["tool_choice"] == "auto"
        assert [t["function"]["name"] for t in body["tools"]] == names
        assert all(t["type"] == "function" and t["function"]["parameters"]["type"] == "object" for t in body["tools"])
    user_calls = [c for m in llm_env.messages if m.role == "user" and m.tool_calls for c in m.tool_calls]
    assert [c.name for c in user_calls] == _user_writes(busy_task)
    assert all(c.id.startswith("call_") for c in user_calls)  # ids the server gave its tool-call replies
    # Each tool result went back to the model as a tool message answering its call.
    last = bodies[-1]["messages"]
    returned = [(m["tool_call_id"], m["content"]) for m in last if m["role"] == "tool"]
    results = [(m.tool_call_id, m.content) for m in llm_env.messages if m.role == "tool" and m.requestor == "user"]
    assert returned == results
    assert info["user_tool_calls"] == len(user_calls) == reference["user_tool_calls"]
    assert llm_env.world.db_hash("user") == reference_hash
    episode = info["episode_record"]
    assert episode["error"] is None and episode["reward"] == 1.0 and episode["reward_components"]["env_assertions"] == 1.0
    assert episode["probe"]["rate"] == 1.0 and episode["user_proxy"]["model"] == "openai/local-user"


def test_check_env_passes_for_telecom_with_the_tau2_source(tau2_data):
    made = gym.make("UserBench/Telecom-v0", task_source="tau2")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warnings.filterwarnings("ignore", message=".*render fps.*")
        check_env(made.unwrapped)
    assert made.unwrapped.domain == "telecom" and len(made.unwrapped.tasks) == 114
