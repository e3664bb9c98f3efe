"""Retail against tau2's golden fixtures: every task record, every probe, fresh DB, schemas."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from golden_support import GOLDEN, check_probe, check_task_record, check_tool_schemas, probes, task_records, tasks_by_id
from userbench_env.datapaths import domain_folder
from userbench_env.domains import get_domain, make_world
from userbench_env.domains.store import canonical_value_json

RECORDS = task_records(GOLDEN, "retail")
PROBES = probes(GOLDEN, "retail")
TABLES = ("products", "users", "orders")


@pytest.fixture(scope="module")
def retail_tasks() -> dict[str, Any]:
    return tasks_by_id("retail")


@pytest.fixture(scope="module")
def fresh(golden_dir: Path) -> dict[str, Any]:
    return json.loads((golden_dir / "retail" / "fresh_db.json").read_text(encoding="utf-8"))["agent"]


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def test_fixture_counts() -> None:
    assert len(RECORDS) == 94
    assert len(PROBES) >= 3


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_task_record(record: dict[str, Any], retail_tasks: dict[str, Any]) -> None:
    check_task_record("retail", record, retail_tasks[record["task_id"]])


@pytest.mark.parametrize("probe", PROBES, ids=[p["probe"] for p in PROBES])
def test_probe(probe: dict[str, Any], retail_tasks: dict[str, Any]) -> None:
    check_probe("retail", probe, retail_tasks)


def test_fresh_db_hash_tables_and_records(fresh: dict[str, Any]) -> None:
    world = make_world("retail", source="tau2")
    assert world.db_hash("agent") == fresh["hash"]
    assert world.db_hash("user") is None
    assert len(world.agent_db.canonical_json()) == fresh["canonical_length"]
    for table in TABLES:
        assert _sha(world.agent_db[table].canonical_json()) == fresh["table_hashes"][table], table
        want = fresh["record_hashes_sha256_prefix16"][table]
        got = {key: _sha(canonical_value_json(rec))[:16] for key, rec in world.agent_db[table].items_ro()}
        assert got == want, table
        sample = fresh["sample_records_canonical"][table]
        assert canonical_value_json(world.agent_db[table].peek(sample["key"])) == sample["canonical"]


def test_tool_schemas_match_tau2() -> None:
    check_tool_schemas("retail", "retail")


def test_worlds_do_not_leak_writes_into_the_shared_base(fresh: dict[str, Any]) -> None:
    first = make_world("retail", source="tau2")
    second = make_world("retail", source="tau2")
    result = first.call("cancel_pending_order", {"order_id": "#W9318778", "reason": "ordered by mistake"})
    assert not result.error
    first.call("modify_user_address", {
        "user_id": "noah_brown_6181", "address1": "1 A St", "address2": "", "city": "X",
        "state": "CA", "country": "USA", "zip": "12345",
    })
    assert first.db_hash("agent") != fresh["hash"]
    assert second.db_hash("agent") == fresh["hash"]
    assert json.loads(second.call("get_order_details", {"order_id": "#W9318778"}).content)["status"] == "pending"
    third = make_world("retail", source="tau2")
    assert third.db_hash("agent") == fresh["hash"]
    base, _, _ = get_domain("retail").base(domain_folder("retail", "retail", "tau2", None), "tau2")
    assert base.hash() == fresh["hash"]


def test_calculate_is_arithmetic_only() -> None:
    world = make_world("retail", source="tau2")
    assert world.call("calculate", {"expression": "7"}).content == "7.0"
    assert world.call("calculate", {"expression": "(2 + 3) * 4 / 8"}).content == "2.5"
    assert world.call("calculate", {"expression": "1/0"}).content == "Error: division by zero"
    bad = world.call("calculate", {"expression": "__import__('os').getcwd()"})
    assert (bad.content, bad.error) == ("Error: Invalid characters in expression", True)
    assert world.call("calculate", {"expression": "9**9**9**9"}).error
