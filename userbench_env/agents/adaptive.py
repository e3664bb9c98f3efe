"""AdaptiveScriptedAgent: the oracle agent that asks only for what it has not been told.

Same plan as :class:`~userbench_env.agents.scripted.ScriptedAgent` (ask for the
known-info items the gold actions use, run the gold actions, state the facts, close),
with one difference: it reads the conversation. Before asking for an item it checks
what the user has said so far (every observation that was not a tool result), and
skips the question when the item's value is already there (case-insensitive; a name
counts when all its words were said). Against a user who volunteers identifiers
unasked (``perturbed:volunteers_unasked_info@...``) it therefore asks fewer questions;
against a faithful user it plays exactly the scripted agent's turns.
"""
from __future__ import annotations

from typing import Any

from userbench_env.agents.scripted import ScriptedAgent, item_question, needed_items
from userbench_env.core.task import KnownInfoItem, Task


def told(item: KnownInfoItem, heard: str) -> bool:
    """Whether ``heard`` (the user's words so far, lower-cased) already holds the item's value."""
    value = item.value.lower()
    if value in heard:
        return True
    words = set(heard.replace(",", " ").replace(".", " ").split())
    return item.kind == "name" and all(w in words for w in value.split())


class AdaptiveScriptedAgent(ScriptedAgent):
    """The oracle agent that skips questions the user already answered (module docstring)."""

    name = "adaptive-oracle"

    def __init__(self) -> None:
        super().__init__()
        self.questions: dict[str, KnownInfoItem] = {}
        self.heard = ""
        self._last = ""

    def reset(self, task: Task) -> None:
        """Build the scripted plan for ``task`` and forget what was heard."""
        super().reset(task)
        self.questions = {item_question(item): item for item in needed_items(task)}
        self.heard = ""
        self._last = ""

    def act(self, observation: str, info: dict[str, Any] | None = None) -> str:
        """The next planned action, skipping questions whose answer was already heard."""
        if not self._last.startswith("{"):  # the observation answers a message, not a tool call
            self.heard += "\n" + str(observation).lower()
        while self._next < len(self.plan) - 1:
            item = self.questions.get(self.plan[self._next])
            if item is None or not told(item, self.heard):
                break
            self._next += 1
        self._last = super().act(observation, info)
        return self._last
