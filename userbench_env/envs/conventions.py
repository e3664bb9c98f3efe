"""The outermost wrapper of every UserBench id: Gymnasium's conventions, kept.

``gym.make`` wraps an env in ``PassiveEnvChecker``, ``OrderEnforcing`` and, with
``max_episode_steps=N``, ``TimeLimit``; registration adds :class:`GymConventions` on top
(``EnvSpec.additional_wrappers``), so every ``gym.make``'d UserBench env:

* has ``areset``/``astep`` (the env's own async methods, driven with the proxy's
  ``arespond``; ``TimeLimit``'s step budget is counted here for them);
* reports ``info["episode_record"]`` on *every* last step: when ``TimeLimit`` truncates an
  episode the env had not ended, the env ends it (termination ``time_limit``, the
  reward and fidelity of the transcript so far) through its ``end_episode``;
* is a :class:`gymnasium.utils.RecordConstructorArgs`, so ``env.spec`` describes the
  whole stack and ``gym.make(env.spec)`` (and Gymnasium's ``check_env``) rebuild it.

An env class taking part provides ``end_episode(termination) -> (reward, info)``.
"""
from __future__ import annotations

from typing import Any

import gymnasium as gym
from gymnasium.wrappers import TimeLimit

#: termination of an episode cut by ``gym.make(..., max_episode_steps=N)``
TIME_LIMIT = "time_limit"


def time_limit_of(env: gym.Env) -> int | None:
    """``max_episode_steps`` of the ``TimeLimit`` wrapper inside ``env``, if any."""
    while isinstance(env, gym.Wrapper):
        if isinstance(env, TimeLimit):
            return int(env._max_episode_steps)
        env = env.env
    return None


class GymConventions(gym.Wrapper, gym.utils.RecordConstructorArgs):
    """``areset``/``astep`` through the wrapper stack, and an episode record on every end."""

    def __init__(self, env: gym.Env) -> None:
        gym.utils.RecordConstructorArgs.__init__(self)  # no arguments besides the env: the spec's kwargs are {}
        gym.Wrapper.__init__(self, env)
        self.max_episode_steps = time_limit_of(env)
        self._async_steps = 0

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The inner stack's step, with the episode record when ``TimeLimit`` cut the episode."""
        return self._with_episode(*self.env.step(action))

    async def areset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """The env's ``areset`` (the async counterpart of ``reset``)."""
        self._async_steps = 0
        return await self.env.unwrapped.areset(seed=seed, options=options)  # type: ignore[attr-defined]

    async def astep(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """The env's ``astep``, truncated at ``max_episode_steps`` like ``step``."""
        observation, reward, terminated, truncated, info = await self.env.unwrapped.astep(action)  # type: ignore[attr-defined]
        self._async_steps += 1
        if self.max_episode_steps is not None and self._async_steps >= self.max_episode_steps:
            truncated = True
        return self._with_episode(observation, reward, terminated, truncated, info)

    def _with_episode(self, observation: Any, reward: float, terminated: bool, truncated: bool,
                      info: dict[str, Any]) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if (terminated or truncated) and "episode_record" not in info:
            reward, info = self.env.unwrapped.end_episode(TIME_LIMIT)  # type: ignore[attr-defined]
        return observation, reward, terminated, truncated, info


def positive_int(name: str, value: Any) -> int:
    """``value`` if it is an int >= 1 (not a bool); else ``ValueError`` naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return value
