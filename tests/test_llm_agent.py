"""LLMAgent end to end: real litellm over real HTTP to the local server, in both conversation envs."""
from __future__ import annotations

import asyncio
import json

import pytest

from userbench_env.agents import AgentError, ScriptedAgent, make_agent
from userbench_env.agents.llm import LLMAgent, observation_messages
from userbench_env.core.messages import ToolCall
from userbench_env.envs.conversation import (
    GREETING,
    ConversationEnv,
    agent_system_prompt,
)
from userbench_env.envs.user_side import ProxyPolicy, UserSideEnv
from userbench_env.proxies.prompt import prompt_hash
from userbench_env.serve import (
    AgentReplayResponder,
    CannedResponder,
    ChatServer,
    FaultSchedule,
    Reply,
)
from userbench_env.tasks import load_task

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

PRICES = {"local-agent": {"input": 1.0, "output": 4.0}}
TASK_ID = "7"  # asks, reads, updates and cancels reservations, and must communicate "1628"


@pytest.fixture(scope="module")
def task(tau2_data):
    return load_task("airline", TASK_ID, source="tau2")


def llm_agent(server: ChatServer, **options) -> LLMAgent:
    defaults = dict(base_url=server.base_url, api_key="sk-local", timeout=5.0, backoff=0.001, max_retries=3,
                    price_override=PRICES, seed=7)
    return LLMAgent("openai/local-agent", **{**defaults, **options})


def agent_side_episode(agent) -> tuple[list[str], dict, ConversationEnv]:
    """One airline episode with ``agent`` as the env's policy; the observations and last info."""
    env = ConversationEnv("airline", task_source="tau2")
    observation, info = env.reset(seed=1, options={"task_id": TASK_ID})
    agent.reset(env.task)
    observations = [observation]
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(agent.act(observation, info))
        observations.append(observation)
        done = terminated or truncated
    return observations, info, env


def test_llm_agent_plays_a_full_airline_episode_like_the_scripted_agent(task) -> None:
    reference, reference_info, _ = agent_side_episode(ScriptedAgent())
    with ChatServer(AgentReplayResponder(task)) as server:
        agent = llm_agent(server)
        observations, info, env = agent_side_episode(agent)
    assert observations == reference
    episode = info["episode_record"]
    assert episode["termination"] == "user_stop" and episode["error"] is None
    assert episode["reward"] == reference_info["episode_record"]["reward"] == 1.0
    assert episode["reward_components"]["communicate"] == 1.0 and episode["reward_components"]["db"] == 1.0
    bodies = server.stats.bodies
    assert len(bodies) == agent.usage.calls == info["turn"] == len(reference) - 1
    first, last = bodies[0], bodies[-1]
    system = first["messages"][0]["content"]
    assert first["messages"][0]["role"] == "system" and system == agent_system_prompt(env.world.policy)
    assert first["messages"][1] == {"role": "assistant", "content": GREETING}
    assert first["tools"] == env.world.tool_schemas("agent") and first["tool_choice"] == "auto"
    assert all(b["seed"] == 7 and b["temperature"] == 0.0 for b in bodies)
    # every tool result answers the call just before it, by id, with the world's exact output
    chat = last["messages"]
    for i, message in enumerate(chat):
        if message["role"] == "tool":
            calls = {c["id"]: c for m in chat[:i] if m["role"] == "assistant" for c in m.get("tool_calls") or []}
            assert message["tool_call_id"] in calls
    results = [m for m in env.messages if m.role == "tool"]
    assert [m["content"] for m in chat if m["role"] == "tool"] == [m.content for m in results]
    assert agent.usage.prompt_tokens > 0 and agent.usage.cost_usd == pytest.approx(
        (agent.usage.prompt_tokens * 1.0 + agent.usage.completion_tokens * 4.0) / 1e6)
    assert agent.provenance == {"name": "llm-agent", "model": "openai/local-agent", "prompt_hash": prompt_hash(system),
                                "temperature": 0.0, "seed": 7, "priced": True}


