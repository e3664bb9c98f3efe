"""Discoverable agent tools for bank accounts, transfers and the special transfer protocols.

Docstrings of discoverable tools are shown to the agent verbatim when it unlocks a tool
(see :mod:`~userbench_env.domains.banking.discovery`): keep their wording and format.
"""
from __future__ import annotations

from typing import Any

from userbench_env.domains.banking import ids
from userbench_env.domains.banking.atm_images import DEPOSIT_IMAGES
from userbench_env.domains.banking.db import TODAY, account_balance, days_since, parse_money
from userbench_env.domains.banking.history import history_answer
from userbench_env.domains.banking.query import format_records, has_records
from userbench_env.domains.banking.toolkit_base import BankToolkit
from userbench_env.domains.toolkit import tool

#: Early-closure fee and window (days since opening) by checking-account level.
CHECKING_EARLY_CLOSURE = {
    "Light Blue Account": (15, 30),
    "Light Green Account": (15, 30),
    "Green Fee-Free Account": (15, 30),
    "Blue Account": (25, 60),
    "Green Account": (25, 60),
    "Evergreen Account": (50, 90),
    "Bluest Account": (100, 180),
}
#: Early-closure fee and window (days since opening) by savings-account level.
SAVINGS_EARLY_CLOSURE = {
    "Bronze Account": (20, 60),
    "Silver Account": (35, 90),
    "Silver Plus Account": (35, 90),
    "Gold Account": (75, 180),
    "Gold Plus Account": (75, 180),
    "Gold Years Account": (75, 180),
    "Platinum Account": (150, 270),
    "Platinum Plus Account": (150, 270),
    "Diamond Elite Account": (150, 270),
}
ACCOUNT_TYPES = ["checking", "savings", "business_checking", "business_savings"]
NOT_ELIGIBLE = "Error: Account eligibility requirements not met."


def _kind(account: dict[str, Any]) -> Any:
    return account.get("account_type", account.get("class", ""))


def _is_open(account: dict[str, Any]) -> bool:
    return account.get("status", "") in ["OPEN", "ACTIVE"]


def _age_days(account: dict[str, Any]) -> int:
    try:
        return days_since(account.get("date_opened", ""))
    except ValueError:
        return 0


def _script(text: str, tool_name: str) -> str:
    return f"{text}\n\nExecuted: {tool_name}\nArguments: (no arguments)"


def _credit_answer(transaction_id: str, account_id: str, credit_type: str, amount: float, before: float, after: float) -> str:
    return (
        "\nCredit applied successfully!\n"
        f"  - Transaction ID: {transaction_id}\n"
        f"  - Account: {account_id}\n"
        f"  - Credit Type: {credit_type}\n"
        f"  - Amount: ${amount:.2f}\n"
        f"  - Previous Balance: ${before:.2f}\n"
        f"  - New Balance: ${after:.2f}"
    )


