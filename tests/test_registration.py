"""Env registration: every id registered once on import, reachable through the
``userbench_env:`` prefix without a prior import, and flagged nondeterministic exactly
when an LLM plays a part."""
from __future__ import annotations

import subprocess
import sys

import gymnasium as gym

import userbench_env
from userbench_env.proxies.scripted import ScriptedUserProxy


class ModelBackedProxy(ScriptedUserProxy):
    """A scripted user that reports an LLM in its provenance (as an LLM proxy does)."""

    @property
    def provenance(self):
        return {**super().provenance, "model": "openai/some-model"}


def test_every_id_is_registered_once_and_idempotently():
    before = dict(gym.registry)
    userbench_env.register_envs()
    assert dict(gym.registry) == before
    ids = {f"UserBench/{name}" for name in userbench_env.ENV_SPECS}
    assert ids <= set(gym.registry)
    assert {"UserBench/Telecom-v0", "UserBench/Airline-User-v0", "UserBench/Web-v0", "UserBench/App-v0"} <= ids


def test_make_with_module_prefix_in_a_fresh_interpreter():
    code = (
        "import gymnasium as gym\n"
        "env = gym.make('userbench_env:UserBench/Airline-v0')\n"
        "obs, info = env.reset(seed=0)\n"
        "print(type(env.unwrapped).__name__, bool(obs))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["ConversationEnv", "True"]


def test_nondeterministic_only_when_an_llm_plays_a_part():
    scripted = gym.make("UserBench/Airline-v0")
    scripted.reset(seed=0)
    assert scripted.unwrapped.spec.nondeterministic is False
    llm = gym.make("UserBench/Airline-v0", user_proxy=ModelBackedProxy())
    llm.reset(seed=0)
    assert llm.unwrapped.spec.nondeterministic is True
    assert gym.spec("UserBench/Airline-v0").nondeterministic is False  # the registered spec is untouched
    judged = gym.make("UserBench/Airline-v0", judge="deferred")
    judged.reset(seed=0)
    assert judged.unwrapped.spec.nondeterministic is False
