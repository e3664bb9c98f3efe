"""Rubric files: versioned, one JSON file per task and version, loaded by the envs.

Layout under a root folder: ``<root>/<source>/<domain>/<task_id>.v<version>.json``, each
holding one :class:`~userbench_env.core.rubric.Rubric` (criteria kept, rejected
criteria with their reasons). Saving never overwrites another version; loading picks
the highest version unless one is pinned.
"""
from __future__ import annotations

import os
import re
from pathlib import Path

from userbench_env.core.rubric import Rubric
from userbench_env.core.task import Task

_VERSIONED = re.compile(r"^(?P<task>.+)\.v(?P<version>[0-9A-Za-z_.-]+)\.json$")


def _version_key(version: str) -> tuple[int, int | str]:
    return (0, int(version)) if version.isdigit() else (1, version)


def rubric_path(root: str | os.PathLike[str], source: str, domain: str, task_id: str, version: str) -> Path:
    """Where version ``version`` of task ``task_id``'s rubric lives."""
    return Path(root) / source / domain / f"{task_id}.v{version}.json"


def save_rubric(root: str | os.PathLike[str], source: str, domain: str, rubric: Rubric, overwrite: bool = False) -> Path:
    """Write ``rubric`` as its version's file; ``FileExistsError`` if that version exists
    (unless ``overwrite``). Returns the path."""
    path = rubric_path(root, source, domain, rubric.task_id, rubric.version)
    if path.exists() and not overwrite:
        raise FileExistsError(f"{path} exists: bump the rubric version")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(rubric.model_dump_json(indent=1) + "\n", encoding="utf-8")
    return path


def rubric_versions(root: str | os.PathLike[str], source: str, domain: str, task_id: str) -> list[str]:
    """The stored versions of a task's rubric, oldest first."""
    folder = Path(root) / source / domain
    found = []
    if folder.is_dir():
        for path in folder.iterdir():
            match = _VERSIONED.match(path.name)
            if match and match.group("task") == task_id:
                found.append(match.group("version"))
    return sorted(found, key=_version_key)


def load_rubric(root: str | os.PathLike[str], task: Task, version: str | None = None) -> Rubric | None:
    """``task``'s rubric of ``version`` (default: the highest stored), or None when none is stored."""
    versions = rubric_versions(root, task.source, task.domain, task.id)
    if version is None:
        if not versions:
            return None
        version = versions[-1]
    elif version not in versions:
        return None
    path = rubric_path(root, task.source, task.domain, task.id, version)
    return Rubric.model_validate_json(path.read_text(encoding="utf-8"))
