"""The generated retail world (Larkspur Goods): a product catalog, customers, orders.

Shapes follow tau2's retail DB (products with variants keyed by item id, users with
payment methods, orders keyed by ``#W`` + 8 digits with items, fulfillments and payment
history), so the retail domain's tools run on it unchanged. Orders exist in every status
the tools know.
"""
from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any


from userbench_env.generate.common import digits
from userbench_env.generate.world_base import SeededWorld

#: Our catalog: product name -> option name -> values, and a base price range.
CATALOG: dict[str, tuple[dict[str, list[str]], tuple[int, int]]] = {
    "Trail Running Shoes": ({"size": ["8", "9", "10", "11"], "color": ["slate", "orange", "forest green"]}, (70, 140)),
    "Desk Lamp": ({"finish": ["brass", "matte black", "white"], "bulb": ["LED", "halogen"]}, (25, 90)),
    "Ceramic Mug Set": ({"pieces": ["2", "4", "6"], "glaze": ["speckled", "glossy teal", "charcoal"]}, (18, 60)),
    "Yoga Mat": ({"thickness": ["4mm", "6mm", "8mm"], "color": ["lilac", "sage", "black"]}, (20, 75)),
    "Bluetooth Speaker": ({"color": ["red", "navy", "sand"], "battery": ["10h", "20h"]}, (35, 160)),
    "Hiking Backpack": ({"capacity": ["20L", "35L", "50L"], "color": ["olive", "grey", "rust"]}, (45, 190)),
    "Wool Scarf": ({"pattern": ["plaid", "herringbone", "solid"], "color": ["cream", "burgundy", "navy"]}, (22, 70)),
    "Coffee Grinder": ({"type": ["burr", "blade"], "color": ["steel", "black"]}, (30, 210)),
    "Cutting Board": ({"wood": ["walnut", "maple", "bamboo"], "size": ["small", "large"]}, (20, 95)),
    "Rain Jacket": ({"size": ["S", "M", "L", "XL"], "color": ["yellow", "teal", "black"]}, (60, 180)),
    "Phone Case": ({"model": ["Nova 5", "Nova 6", "Pixelite 3"], "style": ["clear", "leather", "rugged"]}, (12, 45)),
    "Cast Iron Skillet": ({"diameter": ["8 inch", "10 inch", "12 inch"], "handle": ["standard", "dual"]}, (25, 85)),
    "Noise-Cancelling Headphones": ({"color": ["black", "silver", "midnight blue"], "fit": ["over-ear", "on-ear"]}, (80, 330)),
    "Throw Blanket": ({"material": ["fleece", "cotton knit", "wool blend"], "color": ["mustard", "grey", "ivory"]}, (28, 110)),
    "Water Filter Pitcher": ({"capacity": ["6 cup", "10 cup"], "color": ["clear", "blue"]}, (19, 55)),
}


