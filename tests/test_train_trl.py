"""Real GRPO steps (TRL) of SmolLM2-135M-Instruct on UserBench, on CPU (marker ``slow``).

Runs the example's own trainer (``examples/train_grpo_trl.py``) on the bundled airline
world's refusal task (R_tau 1 unless the policy changes the reservation or makes a bad
tool call, ``max_errors=1``; the policy's final plain answer goes to the user).

* Two steps, fidelity-gated (``ufs_gated``), over two rows each sampled three times:
  the scripted user, and a user that volunteers an item in its opening turn, so every
  such rollout fails UFS and is gated out. Asserts the trainer received exactly the
  env's rewards (NaN where the gate gave ``None``) and that gated rollouts got zero
  advantage.
* Two steps, fidelity-weighted (``fidelity_weighted``: R_tau times the share of the
  user's criteria that passed), one row sampled four times with a user that injects
  unasked items at rate 0.5 and a seed of its own per rollout (``rollout_seeds``): the
  group's rewards differ (the env's doing, reproducible from the seeds), and the
  weights must change.

Skipped (one-line reason) without torch/transformers/gguf/trl/datasets or the model file.
"""
from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

import resources
from userbench_env.errors import extra_hint
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


WEIGHTED_PROXY = "perturbed:volunteers_unasked_info@0.5+scripted"


def train(tmp_path_factory, reward: str, proxies: tuple[str, ...], num_generations: int, rollout_seeds: bool = False) -> dict:
    """Two GRPO steps of the example's trainer on one row per proxy; what each step saw."""
    from userbench_env.serve.gguf import ModelNotInstalled, default_gguf_path

    for name in ("torch", "transformers", "gguf", "trl", "datasets", "accelerate"):
        if importlib.util.find_spec(name) is None:
            resources.go_without(f"{name} is not installed: {extra_hint('trl')}", "local-model")
    try:
        default_gguf_path()
    except ModelNotInstalled as exc:
        resources.go_without(str(exc), "local-model")
    import torch

    example = example_module()
    rows = [
        {"env_id": "UserBench/Airline-v0", "task_source": "bundled", "split": "train", "task_id": TASK, "seed": 0,
         "user_proxy": proxy}
        for proxy in proxies
    ]
    seen: list[dict] = []

    class Capture(type(example.step_printer())):
        def on_step_end(self, args, state, control, **kwargs):
            super().on_step_end(args, state, control, **kwargs)
            logs = self.trainer._logs  # TRL's per-rollout log of the latest generation batch
            seen.append({"episodes": [env.episode for env in self.trainer.environments],
                         "rows": [env.session.row.model_dump() for env in self.trainer.environments],
                         "rewards": list(logs["rewards"][reward]), "advantages": list(logs["advantages"])})

    capture = Capture()
    trainer = example.build_trainer(
        "UserBench/Airline-v0", steps=2, num_generations=num_generations, prompts_per_step=len(rows),
        max_completion_length=32, max_tool_iterations=2, reward=reward, rows=rows, learning_rate=1e-4, seed=0,
        output_dir=str(tmp_path_factory.mktemp("grpo")), env_kwargs={"max_turns": 20, "max_errors": 1},
        rollout_seeds=rollout_seeds, callbacks=[capture],
    )
    capture.trainer = trainer
    before = {name: p.detach().clone() for name, p in trainer.model.named_parameters()}
    trainer.train()
    changed = [name for name, p in trainer.model.named_parameters() if not torch.equal(before[name], p.detach())]
    return {"steps": seen, "printed": capture.rows, "changed": changed, "bf16": trainer.args.bf16}


@pytest.fixture(scope="module")
def gated(tmp_path_factory):
    return train(tmp_path_factory, "ufs_gated", ("scripted", GATE_FAILING_PROXY), num_generations=3)


@pytest.fixture(scope="module")
def weighted(tmp_path_factory):
    return train(tmp_path_factory, "fidelity_weighted", (WEIGHTED_PROXY,), num_generations=4, rollout_seeds=True)


def test_the_trainer_received_the_envs_rewards_with_gated_rollouts_as_no_reward(gated) -> None:
    assert gated["bf16"] is False  # float32 on CPU (bf16 autocast takes a slow path there)
    steps = gated["steps"]
    assert len(steps) == 2 and [r["step"] for r in gated["printed"]] == [1, 2]
    for step in steps:
        expected = [score_episode(e, "ufs_gated") for e in step["episodes"]]
        assert len(step["rewards"]) == len(expected) == 6
        for got, want in zip(step["rewards"], expected):
            assert (math.isnan(got) and want is None) or got == pytest.approx(want)
        is_gated = [row["user_proxy"] == GATE_FAILING_PROXY for row in step["rows"]]
        assert [want is None for want in expected] == is_gated and sum(is_gated) == 3
        assert all(a == 0.0 for a, g in zip(step["advantages"], is_gated) if g)
        for episode, row in zip(step["episodes"], step["rows"]):
            assert episode["task_id"] == TASK and episode["error"] is None
            assert (episode["ufs_pass"] is False) == (row["user_proxy"] == GATE_FAILING_PROXY)
            assert episode["termination"] in {"agent_stop", "user_stop", "too_many_errors"}
    for printed in gated["printed"]:
        assert printed["gated_share"] == 0.5 and printed["tokens"] > 0 and printed["seconds"] > 0


def test_the_weights_change_under_the_envs_fidelity_weighted_rewards(weighted) -> None:
    """Each rollout of the row plays its own seed, so the user's injections, and with them
    the rewards, differ within the group; GRPO turns that into non-zero advantages and
    the optimizer into new weights."""
    for step in weighted["steps"]:
        expected = [score_episode(e, "fidelity_weighted") for e in step["episodes"]]
        assert step["rewards"] == pytest.approx(expected)
        assert sorted(row["seed"] for row in step["rows"]) == sorted(set(row["seed"] for row in step["rows"]))
    assert any(len(set(step["rewards"])) > 1 for step in weighted["steps"])
    assert any(a != 0.0 for step in weighted["steps"] for a in step["advantages"])
    assert weighted["changed"], "no parameter changed after two GRPO steps with reward differences"
