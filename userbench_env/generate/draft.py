"""What a generator states about one task before it is built.

A :class:`TaskDraft` is the structured blueprint (persona, reason for contact, known facts
with the sentences that state them, unknown info, instructions, user tools) plus the gold
actions. Parts of the evaluation spec that depend on the world's answers (an amount to
communicate, a final status to assert) are computed by ``derive`` after the builder has
run the gold actions: the expected outcome is then the one the world really produces.
"""
from __future__ import annotations

from typing import Any, Callable

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.task import Action, EnvAssertion, InfoKind, InitializationAction, RewardType


class Fact(BaseModel):
    """One thing the user knows: its kind, its value and the sentence stating it.

    ``value`` must occur verbatim in ``sentence``; the sentences of a draft, joined with
    spaces, are the scenario's ``known_info`` text.
    """

    model_config = ConfigDict(extra="forbid")

    kind: InfoKind
    value: str
    sentence: str


class Derived(BaseModel):
    """Evaluation parts computed from the world after the gold actions ran."""

    model_config = ConfigDict(extra="forbid")

    communicate_info: list[str] = Field(default_factory=list)
    env_assertions: list[EnvAssertion] = Field(default_factory=list)


#: ``derive(world_after_gold_actions: World, results_of_gold_actions: list[ToolResult]) -> Derived``
DeriveFn = Callable[[Any, list[Any]], Derived]


class TaskDraft(BaseModel):
    """A task as a generator states it; :func:`~userbench_env.generate.builder.build_task` completes it.

    ``gold`` are the reference tool calls in order (``requestor="user"`` for user-side
    calls); every one must succeed on the world. ``env_assertions`` given here are
    checked on the final world like derived ones. ``context`` is extra structured
    material kept in the task's ``description`` (never shown to the user or agent).
    """

    model_config = ConfigDict(extra="forbid", arbitrary_types_allowed=True)

    id: str
    splits: list[str]
    persona: str | None = None
    reason_for_call: str
    known: list[Fact] = Field(default_factory=list)
    unknown: list[str] = Field(default_factory=list)
    instructions: str
    user_tools: list[str] | None = None
    gold: list[Action] = Field(default_factory=list)
    initialization_actions: list[InitializationAction] | None = None
    initialization_data: dict[str, Any] | None = None
    communicate_info: list[str] = Field(default_factory=list)
    env_assertions: list[EnvAssertion] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardType] = Field(default_factory=lambda: ["DB", "COMMUNICATE"])
    purpose: str = ""
    ticket: str | None = None
    required_documents: list[str] | None = None
    derive: DeriveFn | None = None


def act(tool: str, /, requestor: str = "assistant", compare_args: list[str] | None = None, **arguments: Any) -> Action:
    """A gold :class:`Action` calling ``tool`` (its ``action_id`` is assigned by the builder).

    ``tool`` is positional-only, so a tool argument may itself be called ``name``.
    """
    return Action(name=tool, requestor=requestor, arguments=arguments, compare_args=compare_args)  # type: ignore[arg-type]
