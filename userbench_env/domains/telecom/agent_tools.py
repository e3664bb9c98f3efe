"""The telecom agent toolkit: account look-ups, line and billing actions.

Behaviour (including error texts, the unvalidated arguments and the number types written
to the DB) follows tau2-bench's telecom tools (spec section 8.4.2). Records are returned
as :class:`~userbench_env.domains.toolkit.Model` so their numbers print unchanged; plain
dict returns have their numbers stringified by the toolkit, as in tau2.
"""
from __future__ import annotations

import datetime as _dt
import random
from typing import Any

from userbench_env.domains.telecom.agent_db import (
    BILL_AWAITING,
    BILL_DRAFT,
    BILL_OVERDUE,
    BILL_PAID,
    LINE_ACTIVE,
    LINE_PENDING,
    LINE_SUSPENDED,
    TODAY,
    line_item,
    new_bill,
)
from userbench_env.domains.telecom.assertions import AgentAssertions
from userbench_env.domains.toolkit import Model, Toolkit, tool

Record = dict[str, Any]

#: Seed of each world's generator for ids of Draft bills created by ``refuel_data``
#: (tau2 draws them from ``uuid4``; we keep the ``B`` + 8 hex digits form, reproducibly).
DRAFT_BILL_SEED = "userbench-telecom-draft-bills"


def _first_of_next_month(day: _dt.date) -> _dt.date:
    return (day.replace(day=1) + _dt.timedelta(days=32)).replace(day=1)


