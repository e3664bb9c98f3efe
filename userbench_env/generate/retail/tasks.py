"""Retail task templates: each adds its fixture (customer, orders) and returns a draft.

Customers authenticate by email or by name and zip code (both stated as known facts);
the gold actions are what a policy-following agent does, amounts to communicate come
from the world's own data.
"""
from __future__ import annotations

import json
from typing import Any, Callable

from userbench_env.core.task import Action
from userbench_env.generate.draft import Derived, Fact, TaskDraft, act
from userbench_env.generate.retail.policy import CANCEL_REASONS
from userbench_env.generate.retail.world import RetailWorld

Template = Callable[[RetailWorld], TaskDraft]


def _identity(w: RetailWorld, user: dict[str, Any]) -> tuple[list[Fact], list[Any]]:
    """Known facts and the gold look-up authenticating ``user`` (by email or name + zip)."""
    first, last = user["name"]["first_name"], user["name"]["last_name"]
    facts = [Fact(kind="name", value=f"{first} {last}", sentence=f"You are {first} {last}.")]
    if w.rng.random() < 0.5:
        facts.append(Fact(kind="email", value=user["email"], sentence=f"Your email address is {user['email']}."))
        return facts, [act("find_user_id_by_email", email=user["email"])]
    zip_code = user["address"]["zip"]
    facts.append(Fact(kind="zip", value=zip_code, sentence=f"You live in zip code {zip_code}."))
    return facts, [act("find_user_id_by_name_zip", first_name=first, last_name=last, zip=zip_code)]


def _order_fact(order: dict[str, Any], what: str = "The order") -> Fact:
    return Fact(kind="order_id", value=order["order_id"], sentence=f"{what} number is {order['order_id']}.")


def _order_lookup(order: dict[str, Any]) -> Action:
    """The gold look-up of ``order``."""
    return act("get_order_details", order_id=order["order_id"])


def _money(amount: float) -> str:
    return f"{amount:.2f}"


def _draft(**fields: Any) -> TaskDraft:
    return TaskDraft(id="pending", splits=[], **fields)


def _describe(item: dict[str, Any]) -> str:
    return f"{item['name']} ({', '.join(item['options'].values())})"


def _other_variant(w: RetailWorld, item: dict[str, Any], available: bool = True) -> dict[str, Any] | None:
    options = [v for v in w.variants(item["product_id"], available) if v["item_id"] != item["item_id"]]
    return w.rng.choice(options) if options else None


def _lines_with_alternative(w: RetailWorld, count: int) -> list[dict[str, Any]]:
    """Order lines whose first item has another available variant."""
    while True:
        lines = w.pick_lines(count)
        if _other_variant(w, lines[0]) is not None:
            return lines


def _card(user: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in user["payment_methods"].values() if m["source"] == "credit_card")


# -- pending orders -------------------------------------------------------------------------
def cancel_pending(w: RetailWorld) -> TaskDraft:
    """Cancel a pending order for an accepted reason; the refund total is stated."""
    user = w.add_user()
    order = w.add_order(user, "pending")
    facts, auth = _identity(w, user)
    reason = w.rng.choice(CANCEL_REASONS)
    things = ", ".join(_describe(i) for i in order["items"])
    return _draft(
        reason_for_call=f"You want to cancel your order of {things} because it is {reason}.",
        known=facts + [_order_fact(order)],
        unknown=["You do not know when the refund will arrive."],
        instructions=f"If asked for the reason, say: {reason}. Ask how much will be refunded, then confirm.",
        gold=[auth[0], _order_lookup(order), act("cancel_pending_order", order_id=order["order_id"], reason=reason)],
        communicate_info=[_money(order["payment_history"][0]["amount"])],
        purpose="Cancelling a pending order with a valid reason.",
    )


def refuse_cancel_processed(w: RetailWorld) -> TaskDraft:
    """A processed order cannot be cancelled."""
    user = w.add_user()
    order = w.add_order(user, "processed")
    facts, auth = _identity(w, user)
    return _draft(
        reason_for_call="You want to cancel an order you placed last week because you no longer need it.",
        known=facts + [_order_fact(order)],
        instructions="If the agent says the order can no longer be cancelled, accept and end the conversation.",
        gold=[auth[0], _order_lookup(order)],
        nl_assertions=["The agent does not cancel the order."],
        purpose="Refusal: processed orders cannot be cancelled.",
    )


