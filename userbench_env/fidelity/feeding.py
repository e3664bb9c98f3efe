"""What a rule tracker is fed: the episode's recorded messages, as the user saw them.

One path for the live env and for transcripts scored afterwards
(:mod:`userbench_env.fidelity.transcripts`): both hand every message of the episode's
record, in order, to :meth:`TrackerFeed.message`, which turns it into the tracker's
feeding calls:

* an agent text (``assistant`` without tool calls) is :meth:`RuleTracker.agent_text`;
* a user text (``user`` without tool calls) is :meth:`RuleTracker.user_text`;
* a message with tool calls (the agent's or the user's own) feeds nothing by itself:
  its text, if any, was not shown to the other side (tau-bench and tau2 show a user only
  the agent's messages without tool calls); its calls wait for their results;
* a ``tool`` message is the result of the pending call with its ``tool_call_id`` and is
  fed with that call as :meth:`RuleTracker.tool_call` (an agent call no rule reads, per
  the tracker's ``agent_call_names``, is skipped: feeding it would be a no-op);
* a ``system`` message feeds nothing (the user never sees the agent's policy).

Each message carries its agent turn (``Message.turn``), which the tracker records as the
evidence turn of what it finds.
"""
from __future__ import annotations

from userbench_env.core.messages import Message, ToolCall, ToolResult
from userbench_env.fidelity.rules import RuleTracker


class UnansweredCall(ValueError):
    """A ``tool`` message answers no pending tool call (the transcript is malformed)."""


class TrackerFeed:
    """Feeds one episode's messages to a rule tracker (see the module docstring).

    Keeps the tool calls made but not yet answered; the tracker is passed per message, so
    a caller may swap it (benchmarks time a tracker subclass)."""

    def __init__(self) -> None:
        self._pending: list[ToolCall] = []

    def message(self, tracker: RuleTracker, message: Message) -> list[str]:
        """Feed ``message``; returns the criterion ids it newly failed (user texts only).

        Raises :class:`UnansweredCall` for a ``tool`` message whose ``tool_call_id`` names no
        pending call."""
        if message.tool_calls:
            self._pending.extend(message.tool_calls)
        elif message.role == "assistant":
            tracker.agent_text(message.turn, message.content or "")
        elif message.role == "user":
            return tracker.user_text(message.turn, message.content or "")
        elif message.role == "tool":
            call = self._answered(message.tool_call_id)
            wanted = tracker.agent_call_names
            if call.requestor == "user" or wanted is None or call.name in wanted:
                tracker.tool_call(message.turn, call, ToolResult(content=message.content or "", error=message.error))
        return []

    def _answered(self, call_id: str | None) -> ToolCall:
        """The first pending call with ``call_id`` (removed from the pending ones)."""
        for i, call in enumerate(self._pending):
            if call.id == call_id:
                return self._pending.pop(i)
        raise UnansweredCall(f"a tool result answers no pending tool call (tool_call_id {call_id!r})")
