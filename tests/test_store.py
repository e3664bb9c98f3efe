"""The copy-on-write store: forks share the base, writes stay private, and
``same_state`` agrees with hash equality on every kind of change."""
from __future__ import annotations

import itertools

import pytest

from userbench_env.domains.store import Document


def base() -> Document:
    return Document.from_plain(
        {
            "users": {"u1": {"name": "Ann", "balance": 3.0, "tags": ["a"]}, "u2": {"name": "Bo", "balance": 1.5, "tags": []}},
            "meta": {"version": 1, "notes": "x"},
            "nested": {"orders": {"data": {"o1": {"total": 10}}, "notes": ""}},
        },
        [("users",), ("nested", "orders", "data")],
    )


def test_writes_stay_private_and_base_is_read_only():
    b = base()
    first, second = b.fork(), b.fork()
    first["users"]["u1"]["balance"] = 0.0
    assert second["users"].peek("u1")["balance"] == 3.0
    assert b.fork().hash() == second.hash() != first.hash()
    with pytest.raises(TypeError):
        b["users"]


def test_iteration_order_is_base_then_new_keys():
    doc = base().fork()
    users = doc["users"]
    users["u0"] = {"name": "Cy", "balance": 0.0, "tags": []}
    del users["u1"]
    assert list(users) == ["u2", "u0"] and len(users) == 2
    assert [k for k, _ in users.items_ro()] == ["u2", "u0"]


MUTATIONS = {
    "none": lambda d: None,
    "int_for_float": lambda d: d["users"]["u1"].__setitem__("balance", 3),  # 3 != 3.0 in the hash
    "same_value_rewritten": lambda d: d["users"]["u1"].__setitem__("balance", 3.0),
    "list_append": lambda d: d["users"]["u2"]["tags"].append("b"),
    "delete": lambda d: d["users"].__delitem__("u2"),
    "add_u3": lambda d: d["users"].__setitem__("u3", {"name": "Di", "balance": 0.0, "tags": []}),
    "add_u4_then_u3": lambda d: (
        d["users"].__setitem__("u4", {"name": "Ed", "balance": 0.0, "tags": []}),
        d["users"].__setitem__("u3", {"name": "Di", "balance": 0.0, "tags": []}),
    ),
    "add_u3_then_u4": lambda d: (
        d["users"].__setitem__("u3", {"name": "Di", "balance": 0.0, "tags": []}),
        d["users"].__setitem__("u4", {"name": "Ed", "balance": 0.0, "tags": []}),
    ),
    "nested_table": lambda d: d["nested"]["orders"]["data"]["o1"].__setitem__("total", 11),
    "plain_section": lambda d: d["meta"].__setitem__("version", 2),
    "read_only_access": lambda d: d["users"]["u1"],  # a copy taken for writing, left unchanged
}


@pytest.mark.parametrize("left,right", list(itertools.combinations_with_replacement(sorted(MUTATIONS), 2)))
def test_same_state_agrees_with_hash_equality(left, right):
    b = base()
    one, two = b.fork(), b.fork()
    MUTATIONS[left](one)
    MUTATIONS[right](two)
    assert one.same_state(two) == (one.hash() == two.hash())
    assert two.same_state(one) == (one.hash() == two.hash())


def test_merge_deep_merges_records_and_reports_touched_paths():
    doc = base().fork()
    touched = doc.merge({"users": {"u1": {"name": "Anna"}, "u9": {"name": "Zed"}}, "meta": {"notes": "y"}})
    assert doc["users"].peek("u1") == {"name": "Anna", "balance": 3.0, "tags": ["a"]}
    assert doc["users"].peek("u9") == {"name": "Zed"}
    assert doc["meta"] == {"version": 1, "notes": "y"}
    assert set(touched) == {("users", "u1"), ("users", "u9"), ("meta", "notes")}
