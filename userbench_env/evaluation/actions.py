"""The ACTION component: every gold tool call must appear in the transcript (tau2 4.4)."""
from __future__ import annotations

from typing import Any, Iterable

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Action


def transcript_tool_calls(messages: Iterable[Message]) -> list[ToolCall]:
    """Every tool call made by the agent or the user, in order."""
    return [
        call
        for message in messages
        if message.role in ("assistant", "user") and message.tool_calls
        for call in message.tool_calls
    ]


def arguments_match(given: dict[str, Any], wanted: dict[str, Any], compared: Iterable[str] | None) -> bool:
    """tau2's argument comparison: on the ``compared`` keys (None: the keys of ``given``),
    both sides hold equal values, or both lack the key."""
    if given == wanted:  # equal dicts agree on every key
        return True
    for key in given if compared is None else compared:
        if key in given:
            # as dict equality compares values: identical, or equal
            if key not in wanted or not (given[key] is wanted[key] or given[key] == wanted[key]):
                return False
        elif key in wanted:
            return False
    return True


def action_matches(gold: Action, call: ToolCall) -> bool:
    """tau2's comparison of a gold action with one call.

    Same name, and equal values on the compared keys: ``compare_args`` when given
    (empty = name only), else the keys of the *call's* arguments. A compared key
    missing on one side only is a mismatch. The requestor is not compared.
    """
    return gold.name == call.name and arguments_match(call.arguments, gold.arguments, gold.compare_args)


def action_checks(gold_actions: list[Action], messages: list[Message]) -> list[bool]:
    """For each gold action, whether some transcript call matches it (any order)."""
    calls = transcript_tool_calls(messages)
    return [any(action_matches(gold, call) for call in calls) for gold in gold_actions]
