"""LLM roles configured from specs, misconfiguration that fails loudly, and whole-call deadlines.

Every call goes over real HTTP to the local chat server, through real litellm or the
direct transport: options given with a spec string reach the proxy, every request
carries a completion-token cap, a rejected request or missing credentials fail at once
(one request, or none), and a server that trickles its answer is cut off at the deadline.
"""
from __future__ import annotations

import asyncio
import time

import gymnasium as gym
import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.cli import main
from userbench_env.completion import DEFAULT_MAX_TOKENS
from userbench_env.core.messages import Message
from userbench_env.proxies import make_proxy
from userbench_env.proxies.base import ProxyError, UserView
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule, Reply, ScriptedUserResponder
from userbench_env.tasks import load_tasks

pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

VIEW = UserView(messages=[Message(role="assistant", content="Hi! How can I help you today?", turn=0)], tools=[])
SPECS = {"litellm": "litellm:openai/local-user", "direct": "direct:local-user"}


@pytest.fixture(scope="module")
def bundled_airline():
    return load_tasks("airline", source="bundled")


def _play(env) -> dict:
    agent = ScriptedAgent()
    observation, info = env.reset(seed=0)
    agent.reset(env.unwrapped.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    return info["episode_record"]


@pytest.mark.parametrize("transport", ["litellm", "direct"])
def test_user_proxy_options_reach_a_spec_string_through_gym_make(bundled_airline, transport: str) -> None:
    with ChatServer(ScriptedUserResponder(bundled_airline)) as server:
        env = gym.make("UserBench/Airline-v0", user_proxy=SPECS[transport], task_id=bundled_airline[0].id,
                       user_proxy_options={"base_url": server.base_url, "max_tokens": 64, "timeout": 5.0})
        episode = _play(env)
    assert episode["error"] is None and episode["reward"] == 1.0
    assert episode["user_proxy"]["model"] == SPECS[transport].partition(":")[2]
    assert server.stats.bodies and all(body["max_tokens"] == 64 for body in server.stats.bodies)


def test_every_request_is_capped_by_default() -> None:
    with ChatServer(CannedResponder([Reply(text="Hello.")])) as server:
        proxy = make_proxy("direct:local-user", base_url=server.base_url)
        proxy.reset(load_tasks("airline", source="bundled")[0], 0)
        assert proxy.respond(VIEW).text == "Hello."
    assert server.stats.bodies[0]["max_tokens"] == DEFAULT_MAX_TOKENS
    assert make_proxy("direct:x", base_url=server.base_url, max_tokens=None).chat_request([], None)  # no cap: allowed
    assert "max_tokens" not in make_proxy("direct:x", base_url=server.base_url, max_tokens=None).chat_request([], None)


def test_options_that_cannot_apply_are_refused() -> None:
    with pytest.raises(ValueError, match="takes no options"):
        gym.make("UserBench/Airline-v0", user_proxy="scripted", user_proxy_options={"base_url": "http://127.0.0.1:9/v1"})
    with pytest.raises(ValueError, match="proxy object"):
        make_proxy(make_proxy("scripted"), timeout=3.0)
    with pytest.raises(ValueError, match="timeout must be > 0"):
        make_proxy("direct:x", base_url="http://127.0.0.1:9/v1", timeout=0)


def test_api_key_env_names_the_variable_holding_the_key(monkeypatch) -> None:
    monkeypatch.setenv("USERBENCH_TEST_KEY", "sk-from-env")
    proxy = make_proxy("direct:x", base_url="http://127.0.0.1:9/v1", api_key_env="USERBENCH_TEST_KEY")
    assert proxy.transport.headers["Authorization"] == "Bearer sk-from-env"
    monkeypatch.delenv("USERBENCH_TEST_KEY")
    with pytest.raises(ValueError, match="USERBENCH_TEST_KEY, which is not set"):
        make_proxy("direct:x", base_url="http://127.0.0.1:9/v1", api_key_env="USERBENCH_TEST_KEY")


def test_missing_credentials_fail_at_once_and_loudly(monkeypatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    env = gym.make("UserBench/Airline-v0", user_proxy="litellm:openai/gpt-4.1-mini")
    with pytest.raises(ProxyError) as caught:
        env.reset(seed=0)
    message = str(caught.value)
    assert "missing credentials" in message and "OPENAI_API_KEY" in message and "openai/gpt-4.1-mini" in message
    assert "attempts" not in message  # never retried


@pytest.mark.parametrize("transport", ["litellm", "direct"])
@pytest.mark.parametrize("status", ["401", "404", "422"])
def test_rejected_requests_fail_at_once_naming_model_and_endpoint(bundled_airline, transport: str, status: str) -> None:
    with ChatServer(CannedResponder([Reply(text="unused")]), faults=FaultSchedule([status], repeat=True)) as server:
        env = gym.make("UserBench/Airline-v0", user_proxy=SPECS[transport],
                       user_proxy_options={"base_url": server.base_url, "max_retries": 3, "backoff": 0.001})
        with pytest.raises(ProxyError) as caught:
            env.reset(seed=0)
    message = str(caught.value)
    assert f"({status}), not retried" in message and server.base_url in message and "local-user" in message
    assert server.stats.requests == 1


@pytest.mark.parametrize("transport", ["litellm", "direct"])
@pytest.mark.parametrize("mode", ["sync", "async"])
def test_a_trickling_server_is_cut_off_at_the_whole_call_deadline(transport: str, mode: str) -> None:
    # the reply is a few hundred bytes at one byte per 0.3 s: minutes, while every read stays alive
    with ChatServer(CannedResponder([Reply(text="Hello there.")]), faults=FaultSchedule(["trickle"], repeat=True),
                    trickle_seconds=0.3) as server:
        proxy = make_proxy(SPECS[transport], base_url=server.base_url, timeout=1.5, max_retries=0)
        proxy.reset(load_tasks("airline", source="bundled")[0], 0)
        started = time.monotonic()
        with pytest.raises(ProxyError) as caught:
            if mode == "sync":
                proxy.respond(VIEW)
            else:
                asyncio.run(proxy.arespond(VIEW))
        elapsed = time.monotonic() - started
    message = str(caught.value)
    assert "DeadlineExceeded: no complete reply within 1.5 s from" in message and server.base_url in message
    assert elapsed < 30  # far below the trickle's minutes (a deadline per read would never fire)


def test_eval_exits_nonzero_naming_the_error_when_every_episode_errored(tmp_path, capsys) -> None:
    with ChatServer(CannedResponder([Reply(text="unused")]), faults=FaultSchedule(["401"], repeat=True)) as server:
        code = main(["eval", "--proxy", "direct:local-user", "--base-url", server.base_url, "--domain", "airline",
                     "--limit", "2", "--proxy-retries", "0", "--proxy-timeout", "5", "--proxy-max-tokens", "32",
                     "--no-progress", "--out", str(tmp_path / "run.jsonl")])
    err = capsys.readouterr().err
    assert code == 1
    assert "every episode run ended in an infrastructure error (2)" in err and "(401), not retried" in err
    assert server.stats.requests == 2 and all(body["max_tokens"] == 32 for body in server.stats.bodies)
