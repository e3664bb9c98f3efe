"""The banking (tau2 ``banking_knowledge``, retrieval ``bm25_grep``) domain against tau2's
golden fixtures: every task record, every probe, the fresh DB hashes (whole DB, per table,
per record), the tool schemas and the per-task read-log allowlist."""
from __future__ import annotations

import hashlib
import json
import re

import pytest

from golden_support import GOLDEN, check_probe, check_task_record, check_tool_schemas, probes, task_records, tasks_by_id
from userbench_env.domains import make_world
from userbench_env.domains.store import canonical_value_json

RECORDS = task_records(GOLDEN, "banking_knowledge")
PROBES = probes(GOLDEN, "banking_knowledge")
_TIMING = re.compile(r"\[Timing: [^\]]*\]$")


def strip_timing(text: str) -> str:
    """Our KB_search output with its wall-clock suffix replaced as the fixtures did."""
    return _TIMING.sub("[Timing: <nondeterministic, stripped>]", text)


@pytest.fixture(scope="module")
def tasks():
    return tasks_by_id("banking")


def test_fixture_counts(tasks):
    assert len(tasks) == 97  # every tasks/*.json file, not the stale aggregate
    assert len(RECORDS) == 84
    assert len(PROBES) == 4


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_task_record(record, tasks):
    check_task_record("banking", record, tasks[record["task_id"]])


@pytest.mark.parametrize("probe", PROBES, ids=[p["probe"] for p in PROBES])
def test_probe(probe, tasks):
    check_probe("banking", probe, tasks, normalize=strip_timing)


@pytest.mark.parametrize("record", RECORDS, ids=[r["task_id"] for r in RECORDS])
def test_read_log_allowlist(record, tasks):
    world = make_world("banking", source="tau2", task=tasks[record["task_id"]])
    assert world.settings["read_log_allowlist"] == set(record["env_kwargs"]["read_log_allowlist"])


def test_fresh_db_hashes():
    fresh = json.loads((GOLDEN / "banking_knowledge" / "fresh_db.json").read_text(encoding="utf-8"))["agent"]
    world = make_world("banking", source="tau2")
    assert world.user_db is world.agent_db
    text = world.agent_db.canonical_json()
    assert len(text) == fresh["canonical_length"]
    assert world.db_hash("agent") == world.db_hash("user") == fresh["hash"]
    assert sorted(world.agent_db.keys()) == sorted(fresh["table_hashes"])
    for table, want in fresh["table_hashes"].items():
        section = world.agent_db[table]
        plain = {"data": section["data"].to_plain(), "notes": section["notes"]}
        assert hashlib.sha256(canonical_value_json(plain).encode("utf-8")).hexdigest() == want, table
    for table, prefixes in fresh["record_hashes_sha256_prefix16"].items():
        records = world.agent_db[table]["data"]
        assert sorted(records) == sorted(prefixes), table
        for key, want in prefixes.items():
            got = hashlib.sha256(canonical_value_json(records.peek(key)).encode("utf-8")).hexdigest()[:16]
            assert got == want, f"{table}/{key}"


def test_tool_schemas_match_tau2():
    check_tool_schemas("banking", "banking_knowledge")


def test_policy_is_the_bm25_grep_prompt(tau2_data):
    prompts = tau2_data / "domains" / "banking_knowledge" / "prompts"
    policy = make_world("banking", source="tau2").policy
    assert "{{" not in policy
    assert policy.startswith((prompts / "components" / "policy_header.md").read_text(encoding="utf-8"))
    assert (prompts / "components" / "additional_instructions.md").read_text(encoding="utf-8") in policy
    assert "`KB_search` (uses BM25 for retrieval) and `grep`" in policy


def test_grep_ranks_documents_by_match_count(tau2_data):
    world = make_world("banking", source="tau2")
    answer = world.call("grep", {"pattern": r"regulation\s+e\b"}).content
    ids = re.findall(r"^   ID: (.+)$", answer, re.MULTILINE)
    scores = [float(s) for s in re.findall(r"^   Score: ([0-9.]+)$", answer, re.MULTILINE)]
    assert 0 < len(ids) <= 10 and len(scores) == len(ids)
    assert scores == sorted(scores, reverse=True)
    for doc_id, score in zip(ids, scores):
        doc = json.loads((tau2_data / "domains" / "banking_knowledge" / "documents" / f"{doc_id}.json").read_text())
        assert len(re.findall(r"regulation\s+e\b", doc["content"], re.IGNORECASE)) == score


def test_bm25_search_equals_rank_bm25_bit_for_bit(tau2_data):
    import random

    from userbench_env.domains.banking.knowledge import KnowledgeBase, _tokens

    kb = KnowledgeBase.load(tau2_data / "domains" / "banking_knowledge" / "documents")
    model = kb._bm25[0]
    vocabulary = sorted(model.idf) + ["not-a-word-of-the-corpus", "The", "CARD"]
    rng = random.Random(7)
    for _ in range(400):
        query = " ".join(rng.choice(vocabulary) for _ in range(rng.randint(1, 9)))
        reference = model.get_scores(_tokens(query))  # rank_bm25's own scoring, as tau2 runs it
        order = sorted(range(len(kb.documents)), key=lambda i: -reference[i])[:10]
        assert kb.bm25(query) == [(kb.documents[i], float(reference[i])) for i in order if reference[i] > 0], query
