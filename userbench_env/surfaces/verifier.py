"""Run an APB task's own ``tests/verifier.py`` in a subprocess and read its result.

The artifact is written under the file name APB expects into a fresh output folder,
passed as ``ADHERENCE_OUTPUT_DIR``; the verifier runs with the task folder as working
directory and the task's verifier timeout. Its ``structured_output.json`` is read
with APB's status rules: no file, no ``reward``, a top-level ``error``, a status of
``judge_error``/``configuration_error``, an ``error_stage``, or any ERROR verdict ->
error; a timeout or crash -> error; otherwise pass iff every check held. The exit code
is ignored.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from userbench_env.surfaces.scoring import CheckVerdict, Outcome, error_outcome
from userbench_env.surfaces.tasks import SurfaceTask

_ERROR_STATUSES = {"judge_error", "configuration_error", "error"}


def run_verifier(task: SurfaceTask, filename: str, data: Any, timeout: float | None = None) -> Outcome:
    """Score ``data`` with the task's upstream verifier (see the module docstring)."""
    names = [c.name for c in task.checks]
    if not task.verifier or not task.path:
        return error_outcome("task has no verifier", len(names), names)
    with tempfile.TemporaryDirectory(prefix="apb-verify-") as out:
        Path(out, filename).write_text(json.dumps(data), encoding="utf-8")
        env = {**os.environ, "ADHERENCE_OUTPUT_DIR": out}
        try:
            subprocess.run([sys.executable, task.verifier], cwd=task.path, env=env, capture_output=True,
                           timeout=timeout or task.verifier_timeout, check=False)
        except subprocess.TimeoutExpired:
            return error_outcome(f"verifier timed out after {timeout or task.verifier_timeout:g}s", len(names), names)
        result_file = Path(out, "structured_output.json")
        if not result_file.is_file():
            return error_outcome("verifier wrote no structured_output.json", len(names), names)
        try:
            result = json.loads(result_file.read_text(encoding="utf-8"))
        except json.JSONDecodeError as exc:
            return error_outcome(f"verifier output is not JSON: {exc}", len(names), names)
    return outcome_from_structured(result, names)


def outcome_from_structured(result: Any, names: list[str]) -> Outcome:
    """Map an APB ``structured_output.json`` to an :class:`Outcome`."""
    if not isinstance(result, dict) or "reward" not in result:
        return error_outcome("verifier output has no reward", len(names), names)
    raw_checks = result.get("checks") if isinstance(result.get("checks"), list) else []
    checks = [_check(c, names[i] if i < len(names) else f"check{i}") for i, c in enumerate(raw_checks)]
    infra = (result.get("error") or result.get("status") in _ERROR_STATUSES or result.get("error_stage")
             or str(result.get("verdict", "")).upper() == "ERROR" or any(c.verdict == "ERROR" for c in checks))
    if infra:
        reason = str(result.get("error") or result.get("status") or "verifier reported an error")
        return Outcome(status="error", reward=0.0, max_points=max(len(names), 1), checks=checks, error=reason)
    reward = float(result["reward"])
    max_points = int(result.get("max_points") or len(names) or 1)
    passed = reward >= (max_points if len(names) > 1 else 1.0)
    return Outcome(status="pass" if passed else "fail", reward=reward, max_points=max_points, checks=checks)


def _check(raw: Any, default_name: str) -> CheckVerdict:
    """One verifier check entry as a verdict (``passed`` or ``verdict`` decides)."""
    raw = raw if isinstance(raw, dict) else {}
    verdict = str(raw.get("verdict", "")).upper()
    if verdict not in ("HELD", "VIOLATED", "ERROR"):
        verdict = "HELD" if raw.get("passed") else "VIOLATED"
    return CheckVerdict(
        name=str(raw.get("label") or raw.get("name") or default_name), verdict=verdict,  # type: ignore[arg-type]
        evaluator="verifier", offside=[str(p) for p in raw.get("offside_picks") or []],
        raw=raw.get("judge_raw"), detail=str(raw.get("evaluator") or ""),
    )
