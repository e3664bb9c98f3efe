"""The direct OpenAI-compatible transport: real HTTP to the local server, no litellm in the call path.

Each behaviour is checked against the litellm transport (same bodies, same turns, same
episode) or against the server's own record of what it saw (faults served, requests in flight).
"""
from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import textwrap

import pytest

from test_llm_proxy import GREETING, PHONE_TOOLS, PRICES, _airline_episode
from test_serve import BarrierResponder
from userbench_env.agents import AgentError, ScriptedAgent
from userbench_env.agents.llm import LLMAgent
from userbench_env.core.messages import Message, ToolCall
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.proxies import make_proxy
from userbench_env.proxies.base import ProxyError, UserView
from userbench_env.proxies.llm import LLMUserProxy
from userbench_env.serve import AgentReplayResponder, CannedResponder, ChatServer, FaultSchedule, Reply, ScriptedUserResponder
from userbench_env.tasks import load_task, load_tasks
from userbench_env.transport import _SESSIONS, DirectTransport

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

FAULTS = ["429", "500", "503", "hang", "malformed_json", "garbage", "empty_choices", "blank", "bad_tool_args"]
BILLED = ("empty_choices", "blank", "bad_tool_args")  # answered replies cost tokens even when unusable
TOOL_REPLY = Reply(tool_calls=[ToolCall(name="check_status_bar")])
AGENT_CALL = Reply(tool_calls=[ToolCall(name="get_user_details", arguments={"user_id": "emma_kim_9957"})])


@pytest.fixture(scope="module")
def airline_tasks(tau2_data):
    return load_tasks("airline", source="tau2", split="base")


def user(server: ChatServer, transport: str = "direct", **options) -> LLMUserProxy:
    defaults = dict(base_url=server.base_url, api_key="sk-local", timeout=5.0, backoff=0.001, max_retries=3,
                    price_override=PRICES, transport=transport)
    return LLMUserProxy("openai/local-user", **{**defaults, **options})


def agent(server: ChatServer, **options) -> LLMAgent:
    defaults = dict(base_url=server.base_url, api_key="sk-local", timeout=5.0, backoff=0.001, max_retries=3,
                    price_override={"local-agent": {"input": 1.0, "output": 4.0}}, seed=7, transport="direct")
    return LLMAgent("openai/local-agent", **{**defaults, **options})


def fault_view() -> UserView:
    return UserView(messages=[GREETING], tools=PHONE_TOOLS)


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_retried_then_succeeds(airline_tasks, fault: str) -> None:
    with ChatServer(CannedResponder([TOOL_REPLY]), faults=FaultSchedule([fault, fault]), hang_seconds=30) as server:
        proxy = user(server, timeout=2.0)
        proxy.reset(airline_tasks[0])
        turn = proxy.respond(fault_view())
    assert turn.tool_call == ToolCall(id="call_3_0", name="check_status_bar", arguments={}, requestor="user")
    assert server.stats.faults == {fault: 2, "ok": 1}
    assert turn.usage.calls == proxy.usage.calls == 1 + (2 if fault in BILLED else 0)


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_exhausting_async_retries_is_a_proxy_error(airline_tasks, fault: str) -> None:
    async def run(proxy: LLMUserProxy) -> None:
        with pytest.raises(ProxyError, match="failed after 3 attempts"):
            await proxy.arespond(fault_view())

    with ChatServer(CannedResponder([TOOL_REPLY]), faults=FaultSchedule([fault], repeat=True), hang_seconds=30) as server:
        proxy = user(server, timeout=2.0, max_retries=2)
        proxy.reset(airline_tasks[0])
        asyncio.run(run(proxy))
    assert server.stats.faults == {fault: 3}
    assert proxy.usage.calls == (3 if fault in BILLED else 0)


@pytest.mark.parametrize("fault", FAULTS)
def test_agent_faults_are_retried_then_exhausted_as_agent_errors(fault: str) -> None:
    schedule = FaultSchedule([fault, "ok", fault, fault])
    with ChatServer(CannedResponder([AGENT_CALL]), faults=schedule, hang_seconds=30) as server:
        llm = agent(server, timeout=2.0, max_retries=1)
        action = llm.act("Hi, I need help.", {"system_prompt": "policy", "tools": []})
        assert action["tool_calls"][0]["function"] == {"name": "get_user_details",
                                                       "arguments": json.dumps({"user_id": "emma_kim_9957"})}
        with pytest.raises(AgentError, match=r"openai/local-agent at http://127\.0\.0\.1:\d+/v1/chat/completions: failed after 2 attempts"):
            llm.act("Here it is.", {})
    assert server.stats.faults == {fault: 3, "ok": 1}


@pytest.mark.parametrize("status", ["400", "401", "404", "422"])
def test_rejected_requests_are_not_retried(airline_tasks, status: str) -> None:
    with ChatServer(CannedResponder(["x"]), faults=FaultSchedule([status], repeat=True)) as server:
        proxy = user(server)
        proxy.reset(airline_tasks[0])
        with pytest.raises(ProxyError, match=f"rejected \\({status}\\)"):
            proxy.respond(fault_view())
    assert server.stats.requests == 1


