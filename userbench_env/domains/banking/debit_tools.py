"""Discoverable agent tools for debit cards: disputes, orders, activation, PINs, limits.

Docstrings of discoverable tools are shown to the agent verbatim when it unlocks a tool
(see :mod:`~userbench_env.domains.banking.discovery`): keep their wording and format.
"""
from __future__ import annotations

import json
from typing import Any, Optional

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.db import TODAY, TODAY_START, days_since
from userbench_env.domains.banking.toolkit_base import BankToolkit
from userbench_env.domains.toolkit import tool

SEQUENTIAL_PINS = {
    "0123", "1234", "2345", "3456", "4567", "5678", "6789",
    "9876", "8765", "7654", "6543", "5432", "4321", "3210",
}
#: Which activation tool serves which ``issue_reason`` of a card.
ACTIVATION_TOOL_BY_REASON = {
    "new_account": "activate_debit_card_8291",
    "first_card": "activate_debit_card_8291",
    "lost": "activate_debit_card_8292",
    "stolen": "activate_debit_card_8292",
    "fraud": "activate_debit_card_8292",
    "expired": "activate_debit_card_8293",
    "damaged": "activate_debit_card_8293",
    "upgrade": "activate_debit_card_8293",
    "bank_reissue": "activate_debit_card_8293",
}
DEFAULT_ATM_LIMITS = {
    "blue account": 500,
    "green account": 600,
    "light blue account": 400,
    "green fee-free account": 500,
    "evergreen account": 750,
    "bluest account": 1500,
    "dark green account": 300,
    "gold years account": 600,
    "purple account": 1000,
}
DEBIT_DISPUTE_CATEGORIES = [
    "unauthorized_transaction",
    "atm_cash_discrepancy",
    "atm_deposit_not_credited",
    "duplicate_charge",
    "incorrect_amount",
    "goods_services_not_received",
    "recurring_charge_after_cancellation",
    "card_present_fraud",
    "card_not_present_fraud",
]
DEBIT_TRANSACTION_TYPES = [
    "pin_purchase",
    "signature_purchase",
    "online_purchase",
    "atm_withdrawal",
    "atm_deposit",
    "recurring_payment",
    "person_to_person",
]
DELIVERY_TIMES = {"STANDARD": "7-10 business days", "EXPEDITED": "3-5 business days", "RUSH": "1-2 business days"}


def _title(code: str) -> str:
    return code.replace("_", " ").title()


def pin_problem(pin: Any) -> Optional[str]:
    """Why a PIN is unacceptable (4 digits, not sequential, not one repeated digit), or None."""
    if not pin or not pin.isdigit() or len(pin) != 4:
        return "PIN must be exactly 4 digits."
    if pin in SEQUENTIAL_PINS:
        return "PIN cannot be sequential (e.g., 1234). Please choose a more secure PIN."
    if len(set(pin)) == 1:
        return "PIN cannot be all the same digit (e.g., 1111). Please choose a more secure PIN."
    return None


def _digits(text: str, count: int) -> str:
    return "".join(c for c in text if c.isdigit())[:count].zfill(count)


def _expiration_after_four_years(order_date: str) -> str:
    try:
        month, _, year = order_date.split("/")
        year = str(int(year) + 4)
    except (ValueError, IndexError):
        return "12/31/2029"
    if month in ["01", "03", "05", "07", "08", "10", "12"]:
        day = "31"
    elif month == "02":
        day = "28"
    else:
        day = "30"
    return f"{month}/{day}/{year}"


