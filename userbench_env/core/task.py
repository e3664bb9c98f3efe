"""The Task: a structured user blueprint, the initial state and an evaluation spec.

Field meanings follow tau2-bench's task format (see ``shared/specs/tau2.md`` section 2);
the blueprint adds structure tau2 keeps as free text: known-info items with values,
so that fidelity rules can tell when the user disclosed what.
"""
from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.core.rubric import Rubric

RewardType = Literal["DB", "ENV_ASSERTION", "ACTION", "COMMUNICATE", "NL_ASSERTION"]
TaskSource = Literal["bundled", "tau2"]

#: The kinds of known-info item the extractor and the scripted roles understand.
InfoKind = Literal[
    "name",
    "first_name",
    "last_name",
    "user_id",
    "email",
    "zip",
    "phone_number",
    "reservation_id",
    "order_id",
    "item_id",
    "payment_method",
    "address",
    "date",
    "number",
    "other",
]


class KnownInfoItem(BaseModel):
    """One fact the simulated user knows and may disclose when asked.

    ``value`` is the fact as the user would say it; ``span`` the blueprint sentence it
    came from (verbatim, so fidelity criteria can quote it).
    """

    model_config = ConfigDict(extra="forbid")

    kind: InfoKind
    value: str
    span: str | None = None


class Blueprint(BaseModel):
    """What the user simulator is told, in structured form.

    ``known_info`` are items with values; ``known_info_text``/``unknown_info_text`` keep
    tau2's free text so prompts render byte-identically. ``raw_instructions`` holds a
    plain-string tau2 scenario (banking) verbatim. ``opens_with_reason``: the user was
    given ``reason_for_call`` as what to open with (tau2's scenarios); False for a user
    given one instruction paragraph (tau-bench v1), whose every identifying item, the
    reason's included, waits for the agent's question.
    """

    model_config = ConfigDict(extra="forbid")

    domain: str
    persona: str | None = None
    reason_for_call: str = ""
    known_info: list[KnownInfoItem] = Field(default_factory=list)
    known_info_text: str | None = None
    unknown_info: list[str] = Field(default_factory=list)
    unknown_info_text: str | None = None
    instructions: str = ""
    raw_instructions: str | None = None
    user_tools: list[str] | None = None
    opens_with_reason: bool = True

    def item(self, kind: str) -> KnownInfoItem | None:
        """The first known-info item of ``kind``, or ``None``."""
        return next((i for i in self.known_info if i.kind == kind), None)


class Action(BaseModel):
    """A gold tool call of the reference solution (tau2 ``Action``)."""

    model_config = ConfigDict(extra="ignore")

    action_id: str = ""
    requestor: Literal["assistant", "user"] = "assistant"
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    info: str | None = None
    compare_args: list[str] | None = None


class EnvAssertion(BaseModel):
    """A boolean check on the final environment (tau2 ``EnvAssertion``)."""

    model_config = ConfigDict(extra="ignore")

    env_type: Literal["assistant", "user"]
    func_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    assert_value: bool = True
    message: str | None = None


class InitializationAction(BaseModel):
    """A toolkit method called while preparing the initial state."""

    model_config = ConfigDict(extra="ignore")

    env_type: Literal["assistant", "user"]
    func_name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class InitialState(BaseModel):
    """How to prepare the world before the conversation (tau2 ``initial_state``)."""

    model_config = ConfigDict(extra="ignore")

    initialization_data: dict[str, Any] | None = None
    initialization_actions: list[InitializationAction] | None = None
    message_history: list[dict[str, Any]] | None = None


class EvaluationSpec(BaseModel):
    """How the agent's task reward R_tau is computed (tau2 ``evaluation_criteria``).

    ``actions``/``env_assertions`` keep the null-versus-empty distinction: both ``None``
    skips the environment check, ``actions == []`` requires an unchanged state.
    """

    model_config = ConfigDict(extra="ignore")

    actions: list[Action] | None = None
    env_assertions: list[EnvAssertion] | None = None
    communicate_info: list[str] | None = None
    nl_assertions: list[str] | None = None
    reward_basis: list[RewardType] = Field(default_factory=lambda: ["DB", "COMMUNICATE"])


class Task(BaseModel):
    """One episode's task: the user's blueprint, the world's start and how to score it.

    ``user_scenario`` keeps the source's scenario object untouched (used to render the
    user prompt exactly as tau2 does); ``blueprint`` is its structured reading.
    """

    model_config = ConfigDict(extra="forbid")

    id: str
    domain: str
    source: TaskSource = "bundled"
    splits: list[str] = Field(default_factory=list)
    blueprint: Blueprint
    user_scenario: dict[str, Any] | None = None
    initial_state: InitialState | None = None
    evaluation: EvaluationSpec | None = None
    rubric: Rubric | None = None
    ticket: str | None = None
    required_documents: list[str] | None = None
    description: dict[str, Any] | None = None

    @property
    def gold_actions(self) -> list[Action]:
        """The reference solution's tool calls (empty when there is none)."""
        return list(self.evaluation.actions or []) if self.evaluation else []
