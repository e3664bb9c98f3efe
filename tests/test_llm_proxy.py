"""LLMUserProxy end to end: real litellm (``openai/<model>``) over real HTTP to the local server."""
from __future__ import annotations

import asyncio
import json

import pytest

from test_serve import BarrierResponder
from userbench_env.core.messages import Message, ToolCall
from userbench_env.pricing import call_cost, import_litellm, load_prices
from userbench_env.proxies.base import ProxyError, UserView
from userbench_env.proxies.llm import LLMUserProxy
from userbench_env.proxies.prompt import load_guidelines, prompt_hash
from userbench_env.proxies.scripted import ScriptedUserProxy
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule, Reply, ScriptedUserResponder
from userbench_env.tasks import load_tasks

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

PRICES = {"local-user": {"input": 2.0, "output": 10.0}}
GREETING = Message(role="assistant", content="Hi! How can I help you today?")
PHONE_TOOLS = [
    {"type": "function", "function": {"name": "toggle_data", "description": "Turn mobile data on or off.",
                                      "parameters": {"type": "object", "properties": {"on": {"type": "boolean"}}}}},
    {"type": "function", "function": {"name": "check_status_bar", "description": "Read the status bar.",
                                      "parameters": {"type": "object", "properties": {}}}},
]


@pytest.fixture(scope="module")
def airline_tasks(tau2_data):
    return load_tasks("airline", source="tau2", split="base")


def make_proxy(server: ChatServer, **options) -> LLMUserProxy:
    defaults = dict(base_url=server.base_url, api_key="sk-local", timeout=5.0, backoff=0.001, max_retries=3,
                    price_override=PRICES)
    return LLMUserProxy("openai/local-user", **{**defaults, **options})


def test_multi_turn_exchange_matches_the_scripted_user(airline_tasks) -> None:
    task = airline_tasks[0]
    reference = ScriptedUserProxy()
    reference.reset(task, 11)
    agent_lines = ["Could you give me your user id?", "And your name, please?",
                   "Shall I proceed with the cancellation?",
                   "Your reservation has been cancelled. Is there anything else I can help with?"]  # (an outcome: the user stops)
    with ChatServer(ScriptedUserResponder(airline_tasks)) as server:
        proxy = make_proxy(server, seed=None)
        proxy.reset(task, seed=11)
        messages = [GREETING]
        texts = []
        for line in agent_lines + [None]:
            view = UserView(messages=list(messages))
            turn = proxy.respond(view)
            assert turn.tool_call is None and turn.text == reference.respond(view).text
            texts.append(turn.text)
            if line is None:
                break
            messages += [Message(role="user", content=turn.text), Message(role="assistant", content=line)]
    assert "emma_kim_9957" in texts[1] and "Emma Kim" in texts[2]
    assert turn.stop == "STOP"
    bodies = server.stats.bodies
    assert len(bodies) == 5
    last = bodies[-1]
    assert [m["role"] for m in last["messages"]] == ["system"] + ["user", "assistant"] * 4 + ["user"]
    assert last["messages"][1]["content"] == GREETING.content
    assert last["messages"][0]["content"] == proxy.system_prompt(False)
    assert last["messages"][0]["content"].startswith(load_guidelines(False).strip())
    assert all(b["seed"] == 11 and b["temperature"] == 0.0 and "tools" not in b for b in bodies)
    provenance = proxy.provenance
    assert provenance["model"] == "openai/local-user" and provenance["seed"] == 11
    assert provenance["prompt_hash"] == prompt_hash(proxy.system_prompt(False)) and provenance["priced"] is True


