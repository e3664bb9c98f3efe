"""Loading tasks from the bundled folder or a tau2-bench data folder (cached per process)."""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from userbench_env.core.task import Task
from userbench_env.datapaths import domain_folder
from userbench_env.domains import canonical_domain_name, get_domain
from userbench_env.tasks.tau2 import task_from_tau2

_cache: dict[tuple[str, str, Path], tuple[list[Task], dict[str, list[str]]]] = {}
_lock = threading.Lock()


def _read_tau2(domain: str, folder: Path) -> tuple[list[Task], dict[str, list[str]]]:
    per_task_dir = folder / "tasks"
    if per_task_dir.is_dir():  # banking_knowledge: one task per file, sorted file names
        raws = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(per_task_dir.glob("*.json"))]
    else:
        raws = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
    split_file = folder / "split_tasks.json"
    splits: dict[str, list[str]] = (
        json.loads(split_file.read_text(encoding="utf-8")) if split_file.exists() else {}
    )
    membership: dict[str, list[str]] = {}
    for split_name, ids in splits.items():
        for task_id in ids:
            membership.setdefault(task_id, []).append(split_name)
    tasks = [task_from_tau2(raw, domain, membership.get(str(raw["id"]), [])) for raw in raws]
    return tasks, splits


def _read_bundled(domain: str, folder: Path) -> tuple[list[Task], dict[str, list[str]]]:
    path = folder / "tasks.json"
    if not path.exists():
        raise FileNotFoundError(f"no bundled tasks for {domain!r} at {path}")
    tasks = [Task.model_validate(t) for t in json.loads(path.read_text(encoding="utf-8"))]
    splits: dict[str, list[str]] = {}
    for task in tasks:
        for split_name in task.splits:
            splits.setdefault(split_name, []).append(task.id)
    return tasks, splits


def _load_all(domain: str, source: str, path: str | os.PathLike[str] | None) -> tuple[list[Task], dict[str, list[str]]]:
    name = canonical_domain_name(domain)
    spec = get_domain(name)
    folder = domain_folder(spec.tau2_name, spec.name, source, path)
    key = (name, source, folder.resolve())
    found = _cache.get(key)
    if found is None:
        with _lock:
            found = _cache.get(key)
            if found is None:
                found = _read_tau2(name, folder) if source == "tau2" else _read_bundled(name, folder)
                _cache[key] = found
    return found


def available_splits(domain: str, source: str = "bundled", path: str | os.PathLike[str] | None = None) -> list[str]:
    """Names of the splits of ``domain`` in ``source``."""
    return sorted(_load_all(domain, source, path)[1])


def load_tasks(
    domain: str,
    source: str = "bundled",
    split: str | None = "default",
    path: str | os.PathLike[str] | None = None,
) -> list[Task]:
    """The tasks of ``domain`` from ``source``, filtered to ``split``.

    ``split="default"`` is ``base`` when the source has such a split (tau2's own default
    for airline, retail and telecom), else every task; ``None`` means every task. An
    unknown split name raises ``ValueError`` listing the known ones. The returned list is
    a fresh list of shared (treat as read-only) task objects.
    """
    tasks, splits = _load_all(domain, source, path)
    if split == "default":
        split = "base" if "base" in splits else None
    if split is None:
        return list(tasks)
    if split not in splits:
        known = ", ".join(sorted(splits)) or "none"
        raise ValueError(f"unknown split {split!r} for {domain} ({source}); known splits: {known}")
    wanted = set(splits[split])
    return [t for t in tasks if t.id in wanted]


def load_task(domain: str, task_id: str, source: str = "bundled", path: str | os.PathLike[str] | None = None) -> Task:
    """One task by id (from every task of the source, whatever its split)."""
    for task in _load_all(domain, source, path)[0]:
        if task.id == task_id:
            return task
    raise KeyError(f"no task {task_id!r} in {domain} ({source})")


def tasks_to_json(tasks: list[Task]) -> list[dict[str, Any]]:
    """Tasks as plain JSON-able dicts (the bundled ``tasks.json`` format)."""
    return [t.model_dump(mode="json", exclude_none=True) for t in tasks]
