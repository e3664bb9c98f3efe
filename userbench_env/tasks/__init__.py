"""Task sources: our bundled tasks and tau2-bench's task files.

>>> from userbench_env.tasks import load_tasks
>>> tasks = load_tasks("airline", source="tau2", split="base")   # doctest: +SKIP

``source="bundled"`` reads our own tasks shipped in the package (``tasks/<domain>/``);
``source="tau2"`` reads a tau2-bench data folder from ``$USERBENCH_TAU2_DATA`` (or
``path``) and converts each task, structuring its free-text blueprint.
"""
from userbench_env.tasks.loader import available_splits, load_task, load_tasks

__all__ = ["available_splits", "load_task", "load_tasks"]
