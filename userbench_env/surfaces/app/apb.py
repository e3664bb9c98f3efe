"""Upstream APB app tasks: attach the app catalogue their folder does not ship as data.

An APB app task keeps its catalogue inside the app's Python source, which is code and
not copied; ``apb-sample/derived`` holds QuickBite's catalogue transcribed as JSON.
:func:`with_apb_catalog` gives a loaded APB app task that catalogue (rows, limits,
output file, list key) and the hidden label maps, so it runs on our app and scores
with the rules from ``apb_rules.yaml``.
"""
from __future__ import annotations

from pathlib import Path

from userbench_env.surfaces.app.spec import spec_from_apb_catalog
from userbench_env.surfaces.tasks import SurfaceTask


def with_apb_catalog(task: SurfaceTask, catalog: str | Path) -> SurfaceTask:
    """A copy of ``task`` carrying the catalogue in ``catalog``; ``ValueError`` if a check's label is missing."""
    spec, labels = spec_from_apb_catalog(catalog)
    missing = [c.label for c in task.checks if c.label not in labels]
    if missing:
        raise ValueError(f"catalogue {catalog} has no label {missing} for task {task.id}")
    return task.model_copy(update={"app": spec, "answer_key": labels})
