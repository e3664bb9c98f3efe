"""Issue 16's hostile inputs, one by one: the input policy, tool time budgets, bounded
``calculate`` and ``grep``, runaway tool results, torn store tails, and the step
contract before reset and after the end (the random search is ``test_fuzz.py``)."""
from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
import time
import tracemalloc
import warnings

import gymnasium as gym
import pytest
from pydantic import ValidationError

import userbench_env  # noqa: F401  (registers the ids)
from userbench_env.core.limits import DEFAULT_LIMITS, clip_observation, decode_json, resolve_limits
from userbench_env.domains import make_world
from userbench_env.domains.calculator import calculate_text
from userbench_env.domains.toolkit import Toolkit, tool
from userbench_env.envs.actions import parse_action
from userbench_env.envs.conversation import ConversationEnv
from userbench_env.envs.surface import SurfaceEnv
from userbench_env.envs.user_side import UserSideEnv
from userbench_env.runner.store import EpisodeStore

DEEP = 5_000


def deep_object(depth: int) -> str:
    return '{"a": ' * depth + "1" + "}" * depth


HOSTILE_ACTIONS = {
    "deep list": "[" * DEEP + "]" * DEEP,
    "deep call list": "[" + "[" * DEEP + "]" * DEEP + "]",
    "deep object": deep_object(DEEP),
    "deep arguments": '{"name": "calculate", "arguments": ' + deep_object(DEEP) + "}",
    "deep arguments string": json.dumps({"name": "calculate", "arguments": deep_object(DEEP)}),
    "300-deep arguments": json.dumps({"name": "calculate", "arguments": json.loads(deep_object(300))}),
    "non-string keys": {"name": "calculate", "arguments": {1: "2"}},
    "tuple keys": {"name": "calculate", "arguments": {(1, 2): "x"}},
    "NUL": "hello\x00world",
    "NUL in arguments": {"name": "calculate", "arguments": {"expression": "1\x00"}},
    "lone surrogate": "hi \ud800 there",
    "escaped lone surrogate": '{"name": "calculate", "arguments": {"expression": "\\ud800"}}',
    "too long": "x" * (DEFAULT_LIMITS.max_action_chars + 1),
    "too many calls": json.dumps([{"name": "calculate", "arguments": {"expression": "1"}}] * (DEFAULT_LIMITS.max_calls + 1)),
    "10,000 keys": json.dumps({"name": "calculate", "arguments": {f"k{i}": i for i in range(10_000)}}),
    "huge argument": json.dumps({"name": "calculate", "arguments": {"expression": "1" * (DEFAULT_LIMITS.max_argument_chars + 1)}}),
    "huge integer": {"name": "calculate", "arguments": {"expression": 10**5000}},
    "5,000-digit literal": '{"name": "calculate", "arguments": {"n": ' + "9" * 5000 + "}}",
    "not JSON value": {"name": "calculate", "arguments": {"expression": {1, 2}}},
    "tool_calls not a list": {"role": "assistant", "tool_calls": "calculate"},
}


@pytest.mark.parametrize("name", sorted(HOSTILE_ACTIONS))
def test_every_hostile_action_is_a_reasoned_rejection(name: str) -> None:
    parsed = parse_action(HOSTILE_ACTIONS[name])
    assert parsed.error and not parsed.calls, (name, parsed)


def test_limits_are_overridable_and_checked() -> None:
    tight = resolve_limits({"max_calls": 2, "max_depth": 3})
    assert (tight.max_calls, tight.max_depth, tight.max_action_chars) == (2, 3, DEFAULT_LIMITS.max_action_chars)
    assert resolve_limits(None) is DEFAULT_LIMITS and resolve_limits(tight) is tight
    with pytest.raises(ValidationError):
        resolve_limits({"max_cals": 2})
    with pytest.raises(ValidationError):
        resolve_limits({"max_calls": 0})
    calls = json.dumps([{"name": "calculate", "arguments": {"expression": "1"}}] * 3)
    assert parse_action(calls).calls and "limit of 2" in parse_action(calls, tight).error
    nested = json.dumps({"name": "x", "arguments": {"a": {"b": {"c": 1}}}})
    assert parse_action(nested).calls and "3 levels" in parse_action(nested, tight).error
    assert decode_json('{"a": [1, 2]}') == {"a": [1, 2]}


