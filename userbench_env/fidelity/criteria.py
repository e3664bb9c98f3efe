"""Deterministic criteria from a structured blueprint (``from_blueprint``), all four families.

Every criterion is rule-checked (see :mod:`userbench_env.fidelity.rules`) and grounded on a
span found verbatim in the blueprint (a known-info sentence) or in the simulation
guidelines we ship (``proxies/guidelines/*.md``, the sentence the mode violates, as in
:mod:`userbench_env.fidelity.taxonomy`). What is built:

* premature disclosure: one ``volunteers_unasked_info`` criterion per identifying
  known-info item not stated in the reason for calling (of name items, only the first:
  later ones name other people or companies), one for the annual income a scenario
  gives, one per conditional instruction ("If the agent asks ..., say ...": the user says
  it only once the agent has; :func:`conditional_criteria`); one ``dumps_blueprint``
  criterion when the scenario has at least two sentences beyond the reason for calling;
* groundedness: ``invents_unknown_information`` always; with user tools,
  ``claims_unexecuted_action``, and ``unsupported_device_state`` when the tools act on
  device features;
* goal deviation: ``premature_stop`` when the task has a goal (judged from what the user
  saw, see :class:`~userbench_env.fidelity.rules.PrematureStop`); ``unprompted_transfer`` and ``breaks_character`` always;
  ``unrequested_action`` when some user tool changes state;
* missed information: one ``withholds_requested_info`` criterion per known item kind; with
  user tools, ``skips_requested_action``.

:func:`task_criteria` is what envs use: the task's own rubric, else ``from_blueprint``
with the task's goal actions and user tool surface.
"""
from __future__ import annotations

import re
from functools import lru_cache
from importlib.resources import files
from typing import Any, Iterable

from userbench_env.core.rubric import Criterion
from userbench_env.core.task import Action, Blueprint, KnownInfoItem, Task
from userbench_env.fidelity.conditions import conditions
from userbench_env.fidelity.outcomes import insists, says_when_to_give_up
from userbench_env.fidelity.taxonomy import TAXONOMY
from userbench_env.fidelity.text import (
    DEVICE_TOOL_WORDS,
    copied_sentences,
    gives_details_up_front,
    goal_checks,
    manner_note,
    normalize,
    request_sentences,
    paste_sources,
    told_to_say,
    reason_parts,
    requests_raised_together,
    scenario_income,
    quoted_lines,
    scenario_sentences,
    scenario_text,
    upfront_sentences,
    verbatim_sentences,
    withdrawal_conditions,
)
from userbench_env.tasks.extract import extract_known_info, kind_label

#: Item kinds whose disclosure is checked (free-form kinds such as ``other`` are not).
DISCLOSURE_KINDS: frozenset[str] = frozenset(
    {"name", "first_name", "last_name", "user_id", "email", "zip", "phone_number", "reservation_id",
     "order_id", "item_id", "payment_method", "address", "date"}
)

NAME_KINDS = frozenset({"name", "first_name", "last_name"})

#: Item kinds that say who the user is (not what its request is about).
IDENTITY_KINDS = frozenset({*NAME_KINDS, "user_id", "email", "phone_number", "zip", "address"})
#: Item kinds of the user's own account (who it is, and the card it pays with): stated together
#: with a recited scenario sentence, they list several scenario facts at once (``dumps_blueprint``).
ACCOUNT_KINDS = IDENTITY_KINDS | {"payment_method"}

#: The least number of scenario sentences one message must recite to count as a dump.
DUMP_MIN_SENTENCES = 2


@lru_cache(maxsize=1)
def guideline_texts() -> tuple[str, ...]:
    """The texts of the simulation guidelines we ship (``proxies/guidelines/*.md``)."""
    folder = files("userbench_env.proxies") / "guidelines"
    return tuple(p.read_text(encoding="utf-8") for p in sorted(folder.iterdir(), key=lambda p: p.name) if p.name.endswith(".md"))


def is_grounded(span: str, blueprint: Blueprint) -> bool:
    """True when ``span`` is non-empty and found verbatim in the blueprint or the guidelines."""
    return bool(span) and (span in scenario_text(blueprint) or any(span in text for text in guideline_texts()))


def _grounding(blueprint: Blueprint, item: KnownInfoItem) -> str | None:
    """The item's span if it is a verbatim part of the blueprint's known-info text."""
    source = blueprint.known_info_text if blueprint.known_info_text is not None else (blueprint.raw_instructions or "")
    span = item.span or item.value
    return span if span and span in source else None


