"""Customer-side discoverable tools: actions the agent hands to the customer.

Each checks that the agent gave it (a ``user_discoverable_tools`` record), logs the call
in ``user_discoverable_tool_calls`` and acts. Docstrings are shown verbatim by
``give_discoverable_user_tool`` (description part): keep their wording and format.
"""
from __future__ import annotations

import hashlib
import json
from typing import Any, Optional

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.db import TODAY, parse_money
from userbench_env.domains.banking.query import has_records
from userbench_env.domains.banking.toolkit_base import BankToolkit
from userbench_env.domains.toolkit import tool


def card_last_4(credit_card_account_id: str) -> str:
    """The first four decimal digits of SHA-256(``card_last4:<id>``), right-padded with 0."""
    digest = hashlib.sha256(f"card_last4:{credit_card_account_id}".encode()).hexdigest()
    return "".join(c for c in digest if c.isdigit())[:4].ljust(4, "0")


class UserDiscoverableTools(BankToolkit):
    """The customer's discoverable tools (a mixin of ``KnowledgeUserTools``)."""

    def _not_given(self, tool_name: str) -> Optional[str]:
        found = self.query("user_discoverable_tools", f'{{"tool_name": "{tool_name}"}}')
        if "No records found" in found:
            return (
                f"Error: Tool '{tool_name}' has not been given to you by the agent. "
                "The agent must first use `give_discoverable_user_tool` to give this tool to you."
            )
        return None

    def _log_call(self, tool_name: str, args: dict[str, Any]) -> None:
        self.add(
            "user_discoverable_tool_calls",
            ids.user_tool_call_id(tool_name, args),
            {"tool_name": tool_name, "arguments": args, "called_at": TODAY, "status": "CALLED"},
        )

    @staticmethod
    def _executed(headline: str, tool_name: str, args: dict[str, Any]) -> str:
        return f"{headline}\n\nExecuted: {tool_name}\nArguments: {json.dumps(args, indent=2)}\n"

    @tool("write", discoverable=True)
    def submit_cash_back_dispute_0589(self, user_id: str, transaction_id: str) -> str:
        """Submit a cash back dispute for a specific transaction.

        Args:
            user_id (string): The user's unique identifier in the system
            transaction_id (string): The unique identifier for the transaction with incorrect cash back

        Returns:
            Cash back dispute submitted successfully. Your case has been queued for review.
        """
        refusal = self._not_given("submit_cash_back_dispute_0589")
        if refusal:
            return refusal
        args = {"user_id": user_id, "transaction_id": transaction_id}
        self._log_call("submit_cash_back_dispute_0589", args)
        dispute = ids.dispute_id(user_id, transaction_id)
        config = self.records("task_config")
        settings = config.peek("dispute_settings", {})
        record = {"dispute_id": dispute, "user_id": user_id, "transaction_id": transaction_id, "submitted_at": TODAY}
        if settings.get("auto_resolve_disputes", False):
            record.update({"status": "RESOLVED", "resolution": "APPROVED"})
            status = "Status: RESOLVED - The dispute has been reviewed and approved. The transaction rewards need to be updated."
        else:
            record["status"] = "SUBMITTED"
            status = "Status: SUBMITTED - Your dispute has been queued for review."
        added = self.add("cash_back_disputes", dispute, record)
        answer = self._executed(
            "Cash back dispute submitted successfully. Your case has been queued for review.",
            "submit_cash_back_dispute_0589",
            args,
        )
        if added:
            return answer + f"Dispute ID: {dispute}\n{status}"
        return answer + "Note: Dispute may have already been submitted for this transaction."

    @tool("write", discoverable=True)
    def get_referral_link(self, user_id: str, card_name: str) -> str:
        """Generate a referral link for a specific credit card to share with friends or family.

        Args:
            user_id (string): The user's unique identifier in the system (the referrer)
            card_name (string): The name of the credit card to create a referral for (e.g., 'Gold Rewards Card')

        Returns:
            Referral link generated successfully. Share this link with the person you want to refer.
        """
        refusal = self._not_given("get_referral_link")
        if refusal:
            return refusal
        args = {"user_id": user_id, "card_name": card_name}
        self._log_call("get_referral_link", args)
        referral = ids.referral_link_id(user_id, card_name)
        added = self.add(
            "referrals",
            referral,
            {
                "referral_id": referral,
                "referrer_id": user_id,
                "referred_account_type": card_name,
                "referral_status": "NO_PROGRESS",
                "date": TODAY,
            },
        )
        answer = self._executed(
            "Referral link generated successfully. Share this link with the person you want to refer.",
            "get_referral_link",
            args,
        )
        if added:
            return answer + f"Referral ID: {referral}\nReferral link: https://rhobank.com/refer/{referral}"
        return answer + "Note: A referral link for this card may have already been generated."

    @tool("read", discoverable=True)
    def get_card_last_4_digits(self, credit_card_account_id: str) -> str:
        """Look up the last 4 digits of a credit card number.

        Args:
            credit_card_account_id (string): The credit card account ID to look up (e.g., 'cc_76ad9cc60e_gold')

        Returns:
            Card information retrieved successfully.
        """
        refusal = self._not_given("get_card_last_4_digits")
        if refusal:
            return refusal
        args = {"credit_card_account_id": credit_card_account_id}
        self._log_call("get_card_last_4_digits", args)
        found = self.query("credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}')
        if not has_records(found):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        answer = self._executed("Card information retrieved successfully.", "get_card_last_4_digits", args)
        return answer + f"Last 4 digits of card: {card_last_4(credit_card_account_id)}"

    @tool("write", discoverable=True)
    def deposit_check_3847(self, account_id: str, check_amount: float) -> str:
        """Deposit a check into a checking or savings account. The user takes a photo of the check and submits it through their mobile banking app.

        Args:
            account_id (string): The bank account ID to deposit the check into
            check_amount (number): The amount of the check in USD

        Returns:
            Check deposited successfully. Funds will be available according to your account's deposit policy.
        """
        refusal = self._not_given("deposit_check_3847")
        if refusal:
            return refusal
        args = {"account_id": account_id, "check_amount": check_amount}
        self._log_call("deposit_check_3847", args)
        try:
            check_amount = float(check_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid check amount '{check_amount}'. Must be a number."
        if check_amount <= 0:
            return "Error: Check amount must be positive."
        accounts = self.records("accounts")
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts.peek(account_id)
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active."
        before = parse_money(account.get("current_holdings", account.get("balance", 0)))
        after = before + check_amount
        accounts[account_id]["current_holdings"] = f"${after:.2f}"
        answer = self._executed(
            "Check deposited successfully. Funds will be available according to your account's deposit policy.",
            "deposit_check_3847",
            args,
        )
        return (
            answer + "Check deposit processed!\n"
            f"  - Account: {account_id}\n"
            f"  - Check Amount: ${check_amount:.2f}\n"
            f"  - Previous Balance: ${before:.2f}\n"
            f"  - New Balance: ${after:.2f}"
        )
