"""The customer's toolkit: listed banking actions plus the gateway to given tools.

It acts on the agent's DB object (one shared Rho-Bank DB). Problems are answered as
``Error: ...`` text without the error flag, as in tau2.
"""
from __future__ import annotations

import inspect
import json

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.db import TODAY
from userbench_env.domains.banking.query import has_records
from userbench_env.domains.banking.toolkit_base import name_tools_after
from userbench_env.domains.banking.user_discoverable import UserDiscoverableTools
from userbench_env.domains.toolkit import tool

#: Card names accepted by ``apply_for_credit_card``.
CREDIT_CARD_TYPES = [
    "Bronze Rewards Card",
    "Business Bronze Rewards Card",
    "Business Gold Rewards Card",
    "Business Platinum Rewards Card",
    "Business Silver Rewards Card",
    "Crypto-Cash Back",
    "Diamond Elite Card",
    "EcoCard",
    "Gold Rewards Card",
    "Green Rewards Card",
    "Platinum Rewards Card",
    "Silver Rewards Card",
    "Silver Zoom Card",
]
#: Reward rate (percent) by card and purchase category; ``default`` for other categories.
CARD_REWARD_RATES: dict[str, dict[str, float]] = {
    "Bronze Rewards Card": {"default": 1.0},
    "Silver Rewards Card": {"Travel": 4.0, "Software": 4.0, "default": 1.0},
    "Gold Rewards Card": {"default": 2.5},
    "Platinum Rewards Card": {"default": 10.0},
    "Business Bronze Rewards Card": {"default": 1.0},
    "Business Silver Rewards Card": {"Travel": 10.0, "Software": 10.0, "default": 1.0},
    "Green Rewards Card": {"Sustainable": 3.0, "default": 1.0},
    "Business Gold Rewards Card": {"Operations": 2.5, "default": 1.0},
    "Business Platinum Rewards Card": {"Travel": 4.0, "Software": 4.0, "Media": 4.0, "default": 1.5},
    "Silver Zoom Card": {"Transportation": 3.0, "default": 1.0},
    "Diamond Elite Card": {"default": 5.0},
    "EcoCard": {"Green": 5.0, "default": 1.0},
    "Crypto-Cash Back": {"default": 2.0},
}


