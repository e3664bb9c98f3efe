"""Scoring a built task's gold transcript with the real evaluator (reward must be 1)."""
from __future__ import annotations

from pathlib import Path

from userbench_env.generate.builder import BuiltTask, GenerationError


def gold_reward(built: BuiltTask, folder: Path) -> float:
    """Reward (NL assertions excluded) of the task's gold transcript on the world in ``folder``."""
    from userbench_env.evaluation import evaluate_episode

    verdict = evaluate_episode(
        built.task, built.transcript, termination="user_stop", source="bundled", include_nl=False, data_path=folder
    )
    return float(verdict.reward_excluding_nl)


def verify_all(built: list[BuiltTask], folder: Path) -> None:
    """Raise :class:`GenerationError` unless every gold transcript scores 1 on ``folder``."""
    bad = [(b.task.id, r) for b in built if (r := gold_reward(b, folder)) != 1.0]
    if bad:
        raise GenerationError(f"gold transcripts not scoring 1: {bad[:10]}")
