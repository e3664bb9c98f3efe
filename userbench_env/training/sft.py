"""Supervised fine-tuning of a causal LM on chat-format demonstrations (full weights, CPU).

:func:`sft_examples` turns :func:`~userbench_env.integrations.sft.demonstrations`
records into token ids with the agent's turns labelled (:mod:`.tokens`);
:func:`train_sft` runs AdamW over them for some epochs (one chat per forward pass,
gradients accumulated over ``accumulation`` chats, linear warm-up then linear decay,
gradient norm clipped at 1), of every weight or of the top layers only (``train_layers``,
for a small CPU budget), and reports each optimizer step through ``on_step``.
The loss is the mean cross-entropy of the labelled tokens.
"""
from __future__ import annotations

import random
import time
from typing import Any, Callable, Sequence

from pydantic import BaseModel

from userbench_env.training.tokens import IGNORE, tokenize_chat


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


def predicting_positions(labels: list[int]) -> tuple[Any, Any]:
    """The positions whose next token is labelled, and those tokens (torch tensors)."""
    import torch

    positions = [t for t in range(len(labels) - 1) if labels[t + 1] != IGNORE]
    return torch.tensor(positions), torch.tensor([labels[t + 1] for t in positions])


def token_logprobs(model: Any, input_ids: list[int], labels: list[int]) -> Any:
    """The log-probabilities the model gives each labelled token (a 1-D torch tensor);
    logits are computed only where a labelled token is predicted."""
    import torch

    positions, targets = predicting_positions(labels)
    logits = model(input_ids=torch.tensor([input_ids]), logits_to_keep=positions).logits[0]
    return torch.log_softmax(logits.float(), dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)


class _Captured(Exception):
    """Stops a forward pass once the inputs of the first trained layer are captured."""


def layer_inputs(model: Any, input_ids: list[int], split: int) -> tuple[Any, dict[str, Any]]:
    """The hidden states entering decoder layer ``split`` (and the keyword arguments the
    model passes it: mask, rotary embeddings, positions), computed without gradients and
    without running the layers above."""
    import torch

    captured: dict[str, Any] = {}

    def capture(module: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        captured["hidden"] = args[0].detach()
        captured["kwargs"] = {k: kwargs.get(k) for k in ("attention_mask", "position_embeddings", "position_ids")}
        raise _Captured

    handle = model.model.layers[split].register_forward_pre_hook(capture, with_kwargs=True)
    try:
        with torch.no_grad():
            model(input_ids=torch.tensor([input_ids]), use_cache=False)
    except _Captured:
        pass
    finally:
        handle.remove()
    return captured["hidden"], captured["kwargs"]


def top_logprobs(model: Any, hidden: Any, kwargs: dict[str, Any], labels: list[int], split: int) -> Any:
    """:func:`token_logprobs` computed from the inputs of layer ``split`` up."""
    import torch

    for layer in model.model.layers[split:]:
        hidden = layer(hidden, **kwargs)
    positions, targets = predicting_positions(labels)
    logits = model.lm_head(model.model.norm(hidden)[0, positions])
    return torch.log_softmax(logits.float(), dim=-1).gather(1, targets.unsqueeze(1)).squeeze(1)


def train_only_top(model: Any, layers: int) -> int:
    """Freeze every weight but the top ``layers`` decoder layers and the final norm
    (the tied embeddings stay frozen); returns the index of the first trained layer."""
    split = len(model.model.layers) - layers
    if not 0 <= split < len(model.model.layers):
        raise ValueError(f"train_layers must be 1..{len(model.model.layers)}")
    for name, parameter in model.named_parameters():
        parameter.requires_grad = name.startswith("model.norm.") or any(
            name.startswith(f"model.layers.{i}.") for i in range(split, len(model.model.layers)))
    return split


def train_sft(model: Any, examples: Sequence[dict[str, list[int]]], epochs: float = 3.0, learning_rate: float = 1e-4,
              accumulation: int = 2, warmup: float = 0.1, seed: int = 0, train_layers: int | None = None,
              on_step: Callable[[StepLog], None] | None = None) -> list[StepLog]:
    """Fine-tune ``model`` in place on ``examples`` (module docstring); returns the step logs.

    ``train_layers``: train only the top N decoder layers (and the final norm). The
    inputs of the first trained layer are then computed once per example, without
    gradients, and reused in every epoch, so an epoch costs about N/num_layers of a
    full one (a Llama-style ``model.model.layers`` stack is assumed).
    """
    import torch

    split = train_only_top(model, train_layers) if train_layers else None
    features = [layer_inputs(model, e["input_ids"], split) for e in examples] if split is not None else None

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
    trained = [p for p in model.parameters() if p.requires_grad]
    optimizer = torch.optim.AdamW(trained, lr=learning_rate, weight_decay=0.0)
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
            if features is not None:
                hidden, kwargs = features[index]
                loss = -top_logprobs(model, hidden, kwargs, example["labels"], split).mean()
            else:
                loss = -token_logprobs(model, example["input_ids"], example["labels"]).mean()
            (loss / len(batch)).backward()
            losses.append(float(loss.detach()))
            tokens += len(example["input_ids"])
        torch.nn.utils.clip_grad_norm_(trained, 1.0)
        optimizer.step()
        schedule.step()
        optimizer.zero_grad()
        log = StepLog(phase="sft", step=step + 1, epoch=(step + 1) * accumulation / len(examples),
                      loss=sum(losses) / len(losses), tokens=tokens, seconds=time.perf_counter() - start)
        logs.append(log)
        if on_step is not None:
            on_step(log)
    for parameter in model.parameters():
        parameter.requires_grad = True
    model.eval()
    return logs