def test_several_tool_calls_in_one_reply_get_their_results_by_id(task) -> None:
    two = Reply(tool_calls=[ToolCall(id="a1", name="get_reservation_details", arguments={"reservation_id": "NOPE00"}),
                            ToolCall(id="a2", name="get_user_details", arguments={"user_id": "emma_kim_9957"})])
    # replies by conversation position: the greeting is the agent's first assistant message
    with ChatServer(CannedResponder(["(unused)", two, "Thanks. Anything else?"])) as server:
        agent = llm_agent(server)
        env = ConversationEnv("airline", task_source="tau2")
        observation, info = env.reset(options={"task_id": "0"})
        agent.reset(env.task)
        action = agent.act(observation, info)
        assert [c["id"] for c in action["tool_calls"]] == ["a1", "a2"]
        observation, *_ = env.step(action)
        text = agent.act(observation, {})
    assert text == {"role": "assistant", "content": "Thanks. Anything else?"}
    tools = server.stats.bodies[1]["messages"][-2:]
    assert tools[0] == {"role": "tool", "tool_call_id": "a1", "content": "Error: Reservation NOPE00 not found"}
    assert tools[1]["tool_call_id"] == "a2" and json.loads(tools[1]["content"])["user_id"] == "emma_kim_9957"


def test_observations_become_user_or_tool_messages() -> None:
    assert observation_messages("hi", []) == [{"role": "user", "content": "hi"}]
    assert observation_messages("out", ["c1"]) == [{"role": "tool", "tool_call_id": "c1", "content": "out"}]
    assert observation_messages("not a list", ["c1", "c2"])[1] == {"role": "tool", "tool_call_id": "c2", "content": "not a list"}


FAULTS = ["429", "500", "hang", "malformed_json", "garbage", "empty_choices", "blank", "bad_tool_args"]
CALL = Reply(tool_calls=[ToolCall(name="get_user_details", arguments={"user_id": "emma_kim_9957"})])


@pytest.mark.parametrize("fault", FAULTS)
def test_faults_are_retried_then_the_turn_succeeds(fault: str) -> None:
    with ChatServer(CannedResponder([CALL]), faults=FaultSchedule([fault, fault]), hang_seconds=30) as server:
        agent = llm_agent(server, timeout=2.0)
        action = agent.act("Hi, I need help.", {"system_prompt": "policy", "tools": []})
    assert action["tool_calls"][0]["function"]["name"] == "get_user_details"
    assert server.stats.faults == {fault: 2, "ok": 1}
    billed = 1 + (2 if fault in ("empty_choices", "blank", "bad_tool_args") else 0)
    assert agent.usage.calls == billed


@pytest.mark.parametrize("fault", ["503", "hang", "bad_tool_args"])
def test_exhausted_retries_raise_a_clear_agent_error(fault: str) -> None:
    with ChatServer(CannedResponder([CALL]), faults=FaultSchedule([fault], repeat=True), hang_seconds=30) as server:
        agent = llm_agent(server, timeout=2.0, max_retries=2)
        with pytest.raises(AgentError, match=r"openai/local-agent at http://127\.0\.0\.1:\d+/v1: failed after 3 attempts"):
            agent.act("Hi", {"system_prompt": "policy"})
        assert agent.chat == [{"role": "system", "content": "policy"}]  # the failed turn left no trace
    assert server.stats.faults == {fault: 3}


def test_rejected_requests_are_not_retried() -> None:
    with ChatServer(CannedResponder(["x"]), faults=FaultSchedule(["401"], repeat=True)) as server:
        with pytest.raises(AgentError, match="rejected"):
            llm_agent(server).act("Hi", {"system_prompt": "policy"})
    assert server.stats.requests == 1


def test_first_act_needs_a_system_prompt() -> None:
    agent = LLMAgent("openai/local-agent")
    with pytest.raises(ValueError, match="system_prompt"):
        agent.act("Hi", {})


def user_side_episode(env: UserSideEnv) -> dict:
    policy = ProxyPolicy("scripted")
    observation, info = env.reset(seed=2, options={"task_id": TASK_ID})
    policy.reset(env.task)
    done = False
    while not done:
        observation, reward, terminated, truncated, info = env.step(policy.act(observation, info))
        done = terminated or truncated
    return info["episode_record"] | {"step_reward": reward}


