"""HumanUserProxy: a person plays the user at the terminal (stdin/stdout).

At ``reset`` the person is shown the scenario they are to play (the text an LLM user
would get) and how to end; then the agent's new messages (and results of the person's
own tool calls, whose names are listed once) are printed and the person types one line. ``/tool <name> <json arguments>`` calls a user tool; end tokens
(``###STOP###`` ...) are typed as text. End of input is a ProxyError.
"""
from __future__ import annotations

import json
import sys
from typing import Any, Callable, TextIO

from userbench_env.core.messages import ToolCall
from userbench_env.proxies.base import ProxyError, UserProxy, UserTurn, UserView


class HumanUserProxy(UserProxy):
    """A person at the terminal (see the module docstring)."""

    name = "human"

    def __init__(self, read: Callable[[], str] | None = None, out: TextIO | None = None):
        super().__init__()
        self._read = read or sys.stdin.readline
        self._out = out or sys.stdout
        self._shown = 0

    def reset(self, task: Any, seed: int | None = None) -> None:
        """Start a new conversation: show the person the scenario to play."""
        from userbench_env.proxies.prompt import render_scenario

        super().reset(task, seed)
        self._shown = 0
        self._out.write(f"=== You are the customer. Your scenario: ===\n{render_scenario(task).strip()}\n"
                        "=== Type one message per line; end the conversation with ###STOP### ===\n")
        self._out.flush()

    def respond(self, view: UserView) -> UserTurn:
        """Show what is new in ``view`` and read the person's next line."""
        if self._shown == 0 and view.tools:
            names = ", ".join(tool["function"]["name"] for tool in view.tools)
            self._out.write(f"[your tools] {names} (call one with /tool <name> <json arguments>)\n")
        for message in view.messages[self._shown :]:
            if message.role != "user":
                self._out.write(f"[{message.role}] {message.content}\n")
        self._shown = len(view.messages) + 1
        self._out.write("[you] ")
        self._out.flush()
        line = self._read()
        if not line:
            raise ProxyError("human user: end of input")
        line = line.rstrip("\n")
        if line.startswith("/tool "):
            name, _, raw = line[len("/tool ") :].strip().partition(" ")
            try:
                arguments = json.loads(raw) if raw.strip() else {}
            except ValueError as exc:
                raise ProxyError(f"human user: bad tool arguments: {exc}") from exc
            return UserTurn(tool_call=ToolCall(name=name, arguments=arguments, requestor="user"))
        return UserTurn(text=line)
