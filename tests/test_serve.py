"""The local OpenAI-compatible chat server, over real HTTP (no litellm here)."""
from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from typing import Any

import aiohttp
import pytest

from userbench_env.core.messages import Message, ToolCall
from userbench_env.proxies.base import UserView
from userbench_env.proxies.chat import chat_to_view, parse_arguments, view_to_chat
from userbench_env.serve import CannedResponder, ChatServer, FaultSchedule, Reply, ScriptedUserResponder
from userbench_env.serve.responders import scenario_of
from userbench_env.serve.server import estimate_tokens


class BarrierResponder:
    """Answers only once ``size`` requests are waiting: proves they were all in flight."""

    def __init__(self, size: int) -> None:
        self.size = size
        self.arrived = 0
        self.event: asyncio.Event | None = None

    async def reply(self, request: dict[str, Any]) -> Reply:
        if self.event is None:
            self.event = asyncio.Event()
        self.arrived += 1
        if self.arrived >= self.size:
            self.event.set()
        await self.event.wait()
        return Reply(text=request["messages"][-1]["content"].upper())


def post(server: ChatServer, body: dict[str, Any], timeout: float = 10.0) -> tuple[int, bytes]:
    request = urllib.request.Request(
        server.base_url + "/chat/completions", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read()


def chat(*contents: str) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "sys"}]
    for i, content in enumerate(contents):
        messages.append({"role": "user" if i % 2 == 0 else "assistant", "content": content})
    return {"model": "local", "messages": messages}


def test_canned_replies_follow_conversation_position() -> None:
    with ChatServer(CannedResponder(["first", "second"])) as server:
        assert server.base_url.startswith("http://127.0.0.1:") and server.port > 0
        answers = []
        for contents in (("a",), ("a", "x", "b"), ("a", "x", "b", "y", "c")):
            status, raw = post(server, chat(*contents))
            assert status == 200
            answers.append(json.loads(raw)["choices"][0]["message"]["content"])
        assert answers == ["first", "second", "first"]
        assert server.stats.requests == 3 and server.stats.max_in_flight == 1
        assert [b["messages"][-1]["content"] for b in server.stats.bodies] == ["a", "b", "c"]


def test_completion_shape_and_usage_estimate() -> None:
    call = ToolCall(id="c1", name="toggle_data", arguments={"on": True})
    with ChatServer(CannedResponder([Reply(text="doing it", tool_calls=[call])])) as server:
        body = chat("please toggle data")
        status, raw = post(server, body)
    completion = json.loads(raw)
    assert status == 200 and completion["object"] == "chat.completion" and completion["model"] == "local"
    choice = completion["choices"][0]
    assert choice["finish_reason"] == "tool_calls"
    tool_call = choice["message"]["tool_calls"][0]
    assert tool_call["id"] == "c1" and tool_call["function"]["name"] == "toggle_data"
    assert json.loads(tool_call["function"]["arguments"]) == {"on": True}
    usage = completion["usage"]
    assert usage["prompt_tokens"] == estimate_tokens(json.dumps(body["messages"]) + json.dumps([]))
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"]


@pytest.mark.parametrize(
    ("fault", "status"),
    [("429", 429), ("500", 500), ("503", 503), ("malformed_json", 200), ("garbage", 200),
     ("empty_choices", 200), ("blank", 200), ("bad_tool_args", 200)],
)
def test_each_fault_then_recovery(fault: str, status: int) -> None:
    call = ToolCall(name="f", arguments={"x": 1})
    with ChatServer(CannedResponder([Reply(tool_calls=[call])]), faults=fault) as server:
        got_status, raw = post(server, chat("hi"))
        ok_status, ok_raw = post(server, chat("hi"))
    assert got_status == status
    assert ok_status == 200 and json.loads(ok_raw)["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"] == '{"x": 1}'
    if fault == "malformed_json":
        with pytest.raises(json.JSONDecodeError):
            json.loads(raw)
        return
    data = json.loads(raw)
    if status >= 400:
        assert data["error"]["code"] == status
    elif fault == "garbage":
        assert not isinstance(data["choices"], list)
    elif fault == "empty_choices":
        assert data["choices"] == []
    elif fault == "blank":
        assert data["choices"][0]["message"]["content"] == "" and "tool_calls" not in data["choices"][0]["message"]
    else:
        with pytest.raises(json.JSONDecodeError):
            json.loads(data["choices"][0]["message"]["tool_calls"][0]["function"]["arguments"])
    assert server.stats.faults == {fault: 1, "ok": 1}


def test_hang_holds_until_the_client_gives_up_and_server_keeps_serving() -> None:
    with ChatServer(CannedResponder(["fine"]), faults="hang", hang_seconds=60) as server:
        with pytest.raises(TimeoutError):
            post(server, chat("hi"), timeout=0.3)
        status, raw = post(server, chat("hi"))
        assert status == 200 and json.loads(raw)["choices"][0]["message"]["content"] == "fine"
    assert server.stats.faults == {"hang": 1, "ok": 1}


def test_hang_gives_up_with_504_after_hang_seconds() -> None:
    with ChatServer(CannedResponder(["fine"]), faults="hang", hang_seconds=0.05) as server:
        status, _ = post(server, chat("hi"))
    assert status == 504