class TelecomTools(AgentAssertions, Toolkit):
    """Agent-side telecom tools over the agent DB (plus initialization helpers).

    Each instance owns a :class:`random.Random` seeded with :data:`DRAFT_BILL_SEED`, so
    the ids of Draft bills created for customers without one are the same in every run.
    """

    def __init__(self, db: Any, world: Any = None):
        super().__init__(db, world)
        self._draft_bill_ids = random.Random(DRAFT_BILL_SEED)

    # -- look-up helpers (private: also used by the sync hook) -------------------------
    def _find(self, section: str, key: str, value: Any, label: str) -> Record:
        for item in self.db[section]:
            if item[key] == value:
                return item
        raise ValueError(f"{label} with ID {value} not found")

    def _line(self, line_id: Any) -> Record:
        return self._find("lines", "line_id", line_id, "Line")

    def _plan(self, plan_id: Any) -> Record:
        return self._find("plans", "plan_id", plan_id, "Plan")

    def _device(self, device_id: Any) -> Record:
        return self._find("devices", "device_id", device_id, "Device")

    def _bill(self, bill_id: Any) -> Record:
        return self._find("bills", "bill_id", bill_id, "Bill")

    def _customer(self, customer_id: Any) -> Record:
        return self._find("customers", "customer_id", customer_id, "Customer")

    def _customer_by_phone(self, phone_number: Any) -> Record:
        for customer in self.db["customers"]:
            if customer["phone_number"] == phone_number:
                return customer
            for line_id in customer["line_ids"]:
                if self._line(line_id)["phone_number"] == phone_number:
                    return customer
        raise ValueError(f"Customer with phone number {phone_number} not found")

    def _line_by_phone(self, phone_number: Any) -> Record:
        for line in self.db["lines"]:
            if line["phone_number"] == phone_number:
                return line
        raise ValueError(f"Line with phone number {phone_number} not found")

    def _target_line(self, customer_id: Any, line_id: Any) -> Record:
        customer = self._customer(customer_id)
        if line_id not in customer["line_ids"]:
            raise ValueError(f"Line {line_id} not found for customer {customer_id}")
        return self._line(line_id)

    def _bills_awaiting_payment(self, customer: Record) -> list[Record]:
        return [bill for bill in map(self._bill, customer["bill_ids"]) if bill["status"] == BILL_AWAITING]

    def _mark_bill_paid(self, bill_id: Any) -> str:
        self._bill(bill_id)["status"] = BILL_PAID
        return f"Bill {bill_id} set to paid"

    # -- customer look-up tools ------------------------------------------------------
    @tool("read")
    def get_customer_by_phone(self, phone_number: str) -> Any:
        """Look up the customer who owns a phone number (contact number or any of their lines).

        Args:
            phone_number: Phone number to look up.
        """
        return Model(self._customer_by_phone(phone_number))

    @tool("read")
    def get_customer_by_id(self, customer_id: str) -> Any:
        """Fetch a customer record by customer ID.

        Args:
            customer_id: The customer's ID.
        """
        return Model(self._customer(customer_id))

    @tool("read")
    def get_customer_by_name(self, full_name: str, dob: str) -> Any:
        """List the customers with this full name (case-insensitive) and date of birth.

        Args:
            full_name: The customer's full name.
            dob: Date of birth as YYYY-MM-DD.
        """
        wanted = full_name.lower()
        return [
            Model(c)
            for c in self.db["customers"]
            if c["full_name"].lower() == wanted and c["date_of_birth"] == dob
        ]

    @tool("read")
    def get_details_by_id(self, id: str) -> Any:
        """Fetch any record by its ID; the prefix picks the kind (C customer, L line, D device, B bill, P plan).

        Args:
            id: The ID of the record.
        """
        if id.startswith("L"):
            found = self._line(id)
        elif id.startswith("D"):
            found = self._device(id)
        elif id.startswith("B"):
            found = self._bill(id)
        elif id.startswith("C"):
            found = self._customer(id)
        elif id.startswith("P"):
            found = self._plan(id)
        else:
            raise ValueError(f"Unknown ID format or type: {id}")
        return Model(found)

    # -- line tools ------------------------------------------------------------------
    @tool("write")
    def suspend_line(self, customer_id: str, line_id: str, reason: str) -> Any:
        """Suspend one of the customer's active lines (starting today; a monthly holding fee applies).

        Args:
            customer_id: Owner of the line.
            line_id: Line to suspend.
            reason: Why the line is suspended.
        """
        line = self._target_line(customer_id, line_id)
        if line["status"] != LINE_ACTIVE:
            raise ValueError("Line must be active to suspend")
        line["status"] = LINE_SUSPENDED
        line["suspension_start_date"] = TODAY
        return {"message": "Line suspended successfully. $5/month holding fee will apply.", "line": Model(line)}

    @tool("write")
    def resume_line(self, customer_id: str, line_id: str) -> Any:
        """Reactivate one of the customer's suspended (or pending) lines.

        Args:
            customer_id: Owner of the line.
            line_id: Line to resume.
        """
        line = self._target_line(customer_id, line_id)
        if line["status"] not in (LINE_SUSPENDED, LINE_PENDING):
            raise ValueError("Line must be suspended to resume")
        line["status"] = LINE_ACTIVE
        line["suspension_start_date"] = None
        return {"message": "Line resumed successfully", "line": Model(line)}

    # -- billing tools -----------------------------------------------------------------
    @tool("read")
    def get_bills_for_customer(self, customer_id: str, limit: int = 12) -> Any:
        """List the customer's bills, newest issue date first.

        Args:
            customer_id: The customer's ID.
            limit: How many bills to return at most.
        """
        customer = self._customer(customer_id)
        bills = [self._bill(bill_id) for bill_id in customer["bill_ids"]]
        ordered = sorted(bills, key=lambda bill: bill["issue_date"], reverse=True)
        return [Model(bill) for bill in ordered[:limit]]

    @tool("write")
    def send_payment_request(self, customer_id: str, bill_id: str) -> str:
        """Ask the customer to pay one of their bills; only one request may be pending at a time.

        The bill's status is not checked: look at it before sending a request.

        Args:
            customer_id: Owner of the bill.
            bill_id: The bill to be paid.
        """
        customer = self._customer(customer_id)
        if self._bills_awaiting_payment(customer):
            raise ValueError("A bill is already awaiting payment for this customer")
        if bill_id not in customer["bill_ids"]:
            raise ValueError(f"Bill {bill_id} not found for customer {customer_id}")
        bill = self._bill(bill_id)
        bill["status"] = BILL_AWAITING
        return f"Payment request sent to the customer for bill {bill['bill_id']}"

    def _charge(self, customer_id: Any, amount: Any, description: str) -> None:
        """Add a one-time charge (or credit) to the customer's Draft bill, creating one if needed."""
        customer = self._customer(customer_id)
        draft = next((b for b in map(self._bill, customer["bill_ids"]) if b["status"] == BILL_DRAFT), None)
        if draft is None:
            start = _first_of_next_month(TODAY)
            end = _first_of_next_month(start) - _dt.timedelta(days=1)
            bill_id = f"B{self._draft_bill_ids.getrandbits(32):08x}"
            draft = new_bill(bill_id, customer_id, start, end, start + _dt.timedelta(days=14), BILL_DRAFT)
            self.db["bills"].append(draft)
            customer["bill_ids"].append(bill_id)
        draft["line_items"].append(line_item(description, amount))
        draft["total_due"] += amount

    # -- usage and roaming tools -------------------------------------------------------
    @tool("read")
    def get_data_usage(self, customer_id: str, line_id: str) -> Any:
        """Show a line's data used this cycle, its plan limit, data refuelled and the cycle end date.

        Args:
            customer_id: Owner of the line.
            line_id: The line to report on.
        """
        line = self._target_line(customer_id, line_id)
        plan = self._plan(line["plan_id"])
        return {
            "line_id": line_id,
            "data_used_gb": line["data_used_gb"],
            "data_limit_gb": plan["data_limit_gb"],
            "data_refueling_gb": line["data_refueling_gb"],
            "cycle_end_date": _first_of_next_month(TODAY) - _dt.timedelta(days=1),
        }

    @tool("write")
    def enable_roaming(self, customer_id: str, line_id: str) -> str:
        """Turn international roaming on for one of the customer's lines.

        Args:
            customer_id: Owner of the line.
            line_id: The line to change.
        """
        return self._set_roaming(customer_id, line_id, True)

    @tool("write")
    def disable_roaming(self, customer_id: str, line_id: str) -> str:
        """Turn international roaming off for one of the customer's lines.

        Args:
            customer_id: Owner of the line.
            line_id: The line to change.
        """
        return self._set_roaming(customer_id, line_id, False)

    def _set_roaming(self, customer_id: str, line_id: str, on: bool) -> str:
        """Switch a customer's line's roaming to ``on``; says so, or that it already was."""
        word = "enabled" if on else "disabled"
        line = self._target_line(customer_id, line_id)
        if bool(line["roaming_enabled"]) == on:
            return f"Roaming was already {word}"
        line["roaming_enabled"] = on
        return f"Roaming {word} successfully"

    @tool("generic")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the customer over to a human agent together with a summary of the issue.

        Use it only when the customer asks for a human or the issue cannot be solved with
        the policy and the tools available.

        Args:
            summary: Short summary of the customer's issue.
        """
        return "Transfer successful"

    @tool("write")
    def refuel_data(self, customer_id: str, line_id: str, gb_amount: float) -> Any:
        """Add extra data to a line for this cycle, charged on the customer's next bill at the plan's rate.

        Args:
            customer_id: Owner of the line.
            line_id: The line to top up.
            gb_amount: Gigabytes of data to add.
        """
        line = self._target_line(customer_id, line_id)
        if gb_amount <= 0:
            raise ValueError("Refuel amount must be positive")
        plan = self._plan(line["plan_id"])
        price = plan["data_refueling_price_per_gb"]
        charge = gb_amount * price
        line["data_refueling_gb"] += gb_amount
        self._charge(customer_id, charge, f"Data refueling: {gb_amount} GB at ${price}/GB")
        return {
            "message": f"Successfully added {gb_amount} GB of data for line {line_id} for ${charge:.2f}",
            "new_data_refueling_gb": line["data_refueling_gb"],
            "charge": charge,
        }

    # -- initialization helpers (not tools) ----------------------------------------------
    def set_data_usage(self, customer_id: str, line_id: str, data_used_gb: float) -> str:
        """Set a line's data used this cycle (value stored as given)."""
        self._target_line(customer_id, line_id)["data_used_gb"] = data_used_gb
        return f"Data usage set to {data_used_gb} GB for line {line_id}"

    def suspend_line_for_overdue_bill(self, customer_id: str, line_id: str, new_bill_id: str, contract_ended: bool) -> str:
        """Create an Overdue bill for last month's plan price and suspend the line for it.

        The line must be active and the customer must have no Overdue bill yet; with
        ``contract_ended`` the line's contract is also made to end last month.
        """
        line = self._line(line_id)
        if line["status"] != LINE_ACTIVE:
            raise ValueError("Line must be active to suspend for unpaid bill")
        amount = self._plan(line["plan_id"])["price_per_month"]
        if amount <= 0:
            raise ValueError("Amount must be positive for overdue bill")
        customer = self._customer(customer_id)
        if [b for b in customer["bill_ids"] if self._bill(b)["status"] == BILL_OVERDUE]:
            raise ValueError("Customer already has an overdue bill")
        last_month_end = TODAY.replace(day=1) - _dt.timedelta(days=1)
        last_month_start = last_month_end.replace(day=1)
        bill = new_bill(new_bill_id, customer_id, last_month_start, last_month_end, last_month_start + _dt.timedelta(days=14), BILL_OVERDUE)
        bill["line_items"].append(line_item(f"Charge for line {line['line_id']}", amount))
        bill["total_due"] += amount
        self.db["bills"].append(bill)
        customer["bill_ids"].append(new_bill_id)
        line["status"] = LINE_SUSPENDED
        line["suspension_start_date"] = TODAY
        if contract_ended:
            line["contract_end_date"] = last_month_end
        return f"Line {line_id} suspended for unpaid bill {new_bill_id}. Contract ended: {contract_ended}"

    def get_available_plan_ids(self) -> list[str]:
        """IDs of every plan."""
        return [plan["plan_id"] for plan in self.db["plans"]]