class DebitCardTools(BankToolkit):
    """Debit-card discoverable tools of the agent (a mixin of ``KnowledgeTools``)."""

    # -- helpers -------------------------------------------------------------------
    def _activation_target(
        self, tool_name: str, allowed: list[str], card_id: Any, last_4_digits: Any, expiration_date: Any, cvv: Any, pin: Any
    ) -> tuple[Optional[str], Optional[dict[str, Any]]]:
        """(error text, None) or (None, the card's writable record) for an activation call."""
        if not all([card_id, last_4_digits, expiration_date, cvv, pin]):
            return "Error: Missing required parameters. Required: card_id, last_4_digits, expiration_date, cvv, pin.", None
        problem = pin_problem(pin)
        if problem:
            return f"Error: {problem}", None
        if not cvv.isdigit() or len(cvv) != 3:
            return "Error: CVV must be exactly 3 digits.", None
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits.", None
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found.", None
        card = cards.peek(card_id)
        reason = card.get("issue_reason", "new_account")
        if reason not in allowed:
            correct = ACTIVATION_TOOL_BY_REASON.get(reason, "unknown")
            return (
                f"Error: Wrong activation tool. This card has issue_reason='{reason}'. "
                f"Please use {correct} instead of {tool_name}.",
                None,
            )
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active.", None
        if card.get("status") != "PENDING":
            return (
                f"Error: Debit card '{card_id}' cannot be activated. Current status: {card.get('status')}. "
                "Only PENDING cards can be activated.",
                None,
            )
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records.", None
        account_id = card.get("account_id")
        accounts = self.records("accounts")
        if account_id and account_id in accounts and accounts.peek(account_id).get("status") != "OPEN":
            return (
                f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be activated.",
                None,
            )
        return None, cards[card_id]

    def _retire_other_cards(self, card_id: str, account_id: Any, changes: dict[str, Any]) -> list[str]:
        """Apply ``changes`` to every other ACTIVE card of the account; their ids."""
        cards = self.records("debit_cards")
        retired = [
            other_id
            for other_id, other in cards.items_ro()
            if other_id != card_id and other.get("account_id") == account_id and other.get("status") == "ACTIVE"
        ]
        for other_id in retired:
            cards[other_id].update(changes)
        return retired

    # -- disputes and settings -----------------------------------------------------
    @tool("write", discoverable=True)
    def file_debit_card_transaction_dispute_6281(
        self,
        transaction_id: str,
        account_id: str,
        card_id: str,
        user_id: str,
        dispute_category: str,
        transaction_date: str,
        discovery_date: str,
        disputed_amount: float,
        transaction_type: str,
        card_in_possession: bool,
        pin_compromised: str,
        contacted_merchant: bool,
        police_report_filed: bool,
        written_statement_provided: bool,
        provisional_credit_eligible: bool,
        customer_max_liability_amount: float,
        card_action: str,
    ) -> str:
        """File a formal dispute for a debit card transaction under Regulation E. Debit card disputes affect actual bank funds and have different liability rules based on reporting timing.

        Args:
            transaction_id (string): The unique identifier for the transaction being disputed
            account_id (string): The checking account ID linked to the debit card
            card_id (string): The debit card ID
            user_id (string): The user's unique identifier in the system
            dispute_category (string): Category of the dispute. Must be one of: 'unauthorized_transaction', 'atm_cash_discrepancy', 'atm_deposit_not_credited', 'duplicate_charge', 'incorrect_amount', 'goods_services_not_received', 'recurring_charge_after_cancellation', 'card_present_fraud', 'card_not_present_fraud'
            transaction_date (string): Date when the transaction occurred, format MM/DD/YYYY
            discovery_date (string): Date when the user first noticed the issue, format MM/DD/YYYY
            disputed_amount (number): The dollar amount being disputed
            transaction_type (string): Type of transaction. Must be one of: 'pin_purchase', 'signature_purchase', 'online_purchase', 'atm_withdrawal', 'atm_deposit', 'recurring_payment', 'person_to_person'
            card_in_possession (boolean): Whether the customer still has their physical debit card in their possession
            pin_compromised (string): Whether the customer's PIN may have been compromised. Must be one of: 'yes_shared', 'yes_observed', 'no', 'unknown'
            contacted_merchant (boolean): Whether the user attempted to resolve the issue with the merchant first
            police_report_filed (boolean): Whether a police report has been filed (recommended for fraud over $500)
            written_statement_provided (boolean): Whether the customer has provided a written statement describing what happened (required for Reg E provisional credit)
            provisional_credit_eligible (boolean): Whether the user is eligible for provisional credit based on Debit Card Provisional Credit Guidelines
            customer_max_liability_amount (number): The maximum dollar amount the customer could be liable for based on Regulation E reporting timing rules and the disputed amount. Use -1 for unlimited liability.
            card_action (string): Action to take on the card. Must be one of: 'keep_active', 'freeze_pending_investigation', 'close_and_reissue'

        Returns:
            Debit card transaction dispute filed successfully. A case has been opened and provisional credit determination has been recorded.
        """
        required = [
            transaction_id, account_id, card_id, user_id, dispute_category, transaction_date,
            discovery_date, disputed_amount, transaction_type, pin_compromised, card_action,
        ]
        if not all(required):
            return "Error: Missing required parameters."
        if customer_max_liability_amount is None:
            return "Error: customer_max_liability_amount is required."
        if None in (card_in_possession, contacted_merchant, police_report_filed, written_statement_provided):
            return (
                "Error: card_in_possession, contacted_merchant, police_report_filed, and "
                "written_statement_provided are required boolean fields."
            )
        if dispute_category not in DEBIT_DISPUTE_CATEGORIES:
            return f"Error: Invalid dispute_category. Must be one of: {DEBIT_DISPUTE_CATEGORIES}"
        if transaction_type not in DEBIT_TRANSACTION_TYPES:
            return f"Error: Invalid transaction_type. Must be one of: {DEBIT_TRANSACTION_TYPES}"
        pin_states = ["yes_shared", "yes_observed", "no", "unknown"]
        if pin_compromised not in pin_states:
            return f"Error: Invalid pin_compromised. Must be one of: {pin_states}"
        card_actions = ["keep_active", "freeze_pending_investigation", "close_and_reissue"]
        if card_action not in card_actions:
            return f"Error: Invalid card_action. Must be one of: {card_actions}"
        try:
            disputed_amount = float(disputed_amount)
        except (ValueError, TypeError):
            return f"Error: Invalid disputed_amount '{disputed_amount}'. Must be a number."
        if disputed_amount <= 0:
            return "Error: disputed_amount must be a positive number."
        dispute = ids.dispute_id(user_id, transaction_id)
        is_fraud = dispute_category in ["unauthorized_transaction", "card_present_fraud", "card_not_present_fraud"]
        pin_shared = pin_compromised == "yes_shared"
        record = {
            "dispute_id": dispute,
            "transaction_id": transaction_id,
            "account_id": account_id,
            "card_id": card_id,
            "user_id": user_id,
            "dispute_category": dispute_category,
            "transaction_date": transaction_date,
            "discovery_date": discovery_date,
            "disputed_amount": disputed_amount,
            "transaction_type": transaction_type,
            "card_in_possession": card_in_possession,
            "pin_compromised": pin_compromised,
            "contacted_merchant": contacted_merchant,
            "police_report_filed": police_report_filed,
            "written_statement_provided": written_statement_provided,
            "provisional_credit_eligible": provisional_credit_eligible,
            "provisional_credit_issued": provisional_credit_eligible,
            "provisional_credit_amount": disputed_amount if provisional_credit_eligible else None,
            "customer_max_liability_amount": customer_max_liability_amount,
            "card_action": card_action,
            "is_fraud_category": is_fraud,
            "pin_shared_voluntarily": pin_shared,
            "submitted_at": TODAY,
            "status": "OPEN",
        }
        if not self.add("debit_card_disputes", dispute, record):
            return "Error: Dispute may have already been filed for this transaction."
        lines = [
            f"Dispute ID: {dispute}",
            f"Transaction: {transaction_id}",
            f"Account: {account_id}",
            f"Category: {_title(dispute_category)}",
            f"Disputed Amount: ${disputed_amount:.2f}",
            f"Card Action: {_title(card_action)}",
        ]
        if provisional_credit_eligible:
            lines.append(
                f"Provisional Credit: ISSUED - ${disputed_amount:.2f} credited within 10 business days per Regulation E."
            )
        else:
            lines.append("Provisional Credit: Not eligible - see Debit Card Provisional Credit Guidelines for details.")
        if pin_shared:
            lines.append(
                "WARNING: Customer indicated PIN was shared voluntarily. This may affect liability determination."
            )
        if is_fraud and not police_report_filed and disputed_amount > 500:
            lines.append("RECOMMENDATION: For fraud disputes over $500, filing a police report is recommended.")
        return "\n".join(lines)

    @tool("write", discoverable=True)
    def set_debit_card_recurring_block_7382(self, card_id: str, block_recurring: bool) -> str:
        """Block or unblock all recurring payments on a debit card. When blocked, all recurring/subscription charges will be declined. One-time purchases are not affected.

        Args:
            card_id (string): The debit card ID to update
            block_recurring (boolean): True to block all recurring payments, False to unblock/allow recurring payments

        Returns:
            Debit card recurring payment settings updated successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id"
        card = self.records("debit_cards").peek(card_id)
        if not card:
            return f"Error: Debit card '{card_id}' not found."
        status = card.get("status", "").upper()
        if status != "ACTIVE":
            return f"Error: Cannot update recurring block settings for a card with status '{status}'. Card must be ACTIVE."
        self.records("debit_cards")[card_id]["recurring_blocked"] = block_recurring
        if block_recurring:
            return (
                f"Recurring payments BLOCKED for debit card {card_id}.\n"
                "All recurring/subscription charges will be declined.\n"
                "One-time purchases are not affected.\n"
                "This change takes effect within 24 hours."
            )
        return (
            f"Recurring payments UNBLOCKED for debit card {card_id}.\n"
            "Recurring/subscription charges will now be allowed.\n"
            "This change takes effect within 24 hours."
        )

    @tool("read", discoverable=True)
    def get_debit_dispute_status_7483(self, user_id: str) -> str:
        """Retrieve a user's debit card dispute history from the debit_card_disputes table. Returns all debit card disputes filed by the user, including dispute IDs, categories, amounts, statuses, and provisional credit information.

        Args:
            user_id (string): The user's unique identifier in the system

        Returns:
            Debit card dispute history retrieved successfully.
        """
        return self.history(
            "get_debit_dispute_status_7483", "debit_card_disputes", "user_id", user_id,
            "Debit card dispute history retrieved successfully.",
            f"Debit card dispute history for user {user_id}:",
            "No debit card disputes found for this user.",
        )

    # -- ordering ----------------------------------------------------------------------
    @tool("write", discoverable=True)
    def order_debit_card_5739(
        self,
        account_id: str,
        user_id: str,
        delivery_option: str,
        delivery_fee: float,
        card_design: str,
        design_fee: float,
        shipping_address: str,
        excess_replacement_fee: Optional[float] = None,
    ) -> str:
        """Order a new debit card for a customer's checking account.

        Args:
            account_id (string): The checking account ID to link the debit card to
            user_id (string): The customer's unique identifier
            delivery_option (string): Shipping speed: STANDARD, EXPEDITED, or RUSH
            delivery_fee (number): Fee to charge for delivery in dollars
            card_design (string): Card design: CLASSIC, PREMIUM, or CUSTOM
            design_fee (number): Fee to charge for card design in dollars
            shipping_address (string): Full shipping address for card delivery
            excess_replacement_fee (number, optional): Fee for exceeding replacement limit, if applicable

        Returns:
            Debit card order placed successfully.
        """
        excess_replacement_fee = excess_replacement_fee or 0
        try:
            delivery_fee = float(delivery_fee) if delivery_fee is not None else None
        except (TypeError, ValueError):
            return "Error: delivery_fee must be a number."
        try:
            design_fee = float(design_fee) if design_fee is not None else None
        except (TypeError, ValueError):
            return "Error: design_fee must be a number."
        try:
            excess_replacement_fee = float(excess_replacement_fee)
        except (TypeError, ValueError):
            excess_replacement_fee = 0
        present = [
            account_id, user_id, delivery_option, delivery_fee is not None,
            card_design, design_fee is not None, shipping_address,
        ]
        if not all(present):
            return (
                "Error: Missing required parameters. Required: account_id, user_id, delivery_option, "
                "delivery_fee, card_design, design_fee, shipping_address."
            )
        deliveries = ["STANDARD", "EXPEDITED", "RUSH"]
        if delivery_option.upper() not in deliveries:
            return f"Error: Invalid delivery_option. Must be one of: {deliveries}"
        delivery_option = delivery_option.upper()
        designs = ["CLASSIC", "PREMIUM", "CUSTOM"]
        if card_design.upper() not in designs:
            return f"Error: Invalid card_design. Must be one of: {designs}"
        card_design = card_design.upper()
        accounts = self.records("accounts")
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts.peek(account_id)
        if account.get("class") != "checking":
            return (
                "Error: Debit cards can only be ordered for checking accounts. "
                f"Account '{account_id}' is a {account.get('class')} account."
            )
        if account.get("status") != "OPEN":
            return f"Error: Account must be OPEN. Account '{account_id}' has status: {account.get('status')}"
        if account.get("user_id") != user_id:
            return f"Error: Account '{account_id}' does not belong to user '{user_id}'."
        try:  # note: only commas are stripped, so "$..." balances read as 0
            holdings = float(str(account.get("current_holdings", "0")).replace(",", ""))
        except ValueError:
            holdings = 0.0
        if holdings < 25.0:
            return f"Error: Account must have a minimum balance of $25. Current balance: ${holdings:.2f}"
        for order in self.records("debit_card_orders").values_ro():
            if order.get("account_id") == account_id and order.get("status") == "PENDING":
                return f"Error: There is already a pending debit card order for account '{account_id}'."
        cards = self.records("debit_cards")
        if any(c.get("account_id") == account_id and c.get("status") == "ACTIVE" for c in cards.values_ro()):
            return (
                f"Error: Account '{account_id}' already has an active debit card. "
                "Maximum 1 active card per checking account."
            )
        total_fee = delivery_fee + design_fee + excess_replacement_fee
        if total_fee > 0 and holdings < total_fee:
            return f"Error: Insufficient funds for fees. Total fees: ${total_fee:.2f}. Current balance: ${holdings:.2f}"
        expected = DELIVERY_TIMES[delivery_option]
        order_id = ids.debit_card_order_id(account_id, user_id, delivery_option)
        order_record = {
            "order_id": order_id,
            "account_id": account_id,
            "user_id": user_id,
            "delivery_option": delivery_option,
            "card_design": card_design,
            "shipping_address": shipping_address,
            "delivery_fee": delivery_fee,
            "design_fee": design_fee,
            "excess_replacement_fee": excess_replacement_fee,
            "total_fee": total_fee,
            "order_date": TODAY,
            "expected_delivery": expected,
            "status": "PENDING",
        }
        if not self.add("debit_card_orders", order_id, order_record):
            return "Error: Failed to create debit card order. Order may already exist."
        if total_fee > 0:
            accounts[account_id]["current_holdings"] = f"{holdings - total_fee:.2f}"
            parts = []
            if delivery_fee > 0:
                parts.append(f"Delivery ${delivery_fee}")
            if design_fee > 0:
                parts.append(f"Design ${design_fee}")
            if excess_replacement_fee > 0:
                parts.append(f"Excess Replacement ${excess_replacement_fee:.0f}")
            fee_txn = f"btxn_dcfee_{order_id[-8:]}"
            self.add(
                "bank_account_transaction_history",
                fee_txn,
                {
                    "transaction_id": fee_txn,
                    "account_id": account_id,
                    "date": TODAY,
                    "description": f"DEBIT CARD ORDER FEE - {', '.join(parts)}",
                    "amount": -total_fee,
                    "type": "debit_card_fee",
                    "status": "posted",
                },
            )
        card_id = ids.debit_card_id(account_id, user_id, TODAY)
        seed = f"card_details:{card_id}"
        users = self.records("users")
        holder = users.peek(user_id).get("name", "CARDHOLDER").upper() if user_id in users else "CARDHOLDER"
        existing = [c for c in cards.values_ro() if c.get("account_id") == account_id]
        closed = next((c for c in existing if c.get("status") == "CLOSED"), None)
        if closed:
            reason = closed.get("closure_reason", "first_card")
            if reason in ["lost", "stolen", "fraud", "fraud_suspected"]:
                issue_reason = "fraud" if reason == "fraud_suspected" else reason
            else:
                issue_reason = "first_card"
        else:
            issue_reason = "first_card" if existing else "new_account"
        self.add(
            "debit_cards",
            card_id,
            {
                "card_id": card_id,
                "account_id": account_id,
                "user_id": user_id,
                "cardholder_name": holder,
                "last_4_digits": _digits(ids.digest_id(seed + ":last4", 8), 4),
                "cvv": _digits(ids.digest_id(seed + ":cvv", 6), 3),
                "status": "PENDING",
                "issue_date": TODAY,
                "expiration_date": _expiration_after_four_years(TODAY),
                "card_design": card_design,
                "issue_reason": issue_reason,
            },
        )
        lines = [
            "Debit Card Order Confirmed",
            f"Order ID: {order_id}",
            f"Card ID: {card_id}",
            f"Linked Account: {account_id}",
            f"Delivery Option: {delivery_option}",
            f"Card Design: {card_design}",
            f"Shipping Address: {shipping_address}",
            f"Expected Delivery: {expected}",
            "",
            "Note: Card will arrive with status PENDING. Customer must call to activate after receiving the card.",
        ]
        if total_fee > 0:
            details = []
            if delivery_fee > 0:
                details.append(f"Delivery: ${delivery_fee}")
            if design_fee > 0:
                details.append(f"Design: ${design_fee}")
            if excess_replacement_fee > 0:
                details.append(f"Excess Replacement: ${excess_replacement_fee:.0f}")
            lines.append(f"Total Fees: ${total_fee:.2f} ({', '.join(details)}) - CHARGED to account {account_id}")
            lines.append(f"New Account Balance: ${holdings - total_fee:.2f}")
        else:
            lines.append("Total Fees: $0 (No additional charges)")
        return "\n".join(lines)

    # -- activation ----------------------------------------------------------------
    @tool("write", discoverable=True)
    def activate_debit_card_8291(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
        """Activate a NEW debit card for a customer. Use ONLY for first-time cards on a checking account (issue_reason = 'new_account' or 'first_card'). For replacement or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            New debit card activated successfully.
        """
        error, card = self._activation_target(
            "activate_debit_card_8291", ["new_account", "first_card"], card_id, last_4_digits, expiration_date, cvv, pin
        )
        if error:
            return error
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        retired = self._retire_other_cards(
            card_id,
            card.get("account_id"),
            {"status": "DEACTIVATED", "deactivated_date": TODAY, "deactivation_reason": "New card activated"},
        )
        lines = [
            "New Debit Card Activation Successful",
            f"Card ID: {card_id}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your card is now ready to use at any ATM or point of sale terminal.",
            "For security, please sign the back of your card.",
        ]
        if retired:
            lines.append(f"\nNote: Previous card(s) have been deactivated: {', '.join(retired)}")
        return "\n".join(lines)

    @tool("write", discoverable=True)
    def activate_debit_card_8292(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
        """Activate a REPLACEMENT debit card. Use ONLY for cards replacing lost, stolen, or fraud-suspected cards (issue_reason = 'lost', 'stolen', or 'fraud'). For new or reissued cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Replacement debit card activated successfully.
        """
        error, card = self._activation_target(
            "activate_debit_card_8292", ["lost", "stolen", "fraud"], card_id, last_4_digits, expiration_date, cvv, pin
        )
        if error:
            return error
        reason = card.get("issue_reason", "lost")
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        retired = self._retire_other_cards(
            card_id,
            card.get("account_id"),
            {
                "status": "DEACTIVATED",
                "deactivated_date": TODAY,
                "deactivation_reason": f"Replacement card activated ({reason})",
            },
        )
        lines = [
            "Replacement Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Replacement Reason: {_title(reason)}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your replacement card is now ready to use.",
            "",
            "IMPORTANT SECURITY REMINDERS:",
            "- Please review your recent transactions for any unauthorized charges",
            "- Report any suspicious activity immediately",
        ]
        if reason == "fraud":
            lines.append("- Since fraud was suspected, we recommend changing your online banking password")
        if retired:
            lines.append(f"\nPrevious card(s) have been deactivated for security: {', '.join(retired)}")
        return "\n".join(lines)

    @tool("write", discoverable=True)
    def activate_debit_card_8293(self, card_id: str, last_4_digits: str, expiration_date: str, cvv: str, pin: str) -> str:
        """Activate a REISSUED debit card. Use ONLY for cards reissued due to expiration, damage, design upgrade, or bank-initiated replacement (issue_reason = 'expired', 'damaged', 'upgrade', or 'bank_reissue'). For new or replacement cards, use the appropriate variant.

        Args:
            card_id (string): The debit card ID to activate
            last_4_digits (string): Last 4 digits of the card number (for verification)
            expiration_date (string): Card expiration date in MM/YY format
            cvv (string): 3-digit CVV from the back of the card
            pin (string): 4-digit PIN chosen by the customer

        Returns:
            Reissued debit card activated successfully.
        """
        error, card = self._activation_target(
            "activate_debit_card_8293",
            ["expired", "damaged", "upgrade", "bank_reissue"],
            card_id,
            last_4_digits,
            expiration_date,
            cvv,
            pin,
        )
        if error:
            return error
        reason = card.get("issue_reason", "expired")
        card["status"] = "ACTIVE"
        card["activated_date"] = TODAY
        in_grace = self._retire_other_cards(
            card_id,
            card.get("account_id"),
            {
                "status": "GRACE_PERIOD",
                "grace_period_ends": TODAY,
                "deactivation_reason": f"Reissued card activated ({reason})",
            },
        )
        lines = [
            "Reissued Debit Card Activation Successful",
            f"Card ID: {card_id}",
            f"Reissue Reason: {_title(reason)}",
            "Status: ACTIVE",
            f"Activation Date: {TODAY}",
            "",
            "Your reissued card is now ready to use.",
        ]
        if in_grace:
            lines.append(
                f"\nNote: Your previous card(s) ({', '.join(in_grace)}) will remain active for 24 hours as a grace period."
            )
            lines.append("After 24 hours, the old card(s) will be automatically deactivated.")
        if reason in ["expired", "bank_reissue"]:
            lines.append(
                "\nReminder: If your card number changed, please update any recurring payments with your new card details."
            )
        return "\n".join(lines)

    # -- card state ------------------------------------------------------------------
    @tool("write", discoverable=True)
    def close_debit_card_4721(self, card_id: str, reason: str) -> str:
        """Close or cancel a debit card permanently.

        Args:
            card_id (string): The debit card ID to close
            reason (string): Reason for closing: lost, stolen, fraud_suspected, damaged, no_longer_needed, or account_closing

        Returns:
            Debit card closed successfully.
        """
        if not card_id or not reason:
            return "Error: Missing required parameters. Required: card_id, reason."
        reasons = ["lost", "stolen", "fraud_suspected", "damaged", "no_longer_needed", "account_closing"]
        if reason.lower() not in reasons:
            return f"Error: Invalid reason. Must be one of: {reasons}"
        reason = reason.lower()
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        previous = cards.peek(card_id).get("status")
        if previous not in ["ACTIVE", "PENDING"]:
            return (
                f"Error: Debit card '{card_id}' cannot be closed. Current status: {previous}. "
                "Only ACTIVE or PENDING cards can be closed."
            )
        cards[card_id].update({"status": "CLOSED", "closed_date": TODAY, "closure_reason": reason})
        lines = [
            "Debit Card Closed Successfully",
            f"Card ID: {card_id}",
            f"Previous Status: {previous}",
            "New Status: CLOSED",
            f"Closure Reason: {_title(reason)}",
            f"Closure Date: {TODAY}",
            "",
        ]
        if reason in ["lost", "stolen", "fraud_suspected"]:
            lines.append("IMPORTANT: This card has been immediately deactivated for security.")
            lines.append("Any pending transactions may still be processed.")
            if reason == "fraud_suspected":
                lines.append(
                    "Please advise the customer to review recent transactions and file disputes for any unauthorized charges."
                )
                lines.append("Also recommend changing their online banking password.")
        lines.append("")
        lines.append(
            "Note: This card cannot be reactivated. If the customer needs a new card, they can order one through the standard ordering process."
        )
        lines.append("Any recurring payments linked to this card will need to be updated with new payment information.")
        return "\n".join(lines)

    @tool("write", discoverable=True)
    def freeze_debit_card_3892(self, card_id: str) -> str:
        """Temporarily freeze a debit card. The card can be unfrozen later.

        Args:
            card_id (string): The debit card ID to freeze

        Returns:
            Debit card frozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        status = cards.peek(card_id).get("status")
        if status == "FROZEN":
            return f"Error: Debit card '{card_id}' is already frozen."
        if status != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' cannot be frozen. Current status: {status}. "
                "Only ACTIVE cards can be frozen."
            )
        cards[card_id].update({"status": "FROZEN", "frozen_date": TODAY})
        return "\n".join(
            [
                "Debit Card Frozen Successfully",
                f"Card ID: {card_id}",
                "Status: FROZEN",
                f"Frozen Date: {TODAY}",
                "",
                "While frozen:",
                "- All new purchase transactions will be declined",
                "- Recurring payments and subscriptions will be declined",
                "- Pending transactions already authorized may still process",
                "",
                "To unfreeze, the customer can call customer service or use the mobile app.",
                "If the card is confirmed lost or stolen, recommend closing the card permanently instead.",
            ]
        )

    @tool("write", discoverable=True)
    def unfreeze_debit_card_3893(self, card_id: str) -> str:
        """Unfreeze a previously frozen debit card.

        Args:
            card_id (string): The debit card ID to unfreeze

        Returns:
            Debit card unfrozen successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards.peek(card_id)
        if card.get("status") == "ACTIVE":
            return f"Error: Debit card '{card_id}' is already active."
        if card.get("status") != "FROZEN":
            return (
                f"Error: Debit card '{card_id}' cannot be unfrozen. Current status: {card.get('status')}. "
                "Only FROZEN cards can be unfrozen."
            )
        account_id = card.get("account_id")
        accounts = self.records("accounts")
        if account_id and account_id in accounts and accounts.peek(account_id).get("status") != "OPEN":
            return (
                f"Error: The linked checking account '{account_id}' is no longer open. Card cannot be unfrozen."
            )
        cards[card_id].update({"status": "ACTIVE", "unfrozen_date": TODAY})
        return "\n".join(
            [
                "Debit Card Unfrozen Successfully",
                f"Card ID: {card_id}",
                "Status: ACTIVE",
                f"Unfrozen Date: {TODAY}",
                "",
                "The card is now active and ready to use immediately.",
                "All transactions will process normally.",
            ]
        )

    @tool("write", discoverable=True)
    def clear_debit_card_fraud_alert_4892(self, card_id: str, reason: str) -> str:
        """Clear a fraud alert or velocity block on a debit card.

        Args:
            card_id (string): The debit card ID to clear the alert/block for
            reason (string): Reason for clearing: 'customer_verified' (for fraud alerts after customer verification) or 'velocity_clear' (for velocity blocks after identity verification)

        Returns:
            Fraud alert/velocity block cleared successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not reason:
            return "Error: Missing required parameter: reason."
        reasons = ["customer_verified", "velocity_clear"]
        if reason not in reasons:
            return f"Error: Invalid reason '{reason}'. Must be one of: {', '.join(reasons)}"
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards.peek(card_id)
        if reason == "velocity_clear":
            if not card.get("velocity_blocked", False):
                return f"Error: Debit card '{card_id}' does not have an active velocity block."
            cards[card_id].update({"velocity_blocked": False, "velocity_cleared_date": TODAY})
            return "\n".join(
                [
                    "Velocity Block Cleared Successfully",
                    f"Card ID: {card_id}",
                    f"Cleared Date: {TODAY}",
                    "",
                    "The card is now unblocked and ready for normal use.",
                    "The velocity monitoring will continue - if the same unusual patterns recur,",
                    "the card may be blocked again automatically.",
                ]
            )
        if not card.get("fraud_alert_active", False):
            return f"Error: Debit card '{card_id}' does not have an active fraud alert."
        if card.get("alert_source") == "bank_initiated":
            return (
                "Error: BANK_INITIATED_ALERT - This fraud alert was initiated by the bank's fraud detection system "
                "and cannot be cleared by customer service agents. Please transfer the customer to the security "
                "team using transfer_to_human_agents."
            )
        cards[card_id].update({"fraud_alert_active": False, "alert_source": None, "fraud_alert_cleared_date": TODAY})
        return "\n".join(
            [
                "Fraud Alert Cleared Successfully",
                f"Card ID: {card_id}",
                f"Cleared Date: {TODAY}",
                "",
                "The fraud alert has been removed from the card.",
                "All transactions will process normally.",
                "",
                "Remind the customer to review recent transactions and report any unauthorized charges.",
            ]
        )

    @tool("write", discoverable=True)
    def reset_debit_card_pin_6284(self, card_id: str, last_4_digits: str, new_pin: str) -> str:
        """Reset a debit card PIN when the customer has forgotten it.

        Args:
            card_id (string): The debit card ID to reset PIN for
            last_4_digits (string): Last 4 digits of the card number (for verification)
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN reset successfully.
        """
        if not all([card_id, last_4_digits, new_pin]):
            return "Error: Missing required parameters. Required: card_id, last_4_digits, new_pin."
        if not last_4_digits.isdigit() or len(last_4_digits) != 4:
            return "Error: Last 4 digits must be exactly 4 digits."
        problem = pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards.peek(card_id)
        if card.get("last_4_digits") != last_4_digits:
            return "Error: Card verification failed. The last 4 digits do not match our records."
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Cannot reset PIN. Card status is {card.get('status')}. "
                "Only ACTIVE cards can have their PIN reset."
            )
        cards[card_id].update({"pin_last_changed": TODAY, "pin_locked": False, "pin_attempts_remaining": 3})
        return "\n".join(
            [
                "Debit Card PIN Reset Successfully",
                f"Card ID: {card_id}",
                f"PIN Changed: {TODAY}",
                "",
                "The new PIN is effective immediately.",
                "Your card has been unlocked and is ready to use.",
                "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
                "",
                "Security reminder: Never share your PIN with anyone.",
            ]
        )

    @tool("write", discoverable=True)
    def change_debit_card_pin_6285(self, card_id: str, current_pin: str, new_pin: str) -> str:
        """Change a debit card PIN when the customer knows their current PIN.

        Args:
            card_id (string): The debit card ID to change PIN for
            current_pin (string): The customer's current 4-digit PIN
            new_pin (string): The new 4-digit PIN chosen by the customer

        Returns:
            Debit card PIN changed successfully.
        """
        if not all([card_id, current_pin, new_pin]):
            return "Error: Missing required parameters. Required: card_id, current_pin, new_pin."
        if not current_pin.isdigit() or len(current_pin) != 4:
            return "Error: Current PIN must be exactly 4 digits."
        problem = pin_problem(new_pin)
        if problem:
            return f"Error: {problem}"
        if current_pin == new_pin:
            return "Error: New PIN must be different from current PIN."
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        status = cards.peek(card_id).get("status")
        if status != "ACTIVE":
            return f"Error: Cannot change PIN. Card status is {status}. Only ACTIVE cards can have their PIN changed."
        cards[card_id]["pin_last_changed"] = TODAY
        return "\n".join(
            [
                "Debit Card PIN Changed Successfully",
                f"Card ID: {card_id}",
                f"PIN Changed: {TODAY}",
                "",
                "The new PIN is effective immediately.",
                "Customer can use the new PIN for ATM withdrawals and point-of-sale transactions.",
                "",
                "Security reminder: Never share your PIN with anyone.",
            ]
        )

    @tool("read", discoverable=True)
    def get_debit_cards_by_account_id_7823(self, account_id: str) -> str:
        """Retrieve all debit cards associated with a checking account. Returns card details including status, issue reason, and expiration date.

        Args:
            account_id (string): The checking account ID to retrieve debit cards for

        Returns:
            Debit cards retrieved successfully.
        """
        if not account_id:
            return "Error: Missing required parameter 'account_id'."
        accounts = self.records("accounts")
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        if accounts.peek(account_id).get("class", "").lower() not in ["checking", "business_checking"]:
            return (
                f"Error: Account '{account_id}' is not a checking account. "
                "Debit cards are only available for checking accounts."
            )
        found = []
        for card_id, card in self.records("debit_cards").items_ro():
            if card.get("account_id") != account_id:
                continue
            info = {"card_id": card_id, **card}
            if "last_4_digits" in info and "card_number_last_4" not in info:
                info["card_number_last_4"] = info.pop("last_4_digits")
            if "issue_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("issue_date")
            elif "created_date" in info and "date_issued" not in info:
                info["date_issued"] = info.pop("created_date")
            found.append(info)
        if not found:
            return f"No debit cards found for account '{account_id}'."
        found.sort(key=lambda c: c.get("date_issued") or "", reverse=True)
        return json.dumps(found, indent=2)

    @tool("write", discoverable=True)
    def request_temporary_debit_card_limit_increase_8374(self, card_id: str, limit_type: str, new_limit: int) -> str:
        """Request a temporary 24-hour increase to a debit card's daily ATM or purchase limit.

        Args:
            card_id (string): The debit card ID to increase limits for
            limit_type (string): Type of limit to increase: 'atm' for daily ATM withdrawal limit, 'purchase' for daily purchase limit
            new_limit (integer): The requested new temporary limit amount in dollars

        Returns:
            Temporary limit increase granted successfully.
        """
        if not card_id:
            return "Error: Missing required parameter: card_id."
        if not limit_type:
            return "Error: Missing required parameter: limit_type."
        if limit_type not in ["atm", "purchase"]:
            return f"Error: Invalid limit_type '{limit_type}'. Must be 'atm' or 'purchase'."
        if new_limit is None:
            return "Error: Missing required parameter: new_limit."
        try:
            new_limit = float(new_limit)
        except (ValueError, TypeError):
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        if not new_limit.is_integer():
            return f"Error: new_limit must be an integer, got '{new_limit}'."
        new_limit = int(new_limit)
        if new_limit <= 0:
            return "Error: new_limit must be a positive amount."
        cards = self.records("debit_cards")
        if card_id not in cards:
            return f"Error: Debit card '{card_id}' not found."
        card = cards.peek(card_id)
        if card.get("status") != "ACTIVE":
            return (
                f"Error: Debit card '{card_id}' is not active. Current status: {card.get('status')}. "
                "Only ACTIVE cards can have limit increases."
            )
        account_id = card.get("account_id")
        accounts = self.records("accounts")
        if not account_id or account_id not in accounts:
            return f"Error: Could not find linked account for debit card '{card_id}'."
        account = accounts.peek(account_id)
        if account.get("status") != "OPEN":
            return (
                f"Error: The linked account '{account_id}' is not in good standing. "
                f"Account status: {account.get('status')}."
            )
        opened = account.get("date_opened")
        if opened:
            try:
                age = days_since(opened, TODAY_START)
            except ValueError:
                age = None
            if age is not None and age < 60:
                return f"Error: Account must be at least 60 days old for a temporary limit increase. Account age: {age} days."
        if limit_type == "atm":
            current = card.get("daily_atm_limit")
            field = "daily_atm_limit"
            label = "Daily ATM Withdrawal Limit"
            if current is None:
                level = account.get("level", "").lower()
                if "light green" in level:
                    return (
                        "Error: Light Green Account (teen checking) cards have policy-based limits that cannot be "
                        "modified. The daily ATM withdrawal limit of $150 is fixed by account policy for safety "
                        "reasons. The customer may request the parent/guardian to withdraw cash from their own "
                        "account if needed."
                    )
                current = DEFAULT_ATM_LIMITS.get(level)
                if current is None:
                    return (
                        f"Error: Could not determine the default ATM limit for account type '{account.get('level')}'. "
                        "Please verify the account type."
                    )
        else:
            current = card.get("daily_purchase_limit")
            field = "daily_purchase_limit"
            label = "Daily Purchase Limit"
        if current is None:
            return (
                f"Error: The card does not have a {label.lower()} configured. This may be a restricted account "
                "type where limits are set by account policy and cannot be modified."
            )
        max_allowed = int(current * 1.5)
        if new_limit > max_allowed:
            return (
                f"Error: Requested limit ${new_limit} exceeds the maximum allowed temporary increase. "
                f"Maximum temporary limit is ${max_allowed} (150% of current ${current} limit)."
            )
        if new_limit <= current:
            return f"Error: Requested limit ${new_limit} is not higher than the current limit of ${current}."
        cards[card_id].update(
            {
                field: new_limit,
                f"temporary_{limit_type}_limit_increase": True,
                f"original_{limit_type}_limit": current,
                f"temporary_{limit_type}_limit_expires": TODAY,
            }
        )
        return "\n".join(
            [
                f"Temporary {label} Increase Granted Successfully",
                f"Card ID: {card_id}",
                f"Previous Limit: ${current}",
                f"New Temporary Limit: ${new_limit}",
                f"Increase Amount: ${new_limit - current}",
                "",
                "Important Information:",
                "- This temporary increase expires in 24 hours",
                f"- After expiration, the limit will revert to ${current}",
                "- Only one temporary increase is allowed per 24-hour period",
                "",
                "Note: If the customer is at a third-party (non-Rho-Bank) ATM, that ATM may have its own",
                "per-transaction or daily limits that Rho-Bank cannot override. The customer may need to",
                "use a Rho-Bank ATM or make multiple smaller withdrawals at third-party ATMs.",
            ]
        )
