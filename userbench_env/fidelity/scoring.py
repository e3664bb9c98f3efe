"""Per-episode UFS scoring from criterion verdicts (plain dicts as found in ``info``)."""
from __future__ import annotations

from typing import Any, Iterable


def episode_verdict(criteria: Iterable[dict[str, Any]]) -> tuple[bool | None, dict[str, int]]:
    """(ufs_pass, failures per family) of one episode.

    ``ufs_pass`` is False if any criterion failed; otherwise True when at least one
    criterion applied (passed) and none is still pending; otherwise None (nothing
    applied, or judging is deferred).
    """
    failures: dict[str, int] = {}
    passed = pending = 0
    for criterion in criteria:
        verdict = criterion["verdict"]
        if verdict == "fail":
            failures[criterion["family"]] = failures.get(criterion["family"], 0) + 1
        elif verdict == "pass":
            passed += 1
        elif verdict == "pending":
            pending += 1
    if failures:
        return False, failures
    if pending or not passed:
        return None, failures
    return True, failures
