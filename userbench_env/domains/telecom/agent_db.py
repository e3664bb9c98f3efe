"""The telecom agent DB (``db.toml``): record shapes, fixed clock and normalisation.

The DB is a plain tree ``{plans, customers, lines, bills, devices}`` of record lists,
each record a dict in tau2's field-declaration order (that order is the printed order of
tool outputs). Enum values are plain strings, dates are ``datetime.date`` and date-times
``datetime.datetime`` so that ``str()`` renders them as tau2's hash and outputs do.
"""
from __future__ import annotations

import datetime as _dt
from typing import Any

from userbench_env.domains.telecom.schema import (
    REQUIRED,
    Shape,
    as_date,
    as_datetime,
    as_float,
    list_of,
    normalise,
    normalise_all,
    one_of,
    record,
)

#: tau2's fixed "today" for the telecom domain.
TODAY = _dt.date(2025, 2, 25)
#: Default ``created_at`` of a customer: a *date* although a datetime is declared (tau2 quirk).
DEFAULT_CREATED_AT = _dt.date(2025, 1, 1)

LINE_ACTIVE = "Active"
LINE_SUSPENDED = "Suspended"
LINE_PENDING = "Pending Activation"
BILL_DRAFT = "Draft"
BILL_AWAITING = "Awaiting Payment"
BILL_PAID = "Paid"
BILL_OVERDUE = "Overdue"

PLAN: Shape = [
    ("plan_id", None, REQUIRED),
    ("name", None, REQUIRED),
    ("data_limit_gb", as_float, REQUIRED),
    ("price_per_month", as_float, REQUIRED),
    ("data_refueling_price_per_gb", as_float, REQUIRED),
]

DEVICE: Shape = [
    ("device_id", None, REQUIRED),
    ("device_type", one_of("phone", "router", "tablet", "watch", "other"), REQUIRED),
    ("model", None, REQUIRED),
    ("imei", None, None),
    ("is_esim_capable", None, REQUIRED),
    ("activated", None, False),
    ("activation_date", as_datetime, None),
    ("last_esim_transfer_date", as_datetime, None),
]

LINE: Shape = [
    ("line_id", None, REQUIRED),
    ("phone_number", None, REQUIRED),
    ("status", one_of(LINE_ACTIVE, LINE_SUSPENDED, LINE_PENDING, "Closed"), LINE_PENDING),
    ("plan_id", None, REQUIRED),
    ("device_id", None, None),
    ("data_used_gb", as_float, 0.0),
    ("data_refueling_gb", as_float, 0.0),
    ("roaming_enabled", None, False),
    ("contract_end_date", as_date, None),
    ("last_plan_change_date", as_date, None),
    ("last_sim_replacement_date", as_date, None),
    ("suspension_start_date", as_date, None),
]

LINE_ITEM: Shape = [
    ("description", None, REQUIRED),
    ("amount", as_float, REQUIRED),
    ("date", as_date, REQUIRED),
    ("item_type", None, REQUIRED),
]

BILL: Shape = [
    ("bill_id", None, REQUIRED),
    ("customer_id", None, REQUIRED),
    ("period_start", as_date, REQUIRED),
    ("period_end", as_date, REQUIRED),
    ("issue_date", as_date, REQUIRED),
    ("total_due", as_float, REQUIRED),
    ("due_date", as_date, REQUIRED),
    ("line_items", list_of(record(LINE_ITEM, "line item")), []),
    ("status", one_of(BILL_DRAFT, "Issued", BILL_AWAITING, BILL_PAID, BILL_OVERDUE, "Disputed"), BILL_DRAFT),
]

ADDRESS: Shape = [
    ("street", None, REQUIRED),
    ("city", None, REQUIRED),
    ("state", None, REQUIRED),
    ("zip_code", None, REQUIRED),
]

PAYMENT_METHOD: Shape = [
    ("method_type", one_of("Credit Card", "Debit Card", "PayPal"), REQUIRED),
    ("account_number_last_4", None, REQUIRED),
    ("expiration_date", None, REQUIRED),
]

CUSTOMER: Shape = [
    ("customer_id", None, REQUIRED),
    ("full_name", None, REQUIRED),
    ("date_of_birth", None, REQUIRED),
    ("email", None, REQUIRED),
    ("phone_number", None, REQUIRED),
    ("address", record(ADDRESS, "address"), REQUIRED),
    ("account_status", one_of("Active", "Suspended", "Pending Verification", "Closed"), "Pending Verification"),
    ("payment_methods", list_of(record(PAYMENT_METHOD, "payment method")), []),
    ("line_ids", list, []),
    ("bill_ids", list, []),
    ("created_at", as_datetime, DEFAULT_CREATED_AT),
    ("last_extension_date", as_date, None),
    ("goodwill_credit_used_this_year", as_float, 0.0),
]

#: Top-level sections in tau2's declaration order, with their record shapes.
SECTIONS: dict[str, Shape] = {
    "plans": PLAN,
    "customers": CUSTOMER,
    "lines": LINE,
    "bills": BILL,
    "devices": DEVICE,
}


def normalise_agent_db(raw: dict[str, Any]) -> dict[str, Any]:
    """The validated form of a parsed ``db.toml`` (every section present, in order)."""
    unknown = [key for key in raw if key not in SECTIONS]
    if unknown:
        raise ValueError(f"telecom db: unknown section(s) {', '.join(unknown)}")
    return {name: normalise_all(raw.get(name, []), shape, name) for name, shape in SECTIONS.items()}


def new_bill(bill_id: Any, customer_id: Any, start: _dt.date, end: _dt.date, due: _dt.date, status: str) -> dict[str, Any]:
    """A fresh bill record (issued on ``start``, no items, total 0.0) in field order."""
    return normalise(
        {
            "bill_id": bill_id,
            "customer_id": customer_id,
            "period_start": start,
            "period_end": end,
            "issue_date": start,
            "total_due": 0.0,
            "due_date": due,
            "status": status,
        },
        BILL,
        "bill",
    )


def line_item(description: str, amount: Any) -> dict[str, Any]:
    """A bill line item dated today; negative amounts are credits, others charges."""
    return {
        "description": description,
        "amount": as_float(amount),
        "date": TODAY,
        "item_type": "Credit" if amount < 0 else "Charge",
    }
