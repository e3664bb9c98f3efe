"""RecordEpisodes: append each finished episode's run record to a JSONL store."""
from __future__ import annotations

import os
import time
from typing import Any

import gymnasium as gym

from userbench_env.runner.record import EpisodeMeta, build_record
from userbench_env.runner.store import EpisodeStore


class RecordEpisodes(gym.Wrapper):
    """Write the record of every finished episode (same format as ``userbench eval``).

    Wraps a conversation env (``env.unwrapped`` must be a ``ConversationEnv``). Records
    are keyed ``<env id>|<proxy>|<agent>|<task id>|<episode index>``, appended and
    fsynced at the terminal step; ``agent`` names the policy in the records.
    """

    def __init__(self, env: gym.Env, path: str | os.PathLike[str], agent: str = "policy") -> None:
        super().__init__(env)
        self.store = EpisodeStore(path)
        self.agent = agent
        self.episodes = 0
        self._seed: int | None = None
        self._start = 0.0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset and remember the seed for the record."""
        self._seed, self._start = seed, time.perf_counter()
        return self.env.reset(seed=seed, options=options)

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step; on the terminal step append the episode's record."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        if "episode_record" in info and (terminated or truncated):
            base = self.env.unwrapped
            spec = self.env.spec.id if self.env.spec is not None else type(base).__name__
            proxy = str(base.user_proxy.provenance.get("name", "proxy"))
            meta = EpisodeMeta(key=f"{spec}|{proxy}|{self.agent}|{base.task.id}|{self.episodes}", env_id=spec,
                               trial=self.episodes, seed=self._seed, proxy=proxy, agent=self.agent)
            self.store.append(build_record(meta, base, info, reward, time.perf_counter() - self._start))
            self.episodes += 1
        return observation, reward, terminated, truncated, info
