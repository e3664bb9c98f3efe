"""Deterministic record ids: prefixes of SHA-256 over colon-joined seeds (tau2's scheme).

The same inputs always give the same id, which keeps DB hashes reproducible. Numbers
enter seeds through Python's ``str``/format rules, so ``100000.0`` and ``100000`` differ;
the discoverable-tool entry points turn JSON integers into floats beforehand.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any


def digest_id(seed: str, length: int = 16) -> str:
    """The first ``length`` hex digits of SHA-256(``seed``)."""
    return hashlib.sha256(seed.encode("utf-8")).hexdigest()[:length]


def verification_id(user_id: str, time_verified: str) -> str:
    """``<user>_<timestamp>`` with spaces as ``_`` and ``:``/``-`` removed."""
    stamp = time_verified.replace(" ", "_").replace(":", "").replace("-", "")
    return f"{user_id}_{stamp}"


def application_id(card_type: str, customer_name: str, annual_income: float, subscription: bool) -> str:
    """Credit-card application id (16 hex digits)."""
    return digest_id(f"credit_card:{card_type}:{customer_name}:{annual_income}:{subscription}")


def referral_id(user_id: str, account_type: str) -> str:
    """Referral id for a submitted referral (16 hex digits)."""
    return digest_id(f"referral:{user_id}:{account_type}")


def referral_link_id(user_id: str, card_name: str) -> str:
    """Referral id for a generated referral link (16 hex digits)."""
    return digest_id(f"referral_link:{user_id}:{card_name}")


def agent_tool_log_id(tool_name: str) -> str:
    """Id of the ``agent_discoverable_tools`` log record of one tool."""
    return digest_id(f"agent_discoverable_tool:{tool_name}")


def user_tool_given_id(tool_name: str) -> str:
    """Id of the ``user_discoverable_tools`` record of one given tool."""
    return digest_id(f"user_discoverable_tool:{tool_name}")


def user_tool_call_id(tool_name: str, arguments: dict[str, Any]) -> str:
    """Id of a user discoverable-tool call (arguments as sorted-key JSON)."""
    return digest_id(f"user_discoverable_tool_call:{tool_name}:{json.dumps(arguments, sort_keys=True)}")


def dispute_id(user_id: str, transaction_id: str) -> str:
    """``dsp_`` id of a dispute on one transaction by one user."""
    return "dsp_" + digest_id(f"dispute:{user_id}:{transaction_id}", 12)


def transaction_id(user_id: str, card: str, merchant: str, amount: float, category: str) -> str:
    """``txn_`` id of a credit-card transaction (amount with 2 decimals)."""
    return "txn_" + digest_id(f"transaction:{user_id}:{card}:{merchant}:{amount:.2f}:{category}", 12)


def credit_card_order_id(account_id: str, user_id: str, reason: str) -> str:
    """``ccord_`` id of a replacement credit-card order."""
    return "ccord_" + digest_id(f"credit_card_order:{account_id}:{user_id}:{reason}", 12)


def closure_reason_id(account_id: str, user_id: str) -> str:
    """``clsr_`` id of a logged credit-card closure reason."""
    return "clsr_" + digest_id(f"closure_reason:{account_id}:{user_id}", 12)


def account_flag_id(account_id: str, flag_type: str, expiration_date: str) -> str:
    """``ccflag_`` id of a credit-card account flag."""
    return "ccflag_" + digest_id(f"account_flag:{account_id}:{flag_type}:{expiration_date}", 12)


def credit_limit_request_id(account_id: str, user_id: str, amount: float) -> str:
    """``cli_`` id of a credit-limit request or decision."""
    return "cli_" + digest_id(f"cli_request:{account_id}:{user_id}:{amount:.2f}", 12)


def debit_card_order_id(account_id: str, user_id: str, delivery_option: str) -> str:
    """``dcord_`` id of a debit-card order."""
    return "dcord_" + digest_id(f"debit_card_order:{account_id}:{user_id}:{delivery_option}", 12)


def debit_card_id(account_id: str, user_id: str, issue_date: str) -> str:
    """``dbc_`` id of a newly ordered debit card."""
    return "dbc_" + digest_id(f"debit_card:{account_id}:{user_id}:{issue_date}", 12)
