"""UFS scoring from criterion verdicts (plain dicts as found in ``info`` and episode records).

An episode passes iff every applicable criterion passes; UFS is the mean pass over the
episodes whose verdict is decided (at least one applicable criterion, none pending or
errored). Episodes with nothing applicable are counted and reported, not scored.

A ``suspect`` verdict is a possible violation a rule could not be sure of (a configured
judge grades it; see :mod:`userbench_env.fidelity.grading`). Two readings: the default
(``suspects="pass"``) counts it as applicable and not failed; the strict one
(``suspects="fail"``) as a failure of its family.
"""
from __future__ import annotations

from typing import Any, Iterable, Literal

from userbench_env.fidelity.taxonomy import FAMILIES

SuspectReading = Literal["pass", "fail"]


def episode_verdict(criteria: Iterable[dict[str, Any]], suspects: SuspectReading = "pass") -> tuple[bool | None, dict[str, int]]:
    """(ufs_pass, failures per family) of one episode.

    ``ufs_pass`` is False if any criterion failed (with ``suspects="fail"``, or is
    suspect); otherwise True when at least one criterion applied (passed, or is suspect)
    and none is pending or errored; otherwise None (nothing applied, judging is deferred,
    or the judge failed).
    """
    criteria = list(criteria)
    failing = ("fail", "suspect") if suspects == "fail" else ("fail",)
    verdicts = [criterion["verdict"] for criterion in criteria]
    failures: dict[str, int] = {}
    if any(verdict in failing for verdict in verdicts):
        for criterion, verdict in zip(criteria, verdicts):
            if verdict in failing:
                failures[criterion["family"]] = failures.get(criterion["family"], 0) + 1
        return False, failures
    if "pending" in verdicts or "error" in verdicts or not ("pass" in verdicts or "suspect" in verdicts):
        return None, failures
    return True, failures


def suspect_count(criteria: Iterable[dict[str, Any]]) -> int:
    """How many of an episode's criteria are ``suspect``."""
    return sum(1 for criterion in criteria if criterion.get("verdict") == "suspect")


def ufs_summary(episodes: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """UFS over episode dicts (each with ``criteria``; ``error`` set = excluded).

    Returns ``ufs`` (None when no episode is scored), ``scored``, ``passed``,
    ``no_applicable`` (episodes with no applicable criterion), ``undecided`` (pending or
    judge errors), ``excluded`` (infrastructure errors), ``failures_per_family``
    (episodes failing each family, every family listed), ``suspects`` (suspect verdicts),
    ``suspect_episodes`` (scored episodes holding one) and ``ufs_strict`` (UFS reading
    suspects as failures: equal to ``ufs`` when there are none).
    """
    scored = passed = strict = no_applicable = undecided = excluded = suspects = suspect_episodes = 0
    families = {family: 0 for family in FAMILIES}
    for episode in episodes:
        if episode.get("error"):
            excluded += 1
            continue
        criteria = list(episode.get("criteria") or [])
        ufs_pass, failures = episode_verdict(criteria)
        for family in failures:
            families[family] = families.get(family, 0) + 1
        if ufs_pass is None:
            if any(c["verdict"] in ("pending", "error") for c in criteria):
                undecided += 1
            else:
                no_applicable += 1
            continue
        count = suspect_count(criteria)
        scored += 1
        passed += ufs_pass
        strict += ufs_pass and not count
        suspects += count
        suspect_episodes += bool(count)
    return {
        "ufs": passed / scored if scored else None,
        "ufs_strict": strict / scored if scored else None,
        "scored": scored,
        "passed": passed,
        "no_applicable": no_applicable,
        "undecided": undecided,
        "excluded": excluded,
        "failures_per_family": families,
        "suspects": suspects,
        "suspect_episodes": suspect_episodes,
    }
