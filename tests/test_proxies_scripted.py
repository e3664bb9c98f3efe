"""The scripted, replay and human proxies and proxy spec strings."""
from __future__ import annotations

import io
import json

import pytest

from userbench_env.core.messages import Message
from userbench_env.domains import make_world
from userbench_env.proxies import ProxyError, make_proxy, register_proxy_spec
from userbench_env.proxies.human import HumanUserProxy
from userbench_env.proxies.replay import ReplayUserProxy
from userbench_env.proxies.scripted import STILL_OPEN, ScriptedUserProxy, first_person
from userbench_env.proxies.spec import PROXY_SPECS
from userbench_env.tasks import load_task, load_tasks

GREETING = Message(role="assistant", content="Hi! How can I help you today?")


def _view(*texts: str, tools=None):
    from userbench_env.proxies.base import UserView

    messages = [GREETING]
    for i, text in enumerate(texts):
        messages.append(Message(role="user" if i % 2 == 0 else "assistant", content=text))
    return UserView(messages=messages, tools=tools or [])


def _proxy(domain="airline", task_id="0") -> ScriptedUserProxy:
    proxy = ScriptedUserProxy()
    proxy.reset(load_task(domain, task_id, source="tau2"))
    return proxy


def test_opening_is_the_reason_for_calling_in_first_person_without_known_values():
    proxy = _proxy()
    text = proxy.respond(_view()).text
    assert text.startswith("Hi. I want to cancel reservation EHGLP3.")
    assert "emma_kim_9957" not in text
    assert first_person("You want your refund because you are sick.") == "I want my refund because I am sick."


def test_answers_known_items_when_asked_and_admits_unknown_ones():
    proxy = _proxy("retail", "0")
    opening = proxy.respond(_view()).text
    reply = proxy.respond(_view(opening, "Could you tell me your email, name and zip code?")).text
    assert "My name is Yusuf Rossi." in reply and "My zip code is 19122." in reply
    assert "I don't know my email." in reply
    order = proxy.respond(_view(opening, "Which order number is it?")).text
    assert order == "My order number is #W2378156."


def test_stop_and_transfer_tokens():
    proxy = _proxy()
    # a closing stops the user once, as far as it can know, its request is dealt with ...
    assert proxy.respond(_view("hi", "Your booking is confirmed. Is there anything else I can help you with?")).stop == "STOP"
    assert proxy.respond(_view("hi", "I'm sorry, I can't do that. Is there anything else?")).stop == "STOP"
    # ... and not while it is open: the user says so (issue 22: a bare "anything else?" must not end its goal)
    open_turn = proxy.respond(_view("hi", "Is there anything else I can help you with?"))
    assert open_turn.stop is None and open_turn.text == STILL_OPEN
    assert proxy.respond(_view("hi", "I am transferring you to a human agent now.")).stop == "TRANSFER"
    assert proxy.respond(_view("hi", "Shall I proceed with the cancellation?")).text == "Yes, please go ahead."
    assert proxy.respond(_view("hi", "What is your favourite colour?")).text == "I'm sorry, I don't know."


def test_user_actions_one_call_then_report_exactly_what_the_tool_returned():
    task = load_tasks("telecom", source="tau2", split="base")[0]
    world = make_world("telecom", source="tau2", task=task)
    tools = world.tool_schemas("user")
    proxy = ScriptedUserProxy()
    proxy.reset(task)
    view = _view("hi", 'Could you please run toggle_wifi_calling on your side with these arguments: {}?', tools=tools)
    turn = proxy.respond(view)
    assert turn.text is None and turn.tool_call.name == "toggle_wifi_calling" and turn.tool_call.requestor == "user"
    result = world.execute(turn.tool_call)
    view.messages += [Message(role="user", tool_calls=[turn.tool_call]), Message(role="tool", content=result.content, requestor="user")]
    report = proxy.respond(view).text
    assert report == f"I did that. Here is what it showed: {result.content}"
    arguments = proxy.respond(_view("hi", 'Please run set_network_mode_preference with {"mode": "4g_only"}.', tools=tools))
    assert arguments.tool_call.name == "set_network_mode_preference" and arguments.tool_call.arguments == {"mode": "4g_only"}


def test_scripted_proxy_is_deterministic():
    a, b = _proxy("airline", "3"), _proxy("airline", "3")
    view = _view("x", "Could you give me your user id and reservation number?")
    assert a.respond(view) == b.respond(view)
    assert "JMO1MG" in a.respond(view).text and "anya_garcia_5901" in a.respond(view).text


def test_replay_proxy_replays_a_record_and_errors_when_exhausted(tmp_path):
    record = {"task_id": "0", "messages": [
        {"role": "assistant", "content": "Hi!"}, {"role": "user", "content": "I need help."},
        {"role": "user", "tool_calls": [{"name": "check_status_bar", "arguments": {}}]},
        {"role": "user", "content": "Bye ###STOP###"}]}
    path = tmp_path / "episodes.jsonl"
    path.write_text(json.dumps({"task_id": "9", "messages": []}) + "\n" + json.dumps(record) + "\n")
    proxy = make_proxy(f"replay:{path}")
    proxy.reset(load_task("airline", "0", source="tau2"))
    turns = [proxy.respond(_view()) for _ in range(3)]
    assert [t.text for t in turns] == ["I need help.", None, "Bye ###STOP###"]
    assert turns[1].tool_call.name == "check_status_bar"
    with pytest.raises(ProxyError):
        proxy.respond(_view())
    assert proxy.provenance["model"] == str(path)
    proxy.reset(load_task("airline", "0", source="tau2"))
    assert proxy.respond(_view()).text == "I need help."


def test_human_proxy_reads_lines_and_tool_commands():
    lines = iter(["hello there\n", '/tool toggle_data {"x": 1}\n', ""])
    out = io.StringIO()
    proxy = HumanUserProxy(read=lambda: next(lines), out=out)
    proxy.reset(load_task("airline", "0", source="tau2"))
    assert proxy.respond(_view()).text == "hello there"
    call = proxy.respond(_view()).tool_call
    assert (call.name, call.arguments) == ("toggle_data", {"x": 1})
    with pytest.raises(ProxyError):
        proxy.respond(_view())
    assert "Hi! How can I help you today?" in out.getvalue()


def test_spec_strings():
    assert isinstance(make_proxy("scripted"), ScriptedUserProxy)
    proxy = ScriptedUserProxy()
    assert make_proxy(proxy) is proxy
    with pytest.raises(ValueError, match="known kinds: .*human.*litellm.*replay.*scripted"):
        make_proxy("nope:x")
    with pytest.raises(ValueError, match="needs a file"):
        make_proxy("replay")
    with pytest.raises(ValueError, match="needs a model"):
        make_proxy("litellm:")
    register_proxy_spec("twice", lambda rest, **kw: make_proxy(rest))
    try:
        assert isinstance(make_proxy("twice:scripted"), ScriptedUserProxy)
    finally:
        PROXY_SPECS.pop("twice")
    listed = ReplayUserProxy([{"text": "hi"}, {"tool_call": {"name": "toggle_data"}}])
    listed.reset(load_task("airline", "0", source="tau2"))
    assert listed.respond(_view()).text == "hi" and listed.respond(_view()).tool_call.name == "toggle_data"
