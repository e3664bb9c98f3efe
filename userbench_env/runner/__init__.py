"""Running episodes at scale: evaluation runs into a resumable store, and gated collection.

* :func:`run_eval` / :func:`arun_eval` with an :class:`EvalConfig` (``userbench eval``);
* :func:`collect` / :func:`acollect` for trainers (kept records + number rejected);
* :class:`EpisodeStore` (append-only JSONL, fsync per record, resume by key, one writer);
* :class:`RunSettings` (the question a store answers: settings that change outcomes);
* :class:`Gate` (which episodes a fidelity gate rejects).

Submodules are imported on first attribute access, so importing this package is cheap.
"""
from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "EpisodeStore": "userbench_env.runner.store",
    "episode_key": "userbench_env.runner.store",
    "RunSettings": "userbench_env.runner.settings",
    "EvalConfig": "userbench_env.runner.evaluation",
    "EvalResult": "userbench_env.runner.evaluation",
    "run_eval": "userbench_env.runner.evaluation",
    "arun_eval": "userbench_env.runner.evaluation",
    "collect": "userbench_env.runner.collection",
    "acollect": "userbench_env.runner.collection",
    "CollectResult": "userbench_env.runner.collection",
    "Gate": "userbench_env.runner.gate",
    "make_gate": "userbench_env.runner.gate",
    "FunctionAgent": "userbench_env.runner.agents",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    """Import the submodule that defines ``name`` on first use."""
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'userbench_env.runner' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
