"""The Rho-Bank transactional DB: 23 tables of free-form records, loaded once per process.

Every table is ``{"data": {record_id: record}, "notes": str}``; tables missing from
``db.json`` are materialised empty, exactly as tau2's validated model dump has them (the
DB hash depends on it). Records are plain JSON objects with no schema below the table.

The bank's clock is fixed: today is 11/14/2025, now is 2025-11-14 03:40:00 (EST).
"""
from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

from userbench_env.domains.store import Document, Table

#: Table names in tau2's model order (the order only matters for readability).
TABLES: tuple[str, ...] = (
    "users",
    "accounts",
    "debit_cards",
    "referrals",
    "credit_card_applications",
    "user_discoverable_tools",
    "user_discoverable_tool_calls",
    "verification_history",
    "credit_card_transaction_history",
    "cash_back_disputes",
    "bank_account_transaction_history",
    "credit_card_accounts",
    "agent_discoverable_tools",
    "task_config",
    "human_transfer_requests",
    "transaction_disputes",
    "credit_card_orders",
    "debit_card_orders",
    "credit_card_closure_reasons",
    "credit_card_account_flags",
    "credit_limit_increase_requests",
    "payment_history",
    "debit_card_disputes",
)

#: The bank's "today" as the tools print and store it.
TODAY = "11/14/2025"
#: The bank's "now" (naive, like tau2's; used for account-age arithmetic).
NOW = _dt.datetime(2025, 11, 14, 3, 40, 0)
#: Midnight of the bank's "today" (some tools count account age from it).
TODAY_START = _dt.datetime(2025, 11, 14)


def load_transactional_db(path: Path) -> Document:
    """Read ``db.json`` into a read-only base document with all 23 tables present."""
    raw = json.loads(path.read_text(encoding="utf-8"))
    data: dict[str, Any] = {}
    for name in TABLES:
        section = raw.get(name) or {}
        data[name] = {"data": dict(section.get("data") or {}), "notes": section.get("notes", "")}
    return Document.from_plain(data, [(name, "data") for name in TABLES])


def table(db: Document, name: str) -> Table | None:
    """The record map of table ``name`` in a world's DB, or ``None`` for an unknown table."""
    section = db.root.get(name)
    return section["data"] if isinstance(section, dict) else None


def add_record(db: Document, name: str, record_id: str, record: dict[str, Any]) -> bool:
    """Insert a new record; False (nothing stored) if the id exists or the table is unknown."""
    records = table(db, name)
    if records is None or record_id in records:
        return False
    records[record_id] = record
    return True


def update_record(db: Document, name: str, record_id: str, updates: dict[str, Any]) -> bool:
    """Set fields on an existing record; False if the table or record does not exist."""
    records = table(db, name)
    if records is None or record_id not in records:
        return False
    records[record_id].update(updates)
    return True


def parse_money(value: Any) -> float:
    """A balance stored as a number or as text like ``"$2,850.00"`` as a float (else 0.0)."""
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        return float(value.replace("$", "").replace(",", ""))
    return 0.0


def account_balance(account: dict[str, Any]) -> float:
    """An account's balance from ``current_holdings`` (or a legacy ``balance`` field)."""
    return parse_money(account.get("current_holdings", account.get("balance", 0)))


def days_since(date_text: str, now: _dt.datetime = NOW) -> int:
    """Whole days from an ``MM/DD/YYYY`` date to ``now`` (ValueError if malformed)."""
    return (now - _dt.datetime.strptime(date_text, "%m/%d/%Y")).days