def test_llm_agent_as_the_counterpart_of_the_user_side_env(task) -> None:
    reference = user_side_episode(UserSideEnv("airline", task_source="tau2"))
    with ChatServer(AgentReplayResponder(task)) as server:
        agent = llm_agent(server)
        episode = user_side_episode(UserSideEnv("airline", task_source="tau2", agent=agent))
    assert episode["step_reward"] == episode["reward"] == reference["reward"] == 1.0
    assert episode["task_reward"] == reference["task_reward"] == 1.0
    assert episode["agent"]["model"] == "openai/local-agent" and episode["agent"]["seed"] == 7
    assert episode["agent_prompt_tokens"] == agent.usage.prompt_tokens > 0
    assert episode["agent_cost_usd"] == pytest.approx(agent.usage.cost_usd) and episode["agent_cost_usd"] > 0
    assert server.stats.requests == agent.usage.calls


def test_provider_outage_ends_the_user_side_episode_with_a_flagged_error(task) -> None:
    with ChatServer(AgentReplayResponder(task)) as server:
        agent = llm_agent(server, max_retries=1)
        env = UserSideEnv("airline", task_source="tau2", agent=agent, on_proxy_error="record")
        observation, info = env.reset(options={"task_id": TASK_ID})
        observation, reward, terminated, truncated, info = env.step("Hi, I want to change my flights.")
        assert not terminated and observation == "Here is the information you asked for: 1628."
        assert info["agent_tool_calls"] == 5 and agent.usage.calls == 6  # five gold calls, then the message
        server.faults = FaultSchedule(["500"], repeat=True)
        observation, reward, terminated, truncated, info = env.step("Thank you.")
    assert terminated and not truncated and reward == 0.0 and observation == ""
    episode = info["episode_record"]
    assert episode["termination"] == "error" and episode["reward"] == 0.0
    assert episode["error"].startswith("AgentError: llm-agent openai/local-agent at http://127.0.0.1:")
    assert "failed after 2 attempts" in episode["error"]
    assert server.stats.faults == {"ok": 6, "500": 2}


def test_async_user_side_episode_uses_aact(task) -> None:
    async def main(env: UserSideEnv) -> dict:
        policy = ProxyPolicy("scripted")
        observation, info = await env.areset(options={"task_id": TASK_ID})
        policy.reset(env.task)
        done = False
        while not done:
            observation, reward, terminated, truncated, info = await env.astep(await policy.aact(observation, info))
            done = terminated or truncated
        return info["episode_record"]

    with ChatServer(AgentReplayResponder(task)) as server:
        agent = llm_agent(server)
        agent.act = None  # the async path must not fall back to the blocking call
        episode = asyncio.run(main(UserSideEnv("airline", task_source="tau2", agent=agent)))
    assert episode["reward"] == 1.0 and episode["task_reward"] == 1.0 and episode["error"] is None


def test_make_agent_specs() -> None:
    assert isinstance(make_agent("scripted"), ScriptedAgent)
    assert type(make_agent("adaptive")).__name__ == "AdaptiveScriptedAgent"
    agent = make_agent("litellm:openai/gpt-4.1-mini", temperature=0.3, base_url="http://127.0.0.1:1/v1")
    assert isinstance(agent, LLMAgent) and agent.model == "openai/gpt-4.1-mini" and agent.temperature == 0.3
    same = ScriptedAgent()
    assert make_agent(same) is same
    with pytest.raises(ValueError, match="known kinds: adaptive, direct, failing, litellm, scripted"):
        make_agent("gpt4")
    with pytest.raises(ValueError, match="needs a model"):
        make_agent("litellm:")
    with pytest.raises(ValueError, match="needs the base_url"):
        make_agent("direct:served-model")
    direct = make_agent("direct:served-model", base_url="http://127.0.0.1:1/v1")
    assert isinstance(direct, LLMAgent) and direct.model == "served-model" and direct.transport.name == "direct"
    with pytest.raises(TypeError):
        make_agent(42)
