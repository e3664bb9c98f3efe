"""The blueprint extractor against every tau2 airline/retail/telecom task and the DBs."""
from __future__ import annotations

import json
import re

import pytest

from userbench_env.tasks import load_tasks
from userbench_env.tasks.extract import extract_known_info, requested_kinds

TOKEN = re.compile(r"#?[\w.@-]+")


def _db_keys(tau2_data, domain):
    db = json.loads((tau2_data / "domains" / domain / "db.json").read_text())
    return db


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_every_db_id_in_known_info_is_extracted_with_its_kind(tau2_data, domain):
    db = _db_keys(tau2_data, domain)
    kinds = {"users": "user_id", "reservations": "reservation_id", "orders": "order_id"}
    raws = json.loads((tau2_data / "domains" / domain / "tasks.json").read_text())
    checked = 0
    for raw in raws:
        text = raw["user_scenario"]["instructions"].get("known_info") or ""
        got = {(i.kind, i.value) for i in extract_known_info(text)}
        for token in TOKEN.findall(text):
            token = token.strip(".'")
            for table, kind in kinds.items():
                if token in db.get(table, {}):
                    assert (kind, token) in got, (raw["id"], token, got)
                    checked += 1
    assert checked >= (50 if domain == "airline" else 20)


def test_retail_emails_and_zips_match_the_user_records(tau2_data):
    db = _db_keys(tau2_data, "retail")
    zips = {u["address"]["zip"] for u in db["users"].values()}
    for task in load_tasks("retail", source="tau2", split="base"):
        text = task.blueprint.known_info_text or ""
        items = task.blueprint.known_info
        for email in re.findall(r"[\w.+-]+@[\w-]+\.\w+", text):
            assert ("email", email) in {(i.kind, i.value) for i in items}, task.id
        for zip_code in re.findall(r"\b\d{5}\b", text):
            if zip_code in zips:
                assert ("zip", zip_code) in {(i.kind, i.value) for i in items}, (task.id, text)


def test_telecom_items_and_spans_are_verbatim(tau2_data):
    for task in load_tasks("telecom", source="tau2", split="base"):
        items = {(i.kind, i.value) for i in task.blueprint.known_info}
        assert {("name", "John Smith"), ("phone_number", "555-123-2002")} <= items
        for item in task.blueprint.known_info:
            assert item.span in task.blueprint.known_info_text


def test_shapes_that_need_context():
    found = lambda text: [(i.kind, i.value) for i in extract_known_info(text)]  # noqa: E731
    assert found("You are Lucas (lucas_santos_6600), you live in Denver CO 80239.") == [
        ("first_name", "Lucas"), ("user_id", "lucas_santos_6600"), ("zip", "80239")]
    assert found("Your friends name is Ivan Smith.") == [("other", "Ivan Smith")]
    assert found("You want to cancel reservation IDs XEHM4B and 59XX6W.") == [
        ("reservation_id", "XEHM4B"), ("reservation_id", "59XX6W")]
    assert found("Your reservation number is pending.") == []
    assert found("You earn $100,000 a year.") == []


def test_requested_kinds_reads_questions_only():
    assert requested_kinds("Could you tell me your user id and zip code?") >= {"user_id", "zip"}
    assert requested_kinds("What is your reservation number?") == {"reservation_id"}
    assert "name" in requested_kinds("May I have your full name, please?")
    assert requested_kinds("Your reservation has been cancelled.") == frozenset()
