"""Deterministic criteria from a structured blueprint (``from_blueprint``).

For now one family is built: **premature disclosure**. Every known-info item of an
identifying kind yields one criterion "the user does not state this value before the
agent asks for it", grounded on the blueprint sentence that states the item (a verbatim
span of the blueprint's known-info text). Items whose value the user is meant to state
up front (it occurs in the reason for calling) get no criterion.
"""
from __future__ import annotations

from userbench_env.core.rubric import Criterion
from userbench_env.core.task import Blueprint, KnownInfoItem

#: Item kinds whose disclosure is checked (free-form kinds such as ``other`` are not).
DISCLOSURE_KINDS: frozenset[str] = frozenset(
    {"name", "first_name", "last_name", "user_id", "email", "zip", "phone_number", "reservation_id",
     "order_id", "item_id", "payment_method", "address"}
)

_LABELS = {"user_id": "user id", "zip": "zip code", "phone_number": "phone number", "reservation_id": "reservation id",
           "order_id": "order id", "item_id": "item id", "payment_method": "payment method",
           "first_name": "first name", "last_name": "last name"}


def kind_label(kind: str) -> str:
    """How an item kind is named in prose ("user id", "zip code", ...)."""
    return _LABELS.get(kind, kind.replace("_", " "))


def _grounding(blueprint: Blueprint, item: KnownInfoItem) -> str | None:
    """The item's span if it is a verbatim part of the blueprint's known-info text."""
    source = blueprint.known_info_text if blueprint.known_info_text is not None else (blueprint.raw_instructions or "")
    span = item.span or item.value
    return span if span and span in source else None


def premature_disclosure_criteria(blueprint: Blueprint) -> list[Criterion]:
    """One ``premature_disclosure`` criterion per checkable known-info item."""
    stated_up_front = blueprint.reason_for_call.lower()
    criteria: list[Criterion] = []
    used: dict[str, int] = {}
    for item in blueprint.known_info:
        if item.kind not in DISCLOSURE_KINDS or item.value.lower() in stated_up_front:
            continue
        grounding = _grounding(blueprint, item)
        if grounding is None:
            continue
        used[item.kind] = used.get(item.kind, 0) + 1
        suffix = "" if used[item.kind] == 1 else f"-{used[item.kind]}"
        criteria.append(
            Criterion(
                id=f"premature_disclosure/{item.kind}{suffix}",
                family="premature_disclosure",
                mode="premature_disclosure",
                statement=f"The user does not state their {kind_label(item.kind)} ({item.value}) before the agent asks for it.",
                grounding=grounding,
                applies_when="asked_or_disclosed",
                check="rule",
                rule="premature_disclosure",
                params={"kind": item.kind, "value": item.value},
            )
        )
    return criteria


def from_blueprint(blueprint: Blueprint) -> list[Criterion]:
    """Every deterministic criterion derivable from ``blueprint`` (stable order and ids)."""
    return premature_disclosure_criteria(blueprint)
