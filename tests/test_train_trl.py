"""Two real GRPO steps (TRL) of SmolLM2-135M-Instruct on UserBench, on CPU (marker ``slow``).

Runs the example's own trainer (``examples/train_grpo_trl.py``) on two training rows of
the bundled airline world, each sampled three times per step (seeded): a refusal task
(R_tau 1 unless the policy changes the reservation or makes a bad tool call:
``max_errors=1``, so rollouts that do and rollouts that don't give the group its
reward variance) with the scripted user, and the same task with a user that volunteers an item in its opening
turn, so every such rollout fails UFS and is gated out. Asserts that the trainer
received exactly the env's rewards (NaN where the gate gave ``None``), that gated
rollouts got zero advantage, and that the weights moved exactly when some group had
reward variance. Skipped (one-line reason)
without torch/transformers/gguf/trl/datasets or the model file.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

import resources
from userbench_env.integrations.episode import score_episode

pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore::FutureWarning", "ignore::UserWarning")]

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "train_grpo_trl.py"
TASK = "airline_refuse_cancel_plain_0"
GATE_FAILING_PROXY = "perturbed:volunteers_unasked_info@1.0+scripted"


def example_module():
    spec = importlib.util.spec_from_file_location("train_grpo_trl", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    from userbench_env.serve.gguf import ModelNotInstalled, default_gguf_path

    for name in ("torch", "transformers", "gguf", "trl", "datasets", "accelerate"):
        if importlib.util.find_spec(name) is None:
            resources.go_without(f"{name} is not installed: pip install torch==2.13.0 && pip install -e '.[trl]'", "local-model")
    try:
        default_gguf_path()
    except ModelNotInstalled as exc:
        resources.go_without(str(exc), "local-model")
    import torch

    example = example_module()
    rows = [
        {"env_id": "UserBench/Airline-v0", "task_source": "bundled", "split": "train", "task_id": TASK, "seed": 0,
         "user_proxy": proxy}
        for proxy in ("scripted", GATE_FAILING_PROXY)
    ]
    seen: list[dict] = []

    class Capture(type(example.step_printer())):
        def on_step_end(self, args, state, control, **kwargs):
            super().on_step_end(args, state, control, **kwargs)
            logs = self.trainer._logs  # TRL's per-rollout log of the latest generation batch
            seen.append({"episodes": [env.episode for env in self.trainer.environments],
                         "rows": [env.session.row.model_dump() for env in self.trainer.environments],
                         "rewards": list(logs["rewards"]["ufs_gated"]), "advantages": list(logs["advantages"])})

    capture = Capture()
    trainer = example.build_trainer(
        "UserBench/Airline-v0", steps=2, num_generations=3, prompts_per_step=2, max_completion_length=48,
        max_tool_iterations=2, reward="ufs_gated", rows=rows, learning_rate=1e-4, seed=0,
        output_dir=str(tmp_path_factory.mktemp("grpo")), env_kwargs={"max_turns": 20, "max_errors": 1},
        callbacks=[capture],
    )
    capture.trainer = trainer
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    changed = any(not torch.equal(before[name], p.detach()) for name, p in trainer.model.named_parameters())
    return {"trainer": trainer, "steps": seen, "printed": capture.rows, "changed": changed}


def test_the_trainer_received_the_envs_rewards_with_gated_rollouts_as_no_reward(trained) -> None:
    steps = trained["steps"]
    assert len(steps) == 2 and [r["step"] for r in trained["printed"]] == [1, 2]
    for step in steps:
        expected = [score_episode(e, "ufs_gated") for e in step["episodes"]]
        assert len(step["rewards"]) == len(expected) == 6
        for got, want in zip(step["rewards"], expected):
            assert (math.isnan(got) and want is None) or got == pytest.approx(want)
        gated = [row["user_proxy"] == GATE_FAILING_PROXY for row in step["rows"]]
        assert [want is None for want in expected] == gated and sum(gated) == 3
        assert all(a == 0.0 for a, g in zip(step["advantages"], gated) if g)
        for episode, row in zip(step["episodes"], step["rows"]):
            assert episode["task_id"] == TASK and episode["error"] is None
            assert (episode["ufs_pass"] is False) == (row["user_proxy"] == GATE_FAILING_PROXY)
    for printed in trained["printed"]:
        assert printed["gated_share"] == 0.5 and printed["tokens"] > 0 and printed["seconds"] > 0


def test_the_weights_move_exactly_when_a_group_has_reward_variance(trained) -> None:
    """GRPO learns from reward differences within a group; gated-out rollouts add none.

    With the 135M model every rollout may end the same way (no parsed tool call in its
    completion budget: R_tau 1 on this refusal task), and then no advantage is non-zero
    and the weights must stay put; any group with variance must move them."""
    advantages = [a for step in trained["steps"] for a in step["advantages"]]
    assert len(advantages) == 12
    assert trained["changed"] == any(a != 0.0 for a in advantages)
