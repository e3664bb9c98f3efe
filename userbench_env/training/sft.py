"""Supervised fine-tuning of a causal LM on chat-format demonstrations (full weights, CPU).

:func:`sft_examples` turns :func:`~userbench_env.integrations.sft.demonstrations`
records into token ids with the agent's turns labelled (:mod:`.tokens`);
:func:`train_sft` runs AdamW over them for some epochs (one chat per forward pass,
gradients accumulated over ``accumulation`` chats, linear warm-up then linear decay,
gradient norm clipped at 1) and reports each optimizer step through ``on_step``.
The loss is the mean cross-entropy of the labelled tokens.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence

from pydantic import BaseModel

from userbench_env.training.tokens import tokenize_chat


class StepLog(BaseModel):
    """One optimizer step: its number, epoch, mean loss, tokens seen and seconds taken."""

    phase: str
    step: int
    epoch: float
    loss: float
    tokens: int
    seconds: float


def sft_examples(tokenizer: Any, records: Sequence[dict[str, Any]], max_length: int = 2048) -> list[dict[str, list[int]]]:
    """Tokenized demonstrations (``input_ids``, ``labels``), at most ``max_length`` tokens each."""
    return [tokenize_chat(tokenizer, r["messages"], r.get("tools"), max_length) for r in records]


def token_logprobs(model: Any, input_ids: list[int], labels: list[int]) -> Any:
    """The log-probabilities the model gives each labelled token (a 1-D torch tensor)."""
    import torch

    ids = torch.tensor([input_ids])
    target = torch.tensor(labels[1:])
    logits = model(input_ids=ids).logits[0, :-1]
    keep = target != -100
    return torch.log_softmax(logits[keep].float(), dim=-1).gather(1, target[keep].unsqueeze(1)).squeeze(1)


def train_sft(model: Any, examples: Sequence[dict[str, list[int]]], epochs: float = 3.0, learning_rate: float = 1e-4,
              accumulation: int = 2, warmup: float = 0.1, seed: int = 0,
              on_step: Callable[[StepLog], None] | None = None) -> list[StepLog]:
    """Fine-tune ``model`` in place on ``examples`` (module docstring); returns the step logs."""
    import torch

    rng = random.Random(seed)
    torch.manual_seed(seed)
    order: list[int] = []
    whole, part = int(epochs), epochs - int(epochs)
    for _ in range(whole + (1 if part > 0 else 0)):
        shuffled = list(range(len(examples)))
        rng.shuffle(shuffled)
        order += shuffled
    order = order[:round(epochs * len(examples))]
    total = max(1, -(-len(order) // accumulation))
    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate, weight_decay=0.0)
    warm = max(1, int(warmup * total))
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda s: (s + 1) / warm if s < warm else max(0.0, (total - s) / max(1, total - warm)))
    model.train()
    logs: list[StepLog] = []
    for step in range(total):
        start = time.perf_counter()
        batch = order[step * accumulation:(step + 1) * accumulation]
        losses, tokens = [], 0
        for index in batch:
            example = examples[index]
            loss = -token_logprobs(model, example["input_ids"], example["labels"]).mean()
            (loss / len(batch)).backward()
            losses.append(float(loss.detach()))
            tokens += len(example["input_ids"])
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        log = StepLog(phase="sft", step=step + 1, epoch=(step + 1) * accumulation / len(examples),
                      loss=sum(losses) / len(losses), tokens=tokens, seconds=time.perf_counter() - start)
        logs.append(log)
        if on_step is not None:
            on_step(log)
    model.eval()
    return logs
