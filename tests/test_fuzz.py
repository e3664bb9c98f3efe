"""Fuzzing every env's ``step`` with hostile input (issue 16), with a fixed seed and a
bounded number of examples so it runs in CI.

Each example resets an env and plays a few actions drawn from: arbitrary Unicode text
(NUL, lone surrogates, control characters), text around and far past the action limit,
tool calls of every tool of the env with arbitrary JSON arguments (non-string keys,
deep nesting, thousands of keys; integers past Python's digit limit are in
``test_hardening.py``, as hypothesis cannot report them), call lists past the per-action limit,
OpenAI assistant messages of odd shapes, values that are not JSON at all, and the
issue's named stalls (``calculate`` of 40 large powers, 20 ``cancel_reservation`` in
one action, a catastrophic ``grep`` pattern, 10 MB of text). Every step must: not
raise, return an observation inside the observation space, finish within
:data:`STEP_SECONDS`, keep traced memory growth under :data:`STEP_MEMORY`, and leave the
world's DB unchanged when the action was counted invalid.
"""
from __future__ import annotations

import json
import time
import tracemalloc
from typing import Any

import gymnasium as gym
import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import userbench_env  # noqa: F401  (registers the ids)
from userbench_env.core.limits import DEFAULT_LIMITS

#: generous wall-clock bound of one step (the tool budget is 5 s; no input here comes near it)
STEP_SECONDS = 10.0
#: bound on the traced memory one step may add (peak over the step)
STEP_MEMORY = 64 * 2**20
#: a fixed seed and bounded examples: the same inputs on every run (no shrinking: a failure shows its raw input)
FUZZ = settings(derandomize=True, database=None, deadline=None, max_examples=20, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.large_base_example])

ANY_CHARACTER = st.characters(codec=None, exclude_categories=())  # surrogates and NUL included
SHORT_TEXT = st.text(ANY_CHARACTER, max_size=60)
RESERVATION = "<a reservation of the world>"

NAMED_STALLS = [
    json.dumps({"name": "calculate", "arguments": {"expression": "*".join(["9**99999"] * 40)}}),
    json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": RESERVATION}}] * 20),
    json.dumps([{"name": "cancel_reservation", "arguments": {"reservation_id": RESERVATION}}] * DEFAULT_LIMITS.max_calls),
    json.dumps({"name": "grep", "arguments": {"pattern": r"(\w+\s?)+\$\$\$"}}),
    json.dumps({"name": "grep", "arguments": {"pattern": "(a|aa)+b"}}),
    "Could you tell me your user id? " * 330_000,  # 10 MB
    "[" * 100_000 + "]" * 100_000,
    '{"name": "calculate", "arguments": ' + '{"a": ' * 100_000 + "1" + "}" * 100_000 + "}",
    '{"name": "calculate", "arguments": ' + '{"a": ' * 300 + "1" + "}" * 300 + "}",
    "\x00" * 10,
    "\ud800",
]

json_leaves = st.one_of(st.none(), st.booleans(), st.integers(),
                        st.floats(allow_nan=True, allow_infinity=True), SHORT_TEXT)
json_values = st.recursive(
    json_leaves,
    lambda children: st.lists(children, max_size=6) | st.dictionaries(st.one_of(SHORT_TEXT, st.integers()), children, max_size=6),
    max_leaves=25,
)


def nested(depth: int, opener: str) -> str:
    """Text nested ``depth`` levels deep with ``[`` or ``{"k": ``."""
    return ("[" * depth + "]" * depth) if opener == "[" else ('{"k": ' * depth + "0" + "}" * depth)


def dumps(value: Any) -> str:
    """JSON text of ``value`` as an agent would send it (non-string keys become strings)."""
    return json.dumps(value, default=repr)


def actions(tool_names: list[str], parameter_names: list[str]) -> st.SearchStrategy[Any]:
    """Hostile actions for an env whose tools and parameters are given."""
    names = st.sampled_from(tool_names) | SHORT_TEXT
    arguments = st.dictionaries(st.sampled_from(parameter_names) | SHORT_TEXT | st.integers(), json_values, max_size=6)
    call = st.fixed_dictionaries({"name": names, "arguments": arguments | st.builds(dumps, arguments) | json_values})
    calls = st.lists(call, min_size=1, max_size=DEFAULT_LIMITS.max_calls + 8)
    assistant = st.fixed_dictionaries({
        "role": st.just("assistant"), "content": st.none() | SHORT_TEXT | json_values,
        "tool_calls": st.lists(st.fixed_dictionaries({"id": SHORT_TEXT, "type": st.just("function"), "function": call}),
                               max_size=4) | json_values,
    })
    many_keys = st.integers(1, 20_000).map(lambda n: {"name": tool_names[0], "arguments": {f"k{i}": i for i in range(n)}})
    return st.one_of(
        SHORT_TEXT,
        st.text(ANY_CHARACTER, min_size=1, max_size=400),
        st.integers(DEFAULT_LIMITS.max_action_chars - 2, DEFAULT_LIMITS.max_action_chars * 3).map(lambda n: "a" * n),
        call, call.map(dumps), calls, calls.map(dumps), assistant, assistant.map(dumps), many_keys, many_keys.map(dumps),
        st.builds(nested, st.integers(1, 50_000), st.sampled_from("[{")),
        st.builds(lambda depth: dumps({"name": tool_names[0], "arguments": nested(depth, "{")}), st.integers(1, 5_000)),
        json_values,
        st.sampled_from(NAMED_STALLS),
    )


