"""The fidelity taxonomy as data: four families of user-proxy failure and their modes.

Each :class:`Mode` names its family, says what the failure is, and how it is covered:
``rule`` (a deterministic check in :mod:`userbench_env.fidelity.rules`, named by
``rule``, and by ``also`` for further rules checking criteria of the mode), ``judge`` (no
rule can decide it; only the LLM judge does) or ``env`` (the conversation env decides it
when the user's conduct ends the episode, see :mod:`userbench_env.envs.info`). ``injectable``
marks the modes :class:`~userbench_env.proxies.perturbed.PerturbedUserProxy` can inject
with a ground-truth label. ``guideline`` is the sentence of our simulation guidelines
(``proxies/guidelines/*.md``) the mode violates, quoted verbatim.

The modes beyond the four families' core ones come from the simulation guidelines:
announcing a transfer the agent never offered, calling a tool nobody asked for,
ignoring a tool error, breaking character, misusing the out-of-scope token.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

FAMILIES: tuple[str, ...] = ("groundedness", "premature_disclosure", "goal_deviation", "missed_information")
Coverage = Literal["rule", "judge", "env"]


@dataclass(frozen=True)
class Mode:
    """One failure mode: name, family, description, coverage, rule name, guideline quote."""

    name: str
    family: str
    description: str
    coverage: Coverage
    guideline: str
    rule: str | None = None
    injectable: bool = False
    #: Further rules checking criteria of the mode (a conditional scenario instruction is
    #: a disclosure criterion of its own, checked by its own rule).
    also: tuple[str, ...] = ()


_NO_VOLUNTEER = "Do not volunteer everything at once."
_STEP_BY_STEP = "Share information step by step."
_NEVER_INVENT = "Never invent facts."
_GROUNDED_STATE = "Every statement about your device or account state must come from the result of a tool you actually called."
_NO_FAKE_RESULT = "Never describe a result you have not seen, and never claim to have done something you did not do."
_FOLLOW = "Follow the scenario."
_GOAL_FROM_SCENARIO = "Your goal, your constraints and your preferences come from it and from nothing else."
_STOP = "When your goal has been reached (or the scenario tells you to stop), reply with `###STOP###`."
_SAY_UNKNOWN = "say so if the agent asks for them"
_ACT_ON_REQUEST = "Call a tool only when the agent asked for that action or when you need it to answer the agent."

MODES: tuple[Mode, ...] = (
    # premature disclosure
    Mode("volunteers_unasked_info", "premature_disclosure", "States a known item before the agent asked for it.",
         "rule", _STEP_BY_STEP, "premature_disclosure", True, ("conditional_disclosure",)),
    Mode("preempts_diagnosis", "premature_disclosure",
         "Names the cause or the fix of the problem before the agent's troubleshooting gets there.", "judge", _STEP_BY_STEP),
    Mode("dumps_blueprint", "premature_disclosure", "Recites several sentences of the scenario in one message.",
         "rule", _NO_VOLUNTEER, "dumps_blueprint", True),
    # groundedness
    Mode("unsupported_personal_state", "groundedness",
         "Asserts a fact about the user's account, history or situation that the scenario does not give.", "judge", _NEVER_INVENT),
    Mode("unsupported_device_state", "groundedness",
         "Asserts a device state (airplane mode, mobile data, roaming, ...) no tool result or scenario text supports.",
         "rule", _GROUNDED_STATE, "device_state", True),
    Mode("claims_unexecuted_action", "groundedness",
         "Says it performed an action the agent asked for without calling the tool.", "rule", _NO_FAKE_RESULT,
         "unexecuted_action", True),
    Mode("fabricates_tool_result", "groundedness", "Reports a tool result different from what the tool returned.",
         "judge", _NO_FAKE_RESULT),
    Mode("self_contradiction", "groundedness", "Contradicts something it said earlier in the conversation.", "judge",
         "Stay in character for the whole conversation."),
    Mode("invents_unknown_information", "groundedness",
         "States an identifier or fact (id, email, phone number, ...) that neither the scenario nor the conversation holds.",
         "rule", _NEVER_INVENT, "invented_information", True),
    # goal deviation
    Mode("premature_stop", "goal_deviation", "Ends the conversation before the goal state is reached.", "rule", _STOP,
         "premature_stop", True),
    Mode("accepts_forbidden_outcome", "goal_deviation", "Agrees to an outcome the scenario rules out.", "judge",
         _GOAL_FROM_SCENARIO, None, True),
    Mode("accepts_insufficient_outcome", "goal_deviation",
         "Settles for less than the scenario requires (e.g. a worse speed, a partial refund).", "judge", _GOAL_FROM_SCENARIO),
    Mode("abandons_goal", "goal_deviation", "Gives up on or changes the scenario's goal without being told to.", "judge",
         _FOLLOW),
    Mode("unprompted_transfer", "goal_deviation",
         "Sends the transfer token although the agent never said it transfers the user.", "rule",
         "When the agent tells you that you are being transferred to another agent or a human, reply with `###TRANSFER###`.",
         "unprompted_transfer"),
    Mode("unrequested_action", "goal_deviation", "Calls a user tool that the agent did not ask for and no answer needs.",
         "rule", _ACT_ON_REQUEST, "unrequested_action"),
    Mode("ignores_tool_error", "goal_deviation", "Gives up after a failed tool call instead of correcting it.", "judge",
         "If a tool call fails, read the error, correct the call and try again."),
    Mode("breaks_character", "goal_deviation",
         "Speaks as the agent (offers help, does the agent's part), or about being an AI, a chatbot or a simulator.", "rule",
         "Stay in character for the whole conversation.", "breaks_character"),
    Mode("never_answers_agent", "goal_deviation",
         "Keeps calling tools (or failing them) instead of answering the agent, until the user's error budget "
         "ends the episode.", "env",
         "The agent does not see your tool calls or their results; tell the agent what you found in a normal message."),
    Mode("misuses_out_of_scope", "goal_deviation", "Ends with the out-of-scope token while the scenario covers the situation.",
         "judge",
         "When the conversation needs something the scenario does not cover and you cannot go on, reply with `###OUT-OF-SCOPE###`."),
    # missed information
    Mode("withholds_requested_info", "missed_information", "Says it does not know an item the scenario gives it.",
         "rule", _SAY_UNKNOWN, "withholding", True),
    Mode("skips_requested_action", "missed_information",
         "Answers a request to perform a user action without performing it (and without asking about it).", "rule",
         _ACT_ON_REQUEST, "skipped_action", True),
)

TAXONOMY: dict[str, Mode] = {mode.name: mode for mode in MODES}


def modes_of(family: str) -> list[Mode]:
    """The modes of ``family`` in taxonomy order (``ValueError`` for an unknown family)."""
    if family not in FAMILIES:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)}")
    return [m for m in MODES if m.family == family]


def rule_modes() -> list[str]:
    """Names of the modes a deterministic rule covers."""
    return [m.name for m in MODES if m.coverage == "rule"]


def injectable_modes() -> list[str]:
    """Names of the modes the perturbed proxy can inject."""
    return [m.name for m in MODES if m.injectable]


def resolve_modes(names: str) -> list[str]:
    """Injectable modes named by ``names``: comma-separated mode names, family names
    (all their injectable modes) or ``all``. ``ValueError`` for an unknown or
    non-injectable name."""
    out: list[str] = []
    for raw in (n.strip() for n in names.split(",")):
        if not raw:
            continue
        if raw == "all":
            picked = injectable_modes()
        elif raw in FAMILIES:
            picked = [m.name for m in modes_of(raw) if m.injectable]
        elif raw in TAXONOMY and TAXONOMY[raw].injectable:
            picked = [raw]
        else:
            raise ValueError(f"cannot inject {raw!r}; injectable modes: {', '.join(injectable_modes())} (or a family, or 'all')")
        out.extend(p for p in picked if p not in out)
    if not out:
        raise ValueError("no mode to inject")
    return out