def names_a_tool(item: KnownInfoItem) -> bool:
    """True when the sentence giving ``item`` names its value as a tool ("Use the
    deposit_check_3847 tool to ..."): a tool the user is told to use, not an item of its own."""
    value = re.escape(item.value)
    return re.search(rf"\b{value} tool\b|\btool {value}\b", item.span or "", re.I) is not None


def own_items(blueprint: Blueprint) -> list[KnownInfoItem]:
    """The blueprint's known-info items that are the user's own (all but :func:`names_a_tool`)."""
    return [item for item in blueprint.known_info if not names_a_tool(item)]


def _criterion(mode: str, cid: str, statement: str, grounding: str | None = None, applies_when: str = "always",
               rule: str | None = None, **params: Any) -> Criterion:
    """A rule criterion of taxonomy ``mode`` (grounded on the mode's guideline by default;
    checked by the mode's rule unless ``rule`` names another)."""
    spec = TAXONOMY[mode]
    return Criterion(id=cid, family=spec.family, mode=mode, statement=statement,  # type: ignore[arg-type]
                     grounding=grounding or spec.guideline, applies_when=applies_when, check="rule", rule=rule or spec.rule,
                     params=params)


def _numbered(items: Iterable[tuple[str, Any]]) -> list[tuple[str, Any]]:
    """(kind + ``-n`` suffix for repeats, payload) pairs: stable unique id parts."""
    used: dict[str, int] = {}
    out = []
    for kind, payload in items:
        used[kind] = used.get(kind, 0) + 1
        out.append((kind if used[kind] == 1 else f"{kind}-{used[kind]}", payload))
    return out


def premature_disclosure_criteria(blueprint: Blueprint) -> list[Criterion]:
    """One ``volunteers_unasked_info`` criterion per checkable identifying item the user
    knows: its own known-info items (:func:`own_items`), the ids its instructions name (a reservation to change,
    an order to return: :func:`scenario_ids`) and the date of birth its free text gives
    (:func:`scenario_birth_dates`). An item the reason for calling names is
    stated up front, when the user was given that reason to open with
    (``blueprint.opens_with_reason``); one whose kind it names is the request's ``subject``
    (the address of "you might have typed your address wrong"). None when the scenario tells
    the user to give its details up front
    (:func:`~userbench_env.fidelity.text.gives_details_up_front`)."""
    if gives_details_up_front(blueprint):
        return income_criteria(blueprint)
    stated_up_front = blueprint.reason_for_call.lower() if blueprint.opens_with_reason else ""
    checkable = []
    named = False
    # (a scenario id's span is the sentence of the instructions naming it, verbatim)
    items = [(_as_card(item), _grounding(blueprint, item)) for item in own_items(blueprint)]
    named_apart = [*scenario_ids(blueprint), *scenario_birth_dates(blueprint)]
    for item, grounding in [*items, *((item, item.span) for item in named_apart)]:
        if item.kind not in DISCLOSURE_KINDS or (stated_up_front and item.value.lower() in stated_up_front):
            continue
        if item.kind in NAME_KINDS:  # only the first name is the user's own (later ones name others)
            if named:
                continue
            named = True
        if grounding is not None:
            checkable.append((item.kind, (item, grounding)))
    return [
        _criterion("volunteers_unasked_info", f"premature_disclosure/{key}",
                   f"The user does not state their {kind_label(item.kind)} ({item.value}) before the agent asks for it.",
                   grounding, "asked_or_disclosed", kind=item.kind, value=item.value,
                   **({"subject": True} if _names_kind(blueprint.reason_for_call, item.kind) else {}))
        for key, (item, grounding) in _numbered(checkable)
    ] + income_criteria(blueprint)


def _names_kind(reason: str, kind: str) -> bool:
    """True when the reason for calling names the item kind ("you might have typed your address
    wrong"): the request is about that item."""
    return re.search(rf"\b{re.escape(kind_label(kind))}\b", reason, re.I) is not None


def _as_card(item: KnownInfoItem) -> KnownInfoItem:
    """``item``, or, for a bare number its sentence gives as a card's last digits ("Your debit
    card ends in 6038."), the same item as a ``payment_method``: which card is an item the
    agent asks for ("which card?", "the card's last four digits"), like any other."""
    if item.kind == "number" and re.search(rf"\bcard\b.*\b(?:ends|ending) (?:in|with) {re.escape(item.value)}\b", item.span or ""):
        return item.model_copy(update={"kind": "payment_method"})
    return item


