"""Demonstrations as data, the adaptive oracle, the chat the trainer sees, and the training
arithmetic (no model needed): real bundled telecom tasks, the scripted and perturbed users.

* ``demonstrations`` returns one chat record per kept episode: the env's system prompt (or
  the given one), the greeting, user/assistant/tool messages whose tool-call ids match their
  results; fidelity-gated by default (a user that volunteers unasked information leaves
  nothing), R_tau-gated always; ``tools`` narrows the schemas and drops episodes calling
  other tools. ``userbench collect --format chat`` writes the same records.
* The adaptive oracle plays the scripted oracle's turns against a faithful user and asks
  fewer questions against one that volunteers identifiers, still reaching R_tau 1.
* ``chat_segments``: the chat cut into the prompts the model server renders and the
  completions the agent wrote, which concatenate back to the server's own rendering.
* ``advantages``: group-relative, gated rollouts left out; Wilson and bootstrap intervals.
"""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from userbench_env.agents.llm import LLMAgent, select_tools
from userbench_env.analysis.stats import bootstrap_interval, wilson_interval
from userbench_env.integrations.sft import demonstrations
from userbench_env.serve.chatml import render_prompt
from userbench_env.tasks import load_tasks
from userbench_env.training.grpo import advantages
from userbench_env.training.tokens import OPEN_TURN, chat_segments

ENV = "UserBench/Telecom-v0"
LEAKY = "perturbed:volunteers_unasked_info@1.0+scripted"
TASKS = ["telecom_mobile_data_data_off_novice", "telecom_service_overdue_bill_none", "telecom_mms_wifi_calling_mms_none"]


@pytest.fixture(scope="module")
def records():
    return demonstrations(ENV, "train", task_ids=TASKS)


def test_a_demonstration_is_the_chat_an_llm_agent_keeps(records) -> None:
    assert [r["task_id"] for r in records] == TASKS
    for record in records:
        messages = record["messages"]
        assert messages[0]["role"] == "system" and "Brightwave" in messages[0]["content"]
        assert messages[1] == {"role": "assistant", "content": "Hi! How can I help you today?"}
        assert messages[2]["role"] == "user" and messages[-1]["role"] == "assistant"
        assert {t["function"]["name"] for t in record["tools"]} >= {"get_customer_by_phone", "send_payment_request"}
        assert record["r_tau"] == 1.0 and record["ufs_pass"] is True and record["agent_tool_calls"] >= 1
        for i, message in enumerate(messages):
            for call in message.get("tool_calls") or []:
                assert json.loads(call["function"]["arguments"]) is not None
                assert messages[i + 1] == {**messages[i + 1], "role": "tool", "tool_call_id": call["id"]}
    lookup = next(m for m in records[0]["messages"] if m.get("tool_calls"))
    assert lookup["tool_calls"][0]["function"]["name"] == "get_customer_by_phone" and lookup["content"] is None


def test_the_fidelity_gate_drops_every_episode_of_a_user_who_volunteers() -> None:
    assert demonstrations(ENV, "train", user_proxy=LEAKY, task_ids=TASKS) == []
    kept = demonstrations(ENV, "train", user_proxy=LEAKY, task_ids=TASKS, gate=None)
    assert len(kept) == len(TASKS) and all(r["ufs_pass"] is False and r["r_tau"] == 1.0 for r in kept)


def test_tools_narrow_the_schemas_and_drop_episodes_that_call_others() -> None:
    kept = demonstrations(ENV, "train", task_ids=TASKS, system_prompt="Be brief.", tools=["get_customer_by_phone"])
    assert [r["task_id"] for r in kept] == [TASKS[0], TASKS[2]]  # the overdue bill needs send_payment_request
    assert all(r["messages"][0]["content"] == "Be brief." and len(r["tools"]) == 1 for r in kept)
    with pytest.raises(ValueError, match="no tools"):
        demonstrations(ENV, "train", task_ids=TASKS[:1], tools=["no_such_tool"])


