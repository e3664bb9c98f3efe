"""The telecom synchronisation hook: agent-side facts copied onto the customer's phone.

Runs after every successful tool call, every orchestrator step and every initialization
action (spec section 8.4.6). It never runs a network search.
"""
from __future__ import annotations

from typing import Any

from userbench_env.domains.telecom.agent_db import LINE_ACTIVE
from userbench_env.domains.telecom.schema import as_float


def sync_phone(agent: Any, surroundings: dict[str, Any]) -> None:
    """Update ``surroundings`` from the agent toolkit ``agent`` (a ``TelecomTools``; its
    package-private look-ups are used).

    With a known phone number: line active / roaming allowed / data usage exceeded are
    copied from the customer's line; a paid payment request marks its bill Paid and is
    cleared; with no request, the customer's first bill awaiting payment becomes one.
    """
    number = surroundings["phone_number"]
    if number is None:
        return
    line = agent._line_by_phone(number)
    surroundings["line_active"] = line["status"] == LINE_ACTIVE
    surroundings["roaming_allowed"] = bool(line["roaming_enabled"])
    plan = agent._plan(line["plan_id"])
    surroundings["mobile_data_usage_exceeded"] = line["data_used_gb"] >= plan["data_limit_gb"] + line["data_refueling_gb"]
    request = surroundings["payment_request"]
    if request is not None and request["paid"]:
        agent._mark_bill_paid(request["bill_id"])
        surroundings["payment_request"] = None
    if surroundings["payment_request"] is None:
        awaiting = agent._bills_awaiting_payment(agent._customer_by_phone(number))
        if awaiting:
            bill = awaiting[0]
            surroundings["payment_request"] = {"bill_id": bill["bill_id"], "amount_due": as_float(bill["total_due"]), "paid": False}
