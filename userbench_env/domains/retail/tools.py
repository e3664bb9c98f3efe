"""The retail agent toolkit: look-ups and order/user changes of an online store.

Behaviour, outputs and error texts reproduce tau2-bench's retail tools exactly,
including their quirks (see the spec, section 8.3):

* status checks are exact (``pending``, ``delivered``) except address and payment
  changes, which accept any status containing ``pending``;
* changing items of a pending order gives every changed item the price and options of
  the **last** variant looked up, records the price difference unrounded, and records a
  ``refund`` of ``0.0`` when the difference is zero;
* gift-card balances are rounded to cents after each change;
* exchange and return item lists are stored sorted.

Nothing is validated beyond what tau2 validates: arguments reach the logic as given, so
Python's own errors surface for wrong types. Values are written with the Python types
tau2 writes (floats stay floats), so DB hashes match.

Reads use ``peek``/``items_ro`` (shared records, never mutated); writes take
``table[key]``, the world's private copy.
"""
from __future__ import annotations

import json
from typing import Any

from userbench_env.domains.calculator import calculate_text
from userbench_env.domains.retail.db import ADDRESS_FIELDS
from userbench_env.domains.store import copy_value
from userbench_env.domains.toolkit import Model, Toolkit, tool

Record = dict[str, Any]

CANCEL_REASONS = frozenset({"no longer needed", "ordered by mistake"})


def _is_gift_card(method: Record) -> bool:
    return method["source"] == "gift_card"


def _payment(kind: str, amount: Any, method_id: Any) -> Record:
    """A payment-history entry as tau2's validated model builds it (amount as float)."""
    return {"transaction_type": kind, "amount": float(amount), "payment_method_id": method_id}


def _validated_address(**fields: Any) -> Record:
    """An address record in model order; every field must be a string (as pydantic checks)."""
    wrong = [name for name in ADDRESS_FIELDS if not isinstance(fields[name], str)]
    if wrong:
        count = f"{len(wrong)} validation error{'s' if len(wrong) > 1 else ''}"
        details = "".join(f"\n{name}\n  Input should be a valid string" for name in wrong)
        raise ValueError(f"{count} for UserAddress{details}")
    return {name: fields[name] for name in ADDRESS_FIELDS}


def _check_gift_card_covers(method: Record, amount: Any, what: str) -> None:
    """A gift card ``method`` must hold at least ``amount``, else "Insufficient ... to pay for ``what``"."""
    if _is_gift_card(method) and method["balance"] < amount:
        raise ValueError(f"Insufficient gift card balance to pay for {what}")


def _check_item_counts(order: Record, item_ids: Any, message: str) -> None:
    """Each id may appear in ``item_ids`` at most as often as in the order, else ``message``."""
    in_order = [item["item_id"] for item in order["items"]]
    for item_id in item_ids:
        if item_ids.count(item_id) > in_order.count(item_id):
            raise ValueError(message.format(item_id=item_id))


def _first_item(order: Record, item_id: Any) -> Record:
    """The first order item with ``item_id``."""
    for item in order["items"]:
        if item["item_id"] == item_id:
            return item
    raise ValueError(f"Item {item_id} not found")


