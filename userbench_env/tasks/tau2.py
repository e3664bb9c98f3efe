"""Converting a tau2-bench task object into our :class:`~userbench_env.core.task.Task`."""
from __future__ import annotations

from typing import Any

from userbench_env.core.task import Blueprint, EvaluationSpec, InitialState, Task
from userbench_env.tasks.extract import extract_known_info


def blueprint_from_tau2(scenario: dict[str, Any], domain: str, user_tools: list[str] | None) -> Blueprint:
    """Structure a tau2 ``user_scenario`` (structured or plain-string instructions)."""
    instructions = scenario.get("instructions")
    persona = scenario.get("persona")
    if isinstance(instructions, dict):
        known_text = instructions.get("known_info")
        unknown_text = instructions.get("unknown_info")
        return Blueprint(
            domain=domain,
            persona=persona,
            reason_for_call=instructions.get("reason_for_call") or "",
            known_info=extract_known_info(known_text or ""),
            known_info_text=known_text,
            unknown_info=[s for s in (unknown_text or "").split("\n") if s.strip()],
            unknown_info_text=unknown_text,
            instructions=instructions.get("task_instructions") or "",
            user_tools=user_tools,
        )
    text = instructions or ""
    return Blueprint(
        domain=domain,
        persona=persona,
        reason_for_call="",
        known_info=extract_known_info(text),
        instructions=text,
        raw_instructions=text,
        user_tools=user_tools,
    )


def task_from_tau2(raw: dict[str, Any], domain: str, splits: list[str]) -> Task:
    """Our Task for one tau2 task object (unknown keys such as ``annotations`` ignored)."""
    scenario = raw.get("user_scenario") or {}
    criteria = raw.get("evaluation_criteria")
    initial = raw.get("initial_state")
    return Task(
        id=str(raw["id"]),
        domain=domain,
        source="tau2",
        splits=list(splits),
        blueprint=blueprint_from_tau2(scenario, domain, raw.get("user_tools")),
        user_scenario=scenario,
        initial_state=InitialState.model_validate(initial) if initial else None,
        evaluation=EvaluationSpec.model_validate(criteria) if criteria is not None else None,
        ticket=raw.get("ticket"),
        required_documents=raw.get("required_documents"),
        description=raw.get("description"),
    )
