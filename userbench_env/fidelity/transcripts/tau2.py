"""Reading tau2-bench results files (what ``tau2 run`` saves).

The schema is tau2's own (``src/tau2/data_model/simulation.py``, ``Results`` and
``SimulationRun``; ``src/tau2/data_model/message.py``): a JSON object with ``info`` (the
run's settings; ``info.user_info.llm`` names the user model), ``tasks`` (tau2 task
objects) and ``simulations``, each with ``id``, ``task_id``, ``trial``,
``termination_reason``, ``reward_info``, ``user_cost`` and ``messages``:

* ``system``, ``assistant`` and ``user`` messages (``content``, optional ``tool_calls``
  with ``id``, ``name``, ``arguments`` and ``requestor``);
* ``tool`` messages answering one call (``id`` of the call, ``content``, ``requestor``,
  ``error``), or several wrapped in a ``MultiToolMessage`` (``role: tool`` with
  ``tool_messages``), which is read as its tool messages in order.

A participant's calls are its own: a call in a ``user`` message runs on the user's tools
whatever its ``requestor`` says (tau2 defaults the field to ``assistant``). Fields this
reader does not use (timestamps, costs, audio, turn-taking) are ignored; ``turn_idx`` is
tau2's message index, so turns are numbered from the messages instead
(:func:`~.transcript.number_turns`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from userbench_env.core.messages import Message, ToolCall
from userbench_env.fidelity.transcripts.tasks import TaskIndex, UnknownTask
from userbench_env.fidelity.transcripts.transcript import (
    BadEntry, NotThisFormat, Transcript, number_turns, validation_summary,
)

Participant = Literal["assistant", "user"]


class Tau2ToolCall(BaseModel):
    """tau2's ``ToolCall``."""

    model_config = ConfigDict(extra="ignore")

    id: str = ""
    name: str
    arguments: dict[str, Any]
    requestor: Participant = "assistant"


class Tau2Message(BaseModel):
    """One of tau2's messages (``SystemMessage``, ``AssistantMessage``, ``UserMessage``,
    ``ToolMessage`` or ``MultiToolMessage``, told apart by ``role`` and ``tool_messages``)."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "assistant", "user", "tool"]
    content: str | None = None
    tool_calls: list[Tau2ToolCall] | None = None
    id: str | None = None
    requestor: Participant | None = None
    error: bool = False
    tool_messages: list["Tau2Message"] | None = None


class Tau2Simulation(BaseModel):
    """tau2's ``SimulationRun``: the fields scoring reads."""

    model_config = ConfigDict(extra="ignore")

    id: str
    task_id: str
    trial: int | None = None
    termination_reason: str | None = None
    reward_info: dict[str, Any] | None = None
    user_cost: float | None = None
    messages: list[Tau2Message]

    @field_validator("task_id", mode="before")
    @classmethod
    def _id_text(cls, value: Any) -> Any:
        return str(value) if isinstance(value, int) else value


def _our_messages(sim: Tau2Simulation) -> tuple[list[Message], list[int | None]]:
    """The simulation's messages in our model, and each one's index in ``sim.messages``."""
    messages: list[Message] = []
    origins: list[int | None] = []
    for index, message in enumerate(sim.messages):
        if message.role == "tool":
            for answer in message.tool_messages if message.tool_messages is not None else [message]:
                if answer.id is None:
                    raise ValueError(f"message {index}: a tool message without the 'id' of the call it answers")
                messages.append(Message(role="tool", content=answer.content, tool_call_id=answer.id,
                                        requestor=answer.requestor or "assistant", error=answer.error))
                origins.append(index)
            continue
        calls = None
        if message.tool_calls:
            if message.role == "system":
                raise ValueError(f"message {index}: a system message with tool calls")
            calls = [ToolCall(id=c.id, name=c.name, arguments=c.arguments, requestor=message.role)  # type: ignore[arg-type]
                     for c in message.tool_calls]
        messages.append(Message(role=message.role, content=message.content, tool_calls=calls))
        origins.append(index)
    return number_turns(messages), origins


def read_results(path: str | Path) -> dict[str, Any]:
    """The results object of ``path``; :class:`NotThisFormat` when it is not one."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotThisFormat(f"{path} is not a tau2 results file: not JSON ({exc})") from None
    if isinstance(data, list) and data and isinstance(data[0], dict) and "traj" in data[0]:
        raise NotThisFormat(f"{path} is a tau-bench trajectory list, not a tau2 results file: use --format taubench")
    if isinstance(data, dict) and "simulations" not in data and "simulation_index" in data:
        raise NotThisFormat(f"{path} is the metadata of a tau2 'dir'-format run (its simulations are separate files): "
                            "load it with tau2's Results.load and save it as one JSON file")
    if not isinstance(data, dict) or not isinstance(data.get("simulations"), list):
        raise NotThisFormat(f"{path} is not a tau2 results file: expected a JSON object with a 'simulations' list")
    return data


def user_model(results: dict[str, Any]) -> str | None:
    """The user model the file names (``info.user_info.llm``, else its implementation)."""
    user = ((results.get("info") or {}).get("user_info")) or {}
    return user.get("llm") or user.get("implementation") or None


def agent_model(results: dict[str, Any]) -> str | None:
    """The agent model the file names (``info.agent_info.llm``, else its implementation)."""
    agent = ((results.get("info") or {}).get("agent_info")) or {}
    return agent.get("llm") or agent.get("implementation") or None


def domain(results: dict[str, Any]) -> str | None:
    """The domain the file names (``info.environment_info.domain_name``), if any."""
    return (((results.get("info") or {}).get("environment_info")) or {}).get("domain_name") or None


def transcripts(path: str | Path, results: dict[str, Any], tasks: TaskIndex) -> Iterator[Transcript | BadEntry]:
    """Every simulation of ``results`` (read from ``path``) as a transcript, or the
    :class:`BadEntry` saying why it cannot be scored."""
    for i, raw in enumerate(results["simulations"]):
        label = f"simulation {i}"
        if isinstance(raw, dict) and raw.get("id"):
            label += f" (id {raw['id']})"
        try:
            sim = Tau2Simulation.model_validate(raw)
            messages, origins = _our_messages(sim)
            task = tasks.get(sim.task_id)
        except ValidationError as exc:
            yield BadEntry(path, label, f"malformed: {validation_summary(exc)}")
            continue
        except (ValueError, UnknownTask) as exc:
            yield BadEntry(path, label, str(exc))
            continue
        reward = (sim.reward_info or {}).get("reward")
        yield Transcript(episode=sim.id, source_task_id=sim.task_id, task=task, trial=sim.trial or 0,
                         messages=messages, origins=origins,
                         reward=float(reward) if isinstance(reward, (int, float)) else None,
                         termination=sim.termination_reason, user_cost_usd=float(sim.user_cost or 0.0))
