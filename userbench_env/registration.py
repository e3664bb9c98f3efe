"""Idempotent registration of every UserBench env id with Gymnasium.

One class per row of the env table, the domain or surface passed as a keyword (the
ALE pattern). Entry points are strings, so registering imports nothing heavy.
"""
from __future__ import annotations

import dataclasses

import gymnasium as gym
from gymnasium.envs.registration import WrapperSpec

NAMESPACE = "UserBench"

#: env name -> (entry point, fixed kwargs)
ENV_SPECS: dict[str, tuple[str, dict[str, str]]] = {
    **{
        f"{title}-v0": ("userbench_env.envs.conversation:ConversationEnv", {"domain": name})
        for title, name in (("Airline", "airline"), ("Retail", "retail"), ("Telecom", "telecom"), ("Banking", "banking"))
    },
    **{
        f"{title}-User-v0": ("userbench_env.envs.user_side:UserSideEnv", {"domain": name})
        for title, name in (("Airline", "airline"), ("Retail", "retail"), ("Telecom", "telecom"), ("Banking", "banking"))
    },
    **{
        f"{title}-v0": ("userbench_env.envs.surface:SurfaceEnv", {"surface": name})
        for title, name in (("Survey", "survey"), ("Chat", "chat"))
    },
    "Web-v0": ("userbench_env.envs.surface:SurfaceEnv", {"surface": "web"}),
    "App-v0": ("userbench_env.envs.surface:SurfaceEnv", {"surface": "app"}),
}


#: entry points whose envs take ``on_proxy_error`` (an LLM user or counterpart agent may fail)
CONVERSATION_ENTRY_POINTS = frozenset({
    "userbench_env.envs.conversation:ConversationEnv",
    "userbench_env.envs.user_side:UserSideEnv",
})


def is_conversation_env(env_id: str) -> bool:
    """Whether ``env_id`` (registered) is an agent-side or user-side conversation env."""
    return gym.spec(env_id).entry_point in CONVERSATION_ENTRY_POINTS


#: the outermost wrapper of every id (``areset``/``astep``, the episode record on a ``TimeLimit`` cut)
CONVENTIONS = WrapperSpec(name="GymConventions", entry_point="userbench_env.envs.conventions:GymConventions", kwargs={})


def register_envs() -> None:
    """Register every env id once; calling it again is a no-op."""
    for name, (entry_point, kwargs) in ENV_SPECS.items():
        env_id = f"{NAMESPACE}/{name}"
        if env_id in gym.registry:
            continue
        gym.register(id=env_id, entry_point=entry_point, kwargs=dict(kwargs), disable_env_checker=False,
                     additional_wrappers=(CONVENTIONS,))


def mark_nondeterministic(env: gym.Env) -> None:
    """Flag ``env``'s spec ``nondeterministic`` (an LLM plays a part in it).

    Ids are registered deterministic because their default parts are scripted; an env
    that is given an LLM (user proxy, agent, bot or judge) calls this from ``reset``, after
    ``gym.make`` has attached the spec.
    """
    spec = env.unwrapped.spec
    if spec is not None and not spec.nondeterministic:
        env.unwrapped.spec = dataclasses.replace(spec, nondeterministic=True)