#: Kinds of id a scenario's instructions (or its reason for calling) name as the user's own.
SCENARIO_ID_KINDS = frozenset({"user_id", "email", "phone_number", "reservation_id", "order_id"})


def scenario_ids(blueprint: Blueprint) -> list[KnownInfoItem]:
    """The ids of :data:`SCENARIO_ID_KINDS` the scenario's instructions name beyond its
    known info ("You want to remove Ethan from your reservation H9ZU1C"), and its reason
    for calling's when the user was not given that reason to open with: items the user
    knows and gives when asked, like its known info."""
    texts = [blueprint.instructions, blueprint.raw_instructions or ""]
    if not blueprint.opens_with_reason:
        texts.append(blueprint.reason_for_call)
    known = {item.value for item in blueprint.known_info}
    found: list[KnownInfoItem] = []
    for text in texts:
        for item in extract_known_info(text):
            if item.kind in SCENARIO_ID_KINDS and item.value not in known and not names_a_tool(item):
                known.add(item.value)
                found.append(item)
    return found


#: A date of birth a scenario gives in its free text ("DOB: 07/18/1991", "date of birth is 03/22/1988").
_BIRTH_DATE = re.compile(r"\b(?:DOB|[Dd]ate of [Bb]irth)(?::| is)\s*(\d{1,2}/\d{1,2}/\d{4})\b")


def scenario_birth_dates(blueprint: Blueprint) -> list[KnownInfoItem]:
    """The date of birth a scenario's free text gives (tau2's banking scenarios: "- DOB:
    07/18/1991 | Address: ...") when its known info holds no date: an item the user knows
    and gives when asked. Read for the disclosure criteria only: it is no known-info item,
    which would have the scripted agent ask for it."""
    if any(item.kind == "date" for item in blueprint.known_info):
        return []
    found: list[KnownInfoItem] = []
    for text in (blueprint.instructions, blueprint.raw_instructions or ""):
        for line in text.splitlines():
            for m in _BIRTH_DATE.finditer(line):
                if all(item.value != m.group(1) for item in found):
                    found.append(KnownInfoItem(kind="date", value=m.group(1), span=line.strip()))
    return found


def income_criteria(blueprint: Blueprint) -> list[Criterion]:
    """A ``volunteers_unasked_info`` criterion for the annual income the scenario gives
    (:func:`~userbench_env.fidelity.text.scenario_income`), unless the scenario has the user
    state it up front (in its reason for calling, or where it says to)."""
    found = scenario_income(blueprint)
    if found is None or found[0] in " ".join([blueprint.reason_for_call, *upfront_sentences(blueprint)]):
        return []
    value, span = found
    return [_criterion("volunteers_unasked_info", "premature_disclosure/income",
                       f"The user does not state their annual income ({value}) before the agent asks for it.",
                       span, "asked_or_disclosed", kind="income", value=value)]


def conditional_criteria(blueprint: Blueprint) -> list[Criterion]:
    """One ``volunteers_unasked_info`` criterion per conditional instruction of the scenario
    (:func:`~userbench_env.fidelity.conditions.conditions`: "If the agent asks how many
    passengers ..., say that there are 3"): the user says the guarded content only once the
    agent has said (or asked) the trigger."""
    return [_criterion("volunteers_unasked_info", f"premature_disclosure/conditional-{i}",
                       f"The user follows the scenario's conditional instruction: {found.sentence}", found.sentence,
                       "asked_or_disclosed", rule="conditional_disclosure", trigger=sorted(found.trigger),
                       guarded=sorted(found.guarded), asks=found.asks, fact=sorted(found.fact))
            for i, found in enumerate(conditions(scenario_text(blueprint)), 1)]


#: A scenario sentence telling the user to keep its item back ("do not provide this information
#: during verification", "you prefer not to provide it"): saying one does not have it obeys.
_KEEP_BACK = re.compile(r"\b(?:do not|don'?t|never|not to) (?:provide|give|share|mention|reveal|say|disclose)\b"
                        r"|\bprefer not to (?:provide|give|share|say|speak|mention)\b"
                        r"|\b(?:do not|don'?t) want to (?:provide|give|share|speak|say|mention)\b", re.I)


