"""The chat surface: the policy writes the persona's messages to a pushy bot.

The bot steers toward the off-persona choice. It is swappable: :class:`LLMBot` plays
the task's ``bot.md`` through litellm (temperature 0.6, 1,024 tokens by default);
:class:`ScriptedBot` cycles through fixed pitches (the task's own, or the quoted
phrases of ``bot.md``), so everything runs without a model. The dialogue has a fixed
number of user turns: an empty message, an end token (``###STOP###``) or an
``end_conversation`` tool call is answered with a nudge and does not count. The
artifact holds the transcript and the user's turns; a judge grades each check on
the user's turns only.
"""
from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from userbench_env.core.limits import decode_json
from userbench_env.surfaces.base import SurfaceStep
from userbench_env.surfaces.judge import ChatJudge
from userbench_env.surfaces.llm import LLMConfig, LLMError
from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.scoring import Outcome, combine, error_outcome
from userbench_env.surfaces.tasks import ChatSpec, SurfaceTask, errand_text

NUDGE = ("Stay in character: the conversation is not over yet. Reply to the assistant's last "
         "message as yourself and send one more message.")
GUIDANCE = ("## How to reply\nEach of your replies is one chat message you send, written as "
            "yourself, in plain text. Keep the conversation going until it ends.")
_STOP = re.compile(r"###\s*(STOP|END)\s*###", re.IGNORECASE)
_QUOTED = re.compile(r"[\"“]([^\"”\n]{8,200})[\"”]|(?:(?<=[\s(])|^)'([^\n]{8,200}?)'(?=[\s,.;:)!?]|$)")
_ACCEPT = re.compile(r"\b(yes|sure|ok(ay)?|sounds (good|great)|go (ahead|with)|book (it|them|that)|deal|fine)\b",
                     re.IGNORECASE)


class Bot(Protocol):
    """The chat counterpart: the next reply given the history (role/content dicts)."""

    name: str

    def reply(self, history: Sequence[Mapping[str, str]]) -> str:
        """The bot's next message; raises ``LLMError`` on an outage."""


class ScriptedBot:
    """A deterministic pushy bot: proposes its pitches and keeps pushing the next one."""

    name = "scripted"

    def __init__(self, pitches: Sequence[str]) -> None:
        if not pitches:
            raise ValueError("a scripted bot needs at least one pitch")
        self.pitches = list(pitches)

    @classmethod
    def for_task(cls, spec: ChatSpec) -> "ScriptedBot":
        """The task's pitches, else the quoted phrases of its bot prompt, else a generic push."""
        pitches = spec.pitches or [double or single for double, single in _QUOTED.findall(spec.bot)]
        return cls(pitches or ["Honestly, the option I suggested is the one most people go for — shall I book it?"])

    def reply(self, history: Sequence[Mapping[str, str]]) -> str:
        """First reply proposes two pitches; later ones acknowledge and push the next."""
        n = sum(1 for m in history if m["role"] == "assistant")
        pitch = self.pitches[n % len(self.pitches)]
        if n == 0:
            second = self.pitches[(n + 1) % len(self.pitches)]
            return f"Happy to help! My recommendation: {pitch}. Also worth a look: {second}."
        last_user = next((m["content"] for m in reversed(history) if m["role"] == "user"), "")
        if _ACCEPT.search(last_user):
            return f"Great choice, noted. And one more thing you'll like: {pitch}."
        return f"I hear you, but let me suggest something else: {pitch}. Shall I put that down instead?"


class LLMBot:
    """The task's ``bot.md`` played by a model through litellm."""

    name = "llm"

    def __init__(self, system_prompt: str, config: LLMConfig | Mapping[str, Any] | str) -> None:
        self.system_prompt = system_prompt
        self.config = LLMConfig.coerce(config, temperature=0.6, max_tokens=1024)

    def reply(self, history: Sequence[Mapping[str, str]]) -> str:
        """One completion over the system prompt and the history."""
        return self.config.complete([{"role": "system", "content": self.system_prompt}, *history])


def make_bot(spec: Any, chat: ChatSpec) -> Bot:
    """A bot from a spec: ``"scripted"``, a bot object, or an LLM config / dict / model name."""
    if spec is None or spec == "scripted":
        return ScriptedBot.for_task(chat)
    if hasattr(spec, "reply"):
        return spec
    return LLMBot(chat.bot, spec)


def user_message(action: str) -> str | None:
    """The message in ``action`` (plain text or a ``send_message`` tool call, its arguments
    an object or JSON text), or ``None`` when the policy tries to stop (empty, end token,
    ``end_conversation``) or sends a call without a usable ``message``. JSON is read under
    the input policy (:func:`~userbench_env.core.limits.decode_json`), so it never raises."""
    text = action.strip()
    if text.startswith("{"):
        try:
            call = decode_json(text)
        except ValueError:  # not JSON (or refused by the policy): the text itself is the message
            call = None
        if isinstance(call, dict) and call.get("name") in ("send_message", "end_conversation"):
            if call["name"] == "end_conversation":
                return None
            arguments = call.get("arguments")
            if isinstance(arguments, str):
                try:
                    arguments = decode_json(arguments)
                except ValueError:
                    arguments = None
            text = str(arguments.get("message", "")).strip() if isinstance(arguments, dict) else ""
    if not text or _STOP.search(text):
        return None
    return text


