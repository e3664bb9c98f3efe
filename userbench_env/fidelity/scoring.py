"""UFS scoring from criterion verdicts (plain dicts as found in ``info`` and episode records).

An episode passes iff every applicable criterion passes; UFS is the mean pass over the
episodes whose verdict is decided (at least one applicable criterion, none pending or
errored). Episodes with nothing applicable are counted and reported, not scored.
"""
from __future__ import annotations

from typing import Any, Iterable

from userbench_env.fidelity.taxonomy import FAMILIES


def episode_verdict(criteria: Iterable[dict[str, Any]]) -> tuple[bool | None, dict[str, int]]:
    """(ufs_pass, failures per family) of one episode.

    ``ufs_pass`` is False if any criterion failed; otherwise True when at least one
    criterion applied (passed) and none is pending or errored; otherwise None (nothing
    applied, judging is deferred, or the judge failed).
    """
    criteria = list(criteria)
    verdicts = [criterion["verdict"] for criterion in criteria]
    failures: dict[str, int] = {}
    if "fail" in verdicts:
        for criterion, verdict in zip(criteria, verdicts):
            if verdict == "fail":
                failures[criterion["family"]] = failures.get(criterion["family"], 0) + 1
        return False, failures
    if "pending" in verdicts or "error" in verdicts or "pass" not in verdicts:
        return None, failures
    return True, failures


def ufs_summary(episodes: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """UFS over episode dicts (each with ``criteria``; ``error`` set = excluded).

    Returns ``ufs`` (None when no episode is scored), ``scored``, ``passed``,
    ``no_applicable`` (episodes with no applicable criterion), ``undecided`` (pending or
    judge errors), ``excluded`` (infrastructure errors) and ``failures_per_family``
    (episodes failing each family, every family listed).
    """
    scored = passed = no_applicable = undecided = excluded = 0
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
        scored += 1
        passed += ufs_pass
    return {
        "ufs": passed / scored if scored else None,
        "scored": scored,
        "passed": passed,
        "no_applicable": no_applicable,
        "undecided": undecided,
        "excluded": excluded,
        "failures_per_family": families,
    }
