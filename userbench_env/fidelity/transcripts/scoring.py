"""Scoring transcripts: the env's rule tracker (and judge) over a finished conversation.

:func:`score_transcript` feeds a transcript's messages, in order, through the same
:class:`~userbench_env.fidelity.feeding.TrackerFeed` the env feeds as the episode runs, to
a :class:`~userbench_env.fidelity.rules.RuleTracker` built from the task's criteria as the
env builds it (:func:`~userbench_env.fidelity.criteria.task_criteria`), then grades the
verdicts as the env's terminal step does (:func:`~userbench_env.fidelity.grading.grade_criteria`
with the ``judge`` option) and turns them into the UFS verdict
(:func:`~userbench_env.fidelity.scoring.episode_verdict`).

Its result is one line of the output (the schema is in ``docs/transcripts.md``): the
fields of a run store's episode record that reports read, plus ``episode``, ``flags``
(every violation a rule logged, with the index of the user message in the input's own
message list) and where the transcript came from.
"""
from __future__ import annotations

from collections import Counter
from typing import Any

from userbench_env.core.task import Task
from userbench_env.fidelity.criteria import task_criteria
from userbench_env.fidelity.feeding import TrackerFeed
from userbench_env.fidelity.grading import grade_criteria
from userbench_env.fidelity.rules import RulePlan, RuleTracker, compile_rules
from userbench_env.fidelity.scoring import episode_verdict
from userbench_env.fidelity.transcripts.transcript import Transcript
from userbench_env.tasks.extract import is_question


class Plans:
    """The compiled rule plan of each task, built once per task (as the env caches them)."""

    def __init__(self) -> None:
        self._plans: dict[int, tuple[Task, RulePlan]] = {}

    def __getitem__(self, task: Task) -> RulePlan:
        found = self._plans.get(id(task))
        if found is None or found[0] is not task:
            found = self._plans[id(task)] = (task, compile_rules(task_criteria(task)))
        return found[1]


def _events(tracker: RuleTracker) -> Counter[tuple[str, int]]:
    """Every violation the tracker's rules logged so far, as ``(criterion id, turn)`` counts."""
    return Counter((event["id"], event["turn"]) for event in tracker.events())


def _counts(transcript: Transcript) -> dict[str, int]:
    """The env's per-episode counters, read from the messages (questions are counted in the
    agent's texts after its turn-0 greeting, as the env counts them)."""
    messages = transcript.messages
    agent_texts = [m for m in messages if m.role == "assistant" and not m.tool_calls and m.turn > 0]
    return {
        "turns": max((m.turn for m in messages), default=0),
        "agent_tool_calls": sum(len(m.tool_calls or ()) for m in messages if m.role == "assistant"),
        "user_tool_calls": sum(len(m.tool_calls or ()) for m in messages if m.role == "user"),
        "tool_errors": sum(m.error for m in messages if m.role == "tool"),
        "agent_questions": sum(is_question(m.content) for m in agent_texts),
    }


def score_transcript(transcript: Transcript, plan: RulePlan, judge: Any = None) -> dict[str, Any]:
    """The fidelity verdicts of one transcript: ``ufs_pass``, ``failures_per_family``,
    ``criteria`` (as in the env's terminal record) and ``flags``, one per logged violation:
    ``{"mode", "criterion", "verdict", "message_index", "user_text"}`` (``verdict`` is the
    criterion's final verdict; ``message_index`` the user message's index in the input's
    own message list). Raises :class:`~userbench_env.fidelity.feeding.UnansweredCall` for
    a tool result that answers no call."""
    tracker = RuleTracker(plan)
    feed = TrackerFeed()
    found: list[tuple[tuple[str, int], int | None, str]] = []
    seen = _events(tracker)
    for message, origin in zip(transcript.messages, transcript.origins):
        feed.message(tracker, message)  # rules log violations on user texts
        now = _events(tracker)
        found += [(event, origin, message.content or "") for event in (now - seen).elements()]
        seen = now
    criteria = grade_criteria(tracker, transcript.messages, judge)
    ufs_pass, failures = episode_verdict(criteria)
    verdicts = {c["id"]: c["verdict"] for c in criteria}
    modes = {c["id"]: c["mode"] for c in criteria}
    flags = [{"mode": modes[cid], "criterion": cid, "verdict": verdicts[cid], "message_index": origin, "user_text": text}
             for (cid, _), origin, text in found]
    return {"ufs_pass": ufs_pass, "failures_per_family": failures, "criteria": criteria, "flags": flags,
            **_counts(transcript)}
