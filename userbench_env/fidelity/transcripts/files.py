"""Scoring a whole input file: read it in its format, score every entry, collect what failed.

:func:`score_file` is what ``userbench score-transcripts`` runs per input file. A file of
another format fails as a whole (:class:`~.transcript.NotThisFormat`); an entry that cannot
be read or scored (a malformed message, a task the source does not have, an ambiguous
tau-bench match, a tool result that answers no call) is skipped and reported as a
:class:`~.transcript.BadEntry` while the rest is scored. A tau2 simulation that tau2 itself
calls non-evaluable (:data:`NON_EVALUABLE`) is scored but its line carries ``error``, so
reports exclude it as they exclude infrastructure errors.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from userbench_env.domains import canonical_domain_name
from userbench_env.fidelity.feeding import UnansweredCall
from userbench_env.fidelity.transcripts import tau2, taubench
from userbench_env.fidelity.transcripts.scoring import Plans, score_transcript
from userbench_env.fidelity.transcripts.tasks import TaskIndex
from userbench_env.fidelity.transcripts.transcript import BadEntry, NotThisFormat, Transcript

Format = Literal["tau2", "taubench"]
FORMATS: tuple[str, ...] = ("tau2", "taubench")
#: tau2's terminations of simulations that never produced an evaluable rollout (tau2 leaves
#: them out of its rates; so do our reports, as infrastructure errors)
NON_EVALUABLE = ("infrastructure_error", "context_window_exceeded")


@dataclass
class TaskChoice:
    """Where tasks come from: a task ``source`` (``bundled``/``tau2``, with ``data_path``),
    or, with ``from_file``, the ``tasks`` a tau2 results file carries."""

    domain: str
    source: str = "bundled"
    data_path: str | os.PathLike[str] | None = None
    from_file: bool = False


@dataclass
class ScoredFile:
    """The output lines of one input file, the entries it skipped, and the transcripts
    it scored by episode (for callers that map a line's flags back to the conversation,
    e.g. to customer turns: :meth:`~.transcript.Transcript.user_turns`)."""

    lines: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[BadEntry] = field(default_factory=list)
    transcripts: dict[str, Transcript] = field(default_factory=dict)


def score_file(path: str | os.PathLike[str], fmt: Format, choice: TaskChoice, judge: Any = None,
               user_model: str | None = None, index: TaskIndex | None = None,
               plans: Plans | None = None) -> ScoredFile:
    """Score every entry of ``path`` (see the module docstring). ``user_model`` names the
    user model the lines are grouped by (default: the one the file names; a tau-bench list
    names none, so its file name stands for it). ``index`` and ``plans`` may be shared
    across files of the same domain and task source."""
    path = Path(path)
    domain = canonical_domain_name(choice.domain)
    agent = None
    if fmt == "tau2":
        results = tau2.read_results(path)
        named = tau2.domain(results)
        if named is not None and canonical_domain_name(named) != domain:
            raise NotThisFormat(f"{path} holds {named} simulations, not {domain}: pass --domain {named}")
        if choice.from_file:
            index = TaskIndex.from_tau2_objects(results.get("tasks") or [], domain, f"the tasks in {path}")
        items = tau2.transcripts(path, results, index or TaskIndex.from_source(domain, choice.source, choice.data_path))
        named_user, agent = tau2.user_model(results), tau2.agent_model(results)
    elif fmt == "taubench":
        if choice.from_file:
            raise ValueError("a tau-bench list carries no tasks: take them from --source")
        entries = taubench.read_entries(path)
        items = taubench.transcripts(path, entries, index or TaskIndex.from_source(domain, choice.source, choice.data_path))
        named_user = None
    else:
        raise ValueError(f"unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    proxy = user_model or named_user or path.stem
    source = "file" if choice.from_file else choice.source
    plans = plans or Plans()
    out = ScoredFile()
    for item in items:
        if isinstance(item, BadEntry):
            out.skipped.append(item)
            continue
        try:
            verdicts = score_transcript(item, plans[item.task], judge)
        except UnansweredCall as exc:
            out.skipped.append(BadEntry(path, f"episode {item.episode}", str(exc)))
            continue
        out.transcripts[item.episode] = item
        out.lines.append({
            "key": "|".join(("transcripts", fmt, proxy, domain, source, item.episode)),
            "episode": item.episode,
            "format": fmt,
            "file": str(path),
            "proxy": proxy,
            "agent": agent or "",
            "domain": domain,
            "source": source,
            "task_id": item.task.id,
            "source_task_id": item.source_task_id,
            "trial": item.trial,
            "reward": item.reward,
            "termination": item.termination,
            **verdicts,
            "user_cost_usd": item.user_cost_usd,
            "error": f"tau2 termination {item.termination}" if item.termination in NON_EVALUABLE else None,
        })
    return out
