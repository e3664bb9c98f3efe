"""Helpers for the bundled-world tests: a gold transcript built live from a task."""
from __future__ import annotations

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Task
from userbench_env.domains import make_world


def live_gold_transcript(task: Task, closing: bool = True, skip_writes: bool = False) -> tuple[list[Message], list[str]]:
    """Run the task's gold actions on a fresh bundled world; return the transcript and errors.

    ``closing`` appends an agent message stating every ``communicate_info`` string;
    ``skip_writes`` leaves out state-changing calls (a deliberately wrong episode).
    """
    world = make_world(task.domain, "bundled", task)
    messages = [Message(role="user", content="Hi, I need some help.")]
    errors = []
    for i, action in enumerate(task.gold_actions):
        side = world.toolkit("agent" if action.requestor == "assistant" else "user")
        if skip_writes and side.mutates_state(action.name):
            continue
        result = world.call(action.name, action.arguments, requestor=action.requestor)
        if result.error or result.content.startswith(("Error", "Failed")):
            errors.append(f"{action.name}: {result.content}")
        call = ToolCall(id=f"c{i}", name=action.name, arguments=action.arguments, requestor=action.requestor)
        messages.append(Message(role=action.requestor, tool_calls=[call]))
        messages.append(Message(role="tool", content=result.content, tool_call_id=call.id, requestor=action.requestor, error=result.error))
    info = task.evaluation.communicate_info if task.evaluation else None
    if closing:
        messages.append(Message(role="assistant", content="Done. " + " / ".join(info or [])))
    messages.append(Message(role="user", content="Thanks! ###STOP###"))
    return messages, errors
