"""ScriptedAgent: an oracle agent that replays a task's reference solution in conversation.

Plan for a task, one action per ``act`` call:

1. ask the user, one item per turn, for each known-info item whose value the gold
   actions use (a value occurring in a gold argument; a name when all its words do);
2. execute the gold actions in order: assistant actions as JSON tool calls, user
   actions as a request naming the user tool and its arguments (JSON), which the
   user performs and reports; a gold ``transfer_to_human_agents`` is kept for the end;
3. state the ``communicate_info`` facts in one message;
4. close: transfer (call the tool, then tell the user) when the gold solution
   transfers, else say the request is taken care of and ask whether there is anything
   else (the user then ends the call).

The agent reads neither observations nor info: it is a baseline with perfect knowledge
of the solution, used to check tasks, proxies and envs end to end.
"""
from __future__ import annotations

import json
from typing import Any, Iterator

from userbench_env.core.task import Action, KnownInfoItem, Task
from userbench_env.tasks.extract import kind_label

TRANSFER_TOOL = "transfer_to_human_agents"
CLOSING = "Your request has been taken care of. Is there anything else I can help you with?"
TRANSFER_MESSAGE = "I am transferring you to a human agent now. Please hold on."


def _string_leaves(value: Any) -> Iterator[str]:
    if isinstance(value, dict):
        for v in value.values():
            yield from _string_leaves(v)
    elif isinstance(value, (list, tuple)):
        for v in value:
            yield from _string_leaves(v)
    elif value is not None and not isinstance(value, bool):
        yield str(value)


def needed_items(task: Task) -> list[KnownInfoItem]:
    """Known-info items whose values the gold actions use, one per kind, in blueprint order."""
    leaves = [leaf.lower() for action in task.gold_actions for leaf in _string_leaves(action.arguments)]
    words = {w for leaf in leaves for w in leaf.split()}
    needed: list[KnownInfoItem] = []
    for item in task.blueprint.known_info:
        value = item.value.lower()
        used = any(value == leaf or value in leaf for leaf in leaves) or (
            item.kind == "name" and all(w in words for w in value.split())
        )
        if used and all(i.kind != item.kind for i in needed):
            needed.append(item)
    return needed


def item_question(item: KnownInfoItem) -> str:
    """The oracle's question for one known-info item."""
    return f"Could you please tell me your {kind_label(item.kind)}?"


def tool_call_action(action: Action) -> str:
    """A gold assistant action as a JSON tool-call action string."""
    return json.dumps({"name": action.name, "arguments": action.arguments})


def user_action_request(action: Action) -> str:
    """A message asking the user to run a gold user action (tool name + JSON arguments)."""
    return f"Could you please run {action.name} on your side with these arguments: {json.dumps(action.arguments)}?"


class ScriptedAgent:
    """The oracle agent: ``reset(task)``, then ``act(observation, info) -> action string``."""

    name = "scripted-oracle"

    def __init__(self) -> None:
        self.plan: list[str] = []
        self._next = 0

    def reset(self, task: Task) -> None:
        """Build the plan for ``task`` (see the module docstring)."""
        plan = [item_question(item) for item in needed_items(task)]
        transfer: Action | None = None
        for action in task.gold_actions:
            if action.name == TRANSFER_TOOL and action.requestor == "assistant":
                transfer = action
            elif action.requestor == "user":
                plan.append(user_action_request(action))
            else:
                plan.append(tool_call_action(action))
        facts = [f for f in (task.evaluation.communicate_info if task.evaluation else None) or [] if f.strip()]
        if facts:
            plan.append("Here is the information you asked for: " + "; ".join(facts) + ".")
        if transfer is not None:
            plan += [tool_call_action(transfer), TRANSFER_MESSAGE]
        else:
            plan.append(CLOSING)
        self.plan = plan
        self._next = 0

    def act(self, observation: str, info: dict[str, Any] | None = None) -> str:
        """The next planned action; the closing message once the plan is done."""
        if self._next < len(self.plan):
            self._next += 1
            return self.plan[self._next - 1]
        return self.plan[-1] if self.plan else CLOSING
