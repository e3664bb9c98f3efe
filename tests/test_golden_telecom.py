"""The telecom domain against tau2's golden fixtures.

Every base task record in full (``check_task_record``: live replay with syncs, reference
replay without, evaluation verdicts) plus its initialization results; every non-base
compact record (hashes, output digests, error flags, env assertions, db_match, reward);
every probe; the fresh DB canonical strings and hashes; the tool schemas. Non-base
records run in chunks so ``pytest -n`` can spread them.
"""
from __future__ import annotations

import hashlib
import json
from functools import lru_cache
from typing import Any

import pytest

from golden_support import (
    GOLDEN,
    _call_messages,
    check_probe,
    check_task_record,
    check_tool_schemas,
    probes,
    read_jsonl,
    task_records,
    tasks_by_id,
)
from userbench_env.core.messages import Message
from userbench_env.domains import make_world
from userbench_env.evaluation import evaluate_episode
from userbench_env.evaluation.environment import reference_hashes

RECORDS = task_records(GOLDEN, "telecom")
NONBASE = read_jsonl(GOLDEN / "telecom" / "tasks_nonbase_compact.jsonl")
PROBES = probes(GOLDEN, "telecom")
CHUNK = 60
CHUNKS = [NONBASE[i : i + CHUNK] for i in range(0, len(NONBASE), CHUNK)]
#: The closing agent text of tau2's synthetic evaluation trajectory (same in every base record).
FINAL_AGENT_MESSAGE = "Is there anything else I can help you with?"


@lru_cache(maxsize=1)
def _tasks() -> dict[str, Any]:
    return tasks_by_id("telecom")


@pytest.fixture(scope="module")
def tasks() -> dict[str, Any]:
    return _tasks()


def test_fixture_counts():
    assert len(RECORDS) == 94
    assert len(NONBASE) == 1722
    assert len(PROBES) == 6
    assert {r["evaluation"]["final_agent_message"] for r in RECORDS} == {FINAL_AGENT_MESSAGE}


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_task_record(record, tasks):
    check_task_record("telecom", record, tasks[record["task_id"]])


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_initialization_results(record, tasks):
    """Each initialization helper returns what tau2's returned (compared as ``str()``)."""
    task = tasks[record["task_id"]]
    world = make_world("telecom", source="tau2")
    actions = task.initial_state.initialization_actions
    want = record["initial_state"]["initialization_action_results"]
    assert [a.func_name for a in actions] == [w["func_name"] for w in want]
    for action, expected in zip(actions, want):
        result = world.invoke(action.env_type, action.func_name, action.arguments)
        world.sync()
        assert (None if result is None else str(result)) == expected["result"], action.func_name


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def check_compact_record(record: dict[str, Any], task: Any) -> None:
    """Replay one non-base compact record: live path, reference path and the verdict."""
    tid = record["task_id"]
    world = make_world("telecom", source="tau2", task=task)
    assert world.db_hash("agent") == record["initial_agent_db_hash"], f"{tid}: initial agent hash"
    assert world.db_hash("user") == record["initial_user_db_hash"], f"{tid}: initial user hash"
    digests, errors, messages = [], [], []
    for i, gold in enumerate(task.gold_actions):
        result = world.call(gold.name, gold.arguments, requestor=gold.requestor)
        world.sync()
        digests.append(_digest(result.content))
        errors.append(result.error)
        messages += _call_messages(i, {**gold.model_dump(), "output": result.content, "error": result.error})
    assert digests == record["action_output_sha256_prefix16"], f"{tid}: outputs"
    assert errors == record["action_errors"], f"{tid}: error flags"
    assert world.db_hash("agent") == record["live_agent_db_hash"], f"{tid}: live agent hash"
    assert world.db_hash("user") == record["live_user_db_hash"], f"{tid}: live user hash"

    reference = reference_hashes(task, "tau2")  # gold calls without syncs; reused by the verdict
    assert reference.agent == record["reference_agent_db_hash"], f"{tid}: reference agent hash"
    assert reference.user == record["reference_user_db_hash"], f"{tid}: reference user hash"

    messages.append(Message(role="assistant", content=FINAL_AGENT_MESSAGE))
    verdict = evaluate_episode(task, messages, termination="agent_stop", source="tau2", include_nl=False)
    assert verdict.env_assertions_met == record["env_assertions_met"], f"{tid}: env assertions"
    assert verdict.db_match == record["db_match"], f"{tid}: db_match"
    assert verdict.reward_excluding_nl == record["reward_excluding_nl"], f"{tid}: reward"


