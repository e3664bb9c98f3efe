"""Test helpers for the runner and wrapper tests: a proxy that breaks its contract on purpose."""
from __future__ import annotations

from userbench_env.proxies.base import UserTurn, UserView
from userbench_env.proxies.scripted import ScriptedUserProxy


class BlurtingUser(ScriptedUserProxy):
    """The scripted user, but its opening message states every known-info value
    (a premature disclosure whenever the blueprint has a checkable item)."""

    name = "blurting"

    def respond(self, view: UserView) -> UserTurn:
        """The scripted turn, with all known values appended to the opening."""
        turn = super().respond(view)
        if not any(m.role == "user" for m in view.messages):
            assert self.task is not None
            values = ", ".join(i.value for i in self.task.blueprint.known_info)
            return UserTurn(text=f"{turn.text} My details: {values}.")
        return turn
