"""The judge-free user-action probe: did the user really perform the gold user writes?

In dual-control tasks (telecom, banking's user tools) part of the reference solution is
done by the customer: gold actions with requestor ``user`` whose tool mutates state (the
user toolkit's ``mutates_state``). The probe compares those *gold user writes* with the
user's own tool calls in the transcript, so a simulated user that says "Done, I turned
it off" without calling the tool is caught with no judge. It is reported beside UFS in
``info["episode_record"]["probe"]`` and never folded into it.

Matching: a user tool call performs a gold write when tau2's ACTION predicate holds
(:func:`~userbench_env.evaluation.actions.action_matches`: same name, equal values on
the compared keys) and its result was not an error. Each call performs at most one gold
write (a maximum one-to-one matching), so a gold action listed twice, such as two
reboots, needs two calls. Gold actions naming a tool the user toolkit lacks, or a
read-only one, are not gold writes.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.messages import Message, ToolCall
from userbench_env.core.task import Action
from userbench_env.domains.toolkit import Toolkit
from userbench_env.evaluation.actions import action_matches


class ProbeResult(BaseModel):
    """The probe's verdict for one episode.

    ``gold_user_writes`` gold writes, ``performed`` of them matched by a successful user
    tool call, ``missing`` the names of the others (gold order), ``rate`` =
    performed / gold_user_writes (``None`` when the task has no gold user write).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    gold_user_writes: int
    performed: int
    missing: list[str] = Field(default_factory=list)
    rate: float | None

    def to_info(self) -> dict[str, Any]:
        """The plain dict reported in ``info["episode_record"]["probe"]``."""
        return self.model_dump()


def gold_user_writes(gold_actions: Sequence[Action], is_write: Callable[[str], bool]) -> list[Action]:
    """The gold actions the user must perform that change state, in gold order."""
    return [a for a in gold_actions if a.requestor == "user" and is_write(a.name)]


def successful_user_calls(messages: Sequence[Message]) -> list[ToolCall]:
    """The user's tool calls whose result was not an error, in transcript order."""
    failed = {m.tool_call_id for m in messages if m.role == "tool" and m.requestor == "user" and m.error}
    return [
        call
        for m in messages
        if m.role == "user" and m.tool_calls
        for call in m.tool_calls
        if call.id not in failed
    ]


def _matching(gold: Sequence[Action], calls: Sequence[ToolCall]) -> list[int | None]:
    """For each gold action, the index of its call in a maximum one-to-one matching."""
    edges = [[j for j, call in enumerate(calls) if action_matches(action, call)] for action in gold]
    owner: dict[int, int] = {}  # call index -> gold index

    def augment(i: int, seen: set[int]) -> bool:
        for j in edges[i]:
            if j not in seen:
                seen.add(j)
                if j not in owner or augment(owner[j], seen):
                    owner[j] = i
                    return True
        return False

    for i in range(len(gold)):
        augment(i, set())
    assigned: list[int | None] = [None] * len(gold)
    for j, i in owner.items():
        assigned[i] = j
    return assigned


def probe_actions(
    gold_actions: Sequence[Action], messages: Sequence[Message], is_write: Callable[[str], bool]
) -> ProbeResult:
    """The probe for a transcript, given which user tools write (see the module docstring)."""
    gold = gold_user_writes(gold_actions, is_write)
    assigned = _matching(gold, successful_user_calls(messages))
    missing = [action.name for action, call in zip(gold, assigned) if call is None]
    performed = len(gold) - len(missing)
    return ProbeResult(
        gold_user_writes=len(gold), performed=performed, missing=missing, rate=performed / len(gold) if gold else None
    )


def probe_episode(gold_actions: Sequence[Action], messages: Sequence[Message], user_toolkit: Toolkit | None) -> ProbeResult:
    """The probe for an episode of a world whose user toolkit is ``user_toolkit`` (or none)."""

    def is_write(name: str) -> bool:
        return user_toolkit is not None and user_toolkit.has_tool(name) and user_toolkit.mutates_state(name)

    return probe_actions(gold_actions, messages, is_write)