class KnowledgeUserTools(UserDiscoverableTools):
    """Rho-Bank customer tools (tau2 ``KnowledgeUserTools``)."""

    @tool("write")
    def apply_for_credit_card(
        self, card_type: str, customer_name: str, annual_income: float, rho_bank_subscription: bool = False
    ) -> str:
        """Apply for a Rho-Bank credit card.

        Args:
            card_type: Name of the card.
            customer_name: Your full legal name.
            annual_income: Your annual income in USD.
            rho_bank_subscription: Whether you have a Rho-Bank+ subscription.
        """
        if card_type not in CREDIT_CARD_TYPES:
            return f"Error: Invalid card_type '{card_type}'. Must be one of: {CREDIT_CARD_TYPES}"
        try:
            annual_income = float(annual_income)
        except (TypeError, ValueError):
            return "Error: Invalid annual_income. Must be a number."
        application = ids.application_id(card_type, customer_name, annual_income, rho_bank_subscription)
        record = {
            "application_id": application,
            "card_type": card_type,
            "customer_name": customer_name,
            "annual_income": annual_income,
            "rho_bank_subscription": rho_bank_subscription,
            "status": "PENDING",
            "date": TODAY,
        }
        if not self.add("credit_card_applications", application, record):
            return f"Failed to submit application: Record ID '{application}' may already exist."
        return (
            "Credit card application submitted:\n"
            "Your application has been successfully submitted. "
            "You will receive a decision within 5-7 business days via email."
        )

    @tool("write")
    def submit_referral(self, user_id: str, account_type: str) -> str:
        """Refer someone to open a Rho-Bank account.

        Args:
            user_id: Your user id (the referrer).
            account_type: The account or card you refer them to.
        """
        referral = ids.referral_id(user_id, account_type)
        record = {
            "referral_id": referral,
            "referrer_id": user_id,
            "referred_account_type": account_type,
            "referral_status": "NO_PROGRESS",
            "date": TODAY,
        }
        if not self.add("referrals", referral, record):
            return f"Failed to submit referral: Record ID '{referral}' may already exist."
        return (
            "Referral request submitted successfully!\n"
            f"  - Referral ID: {referral}\n"
            f"  - Referrer ID: {user_id}\n"
            f"  - Account Type: {account_type}\n"
            "  - Status: NO_PROGRESS\n"
            f"  - Date: {TODAY}\n\n"
            "Share your referral ID with the person you're referring. "
            "They will need to use this when applying for their account."
        )

    def query_database(self, database_name: str, constraints: str = "{}") -> str:
        """Helper (not a tool): a look-up answer on any table, for initialization actions."""
        return self.query(database_name, constraints)

    @tool("write")
    def call_discoverable_user_tool(self, discoverable_tool_name: str, arguments: str = "{}") -> str:
        """Run a tool the agent gave you, with the arguments the agent told you.

        Args:
            discoverable_tool_name: Name of the tool the agent gave you.
            arguments: JSON object of its arguments, e.g. '{"user_id": "abc"}'.
        """
        if discoverable_tool_name not in self.discoverable_tools():
            return f"Error: Unknown discoverable tool '{discoverable_tool_name}'."
        try:
            # JSON does not tell 33 from 33.0: numbers become floats so ids and hashes agree.
            args = json.loads(arguments, parse_int=float)
        except json.JSONDecodeError as exc:
            return f"Error: Invalid JSON in arguments: {exc}"
        method = self.method(discoverable_tool_name)
        parameters = inspect.signature(method).parameters
        for name, parameter in parameters.items():
            if parameter.default is inspect.Parameter.empty and name not in args:
                return f"Error: Missing required parameter: {name}"
        for name in args:
            if name not in parameters:
                return f"Error: Unexpected parameter: {name}"
        try:
            return method(**args)
        except TypeError as exc:
            return f"Error: Invalid arguments for tool '{discoverable_tool_name}': {exc}"

    @tool("read")
    def list_discoverable_user_tools(self) -> str:
        """The tools the agent has given you so far."""
        return f"Tools given to you by the agent:\n{self.query('user_discoverable_tools')}"

    @tool("write")
    def request_human_agent_transfer(self) -> str:
        """Ask to be transferred to a human agent (each request is logged)."""
        existing = self.query("human_transfer_requests")
        count = existing.count("request_id") + 1 if has_records(existing) else 1
        request = f"transfer_request_{count}"
        self.add(
            "human_transfer_requests",
            request,
            {"request_id": request, "request_number": count, "requested_at": TODAY, "status": "PENDING"},
        )
        return f"Transfer request #{count} submitted.\nThe agent will process your request."

    @tool("write")
    def submit_transaction(self, user_id: str, credit_card_type: str, merchant_name: str, amount: float, category: str) -> str:
        """Make a purchase with one of your credit cards.

        Args:
            user_id: Your user id.
            credit_card_type: The card used, e.g. "Gold Rewards Card".
            merchant_name: Where you bought.
            amount: Amount in USD, e.g. 127.43.
            category: Purchase category, e.g. "Groceries", "Travel", "Software".
        """
        if credit_card_type not in CARD_REWARD_RATES:
            return f"Error: Unknown credit card type '{credit_card_type}'. Available types: {list(CARD_REWARD_RATES)}"
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        txn = ids.transaction_id(user_id, credit_card_type, merchant_name, amount, category)
        rates = CARD_REWARD_RATES[credit_card_type]
        rate = rates.get(category, rates["default"])
        points = int(amount * rate)
        record = {
            "transaction_id": txn,
            "user_id": user_id,
            "credit_card_type": credit_card_type,
            "merchant_name": merchant_name,
            "transaction_amount": f"${amount:.2f}",
            "transaction_date": TODAY,
            "category": category,
            "status": "COMPLETED",
            "rewards_earned": f"{points} points",
        }
        if not self.add("credit_card_transaction_history", txn, record):
            return f"Failed to submit transaction: Record ID '{txn}' may already exist."
        return (
            "Transaction submitted successfully!\n"
            f"  - Transaction ID: {txn}\n"
            f"  - User ID: {user_id}\n"
            f"  - Card Type: {credit_card_type}\n"
            f"  - Merchant: {merchant_name}\n"
            f"  - Amount: ${amount:.2f}\n"
            f"  - Category: {category}\n"
            f"  - Date: {TODAY}\n"
            f"  - Rewards Earned: {points} points ({rate}% cashback rate)\n"
        )


name_tools_after(KnowledgeUserTools)
