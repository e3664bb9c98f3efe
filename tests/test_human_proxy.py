"""The human proxy shows the person the scenario they are to play, then the conversation."""
from __future__ import annotations

import io

from userbench_env.core.messages import Message
from userbench_env.proxies.base import UserView
from userbench_env.proxies.human import HumanUserProxy
from userbench_env.proxies.prompt import render_scenario
from userbench_env.tasks import load_tasks


def test_the_person_sees_the_scenario_their_tools_and_the_agent() -> None:
    task = next(t for t in load_tasks("telecom", "bundled"))
    out = io.StringIO()
    proxy = HumanUserProxy(read=lambda: "My phone has no data.\n", out=out)
    proxy.reset(task)
    shown = out.getvalue()
    assert render_scenario(task).strip() in shown and "###STOP###" in shown
    tools = [{"type": "function", "function": {"name": "toggle_airplane_mode", "parameters": {}}}]
    view = UserView(messages=[Message(role="assistant", content="Hi! How can I help you today?")], tools=tools)
    assert proxy.respond(view).text == "My phone has no data."
    rest = out.getvalue()[len(shown):]
    assert "[your tools] toggle_airplane_mode" in rest and "[assistant] Hi! How can I help you today?" in rest