def withholding_criteria(blueprint: Blueprint) -> list[Criterion]:
    """One ``withholds_requested_info`` criterion per kind of the user's own known items
    (:func:`own_items`; all its values), but for the items the scenario's sentence giving them tells the user to keep back (:data:`_KEEP_BACK`)."""
    by_kind: dict[str, list[KnownInfoItem]] = {}
    for item in own_items(blueprint):
        if item.kind != "other" and _grounding(blueprint, item) is not None and not _KEEP_BACK.search(item.span or ""):
            by_kind.setdefault(item.kind, []).append(item)
    return [
        _criterion("withholds_requested_info", f"missed_information/withholds/{kind}",
                   f"When the agent asks for the user's {kind_label(kind)}, the user gives it rather than saying it does not know it.",
                   _grounding(blueprint, items[0]), "asked", kind=kind, values=[i.value for i in items])
        for kind, items in by_kind.items()
    ]


def known_values(blueprint: Blueprint) -> dict[str, list[str]]:
    """Per item kind the scenario gives (free-form kinds such as ``other`` aside), its values."""
    out: dict[str, list[str]] = {}
    for item in blueprint.known_info:
        if item.kind not in ("other", "number"):
            out.setdefault(item.kind, []).append(item.value)
    return out


def goal_actions(task: Task) -> list[Action]:
    """The task's gold actions that change state (its goal), by the domain toolkits' tool kinds.

    A gold action naming a tool neither toolkit knows is kept (assumed to change state).
    """
    from userbench_env.domains import get_domain

    domain = get_domain(task.domain)
    specs = dict(domain.agent_toolkit.tool_specs())
    if domain.user_toolkit is not None:
        for name, spec in domain.user_toolkit.tool_specs().items():
            specs.setdefault(name, spec)
    return [a for a in task.gold_actions if a.name not in specs or specs[a.name].mutates_state]


def mutating_tools(task: Task) -> list[str]:
    """The state-changing tools of ``task``'s domain's user toolkit (offered in the task or
    not: calling one the task does not offer is no more requested)."""
    from userbench_env.domains import get_domain

    toolkit = get_domain(task.domain).user_toolkit
    if toolkit is None or not user_tool_names(task):
        return []
    return sorted(n for n, spec in toolkit.tool_specs().items() if spec.mutates_state)


def user_tool_names(task: Task) -> list[str]:
    """The names of the user tools offered in ``task`` (tau2's rule: an unknown listed name means none)."""
    from userbench_env.domains import get_domain

    toolkit = get_domain(task.domain).user_toolkit
    if toolkit is None:
        return []
    listed = [n for n, s in toolkit.tool_specs().items() if not s.discoverable]
    wanted = task.blueprint.user_tools
    if wanted is None:
        return listed
    known = toolkit.tool_specs()
    return list(wanted) if all(n in known for n in wanted) else []