def test_tool_calls_are_parsed_and_take_precedence_over_text(airline_tasks) -> None:
    replies = [  # by conversation position: the opening, then the turns under test
        Reply(text="My data is off."),
        Reply(text="Let me check.", tool_calls=[ToolCall(id="c9", name="toggle_data", arguments={"on": True})]),
        Reply(text="Data is on now."),
    ]
    with ChatServer(CannedResponder(replies)) as server:
        proxy = make_proxy(server, seed=5)
        proxy.reset(airline_tasks[0])
        view = UserView(messages=[GREETING, Message(role="user", content="My data is off."),
                                  Message(role="assistant", content="Please turn on mobile data.")], tools=PHONE_TOOLS)
        turn = proxy.respond(view)
        assert turn.text is None and turn.stop is None
        assert turn.tool_call == ToolCall(id="c9", name="toggle_data", arguments={"on": True}, requestor="user")
        view.messages += [Message(role="user", tool_calls=[turn.tool_call]),
                          Message(role="tool", content="Mobile data: on", tool_call_id="c9", requestor="user")]
        second = proxy.respond(view)
    assert second.text == "Data is on now." and second.tool_call is None
    first_body, second_body = server.stats.bodies
    assert server.stats.faults == {"ok": 2}
    assert first_body["tools"] == PHONE_TOOLS and first_body["tool_choice"] == "auto" and first_body["seed"] == 5
    assert first_body["messages"][0]["content"].startswith(load_guidelines(True).strip())
    flipped = second_body["messages"][-2:]
    assert flipped[0]["role"] == "assistant" and flipped[0]["tool_calls"][0]["id"] == "c9"
    assert json.loads(flipped[0]["tool_calls"][0]["function"]["arguments"]) == {"on": True}
    assert flipped[1] == {"role": "tool", "tool_call_id": "c9", "content": "Mobile data: on"}


FAULTS = ["429", "500", "503", "hang", "malformed_json", "garbage", "empty_choices", "blank", "bad_tool_args"]
TOOL_REPLY = Reply(tool_calls=[ToolCall(name="check_status_bar")])


def _fault_view() -> UserView:
    return UserView(messages=[GREETING], tools=PHONE_TOOLS)


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_is_retried_then_succeeds(airline_tasks, fault: str) -> None:
    with ChatServer(CannedResponder([TOOL_REPLY]), faults=FaultSchedule([fault, fault]), hang_seconds=30) as server:
        proxy = make_proxy(server, timeout=2.0)
        proxy.reset(airline_tasks[0])
        turn = proxy.respond(_fault_view())
    assert turn.tool_call is not None and turn.tool_call.name == "check_status_bar"
    assert server.stats.faults == {fault: 2, "ok": 1}
    billed = 1 + (2 if fault in ("empty_choices", "blank", "bad_tool_args") else 0)  # answered replies cost tokens
    assert turn.usage.calls == billed == proxy.usage.calls


@pytest.mark.parametrize("fault", FAULTS)
def test_each_fault_exhausting_retries_is_a_proxy_error(airline_tasks, fault: str) -> None:
    with ChatServer(CannedResponder([TOOL_REPLY]), faults=FaultSchedule([fault], repeat=True), hang_seconds=30) as server:
        proxy = make_proxy(server, timeout=2.0, max_retries=2)
        proxy.reset(airline_tasks[0])
        with pytest.raises(ProxyError):
            proxy.respond(_fault_view())
    assert server.stats.faults == {fault: 3}


@pytest.mark.parametrize("fault", ["429", "hang", "bad_tool_args"])
def test_async_faults_end_as_retry_or_proxy_error(airline_tasks, fault: str) -> None:
    async def run(proxy: LLMUserProxy):
        first = await proxy.arespond(_fault_view())
        with pytest.raises(ProxyError):
            await proxy.arespond(_fault_view())
        return first

    schedule = FaultSchedule([fault, "ok"] + [fault] * 2)
    with ChatServer(CannedResponder([TOOL_REPLY]), faults=schedule, hang_seconds=30) as server:
        proxy = make_proxy(server, timeout=2.0, max_retries=1)
        proxy.reset(airline_tasks[0])
        first = asyncio.run(run(proxy))
    assert first.tool_call is not None
    assert server.stats.faults == {fault: 3, "ok": 1}


