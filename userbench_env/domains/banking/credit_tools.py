"""Discoverable agent tools for credit cards: disputes, replacements, closures, limits.

Docstrings of discoverable tools are shown to the agent verbatim when it unlocks a tool
(see :mod:`~userbench_env.domains.banking.discovery`): keep their wording and format.
"""
from __future__ import annotations

import json
from typing import Optional

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.db import TODAY, account_balance
from userbench_env.domains.banking.query import has_records
from userbench_env.domains.banking.toolkit_base import BankToolkit
from userbench_env.domains.toolkit import tool

DISPUTE_REASONS = [
    "unauthorized_fraudulent_charge",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "goods_services_not_as_described",
    "canceled_subscription_still_charging",
    "refund_never_processed",
]
STATEMENT_CREDIT_REASONS = [
    "goodwill_adjustment",
    "promotional_credit",
    "annual_fee_reversal",
    "late_fee_reversal",
    "interest_charge_reversal",
    "dispute_resolution",
    "price_match",
    "retention_offer",
    "error_correction",
    "other",
]
CLOSURE_REASONS = [
    "annual_fee",
    "not_using_card",
    "found_better_card",
    "unhappy_with_rewards",
    "simplifying_finances",
    "negative_experience",
    "other",
]
CLI_DENIAL_REASONS = [
    "insufficient_account_age",
    "cooldown_period_active",
    "pending_disputes",
    "pending_replacement_card",
    "past_due_balance",
    "high_utilization",
    "insufficient_payment_history",
    "requested_amount_exceeds_limit",
    "other",
]


def _title(code: str) -> str:
    return code.replace("_", " ").title()


def _money_text(value: object) -> float:
    try:
        return float(str(value).replace("$", "").replace(",", ""))
    except (ValueError, TypeError):
        return 0.0