def change_pending_item(w: RetailWorld) -> TaskDraft:
    """Swap one item of a pending order for another available variant."""
    user = w.add_user(gift_card=True)
    order = w.add_order(user, "pending", _lines_with_alternative(w, w.rng.randint(1, 3)))
    item = order["items"][0]
    new = _other_variant(w, item)
    assert new is not None
    facts, auth = _identity(w, user)
    diff = round(new["price"] - item["price"], 2)
    gift = next(m for m in user["payment_methods"].values() if m["source"] == "gift_card")
    method = gift if gift["balance"] >= diff else _card(user)
    wanted = ", ".join(f"{k} {v}" for k, v in new["options"].items())
    return _draft(
        reason_for_call=f"You ordered a {_describe(item)} that has not shipped yet, and you want it with these options instead: {wanted}.",
        known=facts
        + [
            _order_fact(order),
            Fact(kind="payment_method", value=method["id"], sentence=f"Any price difference should go to {method['id']}."),
        ],
        unknown=["You do not know the item ids."],
        instructions="Only that one item changes. Confirm when the agent summarises the change.",
        gold=[
            auth[0],
            _order_lookup(order),
            act("get_product_details", product_id=item["product_id"]),
            act("modify_pending_order_items", order_id=order["order_id"], item_ids=[item["item_id"]], new_item_ids=[new["item_id"]], payment_method_id=method["id"]),
        ],
        communicate_info=[_money(abs(diff))] if diff else [],
        purpose="Changing an item of a pending order to another available variant.",
    )


def change_pending_address(w: RetailWorld) -> TaskDraft:
    """Send a pending order to another address."""
    user = w.add_user()
    order = w.add_order(user, w.rng.choice(["pending", "pending (item modified)"]))
    new = w.address()
    facts, auth = _identity(w, user)
    line = f"{new['address1']}{', ' + new['address2'] if new['address2'] else ''}, {new['city']}, {new['state']} {new['zip']}"
    return _draft(
        reason_for_call="You are moving and want your unshipped order delivered to your new address.",
        known=facts + [_order_fact(order), Fact(kind="address", value=line, sentence=f"The new address is {line}.")],
        instructions="Only the order's address changes, not your profile address.",
        gold=[auth[0], _order_lookup(order), act("modify_pending_order_address", order_id=order["order_id"], **new)],
        purpose="Changing the shipping address of a pending order.",
    )


def change_pending_payment(w: RetailWorld) -> TaskDraft:
    """Move a pending order's payment to a gift card that covers it."""
    user = w.add_user(gift_card=True)
    gift = next(m for m in user["payment_methods"].values() if m["source"] == "gift_card")
    order = w.add_order(user, "pending", method_id=_card(user)["id"])
    gift["balance"] = float(int(order["payment_history"][0]["amount"]) + w.rng.randint(5, 90))
    facts, auth = _identity(w, user)
    return _draft(
        reason_for_call="You would rather pay for your unshipped order with your gift card than with your credit card.",
        known=facts + [_order_fact(order)],
        unknown=["You do not know your gift card balance."],
        instructions="Confirm the switch when asked.",
        gold=[auth[0], act("get_user_details", user_id=user["user_id"]), act("modify_pending_order_payment", order_id=order["order_id"], payment_method_id=gift["id"])],
        purpose="Changing the payment method of a pending order.",
    )


