"""Loading tasks from the bundled folder or a tau2-bench data folder (cached per process).

A task file is read once per process; tau2 tasks are converted to our model lazily, the
first time one is asked for, so asking for telecom's 114-task base split does not pay
for converting all 2,285 telecom tasks.
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Callable

from userbench_env.core.task import Task
from userbench_env.datapaths import domain_folder
from userbench_env.domains import canonical_domain_name, get_domain
from userbench_env.errors import UnknownTaskId
from userbench_env.tasks.tau2 import task_from_tau2


class _TaskSet:
    """The tasks of one (domain, source, folder): ids in file order, splits, lazy conversion."""

    def __init__(self, raws: dict[str, Any], splits: dict[str, list[str]], convert: Callable[[str, Any], Task]):
        self.ids = list(raws)
        self.splits = splits
        self._raws = raws
        self._convert = convert
        self._tasks: dict[str, Task] = {}
        self._lock = threading.Lock()

    def get(self, task_id: str) -> Task:
        found = self._tasks.get(task_id)
        if found is None:
            raw = self._raws[task_id]  # KeyError for an unknown id
            with self._lock:
                found = self._tasks.setdefault(task_id, self._convert(task_id, raw))
        return found


_cache: dict[tuple[str, str, Path], _TaskSet] = {}
_lock = threading.Lock()


def _memberships(splits: dict[str, list[str]]) -> dict[str, list[str]]:
    membership: dict[str, list[str]] = {}
    for split_name, ids in splits.items():
        for task_id in ids:
            membership.setdefault(task_id, []).append(split_name)
    return membership


def _read_tau2(domain: str, folder: Path) -> _TaskSet:
    per_task_dir = folder / "tasks"
    if per_task_dir.is_dir():  # banking_knowledge: one task per file, sorted file names
        raws = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(per_task_dir.glob("*.json"))]
    else:
        raws = json.loads((folder / "tasks.json").read_text(encoding="utf-8"))
    split_file = folder / "split_tasks.json"
    splits: dict[str, list[str]] = (
        json.loads(split_file.read_text(encoding="utf-8")) if split_file.exists() else {}
    )
    membership = _memberships(splits)
    return _TaskSet(
        {str(raw["id"]): raw for raw in raws},
        splits,
        lambda task_id, raw: task_from_tau2(raw, domain, membership.get(task_id, [])),
    )


def _read_bundled(domain: str, folder: Path) -> _TaskSet:
    path = folder / "tasks.json"
    if not path.exists():
        raise FileNotFoundError(f"no bundled tasks for {domain!r} at {path}")
    raws = {str(t["id"]): t for t in json.loads(path.read_text(encoding="utf-8"))}
    splits: dict[str, list[str]] = {}
    for task_id, raw in raws.items():
        for split_name in raw.get("splits", []):
            splits.setdefault(split_name, []).append(task_id)
    return _TaskSet(raws, splits, lambda task_id, raw: Task.model_validate(raw))


def _task_set(domain: str, source: str, path: str | os.PathLike[str] | None) -> _TaskSet:
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
    return sorted(_task_set(domain, source, path).splits)


def load_tasks(
    domain: str,
    source: str = "bundled",
    split: str | None = "default",
    path: str | os.PathLike[str] | None = None,
) -> list[Task]:
    """The tasks of ``domain`` from ``source``, filtered to ``split``, in file order.

    ``split="default"`` is ``base`` when the source has such a split (tau2's own default
    for airline, retail and telecom), else every task; ``None`` means every task. An
    unknown split name raises ``ValueError`` listing the known ones. The returned list is
    a fresh list of shared (treat as read-only) task objects.
    """
    tasks = _task_set(domain, source, path)
    if split == "default":
        split = "base" if "base" in tasks.splits else None
    if split is None:
        return [tasks.get(task_id) for task_id in tasks.ids]
    if split not in tasks.splits:
        known = ", ".join(sorted(tasks.splits)) or "none"
        raise ValueError(f"unknown split {split!r} for {domain} ({source}); known splits: {known}")
    wanted = set(tasks.splits[split])
    return [tasks.get(task_id) for task_id in tasks.ids if task_id in wanted]


def load_task(domain: str, task_id: str, source: str = "bundled", path: str | os.PathLike[str] | None = None) -> Task:
    """One task by id (from every task of the source, whatever its split); an unknown id
    raises :class:`~userbench_env.errors.UnknownTaskId` naming the command that lists them."""
    try:
        return _task_set(domain, source, path).get(str(task_id))
    except KeyError:
        command = f"userbench tasks --domain {domain}" + (f" --source {source}" if source != "bundled" else "")
        raise UnknownTaskId(f"no task {task_id!r} in {domain} ({source}): `{command} --split all` lists "
                            "the task ids") from None


def tasks_to_json(tasks: list[Task]) -> list[dict[str, Any]]:
    """Tasks as plain JSON-able dicts (the bundled ``tasks.json`` format)."""
    return [t.model_dump(mode="json", exclude_none=True) for t in tasks]
