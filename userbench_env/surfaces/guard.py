"""A watchdog that cleans up after its owner (an App runtime, a verifier's container)
when the owner's process dies, however it dies.

:class:`Guard` starts this file as a small standalone process (stdlib only) in its own
session, with a pipe to it. The owner tells it, one line each, what it owns:
``group PGID`` (a process group: Xvfb, the app), ``forget PGID`` (a group the owner
already killed itself), ``path DIR`` (its temporary folder), ``container ID`` (a
Docker container). ``done`` means the owner cleaned up itself and the guard exits.

When the pipe closes without ``done``, the owner's process is gone (``kill -9``, a
crash, an exit that skipped every finalizer): the guard kills every group still
registered, removes the containers (``docker rm -f``) and deletes the folders. The
kernel closes the pipe on any death, so no signal, thread or exit path is missed; and
being in its own session, the guard survives a signal to the parent's whole group.
(``PR_SET_PDEATHSIG`` is not used: it fires when the *thread* that started a child
exits, which would kill a display started from a worker thread, and it cannot delete
a folder.)
"""
from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys


class Guard:
    """The owner's side of the watchdog (see the module docstring). Idempotent ``close``."""

    def __init__(self) -> None:
        self._proc = subprocess.Popen([sys.executable, os.path.abspath(__file__)], stdin=subprocess.PIPE,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
                                      start_new_session=True)

    @property
    def pid(self) -> int:
        """The watchdog's process id."""
        return self._proc.pid

    def _send(self, line: str) -> None:
        pipe = self._proc.stdin
        if pipe is None or pipe.closed:
            return
        with contextlib.suppress(OSError, ValueError):  # the watchdog died: nothing more to tell it
            pipe.write(line + "\n")
            pipe.flush()

    def group(self, pgid: int) -> None:
        """Kill process group ``pgid`` if we die."""
        self._send(f"group {pgid}")

    def forget(self, pgid: int) -> None:
        """Group ``pgid`` is gone (we killed it): never touch that number again."""
        self._send(f"forget {pgid}")

    def path(self, folder: str | os.PathLike[str]) -> None:
        """Delete ``folder`` if we die."""
        self._send(f"path {os.fspath(folder)}")

    def container(self, container_id: str) -> None:
        """Remove Docker container ``container_id`` if we die."""
        self._send(f"container {container_id}")

    def close(self) -> None:
        """We cleaned up ourselves: let the watchdog exit without acting."""
        self._send("done")
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        try:
            self._proc.wait(5)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()


def watch(lines: object) -> bool:
    """Read the owner's lines; on end of input without ``done``, clean up. Returns
    whether cleanup ran."""
    groups: set[int] = set()
    paths: list[str] = []
    containers: list[str] = []
    for line in lines:  # type: ignore[attr-defined]
        verb, _, arg = str(line).strip().partition(" ")
        if verb == "done":
            return False
        if verb == "group":
            groups.add(int(arg))
        elif verb == "forget":
            groups.discard(int(arg))
        elif verb == "path":
            paths.append(arg)
        elif verb == "container":
            containers.append(arg)
    for pgid in groups:
        with contextlib.suppress(OSError):
            os.killpg(pgid, signal.SIGKILL)
    for container_id in containers:
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            subprocess.run(["docker", "rm", "-f", container_id], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=60, check=False)
    for folder in paths:
        shutil.rmtree(folder, ignore_errors=True)
    return True


if __name__ == "__main__":
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a Ctrl-C is the parent's to handle
    watch(sys.stdin)
