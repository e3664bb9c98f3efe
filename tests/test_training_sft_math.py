"""The SFT loss pieces on a tiny random Llama (no model file needed; skipped without torch/transformers).

* log-probabilities computed only at the predicting positions equal those read from the
  full logits;
* computing them from the captured inputs of a top layer (``train_layers``) equals the
  full forward pass;
* ``train_sft`` with ``train_layers`` changes only the top layers and lowers the loss.
"""
from __future__ import annotations

import importlib.util

import pytest

import resources

if importlib.util.find_spec("torch") is None or importlib.util.find_spec("transformers") is None:
    resources.go_without("torch/transformers are not installed: pip install -e '.[local]'", "local-model", module_level=True)

import torch  # noqa: E402

from userbench_env.training.sft import layer_inputs, token_logprobs, top_logprobs, train_sft  # noqa: E402


@pytest.fixture()
def model():
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    config = LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=3,
                         num_attention_heads=2, num_key_value_heads=1, max_position_embeddings=64, tie_word_embeddings=True)
    return LlamaForCausalLM(config).eval()


EXAMPLE = {"input_ids": [1, 5, 7, 9, 11, 3, 4, 8, 2, 6], "labels": [-100, -100, -100, 9, 11, 3, -100, -100, 2, 6]}


def test_logprobs_at_predicting_positions_equal_the_full_logits(model) -> None:
    ids, labels = EXAMPLE["input_ids"], EXAMPLE["labels"]
    full = torch.log_softmax(model(input_ids=torch.tensor([ids])).logits[0], dim=-1)
    expected = torch.stack([full[t, labels[t + 1]] for t in range(len(ids) - 1) if labels[t + 1] != -100])
    assert torch.allclose(token_logprobs(model, ids, labels), expected, atol=1e-5)


def test_logprobs_from_a_top_layer_equal_the_full_forward(model) -> None:
    ids, labels = EXAMPLE["input_ids"], EXAMPLE["labels"]
    hidden, kwargs = layer_inputs(model, ids, 2)
    assert hidden.shape == (1, len(ids), 16)
    assert torch.allclose(top_logprobs(model, hidden, kwargs, labels, 2), token_logprobs(model, ids, labels), atol=1e-5)


def test_training_the_top_layer_changes_only_it_and_lowers_the_loss(model) -> None:
    before = {n: p.detach().clone() for n, p in model.named_parameters()}
    start = float(-token_logprobs(model, EXAMPLE["input_ids"], EXAMPLE["labels"]).mean())
    logs = train_sft(model, [EXAMPLE], epochs=20, learning_rate=1e-2, accumulation=1, train_layers=1)
    changed = {n for n, p in model.named_parameters() if not torch.equal(before[n], p.detach())}
    assert changed and all(n.startswith(("model.layers.2.", "model.norm.")) for n in changed)
    assert float(-token_logprobs(model, EXAMPLE["input_ids"], EXAMPLE["labels"]).mean()) < start
    assert len(logs) == 20 and logs[-1].loss < logs[0].loss
    assert all(p.requires_grad for p in model.parameters())
