"""Replaying the tau2 golden fixtures (``../shared/tau2-golden``) against our domains.

Used by every domain's golden test: ``check_task_record`` replays one
``tasks_base.jsonl`` record (initial hashes, every gold call's output and error flag,
hashes after every call's step, env assertions, the reference state and the
evaluation verdicts); ``check_probe`` replays one probe sequence.

Error texts that tau2 takes from the Python runtime or pydantic are implementation
artefacts (golden README): for those only the ``Error: `` prefix and the error flag must
match. Every other output must be equal byte for byte.
"""
from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any, Callable

import resources
from userbench_env.core.messages import Message, ToolCall
from userbench_env.domains import make_world
from userbench_env.tasks import load_tasks

#: The golden fixtures folder (``$USERBENCH_TAU2_GOLDEN`` or ``../shared/tau2-golden``); without
#: it (or without the tau2 data they replay on) the importing test module is skipped.
GOLDEN = resources.tau2_golden(module_level=True)

ARTEFACT_PATTERNS = [
    re.compile(p)
    for p in (
        r"got an unexpected keyword argument",
        r"missing \d+ required (positional|keyword-only) argument",
        r"takes \d+ positional argument",
        r"validation error",
        r"errors\.pydantic\.dev",
        r"slice indices must be integers",
        r"object has no attribute",
        r"unsupported operand type",
        r"object is not subscriptable",
        r"not supported between instances",
        r"unhashable type",
        r"object is not iterable",
        r"must be str, not",
        r"can only concatenate",
        r"argument of type .* is not iterable",
        r"object cannot be interpreted as an integer",
        r"string indices must be integers",
        r"could not convert string to float",
        r"invalid literal for int",
    )
]


def is_artefact(text: str) -> bool:
    """Whether a golden error text comes from the Python runtime or pydantic."""
    return text.startswith("Error: ") and any(p.search(text) for p in ARTEFACT_PATTERNS)


def assert_same_output(got_content: str, got_error: bool, want_content: str, want_error: bool, where: str) -> None:
    """Outputs equal, or both are errors and the golden text is a runtime artefact."""
    assert got_error == want_error, f"{where}: error flag {got_error} != {want_error}; got {got_content!r}"
    if want_content == got_content:
        return
    if is_artefact(want_content):
        assert got_content.startswith("Error: "), f"{where}: expected an error, got {got_content!r}"
        return
    raise AssertionError(f"{where}: output differs\n got: {got_content!r}\nwant: {want_content!r}")


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def task_records(golden_dir: Path, tau2_domain: str) -> list[dict[str, Any]]:
    return read_jsonl(golden_dir / tau2_domain / "tasks_base.jsonl")


def probes(golden_dir: Path, tau2_domain: str) -> list[dict[str, Any]]:
    return json.loads((golden_dir / tau2_domain / "probes.json").read_text(encoding="utf-8"))


def tasks_by_id(domain: str) -> dict[str, Any]:
    return {t.id: t for t in load_tasks(domain, source="tau2", split=None)}


def _call_messages(index: int, action: dict[str, Any]) -> list[Message]:
    requestor = action["requestor"]
    call = ToolCall(id=f"call_{index}", name=action["name"], arguments=action["arguments"], requestor=requestor)
    return [
        Message(role=requestor, tool_calls=[call]),
        Message(
            role="tool",
            content=action["output"],
            tool_call_id=call.id,
            requestor=requestor,
            error=action["error"],
        ),
    ]


def check_task_record(domain: str, record: dict[str, Any], task: Any) -> None:
    """Replay one golden task record and assert every recorded value."""
    from userbench_env.evaluation import evaluate_episode

    tid = record["task_id"]
    world = make_world(domain, source="tau2", task=task)
    init = record["initial_state"]
    assert world.db_hash("agent") == init["agent_db_hash"], f"task {tid}: initial agent hash"
    assert world.db_hash("user") == init["user_db_hash"], f"task {tid}: initial user hash"

    messages: list[Message] = _history(task)
    for i, action in enumerate(record["actions"]):
        result = world.call(action["name"], action["arguments"], requestor=action["requestor"])
        world.sync()  # the orchestrator syncs after every step
        assert_same_output(result.content, result.error, action["output"], action["error"], f"task {tid} action {i} {action['name']}")
        messages += _call_messages(i, action)

    live = record["live_env"]
    assert world.db_hash("agent") == live["agent_db_hash"], f"task {tid}: live agent hash"
    assert world.db_hash("user") == live["user_db_hash"], f"task {tid}: live user hash"
    for j, assertion in enumerate(live.get("env_assertions") or []):
        got = world.run_assertion(task.evaluation.env_assertions[j])
        assert got == assertion["met"], f"task {tid}: env assertion {j}"

    reference = make_world(domain, source="tau2", task=task)
    for gold in task.gold_actions:
        try:
            reference.invoke(gold.requestor, gold.name, gold.arguments)
        except Exception:
            pass
    ref = record["reference_env"]
    want_agent = live["agent_db_hash"] if ref.get("same_as_live_env") else ref["agent_db_hash"]
    want_user = live["user_db_hash"] if ref.get("same_as_live_env") else ref["user_db_hash"]
    assert reference.db_hash("agent") == want_agent, f"task {tid}: reference agent hash"
    assert reference.db_hash("user") == want_user, f"task {tid}: reference user hash"

    evaluation = record["evaluation"]
    messages.append(Message(role="assistant", content=evaluation["final_agent_message"]))
    verdict = evaluate_episode(task, messages, termination="agent_stop", source="tau2", include_nl=False)
    assert verdict.db_match == evaluation["db_match"], f"task {tid}: db_match"
    assert verdict.env_assertions_met == evaluation["env_assertions_met"], f"task {tid}: env assertions"
    assert verdict.env_reward == evaluation["env_reward"], f"task {tid}: env_reward"
    assert verdict.action_reward == evaluation["action_reward"], f"task {tid}: action_reward"
    assert verdict.communicate_reward == evaluation["communicate_reward"], f"task {tid}: communicate_reward"
    assert verdict.reward_excluding_nl == evaluation["reward_excluding_nl"], f"task {tid}: reward"


