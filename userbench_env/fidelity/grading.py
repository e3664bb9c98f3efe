"""Turning an episode's criteria into final verdict dicts: rule verdicts plus judge verdicts.

The env's ``judge`` option decides what happens to judge-checked criteria:

* ``None``: not graded; reported ``not_applicable`` with source ``unjudged`` (UFS then
  reflects the rule criteria only);
* ``"deferred"``: left ``pending`` (source ``judge``) for a batch grader
  (:func:`grade_record`, ``userbench grade``);
* a model spec: graded now by a :class:`~userbench_env.fidelity.judge.FidelityJudge`
  (one per spec per process, so its cache is shared). A judge failure (unparseable
  reply, provider error) makes that criterion's verdict ``error`` with the message; it
  never passes.

A rule verdict its rule marked ``ambiguous`` (it could not decide: a ``suspect`` verdict,
see :meth:`~userbench_env.fidelity.rules.Rule.suspect`, or a borderline pass, see
:meth:`~userbench_env.fidelity.rules.Rule.unsure`) is handed to a configured judge
(a model spec): the judge's verdict replaces it (source ``judge``, the rule's kept as
``rule_verdict``); with no judge, or ``"deferred"`` until a batch grader brings one,
the rule's verdict stands.
"""
from __future__ import annotations

from functools import lru_cache
from typing import Any, Iterable

from userbench_env.core.messages import Message
from userbench_env.evaluation.nl_judge import JudgeSpec
from userbench_env.fidelity.judge import FidelityJudge
from userbench_env.fidelity.rules import RuleTracker
from userbench_env.fidelity.scoring import episode_verdict, suspect_count

DEFERRED = "deferred"


@lru_cache(maxsize=8)
def _judge(spec: JudgeSpec) -> FidelityJudge:
    return FidelityJudge(spec)


def judge_for(judge: Any) -> FidelityJudge:
    """A :class:`FidelityJudge` for a judge option (an instance is returned as is)."""
    if isinstance(judge, FidelityJudge):
        return judge
    return _judge(JudgeSpec.parse(judge))


def grade_one(verdict: dict[str, Any], judge: FidelityJudge, messages: list[Message]) -> dict[str, Any]:
    """A judge criterion's verdict dict graded by ``judge`` (a new dict)."""
    out = dict(verdict)
    try:
        graded = judge.grade(str(verdict["statement"]), str(verdict.get("grounding", "")), messages)
    except Exception as exc:  # an unusable reply or a provider outage is an error, never a pass
        out.update(verdict="error", source="judge", error=f"{type(exc).__name__}: {exc}", judge_model=judge.spec.model)
        return out
    out.update(verdict=graded.verdict, evidence_turn=graded.evidence_turn, source="judge", judge_model=graded.model,
               judge_temperature=graded.temperature, reasoning=graded.reasoning)
    return out


def _is_open(verdict: dict[str, Any]) -> bool:
    return verdict.get("source") == "judge" and verdict.get("verdict") in ("pending", "error") and "statement" in verdict


def grade_verdicts(verdicts: Iterable[dict[str, Any]], messages: list[Message], judge: Any) -> list[dict[str, Any]]:
    """Apply the ``judge`` option (see the module docstring) to the open judge verdicts."""
    out = []
    grader = judge_for(judge) if judge not in (None, DEFERRED) else None
    for verdict in verdicts:
        if _is_open(verdict):
            if judge is None:
                verdict = {**verdict, "verdict": "not_applicable", "source": "unjudged"}
            elif grader is not None:
                verdict = grade_one(verdict, grader, messages)
        elif grader is not None and "ambiguous" in verdict and verdict.get("source") == "rule":
            verdict = {**grade_one(verdict, grader, messages), "rule_verdict": verdict["verdict"]}
        out.append(verdict)
    return out


def grade_criteria(tracker: RuleTracker, messages: list[Message], judge: Any) -> list[dict[str, Any]]:
    """The episode's final criterion verdicts: the tracker's, with judge criteria handled per ``judge``."""
    verdicts = tracker.verdicts()
    return grade_verdicts(verdicts, messages, judge) if tracker.judged else verdicts


def grade_record(record: dict[str, Any], judge: Any) -> dict[str, Any]:
    """An episode record (plain dict with ``criteria`` and ``messages``) with its pending judge
    criteria graded and ``ufs_pass``/``failures_per_family`` recomputed (a new dict)."""
    messages = [m if isinstance(m, Message) else Message.model_validate(m) for m in record.get("messages") or []]
    criteria = grade_verdicts(record.get("criteria") or [], messages, judge)
    ufs_pass, failures = episode_verdict(criteria)
    return {**record, "criteria": criteria, "ufs_pass": ufs_pass, "failures_per_family": failures,
            "ufs_suspects": suspect_count(criteria), "ufs_pass_strict": episode_verdict(criteria, suspects="fail")[0]}
