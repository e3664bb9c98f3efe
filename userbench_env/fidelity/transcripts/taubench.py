"""Reading tau-bench (v1) trajectory lists.

The format is tau-bench's own record of a run (its ``historical_trajectories``): a JSON
list of entries with ``task_id`` (tau-bench's task index), ``trial``, ``reward``,
``info.task`` (``user_id``, ``instruction``), ``info.user_cost`` and ``traj``, OpenAI-style
chat messages: ``system`` (the agent's policy), ``user`` (the simulated customer),
``assistant`` (text, or ``tool_calls`` with ``function.name`` and ``function.arguments``
as a JSON string) and ``tool`` (a result, with ``tool_call_id``).

What the customer saw, as tau-bench ran it: the agent's greeting
:data:`TAUBENCH_GREETING`, which tau-bench sent the customer first but did not record in
``traj`` (it is fed before the first user message); then every assistant message
without tool calls. A tool result is an error when its text starts with ``Error``
(tau-bench reports tool errors as text). tau-bench's customer has no tools.

The task: ``tau2_task_id`` when the entry has one, else the task matched from the
entry's user id and instruction (:meth:`~.tasks.TaskIndex.match`, which refuses
ambiguous matches). tau-bench's customer was given one instruction paragraph, not tau2's
reason for calling to open with, so its task's blueprint says so
(``opens_with_reason=False``: the ids tau2's reason names are the customer's to give
when asked, :func:`one_instruction`).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Iterator, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Task
from userbench_env.fidelity.transcripts.tasks import TaskIndex, UnknownTask
from userbench_env.fidelity.transcripts.transcript import (
    BadEntry, NotThisFormat, Transcript, number_turns, validation_summary,
)

#: What tau-bench's user simulator is started with (tau_bench/envs/user.py), unrecorded in ``traj``.
TAUBENCH_GREETING = "Hi! How can I help you today?"


class OpenAIFunction(BaseModel):
    """The ``function`` of an OpenAI tool call (``arguments`` is a JSON string)."""

    model_config = ConfigDict(extra="ignore")

    name: str
    arguments: str


class OpenAIToolCall(BaseModel):
    """One OpenAI tool call."""

    model_config = ConfigDict(extra="ignore")

    id: str
    function: OpenAIFunction


class OpenAIMessage(BaseModel):
    """One message of ``traj``."""

    model_config = ConfigDict(extra="ignore")

    role: Literal["system", "user", "assistant", "tool"]
    content: str | None = None
    tool_calls: list[OpenAIToolCall] | None = None
    tool_call_id: str | None = None


class TaubenchTask(BaseModel):
    """``info.task``: who the customer is and its whole brief."""

    model_config = ConfigDict(extra="ignore")

    user_id: str = ""
    instruction: str = ""


class TaubenchEntry(BaseModel):
    """One trajectory of the list."""

    model_config = ConfigDict(extra="ignore")

    task_id: int | str
    trial: int = 0
    reward: float | None = None
    info: dict[str, Any] = {}
    traj: list[OpenAIMessage]
    tau2_task_id: str | int | None = None


def _call(index: int, call: OpenAIToolCall) -> ToolCall:
    try:
        arguments = json.loads(call.function.arguments or "{}")
    except json.JSONDecodeError as exc:
        raise ValueError(f"message {index}: tool call {call.id!r} has arguments that are not JSON ({exc.msg})") from None
    if not isinstance(arguments, dict):
        raise ValueError(f"message {index}: tool call {call.id!r} has arguments that are not a JSON object")
    return ToolCall(id=call.id, name=call.function.name, arguments=arguments, requestor="assistant")


def _our_messages(traj: list[OpenAIMessage]) -> tuple[list[Message], list[int | None]]:
    """``traj`` in our model with tau-bench's unrecorded greeting first, and each message's index in ``traj``."""
    messages = [Message(role="assistant", content=TAUBENCH_GREETING)]
    origins: list[int | None] = [None]
    for index, message in enumerate(traj):
        if message.role == "tool":
            if message.tool_call_id is None:
                raise ValueError(f"message {index}: a tool message without tool_call_id")
            content = message.content or ""
            messages.append(Message(role="tool", content=content, tool_call_id=message.tool_call_id,
                                    requestor="assistant", error=content.startswith("Error")))
        elif message.tool_calls:
            if message.role != "assistant":
                raise ValueError(f"message {index}: a {message.role} message with tool calls (tau-bench's customer has no tools)")
            messages.append(Message(role="assistant", content=message.content,
                                    tool_calls=[_call(index, c) for c in message.tool_calls]))
        else:
            messages.append(Message(role=message.role, content=message.content))
        origins.append(index)
    return number_turns(messages), origins


def read_entries(path: str | Path) -> list[Any]:
    """The entries of ``path``; :class:`NotThisFormat` when it is not a trajectory list."""
    path = Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise NotThisFormat(f"{path} is not a tau-bench trajectory list: not JSON ({exc})") from None
    if isinstance(data, dict) and "simulations" in data:
        raise NotThisFormat(f"{path} is a tau2 results file, not a tau-bench trajectory list: use --format tau2")
    if not isinstance(data, list):
        raise NotThisFormat(f"{path} is not a tau-bench trajectory list: expected a JSON list of entries with 'traj'")
    return data


def one_instruction(task: Task) -> Task:
    """``task`` as a tau-bench customer was briefed: one instruction paragraph, no reason for
    calling to open with (its blueprint's ``opens_with_reason`` is False)."""
    return task.model_copy(update={"blueprint": task.blueprint.model_copy(update={"opens_with_reason": False})})


def transcripts(path: str | Path, entries: list[Any], tasks: TaskIndex) -> Iterator[Transcript | BadEntry]:
    """Every entry as a transcript, or the :class:`BadEntry` saying why it cannot be scored."""
    briefed: dict[str, Task] = {}  # per task id, the task as tau-bench's customer was briefed (one object per task)
    for i, raw in enumerate(entries):
        label = f"entry {i}"
        if isinstance(raw, dict) and "task_id" in raw:
            label += f" (task_id {raw['task_id']}, trial {raw.get('trial', 0)})"
        try:
            entry = TaubenchEntry.model_validate(raw)
            messages, origins = _our_messages(entry.traj)
            if entry.tau2_task_id is not None:
                task = tasks.get(entry.tau2_task_id)
            else:
                brief = TaubenchTask.model_validate((entry.info or {}).get("task") or {})
                task = tasks.match(brief.user_id, brief.instruction)
        except ValidationError as exc:
            yield BadEntry(path, label, f"malformed: {validation_summary(exc)}")
            continue
        except (ValueError, UnknownTask) as exc:
            yield BadEntry(path, label, str(exc))
            continue
        task = briefed.setdefault(task.id, one_instruction(task))
        yield Transcript(episode=f"tb{entry.task_id}-t{entry.trial}", source_task_id=str(entry.task_id), task=task,
                         trial=entry.trial, messages=messages, origins=origins, reward=entry.reward,
                         user_cost_usd=float((entry.info or {}).get("user_cost") or 0.0))

