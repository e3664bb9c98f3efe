"""Run an APB task's own ``tests/verifier.py``, as untrusted code, and read its result.

The artifact is written under the file name APB expects into a fresh output folder,
named by ``ADHERENCE_OUTPUT_DIR``; the verifier runs with the task folder as working
directory, under the task's verifier timeout, in one of two sandboxes
(``isolation``):

* ``docker``: a container of :data:`VERIFIER_IMAGE` with **no network**, the task
  folder mounted read-only and the output folder writable, our user id, memory and
  process limits, removed afterwards (and by a watchdog if we die meanwhile);
* ``process``: a subprocess with a scrubbed environment (no API keys; see
  :mod:`userbench_env.surfaces.sandbox`) in its own process group, which is killed
  whole at the time limit or when the verifier exits.

``auto`` (the default) is ``docker`` when a daemon answers and has the image, else
``process``. Variables named in ``pass_env`` are passed on explicitly (e.g. a judge's
key for a chat verifier you trust; a verifier that needs the network must run as
``process``).

Its ``structured_output.json`` (at most :data:`MAX_RESULT_BYTES`) is read with APB's
status rules: no file, no ``reward``, a reward that is not a finite number, a top-level
``error``, a status of ``judge_error``/``configuration_error``, an ``error_stage``, or
any ERROR verdict -> error; a timeout or crash -> error; otherwise pass iff every check
held. The exit code is ignored.
"""
from __future__ import annotations

import json
import math
import os
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Literal

from userbench_env.errors import UserError
from userbench_env.surfaces.app.runtime import DEFAULT_IMAGE, docker_available
from userbench_env.surfaces.sandbox import Finished, TaskError, inside, run_bounded, scrubbed_env
from userbench_env.surfaces.scoring import CheckVerdict, Outcome, error_outcome
from userbench_env.surfaces.tasks import SurfaceTask

Isolation = Literal["auto", "docker", "process"]
_ERROR_STATUSES = {"judge_error", "configuration_error", "error"}
#: the image verifiers run in under Docker: App-v0's (Debian's python3 with PyYAML,
#: built by ``surfaces/app/docker/build_image.sh``)
VERIFIER_IMAGE = DEFAULT_IMAGE
#: where the task folder and the output folder appear inside the container
TASK_MOUNT, OUT_MOUNT = "/task", "/out"
#: a verifier's result file larger than this is an error, not read
MAX_RESULT_BYTES = 5 * 2**20


def run_verifier(task: SurfaceTask, filename: str, data: Any, timeout: float | None = None,
                 isolation: Isolation = "auto", pass_env: Iterable[str] = ()) -> Outcome:
    """Score ``data`` with the task's upstream verifier (see the module docstring)."""
    names = [c.name for c in task.checks]
    if not task.verifier or not task.path:
        return error_outcome("task has no verifier", len(names), names)
    limit = timeout or task.verifier_timeout
    try:
        script = inside(task.path, os.path.relpath(task.verifier, task.path), "verifier")
    except TaskError as exc:
        return error_outcome(f"verifier refused: {exc}", len(names), names)
    with tempfile.TemporaryDirectory(prefix="apb-verify-") as out:
        Path(out, filename).write_text(json.dumps(data), encoding="utf-8")
        if _use_docker(isolation):
            finished = _run_in_docker(task.path, script, out, limit, pass_env)
        else:
            env = scrubbed_env({"ADHERENCE_OUTPUT_DIR": out}, pass_env)
            finished = run_bounded([sys.executable, str(script)], task.path, env, limit)
        if finished.timed_out:
            return error_outcome(f"verifier timed out after {limit:g}s", len(names), names)
        return _read_result(Path(out, "structured_output.json"), names, finished)


def _use_docker(isolation: Isolation) -> bool:
    if isolation == "process":
        return False
    reason = docker_available(VERIFIER_IMAGE)
    if isolation == "docker" and reason is not None:
        raise UserError(f"verifier isolation 'docker' is not usable: {reason}")
    return reason is None


