"""Writing run-store episodes as a tau2-bench results file (``userbench export --format tau2``).

The file follows tau2's ``Results`` schema (``src/tau2/data_model/simulation.py``): ``info``
(``user_info.implementation`` is the proxy spec and ``user_info.llm`` its model, the
domain under ``environment_info.domain_name`` in tau2's naming), ``tasks`` (each episode's
task as a tau2 task object) and one ``simulations`` entry per episode record: ``id`` (the
record's key), ``task_id``, ``trial``, ``seed``, ``duration``, ``termination_reason`` in
tau2's vocabulary (ours is kept in the simulation's ``info``), ``user_cost``,
``reward_info`` and ``messages`` in tau2's message schema (``turn_idx`` is the message's
index, as tau2 numbers them).

Scoring the file back (``userbench score-transcripts --format tau2 --source <the run's
source>``) reproduces the env's own verdicts: the messages are the ones the env fed its
rule tracker. A task of a bundled world is written with a tau2 scenario built from its
blueprint (tau2 has no field for a structured blueprint or a rubric), so score such a file
with ``--source bundled`` rather than ``--file-tasks``.
"""
from __future__ import annotations

import os
from datetime import datetime, timezone
from typing import Any

from userbench_env.core.messages import Message
from userbench_env.core.task import Task
from userbench_env.errors import UserError

#: our terminations in tau2's ``TerminationReason`` vocabulary
TERMINATIONS = {
    "user_stop": "user_stop",
    "agent_stop": "agent_stop",
    "max_turns": "max_steps",
    "time_limit": "max_steps",
    "too_many_errors": "too_many_errors",
    "limit_exceeded": "agent_error",
    "user_error": "user_error",
    "error": "infrastructure_error",
    "crash": "infrastructure_error",
}


def tau2_message(message: Message, index: int) -> dict[str, Any]:
    """One of our messages in tau2's message schema."""
    if message.role == "tool":
        return {"role": "tool", "id": message.tool_call_id or "", "content": message.content,
                "requestor": message.requestor or "assistant", "error": message.error, "turn_idx": index}
    calls = [call.model_dump() for call in message.tool_calls] if message.tool_calls else None
    return {"role": message.role, "content": message.content, "tool_calls": calls, "turn_idx": index}


def tau2_task(task: Task) -> dict[str, Any]:
    """``task`` as a tau2 task object (a bundled task's scenario is built from its blueprint)."""
    blueprint = task.blueprint
    scenario = task.user_scenario or {
        "persona": blueprint.persona,
        "instructions": {
            "domain": blueprint.domain,
            "reason_for_call": blueprint.reason_for_call,
            "known_info": blueprint.known_info_text or "\n".join(item.span or item.value for item in blueprint.known_info),
            "unknown_info": blueprint.unknown_info_text or ("\n".join(blueprint.unknown_info) or None),
            "task_instructions": blueprint.instructions,
        },
    }
    out: dict[str, Any] = {
        "id": task.id,
        "description": task.description,
        "user_scenario": scenario,
        "ticket": task.ticket,
        "initial_state": task.initial_state.model_dump(mode="json") if task.initial_state else None,
        "evaluation_criteria": task.evaluation.model_dump(mode="json") if task.evaluation else None,
    }
    if blueprint.user_tools is not None:
        out["user_tools"] = list(blueprint.user_tools)
    if task.required_documents is not None:
        out["required_documents"] = list(task.required_documents)
    return out


def _only(records: list[dict[str, Any]], field: str, wanted: str | None) -> list[dict[str, Any]]:
    """The records whose ``field`` is ``wanted``; without ``wanted`` they must all agree."""
    if wanted is not None:
        return [r for r in records if r.get(field) == wanted]
    values = sorted({str(r.get(field, "")) for r in records})
    if len(values) > 1:
        raise UserError(f"the store holds several {field} values ({', '.join(values)}); "
                        f"a tau2 results file holds one: pass --{field} with one of them")
    return records


def _simulation(record: dict[str, Any]) -> dict[str, Any]:
    messages = [Message.model_validate(m) if isinstance(m, dict) else m for m in record.get("messages") or []]
    termination = str(record.get("termination") or "")
    return {
        "id": record["key"],
        "task_id": str(record["task_id"]),
        "trial": int(record.get("trial") or 0),
        "seed": record.get("seed"),
        "start_time": "",
        "end_time": "",
        "duration": float(record.get("duration_s") or 0.0),
        "termination_reason": TERMINATIONS.get(termination, "unexpected_error"),
        "agent_cost": None,
        "user_cost": float(record.get("user_cost_usd") or 0.0),
        "reward_info": {"reward": float(record.get("reward") or 0.0),
                        "info": {"reward_components": record.get("reward_components") or {}}},
        "messages": [tau2_message(m, i) for i, m in enumerate(messages)],
        "info": {"userbench_termination": termination, "userbench_error": record.get("error")},
    }


def to_tau2_results(records: list[dict[str, Any]], proxy: str | None = None, domain: str | None = None,
                    data_path: str | os.PathLike[str] | None = None) -> dict[str, Any]:
    """The tau2 results object of run ``records`` (one proxy and one domain: pass ``proxy`` /
    ``domain`` to pick them from a store holding several)."""
    from userbench_env.domains import get_domain
    from userbench_env.tasks import load_task

    records = _only(_only(records, "proxy", proxy), "domain", domain)
    if not records:
        raise UserError("no episode records to export" + (" for that --proxy/--domain" if proxy or domain else ""))
    first = records[0]
    spec = get_domain(first["domain"])
    tasks: dict[tuple[str, str], dict[str, Any]] = {}
    for record in records:
        key = (str(record.get("source") or "bundled"), str(record["task_id"]))
        if key not in tasks:
            tasks[key] = tau2_task(load_task(spec.name, key[1], key[0], data_path))
    provenance = first.get("user_provenance") or {}
    info = {
        "git_commit": "",
        "num_trials": max(int(r.get("trial") or 0) for r in records) + 1,
        "max_steps": 100,
        "max_errors": 10,
        "user_info": {"implementation": first.get("proxy") or "", "llm": provenance.get("model"),
                      "llm_args": {"temperature": provenance.get("temperature")}},
        "agent_info": {"implementation": first.get("agent") or "", "llm": None},
        "environment_info": {"domain_name": spec.tau2_name, "policy": "", "tool_defs": None},
        "seed": None,
    }
    return {"timestamp": datetime.now(timezone.utc).isoformat(), "info": info, "tasks": list(tasks.values()),
            "simulations": [_simulation(r) for r in records]}
