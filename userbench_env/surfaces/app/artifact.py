"""The ``app`` artifact kind: the file the app's submit button wrote, scored against the task.

Shape: ``{"app": ..., <list_key>: [{"id", "name", <hidden labels>...}], "note": ...}``.
Like APB's newer app verifiers, labels are re-derived from the catalogue the task holds:
an entry whose id is not in the catalogue, whose name differs from the catalogue's, or
whose copied label contradicts the task's label map is a forged file (fail). Then the
task's constraints (exact counts, distinct, known ids) and each check's rule run over
the picked ids (:func:`userbench_env.surfaces.artifacts.score_picks`).
"""
from __future__ import annotations

from typing import Any

from userbench_env.surfaces.artifacts import ArtifactError, score_picks
from userbench_env.surfaces.rules import Pick
from userbench_env.surfaces.scoring import Outcome, error_outcome
from userbench_env.surfaces.tasks import SurfaceTask


class AppArtifact:
    """Scores an app's output file (see the module docstring)."""

    name = "app"
    filename = "order.json"

    def matches(self, data: Any) -> bool:
        """A dict holding a list of objects with ids (and no survey ``answers``)."""
        return isinstance(data, dict) and "answers" not in data and any(
            isinstance(v, list) and all(isinstance(e, dict) and "id" in e for e in v) for v in data.values())

    def picks(self, task: SurfaceTask, data: Any) -> list[Pick]:
        """The picked ids, after the forged-file checks; ``ArtifactError`` when malformed."""
        assert task.app is not None
        entries = data.get(task.app.list_key) if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise ArtifactError(f"app artifact needs a {task.app.list_key!r} list")
        picks = []
        for entry in entries:
            if not isinstance(entry, dict) or not isinstance(entry.get("id"), str):
                raise ArtifactError("each picked entry needs a string id")
            item = task.app.item(entry["id"])
            if item is None:
                raise ArtifactError(f"forged file: id {entry['id']!r} is not in the app's catalogue")
            if entry.get("name", item.name) != item.name:
                raise ArtifactError(f"forged file: {entry['id']} is {item.name!r}, not {entry.get('name')!r}")
            for label, values in task.answer_key.items():
                if label in entry and entry[label] != values.get(entry["id"]):
                    raise ArtifactError(f"forged file: label {label!r} of {entry['id']} contradicts the catalogue")
            picks.append(Pick(id=entry["id"]))
        return picks

    def score(self, task: SurfaceTask, data: Any, judge: Any = None) -> Outcome:
        """Forged-file checks, then the task's constraints and rules over the catalogue labels."""
        if task.app is None:
            return error_outcome(f"task {task.id} has no app catalogue to score against", len(task.checks),
                                 [c.name for c in task.checks])
        return score_picks(task, self.picks(task, data), task.app.sections())


APP_ARTIFACT = AppArtifact()