def test_clipped_observations_fit_and_say_so() -> None:
    text = "abc" * 1000
    for limit in (200, 500, 2999, 3000):
        clipped = clip_observation(text, limit)
        assert len(clipped) <= limit
        assert clipped == text if limit >= len(text) else clipped.endswith("shown]") and "3000 characters" in clipped


def test_env_enforces_its_declared_spaces_and_counts_invalid_actions() -> None:
    env = gym.make("UserBench/Airline-v0", limits={"max_action_chars": 50, "max_observation_chars": 300})
    inner = env.unwrapped
    assert inner.action_space.max_length == 50 and inner.observation_space.max_length == 300
    obs, info = env.reset(seed=0)
    hash_before = inner.world.db_hash()
    obs, reward, terminated, truncated, info = env.step("y" * 51)
    assert obs.startswith("Error: invalid action:") and "limit of 50" in obs and info["invalid_actions"] == 1
    assert not (terminated or truncated) and inner.world.db_hash() == hash_before
    user_id = inner.task.blueprint.known_info[0].value if inner.task.blueprint.known_info else "x"
    obs, *_ = env.step(json.dumps({"name": "get_user_details", "arguments": {"user_id": user_id}}))
    assert inner.observation_space.contains(obs)


def test_invalid_actions_end_the_episode_at_max_errors_without_raising() -> None:
    env = ConversationEnv("retail", max_errors=len(HOSTILE_ACTIONS))
    env.reset(seed=1)
    before = env.world.db_hash()
    for i, action in enumerate(HOSTILE_ACTIONS.values(), start=1):
        obs, reward, terminated, truncated, info = env.step(action)
        assert obs.startswith("Error: invalid action:") or terminated
        assert info["invalid_actions"] == i
    assert terminated and reward == 0.0 and info["episode_record"]["termination"] == "too_many_errors"
    assert info["episode_record"]["error"] is None and env.world.db_hash() == before


def test_user_side_and_surface_envs_reject_hostile_actions_without_raising() -> None:
    user = UserSideEnv("telecom", max_errors=100)
    user.reset(seed=0)
    survey = SurfaceEnv("survey")
    survey.reset(seed=0)
    for i, (name, action) in enumerate(HOSTILE_ACTIONS.items(), start=1):
        obs, *_, info = user.step(action)
        assert obs.startswith("Error: invalid action:") and info["invalid_actions"] == i, name
        obs, *_, info = survey.step(action)  # the policy's rejection, or the survey's own ("Invalid answer")
        assert obs.startswith("Invalid") and info["invalid_actions"] == i, name


# -- tool time budgets -------------------------------------------------------------------


class Spinner(Toolkit):
    """Tools that misbehave on purpose."""

    @tool()
    def spin(self) -> str:
        """Loop forever, swallowing every ``Exception``."""
        while True:
            try:
                while True:
                    pass
            except Exception:  # noqa: BLE001 - the point: a tool's own handler must not eat the timeout
                continue

    @tool()
    def quick(self) -> str:
        """Answer at once."""
        return "done"


