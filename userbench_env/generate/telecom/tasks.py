"""Telecom tasks: fault combinations x personas, each on one customer's line.

For every combination the draft gets initialization actions (identify the phone's owner,
break things, let the phone search the network), the gold repair (agent and customer
actions in :class:`~userbench_env.generate.telecom.faults.Repair` order), and env
assertions on the repaired world; the builder checks every assertion really holds after
the repair.
"""
from __future__ import annotations

import itertools
import random
from typing import Any

from userbench_env.core.task import EnvAssertion
from userbench_env.generate.draft import Fact, TaskDraft
from userbench_env.generate.telecom.faults import FAULTS, Repair, gold, init
from userbench_env.generate.telecom.world import TelecomWorld

#: Persona label -> persona text (None: no persona).
PERSONAS: dict[str, str | None] = {
    "none": None,
    "novice": (
        "You are in your seventies and use your phone mostly for calls and photos of your grandchildren. "
        "Menus confuse you, so you describe what you see on the screen in your own words and ask the agent "
        "to repeat steps. You stay polite but get flustered when several steps come at once."
    ),
    "expert": (
        "You work in IT and already tried the obvious fixes, or think you did. You are brisk, use technical "
        "terms, and push back when asked to do something that sounds pointless, but you do comply when the "
        "agent explains why."
    ),
}

FAMILY_WORDS = {"service": "no service", "mobile_data": "mobile data", "mms": "picture messaging"}


def combinations(rng: random.Random) -> list[tuple[str, tuple[str, ...]]]:
    """The (family, fault names) combinations the generator makes tasks for."""
    by_family: dict[str, list[str]] = {}
    for fault in FAULTS.values():
        by_family.setdefault(fault.family, []).append(fault.name)
    combos: list[tuple[str, tuple[str, ...]]] = [("service", (f,)) for f in by_family["service"]]
    combos += [("service", pair) for pair in (("airplane_mode_on", "sim_card_unseated"), ("airplane_mode_on", "apn_broken"), ("sim_card_unseated", "apn_broken"), ("airplane_mode_on", "overdue_bill"))]
    data = by_family["mobile_data"]
    combos += [("mobile_data", (f,)) for f in data]
    pairs = [p for p in itertools.combinations(data, 2) if not {"roaming_device_off", "roaming_line_off"} <= set(p)]
    combos += [("mobile_data", p) for p in rng.sample(pairs, 6)]
    triples = [t for t in itertools.combinations(data, 3) if not {"roaming_device_off", "roaming_line_off"} <= set(t)]
    combos += [("mobile_data", t) for t in rng.sample(triples, 1)]
    mms = by_family["mms"]
    combos += [("mms", (f,)) for f in mms]
    combos += [("mms", p) for p in rng.sample(list(itertools.combinations(mms, 2)), 4)]
    helpers = ["data_off", "roaming_line_off", "data_usage_exceeded"]
    combos += [("mms", (rng.choice(mms[:-1]), h)) for h in helpers]
    return combos


def _assertions(family: str, repairs: list[Repair]) -> list[EnvAssertion]:
    checks = [EnvAssertion(env_type=e, func_name=f, arguments=a) for r in repairs for e, f, a in r.assertions]  # type: ignore[arg-type]
    if not all(r.solvable for r in repairs):
        return checks
    if family == "service":
        checks.append(EnvAssertion(env_type="user", func_name="assert_service_status", arguments={"expected_status": "connected"}))
    elif family == "mobile_data":
        checks.append(EnvAssertion(env_type="user", func_name="assert_mobile_data_status", arguments={"expected_status": True}))
        checks.append(EnvAssertion(env_type="user", func_name="assert_internet_speed", arguments={"expected_speed": 200, "expected_desc": "excellent"}))
    else:
        checks.append(EnvAssertion(env_type="user", func_name="assert_can_send_mms", arguments={"expected_status": True}))
    return checks


def make_draft(w: TelecomWorld, rng: random.Random, family: str, faults: tuple[str, ...], persona: str, index: int) -> TaskDraft:
    """The draft of one fault combination for one persona on a random customer line."""
    customer = rng.choice(w.customers)
    line = w.line(rng.choice(customer["line_ids"]))
    ctx: dict[str, Any] = {
        "customer_id": customer["customer_id"],
        "line_id": line["line_id"],
        "line": line,
        "plan": w.plan(line["plan_id"]),
        "overdue_bill_id": f"B{7000 + index}",
    }
    repairs = [FAULTS[name].repair(ctx) for name in faults]
    solvable = all(r.solvable for r in repairs)
    actions = [gold("assistant", "get_customer_by_phone", phone_number=line["phone_number"])]
    if solvable:
        for part in ("agent", "user", "agent_after"):
            for r in repairs:
                actions += [a for a in getattr(r, part) if a not in actions]
        if any(r.needs_reboot for r in repairs):
            actions.append(gold("user", "reboot_device"))
    else:
        actions += [a for r in repairs if not r.solvable for a in r.agent]
    breaks = [init("user", "set_user_info", name=customer["full_name"], phone_number=line["phone_number"])]
    for r in repairs:
        breaks += r.breaks
    breaks.append(init("user", "simulate_network_search"))
    abroad = any(f.startswith("roaming") for f in faults)
    symptoms = ". Also, ".join(FAULTS[f].symptom for f in faults)
    known = [
        Fact(kind="name", value=customer["full_name"], sentence=f"Your name is {customer['full_name']}."),
        Fact(kind="phone_number", value=line["phone_number"], sentence=f"The phone with the problem has the number {line['phone_number']}."),
    ]
    if abroad:
        known.append(Fact(kind="other", value="abroad", sentence="You are abroad on a trip right now."))
    if "data_usage_exceeded" in faults:
        known.append(Fact(kind="number", value="2 GB", sentence="You are fine paying for up to 2 GB of extra data."))
    goal = {
        "service": "the status bar shows a working connection",
        "mobile_data": "a speed test shows a fast connection",
        "mms": "the phone says it can send MMS messages",
    }[family]
    instructions = (
        "Do what the agent asks on your phone, one step at a time, and report what the phone shows. "
        "Do not change anything the agent did not ask for. "
        + ("If the agent sends you a payment request, pay it. " if "overdue_bill" in faults else "")
        + (f"The issue is solved when {goal}; then thank the agent and end the conversation." if solvable else
           "If the agent says it cannot fix this and transfers you, accept and end the conversation.")
    )
    return TaskDraft(
        id=f"telecom_{family}_{'+'.join(faults)}_{persona}",
        splits=[],
        persona=PERSONAS[persona],
        reason_for_call=f"You are contacting support about {FAMILY_WORDS[family]}: {symptoms}.",
        known=known,
        unknown=["You do not know what caused the problem.", "You do not know your customer id or line id."],
        instructions=instructions,
        gold=actions,
        initialization_actions=breaks,
        env_assertions=_assertions(family, repairs),
        reward_basis=["ENV_ASSERTION"] if solvable else ["ENV_ASSERTION", "ACTION"],
        ticket=f"Customer {customer['full_name']} ({line['phone_number']}) reports: {symptoms}.",
        purpose=f"{family} issue caused by: {', '.join(faults)}.",
    )
