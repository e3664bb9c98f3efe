"""The retail DB: reading ``db.json`` and normalising it to tau2's validated form.

tau2 validates the file into pydantic models before hashing or serving it. Our
normaliser produces the same plain tree that tau2's ``model_dump()`` would: every record
rebuilt with its keys in model field order (that order is what read tools print), money
fields as floats, and the seven optional order fields present as ``null`` when the file
omits them. Extra keys that the models do not declare are dropped, as pydantic does.

Tables (``products``, ``users``, ``orders``) are dicts keyed by record id.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from userbench_env.domains.store import Document

TABLES: tuple[str, ...] = ("products", "users", "orders")

ADDRESS_FIELDS: tuple[str, ...] = ("address1", "address2", "city", "country", "state", "zip")

#: Payment-method fields per ``source`` in model order (money fields are floats).
PAYMENT_METHOD_FIELDS: dict[str, tuple[str, ...]] = {
    "credit_card": ("source", "id", "brand", "last_four"),
    "gift_card": ("source", "id", "balance"),
    "paypal": ("source", "id"),
}

#: Optional order fields, all defaulting to ``None``, in model order.
ORDER_OPTIONAL_FIELDS: tuple[str, ...] = (
    "cancel_reason",
    "exchange_items",
    "exchange_new_items",
    "exchange_payment_method_id",
    "exchange_price_difference",
    "return_items",
    "return_payment_method_id",
)

_FLOAT_FIELDS = frozenset({"price", "balance", "amount", "exchange_price_difference"})


def _pick(record: dict[str, Any], fields: tuple[str, ...], optional: bool = False) -> dict[str, Any]:
    """``record`` restricted to ``fields`` in that order; money fields become floats.

    A missing field is an error unless ``optional`` (then it is ``None``).
    """
    out: dict[str, Any] = {}
    for name in fields:
        if name in record:
            value = record[name]
        elif optional:
            value = None
        else:
            raise ValueError(f"retail record is missing field {name!r}: {record!r}")
        if name in _FLOAT_FIELDS and value is not None:
            value = float(value)
        out[name] = value
    return out


def address(record: dict[str, Any]) -> dict[str, Any]:
    """A user/order address in model order."""
    return _pick(record, ADDRESS_FIELDS)


def variant(record: dict[str, Any]) -> dict[str, Any]:
    """A product variant: ``item_id, options, available, price``."""
    out = _pick(record, ("item_id", "options", "available", "price"))
    out["options"] = dict(out["options"])
    return out


def product(record: dict[str, Any]) -> dict[str, Any]:
    """A product: ``name, product_id, variants`` (variants keyed by item id)."""
    out = _pick(record, ("name", "product_id", "variants"))
    out["variants"] = {k: variant(v) for k, v in out["variants"].items()}
    return out


def payment_method(record: dict[str, Any]) -> dict[str, Any]:
    """A credit card, gift card or PayPal method, chosen by its ``source``."""
    source = record.get("source")
    if source not in PAYMENT_METHOD_FIELDS:
        raise ValueError(f"unknown payment method source {source!r}")
    return _pick(record, PAYMENT_METHOD_FIELDS[source])


def user(record: dict[str, Any]) -> dict[str, Any]:
    """A user: ``user_id, name, address, email, payment_methods, orders``."""
    out = _pick(record, ("user_id", "name", "address", "email", "payment_methods", "orders"))
    out["name"] = _pick(out["name"], ("first_name", "last_name"))
    out["address"] = address(out["address"])
    out["payment_methods"] = {k: payment_method(v) for k, v in out["payment_methods"].items()}
    out["orders"] = list(out["orders"])
    return out


def order(record: dict[str, Any]) -> dict[str, Any]:
    """An order with its items, fulfilments, payments and the seven optional fields."""
    out = _pick(
        record,
        ("order_id", "user_id", "address", "items", "status", "fulfillments", "payment_history"),
    )
    out["address"] = address(out["address"])
    out["items"] = [
        {**_pick(i, ("name", "product_id", "item_id", "price", "options")), "options": dict(i["options"])}
        for i in out["items"]
    ]
    out["fulfillments"] = [
        {"tracking_id": list(f["tracking_id"]), "item_ids": list(f["item_ids"])} for f in out["fulfillments"]
    ]
    out["payment_history"] = [
        _pick(p, ("transaction_type", "amount", "payment_method_id")) for p in out["payment_history"]
    ]
    out.update(_pick(record, ORDER_OPTIONAL_FIELDS, optional=True))
    for name in ("exchange_items", "exchange_new_items", "return_items"):
        if out[name] is not None:
            out[name] = list(out[name])
    return out


#: Record normaliser per table.
NORMALISERS = {"products": product, "users": user, "orders": order}


def normalise(data: dict[str, Any]) -> dict[str, Any]:
    """The validated plain tree of a whole retail DB (a new tree; ``data`` is not changed)."""
    return {table: {key: NORMALISERS[table](rec) for key, rec in data[table].items()} for table in TABLES}


def load(path: Path) -> Document:
    """Read ``db.json`` at ``path`` and return the normalised read-only base document."""
    with path.open(encoding="utf-8") as handle:
        data = json.load(handle)
    return Document.from_plain(normalise(data), [(table,) for table in TABLES])
