"""Artifacts and how each kind is scored: the one entry point every surface shares.

An artifact is the JSON an episode leaves behind (survey answers, a chat transcript,
later a web cart or an app order). An :class:`ArtifactKind` knows how to recognise
its JSON, which file name APB's verifier expects, and how to score it for a task.
Kinds register in :data:`ARTIFACT_KINDS` (lazy ``module:object`` strings), so the web
and app surfaces add theirs without touching this module.

:func:`score_artifact` applies APB's status rules: no artifact -> error; a task with
its own ``tests/verifier.py`` -> that verifier, sandboxed (:mod:`.verifier`); otherwise
the kind's scorer with the task's data rules. An artifact file is untrusted input:
:func:`read_artifact` reads at most :data:`MAX_ARTIFACT_BYTES`, and one too large, not
JSON, nested too deeply or holding a number too long to read is malformed (a fail,
with the reason), never a traceback. :func:`score_picks` is the shared rule path for
every pick-based kind: constraints first (a violation fails every check), then each
check's rule over its label map.
"""
from __future__ import annotations

import importlib
import json
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

from userbench_env.surfaces.rules import Pick, apply_rule
from userbench_env.surfaces.scoring import CheckVerdict, Outcome, combine, error_outcome
from userbench_env.surfaces.tasks import SurfaceTask


#: the largest artifact file read (larger ones are malformed, not read)
MAX_ARTIFACT_BYTES = 20 * 2**20


class ArtifactError(ValueError):
    """The artifact exists but is malformed: an agent-side defect, scored as a fail."""


class ArtifactKind(Protocol):
    """How one kind of artifact is recognised and scored."""

    name: str
    #: file name APB's verifier reads from ``ADHERENCE_OUTPUT_DIR``
    filename: str

    def matches(self, data: Any) -> bool:
        """Whether ``data`` looks like this kind."""

    def score(self, task: SurfaceTask, data: Any, judge: Any = None) -> Outcome:
        """Score ``data`` for ``task`` (``judge`` for judged kinds)."""


#: kind name -> "module:object" of an :class:`ArtifactKind`, imported on first use
ARTIFACT_KINDS: dict[str, str] = {
    "survey": "userbench_env.surfaces.survey:SURVEY_ARTIFACT",
    "chat": "userbench_env.surfaces.chat:CHAT_ARTIFACT",
    "web": "userbench_env.surfaces.web.artifact:WEB_ARTIFACT",
    "app": "userbench_env.surfaces.app.artifact:APP_ARTIFACT",
}


def get_kind(name: str) -> ArtifactKind:
    """The registered artifact kind called ``name``."""
    if name not in ARTIFACT_KINDS:
        raise ValueError(f"unknown artifact kind {name!r}: known {sorted(ARTIFACT_KINDS)}")
    module, _, attr = ARTIFACT_KINDS[name].partition(":")
    return getattr(importlib.import_module(module), attr)


def detect_kind(data: Any, surface: str | None = None) -> ArtifactKind:
    """The kind for ``data``: the task surface's kind when it matches, else the first match."""
    names = ([surface] if surface in ARTIFACT_KINDS else []) + [n for n in ARTIFACT_KINDS if n != surface]
    for name in names:
        kind = get_kind(name)
        if kind.matches(data):
            return kind
    raise ArtifactError("artifact matches no known kind (" + ", ".join(ARTIFACT_KINDS) + ")")


def read_artifact(path: str | Path, max_bytes: int = MAX_ARTIFACT_BYTES) -> Any | None:
    """The artifact's JSON, or ``None`` when the file does not exist.

    A file over ``max_bytes``, not UTF-8 JSON, nested too deeply or holding an integer
    too long to convert raises :class:`ArtifactError` (the agent wrote garbage).
    """
    path = Path(path)
    if not path.is_file():
        return None
    size = path.stat().st_size
    if size > max_bytes:
        raise ArtifactError(f"{path.name} is {size} bytes, over the {max_bytes}-byte artifact limit")
    try:
        return json.loads(path.read_bytes().decode("utf-8"))
    except RecursionError as exc:
        raise ArtifactError(f"{path.name} is nested too deeply to read") from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer past Python's digit limit
        raise ArtifactError(f"{path.name} is not valid JSON: {' '.join(str(exc).split())[:200]}") from exc


def score_artifact(
    task: SurfaceTask,
    data: Any | None,
    kind: str | None = None,
    judge: Any = None,
    isolation: str = "auto",
    pass_env: Iterable[str] = (),
) -> Outcome:
    """Score one episode's artifact for ``task`` with APB's status rules.

    ``data`` ``None`` (nothing produced) is an error. A task whose ``verifier`` is set
    runs it with ``isolation`` and ``pass_env`` (see :mod:`userbench_env.surfaces.verifier`);
    otherwise the kind scores with the task's data rules. A malformed artifact fails
    every check; a task its data cannot score (a check without a rule) is an error
    outcome. Never raises for bad data.
    """
    names = [c.name for c in task.checks]
    if data is None:
        return error_outcome("no artifact was produced", len(task.checks), names)
    try:
        chosen = get_kind(kind) if kind else detect_kind(data, task.surface)
    except ArtifactError as exc:
        return malformed_outcome(task, str(exc))
    if task.verifier:
        from userbench_env.surfaces.verifier import run_verifier

        return run_verifier(task, chosen.filename, data, isolation=isolation,  # type: ignore[arg-type]
                            pass_env=pass_env)
    try:
        return chosen.score(task, data, judge)
    except ArtifactError as exc:
        return malformed_outcome(task, str(exc))
    except ValueError as exc:  # the task cannot be scored as configured (a check without a rule)
        return error_outcome(f"configuration error: {exc}", len(task.checks), names)


def malformed_outcome(task: SurfaceTask, reason: str) -> Outcome:
    """Every check VIOLATED because the artifact itself is unusable (APB: reward 0)."""
    return combine([CheckVerdict(name=c.name, verdict="VIOLATED", rule=c.rule, detail=reason) for c in task.checks])


def score_picks(
    task: SurfaceTask,
    picks: Sequence[Pick],
    groups: Mapping[str, Sequence[str]],
    labels: Mapping[str, Mapping[str, bool | int]] | None = None,
) -> Outcome:
    """Score picks against the task's constraints and per-check rules.

    ``groups`` is the universe of ids by question/section (for coverage and known-id
    constraints); ``labels`` maps label name -> label map (default: the task's answer
    key), so a web or app surface can pass labels read from its page or catalogue.
    """
    labels = labels if labels is not None else task.answer_key
    rules = task.rules()  # a check without a rule is the caller's error (ValueError), before anything else
    for constraint in task.parsed_constraints():
        problem = constraint.problem(picks, groups)
        if problem:
            return malformed_outcome(task, f"{constraint}: {problem}")
    verdicts = []
    for check, rule in zip(task.checks, rules):
        if check.label not in labels:
            detail = (f"no label map {check.label!r} for this check" if check.label else
                      "the check names no label map: give one with --label NAME (known: "
                      + (", ".join(sorted(labels)) or "none") + ")")
            verdicts.append(CheckVerdict(name=check.name, verdict="ERROR", rule=str(rule), detail=detail))
            continue
        result = apply_rule(rule, picks, labels[check.label])
        verdicts.append(CheckVerdict(
            name=check.name, verdict="HELD" if result.held else "VIOLATED", rule=str(rule),
            offside=result.offside, detail=result.detail,
        ))
    return combine(verdicts)

