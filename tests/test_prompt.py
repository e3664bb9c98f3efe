"""The simulated user's system prompt: tau2-exact scenario rendering and our own guidelines."""
from __future__ import annotations

import hashlib
import json
from importlib.resources import files
from pathlib import Path

import pytest

from userbench_env.core.task import Blueprint, KnownInfoItem, Task
from userbench_env.proxies.prompt import (
    assemble_system_prompt,
    blueprint_scenario,
    load_guidelines,
    prompt_hash,
    render_scenario,
    render_tau2_scenario,
    system_prompt,
)
from userbench_env.tasks.tau2 import task_from_tau2

END_TOKENS = ("###STOP###", "###TRANSFER###", "###OUT-OF-SCOPE###")


def _raw_tasks(tau2_data: Path, domain: str) -> dict[str, dict]:
    folder = tau2_data / "domains" / domain
    if (folder / "tasks").is_dir():
        raws = [json.loads(p.read_text(encoding="utf-8")) for p in sorted((folder / "tasks").glob("*.json"))]
    else:
        raws = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
    return {str(raw["id"]): raw for raw in raws}


def _golden_records(golden_dir: Path) -> list[tuple[str, dict]]:
    records = []
    for path in sorted(golden_dir.glob("*/user_prompts.json")):
        records += [(path.parent.name, record) for record in json.loads(path.read_text(encoding="utf-8"))]
    return records


def test_golden_records_cover_every_domain(golden_dir: Path) -> None:
    domains = {domain for domain, _ in _golden_records(golden_dir)}
    assert domains == {"airline", "retail", "telecom", "banking_knowledge", "mock"}


def test_tau2_scenario_and_prompt_are_byte_identical(golden_dir: Path, tau2_data: Path) -> None:
    records = _golden_records(golden_dir)
    raws = {domain: _raw_tasks(tau2_data, domain) for domain in {d for d, _ in records}}
    for domain, record in records:
        raw = raws[domain][record["task_id"]]
        scenario = render_tau2_scenario(raw["user_scenario"])
        assert scenario == record["rendered_scenario"], (domain, record["task_id"])
        with_tools = bool(record["user_tool_names"])
        assert record["guidelines_file"].endswith("_tools.md") == with_tools
        prompt = assemble_system_prompt(load_guidelines(with_tools, "tau2", str(tau2_data)), scenario)
        assert prompt == record["system_prompt"], (domain, record["task_id"])
        # the same through our Task object and the structured blueprint
        task = task_from_tau2(raw, domain, [])
        assert render_scenario(task) == record["rendered_scenario"]
        assert render_tau2_scenario(blueprint_scenario(task.blueprint)) == record["rendered_scenario"]
        assert system_prompt(task, with_tools, "tau2", tau2_data) == record["system_prompt"]


def test_structured_rendering_layout() -> None:
    scenario = {
        "persona": "Line one\n\nline two",
        "instructions": {
            "domain": "airline",
            "reason_for_call": "You want A.\n\nAlso B.",
            "known_info": None,
            "unknown_info": "You forgot C.",
            "task_instructions": "Be brief.",
        },
    }
    assert render_tau2_scenario(scenario) == (
        "Persona:\n\tLine one\n\n\tline two\nInstructions:\n\tDomain: airline\n\tReason for call:\n"
        "\t\tYou want A.\n\n\t\tAlso B.\n\tUnknown info:\n\t\tYou forgot C.\n\tTask instructions:\n\t\tBe brief."
    )
    assert render_tau2_scenario({"instructions": "Plain.\nTwo"}) == "Instructions:\n\tPlain.\n\tTwo"


def test_bundled_blueprint_items_render_without_free_text() -> None:
    blueprint = Blueprint(
        domain="retail",
        reason_for_call="You want a refund.",
        known_info=[
            KnownInfoItem(kind="order_id", value="#W1", span="Your order is #W1."),
            KnownInfoItem(kind="zip", value="12345"),
        ],
        unknown_info=["You do not know your email."],
        instructions="Accept store credit.",
    )
    task = Task(id="b1", domain="retail", blueprint=blueprint)
    text = render_scenario(task)
    assert "\tKnown info:\n\t\tYour order is #W1.\n\t\tzip: 12345\n" in text
    assert "\tUnknown info:\n\t\tYou do not know your email.\n" in text
    assert text.startswith("Instructions:\n\tDomain: retail\n\tReason for call:\n\t\tYou want a refund.")


def test_our_guidelines_cover_the_contract() -> None:
    plain, tools = load_guidelines(False), load_guidelines(True)
    for text in (plain, tools):
        for token in END_TOKENS:
            assert token in text
        lowered = text.lower()
        for phrase in ("one message per turn", "follow the scenario", "never invent facts", "only when the agent asks"):
            assert phrase in lowered, phrase
    lowered = tools.lower()
    for phrase in ("call one tool", "never both", "result of a tool you actually called", "one at a time"):
        assert phrase in lowered, phrase
    assert "tool" not in plain.lower()


def test_our_guidelines_are_our_own_words(tau2_data: Path) -> None:
    ours = load_guidelines(False) + load_guidelines(True)
    for with_tools in (False, True):
        theirs = load_guidelines(with_tools, "tau2", str(tau2_data))
        for line in theirs.splitlines():
            sentence = line.strip(" -#").strip()
            if len(sentence) > 40:
                assert sentence not in ours, sentence


def test_guidelines_ship_as_package_data() -> None:
    folder = files("userbench_env.proxies") / "guidelines"
    names = sorted(p.name for p in folder.iterdir() if p.name.endswith(".md"))
    assert names == ["user.md", "user_tools.md"]


def test_system_prompt_layout_and_hash(tau2_data: Path) -> None:
    raw = _raw_tasks(tau2_data, "airline")["0"]
    task = task_from_tau2(raw, "airline", [])
    prompt = system_prompt(task, with_tools=False)
    assert prompt.startswith(load_guidelines(False).strip())
    assert prompt.endswith("<scenario>\n" + render_scenario(task) + "\n</scenario>")
    assert prompt_hash(prompt) == hashlib.sha256(prompt.encode()).hexdigest()
    assert system_prompt(task, with_tools=True) != prompt
    with pytest.raises(ValueError):
        load_guidelines(False, "nonsense")  # type: ignore[arg-type]
