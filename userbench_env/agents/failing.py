"""Agents that fail their users on purpose: the opposite side of the test that UFS is
scored independently of the agent's success (a faithful user facing any of these must
still pass UFS).

* :class:`EarlyCloser`: closes at once ("Is there anything else I can help you with?"),
  doing nothing;
* :class:`FalseDone`: claims the request is done without doing anything;
* :class:`Refuser`: refuses every request;
* :class:`RandomAgent`: each turn one of: a courtesy, a question for a random item, a
  request for a random user tool, a random agent tool call (empty arguments), a closing,
  a false "done" claim, a refusal (seeded);
* :class:`MixedFailures`: per episode one of the above, drawn from its seed.

Build them from specs ``failing:early-closer``, ``failing:false-done``,
``failing:refuser``, ``failing:random`` and ``failing:mixed`` (see :data:`FAILING_AGENTS`).
"""
from __future__ import annotations

import json
import random
from typing import Any

from userbench_env.core.task import Task

CLOSING = "Is there anything else I can help you with?"
FALSE_DONE = "I've taken care of that for you: your request is complete. Is there anything else I can help you with?"
REFUSAL = "I'm sorry, but I can't help with that request. Is there anything else I can help you with?"
#: Item requests the random agent draws from.
ITEM_QUESTIONS = ("Could you please tell me your user id?", "What is your email address?", "What is your zip code?",
                  "Could you give me your reservation number?", "What is your phone number?", "What's your full name?",
                  "Which order is it about?")
COURTESIES = ("Hello! How can I help you today?", "Thank you, let me check that for you.",
              "Could you give me more details about your request?", "I see. One moment please.")


class _Failing:
    """An agent answering every turn with :meth:`say` (``reset(task)``, ``act(observation, info)``)."""

    name = "failing"

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed
        self.task: Task | None = None
        self.rng = random.Random(seed)

    def reset(self, task: Task) -> None:
        """Start an episode of ``task``."""
        self.task = task

    def act(self, observation: str, info: dict[str, Any] | None = None) -> str:
        """The next action (a text message or a JSON tool call)."""
        return self.say(info or {})

    def say(self, info: dict[str, Any]) -> str:
        raise NotImplementedError


class EarlyCloser(_Failing):
    """Closes the conversation at every turn without doing anything."""

    name = "early-closer"

    def say(self, info: dict[str, Any]) -> str:
        return CLOSING


class FalseDone(_Failing):
    """Claims the request is done, having done nothing."""

    name = "false-done"

    def say(self, info: dict[str, Any]) -> str:
        return FALSE_DONE


class Refuser(_Failing):
    """Refuses every request."""

    name = "refuser"

    def say(self, info: dict[str, Any]) -> str:
        return REFUSAL


class RandomAgent(_Failing):
    """Acts at random (seeded): courtesies, item questions, user-tool requests, agent tool
    calls with empty arguments, closings, false "done" claims and refusals."""

    name = "random"

    def reset(self, task: Task) -> None:
        super().reset(task)
        self._agent_tools: list[str] = []

    def act(self, observation: str, info: dict[str, Any] | None = None) -> str:
        tools = (info or {}).get("tools")
        if tools:  # the reset info lists the agent's tools
            self._agent_tools = [t.get("function", t).get("name") for t in tools if t.get("function", t).get("name")]
        return self.say(info or {})

    def say(self, info: dict[str, Any]) -> str:
        from userbench_env.fidelity.criteria import user_tool_names

        rng = self.rng
        user_tools = user_tool_names(self.task) if self.task is not None else []
        # ending moves (a closing, a false claim, a refusal) drawn less often than the others
        choices = [lambda: rng.choice(COURTESIES), lambda: rng.choice(ITEM_QUESTIONS), lambda: rng.choice(ITEM_QUESTIONS),
                   lambda: rng.choice((CLOSING, FALSE_DONE, REFUSAL))]
        if self._agent_tools:
            choices.append(lambda: json.dumps({"name": rng.choice(self._agent_tools), "arguments": {}}))
        if user_tools:
            choices += [lambda: f"Could you please run {rng.choice(user_tools)} on your side?"] * 2
        return rng.choice(choices)()


class MixedFailures(_Failing):
    """Per episode, one of the failing agents above (drawn from the seed)."""

    name = "mixed"

    def reset(self, task: Task) -> None:
        kind = self.rng.choice([EarlyCloser, FalseDone, Refuser, RandomAgent])
        self._inner = kind(self.rng.randrange(1 << 30))
        self._inner.reset(task)
        super().reset(task)

    def act(self, observation: str, info: dict[str, Any] | None = None) -> str:
        return self._inner.act(observation, info)


#: Spec names (``failing:<name>``) of the failing agents.
FAILING_AGENTS: dict[str, type[_Failing]] = {cls.name: cls for cls in (EarlyCloser, FalseDone, Refuser, RandomAgent, MixedFailures)}


def make_failing_agent(name: str, seed: int | None = None) -> _Failing:
    """The failing agent called ``name`` (``ValueError`` naming the known ones)."""
    if name not in FAILING_AGENTS:
        raise ValueError(f"unknown failing agent {name!r}; known: {', '.join(FAILING_AGENTS)}")
    return FAILING_AGENTS[name](seed)