def test_unreachable_server_is_retried_then_a_proxy_error(airline_tasks) -> None:
    with ChatServer(CannedResponder(["x"])) as server:
        base_url = server.base_url
    proxy = LLMUserProxy("openai/local-user", base_url=base_url, transport="direct", backoff=0.001, max_retries=1)
    proxy.reset(airline_tasks[0])
    with pytest.raises(ProxyError, match="failed after 2 attempts"):
        proxy.respond(fault_view())


def test_request_bodies_and_turns_match_the_litellm_transport(airline_tasks) -> None:
    replies = [Reply(text="My data is off."),
               Reply(text="Checking.", tool_calls=[ToolCall(id="c9", name="toggle_data", arguments={"on": True})])]
    view = UserView(messages=[GREETING, Message(role="user", content="My data is off."),
                              Message(role="assistant", content="Please turn on mobile data.")], tools=PHONE_TOOLS)
    turns, bodies = {}, {}
    for transport in ("litellm", "direct"):
        with ChatServer(CannedResponder(replies)) as server:
            proxy = user(server, transport=transport, seed=5, extra={"max_tokens": 64})
            proxy.reset(airline_tasks[0])
            turns[transport] = proxy.respond(view)
        bodies[transport] = server.stats.bodies[0]
    assert turns["direct"] == turns["litellm"]
    assert turns["direct"].tool_call == ToolCall(id="c9", name="toggle_data", arguments={"on": True}, requestor="user")
    assert bodies["direct"]["model"] == "local-user"  # litellm's routing prefix is not sent
    for key in ("model", "messages", "tools", "tool_choice", "seed", "temperature", "max_tokens"):
        assert bodies["direct"][key] == bodies["litellm"][key], key


def test_full_airline_episode_matches_the_litellm_path(airline_tasks) -> None:
    task = next(t for t in airline_tasks if t.id == "8")
    results = {}
    for transport in ("litellm", "direct"):
        with ChatServer(ScriptedUserResponder(airline_tasks)) as server:
            proxy = user(server, transport=transport, seed=None)
            results[transport] = _airline_episode(ConversationEnv("airline", task_source="tau2", user_proxy=proxy), task)
        assert server.stats.requests == proxy.usage.calls == 3
    (observations, info), (reference, reference_info) = results["direct"], results["litellm"]
    assert observations == reference
    episode, expected = info["episode_record"], reference_info["episode_record"]
    assert episode["error"] is None and episode["termination"] == "user_stop" and episode["reward"] == 1.0
    for key in ("reward_components", "user_proxy", "user_prompt_tokens", "user_completion_tokens", "user_cost_usd"):
        assert episode[key] == expected[key], key
    assert episode["user_prompt_tokens"] > 0 and episode["user_cost_usd"] == pytest.approx(
        (episode["user_prompt_tokens"] * 2.0 + episode["user_completion_tokens"] * 10.0) / 1e6)


def test_async_episode_through_the_spec_matches_the_sync_one(airline_tasks) -> None:
    task = next(t for t in airline_tasks if t.id == "8")

    async def play(env: ConversationEnv) -> list[str]:
        observation, info = await env.areset(seed=3, options={"task_id": task.id})
        observations = [observation]
        for action in ["Could you give me your user id and your name?",
                       *[json.dumps({"name": a.name, "arguments": a.arguments}) for a in task.gold_actions],
                       "Your new reservation is booked. Is there anything else I can help you with?"]:
            observation, reward, terminated, truncated, info = await env.astep(action)
            observations.append(observation)
            if terminated or truncated:
                break
        return observations

    reference, _ = _airline_episode(ConversationEnv("airline", task_source="tau2", user_proxy="scripted"), task)
    with ChatServer(ScriptedUserResponder(airline_tasks)) as server:
        proxy = make_proxy("direct:openai/local-user", base_url=server.base_url, price_override=PRICES)
        proxy.respond = None  # the async path must not fall back to the blocking call
        observations = asyncio.run(play(ConversationEnv("airline", task_source="tau2", user_proxy=proxy)))
    assert observations == reference
    assert not _SESSIONS  # the loop's pooled session was closed when asyncio.run ended


def test_llm_agent_direct_plays_an_episode_like_the_scripted_agent(tau2_data) -> None:
    task = load_task("airline", "7", source="tau2")

    def play(policy) -> list[str]:
        env = ConversationEnv("airline", task_source="tau2")
        observation, info = env.reset(seed=1, options={"task_id": task.id})
        policy.reset(env.task)
        observations, done = [observation], False
        while not done:
            observation, reward, terminated, truncated, info = env.step(policy.act(observation, info))
            observations.append(observation)
            done = terminated or truncated
        assert info["episode_record"]["reward"] == 1.0
        return observations

    reference = play(ScriptedAgent())
    with ChatServer(AgentReplayResponder(task)) as server:
        llm = agent(server)
        assert play(llm) == reference
    assert llm.usage.calls == server.stats.requests == len(reference) - 1
    assert llm.usage.cost_usd == pytest.approx((llm.usage.prompt_tokens * 1.0 + llm.usage.completion_tokens * 4.0) / 1e6)


