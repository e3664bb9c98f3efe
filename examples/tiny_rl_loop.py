"""A tiny RL loop: REINFORCE over two agent behaviours with a fidelity-weighted reward.

The "policy" is one logit choosing, per episode, between the oracle agent (asks, acts,
closes) and a lazy agent (closes at once). Each epoch collects rollouts in parallel,
weights each terminal reward by the share of the user's fidelity criteria that passed
(the weight :class:`~userbench_env.wrappers.FidelityWeightedReward` applies), and
takes a policy-gradient step. The probability of the oracle rises towards 1. Offline.

    python examples/tiny_rl_loop.py --epochs 5 --episodes 8
"""
from __future__ import annotations

import argparse
import math
import random

from userbench_env.agents import ScriptedAgent
from userbench_env.runner import collect
from userbench_env.wrappers import pass_fraction


class LazyAgent:
    """Closes the conversation on its first turn."""

    def reset(self, task: object) -> None:
        """Nothing to plan."""

    def act(self, observation: str, info: dict) -> str:
        """Say goodbye."""
        return "Sorry, I cannot help with that. Goodbye! ###STOP###"


def main() -> None:
    """Train the logit and print the oracle probability per epoch."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=5)
    parser.add_argument("--episodes", type=int, default=8)
    parser.add_argument("--lr", type=float, default=2.0)
    args = parser.parse_args()
    rng = random.Random(0)
    logit = 0.0
    for epoch in range(args.epochs):
        p = 1 / (1 + math.exp(-logit))
        choices = [rng.random() < p for _ in range(args.episodes)]
        picks = iter(choices)
        result = collect("UserBench/Retail-v0", lambda: ScriptedAgent() if next(picks) else LazyAgent(),
                         episodes=args.episodes, concurrency=1, gate=None, seed=epoch * 1000)
        rewards = [r["reward"] * pass_fraction(r) for r in result.records]
        baseline = sum(rewards) / len(rewards)
        # d/dlogit log pi(choice) = (1 - p) for the oracle, -p for the lazy agent
        grad = sum((r - baseline) * ((1 - p) if oracle else -p) for r, oracle in zip(rewards, choices)) / len(rewards)
        logit += args.lr * grad
        print(f"epoch {epoch}: P(oracle) = {p:.3f}, mean weighted reward = {baseline:.3f}")
    print(f"final P(oracle) = {1 / (1 + math.exp(-logit)):.3f}")


if __name__ == "__main__":
    main()
