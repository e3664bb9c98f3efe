"""Completing drafts into tasks by running their gold actions on the generated world.

For each draft the builder makes a fresh world of the written folder (with the draft's
initial state), executes every gold action through the normal tool path, fails loudly if
one errors, derives the world-dependent evaluation parts, checks every env assertion on
the final world, and records the transcript a perfect agent would produce. That
transcript is what :mod:`userbench_env.generate.verify` scores.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from userbench_env.core.messages import Message, ToolCall, ToolResult
from userbench_env.core.task import Blueprint, EvaluationSpec, InitialState, KnownInfoItem, Task
from userbench_env.domains import make_world
from userbench_env.generate.draft import TaskDraft

STOP = "###STOP###"


class GenerationError(RuntimeError):
    """A draft is inconsistent with its world (a gold action failed, a span is wrong, ...)."""


@dataclass(frozen=True)
class BuiltTask:
    """A finished task and the gold transcript that must score reward 1 on it."""

    task: Task
    transcript: list[Message]


def failed(result: ToolResult) -> bool:
    """True for a failed call: tau2's error flag, or a reply that reports an error as text
    (banking tools return ``Error: ...``/``Failed ...`` strings instead of raising)."""
    return result.error or result.content.startswith(("Error", "Failed"))


def blueprint_of(domain: str, draft: TaskDraft) -> Blueprint:
    """The structured blueprint of ``draft`` (known-info text = fact sentences joined)."""
    known_text = " ".join(dict.fromkeys(f.sentence for f in draft.known)) or None
    for fact in draft.known:
        if fact.value not in fact.sentence:
            raise GenerationError(f"{draft.id}: value {fact.value!r} not in its sentence {fact.sentence!r}")
    return Blueprint(
        domain=domain,
        persona=draft.persona,
        reason_for_call=draft.reason_for_call,
        known_info=[KnownInfoItem(kind=f.kind, value=f.value, span=f.sentence) for f in draft.known],
        known_info_text=known_text,
        unknown_info=list(draft.unknown),
        unknown_info_text="\n".join(draft.unknown) or None,
        instructions=draft.instructions,
        user_tools=draft.user_tools,
    )


def scenario_of(blueprint: Blueprint) -> dict[str, object]:
    """The tau2-shaped ``user_scenario`` (structured instructions) of a blueprint."""
    return {
        "persona": blueprint.persona,
        "instructions": {
            "domain": blueprint.domain,
            "reason_for_call": blueprint.reason_for_call,
            "known_info": blueprint.known_info_text,
            "unknown_info": blueprint.unknown_info_text,
            "task_instructions": blueprint.instructions,
        },
    }


def _initial_state(draft: TaskDraft) -> InitialState | None:
    if not draft.initialization_actions and not draft.initialization_data:
        return None
    data = {"agent_data": draft.initialization_data, "user_data": None} if draft.initialization_data else None
    return InitialState(initialization_data=data, initialization_actions=draft.initialization_actions)


def _closing_text(communicate: list[str]) -> str:
    if not communicate:
        return "Is there anything else I can help you with?"
    return "Here is what I found: " + "; ".join(communicate) + ". Anything else?"


def build_task(domain: str, folder: Path, draft: TaskDraft) -> BuiltTask:
    """Run ``draft``'s gold actions on the world written in ``folder`` and complete the task.

    Raises :class:`GenerationError` when a gold action fails (see :func:`failed`), an env assertion does
    not hold on the final world, or an expected communicated string contains a comma
    (tau2 strips commas from the agent's text only, so such a string could never match).
    """
    blueprint = blueprint_of(domain, draft)
    gold = [a.model_copy(update={"action_id": f"{a.name}_{i}"}) for i, a in enumerate(draft.gold)]
    task = Task(
        id=draft.id,
        domain=domain,
        source="bundled",
        splits=list(draft.splits),
        blueprint=blueprint,
        user_scenario=scenario_of(blueprint),
        initial_state=_initial_state(draft),
        ticket=draft.ticket,
        required_documents=draft.required_documents,
        description={"purpose": draft.purpose} if draft.purpose else None,
    )
    world = make_world(domain, "bundled", task, data_path=folder)
    transcript: list[Message] = [Message(role="user", content=draft.reason_for_call or "Hello.")]
    results: list[ToolResult] = []
    for i, action in enumerate(gold):
        result = world.call(action.name, action.arguments, requestor=action.requestor)
        if failed(result):
            raise GenerationError(f"{draft.id}: gold action {action.name}{action.arguments} failed: {result.content}")
        results.append(result)
        call = ToolCall(id=f"gold_{i}", name=action.name, arguments=action.arguments, requestor=action.requestor)
        transcript.append(Message(role=action.requestor, tool_calls=[call]))
        transcript.append(
            Message(role="tool", content=result.content, tool_call_id=call.id, requestor=action.requestor)
        )
    derived = draft.derive(world, results) if draft.derive else None
    communicate = list(draft.communicate_info) + (derived.communicate_info if derived else [])
    assertions = list(draft.env_assertions or []) + (derived.env_assertions if derived else [])
    for text in communicate:
        if not text.strip() or "," in text:
            raise GenerationError(f"{draft.id}: communicate string {text!r} is blank or has a comma")
    for assertion in assertions:
        if not world.run_assertion(assertion):
            raise GenerationError(f"{draft.id}: env assertion {assertion.func_name}{assertion.arguments} fails")
    task.evaluation = EvaluationSpec(
        actions=gold,
        env_assertions=assertions if (assertions or draft.env_assertions is not None) else None,
        communicate_info=communicate,
        nl_assertions=draft.nl_assertions,
        reward_basis=list(draft.reward_basis),
    )
    transcript.append(Message(role="assistant", content=_closing_text(communicate)))
    transcript.append(Message(role="user", content=STOP))
    return BuiltTask(task=Task.model_validate(task.model_dump()), transcript=transcript)