class BankAccountTools(BankToolkit):
    """Bank-account discoverable tools of the agent (a mixin of ``KnowledgeTools``)."""

    # -- scripted tools ------------------------------------------------------------
    @tool("write", discoverable=True)
    def example_agent_tool_0000(self) -> str:
        """An example agent discoverable tool placeholder.

        Returns:
            Example tool executed successfully.
        """
        return "Example tool executed successfully."

    @tool("generic", discoverable=True)
    def initial_transfer_to_human_agent_0218(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Initial Transfer Initiated, Inform the user that the lines are busy.
        """
        return _script(
            "Initial Transfer Initiated, Inform the user that the lines are busy.",
            "initial_transfer_to_human_agent_0218",
        )

    @tool("generic", discoverable=True)
    def initial_transfer_to_human_agent_1822(self) -> str:
        """Initiate a transfer request to a human agent. This is used as part of a special transfer protocol for certain situations.

        Returns:
            Do not explicitly tell the user, but the conversation has not reached the necessary stages to transfer to a real human yet. Try to help them by asking them about basic scenarios that could fulfill their issue.
        """
        return _script(
            "Do not explicitly tell the user, but the conversation has not reached the necessary stages to "
            "transfer to a real human yet. Try to help them by asking them about basic scenarios that could "
            "fulfill their issue.",
            "initial_transfer_to_human_agent_1822",
        )

    @tool("generic", discoverable=True)
    def emergency_credit_bureau_incident_transfer_1114(self) -> str:
        """Emergency escalation tool for the 11/14 credit bureau reporting incident. Logs the case for priority handling by the credit bureau correction team.

        Returns:
            Emergency escalation logged. Case has been flagged for priority handling by the credit bureau correction team. Proceed immediately with transfer_to_human_agents to complete the transfer.
        """
        return _script(
            "Emergency escalation logged. Case has been flagged for priority handling by the credit bureau "
            "correction team. Proceed immediately with transfer_to_human_agents to complete the transfer.",
            "emergency_credit_bureau_incident_transfer_1114",
        )

    # -- reads -----------------------------------------------------------------------
    @tool("read", discoverable=True)
    def get_atm_deposit_images_8473(self, transaction_id: str) -> str:
        """Retrieve ATM deposit envelope/check images for a specific ATM deposit transaction.

        Args:
            transaction_id (string): The transaction ID of the ATM deposit to retrieve images for

        Returns:
            ATM deposit images retrieved successfully.
        """
        if not transaction_id:
            return "Error: Missing required parameter: transaction_id"
        history = self.records("bank_account_transaction_history")
        if transaction_id not in history:
            return f"Error: Transaction '{transaction_id}' not found."
        txn = history.peek(transaction_id)
        if txn.get("type") != "atm_deposit":
            return (
                f"Error: Transaction '{transaction_id}' is not an ATM deposit. "
                "This tool only works for ATM deposit transactions."
            )
        description = txn.get("description", "")
        if "RHO-BANK" not in description.upper() and "RHOBANK" not in description.upper():
            return (
                f"Error: Transaction '{transaction_id}' is from a third-party ATM. Deposit images are only "
                "available for Rho-Bank ATM deposits. For third-party ATM disputes, a chargeback request must "
                "be submitted to the ATM network."
            )
        header = "ATM Deposit Image Retrieval Results\n=====================================\n"
        if transaction_id in DEPOSIT_IMAGES:
            atm, envelope, note = DEPOSIT_IMAGES[transaction_id]
            return (
                f"{header}Transaction ID: {transaction_id}\nATM: {atm}\nDeposit Date: {txn.get('date', 'Unknown')}\n\n"
                f"{envelope}\n\n--- VERIFICATION NOTES ---\n{note}\n"
            )
        return (
            f"{header}Transaction ID: {transaction_id}\nATM: {description}\n"
            f"Deposit Date: {txn.get('date', 'Unknown')}\nAmount Recorded: ${abs(txn.get('amount', 0)):.2f}\n\n"
            "--- IMAGE STATUS ---\nStatus: IMAGES NOT AVAILABLE\n"
            "Reason: Deposit images for this transaction have either expired (older than 90 days) or were not "
            "captured by the ATM system.\n\n"
            "For deposits without available images, the dispute will proceed based on customer statement and ATM "
            "journal records only. Investigation timeline may be extended.\n"
        )

    @tool("read", discoverable=True)
    def get_all_user_accounts_by_user_id_3847(self, user_id: str) -> str:
        """Retrieve all accounts (checking, savings, credit cards) for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system

        Returns:
            User accounts retrieved successfully.
        """
        if not user_id:
            return "Error: Missing required parameter: user_id"
        bank = self.query("accounts", f'{{"user_id": "{user_id}"}}')
        cards = self.query("credit_card_accounts", f'{{"user_id": "{user_id}"}}')
        lines = [
            "User accounts retrieved successfully.",
            "",
            "Executed: get_all_user_accounts_by_user_id_3847",
            f"Accounts for user {user_id}:",
            "",
            "Bank Accounts:",
            bank if has_records(bank) else "  No bank accounts found.",
            "\nCredit Card Accounts:",
            cards if has_records(cards) else "  No credit card accounts found.",
        ]
        return "\n".join(lines)

    @tool("read", discoverable=True)
    def get_bank_account_transactions_9173(self, account_id: str) -> str:
        """Retrieve the transaction history for a bank account.

        Transactions are returned in reverse chronological order (most recent
        first).

        Args:
            account_id (string): The bank account ID to retrieve transactions for

        Returns:
            Bank account transactions retrieved successfully.
        """
        if not account_id:
            return "Error: Missing required parameter: account_id"
        if account_id not in self.records("accounts"):
            return f"Error: Account '{account_id}' not found."
        newest_first = [
            (key, txn)
            for key, txn in self.records("bank_account_transaction_history").items_ro()
            if txn.get("account_id") == account_id
        ]
        newest_first.sort(key=lambda pair: pair[1].get("date") or "", reverse=True)
        return history_answer(
            "Bank account transactions retrieved successfully.",
            "get_bank_account_transactions_9173",
            f"Transactions for account {account_id}:",
            format_records("bank_account_transaction_history", newest_first),
            "No transactions found for this account.",
        )

    # -- opening and closing ---------------------------------------------------------
    def _opening_blocked(self, user_id: str, account_type: str) -> bool:
        mine = [a for a in self.records("accounts").values_ro() if a.get("user_id") == user_id]
        if account_type == "savings":
            return not any(
                _kind(a) in ["checking", "personal_checking"] and _is_open(a) and _age_days(a) >= 14 for a in mine
            )
        if account_type == "business_checking":
            if any(a.get("status") == "CLOSED" for a in mine):
                return True
            return not any(_kind(a) in ["checking", "personal_checking"] and _is_open(a) for a in mine)
        if account_type == "business_savings":
            if any(parse_money(a.get("current_holdings", a.get("balance", 0))) < 0 for a in mine):
                return True
            return not any(_kind(a) == "business_checking" and _is_open(a) and _age_days(a) >= 30 for a in mine)
        return False

    @tool("write", discoverable=True)
    def open_bank_account_4821(self, user_id: str, account_type: str, account_class: str) -> str:
        """Open a new bank account for a customer.

        Args:
            user_id (string): The customer's unique identifier in the system
            account_type (string): Type of account to open. Must be one of: 'checking' (personal checking), 'savings' (personal savings), 'business_checking', 'business_savings'
            account_class (string): The full official account class name

        Returns:
            Bank account opened successfully.
        """
        if not user_id or not account_type or not account_class:
            return "Error: Missing required parameters."
        if account_type not in ACCOUNT_TYPES:
            return f"Error: Invalid account_type. Must be one of: {ACCOUNT_TYPES}"
        if self._opening_blocked(user_id, account_type):
            return NOT_ELIGIBLE
        account_id = ids.digest_id(f"account:{user_id}:{account_type}:{account_class}")
        record = {
            "account_id": account_id,
            "user_id": user_id,
            "account_type": account_type,
            "account_class": account_class,
            "current_holdings": "0.00",
            "status": "OPEN",
            "date_opened": TODAY,
        }
        if not self.add("accounts", account_id, record):
            return f"Failed to open account: Account ID '{account_id}' may already exist."
        return (
            "Bank account opened successfully!\n"
            f"  - Account ID: {account_id}\n"
            f"  - User ID: {user_id}\n"
            f"  - Account Type: {account_type}\n"
            f"  - Account Class: {account_class}\n"
            "  - Status: OPEN\n"
            "  - Initial Balance: $0.00\n"
            f"  - Date Opened: {TODAY}"
        )

    @tool("write", discoverable=True)
    def close_bank_account_7392(
        self, account_id: str, reason: str = "Customer requested closure", waive_early_closure_fee: bool = False
    ) -> str:
        """Close a customer's bank account (checking or savings).

        Args:
            account_id (string): The ID of the bank account to close
            reason (string, optional): The reason for closing the account
            waive_early_closure_fee (boolean, optional): Whether to waive early closure fees

        Returns:
            Bank account closed successfully.
        """
        if not account_id:
            return "Error: Missing required parameter (account_id)."
        accounts = self.records("accounts")
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found."
        account = accounts.peek(account_id)
        if account.get("status") == "CLOSED":
            return f"Error: Account '{account_id}' is already closed."
        balance = account_balance(account)
        fee = 0.0
        if not waive_early_closure_fee:
            level = account.get("level", "")
            table = {"checking": CHECKING_EARLY_CLOSURE, "savings": SAVINGS_EARLY_CLOSURE}.get(account.get("class", ""), {})
            rule = table.get(level)
            opened = account.get("date_opened", "")
            if rule and opened:
                try:
                    young = days_since(opened) < rule[1]
                except ValueError:
                    young = False
                if young:
                    if balance < rule[0]:
                        return "Error: Account unable to be closed."
                    fee = rule[0]
        if balance - fee != 0:
            return f"Error: Account balance must be $0.00 before closing. Current balance: ${balance:.2f}"
        record = accounts[account_id]
        record.update(
            {
                "status": "CLOSED",
                "date_closed": TODAY,
                "closure_reason": reason,
                "early_closure_fee_waived": waive_early_closure_fee,
            }
        )
        return (
            "Bank account closed successfully!\n"
            f"  - Account ID: {account_id}\n"
            f"  - Account Type: {record.get('account_type', 'N/A')}\n"
            f"  - Account Class: {record.get('account_class', 'N/A')}\n"
            "  - Status: CLOSED\n"
            f"  - Date Closed: {TODAY}\n"
            f"  - Reason: {reason}\n"
            f"  - Early Closure Fee Waived: {'Yes' if waive_early_closure_fee else 'No'}"
        )

    # -- money movement ----------------------------------------------------------------
    @tool("write", discoverable=True)
    def transfer_funds_between_bank_accounts_7291(
        self, source_account_id: str, destination_account_id: str, amount: float
    ) -> str:
        """Transfer funds from one bank account to another.

        Args:
            source_account_id (string): The account ID to transfer funds from
            destination_account_id (string): The account ID to transfer funds to
            amount (number): The amount to transfer in USD

        Returns:
            Funds transferred successfully.
        """
        if not source_account_id or not destination_account_id or amount is None:
            return "Error: Missing required parameters (source_account_id, destination_account_id, amount)."
        try:
            amount = float(amount)
        except (ValueError, TypeError):
            return f"Error: Invalid amount '{amount}'. Must be a number."
        if amount <= 0:
            return "Error: Transfer amount must be positive."
        if source_account_id == destination_account_id:
            return "Error: Source and destination accounts cannot be the same."
        accounts = self.records("accounts")
        if source_account_id not in accounts:
            return f"Error: Source account '{source_account_id}' not found."
        if destination_account_id not in accounts:
            return f"Error: Destination account '{destination_account_id}' not found."
        source = accounts.peek(source_account_id)
        if source.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Source account '{source_account_id}' is not active."
        destination = accounts.peek(destination_account_id)
        if destination.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Destination account '{destination_account_id}' is not active."
        source_balance = account_balance(source)
        if source_balance < amount:
            return (
                f"Error: Insufficient funds. Source account balance is ${source_balance:.2f}, "
                f"but transfer amount is ${amount:.2f}."
            )
        new_source = source_balance - amount
        new_destination = account_balance(destination) + amount
        accounts[source_account_id]["current_holdings"] = f"${new_source:.2f}"
        accounts[destination_account_id]["current_holdings"] = f"${new_destination:.2f}"
        return (
            "Transfer completed successfully!\n"
            f"  - Amount: ${amount:.2f}\n"
            f"  - From: {source_account_id} (new balance: ${new_source:.2f})\n"
            f"  - To: {destination_account_id} (new balance: ${new_destination:.2f})"
        )

    def _credit_account(
        self, account_id: str, amount: Any, credit_type: str, kinds: tuple[str, ...], wrong_kind: str, types: dict[str, str]
    ) -> tuple[str | None, tuple[float, float, float] | None]:
        """Validate and apply a credit; (error, None) or (None, (amount, before, after))."""
        if not account_id or amount is None or not credit_type:
            return "Error: Missing required parameters.", None
        try:
            amount = float(amount)
        except (TypeError, ValueError):
            return "Error: Invalid credit amount. Must be a number.", None
        if amount <= 0:
            return "Error: Credit amount must be positive.", None
        if credit_type not in types:
            return f"Error: Invalid credit_type. Must be one of: {list(types)}", None
        accounts = self.records("accounts")
        if account_id not in accounts:
            return f"Error: Account '{account_id}' not found.", None
        account = accounts.peek(account_id)
        if account.get("class", "").lower() not in kinds:
            return wrong_kind, None
        if account.get("status") not in ("ACTIVE", "OPEN"):
            return f"Error: Account '{account_id}' is not active.", None
        before = account_balance(account)
        return None, (amount, before, before + amount)

    def _post_credit(self, account_id: str, seed: str, amount: float, credit_type: str, description: str) -> str:
        txn = f"txn_{ids.digest_id(f'{seed}:{account_id}:{credit_type}:{amount}:{TODAY}')}"
        self.records("bank_account_transaction_history")[txn] = {
            "transaction_id": txn,
            "account_id": account_id,
            "date": TODAY,
            "description": description,
            "amount": amount,
            "type": credit_type,
            "status": "posted",
        }
        return txn

    @tool("write", discoverable=True)
    def apply_checking_account_credit_5829(self, account_id: str, amount: float, credit_type: str) -> str:
        """Apply a credit to a customer's checking account.

        Args:
            account_id (string): The checking account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'rebate_credit' for missing rebates, 'fee_refund' for incorrect fee charges

        Returns:
            Credit applied to checking account successfully.
        """
        types = {"rebate_credit": "REBATE CREDIT - CUSTOMER SERVICE", "fee_refund": "FEE REFUND - CUSTOMER SERVICE"}
        error, figures = self._credit_account(
            account_id,
            amount,
            credit_type,
            ("checking",),
            f"Error: Account '{account_id}' is not a checking account. Credits can only be applied to checking accounts.",
            types,
        )
        if error:
            return error
        amount, before, after = figures
        self.records("accounts")[account_id]["current_holdings"] = f"${after:.2f}"
        txn = self._post_credit(account_id, "checking_credit", amount, credit_type, types[credit_type])
        return _credit_answer(txn, account_id, credit_type, amount, before, after)

    @tool("write", discoverable=True)
    def apply_savings_account_credit_6831(self, account_id: str, amount: float, credit_type: str) -> str:
        """Apply a credit to a customer's savings account for interest corrections, fee refunds, or goodwill adjustments.

        Args:
            account_id (string): The savings account ID to credit
            amount (number): The positive dollar amount to credit (must be greater than 0)
            credit_type (string): The type of credit: 'interest_correction' for APY/interest calculation errors, 'fee_refund' for incorrect fee charges, 'goodwill_credit' for customer service gestures

        Returns:
            Credit applied to savings account successfully.
        """
        types = {
            "interest_correction": "INTEREST CORRECTION - CUSTOMER SERVICE",
            "fee_refund": "FEE REFUND - CUSTOMER SERVICE",
            "goodwill_credit": "GOODWILL CREDIT - CUSTOMER SERVICE",
        }
        error, figures = self._credit_account(
            account_id,
            amount,
            credit_type,
            ("saving", "savings"),
            f"Error: Account '{account_id}' is not a savings account. This tool only applies to savings accounts.",
            types,
        )
        if error:
            return error
        amount, before, after = figures
        self.records("accounts")[account_id]["current_holdings"] = f"{after:.2f}"
        txn = self._post_credit(account_id, "savings_credit", amount, credit_type, types[credit_type])
        return _credit_answer(txn, account_id, credit_type, amount, before, after)

    @tool("write", discoverable=True)
    def submit_interest_discrepancy_report_7294(
        self, account_id: str, user_id: str, expected_apy: float, actual_apy: float, amount_difference: float
    ) -> str:
        """Submit a report for interest calculation discrepancies to the backend team for investigation. Use this when the interest credited to a customer's account does not match expected APY calculations.

        Args:
            account_id (string): The savings account ID with the discrepancy
            user_id (string): The customer's unique identifier
            expected_apy (number): The APY percentage the customer should have received (e.g., 2.775 for 2.775%)
            actual_apy (number): The APY percentage that was actually applied (e.g., 2.5 for 2.5%)
            amount_difference (number): The dollar amount difference between expected and actual interest credited

        Returns:
            Interest discrepancy report submitted successfully. Backend team will investigate.
        """
        if not account_id or not user_id or expected_apy is None or actual_apy is None or amount_difference is None:
            return "Error: Missing required parameters."
        try:
            expected_apy = float(expected_apy)
            actual_apy = float(actual_apy)
            amount_difference = float(amount_difference)
        except (ValueError, TypeError):
            return "Error: expected_apy, actual_apy, and amount_difference must be numbers."
        account = self.records("accounts").peek(account_id)
        if account is None:
            return f"Error: Account '{account_id}' not found."
        user = self.records("users").peek(user_id)
        if user is None:
            return f"Error: User '{user_id}' not found."
        report = f"IDR_{ids.digest_id(f'interest_report:{account_id}:{user_id}:{expected_apy}:{actual_apy}:{TODAY}')}"
        level = account.get("level", "Unknown")
        # Upstream quirk kept for hash parity: tau2 writes this report into a table its DB
        # does not have, so nothing is stored although the answer reports success.
        self.add(
            "interest_discrepancy_reports",
            report,
            {
                "report_id": report,
                "account_id": account_id,
                "user_id": user_id,
                "account_level": level,
                "expected_apy": expected_apy,
                "actual_apy": actual_apy,
                "apy_difference": round(expected_apy - actual_apy, 4),
                "amount_difference": amount_difference,
                "submitted_date": TODAY,
                "status": "PENDING_REVIEW",
            },
        )
        return (
            "\nInterest Discrepancy Report Submitted Successfully!\n"
            f"  - Report ID: {report}\n"
            f"  - Account: {account_id} ({level})\n"
            f"  - Customer: {user.get('name', 'Unknown')}\n"
            f"  - Expected APY: {expected_apy}%\n"
            f"  - Actual APY: {actual_apy}%\n"
            f"  - APY Difference: {round(expected_apy - actual_apy, 4)}%\n"
            f"  - Amount Difference: ${amount_difference:.2f}\n"
            "  - Status: PENDING_REVIEW\n"
            "\nThe backend team will investigate this discrepancy and ensure "
            "correct APY calculations are applied going forward."
        )
