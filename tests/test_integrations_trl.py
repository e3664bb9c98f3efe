"""The TRL adapter without a model: generated tools, the episode loop, rewards, splits, lightness.

The scripted oracle agent plays whole episodes through the generated environment class
(its tool calls as method calls, its messages through ``send_message``) on real bundled
tasks; the rewards are read back from the env's own ``info["episode_record"]``.
"""
from __future__ import annotations

import inspect
import json
import math
import subprocess
import sys

import pytest

import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.integrations.episode import EpisodeRow, episode_rows, score_episode, split_task_ids
from userbench_env.integrations.trl import (
    environment_class,
    fidelity_weighted_r_tau,
    final_reply,
    r_tau,
    reward_function,
    rollout_stats,
    ufs_gated_r_tau,
)
from userbench_env.runner.gate import Gate
from userbench_env.tasks import load_task

AGENT_SIDE = ["UserBench/Airline-v0", "UserBench/Retail-v0", "UserBench/Telecom-v0", "UserBench/Banking-v0"]
GATE_FAILING_PROXY = "perturbed:volunteers_unasked_info@1.0+scripted"  # volunteers an item in the opening turn


def tool_methods(cls: type) -> dict:
    """What TRL offers the model: the public functions of the class except reset."""
    return {n: f for n, f in inspect.getmembers(cls, predicate=inspect.isfunction) if not n.startswith("_") and n != "reset"}


def play(env, agent: ScriptedAgent, row: dict) -> str:
    """Play an episode with the scripted agent through the class's tool methods; the last observation."""
    observation = env.reset(**row)
    agent.reset(load_task(load_domain(row["env_id"]), row["task_id"], row["task_source"]))
    while not env.done:
        action = agent.act(observation, {})
        parsed = json.loads(action) if action.lstrip().startswith(("{", "[")) else None
        if parsed is None:
            observation = env.send_message(message=action)
        else:
            calls = parsed if isinstance(parsed, list) else [parsed]
            for call in calls:
                observation = getattr(env, call["name"])(**call["arguments"])
    return observation


def load_domain(env_id: str) -> str:
    return env_id.split("/")[1].split("-")[0].lower()


