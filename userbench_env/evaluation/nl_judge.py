"""The NL_ASSERTION component: an LLM judge reads the transcript (tau2 4.6).

One call per episode: the transcript as ``role: content`` lines and the list of
assertions; the judge answers a JSON object
``{"results": [{"expectedOutcome", "reasoning", "metExpectation"}, ...]}`` with one
entry per assertion, in order. The reply is parsed strictly: anything else raises
:class:`JudgeReplyError` (an error, never a pass). litellm is imported only here,
lazily, with the local price map.
"""
from __future__ import annotations

import json
from typing import Any, Union

from pydantic import BaseModel, ConfigDict

from userbench_env.core.messages import Message
from userbench_env.evaluation.result import NLCheck

JUDGE_INSTRUCTIONS = """You grade a customer-service conversation between an agent and a customer.
You receive the conversation and a list of expected outcomes. Decide for each expected
outcome, independently, whether the agent's behaviour in the conversation satisfies it.

Answer with one JSON object and nothing else:
{"results": [{"expectedOutcome": "<the outcome, copied>", "reasoning": "<one or two sentences>", "metExpectation": true or false}, ...]}
Give exactly one result per expected outcome, in the order they are listed."""


class JudgeReplyError(ValueError):
    """The judge's reply is not a well-formed verdict for every assertion."""


class JudgeSpec(BaseModel):
    """Which model judges, through litellm: a model name and optional endpoint.

    ``timeout`` bounds the whole call (connect and every read); ``max_tokens`` caps the
    reply (``None``: no cap sent), so a reply without an end token cannot run on.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    model: str
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    timeout: float = 120.0
    max_tokens: int | None = 2048

    @classmethod
    def parse(cls, spec: Union[str, dict[str, Any], "JudgeSpec"]) -> "JudgeSpec":
        """A spec from a model string (``gpt-4.1`` or ``litellm:openai/gpt-4.1``), a dict or a spec."""
        if isinstance(spec, JudgeSpec):
            return spec
        if isinstance(spec, dict):
            return cls.model_validate(spec)
        return cls(model=spec.removeprefix("litellm:"))


def render_transcript(messages: list[Message]) -> str:
    """The transcript as tau2 shows it to the judge: one ``role: content`` line per message."""
    return "\n".join(f"{m.role}: {m.content}" for m in messages)


def judge_prompt(messages: list[Message], assertions: list[str]) -> list[dict[str, str]]:
    """The chat messages sent to the judge."""
    user = f"Conversation:\n{render_transcript(messages)}\n\nExpected outcomes:\n{json.dumps(assertions)}"
    return [{"role": "system", "content": JUDGE_INSTRUCTIONS}, {"role": "user", "content": user}]


def strip_fence(text: str) -> str:
    """``text`` without one surrounding markdown code fence (and its ``json`` tag), stripped."""
    body = text.strip()
    if body.startswith("```") and body.endswith("```") and len(body) >= 6:
        body = body[3:-3]
        if body.startswith("json"):
            body = body[4:]
    return body.strip()


def parse_judge_reply(reply: str, assertions: list[str]) -> list[NLCheck]:
    """The per-assertion verdicts of a judge reply; :class:`JudgeReplyError` if malformed.

    The reply must be a JSON object (optionally inside one markdown code fence) whose
    ``results`` list has one object per assertion with a boolean ``metExpectation``.
    """
    try:
        data = json.loads(strip_fence(reply))
    except (TypeError, ValueError) as exc:
        raise JudgeReplyError(f"judge reply is not JSON: {exc}") from None
    results = data.get("results") if isinstance(data, dict) else None
    if not isinstance(results, list):
        raise JudgeReplyError("judge reply has no 'results' list")
    if len(results) != len(assertions):
        raise JudgeReplyError(f"judge graded {len(results)} outcomes, expected {len(assertions)}")
    checks = []
    for assertion, item in zip(assertions, results):
        met = item.get("metExpectation") if isinstance(item, dict) else None
        if not isinstance(met, bool):
            raise JudgeReplyError(f"no boolean metExpectation for {assertion!r}")
        reasoning = item.get("reasoning", "")
        checks.append(NLCheck(assertion=assertion, met=met, reasoning=reasoning if isinstance(reasoning, str) else ""))
    return checks


def judge_completion(judge: JudgeSpec, messages: list[dict[str, str]]) -> str:
    """The text of ``judge``'s JSON-mode reply to chat ``messages`` (one litellm call,
    within the whole-call deadline of :class:`~userbench_env.transport.LiteLLMTransport`)."""
    from userbench_env.transport import LiteLLMTransport

    body: dict[str, Any] = {"model": judge.model, "messages": messages, "temperature": judge.temperature,
                            "response_format": {"type": "json_object"}}
    if judge.max_tokens is not None:
        body["max_tokens"] = judge.max_tokens
    response = LiteLLMTransport(judge.base_url, judge.api_key, judge.timeout).send(body)
    return response.choices[0].message.content or ""


def judge_assertions(messages: list[Message], assertions: list[str], judge: JudgeSpec) -> list[NLCheck]:
    """Ask ``judge`` about every assertion in one call and parse its verdicts."""
    return parse_judge_reply(judge_completion(judge, judge_prompt(messages, assertions)), assertions)