# -- delivered orders -------------------------------------------------------------------------
def return_items(w: RetailWorld) -> TaskDraft:
    """Return some items of a delivered order; the refund amount is stated."""
    user = w.add_user()
    order = w.add_order(user, "delivered", w.pick_lines(w.rng.randint(2, 4)))
    back = order["items"][: w.rng.randint(1, len(order["items"]) - 1)]
    facts, auth = _identity(w, user)
    method = order["payment_history"][0]["payment_method_id"]
    refund = round(sum(i["price"] for i in back), 2)
    return _draft(
        reason_for_call="You want to return " + " and ".join(_describe(i) for i in back) + " from a delivered order.",
        known=facts + [_order_fact(order)],
        instructions="The refund should go to the payment method you used for the order. Ask how much you will get back.",
        gold=[
            auth[0],
            _order_lookup(order),
            act("return_delivered_order_items", order_id=order["order_id"], item_ids=[i["item_id"] for i in back], payment_method_id=method),
        ],
        communicate_info=[_money(refund)],
        purpose="Returning delivered items to the original payment method.",
    )


def return_to_gift_card(w: RetailWorld) -> TaskDraft:
    """Return a whole delivered order with the refund on a gift card."""
    user = w.add_user(gift_card=True)
    order = w.add_order(user, "delivered", w.pick_lines(w.rng.randint(1, 2)))
    gift = next(m for m in user["payment_methods"].values() if m["source"] == "gift_card")
    facts, auth = _identity(w, user)
    return _draft(
        reason_for_call="You want to return everything in a delivered order and get the money back on your gift card.",
        known=facts + [_order_fact(order), Fact(kind="payment_method", value=gift["id"], sentence=f"Your gift card is {gift['id']}.")],
        instructions="Confirm when asked.",
        gold=[
            auth[0],
            _order_lookup(order),
            act("return_delivered_order_items", order_id=order["order_id"], item_ids=[i["item_id"] for i in order["items"]], payment_method_id=gift["id"]),
        ],
        purpose="Returning a whole order with a gift-card refund.",
    )


def exchange_item(w: RetailWorld) -> TaskDraft:
    """Exchange a delivered item for another variant; the price difference is stated."""
    user = w.add_user()
    order = w.add_order(user, "delivered", _lines_with_alternative(w, w.rng.randint(1, 3)))
    item = order["items"][0]
    new = _other_variant(w, item)
    assert new is not None
    facts, auth = _identity(w, user)
    method = order["payment_history"][0]["payment_method_id"]
    wanted = ", ".join(f"{k} {v}" for k, v in new["options"].items())
    diff = round(new["price"] - item["price"], 2)
    return _draft(
        reason_for_call=f"The {_describe(item)} you received is not right; you want to exchange it for the one with: {wanted}.",
        known=facts + [_order_fact(order)],
        instructions="Use the payment method of the original order for any difference. Ask about the price difference.",
        gold=[
            auth[0],
            _order_lookup(order),
            act("get_product_details", product_id=item["product_id"]),
            act("exchange_delivered_order_items", order_id=order["order_id"], item_ids=[item["item_id"]], new_item_ids=[new["item_id"]], payment_method_id=method),
        ],
        communicate_info=[_money(abs(diff))] if diff else [],
        purpose="Exchanging a delivered item for another available variant.",
    )


def refuse_exchange_unavailable(w: RetailWorld) -> TaskDraft:
    """The wanted variant is out of stock: no exchange."""
    user = w.add_user()
    while True:
        lines = w.pick_lines(1)
        wanted = _other_variant(w, lines[0], available=False)
        if wanted is not None:
            break
    order = w.add_order(user, "delivered", lines)
    facts, auth = _identity(w, user)
    options = ", ".join(f"{k} {v}" for k, v in wanted["options"].items())
    return _draft(
        reason_for_call=f"You want to exchange your {_describe(lines[0])} for the version with: {options}.",
        known=facts + [_order_fact(order)],
        instructions="You only want that exact version. If it is not available, keep your item and end the conversation.",
        gold=[auth[0], _order_lookup(order), act("get_product_details", product_id=lines[0]["product_id"])],
        nl_assertions=["The agent does not exchange the item."],
        purpose="Refusal: the requested variant is unavailable.",
    )


def refuse_return_pending(w: RetailWorld) -> TaskDraft:
    """Items not yet delivered cannot be returned (the user declines cancelling)."""
    user = w.add_user()
    order = w.add_order(user, "processed")
    facts, auth = _identity(w, user)
    return _draft(
        reason_for_call="You want to return an order that is on its way to you.",
        known=facts + [_order_fact(order)],
        instructions="You do not want anything else. If the agent says it is not possible yet, end the conversation.",
        gold=[auth[0], _order_lookup(order)],
        nl_assertions=["The agent does not start a return."],
        purpose="Refusal: only delivered orders can be returned.",
    )


