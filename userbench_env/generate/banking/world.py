"""The generated banking world (Harbor Point Bank): customers, accounts, cards, history.

Shapes follow tau2's ``banking_knowledge`` transactional DB (tables of free-form records
``{"data": {...}, "notes": ""}``, money as formatted strings, dates as ``MM/DD/YYYY``),
so the banking domain's tools run on it unchanged. The bank's clock is 11/14/2025.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any


from userbench_env.generate.common import digits
from userbench_env.generate.world_base import SeededWorld

TODAY = date(2025, 11, 14)
VERIFIED_AT = "2025-11-14 03:40:00 EST"
CHECKING_LEVELS = ("Essential Checking", "Plus Checking", "Premier Checking")
SAVINGS_LEVELS = ("Starter Savings", "High Yield Savings")
CARD_TYPES = ("Harbor Everyday Card", "Harbor Cash Back Card", "Harbor Voyager Card")
CATEGORIES = ("Groceries", "Dining", "Travel", "Gas", "Shopping", "Utilities", "Entertainment")


def mdy(day: date) -> str:
    """``MM/DD/YYYY`` as the bank stores dates."""
    return day.strftime("%m/%d/%Y")


def money(amount: float) -> str:
    """``$1234.56`` as the bank stores balances."""
    return f"${amount:.2f}"


@dataclass
class BankWorld(SeededWorld):
    """The DB under construction plus the random sources and id registry."""

    tables: dict[str, dict[str, Any]] = field(default_factory=dict)

    def table(self, name: str) -> dict[str, Any]:
        """The record map of table ``name`` (created empty on first use)."""
        return self.tables.setdefault(name, {})

    def _hex(self, n: int) -> str:
        return self.new_id(lambda r: "".join(r.choice("0123456789abcdef") for _ in range(n)))

    def days_ago(self, low: int, high: int) -> date:
        """A date between ``high`` and ``low`` days before today."""
        return TODAY - timedelta(days=self.rng.randint(low, high))

    # -- customers ---------------------------------------------------------------------
    def add_user(self, credit_card: bool | None = None) -> dict[str, Any]:
        """A customer with a checking account (+ debit card), often savings, and a credit card
        at random (or as ``credit_card`` says)."""
        first, last = self.fake.first_name(), self.fake.last_name()
        uid = self._hex(10)
        born = date(self.rng.randint(1955, 2002), self.rng.randint(1, 12), self.rng.randint(1, 28))
        user = {
            "name": f"{first} {last}",
            "user_id": uid,
            "address": f"{self.fake.street_address()}, {self.fake.city()}, {self.fake.state_abbr(include_territories=False)} {self.fake.zipcode()}",
            "email": f"{first.lower()}.{last.lower()}{digits(self.rng, 2)}@example.com",
            "phone_number": f"{digits(self.rng, 3)}-555-{self.rng.randint(0, 9999):04d}",
            "date_of_birth": mdy(born),
        }
        self.table("users")[uid] = user
        checking = self.add_account(user, "checking", opened=self.days_ago(60, 2000))
        self.add_debit_card(user, checking)
        if self.rng.random() < 0.6:
            self.add_account(user, "savings", opened=self.days_ago(30, 1500))
        if credit_card if credit_card is not None else self.rng.random() < 0.7:
            self.add_credit_card(user)
        return user

    def add_account(self, user: dict[str, Any], kind: str, opened: date, balance: float | None = None) -> dict[str, Any]:
        """An open checking or savings account of ``user``."""
        prefix = "chk" if kind == "checking" else "sav"
        aid = self.new_id(lambda r: f"{prefix}_{user['user_id'][:6]}{digits(r, 3)}")
        levels = CHECKING_LEVELS if kind == "checking" else SAVINGS_LEVELS
        amount = balance if balance is not None else round(self.rng.uniform(150, 9000), 2)
        account = {
            "account_id": aid,
            "user_id": user["user_id"],
            "class": kind,
            "level": self.rng.choice(levels),
            "date_opened": mdy(opened),
            "status": "OPEN",
            "current_holdings": money(amount),
        }
        self.table("accounts")[aid] = account
        for _ in range(self.rng.randint(1, 3)):
            self.add_bank_transaction(account)
        return account

    def add_bank_transaction(self, account: dict[str, Any]) -> None:
        """One posted transaction on a bank account."""
        kind = self.rng.choice(["deposit", "card_purchase", "transfer", "atm_withdrawal"])
        amount = round(self.rng.uniform(10, 900), 2) * (1 if kind == "deposit" else -1)
        what = {
            "deposit": f"PAYROLL DEPOSIT - {self.fake.company().upper()}",
            "card_purchase": f"DEBIT CARD PURCHASE - {self.fake.company().upper()}",
            "transfer": "ONLINE TRANSFER",
            "atm_withdrawal": f"ATM WITHDRAWAL - {self.fake.city().upper()}",
        }[kind]
        tid = f"btxn_{self._hex(12)}"
        self.table("bank_account_transaction_history")[tid] = {
            "transaction_id": tid,
            "account_id": account["account_id"],
            "date": mdy(self.days_ago(1, 45)),
            "description": what,
            "amount": amount,
            "type": kind,
            "status": "posted",
        }

    def add_debit_card(self, user: dict[str, Any], account: dict[str, Any], status: str = "ACTIVE") -> dict[str, Any]:
        """A debit card on ``account``."""
        issued = self.days_ago(20, 900)
        cid = self.new_id(lambda r: f"dbc_{user['user_id'][:6]}{digits(r, 3)}")
        card = {
            "card_id": cid,
            "account_id": account["account_id"],
            "user_id": user["user_id"],
            "cardholder_name": user["name"].upper(),
            "last_4_digits": digits(self.rng, 4),
            "cvv": digits(self.rng, 3),
            "status": status,
            "issue_date": mdy(issued),
            "expiration_date": mdy(date(issued.year + 4, issued.month, 28)),
            "issue_reason": "new_account",
        }
        self.table("debit_cards")[cid] = card
        return card

    def add_credit_card(self, user: dict[str, Any], balance: float | None = None, opened: date | None = None) -> dict[str, Any]:
        """A credit card account of ``user`` with a few purchases."""
        card_type = self.rng.choice(CARD_TYPES)
        cid = self.new_id(lambda r: f"cc_{user['user_id'][:6]}{digits(r, 3)}")
        owed = balance if balance is not None else round(self.rng.uniform(50, 2500), 2)
        record = {
            "account_id": cid,
            "user_id": user["user_id"],
            "card_type": card_type,
            "status": "ACTIVE",
            "date_of_account_open": mdy(opened or self.days_ago(200, 2500)),
            "current_balance": money(owed),
            "credit_limit": money(self.rng.choice([2000, 3500, 5000, 8000, 12000])),
            "reward_points": f"{self.rng.randint(0, 9000)} points",
        }
        self.table("credit_card_accounts")[cid] = record
        for _ in range(self.rng.randint(1, 3)):
            amount = round(self.rng.uniform(5, 400), 2)
            tid = f"txn_{self._hex(12)}"
            self.table("credit_card_transaction_history")[tid] = {
                "transaction_id": tid,
                "user_id": user["user_id"],
                "credit_card_type": card_type,
                "merchant_name": self.fake.company(),
                "transaction_amount": money(amount),
                "transaction_date": mdy(self.days_ago(1, 60)),
                "category": self.rng.choice(CATEGORIES),
                "status": "COMPLETED",
                "rewards_earned": f"{int(amount * 2)} points",
            }
        return record

    def add_referrals(self, user: dict[str, Any], count: int) -> list[dict[str, Any]]:
        """``count`` referrals made by ``user``."""
        made = []
        for _ in range(count):
            rid = self._hex(16)
            record = {
                "referral_id": rid,
                "referrer_id": user["user_id"],
                "referred_account_type": self.rng.choice(CARD_TYPES),
                "referral_status": self.rng.choice(["COMPLETE", "NO_PROGRESS"]),
                "date": mdy(self.days_ago(5, 200)),
            }
            self.table("referrals")[rid] = record
            made.append(record)
        return made

    def owned(self, table: str, user: dict[str, Any], **match: Any) -> list[dict[str, Any]]:
        """Records of ``table`` belonging to ``user`` and matching every ``field=value``."""
        return [
            r for r in self.table(table).values()
            if r.get("user_id") == user["user_id"] and all(r.get(k) == v for k, v in match.items())
        ]

    def populate(self, users: int) -> None:
        """Background customers."""
        for _ in range(users):
            self.add_user()

    def document(self) -> dict[str, Any]:
        """The DB document: every table as ``{"data": records, "notes": ""}``."""
        return {name: {"data": records, "notes": ""} for name, records in self.tables.items()}