@pytest.mark.parametrize("chunk", range(len(CHUNKS)), ids=[f"chunk{i:02d}" for i in range(len(CHUNKS))])
def test_nonbase_records(chunk, tasks):
    for record in CHUNKS[chunk]:
        check_compact_record(record, tasks[record["task_id"]])


@pytest.mark.parametrize("probe", PROBES, ids=[p["probe"] for p in PROBES])
def test_probe(probe, tasks):
    check_probe("telecom", probe, tasks)


def test_fresh_db_hashes():
    fresh = json.loads((GOLDEN / "telecom" / "fresh_db.json").read_text(encoding="utf-8"))
    world = make_world("telecom", source="tau2")
    for side, doc in (("agent", world.agent_db), ("user", world.user_db)):
        want = fresh[side]
        assert doc.canonical_json() == want["canonical_string"], side
        assert world.db_hash(side) == want["hash"], side
        for table, table_hash in want["table_hashes"].items():
            got = hashlib.sha256(json.dumps(doc[table], sort_keys=True, default=str).encode("utf-8")).hexdigest()
            assert got == table_hash, f"{side}/{table}"


def test_policy_wraps_both_documents(tau2_data):
    folder = tau2_data / "domains" / "telecom"
    main = (folder / "main_policy.md").read_text(encoding="utf-8")
    manual = (folder / "tech_support_manual.md").read_text(encoding="utf-8")
    policy = make_world("telecom", source="tau2").policy
    assert policy == f"<main_policy>\n{main}\n</main_policy>\n<tech_support_policy>\n{manual}\n</tech_support_policy>"


def test_tool_schemas_match_tau2():
    check_tool_schemas("telecom", "telecom")


def test_refuel_without_draft_bill_is_reproducible():
    """A Draft bill created by ``refuel_data`` gets a seeded id: two worlds agree."""

    def run() -> tuple[str, str]:
        world = make_world("telecom", source="tau2")
        result = world.call("refuel_data", {"customer_id": "C1002", "line_id": "L1004", "gb_amount": 1.0})
        assert not result.error, result.content
        bill_id = world.agent_db["customers"][1]["bill_ids"][-1]
        return bill_id, world.db_hash("agent")

    first, second = run(), run()
    assert first == second
    bill_id = first[0]
    assert len(bill_id) == 9 and bill_id[0] == "B" and int(bill_id[1:], 16) >= 0
    world = make_world("telecom", source="tau2")
    world.call("refuel_data", {"customer_id": "C1002", "line_id": "L1004", "gb_amount": 1.0})
    bill = json.loads(world.call("get_details_by_id", {"id": bill_id}).content)
    assert bill["status"] == "Draft" and bill["period_start"] == "2025-03-01" and bill["period_end"] == "2025-03-31"
    assert bill["total_due"] == pytest.approx(0.1) and bill["line_items"][0]["description"] == "Data refueling: 1.0 GB at $0.1/GB"


def test_break_vpn_degrades_only_its_own_world():
    """``break_vpn`` makes later reconnections of the same world slow, never another world's."""
    broken = make_world("telecom", source="tau2")
    broken.invoke("user", "break_vpn", {})
    broken.call("disconnect_vpn", {}, requestor="user")
    broken.call("connect_vpn", {}, requestor="user")
    assert "PerformanceLevel.POOR: 'poor'" in broken.call("check_vpn_status", {}, requestor="user").content
    fresh = make_world("telecom", source="tau2")
    fresh.call("connect_vpn", {}, requestor="user")
    assert fresh.call("check_vpn_status", {}, requestor="user").content == (
        "VPN is ON and connected. Details: {'server_address': '192.168.1.1', 'protocol': 'OpenVPN', "
        "'server_performance': <PerformanceLevel.EXCELLENT: 'excellent'>}"
    )
