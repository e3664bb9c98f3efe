"""Task folders are untrusted input: code they carry, and paths they name.

A task folder is third-party data, and some of it is code (APB's ``tests/verifier.py``,
a web task's page ``server``). Such code runs on this machine only through
:func:`spawn` / :func:`run_bounded`:

* with a **scrubbed environment**: the variables in :data:`ALLOWED_ENV` (locale, ``PATH``,
  ``HOME``, temp dir) plus those the caller sets or names explicitly; never the
  caller's API keys or tokens;
* in **its own session**, so a time limit or the end of its episode kills the whole
  process group, children included (:func:`kill_group`).

(Where a Docker daemon answers, the verifier runs in a container without network
instead; see :mod:`userbench_env.surfaces.verifier`.)

Every path a task names is resolved with :func:`inside`: relative, no ``..``, and still
inside its folder after symlinks are followed; anything else is a :class:`TaskError`.
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from userbench_env.errors import UserError

#: variables a task's code may see (everything else, API keys included, is dropped)
ALLOWED_ENV = ("PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TMPDIR", "TERM",
               "PYTHONIOENCODING", "PYTHONUTF8")
#: how much of a finished process's output is kept (its tail)
OUTPUT_TAIL = 4000


class TaskError(UserError, ValueError):
    """A task folder or file that is malformed or unsafe; the message says what and where."""


def inside(root: str | Path, name: str | Path, what: str) -> Path:
    """``root/name`` resolved, or :class:`TaskError` when ``name`` leaves ``root``.

    ``name`` must be relative without ``..`` parts, and the resolved path (symlinks
    followed) must still lie inside ``root``. ``what`` names the field in the error.
    """
    rel = Path(name)
    if rel.is_absolute() or ".." in rel.parts or not str(name).strip() or "\x00" in str(name):
        raise TaskError(f"{what} {str(name)!r} must be a relative path inside {root}")
    base = Path(root).resolve()
    target = (base / rel).resolve()
    if not target.is_relative_to(base):
        raise TaskError(f"{what} {str(name)!r} leads outside {root} (to {target})")
    return target


def scrubbed_env(set_vars: Mapping[str, str] | None = None, pass_env: Iterable[str] = ()) -> dict[str, str]:
    """The environment for a task's code: :data:`ALLOWED_ENV` from ours, the variables
    named in ``pass_env`` (an explicit opt-in, e.g. a judge's key for a verifier you
    trust), then ``set_vars``."""
    names = (*ALLOWED_ENV, *pass_env)
    env = {name: os.environ[name] for name in names if name in os.environ}
    return {**env, **(set_vars or {})}


def spawn(argv: list[str], cwd: str | Path, env: Mapping[str, str], **popen: object) -> subprocess.Popen:
    """Start ``argv`` in its own session (process group) with exactly ``env``."""
    return subprocess.Popen(argv, cwd=cwd, env=dict(env), start_new_session=True, **popen)  # type: ignore[call-overload]


def kill_group(proc: subprocess.Popen) -> None:
    """Kill ``proc``'s whole process group (a session started by :func:`spawn`) and reap it.

    Safe after the leader has exited: its children keep the group alive and are killed;
    a group with no member left is simply gone.
    """
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()


class Finished(BaseModel):
    """How a bounded run ended: exit code (``None`` when killed at the limit), the tail of its output."""

    model_config = ConfigDict(extra="forbid")

    returncode: int | None
    timed_out: bool
    output: str


def run_bounded(argv: list[str], cwd: str | Path, env: Mapping[str, str], timeout: float) -> Finished:
    """Run ``argv`` to completion or ``timeout`` seconds, then kill its whole group.

    The group is killed in both cases, so a child left running (a daemon the code
    started, a hung grandchild) never outlives the run. Output (stdout and stderr) goes
    to a temporary file, so a chatty or hostile process cannot fill memory; only its
    last :data:`OUTPUT_TAIL` characters are kept.
    """
    with tempfile.TemporaryFile() as log:
        proc = spawn(argv, cwd, env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        try:
            code: int | None = proc.wait(timeout)
            timed_out = False
        except subprocess.TimeoutExpired:
            code, timed_out = None, True
        finally:
            kill_group(proc)
        size = log.seek(0, os.SEEK_END)
        log.seek(max(0, size - OUTPUT_TAIL))
        output = log.read().decode("utf-8", errors="replace")
    return Finished(returncode=code, timed_out=timed_out, output=output)