def from_blueprint(
    blueprint: Blueprint,
    goal: Iterable[Action] | None = None,
    user_tools: Iterable[str] | None = None,
    mutating: Iterable[str] | None = None,
) -> list[Criterion]:
    """Every deterministic criterion derivable from ``blueprint`` (stable order and ids).

    ``goal`` are the state-changing gold actions: given (even empty: a task whose goal
    changes nothing), the task has a goal to reach, which enables ``premature_stop`` (judged
    from the user's view, never against these actions);
    ``user_tools`` the names of the user's tools (enables the action criteria);
    ``mutating`` those of them that change state (enables ``unrequested_action``).
    """
    criteria = premature_disclosure_criteria(blueprint) + conditional_criteria(blueprint)
    scenario = scenario_text(blueprint)
    sentences = scenario_sentences(blueprint)
    verbatim = verbatim_sentences(blueprint)
    copied = copied_sentences(blueprint)
    up_front = gives_details_up_front(blueprint)
    if max(len(sentences), len(verbatim), len(copied)) >= DUMP_MIN_SENTENCES:
        # what a faithful user says of its request, and what the scenario tells it to state at once ("This is
        # all information you should provide upfront"): the scenario's wording a paste goes beyond
        opening, further = request_sentences(blueprint)
        stated_anyway = [*opening, *further, *upfront_sentences(blueprint)]
        criteria.append(_criterion("dumps_blueprint", "premature_disclosure/dumps_blueprint",
                                   "The user never recites two or more sentences of the scenario in one message "
                                   "(its constraints, fallback plans or persona notes, in any wording).",
                                   sentences=sentences, fallback=reason_parts(blueprint)[1], verbatim=verbatim, copied=copied,
                                   # the scenario's wording a pasting message repeats, and what a user states anyway
                                   pasted=[] if up_front else paste_sources(blueprint),
                                   opening=[normalize(s).strip() for s in stated_anyway],
                                   persona=[s for s in sentences
                                            if (blueprint.persona and s in blueprint.persona) or manner_note(s)],
                                   quoted=quoted_lines(blueprint),
                                   minimum=DUMP_MIN_SENTENCES, opens_with_reason=blueprint.opens_with_reason,
                                   identity=[] if up_front else [i.value for i in blueprint.known_info if i.kind in ACCOUNT_KINDS],
                                   exempt=" ".join([*reason_parts(blueprint)[0], *requests_raised_together(blueprint),
                                                    *(i.value for i in blueprint.known_info),
                                                    *told_to_say(blueprint)])))
    criteria.append(_criterion("invents_unknown_information", "groundedness/invented_information",
                               "Every identifier or fact the user states (ids, names, zip codes, emails, dates, "
                               "times, addresses) comes from the scenario or the conversation.",
                               scenario=scenario, known=known_values(blueprint)))
    tools = list(user_tools or [])
    if tools:
        criteria.append(_criterion("claims_unexecuted_action", "groundedness/unexecuted_action",
                                   "The user claims an action only after calling the tool that performs it, and "
                                   "consistently with its result.", applies_when="action_claimed", tools=tools))
        if any(word in name for name in tools for word in DEVICE_TOOL_WORDS):
            criteria.append(_criterion("unsupported_device_state", "groundedness/device_state",
                                       "Every device state the user reports matches its latest tool result or the scenario.",
                                       applies_when="state_reported", scenario=scenario))
    if goal is not None:  # (an empty goal, a refusal or an answer to get, is still a request to see dealt with)
        criteria.append(_criterion("premature_stop", "goal_deviation/premature_stop",
                                   "The user sends ###STOP### only once, as far as it can know, its goal is no longer "
                                   "open: the agent said the request is done, or said it cannot be done and the "
                                   "scenario's fallbacks are exhausted, or the scenario tells it to stop.",
                                   applies_when="stopped", tools=list(user_tools or []), fallback=reason_parts(blueprint)[1],
                                   conditional=bool(withdrawal_conditions(blueprint)), insist=insists(scenario),
                                   gives_up=says_when_to_give_up(scenario)))
    criteria.append(_criterion("unprompted_transfer", "goal_deviation/unprompted_transfer",
                               "The user sends ###TRANSFER### only after the agent said it transfers them.",
                               applies_when="transferred"))
    mutating = list(mutating or [])
    if mutating:
        criteria.append(_criterion("unrequested_action", "goal_deviation/unrequested_action",
                                   "The user calls a tool only when the agent asked for that action or an answer to the "
                                   "agent needs it.",
                                   applies_when="tool_call", tools=tools, mutating=mutating,
                                   # the checks of what the scenario has the user look at
                                   goal_checks=sorted(goal_checks(scenario))))
    criteria.append(_criterion("breaks_character", "goal_deviation/breaks_character",
                               "The user stays the customer: never speaks as the agent (offering help, doing the "
                               "agent's part) or about being an AI, a chatbot or a simulator."))
    criteria += withholding_criteria(blueprint)
    if tools:
        criteria.append(_criterion("skips_requested_action", "missed_information/skipped_action",
                                   "When the agent asks the user to perform an action on their side, the user performs it "
                                   "(or asks about it) before answering.", applies_when="action_requested", tools=tools))
    return criteria


def task_criteria(task: Task) -> list[Criterion]:
    """The criteria an env checks for ``task``: its rubric, else ``from_blueprint`` with its goal and user tools."""
    if task.rubric is not None:
        return list(task.rubric.criteria)
    return from_blueprint(task.blueprint, goal_actions(task), user_tool_names(task), mutating_tools(task))


__all__ = [
    "ACCOUNT_KINDS", "DISCLOSURE_KINDS", "IDENTITY_KINDS", "NAME_KINDS",
    "from_blueprint", "goal_actions", "guideline_texts", "is_grounded", "kind_label", "known_values",
    "mutating_tools", "names_a_tool", "own_items",
    "conditional_criteria", "premature_disclosure_criteria", "scenario_birth_dates", "scenario_ids", "task_criteria",
    "user_tool_names", "withholding_criteria",
]
