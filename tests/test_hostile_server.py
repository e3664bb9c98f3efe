"""A hostile OpenAI-compatible server against both transports, blocking and not.

The local server (:class:`~userbench_env.serve.ChatServer`) plays each adversarial mode of
:mod:`userbench_env.serve.faults`; every path (direct and litellm, sync and async) must
give the same kind of outcome: a malformed reply is retried and never becomes a turn, a
reply not complete at the deadline is ``DeadlineExceeded``, a redirect is never followed
and names its location, bursts of 4xx/5xx are retried. Real HTTP on 127.0.0.1 only.
"""
from __future__ import annotations

import asyncio
import time

import pytest

from test_direct_transport import TOOL_REPLY, fault_view
from test_llm_proxy import PRICES
from userbench_env.agents import AgentError
from userbench_env.agents.llm import LLMAgent
from userbench_env.core.messages import ToolCall
from userbench_env.proxies.base import ProxyError, UserTurn
from userbench_env.proxies.llm import LLMUserProxy
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule
from userbench_env.tasks import load_tasks
from userbench_env.transport import MAX_REPLY_BYTES

pytestmark = [pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning"),
              pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")]

PATHS = [(transport, mode) for transport in ("direct", "litellm") for mode in ("sync", "async")]
#: replies that are answered (and billed) but are no usable turn
MALFORMED = ["empty_choices", "null_content", "bad_tool_call", "bad_tool_args", "invalid_utf8", "huge",
             "malformed_json", "garbage"]
#: replies whose usage counts are not token counts
ABSURD_USAGE = ["usage_negative", "usage_absurd", "usage_fraction"]
#: replies still arriving at the deadline
TRICKLES = ["trickle", "trickle_unsized", "trickle_headers", "trickle_sse"]


def served_call(server: ChatServer) -> ToolCall:
    """The tool call of the server's last reply, as the user's turn (its id names the request)."""
    return ToolCall(id=f"call_{server.stats.requests}_0", name="check_status_bar", arguments={}, requestor="user")


@pytest.fixture(scope="module")
def task():
    from userbench_env.pricing import import_litellm

    import_litellm().get_llm_provider("openai/local-user")  # litellm's import is not part of any deadline
    return load_tasks("airline", source="bundled")[0]


def hostile(faults: list[str], repeat: bool = False, **options) -> ChatServer:
    return ChatServer(CannedResponder([TOOL_REPLY]), faults=FaultSchedule(faults, repeat=repeat), hang_seconds=20,
                      huge_bytes=MAX_REPLY_BYTES + 1, **options)


def ask(server: ChatServer, task, transport: str, mode: str, **options) -> tuple[LLMUserProxy, UserTurn]:
    settings = dict(base_url=server.base_url, api_key="sk-local", timeout=10.0, backoff=0.001, max_retries=1,
                    price_override=PRICES, transport=transport)
    proxy = LLMUserProxy("openai/local-user", **{**settings, **options})
    proxy.reset(task, 0)
    turn = proxy.respond(fault_view()) if mode == "sync" else asyncio.run(proxy.arespond(fault_view()))
    return proxy, turn


@pytest.mark.parametrize("transport,mode", PATHS)
@pytest.mark.parametrize("fault", MALFORMED + ABSURD_USAGE)
def test_a_malformed_reply_is_retried_and_never_a_turn(task, fault: str, transport: str, mode: str) -> None:
    with hostile([fault]) as server:
        proxy, turn = ask(server, task, transport, mode)
    assert turn.tool_call == served_call(server) and server.stats.faults == {fault: 1, "ok": 1}
    # absurd counts are never counted: only sane ones reach the usage
    assert 0 < proxy.usage.prompt_tokens < 10_000 and 0 < proxy.usage.completion_tokens < 10_000


@pytest.mark.parametrize("transport", ["direct", "litellm"])
@pytest.mark.parametrize("fault", MALFORMED + ABSURD_USAGE)
def test_a_server_that_only_answers_malformed_replies_is_a_proxy_error(task, fault: str, transport: str) -> None:
    with hostile([fault], repeat=True) as server:
        with pytest.raises(ProxyError, match="failed after 2 attempts") as caught:
            ask(server, task, transport, "sync")
    assert server.stats.faults == {fault: 2}
    if transport == "direct" or fault in ("empty_choices", "null_content", "huge", "usage_negative"):
        assert "MalformedReply" in str(caught.value)


@pytest.mark.parametrize("fault", ["bad_tool_call", "usage_absurd", "invalid_utf8"])
def test_the_agent_meets_malformed_replies_as_agent_errors(task, fault: str) -> None:
    with hostile([fault], repeat=True) as server:
        agent = LLMAgent("openai/local-agent", base_url=server.base_url, api_key="sk-local", timeout=10.0,
                         backoff=0.001, max_retries=1, transport="direct")
        with pytest.raises(AgentError, match="failed after 2 attempts: MalformedReply"):
            agent.act("Hi, I need help.", {"system_prompt": "policy", "tools": []})


@pytest.mark.parametrize("transport,mode", PATHS)
@pytest.mark.parametrize("fault", TRICKLES)
def test_a_reply_not_complete_at_the_deadline_is_deadline_exceeded(task, fault: str, transport: str,
                                                                    mode: str) -> None:
    # whole completions, sized or not, event streams and headers, all a byte per 0.2 s: minutes
    with hostile([fault], repeat=True, trickle_seconds=0.2) as server:
        started = time.monotonic()
        with pytest.raises(ProxyError) as caught:
            ask(server, task, transport, mode, timeout=1.0, max_retries=0)
        elapsed = time.monotonic() - started
    assert "failed after 1 attempts: DeadlineExceeded: no complete reply within 1 s from" in str(caught.value)
    assert elapsed < 10


@pytest.mark.parametrize("transport,mode", PATHS)
def test_a_redirect_is_never_followed_and_names_its_location(task, transport: str, mode: str) -> None:
    with ChatServer(CannedResponder([TOOL_REPLY])) as elsewhere:
        target = f"{elsewhere.base_url}/chat/completions"
        with hostile(["redirect"], repeat=True, redirect_to=target) as server:
            with pytest.raises(ProxyError) as caught:
                ask(server, task, transport, mode, max_retries=3)
    message = str(caught.value)
    assert f"the server redirected (HTTP 307) to {target}; redirects are not followed" in message
    assert "attempts" not in message  # a wrong base_url: not retried
    assert server.stats.requests == 1 and elsewhere.stats.requests == 0


@pytest.mark.parametrize("transport,mode", PATHS)
def test_bursts_of_4xx_and_5xx_are_retried_then_exhausted(task, transport: str, mode: str) -> None:
    burst = ["429", "500", "502", "503", "429"]
    with hostile(burst) as server:
        proxy, turn = ask(server, task, transport, mode, max_retries=len(burst))
    assert turn.tool_call == served_call(server) and proxy.usage.calls == 1
    assert server.stats.faults == {"429": 2, "500": 1, "502": 1, "503": 1, "ok": 1}
    with hostile(burst, repeat=True) as server:
        with pytest.raises(ProxyError, match="failed after 3 attempts"):
            ask(server, task, transport, mode, max_retries=2)
    assert server.stats.requests == 3