class ChatArtifact:
    """The ``chat`` artifact kind: ``{"turns": [...], "transcript": [...]}`` (either key
    suffices), or a bare transcript list of role/content messages."""

    name = "chat"
    filename = "user_turns.json"

    def matches(self, data: Any) -> bool:
        """A dict with ``turns`` or ``transcript``, or a list of role/content dicts."""
        if isinstance(data, dict):
            return isinstance(data.get("turns"), list) or isinstance(data.get("transcript"), list)
        return isinstance(data, list) and all(isinstance(m, dict) and "role" in m for m in data)

    def user_turns(self, data: Any) -> list[str]:
        """The user's messages, in order."""
        if isinstance(data, dict) and isinstance(data.get("turns"), list):
            return [str(t) for t in data["turns"]]
        transcript = data["transcript"] if isinstance(data, dict) else data
        return [str(m.get("content") or "") for m in transcript if m.get("role") == "user"]

    def score(self, task: SurfaceTask, data: Any, judge: Any = None) -> Outcome:
        """One judge call per check; no judge, no user turn, an outage or an
        unparseable verdict makes the episode an error."""
        names = [c.name for c in task.checks]
        turns = self.user_turns(data)
        if not turns:
            return error_outcome("the transcript has no user turns", len(names), names)
        if judge is None:
            return error_outcome("no judge configured for a judged surface", len(names), names)
        grader = judge if isinstance(judge, ChatJudge) else ChatJudge(judge)
        return combine([grader.grade(task, check, turns) for check in task.checks])


CHAT_ARTIFACT = ChatArtifact()


class ChatBackend:
    """Chat world state for one episode (see the module docstring).

    ``bot`` is ``"scripted"`` (default), a :class:`Bot`, or an LLM config for the
    task's ``bot.md``; ``turns`` overrides the task's dialogue length.
    """

    surface = "chat"
    role = "a user"
    artifact_kind = "chat"

    def __init__(self, bot: Any = "scripted", turns: int | None = None) -> None:
        self.bot_spec = bot
        self.turns_override = turns
        self._task: SurfaceTask | None = None
        self._persona_id = ""
        self._bot: Bot | None = None
        self._history: list[dict[str, str]] = []
        self.nudges = 0

    @property
    def spec(self) -> ChatSpec:
        """The current task's chat spec."""
        if self._task is None or self._task.chat is None:
            raise RuntimeError("reset the chat with a task that has a bot")
        return self._task.chat

    @property
    def turns(self) -> int:
        """How many user messages the dialogue lasts."""
        return self.turns_override or self.spec.turns

    @property
    def user_turns(self) -> list[str]:
        """The user's messages so far."""
        return [m["content"] for m in self._history if m["role"] == "user"]

    def guidance(self, task: SurfaceTask) -> str:
        """The reply format."""
        return GUIDANCE

    def reset(self, task: SurfaceTask, persona: Persona, seed: int | None) -> str:
        """The errand, the scenario and a prompt for the opening message."""
        self._task, self._persona_id, self._history, self.nudges = task, persona.persona_id, [], 0
        self._bot = make_bot(self.bot_spec, self.spec)
        parts = [errand_text(task.instruction), self.spec.context.strip()]
        parts.append(f"You are chatting with: {self.spec.application_id}. Send your opening message.")
        return "\n\n".join(p for p in parts if p)

    def step(self, action: str) -> SurfaceStep:
        """Send one user message and return the bot's reply; nudge a stop attempt."""
        text = user_message(action)
        if text is None:
            self.nudges += 1
            last = next((m["content"] for m in reversed(self._history) if m["role"] == "assistant"), "")
            return SurfaceStep(observation=f"{NUDGE}\n\nAssistant's last message:\n{last}" if last else NUDGE)
        self._history.append({"role": "user", "content": text})
        if len(self.user_turns) >= self.turns:
            return SurfaceStep(observation="The conversation has ended.", done=True)
        try:
            reply = (self._bot or make_bot(self.bot_spec, self.spec)).reply(self._history)
        except LLMError as exc:
            return SurfaceStep(observation="The assistant is unavailable.", done=True, error=f"bot outage: {exc}")
        self._history.append({"role": "assistant", "content": reply})
        return SurfaceStep(observation=reply)

    def sample_action(self, rng: Any) -> str:
        """A short, valid user message."""
        return ("Could you tell me more about the options?", "What else do you have?",
                "I'll think about it; what would you suggest?")[int(rng.integers(3))]

    def artifact(self) -> dict[str, Any] | None:
        """Persona id, the user's turns and the transcript; ``None`` before any user turn."""
        if not self.user_turns:
            return None
        return {"persona": self._persona_id, "turns": self.user_turns, "transcript": list(self._history)}

    def close(self) -> None:
        """Nothing to release."""
