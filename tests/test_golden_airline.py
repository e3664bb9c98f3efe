"""The airline domain against tau2's golden fixtures: every task record, every probe,
the fresh DB hashes (whole DB, per table, per record) and the tool schemas."""
from __future__ import annotations

import hashlib
import json

import pytest

from golden_support import GOLDEN, check_probe, check_task_record, check_tool_schemas, probes, task_records, tasks_by_id
from userbench_env.domains import make_world
from userbench_env.domains.store import canonical_value_json

RECORDS = task_records(GOLDEN, "airline")
PROBES = probes(GOLDEN, "airline")


@pytest.fixture(scope="module")
def tasks():
    return tasks_by_id("airline")


def test_fixture_counts():
    assert len(RECORDS) == 43
    assert len(PROBES) == 5


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_task_record(record, tasks):
    check_task_record("airline", record, tasks[record["task_id"]])


@pytest.mark.parametrize("probe", PROBES, ids=[p["probe"] for p in PROBES])
def test_probe(probe, tasks):
    check_probe("airline", probe, tasks)


def test_fresh_db_hashes():
    fresh = json.loads((GOLDEN / "airline" / "fresh_db.json").read_text(encoding="utf-8"))["agent"]
    world = make_world("airline", source="tau2")
    assert world.db_hash("user") is None
    text = world.agent_db.canonical_json()
    assert len(text) == fresh["canonical_length"]
    assert world.db_hash("agent") == fresh["hash"]
    for table, want in fresh["table_hashes"].items():
        got = hashlib.sha256(world.agent_db[table].canonical_json().encode("utf-8")).hexdigest()
        assert got == want, table
    for table, prefixes in fresh["record_hashes_sha256_prefix16"].items():
        records = world.agent_db[table]
        assert sorted(records) == sorted(prefixes), table
        for key, want in prefixes.items():
            got = hashlib.sha256(canonical_value_json(records.peek(key)).encode("utf-8")).hexdigest()[:16]
            assert got == want, f"{table}/{key}"


def test_tool_schemas_match_tau2():
    check_tool_schemas("airline", "airline")