def test_bad_requests_are_400() -> None:
    with ChatServer(CannedResponder(["x"])) as server:
        request = urllib.request.Request(server.base_url + "/chat/completions", data=b"{nope", method="POST")
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(request, timeout=5)
        assert info.value.code == 400
        assert post(server, {**chat("a"), "stream": True})[0] == 400


def test_fault_schedule_text_forms() -> None:
    once = FaultSchedule.parse("429,500")
    assert [once.next() for _ in range(4)] == ["429", "500", "ok", "ok"]
    repeated = FaultSchedule.parse("500,ok*")
    assert [repeated.next() for _ in range(5)] == ["500", "ok", "500", "ok", "500"]
    assert FaultSchedule.parse(None).next() == "ok"
    for bad in ("teapot", "200", "42"):
        with pytest.raises(ValueError):
            FaultSchedule.parse(bad)


def test_many_concurrent_connections_on_one_loop() -> None:
    size = 100

    async def main(url: str) -> list[str]:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0)) as session:
            async def one(i: int) -> str:
                async with session.post(url, json=chat(f"m{i}"), timeout=aiohttp.ClientTimeout(total=60)) as r:
                    return (await r.json())["choices"][0]["message"]["content"]

            return await asyncio.gather(*(one(i) for i in range(size)))

    with ChatServer(BarrierResponder(size), latency=0.05) as server:
        answers = asyncio.run(main(server.base_url + "/chat/completions"))
    assert answers == [f"M{i}" for i in range(size)]
    assert server.stats.max_in_flight == size and server.stats.in_flight == 0


def test_view_chat_round_trip() -> None:
    call = ToolCall(id="u1", name="check_status_bar", arguments={}, requestor="user")
    view = UserView(
        messages=[
            Message(role="assistant", content="Hi! How can I help you today?"),
            Message(role="user", content="My data is slow."),
            Message(role="assistant", content="Please check your status bar."),
            Message(role="user", tool_calls=[call]),
            Message(role="tool", content="4G, 2 bars", tool_call_id="u1", requestor="user"),
        ],
        tools=[{"type": "function", "function": {"name": "check_status_bar", "parameters": {"type": "object"}}}],
    )
    messages = view_to_chat("SYSTEM", view)
    assert [m["role"] for m in messages] == ["system", "user", "assistant", "user", "assistant", "tool"]
    assert messages[4]["tool_calls"][0]["id"] == messages[5]["tool_call_id"] == "u1"
    system, back = chat_to_view(messages, view.tools)
    assert system == "SYSTEM" and back.tools == view.tools
    strip = lambda v: [(m.role, m.content, m.tool_calls, m.tool_call_id) for m in v.messages]  # noqa: E731
    assert strip(back) == strip(view)


def test_unnamed_tool_calls_pair_with_their_results() -> None:
    view = UserView(messages=[
        Message(role="assistant", content="Reboot please."),
        Message(role="user", tool_calls=[ToolCall(name="reboot_device", requestor="user")]),
        Message(role="tool", content="Rebooted.", requestor="user"),
    ])
    messages = view_to_chat("S", view)
    assert messages[2]["tool_calls"][0]["id"] == messages[3]["tool_call_id"] == "user_call_0"


def test_parse_arguments() -> None:
    assert parse_arguments('{"a": 1}') == {"a": 1} and parse_arguments("") == {} and parse_arguments({"b": 2}) == {"b": 2}
    for bad in ("{oops", "[1, 2]", "3"):
        with pytest.raises(ValueError):
            parse_arguments(bad)


def test_scripted_user_responder_rejects_unknown_scenarios(tau2_data) -> None:
    from userbench_env.tasks import load_tasks

    tasks = load_tasks("airline", source="tau2", split="base")[:3]
    with ChatServer(ScriptedUserResponder(tasks)) as server:
        status, raw = post(server, {"model": "m", "messages": [{"role": "system", "content": "<scenario>\nnope\n</scenario>"}]})
        assert status == 400 and "no known task" in json.loads(raw)["error"]["message"]
        status, _ = post(server, {"model": "m", "messages": [{"role": "system", "content": "no block"}]})
        assert status == 400
    assert scenario_of("G\n\n<scenario>\nA\nB\n</scenario>") == "A\nB"


def test_userbench_serve_command_runs_a_server() -> None:
    code = (
        "import argparse, sys\n"
        "from userbench_env.serve.cli import register\n"
        "p = argparse.ArgumentParser(); register(p.add_subparsers(dest='command'))\n"
        "a = p.parse_args(sys.argv[1:]); sys.exit(a.func(a))\n"
    )
    process = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--responder", "canned", "--reply", "pong", "--port", "0", "--faults", "429"],
        stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    try:
        line = process.stdout.readline()
        assert line.startswith("serving canned at http://127.0.0.1:"), line
        url = line.split(" at ")[1].split()[0]
        bodies = json.dumps(chat("ping")).encode()
        with pytest.raises(urllib.error.HTTPError) as info:
            urllib.request.urlopen(urllib.request.Request(url, data=bodies), timeout=10)
        assert info.value.code == 429
        with urllib.request.urlopen(urllib.request.Request(url, data=bodies), timeout=10) as response:
            assert json.loads(response.read())["choices"][0]["message"]["content"] == "pong"
    finally:
        process.terminate()
        process.wait(timeout=10)