class RetailTools(Toolkit):
    """Agent tools of the retail domain (tau2 ``RetailTools``)."""

    # -- look-ups (shared records: never mutate the results) -----------------------
    def _order(self, order_id: Any) -> Record:
        orders = self.db["orders"]
        if order_id not in orders:
            raise ValueError("Order not found")
        return orders.peek(order_id)

    def _user(self, user_id: Any) -> Record:
        users = self.db["users"]
        if user_id not in users:
            raise ValueError("User not found")
        return users.peek(user_id)

    def _product(self, product_id: Any) -> Record:
        products = self.db["products"]
        if product_id not in products:
            raise ValueError("Product not found")
        return products.peek(product_id)

    def _variant(self, product_id: Any, item_id: Any) -> Record:
        variants = self._product(product_id)["variants"]
        if item_id not in variants:
            raise ValueError("Variant not found")
        return variants[item_id]

    def _payment_method(self, user_id: Any, method_id: Any) -> Record:
        methods = self._user(user_id)["payment_methods"]
        if method_id not in methods:
            raise ValueError("Payment method not found")
        return methods[method_id]

    def _order_in(self, order_id: Any, status: str, action: str, exact: bool = True) -> Record:
        """The order (shared) if its status is ``status`` (or, unless ``exact``, contains it);
        else tau2's ``Non-<status> order cannot be <action>``."""
        order = self._order(order_id)
        if (order["status"] != status) if exact else (status not in order["status"]):
            raise ValueError(f"Non-{status} order cannot be {action}")
        return order

    def _price_difference(
        self, order: Record, item_ids: Any, new_item_ids: Any, distinct: bool
    ) -> tuple[Any, Record]:
        """The summed (unrounded) price change of swapping ``item_ids`` for ``new_item_ids``
        pairwise, and the last variant looked up. Each new item must be an available
        variant of the old item's product; with ``distinct``, also a different item."""
        diff: Any = 0
        variant: Record = {}
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            if distinct and item_id == new_item_id:
                raise ValueError("The new item id should be different from the old item id")
            item = _first_item(order, item_id)
            variant = self._variant(item["product_id"], new_item_id)
            if not variant["available"]:
                raise ValueError(f"New item {new_item_id} not found or available")
            diff += variant["price"] - item["price"]
        return diff, variant

    def _set_address(self, table: str, key: str, **fields: Any) -> Model:
        """Write the address ``fields`` (validated) to record ``key`` of ``table``; the
        updated record."""
        new_address = _validated_address(**fields)
        record = self.db[table][key]
        record["address"] = new_address
        return Model(record)

    def _set_gift_card_balance(self, user_id: str, method_id: str, delta: Any) -> None:
        """Add ``delta`` to a gift card's balance and round it to cents (the write path)."""
        method = self.db["users"][user_id]["payment_methods"][method_id]
        method["balance"] = round(method["balance"] + delta, 2)

    # -- read tools ----------------------------------------------------------------
    @tool("generic")
    def calculate(self, expression: str) -> str:
        """Work out an arithmetic expression and give the result rounded to 2 decimals.

        Args:
            expression: The arithmetic to evaluate, e.g. '12.5 * 3 - 4'. Only digits, the
                operators + - * /, parentheses, dots and spaces are accepted.
        """
        return calculate_text(expression)

    @tool("read")
    def find_user_id_by_email(self, email: str) -> str:
        """Look up a customer's user id from their email address (case does not matter).

        Args:
            email: The customer's email, e.g. 'jane.roe123@example.com'.
        """
        for user_id, user in self.db["users"].items_ro():
            if user["email"].lower() == email.lower():
                return user_id
        raise ValueError("User not found")

    @tool("read")
    def find_user_id_by_name_zip(self, first_name: str, last_name: str, zip: str) -> str:
        """Look up a customer's user id from their full name and zip code. Prefer the
        email look-up; use this one when the customer has no email or cannot recall it.

        Args:
            first_name: The customer's first name, e.g. 'Jane' (case does not matter).
            last_name: The customer's last name, e.g. 'Roe' (case does not matter).
            zip: The zip code of the customer's address, e.g. '94105'.
        """
        for user_id, user in self.db["users"].items_ro():
            name = user["name"]
            if (
                name["first_name"].lower() == first_name.lower()
                and name["last_name"].lower() == last_name.lower()
                and user["address"]["zip"] == zip
            ):
                return user_id
        raise ValueError("User not found")

    @tool("read")
    def get_order_details(self, order_id: str) -> Model:
        """Show an order: status, items, address, fulfilments and payment history.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
        """
        return Model(self._order(order_id))

    @tool("read")
    def get_product_details(self, product_id: str) -> Model:
        """Show a product type with all its variants (items), their options, stock and prices.

        Args:
            product_id: The product id, e.g. '1234567890' (not an item id).
        """
        return Model(self._product(product_id))

    @tool("read")
    def get_item_details(self, item_id: str) -> Model:
        """Show one item (a product variant): its options, availability and price.

        Args:
            item_id: The item id, e.g. '1234567890' (not a product id).
        """
        for product in self.db["products"].values_ro():
            if item_id in product["variants"]:
                return Model(product["variants"][item_id])
        raise ValueError("Item not found")

    @tool("read")
    def get_user_details(self, user_id: str) -> Model:
        """Show a customer's profile: name, address, email, payment methods and order ids.

        Args:
            user_id: The user id, e.g. 'jane_roe_1234'.
        """
        return Model(self._user(user_id))

    @tool("read")
    def list_all_product_types(self) -> str:
        """List every product type of the store (50 of them) as a JSON object mapping
        product names to product ids, sorted by name. Each type has several items.
        """
        names = {p["name"]: p["product_id"] for p in self.db["products"].values_ro()}
        return json.dumps(names, sort_keys=True)

    @tool("generic")
    def transfer_to_human_agents(self, summary: str) -> str:
        """Hand the customer over to a human agent together with a summary of the issue.
        Do this only when the customer asks for a human, or when the policy and tools
        leave no way to resolve the issue.

        Args:
            summary: A short summary of the customer's issue.
        """
        return "Transfer successful"

    # -- write tools -----------------------------------------------------------------
    @tool("write")
    def cancel_pending_order(self, order_id: str, reason: str) -> Model:
        """Cancel an order that is still pending and refund every payment to its method.
        Gift-card refunds are credited at once; other refunds take 5-7 business days.
        Explain the details and get the customer's explicit yes before calling.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            reason: Either 'no longer needed' or 'ordered by mistake'.
        """
        order = self._order_in(order_id, "pending", "cancelled")
        if reason not in CANCEL_REASONS:
            raise ValueError("Invalid reason")
        refunds = []
        for payment in order["payment_history"]:
            method_id = payment["payment_method_id"]
            refunds.append(_payment("refund", payment["amount"], method_id))
            if _is_gift_card(self._payment_method(order["user_id"], method_id)):
                self._set_gift_card_balance(order["user_id"], method_id, payment["amount"])
        order = self.db["orders"][order_id]
        order["status"] = "cancelled"
        order["cancel_reason"] = reason
        order["payment_history"].extend(refunds)
        return Model(order)

    @tool("write")
    def modify_pending_order_address(
        self,
        order_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> Model:
        """Change the shipping address of a pending order. Explain the change and get the
        customer's explicit yes before calling.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            address1: First address line, e.g. '12 Oak Street'.
            address2: Second address line, e.g. 'Unit 4', or ''.
            city: City, e.g. 'Portland'.
            state: State, e.g. 'OR'.
            country: Country, e.g. 'USA'.
            zip: Zip code, e.g. '97201'.
        """
        self._order_in(order_id, "pending", "modified", exact=False)
        return self._set_address(
            "orders", order_id, address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )

    @tool("write")
    def modify_pending_order_items(
        self,
        order_id: str,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
    ) -> Model:
        """Swap items of a pending order for other items of the same product types (only
        once per order). The price difference is charged to, or refunded to, the given
        payment method. Explain the change and get the customer's explicit yes first.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            item_ids: Ids of the items to replace; an id may repeat.
            new_item_ids: Ids of the replacement items, position by position; each must be
                another variant of the same product as the item it replaces.
            payment_method_id: The method that pays or receives the price difference,
                e.g. 'gift_card_1234567' or 'credit_card_1234567'.
        """
        order = self._order_in(order_id, "pending", "modified")
        _check_item_counts(order, item_ids, "{item_id} not found")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match")
        diff, variant = self._price_difference(order, item_ids, new_item_ids, distinct=True)
        method = self._payment_method(order["user_id"], payment_method_id)
        _check_gift_card_covers(method, diff, "the new item")

        order = self.db["orders"][order_id]
        order["payment_history"].append(
            _payment("payment" if diff > 0 else "refund", abs(diff), payment_method_id)
        )
        if _is_gift_card(method):
            self._set_gift_card_balance(order["user_id"], payment_method_id, -diff)
        for item_id, new_item_id in zip(item_ids, new_item_ids):
            item = _first_item(order, item_id)
            item["item_id"] = new_item_id
            # tau2 quirk: every changed item takes the last looked-up variant's price/options.
            item["price"] = variant["price"]
            item["options"] = copy_value(variant["options"])
        order["status"] = "pending (item modified)"
        return Model(order)

    @tool("write")
    def modify_pending_order_payment(self, order_id: str, payment_method_id: str) -> Model:
        """Pay a pending order with a different payment method of the same customer; the
        old method is refunded. Explain the change and get the customer's explicit yes first.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            payment_method_id: The new payment method, e.g. 'gift_card_1234567' or
                'credit_card_1234567'.
        """
        order = self._order_in(order_id, "pending", "modified", exact=False)
        method = self._payment_method(order["user_id"], payment_method_id)
        history = order["payment_history"]
        if len(history) != 1 or history[0]["transaction_type"] != "payment":
            raise ValueError("There should be exactly one payment for a pending order")
        old_method_id = history[0]["payment_method_id"]
        if old_method_id == payment_method_id:
            raise ValueError("The new payment method should be different from the current one")
        amount = history[0]["amount"]
        _check_gift_card_covers(method, amount, "the order")

        order = self.db["orders"][order_id]
        order["payment_history"].extend(
            [_payment("payment", amount, payment_method_id), _payment("refund", amount, old_method_id)]
        )
        user_id = order["user_id"]
        if _is_gift_card(method):
            self._set_gift_card_balance(user_id, payment_method_id, -amount)
        if _is_gift_card(self._payment_method(user_id, old_method_id)):
            self._set_gift_card_balance(user_id, old_method_id, amount)
        return Model(order)

    @tool("write")
    def modify_user_address(
        self,
        user_id: str,
        address1: str,
        address2: str,
        city: str,
        state: str,
        country: str,
        zip: str,
    ) -> Model:
        """Change a customer's default address. Explain the change and get the customer's
        explicit yes before calling.

        Args:
            user_id: The user id, e.g. 'jane_roe_1234'.
            address1: First address line, e.g. '12 Oak Street'.
            address2: Second address line, e.g. 'Unit 4', or ''.
            city: City, e.g. 'Portland'.
            state: State, e.g. 'OR'.
            country: Country, e.g. 'USA'.
            zip: Zip code, e.g. '97201'.
        """
        self._user(user_id)
        return self._set_address(
            "users", user_id, address1=address1, address2=address2, city=city, state=state, country=country, zip=zip
        )

    @tool("write")
    def exchange_delivered_order_items(
        self,
        order_id: str,
        item_ids: list[str],
        new_item_ids: list[str],
        payment_method_id: str,
    ) -> Model:
        """Request an exchange of delivered items for other items of the same product
        types (one return or exchange per delivered order). Explain the details and get
        the customer's explicit yes before calling.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            item_ids: Ids of the items to exchange; an id may repeat.
            new_item_ids: Ids of the items wanted instead, position by position; each must
                be another variant of the same product as the item it replaces.
            payment_method_id: The method that pays or receives the price difference,
                e.g. 'gift_card_1234567' or 'credit_card_1234567'.
        """
        order = self._order_in(order_id, "delivered", "exchanged")
        _check_item_counts(order, item_ids, "Number of {item_id} not found.")
        if len(item_ids) != len(new_item_ids):
            raise ValueError("The number of items to be exchanged should match.")
        diff = round(self._price_difference(order, item_ids, new_item_ids, distinct=False)[0], 2)
        method = self._payment_method(order["user_id"], payment_method_id)
        _check_gift_card_covers(method, diff, "the price difference")

        order = self.db["orders"][order_id]
        order["status"] = "exchange requested"
        order["exchange_items"] = sorted(item_ids)
        order["exchange_new_items"] = sorted(new_item_ids)
        order["exchange_payment_method_id"] = payment_method_id
        order["exchange_price_difference"] = diff
        return Model(order)

    @tool("write")
    def return_delivered_order_items(self, order_id: str, item_ids: list[str], payment_method_id: str) -> Model:
        """Request a return of delivered items; the customer then gets return instructions
        by email. The refund goes to the original payment method or to a gift card.
        Explain the details and get the customer's explicit yes before calling.

        Args:
            order_id: The order id including its leading '#', e.g. '#W1234567'.
            item_ids: Ids of the items to return; an id may repeat.
            payment_method_id: Where the refund goes: the order's original payment method
                or one of the customer's gift cards, e.g. 'gift_card_1234567'.
        """
        order = self._order_in(order_id, "delivered", "returned")
        method = self._payment_method(order["user_id"], payment_method_id)
        if not _is_gift_card(method) and payment_method_id != order["payment_history"][0]["payment_method_id"]:
            raise ValueError("Payment method should be the original payment method")
        _check_item_counts(order, item_ids, "Some item not found")

        order = self.db["orders"][order_id]
        order["status"] = "return requested"
        order["return_items"] = sorted(item_ids)
        order["return_payment_method_id"] = payment_method_id
        return Model(order)
