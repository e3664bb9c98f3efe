"""The local model server's parts that need no model: ChatML with tools both ways, and
the responder's contract over real HTTP (token cap, real usage, cancellation when the
client gives up, /v1/models) with an engine that emits a fixed text slowly.

The same server with SmolLM2 behind it is tested in ``test_realmodel.py``.
"""
from __future__ import annotations

import json
import threading
import time
import urllib.request

import pytest

from userbench_env.proxies import make_proxy
from userbench_env.proxies.base import ProxyError, UserView
from userbench_env.core.messages import Message
from userbench_env.serve import CannedResponder, ChatServer
from userbench_env.serve.chatml import parse_completion, render_prompt
from userbench_env.serve.engines import Generation, SamplingParams, common_prefix, cut_at_stop
from userbench_env.serve.model_server import ModelResponder
from userbench_env.tasks import load_tasks

TOOLS = [{"type": "function", "function": {"name": "get_user", "description": "a user", "parameters": {
    "type": "object", "properties": {"user_id": {"type": "string"}}}}}]


def test_prompt_carries_tools_calls_and_results() -> None:
    messages = [
        {"role": "system", "content": "Policy."},
        {"role": "user", "content": "I am mia_1."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_user", "arguments": '{"user_id": "mia_1"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"name": "Mia"}'},
        {"role": "tool", "tool_call_id": "c2", "content": "second"},
    ]
    prompt = render_prompt(messages, TOOLS)
    assert prompt.startswith("<|im_start|>system\nPolicy.\n\n# Tools")
    assert '"name": "get_user"' in prompt.split("</tools>")[0]
    assert '<|im_start|>assistant\n<tool_call>\n{"name": "get_user", "arguments": {"user_id": "mia_1"}}\n</tool_call><|im_end|>' in prompt
    assert ('<|im_start|>user\n<tool_response>\n{"name": "Mia"}\n</tool_response>\n<tool_response>\nsecond\n'
            '</tool_response><|im_end|>\n<|im_start|>assistant\n') in prompt
    assert "# Tools" not in render_prompt(messages[:2])
    with pytest.raises(ValueError, match="unknown role"):
        render_prompt([{"role": "narrator", "content": "x"}])


def test_completion_tool_calls_are_parsed_and_odd_ones_kept_as_text() -> None:
    good = parse_completion('Let me look.\n<tool_call>\n{"name": "get_user", "arguments": {"user_id": "a"}}\n</tool_call>', TOOLS)
    assert good.text == "Let me look." and [c.name for c in good.tool_calls] == ["get_user"] and good.odd == []
    assert good.tool_calls[0].arguments == {"user_id": "a"}
    unclosed = parse_completion('<tool_call>{"name": "get_user", "arguments": "{\\"user_id\\": \\"b\\"}"}', TOOLS)
    assert unclosed.tool_calls[0].arguments == {"user_id": "b"} and unclosed.text is None
    bad = parse_completion("<tool_call>{name: get_user}</tool_call>", TOOLS)
    assert bad.tool_calls == [] and bad.odd == ["bad_tool_call"] and "get_user" in bad.text
    unknown = parse_completion('<tool_call>{"name": "rm", "arguments": {}}</tool_call>', TOOLS)
    assert unknown.odd == ["unknown_tool"] and unknown.tool_calls == []
    assert parse_completion('<tool_call>{"name": "get_user", "arguments": {}}</tool_call>').tool_calls == []  # no tools offered
    assert parse_completion("  \n").odd == ["empty"]


def test_common_prefix_of_token_lists() -> None:
    assert common_prefix([1, 2, 3], [1, 2, 4, 5]) == 2
    assert common_prefix([1, 2], [1, 2, 3]) == 2 and common_prefix([], [1]) == 0 and common_prefix([7], [8]) == 0


def test_cut_at_stop_takes_the_earliest_stop() -> None:
    assert cut_at_stop("Hi<|im_start|>user<|im_end|>", ["<|im_end|>", "<|im_start|>"]) == ("Hi", True)
    assert cut_at_stop("Hi", ["<|im_end|>"]) == ("Hi", False)


class SlowEngine:
    """Emits ``text`` word by word, ``delay`` s per word, honouring the cap and cancellation."""

    name = "slow"
    model_path = None

    def __init__(self, text: str, delay: float) -> None:
        self.text, self.delay = text, delay
        self.params: list[SamplingParams] = []

    def generate(self, prompt: str, params: SamplingParams, cancelled: threading.Event) -> Generation:
        self.params.append(params)
        words = self.text.split()
        out: list[str] = []
        for word in words[:params.max_tokens]:
            if cancelled.is_set():
                return Generation(text=" ".join(out), prompt_tokens=len(prompt.split()), completion_tokens=len(out),
                                  finish_reason="cancelled")
            time.sleep(self.delay)
            out.append(word)
        reason = "stop" if len(out) == len(words) else "length"
        return Generation(text=" ".join(out), prompt_tokens=len(prompt.split()), completion_tokens=len(out), finish_reason=reason)


def _proxy(server: ChatServer, **options):
    proxy = make_proxy("direct:local-model", base_url=server.base_url, backoff=0.001, **options)
    proxy.reset(load_tasks("airline", source="bundled")[0], 0)
    return proxy


VIEW = UserView(messages=[Message(role="assistant", content="Hi! How can I help you today?", turn=0)], tools=[])


def test_usage_is_the_engines_count_and_max_tokens_is_capped() -> None:
    engine = SlowEngine("one two three four five six", 0.0)
    responder = ModelResponder(engine, parallel=2, max_tokens_cap=4)
    with ChatServer(responder, model_name="m") as server:
        proxy = _proxy(server, max_tokens=100)
        turn = proxy.respond(VIEW)
        with urllib.request.urlopen(f"{server.base_url}/models") as answer:
            listed = json.load(answer)
    responder.close()
    assert turn.text == "one two three four" and engine.params[0].max_tokens == 4
    assert turn.usage.completion_tokens == 4 == responder.served["completion_tokens"]
    assert turn.usage.prompt_tokens == responder.served["prompt_tokens"] > 0
    assert responder.odd["length"] == 1 and [m["id"] for m in listed["data"]] == ["m"]


def test_a_client_that_gives_up_stops_the_generation() -> None:
    engine = SlowEngine(" ".join(["word"] * 200), 0.05)  # 10 s if left running
    responder = ModelResponder(engine, parallel=1, max_tokens_cap=500)
    with ChatServer(responder) as server:
        proxy = _proxy(server, timeout=0.5, max_retries=0)
        started = time.monotonic()
        with pytest.raises(ProxyError):
            proxy.respond(VIEW)
        while responder.generating and time.monotonic() - started < 5:
            time.sleep(0.02)
        stopped = time.monotonic() - started
    responder.close()
    assert responder.generating == 0 and stopped < 3, "the server kept generating after the client left"
    assert responder.cancelled == 1 and responder.odd["cancelled"] == 1


def test_userbench_serve_lists_its_model() -> None:
    with ChatServer(CannedResponder(["ok"])) as server:
        with urllib.request.urlopen(f"{server.base_url}/models") as answer:
            assert json.load(answer)["data"][0]["id"] == "local"
