"""Writing one generated domain: world files, built tasks, optional verification.

A domain generator returns a :class:`GeneratedWorld` (file contents + task drafts);
:func:`write_world` writes the files, builds every draft against the written world,
writes ``tasks.json`` and (optionally) verifies that every gold
transcript scores reward 1.
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from userbench_env.generate.builder import BuiltTask, GenerationError, build_task
from userbench_env.generate.draft import TaskDraft
from userbench_env.generate.writing import JsonFile, TomlFile, folder_files, write_json, write_text
from userbench_env.tasks.loader import tasks_to_json


#: ``tasks.json`` is indented this many levels deep (see :func:`~.writing.dump_json`).
TASKS_LAYOUT = 3


@dataclass
class GeneratedWorld:
    """A domain's generated files (relative path -> text, :class:`JsonFile` or :class:`TomlFile`) and task drafts."""

    files: dict[str, str | JsonFile | TomlFile]
    drafts: list[TaskDraft]


@dataclass
class GenerationReport:
    """What was written: task and split counts, file sizes in bytes."""

    domain: str
    folder: Path
    tasks: int
    splits: dict[str, int]
    files: dict[str, int] = field(default_factory=dict)
    verified: bool = False

    def summary(self) -> str:
        """One human-readable paragraph."""
        total = sum(self.files.values())
        splits = ", ".join(f"{k} {v}" for k, v in sorted(self.splits.items()))
        state = "all gold transcripts score 1" if self.verified else "not verified"
        return f"{self.domain}: {self.tasks} tasks ({splits}); {len(self.files)} files, {total} bytes in {self.folder}; {state}"


def _write_files(folder: Path, files: dict[str, str | JsonFile | TomlFile]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    keep = set(files) | {"tasks.json"}
    for rel in folder_files(folder):
        if rel not in keep:
            (folder / rel).unlink()
    for rel, content in files.items():
        if isinstance(content, str):
            write_text(folder / rel, content)
        else:
            content.write(folder / rel)


def build_all(domain: str, folder: Path, drafts: list[TaskDraft]) -> list[BuiltTask]:
    """Build every draft against ``folder``; ids must be unique."""
    ids = Counter(d.id for d in drafts)
    dupes = [i for i, n in ids.items() if n > 1]
    if dupes:
        raise GenerationError(f"duplicate task ids: {dupes}")
    return [build_task(domain, folder, d) for d in drafts]


def write_world(domain: str, folder: Path, world: GeneratedWorld, verify: bool = True) -> GenerationReport:
    """Write ``world`` into ``folder`` (stale files removed), build and write its tasks.

    With ``verify`` every gold transcript is scored by the evaluator on the written world
    and must reach reward 1 (NL assertions excluded).
    """
    _write_files(folder, world.files)
    built = build_all(domain, folder, world.drafts)
    write_json(folder / "tasks.json", tasks_to_json([b.task for b in built]), expand=TASKS_LAYOUT)
    if verify:
        from userbench_env.generate.verify import verify_all

        verify_all(built, folder)
    splits = Counter(s for b in built for s in b.task.splits)
    return GenerationReport(domain, folder, len(built), dict(splits), folder_files(folder), verify)