def _history(task: Any) -> list[Message]:
    from userbench_env.domains.world import _parse_history

    history = task.initial_state.message_history if task.initial_state else None
    return _parse_history(history) if history else []


def check_probe(
    domain: str,
    probe: dict[str, Any],
    tasks: dict[str, Any],
    normalize: Callable[[str], str] | None = None,
) -> None:
    """Replay one probe sequence on one world and assert outputs, flags and hashes.

    ``normalize`` (optional) rewrites each output of ours before comparison, for parts
    the fixtures stripped as nondeterministic (banking's ``[Timing: ...]`` suffix).
    """
    task = tasks[probe["setup_task"]] if probe.get("setup_task") else None
    world = make_world(domain, source="tau2", task=task)
    name = probe["probe"]
    assert world.db_hash("agent") == probe["initial_agent_db_hash"], f"{name}: initial agent hash"
    assert world.db_hash("user") == probe["initial_user_db_hash"], f"{name}: initial user hash"
    for i, call in enumerate(probe["calls"]):
        before = (world.db_hash("agent"), world.db_hash("user"))
        result = world.call(call["name"], call["arguments"], requestor=call["requestor"])
        world.sync()
        content = normalize(result.content) if normalize else result.content
        assert_same_output(content, result.error, call["output"], call["error"], f"{name} call {i} {call['name']}")
        after = (world.db_hash("agent"), world.db_hash("user"))
        assert (before[0] != after[0]) == call["agent_db_changed"], f"{name} call {i}: agent change flag"
        assert (before[1] != after[1]) == call["user_db_changed"], f"{name} call {i}: user change flag"
    assert world.db_hash("agent") == probe["final_agent_db_hash"], f"{name}: final agent hash"
    assert world.db_hash("user") == probe["final_user_db_hash"], f"{name}: final user hash"


def strip_schema(schema: Any) -> Any:
    """A JSON schema without descriptions and titles (what ``tool_schemas.json`` keeps)."""
    if isinstance(schema, dict):
        return {k: strip_schema(v) for k, v in schema.items() if k not in ("description", "title")}
    if isinstance(schema, list):
        return [strip_schema(v) for v in schema]
    return schema


def check_tool_schemas(domain: str, tau2_domain: str) -> None:
    """Our toolkits list the same tools as tau2 with equal kinds, flags and parameter schemas.

    A side absent from the golden file must have no tools. Listed tools are exactly the
    non-discoverable ones, and every tool has a description of its own.
    """
    golden = json.loads((GOLDEN / tau2_domain / "tool_schemas.json").read_text(encoding="utf-8"))
    world = make_world(domain, source="tau2")
    for side in ("agent", "user"):
        if side not in golden:
            assert world.tool_schemas(side) == [], side
            continue
        kit = world.toolkit(side)
        specs = kit.tool_specs()
        assert sorted(specs) == sorted(t["name"] for t in golden[side]), side
        assert sorted(kit.listed_tools()) == sorted(t["name"] for t in golden[side] if not t["discoverable"]), side
        ours = {s["function"]["name"]: s["function"] for s in world.tool_schemas(side, list(specs))}
        for want in golden[side]:
            name = want["name"]
            spec = specs[name]
            assert (spec.kind, spec.mutates_state, spec.discoverable) == (
                want["tool_type"], want["mutates_state"], want["discoverable"]
            ), f"{side}/{name}"
            assert strip_schema(ours[name]["parameters"]) == want["parameters_schema"], f"{side}/{name}"
            assert ours[name]["description"], f"{side}/{name}"
