"""The fidelity judge: an LLM grades one criterion at a time against a transcript.

Contract:

* one call per (criterion, transcript), through litellm (the NL-assertion judge's
  plumbing, :func:`~userbench_env.evaluation.nl_judge.judge_completion`), with the
  model and temperature pinned by a :class:`~userbench_env.evaluation.nl_judge.JudgeSpec`
  and recorded with every verdict;
* blind to who played the user: the transcript says ``Agent`` and ``Customer`` and
  nothing else (no proxy name, model or prompt);
* cached by (criterion, transcript hash, judge model and temperature), in memory and,
  with ``cache_dir``, as one JSON file per key;
* strict parsing: the reply must be one JSON object with ``verdict`` in
  ``pass``/``fail``/``not_applicable``, an integer or null ``evidence_turn`` and a
  string ``reasoning``; anything else raises
  :class:`~userbench_env.evaluation.nl_judge.JudgeReplyError` (an error, never a pass).
"""
from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any, Iterable, Literal

from pydantic import BaseModel, ConfigDict

from userbench_env.core.messages import Message
from userbench_env.evaluation.nl_judge import JudgeReplyError, JudgeSpec, judge_completion, strip_fence

JUDGE_INSTRUCTIONS = """You audit the CUSTOMER side of a customer-service conversation. The customer is
supposed to follow a scenario and a set of guidelines. You receive one criterion about the
customer's behaviour, the text it is grounded on, and the conversation (turn numbers in
brackets). Decide whether the customer satisfies the criterion.

- "pass": the criterion applies and the customer satisfies it;
- "fail": the customer violates it (give the turn of the clearest evidence);
- "not_applicable": the situation the criterion is about never arises.
Judge only the customer, never the agent.

Answer with one JSON object and nothing else:
{"verdict": "pass" | "fail" | "not_applicable", "evidence_turn": <integer or null>, "reasoning": "<one or two sentences>"}"""

JudgeVerdictName = Literal["pass", "fail", "not_applicable"]
_VERDICTS = ("pass", "fail", "not_applicable")


class JudgeVerdict(BaseModel):
    """One graded criterion: verdict, evidence turn, reasoning, and the pinned judge."""

    model_config = ConfigDict(extra="forbid")

    verdict: JudgeVerdictName
    evidence_turn: int | None = None
    reasoning: str = ""
    model: str
    temperature: float
    cached: bool = False


def render_for_judge(messages: Iterable[Message]) -> str:
    """The transcript with neutral speaker names: ``[turn] Agent: ...``, ``[turn] Customer: ...``,
    tool calls as ``<who> calls name {args}`` and results as ``<who>'s tool result: ...``."""
    who = {"assistant": "Agent", "user": "Customer"}
    lines = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            lines.append(f"[{m.turn}] {who.get(m.requestor or 'assistant', 'Agent')}'s tool result: {m.content}")
            continue
        name = who[m.role]
        if m.has_text:
            lines.append(f"[{m.turn}] {name}: {m.content}")
        for call in m.tool_calls or []:
            lines.append(f"[{m.turn}] {name} calls {call.name} {json.dumps(call.arguments, sort_keys=True)}")
    return "\n".join(lines)


def transcript_hash(messages: Iterable[Message]) -> str:
    """sha256 of the judge's rendering of the transcript."""
    return hashlib.sha256(render_for_judge(messages).encode("utf-8")).hexdigest()


def judge_messages(statement: str, grounding: str, transcript: str) -> list[dict[str, str]]:
    """The chat messages sent to the judge for one criterion."""
    user = f"Criterion: {statement}\nGrounded on: {grounding}\n\nConversation:\n{transcript}"
    return [{"role": "system", "content": JUDGE_INSTRUCTIONS}, {"role": "user", "content": user}]


def parse_verdict(reply: str) -> dict[str, Any]:
    """``{"verdict", "evidence_turn", "reasoning"}`` from a judge reply; JudgeReplyError if malformed."""
    try:
        data = json.loads(strip_fence(reply))
    except (TypeError, ValueError) as exc:
        raise JudgeReplyError(f"judge reply is not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise JudgeReplyError("judge reply is not a JSON object")
    verdict = data.get("verdict")
    if verdict not in _VERDICTS:
        raise JudgeReplyError(f"judge verdict {verdict!r} is not one of {_VERDICTS}")
    turn = data.get("evidence_turn")
    if turn is not None and (not isinstance(turn, int) or isinstance(turn, bool)):
        raise JudgeReplyError(f"evidence_turn {turn!r} is not an integer or null")
    reasoning = data.get("reasoning", "")
    if not isinstance(reasoning, str):
        raise JudgeReplyError("reasoning is not a string")
    return {"verdict": verdict, "evidence_turn": turn, "reasoning": reasoning}


class FidelityJudge:
    """Grades criteria one at a time (see the module docstring).

    ``spec`` is a model string (``openai/gpt-4.1``), a dict or a ``JudgeSpec``;
    ``cache_dir`` persists verdicts across processes. ``calls`` counts LLM calls made.
    """

    def __init__(self, spec: JudgeSpec | str | dict[str, Any], cache_dir: str | os.PathLike[str] | None = None):
        self.spec = JudgeSpec.parse(spec)
        self.cache_dir = Path(cache_dir) if cache_dir is not None else None
        self._memory: dict[str, dict[str, Any]] = {}
        self.calls = 0

    def cache_key(self, statement: str, grounding: str, transcript: str) -> str:
        """sha256 over the criterion, the transcript hash, the judge model and temperature."""
        body = json.dumps(
            [statement, grounding, hashlib.sha256(transcript.encode("utf-8")).hexdigest(), self.spec.model,
             self.spec.temperature]
        )
        return hashlib.sha256(body.encode("utf-8")).hexdigest()

    def _cached(self, key: str) -> dict[str, Any] | None:
        if key in self._memory:
            return self._memory[key]
        if self.cache_dir is not None:
            path = self.cache_dir / f"{key}.json"
            if path.exists():
                self._memory[key] = json.loads(path.read_text(encoding="utf-8"))
                return self._memory[key]
        return None

    def _store(self, key: str, parsed: dict[str, Any]) -> None:
        self._memory[key] = parsed
        if self.cache_dir is not None:
            self.cache_dir.mkdir(parents=True, exist_ok=True)
            (self.cache_dir / f"{key}.json").write_text(json.dumps(parsed), encoding="utf-8")

    def grade(self, statement: str, grounding: str, messages: Iterable[Message]) -> JudgeVerdict:
        """The verdict on one criterion for the transcript ``messages``.

        Raises ``JudgeReplyError`` for an unparseable reply (never cached) and lets
        provider errors propagate.
        """
        transcript = render_for_judge(messages)
        key = self.cache_key(statement, grounding, transcript)
        parsed = self._cached(key)
        cached = parsed is not None
        if parsed is None:
            self.calls += 1
            parsed = parse_verdict(judge_completion(self.spec, judge_messages(statement, grounding, transcript)))
            self._store(key, parsed)
        return JudgeVerdict(**parsed, model=self.spec.model, temperature=self.spec.temperature, cached=cached)