def test_import_userbench_env_imports_neither_trainer_library() -> None:
    code = ("import sys, userbench_env, userbench_env.integrations.trl, userbench_env.integrations.episode; "
            "print(sorted(m for m in ('trl', 'verifiers', 'torch', 'transformers', 'datasets') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


@pytest.mark.parametrize("env_id", AGENT_SIDE)
def test_generated_tools_carry_the_env_schemas(env_id: str) -> None:
    transformers_utils = pytest.importorskip("transformers.utils")
    cls = environment_class(env_id)
    env = cls()
    env.reset(**episode_rows(env_id, limit=1)[0])
    schemas = {s["function"]["name"]: s["function"] for s in env.session.tools}
    methods = tool_methods(cls)
    assert set(methods) == set(schemas) | {"send_message"}
    for name, original in schemas.items():
        derived = transformers_utils.get_json_schema(getattr(env, name))["function"]
        assert derived["name"] == name
        assert derived["description"] == original["description"].strip()
        params, got = original.get("parameters") or {}, derived.get("parameters") or {}
        assert set(got.get("properties", {})) == set(params.get("properties", {}))
        assert set(got.get("required", [])) == set(params.get("required", []))
        for key, prop in params.get("properties", {}).items():
            assert got["properties"][key].get("enum") == prop.get("enum")
            if "type" in prop:
                assert got["properties"][key]["type"] in (prop["type"], [prop["type"], "null"])


def test_a_restricted_tool_set_and_unknown_tools() -> None:
    cls = environment_class("UserBench/Retail-v0", tools=["get_order_details"])
    assert set(tool_methods(cls)) == {"get_order_details", "send_message"}
    with pytest.raises(ValueError, match="no tools"):
        environment_class("UserBench/Retail-v0", tools=["launch_rocket"])
    with pytest.raises(ValueError, match="not an agent-side env"):
        environment_class("UserBench/Retail-User-v0")


@pytest.mark.parametrize("env_id", AGENT_SIDE)
def test_the_oracle_through_the_class_earns_r_tau_one_and_the_end_is_visible(env_id: str) -> None:
    cls = environment_class(env_id)
    env = cls()
    row = episode_rows(env_id, "train", limit=1)[0]
    last = play(env, ScriptedAgent(), row)
    episode = env.episode
    assert last.endswith(f"[conversation over: {episode['termination']}]")
    assert episode["termination"] in ("user_stop", "agent_stop")
    assert r_tau([env]) == [1.0] == [episode["reward"]]
    assert ufs_gated_r_tau([env]) == [1.0] and episode["ufs_pass"] is not False
    assert fidelity_weighted_r_tau([env]) == [1.0]
    assert env.send_message(message="one more thing").startswith("Error: [conversation over:")


def test_an_open_episode_ends_as_the_agents_stop_when_scored() -> None:
    env = environment_class("UserBench/Retail-v0")()
    env.reset(**episode_rows("UserBench/Retail-v0", limit=1)[0])
    assert not env.done
    assert r_tau([env]) == [0.0]
    assert env.done and env.session.termination == "agent_stop"


def test_the_final_plain_answer_reaches_the_user_before_scoring() -> None:
    """TRL ends a rollout on an answer without a tool call: that answer is the agent's
    message to the customer. Here it asks the scripted user to switch airplane mode off,
    which is the whole fix of this telecom task (R_tau from the phone's state)."""
    row = {"env_id": "UserBench/Telecom-v0", "task_source": "bundled", "split": "train",
           "task_id": "telecom_service_airplane_mode_on_none", "seed": 0}
    cls = environment_class("UserBench/Telecom-v0")
    answered, silent, unparsed = cls(), cls(), cls()
    for env in (answered, silent, unparsed):
        env.reset(**row)
    completions = [[{"role": "assistant", "content": "Please toggle airplane mode and tell me what you see."}],
                   [{"role": "assistant", "content": "   "}],
                   [{"role": "assistant", "content": '<tool_call>\n{"name": "toggle_airplane_mode"'}]]
    assert r_tau([answered, silent, unparsed], completions=completions) == [1.0, 0.0, 0.0]
    assert final_reply(completions[0]) == "Please toggle airplane mode and tell me what you see."
    assert final_reply(completions[1]) is final_reply(completions[2]) is None
    assert final_reply([{"role": "assistant", "content": "", "tool_calls": [{"type": "function"}]}]) is None
    assert answered.session.turns == 2 and silent.session.turns == 1  # the answer, then the agent's stop
    # scoring again (a second reward function) neither re-sends the answer nor changes the result
    assert r_tau([answered], completions=completions[:1]) == [1.0] and answered.session.turns == 2


def test_rollout_seeds_give_each_rollout_of_a_row_its_own_seed() -> None:
    rows = episode_rows("UserBench/Airline-v0", limit=2)
    fresh = environment_class("UserBench/Airline-v0", rollout_seeds=True)
    plain = environment_class("UserBench/Airline-v0")
    seeds = []
    for row in (rows[0], rows[0], rows[1], rows[0]):
        env = fresh()
        env.reset(**{**row, "prompt": "ignored"})
        seeds.append(env.session.row.seed)
    assert seeds == [0, 1, 0, 2]
    again = environment_class("UserBench/Airline-v0", rollout_seeds=True)()  # a new class counts afresh
    again.reset(**rows[0])
    assert again.session.row.seed == 0
    for _ in range(2):
        env = plain()
        env.reset(**rows[0])
        assert env.session.row.seed == 0


def test_a_user_failing_ufs_gets_no_learning_signal() -> None:
    env_id = "UserBench/Retail-v0"
    cls = environment_class(env_id)
    clean, perturbed = cls(), cls()
    rows = episode_rows(env_id, limit=1)
    play(clean, ScriptedAgent(), rows[0])
    play(perturbed, ScriptedAgent(), {**rows[0], "user_proxy": GATE_FAILING_PROXY})
    episode = perturbed.episode
    assert episode["ufs_pass"] is False and episode["failures_per_family"]["premature_disclosure"] >= 1
    assert ufs_gated_r_tau([clean, perturbed]) == [1.0, None]
    assert r_tau([clean, perturbed]) == [1.0, episode["reward"]]
    weighted = fidelity_weighted_r_tau([perturbed])[0]
    verdicts = [c["verdict"] for c in episode["criteria"]]
    assert weighted == pytest.approx(episode["reward"] * verdicts.count("pass") / (verdicts.count("pass") + verdicts.count("fail")))
    stats = rollout_stats([clean, perturbed])
    assert stats["gated_share"] == 0.5 and stats["errors"] == 0
    assert reward_function("ufs_gated", gate=Gate(families=("groundedness",)))([perturbed]) == [episode["reward"]]


def test_an_infrastructure_error_is_masked_never_zero() -> None:
    from userbench_env.proxies.llm import LLMUserProxy
    from userbench_env.serve.responders import CannedResponder
    from userbench_env.serve.server import ChatServer

    with ChatServer(CannedResponder(["x"])) as server:
        dead = server.base_url  # closed when the block ends
    proxy = LLMUserProxy("openai/local-user", base_url=dead, transport="direct", backoff=0.001, max_retries=0)
    env = environment_class("UserBench/Retail-v0", user_proxy=proxy)()
    opening = env.reset(**episode_rows("UserBench/Retail-v0", limit=1)[0])
    assert opening.endswith("[conversation over: error]") and env.episode["error"]
    assert r_tau([env]) == ufs_gated_r_tau([env]) == fidelity_weighted_r_tau([env]) == [None]
    assert math.isnan(rollout_stats([env])["r_tau"]) and rollout_stats([env])["errors"] == 1


def test_score_episode_rejects_unknown_kinds() -> None:
    with pytest.raises(ValueError, match="unknown reward kind"):
        score_episode({"reward": 1.0}, "bonus")  # type: ignore[arg-type]


@pytest.mark.parametrize("domain", ["airline", "retail", "telecom", "banking"])
def test_bundled_train_and_test_splits_are_disjoint(domain: str) -> None:
    train_split, train = split_task_ids(domain, "bundled", "train")
    test_split, test = split_task_ids(domain, "bundled", "test")
    assert (train_split, test_split) == ("train", "test")
    assert train and test and not set(train) & set(test)


def test_a_source_without_splits_gets_a_deterministic_hash_split(tau2_data) -> None:
    split, train = split_task_ids("banking", "tau2", "train", tau2_data)
    _, test = split_task_ids("banking", "tau2", "test", tau2_data)
    assert split is None and train and test and not set(train) & set(test)
    assert (split, train) == split_task_ids("banking", "tau2", "train", tau2_data)
    assert 0.05 < len(test) / (len(train) + len(test)) < 0.4


def test_the_training_dataset_names_train_episodes() -> None:
    pytest.importorskip("datasets")
    from userbench_env.integrations.trl import training_dataset

    ds = training_dataset("UserBench/Airline-v0", seeds=(0, 1), limit=3)
    assert len(ds) == 6
    row = ds[0]
    assert EpisodeRow.model_validate(row).split == "train"
    assert row["prompt"][0]["role"] == "system" and "<policy>" in row["prompt"][0]["content"]
    assert row["prompt"][-1] == {"role": "user", "content": ""}
    _, test_ids = split_task_ids("airline", "bundled", "test")
    assert not {r["task_id"] for r in ds} & set(test_ids)