@pytest.mark.parametrize("status", ["400", "401", "404"])
def test_rejected_requests_are_not_retried(airline_tasks, status: str) -> None:
    with ChatServer(CannedResponder(["x"]), faults=FaultSchedule([status], repeat=True)) as server:
        proxy = make_proxy(server)
        proxy.reset(airline_tasks[0])
        with pytest.raises(ProxyError, match="rejected"):
            proxy.respond(_fault_view())
    assert server.stats.requests == 1


def test_usage_and_cost_with_a_price_override(airline_tasks) -> None:
    with ChatServer(CannedResponder(["one", "two", "three"])) as server:
        proxy = make_proxy(server)
        proxy.reset(airline_tasks[1], seed=3)
        messages = [GREETING]
        turns = []
        for _ in range(3):
            turns.append(proxy.respond(UserView(messages=list(messages))))
            messages += [Message(role="user", content=turns[-1].text), Message(role="assistant", content="ok?")]
    prompt = sum(t.usage.prompt_tokens for t in turns)
    completion = sum(t.usage.completion_tokens for t in turns)
    assert prompt > 0 and completion > 0
    assert proxy.usage.prompt_tokens == prompt and proxy.usage.completion_tokens == completion and proxy.usage.calls == 3
    assert proxy.usage.cost_usd == pytest.approx((prompt * 2.0 + completion * 10.0) / 1e6)
    assert turns[1].usage.prompt_tokens > turns[0].usage.prompt_tokens  # the conversation grows
    proxy.reset(airline_tasks[1])
    assert proxy.usage.calls == 0 and proxy.provenance["prompt_hash"] is None


def test_unpriced_model_costs_nothing_and_says_so(airline_tasks) -> None:
    with ChatServer(CannedResponder(["hello"])) as server:
        proxy = make_proxy(server, price_override=None)
        proxy.reset(airline_tasks[0])
        proxy.respond(UserView(messages=[GREETING]))
    assert proxy.usage.cost_usd == 0.0 and proxy.usage.prompt_tokens > 0 and proxy.provenance["priced"] is False


def test_pricing_from_litellm_map_and_overrides(tmp_path) -> None:
    litellm = import_litellm()
    expected = sum(litellm.cost_per_token(model="gpt-4.1-mini", prompt_tokens=1000, completion_tokens=200))
    assert call_cost("gpt-4.1-mini", 1000, 200) == pytest.approx(expected) and expected > 0
    assert call_cost("openai/no-such-model-xyz", 1000, 200) is None
    path = tmp_path / "prices.yaml"
    path.write_text("my-llama:\n  input: 0.5\n  output: 1.5\n", encoding="utf-8")
    table = load_prices(path)
    assert call_cost("hosted_vllm/my-llama", 2_000_000, 1_000_000, table) == pytest.approx(2.5)
    (tmp_path / "p.json").write_text(json.dumps({"gpt-4.1-mini": {"input": 0, "output": 0}}), encoding="utf-8")
    assert call_cost("gpt-4.1-mini", 1000, 200, tmp_path / "p.json") == 0.0  # an override wins
    with pytest.raises(ValueError):
        load_prices({"m": {"input": -1, "output": 1}})


def test_async_respond_is_truly_concurrent(airline_tasks) -> None:
    size = 32
    conversations = [UserView(messages=[GREETING, Message(role="user", content="hi"),
                                        Message(role="assistant", content=f"question {i}")]) for i in range(size)]

    async def run() -> list[str]:
        proxies = []
        for _ in range(size):
            proxy = make_proxy(server, timeout=60.0, max_retries=0)
            proxy.reset(airline_tasks[0])
            proxies.append(proxy)
        turns = await asyncio.gather(*(p.arespond(v) for p, v in zip(proxies, conversations)))
        return [t.text for t in turns]

    # The barrier answers nobody until all 32 requests are open at once: a sequential or
    # thread-pooled (fewer than 32 workers) client would time out instead.
    with ChatServer(BarrierResponder(size), latency=0.1) as server:
        texts = asyncio.run(run())
    assert texts == [f"QUESTION {i}" for i in range(size)]
    assert server.stats.max_in_flight == size and server.stats.requests == size


