"""Collect rollouts for training, dropping those whose simulated user broke its contract.

A tiny policy (a plain function) asks for the user's id, then closes the conversation.
The user is perturbed: a fifth of its turns volunteer information nobody asked for, which
the fidelity rule checks catch; the gate rejects those rollouts and counts them.

    python examples/gated_collection.py --episodes 16
"""
from __future__ import annotations

import argparse
from typing import Any

from userbench_env.runner import collect


def tiny_policy(observation: str, info: dict[str, Any]) -> str:
    """Ask for the user id on the first turn, then close."""
    if info.get("turn", 0) == 0:
        return "Could you please tell me your user id?"
    return "Thank you. Is there anything else I can help you with?"


def main() -> None:
    """Collect, gate, and print what was kept."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=16)
    args = parser.parse_args()
    result = collect(
        "UserBench/Airline-v0", tiny_policy, episodes=args.episodes, concurrency=8, gate="ufs",
        env_kwargs={"user_proxy": "perturbed:volunteers_unasked_info@0.2+scripted"},
    )
    print(f"kept {len(result.records)} rollouts, rejected {result.rejected} by the fidelity gate, "
          f"{len(result.errors)} infrastructure errors")
    for record in result.records[:3]:
        print(f"  {record['task_id']}: reward {record['reward']}, turns {record['turns']}, UFS {record['ufs_pass']}")


if __name__ == "__main__":
    main()
