"""Fidelity-aware rewards: gate (mark or zero) and weight the terminal reward by the user's UFS.

Both act on the terminal step only (the one whose ``info`` carries ``episode``) and
leave every other step unchanged.
"""
from __future__ import annotations

from typing import Any, Callable, Iterable, Literal

import gymnasium as gym

from userbench_env.runner.gate import Gate


class FidelityGate(gym.Wrapper):
    """Gate episodes whose simulated user broke its contract.

    ``families``: reject only when one of these families failed (default: any UFS
    failure); ``reject_unknown``: also reject episodes with no UFS verdict;
    ``suspects="fail"``: also reject episodes holding a ``suspect`` verdict (the strict
    reading, see :class:`~userbench_env.runner.gate.Gate`). ``mode="zero"`` sets a rejected episode's terminal reward to 0; ``mode="mark"``
    keeps it. Either way the terminal info gets ``fidelity_gate = {"rejected": bool,
    "reason": str | None}``.
    """

    def __init__(self, env: gym.Env, families: Iterable[str] | None = None, reject_unknown: bool = False,
                 mode: Literal["zero", "mark"] = "zero", suspects: Literal["pass", "fail"] = "pass") -> None:
        super().__init__(env)
        if mode not in ("zero", "mark"):
            raise ValueError("mode must be 'zero' or 'mark'")
        self.gate = Gate(families=tuple(families) if families is not None else None, reject_unknown=reject_unknown,
                         suspects=suspects)
        self.mode = mode

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step; on the terminal step decide and record the gate."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        episode = info.get("episode_record")
        if episode is not None:
            reason = self.gate.reason(episode)
            info = {**info, "fidelity_gate": {"rejected": reason is not None, "reason": reason}}
            if reason is not None and self.mode == "zero":
                reward = 0.0
        return observation, reward, terminated, truncated, info


def pass_fraction(episode: dict[str, Any]) -> float:
    """Share of judged criteria (pass or fail) that passed; 1.0 when none was judged."""
    verdicts = [c.get("verdict") for c in episode.get("criteria") or []]
    passed, failed = verdicts.count("pass"), verdicts.count("fail")
    return passed / (passed + failed) if passed + failed else 1.0


class FidelityWeightedReward(gym.Wrapper):
    """Terminal reward times ``weight(info["episode_record"])`` (default :func:`pass_fraction`).

    The weight is reported as ``info["fidelity_weight"]`` on the terminal step; a
    weight outside [0, 1] is a ``ValueError``.
    """

    def __init__(self, env: gym.Env, weight: Callable[[dict[str, Any]], float] = pass_fraction) -> None:
        super().__init__(env)
        self.weight = weight

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step; weight the terminal reward."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        episode = info.get("episode_record")
        if episode is not None:
            w = float(self.weight(episode))
            if not 0.0 <= w <= 1.0:
                raise ValueError(f"fidelity weight must be in [0, 1], got {w}")
            info = {**info, "fidelity_weight": w}
            reward = float(reward) * w
        return observation, reward, terminated, truncated, info
