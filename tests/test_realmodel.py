"""Every LLM path against a real model: SmolLM2-135M-Instruct served by our model server.

One server per test process (``served`` fixture: the transformers engine behind
:class:`~userbench_env.serve.server.ChatServer`, 2 workers, a 48-token cap). The tests
assert contracts, never the model's quality (at temperature 0 its output still depends
on timing and batching elsewhere): every episode ends with a termination reason; odd
replies (empty, bad or unknown tool calls, cut at the cap) are handled and recorded
(``record_property("odd", ...)``); the tokens and cost in ``info`` equal what the server
reported in its usage fields; judge verdicts are parsed or recorded as errors, never
passes; a generated rubric keeps only reviewed criteria.

Skipped (one-line reason) without torch/transformers/gguf or the model file.
"""
from __future__ import annotations

import json
import urllib.request
from collections import Counter

import gymnasium as gym
import pytest

import resources
import userbench_env  # noqa: F401  (registers the env ids)
from userbench_env.agents import ScriptedAgent
from userbench_env.agents.llm import LLMAgent
from userbench_env.envs.user_side import ProxyPolicy
from userbench_env.errors import MissingDependency
from userbench_env.evaluation.nl_judge import JudgeReplyError, JudgeSpec
from userbench_env.fidelity.generate import generate_rubric
from userbench_env.fidelity.grading import grade_verdicts
from userbench_env.fidelity.judge import FidelityJudge
from userbench_env.serve.gguf import DEFAULT_MODEL_NAME, ModelNotInstalled, default_gguf_path
from userbench_env.tasks import load_tasks

pytestmark = [pytest.mark.realmodel, pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")]

CAP = 48
PRICES = {DEFAULT_MODEL_NAME: {"input": 0.1, "output": 0.4}, f"openai/{DEFAULT_MODEL_NAME}": {"input": 0.1, "output": 0.4}}
#: every way an episode may end (the envs' own termination names)
TERMINATIONS = {"user_stop", "agent_stop", "max_turns", "too_many_errors", "user_error", "error", "crash", "limit_exceeded",
                "user_failure"}
TASKS = ["airline_cancel_recent_0", "airline_cancel_business_0"]


@pytest.fixture(scope="session")
def served():
    """(server, responder): SmolLM2 behind the chat server in this process."""
    from userbench_env.serve.local_model import require_local_stack

    try:
        require_local_stack()
        default_gguf_path()
    except (MissingDependency, ModelNotInstalled) as exc:
        resources.go_without(str(exc), "local-model")
    from userbench_env.serve.engines import TransformersEngine
    from userbench_env.serve.model_server import ModelResponder
    from userbench_env.serve.server import ChatServer

    responder = ModelResponder(TransformersEngine(), parallel=2, max_tokens_cap=CAP)
    with ChatServer(responder, model_name=DEFAULT_MODEL_NAME, record=False) as server:
        yield server, responder
    responder.close()


def options(server, **extra) -> dict:
    return {"base_url": server.base_url, "api_key": "sk-local", "max_tokens": CAP, "timeout": 300.0, "backoff": 0.01,
            "max_retries": 1, "price_override": PRICES, **extra}


def play(env, agent, task_id: str) -> dict:
    observation, info = env.reset(seed=0, options={"task_id": task_id})
    agent.reset(env.unwrapped.task)
    while "episode_record" not in info:
        observation, _, _, _, info = env.step(agent.act(observation, info))
    return info["episode_record"]


def served_since(responder, before: Counter) -> Counter:
    return responder.served - before


def price(prompt: int, completion: int) -> float:
    return (prompt * 0.1 + completion * 0.4) / 1e6


def test_the_server_lists_the_model_and_reports_real_usage(served) -> None:
    server, responder = served
    with urllib.request.urlopen(f"{server.base_url}/models", timeout=10) as answer:
        assert [m["id"] for m in json.load(answer)["data"]] == [DEFAULT_MODEL_NAME]
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions", headers={"Content-Type": "application/json"},
        data=json.dumps({"model": DEFAULT_MODEL_NAME, "max_tokens": 1000, "temperature": 0,
                         "messages": [{"role": "user", "content": "Say hello."}]}).encode())
    with urllib.request.urlopen(request, timeout=300) as answer:
        body = json.load(answer)
    usage = body["usage"]
    assert 0 < usage["completion_tokens"] <= CAP and usage["prompt_tokens"] > 3
    assert body["choices"][0]["finish_reason"] in ("stop", "length")


@pytest.mark.parametrize("spec", [f"litellm:openai/{DEFAULT_MODEL_NAME}", f"direct:{DEFAULT_MODEL_NAME}"])
def test_user_proxy_episodes_end_and_match_the_servers_usage(served, spec: str, record_property) -> None:
    server, responder = served
    odd_before = Counter(responder.odd)
    for task_id in TASKS:
        before = Counter(responder.served)
        env = gym.make("UserBench/Airline-v0", user_proxy=spec, user_proxy_options=options(server), max_turns=4,
                       on_proxy_error="record")
        episode = play(env, ScriptedAgent(), task_id)
        used = served_since(responder, before)
        assert episode["termination"] in TERMINATIONS, episode["termination"]
        if episode["error"] is None:
            assert episode["user_prompt_tokens"] == used["prompt_tokens"] > 0
            assert episode["user_completion_tokens"] == used["completion_tokens"]
            assert episode["user_cost_usd"] == pytest.approx(price(used["prompt_tokens"], used["completion_tokens"]))
        assert episode["ufs_pass"] in (True, False)
    record_property("odd", dict(responder.odd - odd_before))