def _busy(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


@pytest.mark.parametrize("in_thread", [False, True])
def test_a_tool_past_its_budget_answers_an_error_and_nothing_leaks(in_thread: bool) -> None:
    kit, results = Spinner(None), []

    def run() -> None:
        results.append(kit.call("spin", {}, 0.2))
        results.append(kit.call("quick", {}, 0.2))
        _busy(0.4)  # past the budgets: no stray timeout may land here
        results.append("survived")

    if in_thread:
        worker = threading.Thread(target=run)
        worker.start()
        worker.join(30)
    else:
        run()
    timed_out, quick, survived = results
    assert timed_out.error and timed_out.content == "Error: tool 'spin' ran past its time budget of 0.2 s"
    assert not quick.error and quick.content == "done" and survived == "survived"


def test_budgets_straddling_their_deadlines_in_many_threads_never_leak_a_timeout() -> None:
    import random

    class Busy(Toolkit):
        @tool()
        def busy(self, seconds: float) -> str:
            """Spin for ``seconds``."""
            _busy(seconds)
            return "ok"

    kit, escaped, outcomes = Busy(None), [], []

    def run(seed: int) -> None:
        rng = random.Random(seed)
        try:
            outcomes.extend(kit.call("busy", {"seconds": rng.uniform(0, 0.02)}, 0.01).error for _ in range(150))
            _busy(0.2)
        except BaseException as exc:  # noqa: BLE001 - a leaked timeout is exactly what this test looks for
            escaped.append(repr(exc))

    workers = [threading.Thread(target=run, args=(seed,)) for seed in range(4)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert not escaped and len(outcomes) == 600 and any(outcomes) and not all(outcomes)


def test_calculate_bounds_products_of_powers() -> None:
    for expression in ("*".join(["9**99999"] * 40), "*".join(["9**9999"] * 40), "(2**40000)*(2**40000)"):
        with pytest.raises(OverflowError):
            calculate_text(expression)
    assert calculate_text("2**5000/2**4990") == "1024.0"
    assert calculate_text("(3**200*3**200)//3**399") == "3.0"
    world = make_world("airline", source="bundled")
    result = world.call("calculate", {"expression": "*".join(["9**99999"] * 40)})
    assert result.error and result.content.startswith("Error: ")


def _reference_grep(documents, pattern: str) -> list[tuple[str, float]]:
    """tau2's grep ranking, with Python's ``re``."""
    try:
        regex = re.compile(pattern, re.IGNORECASE)
    except re.error:
        regex = re.compile(re.escape(pattern), re.IGNORECASE)
    counts = [(doc.id, len(regex.findall(doc.content))) for doc in documents]
    hits = sorted((c for c in counts if c[1] > 0), key=lambda c: -c[1])
    return [(doc_id, float(n)) for doc_id, n in hits[:10]]


def test_grep_on_the_bounded_engine_counts_exactly_as_re() -> None:
    import random

    from userbench_env.datapaths import bundled_root
    from userbench_env.domains.banking.knowledge import KnowledgeBase

    kb = KnowledgeBase.load(bundled_root() / "banking" / "documents")
    words = sorted({w for doc in kb.documents for w in re.findall(r"[A-Za-z]{3,}", doc.content)})
    rng = random.Random(16)
    shapes = ["{w}", "{w}s?", r"\b{w}\b", "{w}|{v}", "{w}.*?{v}", r"{w}\s+\w+", "[{c}]{w}", "({w})+", "^{w}", "{w}$",
              r"(?m)^\w+", "{w}(", "[", r"\d{{2,}}", "(?i){w}", "{w}{{", "(?<=a){w}", ""]
    for _ in range(300):
        pattern = rng.choice(shapes).format(w=rng.choice(words).lower(), v=rng.choice(words), c=rng.choice(words)[:3])
        got = [(doc.id, score) for doc, score in kb.grep(pattern)]
        assert got == _reference_grep(kb.documents, pattern), pattern


def test_a_catastrophic_grep_stops_at_the_budget() -> None:
    from userbench_env.domains.banking.knowledge import KBDocument, KnowledgeBase, grep_answer

    class Grep(Toolkit):
        @tool()
        def grep(self, pattern: str) -> str:
            """Banking's grep over a knowledge base with a run of 40 a's."""
            return grep_answer(self.db, pattern)

    kit = Grep(KnowledgeBase([KBDocument("d1", "Runs", "a" * 40), KBDocument("d2", "Words", "a card and another card")]))
    result = kit.call("grep", {"pattern": "(a|aa)+b"}, 0.3)  # exponential backtracking on the first document
    assert result.error and result.content == "Error: tool 'grep' ran past its time budget of 0.3 s"
    assert "ID: d2" in kit.call("grep", {"pattern": "card"}).content  # the next call is unaffected
    _busy(0.5)  # and no stray timeout lands afterwards
    world = make_world("banking", source="bundled")
    result = world.call("grep", {"pattern": r"(\w+\s?)+\$\$\$"})  # catastrophic for re, not for this engine
    assert not result.error and result.content.startswith("No matches found")


def test_repeated_cancel_reservation_ends_the_episode_as_the_agents_failure() -> None:
    env = ConversationEnv("airline", task_source="bundled", limits={"tool_seconds": 60, "action_seconds": 120})  # size, not time
    env.reset(seed=0)
    reservation = next(iter(env.world.agent_db["reservations"]))
    single = make_world("airline", source="bundled", task=env.task)
    first = single.call("cancel_reservation", {"reservation_id": reservation})
    action = json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": reservation}}] * 16)
    tracemalloc.start()
    try:
        for _ in range(5):
            obs, reward, terminated, truncated, info = env.step(action)
            if terminated:
                break
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert terminated and reward == 0.0 and info["episode_record"]["termination"] == "limit_exceeded"
    assert info["episode_record"]["error"] is None and peak < 200 * 2**20
    results = json.loads(obs[: obs.rfind("]") + 1]) if not obs.endswith("shown]") else None
    assert len(obs) <= env.limits.max_observation_chars and (results is None or results[0]["content"] == first.content)
    tool_messages = [m for m in env.messages if m.role == "tool"]
    assert tool_messages[0].content == first.content  # the first call is tau2's, byte for byte
    assert tool_messages[-1].content.startswith("Error: not run")  # the calls after the runaway result


# -- the runner: an agent's bad output is the agent's failure --------------------------------


class HostileAgent:
    """Answers every turn with the next hostile action."""

    name = "hostile"

    def __init__(self) -> None:
        self.actions = iter(list(HOSTILE_ACTIONS.values()) * 2)

    def act(self, observation: str, info: dict) -> object:
        return next(self.actions)


def test_the_runner_scores_a_hostile_agent_and_stores_its_record(tmp_path) -> None:
    from userbench_env.runner.engine import play_episode
    from userbench_env.runner.record import EpisodeMeta

    env = ConversationEnv("airline", max_errors=len(HOSTILE_ACTIONS), on_proxy_error="record")
    record = asyncio.run(play_episode(env, HostileAgent(), EpisodeMeta(key="hostile|0", domain="airline", source="bundled")))
    assert record["error"] is None and record["termination"] == "too_many_errors" and record["reward"] == 0.0
    store = EpisodeStore(tmp_path / "runs.jsonl")
    store.append(record)
    assert [r["key"] for r in store.records()] == ["hostile|0"] and store.unreadable == 0


# -- the store: a tail torn anywhere ------------------------------------------------------


def test_a_tail_torn_inside_a_multibyte_character_is_skipped_and_counted(tmp_path) -> None:
    store = EpisodeStore(tmp_path / "runs.jsonl")
    store.append({"key": "a", "note": "ok"})
    store.append({"key": "\ud800-surrogate", "note": "written, not lost"})
    whole = json.dumps({"key": "b", "note": "naïve café ✓"}, ensure_ascii=False).encode("utf-8")
    with store.path.open("ab") as handle:
        handle.write(whole[: whole.index("✓".encode()) + 1])  # cut after the first byte of a 3-byte character
    assert [r["key"] for r in store.records()] == ["a", "\ud800-surrogate"] and store.unreadable == 1
    with store.path.open("ab") as handle:
        handle.write(b"\n" + b"[" * 100_000 + b"]" * 100_000 + b"\n" + b"\xff\xfe not utf-8\n")
    assert len(list(store.records())) == 2 and store.unreadable == 3
    store.append({"key": "c"})
    assert [r["key"] for r in store.records()] == ["a", "\ud800-surrogate", "c"]


def test_eval_resume_and_report_survive_a_torn_multibyte_tail(tmp_path) -> None:
    from userbench_env.runner.evaluation import EvalConfig, run_eval

    out = tmp_path / "runs.jsonl"
    config = EvalConfig(domains=["airline"], limit=2, out=str(out), progress=False, concurrency=1)
    assert run_eval(config).ran == 2
    lines = out.read_bytes().splitlines(keepends=True)
    last = lines[-1].replace(b'"domain": "airline"', '"domain": "airline", "note": "é"'.encode())
    out.write_bytes(b"".join(lines[:-1]) + last[: last.index("é".encode()) + 1])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        again = run_eval(config)
    assert (again.skipped, again.ran) == (1, 1)
    assert any("skipped 1 unreadable line" in str(w.message) for w in caught)
    report = subprocess.run([sys.executable, "-m", "userbench_env.cli", "report", str(out)], capture_output=True, text=True,
                            timeout=300)
    assert report.returncode == 0, report.stderr[-2000:]
    assert len(EpisodeStore(out).latest()) == 2


# -- the step contract: before reset, after the end -------------------------------------------


def _envs() -> list:
    return [ConversationEnv("airline"), UserSideEnv("retail"), SurfaceEnv("survey", max_turns=3), SurfaceEnv("chat", max_turns=3)]


@pytest.mark.parametrize("index", range(4))
def test_step_before_reset_raises_reset_needed(index: int) -> None:
    env = _envs()[index]
    with pytest.raises(gym.error.ResetNeeded):
        env.step("hello")


@pytest.mark.parametrize("index", range(4))
def test_a_step_after_the_end_is_an_empty_terminal_step(index: int) -> None:
    env = _envs()[index]
    env.reset(seed=0)
    limits = getattr(env, "max_errors", None)
    result = None
    for _ in range(200):
        result = env.step("###STOP###" if limits is not None else "{}")
        if result[2] or result[3]:
            break
    assert result is not None and (result[2] or result[3]) and "episode_record" in result[4]
    again = env.step("anything at all")
    assert again[0] == "" and again[1] == 0.0 and again[2:4] == result[2:4]
    assert again[4]["episode_record"] == result[4]["episode_record"]


# -- other producers of tool calls: proxies and the tool-call wrapper ----------------------------


def test_a_proxys_tool_call_against_the_policy_is_neither_run_nor_kept(tmp_path) -> None:
    from userbench_env.core.messages import ToolCall
    from userbench_env.proxies.base import UserTurn
    from userbench_env.proxies.scripted import ScriptedUserProxy

    deep: dict = {}
    node = deep
    for _ in range(400):
        node["k"] = {}
        node = node["k"]

    class DeepCaller(ScriptedUserProxy):
        """The scripted user, but its first answer after the opening is a deeply nested tool call."""

        calls = 0

        def respond(self, view):
            if any(m.role == "user" for m in view.messages) and not self.calls:
                self.calls += 1
                return UserTurn(tool_call=ToolCall(name="toggle_airplane_mode", arguments=deep, requestor="user"))
            return super().respond(view)

    env = ConversationEnv("telecom", user_proxy=DeepCaller(), on_proxy_error="record")
    env.reset(seed=0)
    env.step("Could you restart your phone?")
    call = next(m for m in env.messages if m.role == "user" and m.tool_calls)
    answer = next(m for m in env.messages if m.role == "tool" and m.requestor == "user")
    assert call.tool_calls[0].arguments == {} and answer.error
    assert answer.content == "Error: invalid tool call: the action is nested more than 32 levels deep"
    store = EpisodeStore(tmp_path / "runs.jsonl")
    store.append({"key": "k", "messages": [m.model_dump(mode="json") for m in env.messages]})
    assert len(list(store.records())) == 1


def test_the_tool_call_wrapper_passes_deep_json_on_to_the_env() -> None:
    from userbench_env.wrappers.toolcalls import parse_tool_calls

    deep = '{"a": ' * 5000 + "1" + "}" * 5000
    for text in (f'<tool_call>{{"name": "calculate", "arguments": {deep}}}</tool_call>', f"<function=calculate>{deep}</function>"):
        action = parse_tool_calls(text)
        assert parse_action(action).error  # the env rejects it with a reason; nothing raised
