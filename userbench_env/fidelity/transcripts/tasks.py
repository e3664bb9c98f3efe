"""The tasks transcripts are scored against: by id, or matched from a tau-bench instruction.

A :class:`TaskIndex` holds a domain's tasks from a task source (``bundled`` or ``tau2``,
as everywhere: :func:`userbench_env.tasks.load_tasks`, every split) or from the ``tasks``
a tau2 results file carries (tau2's own task schema). :meth:`TaskIndex.get` finds a task
by id; :meth:`TaskIndex.match` finds the task of a tau-bench (v1) entry that does not
name its tau2 task, from its user id and instruction:

* the candidates are the tasks whose scenario names the user id;
* each is scored by the share of the instruction's sentences (the ``You are <user id>.``
  opener aside) its scenario contains, compared as lower-case words;
* the best candidate is the match when it contains at least one sentence and no other
  candidate scores as high; otherwise the match is refused, naming the candidates.

tau2 rewrote many tau-bench instructions, so a refusal is common where one user has
several tasks; naming the task (``tau2_task_id``) is the way to score such an entry.
"""
from __future__ import annotations

import os
import re
from typing import Any, Callable, Iterable

from userbench_env.core.task import Task

_WORDS = re.compile(r"[a-z0-9_$.]+")
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|\n+")


class UnknownTask(LookupError):
    """No task fits (an unknown id, or no unambiguous match); the message is one line."""


def _words(text: str) -> str:
    """``text`` as lower-case words joined by single spaces (punctuation other than ``_$.`` dropped)."""
    return " ".join(_WORDS.findall(text.lower()))


def _scenario_text(task: Task) -> str:
    """Every string of the task's user scenario (else its blueprint's instructions), as words."""
    scenario = task.user_scenario if task.user_scenario is not None else task.blueprint.model_dump()
    return _words(" ".join(_strings(scenario)))


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


class TaskIndex:
    """A domain's tasks by id, with tau-bench instruction matching (see the module docstring).

    ``find`` returns the task with an id (None when there is none); ``every`` lists all the
    tasks (only matching needs them: a source's tasks are converted when first looked up, so
    scoring telecom's transcripts does not convert its 2,285 tau2 tasks)."""

    def __init__(self, find: Callable[[str], Task | None], every: Callable[[], Iterable[Task]], described: str):
        self._find, self._every = find, every
        self.described = described  # where the tasks come from, for messages
        self._scenarios: dict[str, str] = {}

    @classmethod
    def from_source(cls, domain: str, source: str, data_path: str | os.PathLike[str] | None = None) -> "TaskIndex":
        """Every task of ``domain`` in ``source`` (``bundled`` or ``tau2``)."""
        from userbench_env.tasks import load_task, load_tasks

        def find(task_id: str) -> Task | None:
            try:
                return load_task(domain, task_id, source, data_path)
            except KeyError:
                return None

        return cls(find, lambda: load_tasks(domain, source, None, data_path), f"{domain} ({source})")

    @classmethod
    def from_tau2_objects(cls, raws: list[dict[str, Any]], domain: str, described: str) -> "TaskIndex":
        """The tasks of a tau2 results file (tau2's task schema)."""
        from userbench_env.tasks.tau2 import task_from_tau2

        try:
            tasks = {str(raw["id"]): task_from_tau2(raw, domain, []) for raw in raws}
        except (KeyError, TypeError, ValueError) as exc:  # pydantic's ValidationError is a ValueError
            raise ValueError(f"{described} are not tau2 task objects ({type(exc).__name__}: {exc})") from None
        return cls(tasks.get, tasks.values, described)

    def get(self, task_id: object) -> Task:
        """The task with ``task_id``; :class:`UnknownTask` when there is none."""
        found = self._find(str(task_id))
        if found is None:
            raise UnknownTask(f"names task {str(task_id)!r}, which is not among the tasks of {self.described}")
        return found

    def match(self, user_id: str, instruction: str) -> Task:
        """The task of a tau-bench entry from its ``user_id`` and ``instruction``; raises
        :class:`UnknownTask` when none or several fit equally well."""
        candidates = [task for task in self._every() if user_id and user_id.lower() in self._scenario(task)]
        if not candidates:
            raise UnknownTask(f"no task of {self.described} names user {user_id!r}")
        opener = _words(f"You are {user_id}.")
        sentences = [s for s in (_words(part) for part in _SENTENCE_END.split(instruction)) if s and s != opener]
        scores = sorted(((sum(s in self._scenario(t) for s in sentences), t.id) for t in candidates), reverse=True)
        best, best_id = scores[0]
        tied = [task_id for score, task_id in scores if score == best]
        if best == 0 or len(tied) > 1:
            shown = ", ".join(f"{task_id} ({score}/{len(sentences)} sentences)" for score, task_id in scores[:4])
            raise UnknownTask(f"ambiguous task for user {user_id!r}: no single task of {self.described} fits the "
                              f"instruction best ({shown}); name it with tau2_task_id")
        return next(task for task in candidates if task.id == best_id)

    def _scenario(self, task: Task) -> str:
        found = self._scenarios.get(task.id)
        if found is None:
            found = self._scenarios[task.id] = _scenario_text(task)
        return found