@dataclass
class RetailWorld(SeededWorld):
    """The DB under construction plus the random sources and id registry."""

    products: dict[str, dict[str, Any]] = field(default_factory=dict)
    users: dict[str, dict[str, Any]] = field(default_factory=dict)
    orders: dict[str, dict[str, Any]] = field(default_factory=dict)

    # -- catalog ------------------------------------------------------------------------
    def add_catalog(self) -> None:
        """Every catalog product with a sample of its option combinations as variants."""
        for name, (options, (low, high)) in CATALOG.items():
            pid = self.new_id(lambda r: digits(r, 10))
            combos = list(itertools.product(*options.values()))
            chosen = sorted(self.rng.sample(range(len(combos)), min(len(combos), self.rng.randint(4, 7))))
            base = self.rng.uniform(low, high)
            variants = {}
            for index in chosen:
                iid = self.new_id(lambda r: digits(r, 10))
                variants[iid] = {
                    "item_id": iid,
                    "options": dict(zip(options, combos[index], strict=True)),
                    "available": self.rng.random() < 0.8,
                    "price": round(base * self.rng.uniform(0.85, 1.2), 2),
                }
            self.products[pid] = {"name": name, "product_id": pid, "variants": variants}

    def variants(self, product_id: str, available: bool | None = None) -> list[dict[str, Any]]:
        """Variants of a product (optionally only (un)available ones), in DB order."""
        return [v for v in self.products[product_id]["variants"].values() if available is None or v["available"] == available]

    def line(self, product_id: str, variant: dict[str, Any]) -> dict[str, Any]:
        """An order line for ``variant`` of ``product_id`` at its current price."""
        return {
            "name": self.products[product_id]["name"],
            "product_id": product_id,
            "item_id": variant["item_id"],
            "price": variant["price"],
            "options": dict(variant["options"]),
        }

    # -- users ----------------------------------------------------------------------------
    def address(self) -> dict[str, Any]:
        """A US address in the domain's field order."""
        return {
            "address1": self.fake.street_address(),
            "address2": self.fake.secondary_address() if self.rng.random() < 0.5 else "",
            "city": self.fake.city(),
            "country": "USA",
            "state": self.fake.state_abbr(include_territories=False),
            "zip": self.fake.zipcode(),
        }

    def add_user(self, gift_card: bool | None = None, paypal: bool | None = None) -> dict[str, Any]:
        """A customer with a credit card and, at random or as asked, a gift card and PayPal."""
        first, last = self.fake.first_name(), self.fake.last_name()
        uid = self.new_id(lambda r: f"{first.lower()}_{last.lower()}_{digits(r, 4)}")
        methods: dict[str, dict[str, Any]] = {}
        pid = self.new_id(lambda r: f"credit_card_{digits(r, 7)}")
        methods[pid] = {"source": "credit_card", "id": pid, "brand": self.rng.choice(["visa", "mastercard", "amex"]), "last_four": digits(self.rng, 4)}
        if gift_card if gift_card is not None else self.rng.random() < 0.5:
            pid = self.new_id(lambda r: f"gift_card_{digits(r, 7)}")
            methods[pid] = {"source": "gift_card", "id": pid, "balance": float(self.rng.randint(5, 400))}
        if paypal if paypal is not None else self.rng.random() < 0.4:
            pid = self.new_id(lambda r: f"paypal_{digits(r, 7)}")
            methods[pid] = {"source": "paypal", "id": pid}
        user = {
            "user_id": uid,
            "name": {"first_name": first, "last_name": last},
            "address": self.address(),
            "email": f"{first.lower()}.{last.lower()}{digits(self.rng, 3)}@example.org",
            "payment_methods": methods,
            "orders": [],
        }
        self.users[uid] = user
        return user

    # -- orders ---------------------------------------------------------------------------
    def pick_lines(self, count: int) -> list[dict[str, Any]]:
        """``count`` order lines of distinct products."""
        lines = []
        for pid in self.rng.sample(list(self.products), count):
            lines.append(self.line(pid, self.rng.choice(self.variants(pid))))
        return lines

    def add_order(self, user: dict[str, Any], status: str, lines: list[dict[str, Any]] | None = None, method_id: str | None = None) -> dict[str, Any]:
        """An order of ``user`` in ``status`` paid with one method (refunded if cancelled)."""
        lines = lines if lines is not None else self.pick_lines(self.rng.randint(1, 4))
        method_id = method_id or self.rng.choice([m for m, v in user["payment_methods"].items() if v["source"] != "gift_card"])
        total = round(sum(item["price"] for item in lines), 2)
        oid = self.new_id(lambda r: f"#W{digits(r, 8)}")
        history = [{"transaction_type": "payment", "amount": total, "payment_method_id": method_id}]
        fulfillments = []
        if status in ("processed", "delivered", "exchange requested", "return requested"):
            fulfillments = [{"tracking_id": [digits(self.rng, 12)], "item_ids": [item["item_id"] for item in lines]}]
        order: dict[str, Any] = {
            "order_id": oid,
            "user_id": user["user_id"],
            "address": dict(user["address"]),
            "items": lines,
            "status": status,
            "fulfillments": fulfillments,
            "payment_history": history,
        }
        if status == "cancelled":
            history.append({"transaction_type": "refund", "amount": total, "payment_method_id": method_id})
            order["cancel_reason"] = self.rng.choice(["no longer needed", "ordered by mistake"])
        if status == "return requested":
            order["return_items"] = sorted([lines[0]["item_id"]])
            order["return_payment_method_id"] = method_id
        if status == "exchange requested":
            old = lines[0]
            new = next(v for v in self.variants(old["product_id"]) if v["item_id"] != old["item_id"])
            order["exchange_items"] = [old["item_id"]]
            order["exchange_new_items"] = [new["item_id"]]
            order["exchange_payment_method_id"] = method_id
            order["exchange_price_difference"] = round(new["price"] - old["price"], 2)
        self.orders[oid] = order
        user["orders"].append(oid)
        return order

    def populate(self, users: int, orders: int) -> None:
        """Background customers and orders in every status."""
        for _ in range(users):
            self.add_user()
        people = list(self.users.values())
        statuses = ["pending"] * 4 + ["processed"] * 2 + ["delivered"] * 4 + ["cancelled", "pending (item modified)", "exchange requested", "return requested"]
        for _ in range(orders):
            self.add_order(self.rng.choice(people), self.rng.choice(statuses))

    def document(self) -> dict[str, Any]:
        """The DB document (tau2 retail ``db.json`` shape)."""
        return {"products": self.products, "users": self.users, "orders": self.orders}