# -- look-ups and profile -----------------------------------------------------------------------
def order_tracking(w: RetailWorld) -> TaskDraft:
    """Ask for a tracking number; it is stated."""
    user = w.add_user()
    order = w.add_order(user, w.rng.choice(["processed", "delivered"]))
    facts, auth = _identity(w, user)
    return _draft(
        reason_for_call="You want the tracking number of one of your orders.",
        known=facts + [_order_fact(order)],
        instructions="You only want the tracking number.",
        gold=[auth[0], _order_lookup(order)],
        derive=lambda world, results: Derived(communicate_info=[json.loads(results[-1].content)["fulfillments"][0]["tracking_id"][0]]),
        purpose="Look-up: tracking number of a shipped order.",
    )


def variant_price(w: RetailWorld) -> TaskDraft:
    """Ask the price of a specific product variant; it is stated."""
    user = w.add_user()
    pid = w.rng.choice(list(w.products))
    variant = w.rng.choice(w.variants(pid, True))
    facts, auth = _identity(w, user)
    options = ", ".join(f"{k} {v}" for k, v in variant["options"].items())
    return _draft(
        reason_for_call=f"You are thinking of buying a {w.products[pid]['name']} with: {options}, and want to know its price.",
        known=facts,
        instructions="You do not want to order anything now.",
        gold=[auth[0], act("list_all_product_types"), act("get_product_details", product_id=pid)],
        communicate_info=[_money(variant["price"])],
        purpose="Look-up: price of a product variant.",
    )


def update_profile_address(w: RetailWorld) -> TaskDraft:
    """Update the profile's default address."""
    user = w.add_user()
    new = w.address()
    facts, auth = _identity(w, user)
    line = f"{new['address1']}{', ' + new['address2'] if new['address2'] else ''}, {new['city']}, {new['state']} {new['zip']}"
    return _draft(
        reason_for_call="You moved and want your account's default address updated.",
        known=facts + [Fact(kind="address", value=line, sentence=f"Your new address is {line}.")],
        instructions="You have no open orders to change.",
        gold=[auth[0], act("modify_user_address", user_id=user["user_id"], **new)],
        purpose="Updating the profile address.",
    )


def cancel_and_return(w: RetailWorld) -> TaskDraft:
    """Two requests: cancel a pending order and return a delivered item."""
    user = w.add_user()
    pending = w.add_order(user, "pending")
    delivered = w.add_order(user, "delivered", w.pick_lines(2))
    facts, auth = _identity(w, user)
    item = delivered["items"][1]
    method = delivered["payment_history"][0]["payment_method_id"]
    return _draft(
        reason_for_call=f"You want to cancel one order and return the {_describe(item)} from another.",
        known=facts + [_order_fact(pending, "The order to cancel"), _order_fact(delivered, "The delivered order")],
        instructions="The cancellation reason is that you ordered by mistake. Refund the return to the original payment method.",
        gold=[
            auth[0],
            act("cancel_pending_order", order_id=pending["order_id"], reason="ordered by mistake"),
            act("return_delivered_order_items", order_id=delivered["order_id"], item_ids=[item["item_id"]], payment_method_id=method),
        ],
        purpose="Two requests in one conversation.",
    )


#: Template -> how many tasks of it the generator makes.
TEMPLATES: tuple[tuple[Template, int], ...] = (
    (cancel_pending, 4),
    (refuse_cancel_processed, 2),
    (change_pending_item, 3),
    (change_pending_address, 2),
    (change_pending_payment, 2),
    (return_items, 3),
    (return_to_gift_card, 2),
    (exchange_item, 3),
    (refuse_exchange_unavailable, 2),
    (refuse_return_pending, 1),
    (order_tracking, 2),
    (variant_price, 2),
    (update_profile_address, 2),
    (cancel_and_return, 2),
)