def tool_surface(env: gym.Env) -> tuple[list[str], list[str]]:
    """Every tool name and parameter name of the env's world (both sides)."""
    world = env.unwrapped.world
    schemas = world.tool_schemas("agent") + world.tool_schemas("user")
    names = sorted({s["function"]["name"] for s in schemas} | {"calculate", "grep", "cancel_reservation"})
    parameters = sorted({p for s in schemas for p in s["function"]["parameters"].get("properties", {})} | {"expression"})
    return names, parameters


def db_hashes(env: gym.Env) -> tuple[str | None, str | None]:
    world = getattr(env.unwrapped, "world", None)
    return (world.db_hash("agent"), world.db_hash("user")) if world is not None else (None, None)


def check_step(env: gym.Env, action: Any) -> bool:
    """One step under the fuzz contract; whether the episode ended."""
    world = getattr(env.unwrapped, "world", None)
    if isinstance(action, str) and RESERVATION in action and world is not None and "reservations" in world.agent_db:
        action = action.replace(RESERVATION, next(iter(world.agent_db["reservations"])))
    inner = env.unwrapped
    invalid_before = inner.counters.invalid_actions if hasattr(inner, "counters") else inner._invalid
    hashes = db_hashes(env)
    tracemalloc.reset_peak()
    start_memory = tracemalloc.get_traced_memory()[0]
    started = time.perf_counter()
    observation, reward, terminated, truncated, info = env.step(action)
    elapsed = time.perf_counter() - started
    grown = tracemalloc.get_traced_memory()[1] - start_memory
    assert elapsed < STEP_SECONDS, f"step took {elapsed:.1f} s on {str(action)[:200]!r}"
    assert grown < STEP_MEMORY, f"step grew traced memory by {grown / 2**20:.0f} MB on {str(action)[:200]!r}"
    assert env.observation_space.contains(observation), f"observation outside the space on {str(action)[:200]!r}"
    assert isinstance(reward, float) and isinstance(terminated, bool) and isinstance(truncated, bool)
    if info["invalid_actions"] > invalid_before:
        assert db_hashes(env) == hashes, f"an invalid action changed the DB: {str(action)[:200]!r}"
    if "episode_record" in info:
        assert not info["episode_record"].get("error"), info["episode_record"]["error"]
        json.dumps(info["episode_record"], ensure_ascii=False).encode("utf-8")  # a record the store can write
    return terminated or truncated


@pytest.fixture(autouse=True)
def traced_memory():
    tracemalloc.start()
    yield
    tracemalloc.stop()


def fuzz_env(env_id: str, **kwargs: Any):
    """A hypothesis test over ``env_id``: reset with a drawn seed, then a few drawn actions."""
    env = gym.make(env_id, disable_env_checker=True, **kwargs)
    env.reset(seed=0)
    names, parameters = tool_surface(env) if hasattr(env.unwrapped, "world") else (["send_message"], ["message"])

    @FUZZ
    @given(seed=st.integers(0, 2**16), plays=st.lists(actions(names, parameters), min_size=1, max_size=4))
    def run(seed: int, plays: list[Any]) -> None:
        env.reset(seed=seed)
        for action in plays:
            if check_step(env, action):
                break

    return run


@pytest.mark.parametrize("domain", ["Airline", "Retail", "Telecom", "Banking"])
def test_fuzz_agent_side(domain: str) -> None:
    fuzz_env(f"UserBench/{domain}-v0")()


@pytest.mark.parametrize("domain", ["Airline", "Retail", "Telecom", "Banking"])
def test_fuzz_user_side(domain: str) -> None:
    fuzz_env(f"UserBench/{domain}-User-v0", max_errors=1000)()


@pytest.mark.parametrize("surface", ["Survey", "Chat"])
def test_fuzz_surfaces(surface: str) -> None:
    fuzz_env(f"UserBench/{surface}-v0", max_turns=6)()