def test_the_adaptive_oracle_skips_only_questions_already_answered(records) -> None:
    assert demonstrations(ENV, "train", agent="adaptive", task_ids=TASKS) == records
    scripted = demonstrations(ENV, "train", user_proxy=LEAKY, task_ids=TASKS, gate=None)
    adaptive = demonstrations(ENV, "train", agent="adaptive", user_proxy=LEAKY, task_ids=TASKS, gate=None)
    assert all(r["r_tau"] == 1.0 for r in adaptive)
    assert sum(r["agent_questions"] for r in adaptive) < sum(r["agent_questions"] for r in scripted)
    for record in adaptive:  # never asks for the phone number after hearing it
        said = ""
        for message in record["messages"][2:]:
            if message["role"] == "user":
                said += message["content"]
            elif message["role"] == "assistant" and "phone number?" in (message["content"] or ""):
                phone = next(i.value for t in load_tasks("telecom", "bundled", "train") if t.id == record["task_id"]
                             for i in t.blueprint.known_info if i.kind == "phone_number")
                assert phone not in said


def test_collect_writes_chat_records_and_refuses_a_bad_domain(tmp_path, records) -> None:
    out = tmp_path / "demos.jsonl"
    args = [sys.executable, "-m", "userbench_env.cli", "collect", "--domain", "telecom", "--format", "chat", "--out", str(out)]
    done = subprocess.run(args + ["--task-id", TASKS[0], "--task-id", TASKS[1]], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert [json.loads(line) for line in out.read_text().splitlines()] == records[:2]
    assert "kept 2 demonstrations" in done.stderr
    bad = subprocess.run(args[:4] + ["--domain", "nowhere"], capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_segments_are_the_servers_prompts_and_the_agents_completions(records) -> None:
    for record in records:
        messages, tools = record["messages"], record["tools"]
        segments = chat_segments(messages, tools)
        assert "".join(s.text for s in segments) + "\n" + OPEN_TURN == render_prompt(messages, tools)
        trained = [s.text for s in segments if s.trained]
        agent_turns = [m for m in messages[2:] if m["role"] == "assistant"]
        assert len(trained) == len(agent_turns) and all(t.endswith("<|im_end|>") for t in trained)
        assert "Hi! How can I help you today?" not in "".join(trained)  # the env's greeting is context
        prompt = "".join(s.text for s in segments[:1])
        assert prompt == render_prompt(messages[:messages.index(agent_turns[0])], tools)


def test_an_llm_agent_offers_only_the_named_tools(records) -> None:
    schemas = records[0]["tools"]
    assert [s["function"]["name"] for s in select_tools(schemas, ["get_customer_by_phone"])] == ["get_customer_by_phone"]
    agent = LLMAgent("openai/x", base_url="http://127.0.0.1:9/v1", tool_names=["get_customer_by_phone"])
    body = agent.request("Hi", {"system_prompt": "S", "tools": schemas})
    assert [t["function"]["name"] for t in body["tools"]] == ["get_customer_by_phone"]
    with pytest.raises(ValueError, match="no tools"):
        select_tools(schemas, ["nope"])


def test_group_relative_advantages() -> None:
    assert advantages([1.0, 0.0, None, 1.0]) == pytest.approx([0.7070, -1.4139, 0.0, 0.7070], abs=1e-3)
    assert advantages([1.0, 1.0, 1.0]) == [0.0, 0.0, 0.0]
    assert advantages([None, 1.0]) == [0.0, 0.0]


def test_intervals() -> None:
    low, high = wilson_interval(0, 24)
    assert low == 0.0 and high == pytest.approx(0.1380, abs=1e-3)
    assert wilson_interval(12, 24) == pytest.approx((0.314, 0.686), abs=1e-3)
    assert bootstrap_interval([1.0, 2.0, 3.0, 4.0]) == bootstrap_interval([1.0, 2.0, 3.0, 4.0])
    low, high = bootstrap_interval([0.0] * 10 + [1.0] * 10)
    assert 0.25 < low < 0.5 < high < 0.75
