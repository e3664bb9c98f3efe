"""Persona policies that drive a surface env: an LLM persona player and scripted ones.

A player is reset with the env's first observation and ``info`` (whose
``system_prompt`` is the rendered persona plus the surface's rules) and then answers
each observation with an action string. :class:`LLMPersonaPlayer` works on any text
surface. The scripted players are oracles built from the task's hidden data: they
hold every trait, or break them, so tests and baselines know the expected verdict.
"""
from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Protocol

from userbench_env.surfaces.llm import LLMConfig
from userbench_env.surfaces.rules import Rule
from userbench_env.surfaces.tasks import Question, SurfaceTask, TraitCheck


class Player(Protocol):
    """A persona policy."""

    def reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start an episode from the env's reset output."""

    def act(self, observation: str) -> str:
        """The next action for ``observation`` (the first call gets the reset observation)."""


class LLMPersonaPlayer:
    """A model playing the persona through litellm: system prompt from ``info``, one
    completion per step over the whole exchange. Outages raise ``LLMError``."""

    def __init__(self, config: LLMConfig | Mapping[str, Any] | str) -> None:
        self.config = LLMConfig.coerce(config, temperature=0.7)
        self.messages: list[dict[str, str]] = []

    def reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Begin with the persona system prompt."""
        self.messages = [{"role": "system", "content": str(info.get("system_prompt", ""))}]

    def act(self, observation: str) -> str:
        """Append the observation, ask the model, remember its reply."""
        self.messages.append({"role": "user", "content": observation})
        reply = self.config.complete(self.messages).strip()
        self.messages.append({"role": "assistant", "content": reply})
        return reply


def _wants_flag(rule: Rule) -> bool:
    """Whether holding the trait means picking flagged items under ``rule``."""
    return rule.kind in ("exhibit", "per-question", "at-least")


class ScriptedSurveyPlayer:
    """Answers every question at once: the option that keeps (``hold=True``) or breaks
    the most traits according to the hidden answer key and rules."""

    def __init__(self, task: SurfaceTask, hold: bool = True) -> None:
        if task.questionnaire is None:
            raise ValueError(f"task {task.id} has no questionnaire")
        self.task, self.hold = task, hold

    def reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Nothing to remember."""

    def choose(self, question: Question) -> str:
        """The option id for one question."""
        rules = self.task.rules()

        def score(option_id: str) -> int:
            kept = 0
            for check, rule in zip(self.task.checks, rules):
                labels = self.task.labels_for(check)
                if option_id in labels:
                    kept += 1 if rule.flagged(labels[option_id]) == _wants_flag(rule) else -1
            return kept

        ranked = sorted(question.options, key=lambda o: score(o.id), reverse=self.hold)
        return ranked[0].id

    def act(self, observation: str) -> str:
        """All answers as one JSON action."""
        assert self.task.questionnaire is not None
        answers = [{"questionId": q.id, "selectedOptionId": self.choose(q)} for q in self.task.questionnaire.questions]
        return json.dumps({"answers": answers})


class ScriptedChatPlayer:
    """Writes the persona's messages: the task's opening, then either firm refusals
    naming what fits the trait (``hold=True``) or acceptance of the pushed choice.
    ``stop_at`` (a turn index) makes it try to end the chat once, to exercise nudges."""

    def __init__(self, task: SurfaceTask, hold: bool = True, stop_at: int | None = None) -> None:
        if task.chat is None:
            raise ValueError(f"task {task.id} has no chat spec")
        self.task, self.hold, self.stop_at = task, hold, stop_at
        self._sent = 0
        self._stopped = False

    def reset(self, observation: str, info: Mapping[str, Any]) -> None:
        """Start counting messages again."""
        self._sent, self._stopped = 0, False

    def _line(self, check: TraitCheck, index: int) -> str:
        if self.hold:
            if check.fits:
                return f"No thanks, that's not for me. I'd rather have {check.fits[index % len(check.fits)]}."
            return f"No thanks, that doesn't work for me: my {check.dimension_label.lower()} is {check.value.lower()}."
        if check.breaks:
            return f"Sure, that sounds good. Put me down for {check.breaks[index % len(check.breaks)]}."
        return "Sure, that sounds good. Go with what you suggested."

    def act(self, observation: str) -> str:
        """The next message (or one stop attempt at ``stop_at``)."""
        assert self.task.chat is not None
        if self.stop_at is not None and self._sent == self.stop_at and not self._stopped:
            self._stopped = True
            return json.dumps({"name": "end_conversation", "arguments": {"reason": "done"}})
        index, self._sent = self._sent, self._sent + 1
        if index == 0 and self.task.chat.opening:
            return self.task.chat.opening
        return " ".join(self._line(check, index) for check in self.task.checks)


def run_episode(env: Any, player: Player, seed: int | None = None,
                options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Play one episode of ``env`` with ``player``; returns the terminal ``info``."""
    observation, info = env.reset(seed=seed, options=dict(options or {}))
    player.reset(observation, info)
    while True:
        observation, _, terminated, truncated, info = env.step(player.act(observation))
        if terminated or truncated:
            return info
