"""The generated telecom world (Brightwave Mobile): plans, devices, lines, customers, bills,
and the default phone every task starts from.

Shapes follow tau2's telecom ``db.toml``/``user_db.toml`` (lists of records; ids start
with the letter the look-up tools dispatch on: P plan, D device, L line, C customer,
B bill), so the telecom domain's tools run on it unchanged. Today is 2025-02-25. Every
customer has exactly one Draft bill (data refuels are charged to it) and no bill
awaiting payment, so every agent action of a task is deterministic.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


from userbench_env.generate.common import digits
from userbench_env.generate.world_base import SeededWorld

#: Our plans: (name, data GB, monthly price, refuel price per GB).
PLANS: tuple[tuple[str, float, float, float], ...] = (
    ("Lite 3", 3.0, 30.0, 6.0),
    ("Everyday 12", 12.0, 55.0, 3.0),
    ("Max 40", 40.0, 80.0, 1.5),
    ("Household 60", 60.0, 140.0, 2.5),
)
PHONE_MODELS = ("Orbit S2", "Orbit S3 Pro", "Lumen 8", "Lumen 9 Mini", "Kestrel X", "Fable One")


@dataclass
class TelecomWorld(SeededWorld):
    """The agent-side DB under construction plus random sources and id registry."""

    plans: list[dict[str, Any]] = field(default_factory=list)
    devices: list[dict[str, Any]] = field(default_factory=list)
    lines: list[dict[str, Any]] = field(default_factory=list)
    customers: list[dict[str, Any]] = field(default_factory=list)
    bills: list[dict[str, Any]] = field(default_factory=list)

    def add_plans(self) -> None:
        """The plan catalog."""
        for n, (name, gb, price, refuel) in enumerate(PLANS, start=1):
            self.plans.append(
                {"plan_id": f"P{200 + n}", "name": name, "data_limit_gb": gb, "price_per_month": price, "data_refueling_price_per_gb": refuel}
            )

    def plan(self, plan_id: str) -> dict[str, Any]:
        """The plan record ``plan_id``."""
        return next(p for p in self.plans if p["plan_id"] == plan_id)

    def _number(self) -> str:
        return self.new_id(lambda r: f"555-{r.randint(200, 899)}-{digits(r, 4)}")

    def add_customer(self, lines: int) -> dict[str, Any]:
        """A customer with ``lines`` active phone lines (roaming on for some) and three bills."""
        cid = f"C{501 + len(self.customers)}"
        name = self.fake.name()
        line_ids = [self._add_line() for _ in range(lines)]
        customer = {
            "customer_id": cid,
            "full_name": name,
            "date_of_birth": f"{self.rng.randint(1950, 2003)}-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}",
            "email": f"{name.lower().replace(' ', '.').replace('..', '.')}@example.net",
            "phone_number": next(l["phone_number"] for l in self.lines if l["line_id"] == line_ids[0]),
            "address": {
                "street": self.fake.street_address(),
                "city": self.fake.city(),
                "state": self.fake.state_abbr(include_territories=False),
                "zip_code": self.fake.zipcode(),
            },
            "account_status": "Active",
            "payment_methods": [
                {
                    "method_type": self.rng.choice(["Credit Card", "Debit Card", "PayPal"]),
                    "account_number_last_4": digits(self.rng, 4),
                    "expiration_date": f"{self.rng.randint(1, 12):02d}/{self.rng.randint(2026, 2029)}",
                }
            ],
            "line_ids": line_ids,
            "bill_ids": [],
            "created_at": f"2024-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}T{self.rng.randint(8, 18):02d}:{self.rng.choice(['00', '15', '30', '45'])}:00",
            "goodwill_credit_used_this_year": 0.0,
        }
        self.customers.append(customer)
        for month, status in ((12, "Paid"), (1, "Paid"), (2, "Draft")):
            self._add_bill(customer, month, status)
        return customer

    def _add_line(self) -> str:
        did = f"D{301 + len(self.devices)}"
        self.devices.append(
            {
                "device_id": did,
                "device_type": "phone",
                "model": self.rng.choice(PHONE_MODELS),
                "imei": digits(self.rng, 15),
                "is_esim_capable": self.rng.random() < 0.7,
                "activated": True,
                "activation_date": f"2024-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}T10:00:00",
            }
        )
        plan = self.rng.choice(self.plans)
        lid = f"L{401 + len(self.lines)}"
        self.lines.append(
            {
                "line_id": lid,
                "phone_number": self._number(),
                "status": "Active",
                "plan_id": plan["plan_id"],
                "device_id": did,
                "data_used_gb": round(plan["data_limit_gb"] * self.rng.uniform(0.1, 0.7), 1),
                "data_refueling_gb": 0.0,
                "roaming_enabled": self.rng.random() < 0.4,
                "contract_end_date": f"{self.rng.randint(2025, 2027)}-{self.rng.choice(['06-30', '09-30', '12-31'])}",
                "last_plan_change_date": f"2024-{self.rng.randint(1, 12):02d}-{self.rng.randint(1, 28):02d}",
            }
        )
        return lid

    def _add_bill(self, customer: dict[str, Any], month: int, status: str) -> None:
        year = 2024 if month == 12 else 2025
        end = {12: 31, 1: 31, 2: 28}[month]
        bid = f"B{601 + len(self.bills)}"
        items = []
        for lid in customer["line_ids"]:
            line = self.line(lid)
            plan = self.plan(line["plan_id"])
            items.append(
                {"description": f"{plan['name']} - {line['phone_number']}", "amount": plan["price_per_month"], "date": f"{year}-{month:02d}-01", "item_type": "Plan Charge"}
            )
        self.bills.append(
            {
                "bill_id": bid,
                "customer_id": customer["customer_id"],
                "period_start": f"{year}-{month:02d}-01",
                "period_end": f"{year}-{month:02d}-{end}",
                "issue_date": f"{year}-{month:02d}-02",
                "total_due": round(sum(i["amount"] for i in items), 2),
                "due_date": f"{year}-{month:02d}-16",
                "line_items": items,
                "status": status,
            }
        )
        customer["bill_ids"].append(bid)

    def line(self, line_id: str) -> dict[str, Any]:
        """The line record ``line_id``."""
        return next(l for l in self.lines if l["line_id"] == line_id)

    def populate(self, customers: int) -> None:
        """The plan catalog and ``customers`` customers with 1-3 lines each."""
        self.add_plans()
        for _ in range(customers):
            self.add_customer(self.rng.randint(1, 3))

    def document(self) -> dict[str, Any]:
        """The agent DB (``db.toml`` shape)."""
        return {"plans": self.plans, "devices": self.devices, "lines": self.lines, "customers": self.customers, "bills": self.bills}


def phone_defaults() -> dict[str, Any]:
    """The phone every task starts from (``user_db.toml``): healthy, on 5G, data on."""
    return {
        "device": {
            "sim_card_status": "active",
            "sim_card_missing": False,
            "airplane_mode": False,
            "network_signal_strength": "good",
            "network_technology_connected": "5G",
            "network_connection_status": "connected",
            "battery_level": 64,
            "data_enabled": True,
            "roaming_enabled": False,
            "network_mode_preference": "4g_5g_preferred",
            "wifi_enabled": False,
            "wifi_connected": False,
            "wifi_signal_strength": "none",
            "wifi_calling_enabled": False,
            "wifi_calling_mms_over_wifi": False,
            "data_saver_mode": False,
            "vpn_enabled_setting": False,
            "vpn_connected": False,
            "app_statuses": {
                "messaging": {"app_name": "messaging", "permissions": {"sms": True, "storage": True, "phone": True, "network": False}},
                "browser": {"app_name": "browser", "permissions": {"sms": False, "storage": True, "phone": False, "network": True}},
            },
        },
        "surroundings": {},
    }