def _run_in_docker(task_dir: str, script: Path, out: str, timeout: float, pass_env: Iterable[str]) -> Finished:
    """Run the verifier in a fresh container without network (see the module docstring)."""
    import docker
    import requests

    from userbench_env.surfaces.guard import Guard

    client = docker.from_env(timeout=30)
    env = {**{name: os.environ[name] for name in pass_env if name in os.environ},
           "ADHERENCE_OUTPUT_DIR": OUT_MOUNT, "LANG": "C.UTF-8"}
    rel = script.relative_to(Path(task_dir).resolve()).as_posix()
    container = client.containers.create(
        VERIFIER_IMAGE, ["python3", rel], working_dir=TASK_MOUNT, environment=env, network_mode="none",
        volumes={str(Path(task_dir).resolve()): {"bind": TASK_MOUNT, "mode": "ro"}, out: {"bind": OUT_MOUNT, "mode": "rw"}},
        user=f"{os.getuid()}:{os.getgid()}", mem_limit="1g", pids_limit=256, labels={"userbench": "verifier"},
    )
    guard = Guard()
    guard.container(container.id)
    try:
        container.start()
        try:
            code: int | None = int(container.wait(timeout=timeout).get("StatusCode", -1))
            timed_out = False
        except (requests.exceptions.ReadTimeout, requests.exceptions.ConnectionError):
            code, timed_out = None, True
        output = container.logs(tail=50).decode("utf-8", errors="replace")
    finally:
        try:
            container.remove(force=True)
        finally:
            guard.close()
    return Finished(returncode=code, timed_out=timed_out, output=output)


def _read_result(path: Path, names: list[str], finished: Finished) -> Outcome:
    """The verifier's result file as an outcome; anything unreadable is an error (a
    missing file names the verifier's exit code and last line of output)."""
    if not path.is_file():
        last = finished.output.strip().splitlines()[-1][:300] if finished.output.strip() else "no output"
        return error_outcome(f"verifier wrote no structured_output.json (exit {finished.returncode}: {last})",
                             len(names), names)
    if path.stat().st_size > MAX_RESULT_BYTES:
        return error_outcome(f"verifier output is over {MAX_RESULT_BYTES} bytes", len(names), names)
    try:
        result = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:  # not JSON, not UTF-8, nested too deep, a huge integer
        return error_outcome(f"verifier output is not readable JSON: {_first_line(exc)}", len(names), names)
    return outcome_from_structured(result, names)


def outcome_from_structured(result: Any, names: list[str]) -> Outcome:
    """Map an APB ``structured_output.json`` to an :class:`Outcome` (never raises)."""
    if not isinstance(result, dict) or "reward" not in result:
        return error_outcome("verifier output has no reward", len(names), names)
    reward = _number(result["reward"])
    max_points = _number(result.get("max_points") or len(names) or 1)
    if reward is None or max_points is None:
        return error_outcome(f"verifier reward {str(result['reward'])[:40]!r} / max_points "
                             f"{str(result.get('max_points'))[:40]!r} is not a finite number", len(names), names)
    raw_checks = result.get("checks") if isinstance(result.get("checks"), list) else []
    checks = [_check(c, names[i] if i < len(names) else f"check{i}") for i, c in enumerate(raw_checks)]
    infra = (result.get("error") or result.get("status") in _ERROR_STATUSES or result.get("error_stage")
             or str(result.get("verdict", "")).upper() == "ERROR" or any(c.verdict == "ERROR" for c in checks))
    if infra:
        reason = str(result.get("error") or result.get("status") or "verifier reported an error")[:500]
        return Outcome(status="error", reward=0.0, max_points=max(len(names), 1), checks=checks, error=reason)
    points = max(int(max_points), 1)
    passed = reward >= (points if len(names) > 1 else 1.0)
    return Outcome(status="pass" if passed else "fail", reward=reward, max_points=points, checks=checks)


def _number(value: Any) -> float | None:
    """``value`` (a number, or a short numeric string) as a finite float, else ``None``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)) or (isinstance(value, str) and len(value) > 50):
        return None
    try:
        number = float(value)
    except (OverflowError, ValueError):
        return None
    return number if math.isfinite(number) else None


def _check(raw: Any, default_name: str) -> CheckVerdict:
    """One verifier check entry as a verdict (``passed`` or ``verdict`` decides)."""
    raw = raw if isinstance(raw, dict) else {}
    verdict = str(raw.get("verdict", "")).upper()
    if verdict not in ("HELD", "VIOLATED", "ERROR"):
        verdict = "HELD" if raw.get("passed") else "VIOLATED"
    picks = raw.get("offside_picks")
    return CheckVerdict(
        name=str(raw.get("label") or raw.get("name") or default_name)[:200], verdict=verdict,  # type: ignore[arg-type]
        evaluator="verifier", offside=[str(p)[:200] for p in picks] if isinstance(picks, list) else [],
        raw=None if raw.get("judge_raw") is None else str(raw.get("judge_raw")), detail=str(raw.get("evaluator") or "")[:500],
    )


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip()
    return text.splitlines()[0][:200] if text else type(exc).__name__