def test_sync_respond_is_one_request_at_a_time(airline_tasks) -> None:
    with ChatServer(CannedResponder(["fine"]), latency=0.01) as server:
        proxy = make_proxy(server)
        proxy.reset(airline_tasks[0])
        for _ in range(3):
            proxy.respond(UserView(messages=[GREETING]))
    assert server.stats.max_in_flight == 1 and server.stats.requests == 3


def test_respond_before_reset_and_bad_settings() -> None:
    proxy = LLMUserProxy("openai/local-user")
    with pytest.raises(RuntimeError):
        proxy.respond(UserView(messages=[GREETING]))
    with pytest.raises(ValueError):
        LLMUserProxy("openai/x", max_retries=-1)


def _airline_episode(env, task) -> tuple[list[str], dict]:
    """A scripted agent solving airline task ``task`` (gold calls), observations in order."""
    observation, info = env.reset(seed=3, options={"task_id": task.id})
    observations = [observation]
    actions = ["Could you give me your user id and your name?"]
    actions += [json.dumps({"name": a.name, "arguments": a.arguments}) for a in task.gold_actions]
    actions += ["Your new reservation is booked. Is there anything else I can help you with?"]
    for action in actions:
        observation, reward, terminated, truncated, info = env.step(action)
        observations.append(observation)
        if terminated or truncated:
            break
    return observations, info


def test_full_airline_episode_with_the_llm_proxy(airline_tasks) -> None:
    from userbench_env.envs.conversation import ConversationEnv

    task = next(t for t in airline_tasks if t.id == "8")
    reference, reference_info = _airline_episode(ConversationEnv("airline", task_source="tau2", user_proxy="scripted"), task)
    with ChatServer(ScriptedUserResponder(airline_tasks)) as server:
        proxy = make_proxy(server, seed=None)
        observations, info = _airline_episode(ConversationEnv("airline", task_source="tau2", user_proxy=proxy), task)
    assert observations == reference
    episode = info["episode_record"]
    assert episode["error"] is None and episode["termination"] == "user_stop"
    assert episode["reward"] == reference_info["episode_record"]["reward"] == 1.0
    assert episode["user_proxy"]["model"] == "openai/local-user" and episode["user_proxy"]["seed"] == 3
    assert episode["user_proxy"]["prompt_hash"] == prompt_hash(proxy.system_prompt(False))
    assert episode["user_prompt_tokens"] == proxy.usage.prompt_tokens > 0
    assert episode["user_cost_usd"] == pytest.approx(
        (proxy.usage.prompt_tokens * 2.0 + proxy.usage.completion_tokens * 10.0) / 1e6
    )
    assert server.stats.requests == proxy.usage.calls == 3  # opening, identification, goodbye


def test_airline_episode_ends_with_an_error_when_retries_run_out(airline_tasks) -> None:
    from userbench_env.envs.conversation import ConversationEnv

    task = next(t for t in airline_tasks if t.id == "8")
    with ChatServer(ScriptedUserResponder(airline_tasks)) as server:
        proxy = make_proxy(server, max_retries=2)
        env = ConversationEnv("airline", task_source="tau2", user_proxy=proxy, on_proxy_error="record")
        observation, info = env.reset(seed=3, options={"task_id": task.id})
        assert observation.startswith("Hi.") and "episode_record" not in info
        server.faults = FaultSchedule(["503"], repeat=True)
        observation, reward, terminated, truncated, info = env.step("Could you give me your user id?")
    assert terminated and not truncated and reward == 0.0
    episode = info["episode_record"]
    assert episode["termination"] == "error" and "ProxyError" in episode["error"] and "3 attempts" in episode["error"]
    assert server.stats.faults == {"ok": 1, "503": 3}