class CreditCardTools(BankToolkit):
    """Credit-card discoverable tools of the agent (a mixin of ``KnowledgeTools``)."""

    def _card_account_missing(self, credit_card_account_id: str) -> bool:
        found = self.query("credit_card_accounts", f'{{"account_id": "{credit_card_account_id}"}}')
        return not has_records(found)

    @tool("write", discoverable=True)
    def update_transaction_rewards_3847(self, transaction_id: str, new_rewards_earned: str) -> str:
        """Update the rewards_earned field on a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction to update
            new_rewards_earned (string): The corrected rewards value (e.g., '6300 points')

        Returns:
            Transaction rewards updated successfully.
        """
        if not transaction_id or not new_rewards_earned:
            return "Error: Missing required parameters."
        if not self.update("credit_card_transaction_history", transaction_id, {"rewards_earned": new_rewards_earned}):
            return f"Error: Transaction '{transaction_id}' not found."
        shown = json.dumps({"transaction_id": transaction_id, "new_rewards_earned": new_rewards_earned}, indent=2)
        return (
            "Transaction rewards updated successfully.\n\n"
            "Executed: update_transaction_rewards_3847\n"
            f"Arguments: {shown}\n"
            "Transaction updated:\n"
            f"  - Transaction ID: {transaction_id}\n"
            f"  - New Rewards: {new_rewards_earned}"
        )

    @tool("write", discoverable=True)
    def file_credit_card_transaction_dispute_4829(
        self,
        transaction_id: str,
        card_action: str,
        card_last_4_digits: str,
        full_name: str,
        user_id: str,
        phone: str,
        email: str,
        address: str,
        contacted_merchant: bool,
        purchase_date: str,
        issue_noticed_date: str,
        dispute_reason: str,
        resolution_requested: str,
        eligible_for_provisional_credit: bool,
        partial_refund_amount: Optional[float] = None,
    ) -> str:
        """File a formal dispute for a credit card transaction.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            card_action (string): Flag indicating the card's status. Must be one of: 'keep_active' (card remains active, dispute only), 'cancel_and_reissue' (card is being cancelled and replaced). This is for record-keeping only and does NOT order a replacement card.
            card_last_4_digits (string): Last 4 digits of the credit card number
            full_name (string): Full legal name of the cardholder
            user_id (string): The user's unique identifier in the system
            phone (string): Contact phone number
            email (string): Contact email address
            address (string): Contact mailing address
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            purchase_date (string): Date when the purchase was made, format MM/DD/YYYY
            issue_noticed_date (string): Date when the user noticed the issue, format MM/DD/YYYY
            dispute_reason (string): Reason for the dispute. Must be one of: 'unauthorized_fraudulent_charge', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'goods_services_not_as_described', 'canceled_subscription_still_charging', 'refund_never_processed'
            resolution_requested (string): Resolution being requested. Must be one of: 'full_refund', 'partial_refund'
            eligible_for_provisional_credit (boolean): Whether the user is eligible for provisional credit
            partial_refund_amount (number, optional): Amount requested for partial refund (required only if resolution_requested is 'partial_refund')

        Returns:
            Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.
        """
        if not transaction_id or not user_id:
            return "Error: Missing required parameters."
        card_actions = ["keep_active", "cancel_and_reissue"]
        if card_action not in card_actions:
            return f"Error: Invalid card_action. Must be one of: {card_actions}"
        if dispute_reason not in DISPUTE_REASONS:
            return f"Error: Invalid dispute_reason. Must be one of: {DISPUTE_REASONS}"
        resolutions = ["full_refund", "partial_refund"]
        if resolution_requested not in resolutions:
            return f"Error: Invalid resolution_requested. Must be one of: {resolutions}"
        if resolution_requested == "partial_refund" and partial_refund_amount is None:
            return "Error: partial_refund_amount is required when resolution_requested is 'partial_refund'."
        dispute = ids.dispute_id(user_id, transaction_id)
        record = {
            "dispute_id": dispute,
            "transaction_id": transaction_id,
            "user_id": user_id,
            "card_action": card_action,
            "card_last_4_digits": card_last_4_digits,
            "full_name": full_name,
            "phone": phone,
            "email": email,
            "address": address,
            "contacted_merchant": contacted_merchant,
            "purchase_date": purchase_date,
            "issue_noticed_date": issue_noticed_date,
            "dispute_reason": dispute_reason,
            "resolution_requested": resolution_requested,
            "partial_refund_amount": partial_refund_amount,
            "eligible_for_provisional_credit": eligible_for_provisional_credit,
            "provisional_credit_given": eligible_for_provisional_credit,
            "submitted_at": TODAY,
            "status": "SUBMITTED",
        }
        if not self.add("transaction_disputes", dispute, record):
            return "Error: Dispute may have already been filed for this transaction."
        lines = [
            "Credit card transaction dispute filed successfully. A case has been opened and will be reviewed within 10 business days.",
            "",
            "Executed: file_credit_card_transaction_dispute_4829",
            f"Dispute ID: {dispute}",
            f"Transaction: {transaction_id}",
            f"Reason: {_title(dispute_reason)}",
            f"Resolution Requested: {_title(resolution_requested)}",
        ]
        if partial_refund_amount:
            lines.append(f"Partial Refund Amount: ${partial_refund_amount:.2f}")
        if eligible_for_provisional_credit:
            lines.append("Provisional Credit: ELIGIBLE - Credit will be applied within 2 business days.")
        else:
            lines.append("Provisional Credit: Not eligible at this time.")
        return "\n".join(lines)

    @tool("write", discoverable=True)
    def order_replacement_credit_card_7291(
        self,
        credit_card_account_id: str,
        user_id: str,
        shipping_address: str,
        reason: str,
        expedited_shipping: bool = False,
    ) -> str:
        """Order a replacement credit card for a customer. The old card will be automatically cancelled when the replacement is ordered.

        Args:
            credit_card_account_id (string): The credit card account ID for the card being replaced
            user_id (string): The user's unique identifier in the system
            shipping_address (string): Full shipping address where the new card should be sent
            reason (string): Reason for replacement. Must be one of: 'fraud_suspected', 'lost', 'stolen', 'damaged', 'expired', 'other'
            expedited_shipping (boolean, optional): Whether to use expedited shipping (2-3 business days instead of 7-10)

        Returns:
            Replacement credit card order placed successfully. The old card has been cancelled for security.
        """
        if not credit_card_account_id or not user_id or not shipping_address or not reason:
            return "Error: Missing required parameters (credit_card_account_id, user_id, shipping_address, reason)."
        reasons = ["fraud_suspected", "lost", "stolen", "damaged", "expired", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if self._card_account_missing(credit_card_account_id):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        order = ids.credit_card_order_id(credit_card_account_id, user_id, reason)
        record = {
            "order_id": order,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "shipping_address": shipping_address,
            "reason": reason,
            "expedited_shipping": expedited_shipping,
            "order_date": TODAY,
            "status": "ORDERED",
            "old_card_cancelled": True,
        }
        if not self.add("credit_card_orders", order, record):
            return "Error: Order may have already been placed for this card replacement."
        cards = self.records("credit_card_accounts")
        if credit_card_account_id in cards:
            card = cards[credit_card_account_id]
            card["status"] = "CLOSED"
            card["closed_date"] = TODAY
        return "\n".join(
            [
                f"Order ID: {order}",
                f"Card Account: {credit_card_account_id}",
                f"Reason: {_title(reason)}",
                f"Shipping Address: {shipping_address}",
                f"Shipping Method: {'Expedited' if expedited_shipping else 'Standard'}",
                f"Expected Delivery: {'2-3 business days' if expedited_shipping else '7-10 business days'}",
                "",
                "The old card has been cancelled for security. The new card will have the same account number but a new card number and CVV.",
            ]
        )

    @tool("read", discoverable=True)
    def get_user_dispute_history_7291(self, user_id: str) -> str:
        """Retrieve a user's credit card transaction dispute history from the transaction_disputes table. Returns all credit card transaction disputes filed by the user, including dispute IDs, transaction IDs, dispute reasons, statuses, and submission dates.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            User transaction dispute history retrieved successfully.
        """
        return self.history(
            "get_user_dispute_history_7291", "transaction_disputes", "user_id", user_id,
            "User transaction dispute history retrieved successfully.",
            f"Transaction dispute history for user {user_id}:",
            "No transaction disputes found for this user.",
        )

    @tool("read", discoverable=True)
    def get_pending_replacement_orders_5765(self, credit_card_account_id: str) -> str:
        """Check if a credit card account has any pending replacement card orders.

        Args:
            credit_card_account_id (string): The credit card account ID to check for pending replacement orders

        Returns:
            Pending replacement orders check completed.
        """
        return self.history(
            "get_pending_replacement_orders_5765", "credit_card_orders", "credit_card_account_id", credit_card_account_id,
            "Pending replacement orders check completed.",
            f"Replacement orders for credit card account {credit_card_account_id}:",
            "No pending replacement orders found for this credit card account.",
        )

    @tool("write", discoverable=True)
    def log_credit_card_closure_reason_4521(self, credit_card_account_id: str, user_id: str, closure_reason: str) -> str:
        """Log the reason why a customer wants to close their credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID the customer wants to close
            user_id (string): The user's unique identifier in the system
            closure_reason (string): Reason for closure. Must be one of: 'annual_fee', 'not_using_card', 'found_better_card', 'unhappy_with_rewards', 'simplifying_finances', 'negative_experience', 'other'

        Returns:
            Closure reason logged successfully.
        """
        if not credit_card_account_id or not user_id or not closure_reason:
            return "Error: Missing required parameters."
        if closure_reason not in CLOSURE_REASONS:
            return f"Error: Invalid closure_reason. Must be one of: {CLOSURE_REASONS}"
        record_id = ids.closure_reason_id(credit_card_account_id, user_id)
        self.add(
            "credit_card_closure_reasons",
            record_id,
            {
                "record_id": record_id,
                "credit_card_account_id": credit_card_account_id,
                "user_id": user_id,
                "closure_reason": closure_reason,
                "logged_at": TODAY,
                "status": "LOGGED",
            },
        )
        shown = json.dumps(
            {"credit_card_account_id": credit_card_account_id, "user_id": user_id, "closure_reason": closure_reason},
            indent=2,
        )
        return (
            "Closure reason logged successfully.\n\n"
            "Executed: log_credit_card_closure_reason_4521\n"
            f"Arguments: {shown}\n"
            f"Closure reason '{closure_reason}' logged for account {credit_card_account_id}."
        )

    @tool("read", discoverable=True)
    def get_closure_reason_history_8293(self, credit_card_account_id: str) -> str:
        """Retrieve the closure reason history for a specific credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check for previous closure attempts

        Returns:
            Closure reason history retrieved successfully.
        """
        return self.history(
            "get_closure_reason_history_8293", "credit_card_closure_reasons", "credit_card_account_id", credit_card_account_id,
            "Closure reason history retrieved successfully.",
            f"Closure reason history for credit card account {credit_card_account_id}:",
            "No closure reason records found for this credit card account.",
        )

    @tool("write", discoverable=True)
    def apply_statement_credit_8472(self, user_id: str, credit_card_account_id: str, amount: float, reason: str) -> str:
        """Apply a statement credit to a customer's credit card account.

        Args:
            user_id (string): The user's unique identifier in the system
            credit_card_account_id (string): The credit card account ID to apply the credit to
            amount (number): The credit amount in dollars (e.g., 25.00 for a $25 credit)
            reason (string): Reason for the statement credit. Must be one of: 'goodwill_adjustment', 'promotional_credit', 'annual_fee_reversal', 'late_fee_reversal', 'interest_charge_reversal', 'dispute_resolution', 'price_match', 'retention_offer', 'error_correction', 'other'

        Returns:
            Statement credit applied successfully.
        """
        if not user_id or not credit_card_account_id or amount is None or not reason:
            return "Error: Missing required parameters (user_id, credit_card_account_id, amount, reason)."
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Credit amount must be positive."
        if reason not in STATEMENT_CREDIT_REASONS:
            return f"Error: Invalid reason. Must be one of: {STATEMENT_CREDIT_REASONS}"
        if self._card_account_missing(credit_card_account_id):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        txn = ids.transaction_id(user_id, "STATEMENT_CREDIT", reason, amount, "Statement Credit")
        record = {
            "transaction_id": txn,
            "user_id": user_id,
            "credit_card_account_id": credit_card_account_id,
            "credit_card_type": "N/A",
            "merchant_name": "Rho-Bank Statement Credit",
            "transaction_amount": f"-${amount:.2f}",
            "transaction_date": TODAY,
            "category": "Statement Credit",
            "status": "COMPLETED",
            "rewards_earned": "0 points",
            "credit_reason": reason,
        }
        if not self.add("credit_card_transaction_history", txn, record):
            return f"Error: Failed to apply statement credit. Transaction ID '{txn}' may already exist."
        return (
            "Statement credit applied successfully.\n\n"
            "Executed: apply_statement_credit_8472\n"
            f"  - Transaction ID: {txn}\n"
            f"  - User ID: {user_id}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Credit Amount: ${amount:.2f}\n"
            f"  - Reason: {_title(reason)}\n"
            f"  - Date: {TODAY}"
        )

    @tool("write", discoverable=True)
    def apply_credit_card_account_flag_6147(
        self, credit_card_account_id: str, user_id: str, flag_type: str, expiration_date: str, reason: str
    ) -> str:
        """Apply a flag to a customer's credit card account. Flags can include annual fee waivers, promotional APR rates, rewards bonuses, or other account-level modifiers. Each flag has an effective date and expiration date.

        Args:
            credit_card_account_id (string): The credit card account ID to apply the flag to
            user_id (string): The user's unique identifier in the system
            flag_type (string): Type of flag to apply. Must be one of: 'annual_fee_waived', 'promotional_apr', 'rewards_bonus', 'other'
            expiration_date (string): Date when the flag expires (MM/DD/YYYY format)
            reason (string): Reason for applying this flag. Must be one of: 'retention_offer', 'loyalty_benefit', 'promotional', 'error_correction', 'other'

        Returns:
            Account flag applied successfully.
        """
        if not credit_card_account_id or not user_id or not flag_type or not expiration_date or not reason:
            return "Error: Missing required parameters (credit_card_account_id, user_id, flag_type, expiration_date, reason)."
        flag_types = ["annual_fee_waived", "promotional_apr", "rewards_bonus", "other"]
        if flag_type not in flag_types:
            return f"Error: Invalid flag_type. Must be one of: {flag_types}"
        reasons = ["retention_offer", "loyalty_benefit", "promotional", "error_correction", "other"]
        if reason not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        if self._card_account_missing(credit_card_account_id):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        flag = ids.account_flag_id(credit_card_account_id, flag_type, expiration_date)
        record = {
            "flag_id": flag,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "flag_type": flag_type,
            "effective_date": TODAY,
            "expiration_date": expiration_date,
            "reason": reason,
            "applied_at": TODAY,
            "status": "ACTIVE",
        }
        if not self.add("credit_card_account_flags", flag, record):
            return f"Error: Failed to apply account flag. Flag ID '{flag}' may already exist."
        return (
            "Account flag applied successfully!\n"
            f"  - Flag ID: {flag}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - User ID: {user_id}\n"
            f"  - Flag Type: {_title(flag_type)}\n"
            f"  - Effective Date: {TODAY}\n"
            f"  - Expiration Date: {expiration_date}\n"
            f"  - Reason: {_title(reason)}"
        )

    @tool("write", discoverable=True)
    def close_credit_card_account_7834(self, credit_card_account_id: str, user_id: str) -> str:
        """Close a customer's credit card account permanently.

        Args:
            credit_card_account_id (string): The credit card account ID to close
            user_id (string): The user's unique identifier in the system

        Returns:
            Credit card account closed successfully.
        """
        if not credit_card_account_id or not user_id:
            return "Error: Missing required parameters (credit_card_account_id, user_id)."
        if self._card_account_missing(credit_card_account_id):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        closed = self.update(
            "credit_card_accounts",
            credit_card_account_id,
            {"status": "CLOSED", "closed_date": TODAY, "closed_by": user_id},
        )
        if not closed:
            return f"Error: Failed to close credit card account '{credit_card_account_id}'."
        shown = json.dumps({"credit_card_account_id": credit_card_account_id, "user_id": user_id}, indent=2)
        return (
            "Credit card account closed successfully.\n\n"
            "Executed: close_credit_card_account_7834\n"
            f"Arguments: {shown}\n"
            f"Account {credit_card_account_id} has been closed."
        )

    @tool("write", discoverable=True)
    def pay_credit_card_from_checking_9182(
        self, user_id: str, checking_account_id: str, credit_card_account_id: str, amount: float
    ) -> str:
        """Pay off a credit card balance using funds from the customer's Rho-Bank checking account. This deducts the specified amount from the checking account and reduces the credit card balance by the same amount.

        Args:
            user_id (string): The customer's unique identifier in the system
            checking_account_id (string): The ID of the Rho-Bank checking account to debit funds from
            credit_card_account_id (string): The ID of the credit card account to apply the payment to
            amount (number): The payment amount in dollars. Must be a positive number.

        Returns:
            Credit card payment processed successfully.
        """
        if not user_id or not checking_account_id or not credit_card_account_id or amount is None:
            return "Error: Missing required parameters (user_id, checking_account_id, credit_card_account_id, amount)."
        try:
            amount = float(amount)
            if amount <= 0:
                return "Error: Payment amount must be a positive number."
        except (ValueError, TypeError):
            return "Error: Invalid payment amount. Must be a positive number."
        accounts = self.records("accounts")
        if checking_account_id not in accounts:
            return f"Error: Checking account '{checking_account_id}' not found."
        checking = accounts.peek(checking_account_id)
        if checking.get("user_id") != user_id:
            return f"Error: Checking account '{checking_account_id}' does not belong to user '{user_id}'."
        if checking.get("class") != "checking":
            return f"Error: Account '{checking_account_id}' is not a checking account."
        balance = account_balance(checking)
        if amount > balance:
            return (
                f"Error: Insufficient funds in checking account. Available balance: ${balance:.2f}, "
                f"requested payment: ${amount:.2f}."
            )
        cards = self.records("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards.peek(credit_card_account_id)
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        card_balance = _money_text(card.get("current_balance", "$0.00"))
        if amount > card_balance:
            return (
                f"Error: Payment amount (${amount:.2f}) exceeds credit card balance (${card_balance:.2f}). "
                "Please specify an amount up to the outstanding balance."
            )
        new_checking = balance - amount
        new_card = card_balance - amount
        accounts[checking_account_id]["current_holdings"] = f"{new_checking:.2f}"
        cards[credit_card_account_id]["current_balance"] = f"${new_card:.2f}"
        return (
            "Payment processed successfully!\n"
            f"  - Payment Amount: ${amount:.2f}\n"
            f"  - From Checking Account: {checking_account_id}\n"
            f"  - To Credit Card Account: {credit_card_account_id}\n"
            f"  - New Checking Balance: ${new_checking:.2f}\n"
            f"  - New Credit Card Balance: ${new_card:.2f}\n"
            "The payment has been applied immediately."
        )

    @tool("write", discoverable=True)
    def submit_credit_limit_increase_request_7392(
        self, credit_card_account_id: str, user_id: str, requested_increase_amount: int
    ) -> str:
        """Submit a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID to request increase for
            user_id (string): The customer's unique identifier in the system
            requested_increase_amount (integer): The dollar amount by which to increase the credit limit (e.g., 2500 for $2,500)

        Returns:
            Credit limit increase request submitted successfully.
        """
        if not credit_card_account_id or not user_id or requested_increase_amount is None:
            return "Error: Missing required parameters."
        try:
            requested = float(requested_increase_amount)
        except (TypeError, ValueError):
            return "Error: Invalid requested_increase_amount. Must be a whole number."
        if not requested.is_integer():
            return "Error: Invalid requested_increase_amount. Must be a whole number of dollars."
        whole = int(requested)
        if whole <= 0:
            return "Error: Requested increase amount must be positive."
        cards = self.records("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        if cards.peek(credit_card_account_id).get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        request = ids.credit_limit_request_id(credit_card_account_id, user_id, whole)
        record = {
            "request_id": request,
            "credit_card_account_id": credit_card_account_id,
            "user_id": user_id,
            "requested_increase_amount": whole,
            "submitted_at": TODAY,
            "status": "PENDING",
        }
        if not self.add("credit_limit_increase_requests", request, record):
            return "Error: A similar request may already exist."
        return (
            "Credit limit increase request submitted successfully.\n\n"
            "Executed: submit_credit_limit_increase_request_7392\n"
            f"  - Request ID: {request}\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Requested Increase: ${whole:,}\n"
            "  - Status: PENDING"
        )

    @tool("read", discoverable=True)
    def get_credit_limit_increase_history_4829(self, credit_card_account_id: str) -> str:
        """Retrieve the credit limit increase request history for a specific credit card account. Returns all previous CLI requests including dates, amounts, and statuses.

        Args:
            credit_card_account_id (string): The credit card account ID to check for CLI history

        Returns:
            Credit limit increase history retrieved.
        """
        return self.history(
            "get_credit_limit_increase_history_4829", "credit_limit_increase_requests", "credit_card_account_id", credit_card_account_id,
            "Credit limit increase history retrieved.",
            f"Credit limit increase history for account {credit_card_account_id}:",
            "No credit limit increase requests found for this account.",
        )

    @tool("read", discoverable=True)
    def get_payment_history_6183(self, credit_card_account_id: str, months: int) -> str:
        """Retrieve payment history for a credit card account.

        Args:
            credit_card_account_id (string): The credit card account ID to check payment history for
            months (integer): Number of months of payment history to retrieve

        Returns:
            Payment history retrieved.
        """
        if not credit_card_account_id or months is None:
            return "Error: Missing required parameters (credit_card_account_id, months)."
        try:
            months = int(months)
            if months <= 0:
                return "Error: months must be a positive integer."
        except (ValueError, TypeError):
            return "Error: Invalid months value. Must be a positive integer."
        payments = [
            p for p in self.records("payment_history").values_ro() if p.get("credit_card_account_id") == credit_card_account_id
        ]
        if not payments:
            return f"No payment history found for account '{credit_card_account_id}'."
        payments.sort(key=lambda p: p.get("payment_date") or "", reverse=True)
        payments = payments[:months]
        on_time = 0
        for payment in payments:
            if payment.get("status") != "ON_TIME":
                break
            on_time += 1
        lines = [
            f"Payment history for account '{credit_card_account_id}' (last {months} months):",
            f"Consecutive on-time payments: {on_time}",
        ]
        lines.extend(
            f"\n  - Payment Date: {p.get('payment_date')}\n    Amount: {p.get('amount')}\n    Status: {p.get('status')}"
            for p in payments
        )
        return "\n".join(lines)

    def _cli_blocked(self, credit_card_account_id: str, user_id: str, card: dict) -> bool:
        disputes = self.records("transaction_disputes")
        for dispute in disputes.values_ro():
            if dispute.get("user_id") == user_id and dispute.get("status") in ["SUBMITTED", "UNDER_REVIEW", "PENDING"]:
                return True
        for order in self.records("credit_card_orders").values_ro():
            if order.get("credit_card_account_id") == credit_card_account_id and order.get("status") in [
                "PENDING",
                "PROCESSING",
                "SHIPPED",
            ]:
                return True
        return card.get("account_status", "").upper() in ["PAST_DUE", "DELINQUENT", "COLLECTIONS", "CLOSED"]

    @tool("write", discoverable=True)
    def approve_credit_limit_increase_5847(self, credit_card_account_id: str, user_id: str, new_credit_limit: int) -> str:
        """Approve and apply a credit limit increase for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            new_credit_limit (integer): The new total credit limit in dollars (e.g., 7500 for $7,500)

        Returns:
            Credit limit increase approved and applied successfully.
        """
        if not credit_card_account_id or not user_id or new_credit_limit is None:
            return "Error: Missing required parameters."
        cards = self.records("credit_card_accounts")
        if credit_card_account_id not in cards:
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        card = cards.peek(credit_card_account_id)
        if card.get("user_id") != user_id:
            return f"Error: Credit card account '{credit_card_account_id}' does not belong to user '{user_id}'."
        if self._cli_blocked(credit_card_account_id, user_id, card):
            return "Error: Credit limit increase request cannot be approved at this time."
        current = _money_text(card.get("credit_limit", "$0.00"))
        try:
            new_limit = float(new_credit_limit)
        except (ValueError, TypeError):
            return f"Error: Invalid new_credit_limit '{new_credit_limit}'. Must be a number."
        cards[credit_card_account_id]["credit_limit"] = f"${new_limit:.2f}"
        request = ids.credit_limit_request_id(credit_card_account_id, user_id, new_limit - current)
        self.add(
            "credit_limit_increase_requests",
            request,
            {
                "request_id": request,
                "credit_card_account_id": credit_card_account_id,
                "user_id": user_id,
                "previous_limit": f"${current:.2f}",
                "new_limit": f"${new_limit:.2f}",
                "increase_amount": f"${new_limit - current:.2f}",
                "decision_date": TODAY,
                "status": "APPROVED",
            },
        )
        return (
            "Credit limit increase approved!\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Previous Limit: ${current:.2f}\n"
            f"  - New Limit: ${new_limit:.2f}\n"
            f"  - Increase: ${new_limit - current:.2f}\n"
            f"  - Effective Date: {TODAY}\n"
            "The customer will receive a confirmation email."
        )

    @tool("write", discoverable=True)
    def deny_credit_limit_increase_5848(self, credit_card_account_id: str, user_id: str, denial_reason: str) -> str:
        """Deny a credit limit increase request for a customer's credit card.

        Args:
            credit_card_account_id (string): The credit card account ID
            user_id (string): The customer's unique identifier in the system
            denial_reason (string): The reason for denying the request. Must be one of: 'insufficient_account_age', 'cooldown_period_active', 'pending_disputes', 'pending_replacement_card', 'past_due_balance', 'high_utilization', 'insufficient_payment_history', 'requested_amount_exceeds_limit', 'other'

        Returns:
            Credit limit increase request denied.
        """
        if not credit_card_account_id or not user_id or not denial_reason:
            return "Error: Missing required parameters."
        if denial_reason not in CLI_DENIAL_REASONS:
            return f"Error: Invalid denial_reason. Must be one of: {', '.join(CLI_DENIAL_REASONS)}"
        if credit_card_account_id not in self.records("credit_card_accounts"):
            return f"Error: Credit card account '{credit_card_account_id}' not found."
        request = ids.credit_limit_request_id(credit_card_account_id, user_id, 0.0)
        self.add(
            "credit_limit_increase_requests",
            request,
            {
                "request_id": request,
                "credit_card_account_id": credit_card_account_id,
                "user_id": user_id,
                "denial_reason": denial_reason,
                "decision_date": TODAY,
                "status": "DENIED",
            },
        )
        return (
            "Credit limit increase request denied.\n"
            f"  - Account: {credit_card_account_id}\n"
            f"  - Denial Reason: {denial_reason}\n"
            f"  - Date: {TODAY}\n"
            "The customer will receive a notification explaining the denial."
        )