def test_llm_agent_episode_with_tools_offered(served, record_property) -> None:
    server, responder = served
    odd_before = Counter(responder.odd)
    before = Counter(responder.served)
    agent = LLMAgent(f"openai/{DEFAULT_MODEL_NAME}", **options(server))
    env = gym.make("UserBench/Airline-v0", max_turns=2)  # the policy prompt is long: two agent turns
    episode = play(env, agent, TASKS[0])
    used = served_since(responder, before)
    assert episode["termination"] in TERMINATIONS, episode["termination"]
    assert agent.usage.calls == used["requests"] > 0
    assert agent.usage.prompt_tokens == used["prompt_tokens"] and agent.usage.completion_tokens == used["completion_tokens"]
    assert agent.usage.cost_usd == pytest.approx(price(used["prompt_tokens"], used["completion_tokens"]))
    record_property("odd", dict(responder.odd - odd_before))


def test_user_side_env_with_the_model_as_the_policy(served) -> None:
    server, responder = served
    env = gym.make("UserBench/Airline-User-v0", task_source="bundled", agent="scripted", max_turns=4)
    policy = ProxyPolicy(f"direct:{DEFAULT_MODEL_NAME}", **options(server))
    episode = play(env, policy, TASKS[0])
    assert episode["termination"] in TERMINATIONS, episode["termination"]
    assert episode["reward"] is None or 0.0 <= episode["reward"] <= 1.0


def test_judge_verdicts_are_parsed_or_recorded_as_errors(served, record_property) -> None:
    server, _ = served
    env = gym.make("UserBench/Airline-v0", max_turns=4)
    play(env, ScriptedAgent(), TASKS[0])
    messages = env.unwrapped.messages
    open_verdicts = [
        {"id": f"c{i}", "statement": statement, "grounding": "the scenario", "verdict": "pending", "source": "judge"}
        for i, statement in enumerate(["The customer gives their reservation id when asked.",
                                       "The customer never invents an identifier."])
    ]
    judge = FidelityJudge(JudgeSpec(model=f"openai/{DEFAULT_MODEL_NAME}", base_url=server.base_url, api_key="sk-local",
                                    timeout=300.0))
    graded = grade_verdicts(open_verdicts, messages, judge)
    assert len(graded) == 2 and judge.calls == 2
    for verdict in graded:
        assert verdict["source"] == "judge"
        assert verdict["verdict"] in ("pass", "fail", "not_applicable", "error")
        if verdict["verdict"] == "error":
            assert verdict["error"].startswith("JudgeReplyError")
    record_property("verdicts", dict(Counter(v["verdict"] for v in graded)))  # plain dict: xdist sends properties over execnet


def test_rubric_generation_and_review_keep_only_reviewed_criteria(served, record_property) -> None:
    server, _ = served
    task = load_tasks("airline", source="bundled")[0]
    writer = JudgeSpec(model=f"openai/{DEFAULT_MODEL_NAME}", base_url=server.base_url, api_key="sk-local", timeout=300.0)
    verifier = writer.model_copy(update={"model": f"openai/{DEFAULT_MODEL_NAME}-verifier"})
    try:
        rubric = generate_rubric(task, writer, verifier)
    except JudgeReplyError as exc:  # the writer's or verifier's reply did not parse: an error, never a rubric
        record_property("outcome", f"JudgeReplyError: {exc}")
        return
    assert rubric.task_id == task.id and rubric.generator.startswith("generate:")
    assert all(c.check == "judge" for c in rubric.criteria)
    assert all(r.get("reason") for r in rubric.rejected)
    record_property("outcome", f"{len(rubric.criteria)} kept, {len(rubric.rejected)} rejected")


def test_route_to_the_real_proxy_measured_on_a_calibration_slice(served) -> None:
    from userbench_env.runner import collect

    server, _ = served
    spec = f"direct:{DEFAULT_MODEL_NAME}"
    result = collect("UserBench/Airline-v0", "scripted", 1, concurrency=1, gate=None, user_proxy="route:q=0.0",
                     candidates=[spec], calibration=1,
                     env_kwargs={"max_turns": 3, "task_id": TASKS[0], "user_proxy_options": options(server)})
    assert result.route["proxy"] == spec and result.route["met"] and result.route["source"] == "calibration"
    assert result.route["cost_per_sim"] > 0  # measured on the slice, priced from the server's usage
    record = (result.records + result.errors)[0]
    assert record["route"] == result.route and record["proxy"] == spec


def test_a_reused_prompt_prefix_gives_the_fresh_greedy_completion(served) -> None:
    import threading

    from userbench_env.serve.chatml import render_prompt
    from userbench_env.serve.engines import SamplingParams

    engine = served[1].engine
    system = {"role": "system", "content": "You are a customer of an airline; your reservation is ABC123."}
    first = render_prompt([system, {"role": "user", "content": "Hi! How can I help?"}])
    second = render_prompt([system, {"role": "user", "content": "Good morning, what do you need today?"}])  # shares the system turn
    params = SamplingParams(max_tokens=8, temperature=0.0)
    engine.generate(first, params, threading.Event())
    before = engine.reused_tokens
    reused = engine.generate(second, params, threading.Event())
    assert engine.reused_tokens > before  # a partial prefix: the cache was cropped, not taken whole
    slots, engine.prefix_slots = engine.prefix_slots, 0
    try:
        fresh = engine.generate(second, params, threading.Event())
    finally:
        engine.prefix_slots = slots
    assert (reused.text, reused.prompt_tokens) == (fresh.text, fresh.prompt_tokens)