def test_async_calls_are_truly_concurrent_on_one_pooled_session(airline_tasks) -> None:
    size = 32
    views = [UserView(messages=[GREETING, Message(role="user", content="hi"),
                                Message(role="assistant", content=f"question {i}")]) for i in range(size)]

    async def run() -> tuple[list[str], int]:
        proxies = [user(server, timeout=60.0, max_retries=0) for _ in range(size)]
        for proxy in proxies:
            proxy.reset(airline_tasks[0])
        turns = await asyncio.gather(*(p.arespond(v) for p, v in zip(proxies, views)))
        sessions = {id(s) for s, _ in _SESSIONS.values()}
        return [t.text for t in turns], len(sessions)

    # The barrier answers nobody until all 32 requests are open at once.
    with ChatServer(BarrierResponder(size), latency=0.1) as server:
        texts, sessions = asyncio.run(run())
    assert texts == [f"QUESTION {i}" for i in range(size)] and sessions == 1
    assert server.stats.max_in_flight == size and server.stats.requests == size


def test_blocking_calls_reuse_one_connection(airline_tasks) -> None:
    with ChatServer(CannedResponder(["fine"]), latency=0.01) as server:
        proxy = user(server)
        proxy.reset(airline_tasks[0])
        proxy.respond(fault_view())
        connection = proxy.transport._local.connection
        for _ in range(3):
            assert proxy.respond(fault_view()).text == "fine"
            assert proxy.transport._local.connection is connection and connection.sock is not None
    assert server.stats.max_in_flight == 1 and server.stats.requests == 4


def test_unpriced_and_map_priced_models_without_litellm() -> None:
    script = textwrap.dedent("""
        import sys
        from userbench_env.pricing import flat_price
        from userbench_env.proxies.base import UserView
        from userbench_env.proxies.llm import LLMUserProxy
        from userbench_env.serve import CannedResponder, ChatServer
        from userbench_env.tasks import load_tasks
        task = load_tasks("airline", "bundled", None)[0]
        with ChatServer(CannedResponder(["hello"])) as server:
            known = LLMUserProxy("openai/gpt-4.1-mini", base_url=server.base_url, transport="direct")
            unknown = LLMUserProxy("openai/local-user", base_url=server.base_url, transport="direct")
            for proxy in (known, unknown):
                proxy.reset(task)
                proxy.respond(UserView())
        price = flat_price("gpt-4.1-mini")
        expected = price.cost(known.usage.prompt_tokens, known.usage.completion_tokens)
        print(known.usage.cost_usd == expected > 0, known.priced, unknown.usage.cost_usd, unknown.priced,
              server.stats.bodies[0]["model"], "litellm" in sys.modules)
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "True", "0.0", "False", "gpt-4.1-mini", "False"]


def test_specs_and_settings(airline_tasks) -> None:
    proxy = make_proxy("direct:my-llama", base_url="http://127.0.0.1:9/v1", temperature=0.5)
    assert isinstance(proxy, LLMUserProxy) and isinstance(proxy.transport, DirectTransport)
    assert proxy.transport.url == "http://127.0.0.1:9/v1/chat/completions" and proxy.temperature == 0.5
    with pytest.raises(ValueError, match="base_url"):
        make_proxy("direct:my-llama")
    with pytest.raises(ValueError, match="model"):
        make_proxy("direct:", base_url="http://127.0.0.1:9/v1")
    with pytest.raises(ValueError, match="unknown transport"):
        LLMUserProxy("openai/x", transport="carrier-pigeon")
    with pytest.raises(ValueError, match="http"):
        LLMUserProxy("openai/x", base_url="127.0.0.1:9", transport="direct")


def test_eval_run_with_a_direct_spec_matches_the_litellm_spec(tmp_path) -> None:
    from userbench_env.runner.evaluation import EvalConfig, run_eval
    from userbench_env.runner.store import EpisodeStore

    tasks = load_tasks("retail", "bundled", None)[:3]
    prices = {"local-user": {"input": 2.0, "output": 10.0}}
    records = {}
    with ChatServer(ScriptedUserResponder(tasks)) as server:
        for kind in ("litellm", "direct"):
            config = EvalConfig(
                proxies=[f"{kind}:openai/local-user"], domains=["retail"], task_ids=[t.id for t in tasks], concurrency=3,
                out=str(tmp_path / f"{kind}.jsonl"), progress=False,
                proxy_options={"base_url": server.base_url, "api_key": "sk-local", "backoff": 0.001, "price_override": prices},
            )
            assert run_eval(config).errors == 0
            records[kind] = {r["task_id"]: r for r in EpisodeStore(config.out).records()}
    assert sorted(records["direct"]) == sorted(t.id for t in tasks)
    for task_id, record in records["direct"].items():
        expected = records["litellm"][task_id]
        assert record["error"] is None and record["hosting"] == "self-hosted" and record["user_cost_usd"] > 0
        for key in ("messages", "reward", "termination", "user_prompt_tokens", "user_completion_tokens", "user_cost_usd"):
            assert record[key] == expected[key], key
