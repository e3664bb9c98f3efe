"""Where the app runs: a local Xvfb display, or a Docker container with no network.

A runtime owns one display and one app for the life of an env. ``start(payload)`` loads
a task's app (launching display and app if needed) and returns a :class:`Frame`;
``act(action)`` performs one validated action and returns the next frame;
``read_output(name)`` returns the bytes of a file the app wrote (``None`` if absent);
``close()`` releases everything (idempotent). Both relaunch the app when it has died
(``restarts`` counts it). :func:`make_runtime` picks one: ``auto`` is Docker when a
daemon answers and the image exists, else local.

What a runtime starts (Xvfb and the app in their own process groups, its temporary
folder, its container) never outlives it: ``close()`` releases it; so do garbage
collection and interpreter exit (a ``weakref.finalize``); and a watchdog process
(:mod:`userbench_env.surfaces.guard`) releases it when our process dies without running any of those
(``kill -9``, a crash).
"""
from __future__ import annotations

import importlib.util
import io
import json
import os
import shutil
import signal
import subprocess
import tarfile
import tempfile
import weakref
from pathlib import Path
from typing import Any, Protocol

from pydantic import BaseModel, ConfigDict

from userbench_env.errors import MissingDependency, apt_hint, require_module, require_programs
from userbench_env.surfaces.app import driver
from userbench_env.surfaces.guard import Guard

#: the image ``docker/build_image.sh`` builds
DEFAULT_IMAGE = "userbench/app-desktop:2"
#: where the app's code, state and output live inside the container
CODE_DIR, STATE_DIR, OUT_DIR = "/opt/ubapp", "/app/state", "/app/output"


class Frame(BaseModel):
    """One observation from the runtime: the app's widget answer and the screen."""

    model_config = ConfigDict(extra="forbid")

    ui: dict[str, Any] | None
    width: int
    height: int
    pixels: bytes
    error: str | None = None
    restarted: bool = False


class AppRuntime(Protocol):
    """A display plus the app on it (see the module docstring)."""

    name: str
    restarts: int

    def start(self, payload: dict[str, Any]) -> Frame:
        """Load a task's app; returns the first frame."""

    def act(self, action: dict[str, Any]) -> Frame:
        """Perform one validated action; returns the next frame."""

    def read_output(self, name: str) -> bytes | None:
        """A file the app wrote in its output folder, or ``None``."""

    def close(self) -> None:
        """Stop the app and its display (idempotent)."""


def require_local_app() -> None:
    """Raise :class:`MissingDependency` naming what the local runtime lacks (extra, Debian packages)."""
    feature = "UserBench/App-v0 (local runtime)"
    require_module("PIL", feature, "app")
    require_programs({"Xvfb": "xvfb", "xdotool": "xdotool"}, feature)
    if importlib.util.find_spec("_tkinter") is None:
        raise MissingDependency(f"{feature} needs Tk for Python, which is not installed: {apt_hint('python3-tk')}")


class _Owned:
    """What one runtime must release however it ends: process groups, containers, a folder.

    Each is registered with a :class:`Guard` the moment it exists; :meth:`release`
    (idempotent) frees everything and dismisses the guard.
    """

    def __init__(self, root: Path | None = None) -> None:
        self.guard = Guard()
        self.root = root
        self.procs: dict[str, subprocess.Popen] = {}
        self.containers: dict[str, Any] = {}
        if root is not None:
            self.guard.path(root)

    def adopt(self, name: str, proc: subprocess.Popen) -> None:
        """Own ``proc`` (leader of its own process group) under ``name``, stopping the previous one."""
        previous = self.procs.get(name)
        if previous is not None and previous is not proc:
            self.stop(name)
        self.procs[name] = proc
        self.guard.group(proc.pid)

    def stop(self, name: str) -> None:
        """Kill the process group owned as ``name`` (if any)."""
        proc = self.procs.pop(name, None)
        if proc is not None:
            _kill_group(proc)
            self.guard.forget(proc.pid)

    def own_container(self, container: Any) -> None:
        """Own a Docker container (removed on release)."""
        self.containers[container.id] = container
        self.guard.container(container.id)

    def drop_container(self, container: Any) -> None:
        """Remove an owned container now."""
        self.containers.pop(container.id, None)
        _remove_container(container)

    def release(self) -> None:
        """Kill every group, remove every container, delete the folder, dismiss the guard."""
        for name in list(self.procs):
            self.stop(name)
        for container in list(self.containers.values()):
            self.drop_container(container)
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)
        self.guard.close()


class LocalRuntime:
    """Xvfb on a free display of this machine, the app as a child process."""

    name = "local"

    def __init__(self, width: int = 1024, height: int = 768) -> None:
        self.width, self.height = width, height
        self.root = Path(tempfile.mkdtemp(prefix="userbench-app-"))
        self._owned = _Owned(self.root)
        self._release = weakref.finalize(self, self._owned.release)
        self.state_dir, self.out_dir = self.root / "state", self.root / "output"
        self.state_dir.mkdir()
        self.out_dir.mkdir()
        self.payload = self.root / "payload.json"
        self.display = ""
        self.restarts = 0

    @property
    def xvfb(self) -> subprocess.Popen | None:
        """The display server's process (``None`` before start or after close)."""
        return self._owned.procs.get("xvfb")

    @property
    def app(self) -> subprocess.Popen | None:
        """The app's process (``None`` before start or after close)."""
        return self._owned.procs.get("app")

    @property
    def watchdog_pid(self) -> int:
        """The process id of this runtime's watchdog (:mod:`.guard`)."""
        return self._owned.guard.pid

    def _launch_app(self) -> None:
        driver.launch_app(self.display, self.payload, self.out_dir, self.state_dir, f"{self.width}x{self.height}",
                          on_start=lambda proc: self._owned.adopt("app", proc))

    def _ensure(self) -> bool:
        """Start the display and the app when missing or dead; True if the app was relaunched."""
        if self.xvfb is None or self.xvfb.poll() is not None:
            require_local_app()
            self._owned.stop("app")
            _, self.display = driver.start_display(self.width, self.height,
                                                   on_start=lambda proc: self._owned.adopt("xvfb", proc))
        if self.app is not None and self.app.poll() is None:
            return False
        relaunch = self.app is not None
        self.restarts += int(relaunch)
        self._launch_app()
        return relaunch

    def _frame(self, action: dict[str, Any] | None, op: str = "sync", **args: Any) -> Frame:
        restarted = self._ensure()
        try:
            ui, (width, height, pixels) = driver.frame(self.state_dir, self.display, action, op, **args)
        except driver.AppTimeout:
            self._owned.stop("app")  # hung or dead: relaunch and show the fresh app
            self._launch_app()
            self.restarts += 1
            ui, (width, height, pixels) = driver.frame(self.state_dir, self.display, None)
            return Frame(ui=ui, width=width, height=height, pixels=pixels, restarted=True)
        return Frame(ui=ui, width=width, height=height, pixels=pixels, restarted=restarted)

    def start(self, payload: dict[str, Any]) -> Frame:
        """Write the payload and (re)load the app from it."""
        self.payload.write_text(json.dumps(payload), encoding="utf-8")
        return self._frame(None, "load", payload=str(self.payload))

    def act(self, action: dict[str, Any]) -> Frame:
        """Perform the action on the display."""
        return self._frame(action)

    def read_output(self, name: str) -> bytes | None:
        """Read the app's output file."""
        path = self.out_dir / name
        return path.read_bytes() if path.is_file() else None

    @property
    def app_pid(self) -> int | None:
        """The app's process id (``None`` when not running)."""
        return self.app.pid if self.app is not None and self.app.poll() is None else None

    def close(self) -> None:
        """Kill the app and Xvfb and delete the temporary folder (idempotent)."""
        self._release()


def _kill_group(proc: subprocess.Popen) -> None:
    """Kill a child started in its own session, and reap it."""
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.wait()


def _remove_container(container: Any) -> None:
    """Remove a container, running or not; one already gone is fine."""
    try:
        container.remove(force=True)
    except Exception:  # noqa: BLE001 (NotFound, or the daemon went away: nothing left to do from here)
        pass


class DockerRuntime:
    """The app and Xvfb in a container with no network, driven through the Docker SDK.

    The container's main process is ``driver.py serve`` (Xvfb on ``:1`` plus the app,
    relaunched when it exits); one long-lived ``exec`` of ``driver.py loop`` answers
    every request over its attached socket (no process start per action).
    The image holds only Debian, Xvfb, xdotool, Tk and Pillow; the app's code is copied
    in when the container is created, so code changes need no image rebuild.
    """

    name = "docker"

    def __init__(self, width: int = 1024, height: int = 768, image: str = DEFAULT_IMAGE, client: Any = None) -> None:
        require_module("docker", "UserBench/App-v0 (docker runtime)", "app")
        import docker

        self.width, self.height, self.image = width, height, image
        self.client = client or docker.from_env()
        self.container: Any = None
        self.restarts = 0
        self._pid: int | None = None
        self._payload = b"{}"
        self._sock: Any = None
        self._owned = _Owned()
        self._release = weakref.finalize(self, self._owned.release)

    def _ensure(self) -> bool:
        """Create and start the container when missing or stopped; True if it was recreated."""
        if self.container is not None:
            self.container.reload()
            if self.container.status == "running":
                return False
            self._drop_session()
            self._owned.drop_container(self.container)
        size = f"{self.width}x{self.height}"
        self.container = self.client.containers.create(
            self.image, ["python3", f"{CODE_DIR}/driver.py", "serve", f"{STATE_DIR}/payload.json", OUT_DIR, STATE_DIR,
                         size],
            network_mode="none", detach=True, labels={"userbench": "app"}, mem_limit="1g", pids_limit=256,
        )
        self._owned.own_container(self.container)
        files = {f"{CODE_DIR}/{p.name}": p.read_bytes() for p in (Path(driver.__file__), driver.APP_SCRIPT)}
        self._put(files | {f"{OUT_DIR}/.keep": b"", f"{STATE_DIR}/payload.json": self._payload})
        self.container.start()
        return True

    def _put(self, files: dict[str, bytes]) -> None:
        """Copy files into the container (one tar archive at ``/``)."""
        buffer = io.BytesIO()
        with tarfile.open(fileobj=buffer, mode="w") as tar:
            for path, data in files.items():
                info = tarfile.TarInfo(path.lstrip("/"))
                info.size, info.mode = len(data), 0o644
                tar.addfile(info, io.BytesIO(data))
        self.container.put_archive("/", buffer.getvalue())

    def _exec(self, request: dict[str, Any]) -> Frame:
        """One request to the driver loop, over the long-lived exec's attached socket."""
        from docker.utils.socket import next_frame_header, read_exactly

        if self._sock is None:
            exec_id = self.client.api.exec_create(
                self.container.id, ["python3", f"{CODE_DIR}/driver.py", "loop", STATE_DIR, ":1"], stdin=True)
            self._sock = self.client.api.exec_start(exec_id, socket=True)
            getattr(self._sock, "_sock", self._sock).settimeout(120)
        sock = self._sock
        try:
            getattr(sock, "_sock", sock).sendall(json.dumps(request).encode() + b"\n")
            out, errors, header = bytearray(), bytearray(), None
            while header is None or len(out) < header["size"]:
                stream, size = next_frame_header(sock)
                if size < 0:
                    raise RuntimeError(f"driver loop ended: {errors.decode(errors='replace')[-500:]}")
                data = read_exactly(sock, size)
                (errors if stream == 2 else out).extend(data)
                if header is None and b"\n" in out:
                    head, _, rest = bytes(out).partition(b"\n")
                    header, out = json.loads(head), bytearray(rest)
        except Exception:
            self._drop_session()
            raise
        if header.get("invalid"):
            raise driver.InvalidInput(header["invalid"])
        return Frame(ui=header.get("ui"), width=header.get("width", self.width),
                     height=header.get("height", self.height), pixels=bytes(out), error=header.get("error"))

    def _drop_session(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def start(self, payload: dict[str, Any]) -> Frame:
        """Copy the payload in and (re)load the app from it."""
        self._payload = json.dumps(payload).encode()
        if not self._ensure():
            self._put({f"{STATE_DIR}/payload.json": self._payload})
        frame = self._exec({"action": None, "op": "load", "payload": f"{STATE_DIR}/payload.json"})
        self._pid = (frame.ui or {}).get("pid")
        return frame

    def act(self, action: dict[str, Any]) -> Frame:
        """One driver request: act, sync, screenshot. A hung app is killed (the
        keeper relaunches it); a new app pid means it was relaunched."""
        restarted = self._ensure()
        frame = self._exec({"action": action})
        if frame.error and frame.error.startswith("the app did not answer"):
            if self._pid:
                self.container.exec_run(["python3", "-c", f"import os; os.kill({int(self._pid)}, 9)"])
            frame = self._exec({"action": None})
        pid = (frame.ui or {}).get("pid")
        if pid is not None and pid != self._pid:
            self.restarts += 1
            restarted, self._pid = True, pid
        return frame.model_copy(update={"restarted": restarted or frame.restarted})

    @property
    def app_pid(self) -> int | None:
        """The app's process id inside the container (from its last answer)."""
        return self._pid

    def read_output(self, name: str) -> bytes | None:
        """``cat`` the output file inside the container."""
        if self.container is None:
            return None
        code, out = self.container.exec_run(["cat", f"{OUT_DIR}/{name}"])
        return out if code == 0 else None

    def close(self) -> None:
        """End the driver session and remove the container (idempotent)."""
        self._drop_session()
        self._release()
        self.container = None


def docker_available(image: str = DEFAULT_IMAGE) -> str | None:
    """``None`` when a Docker daemon answers and has ``image``, else the reason it cannot be used."""
    try:
        import docker

        client = docker.from_env(timeout=5)
        client.ping()
        client.images.get(image)
    except Exception as exc:  # noqa: BLE001 (no SDK, no daemon, no image: all mean "not usable")
        return f"{type(exc).__name__}: {exc}"
    return None


def make_runtime(kind: str = "auto", width: int = 1024, height: int = 768, image: str = DEFAULT_IMAGE) -> AppRuntime:
    """A runtime: ``local``, ``docker`` or ``auto`` (Docker when usable, else local)."""
    if kind == "auto":
        kind = "docker" if docker_available(image) is None else "local"
    if kind == "local":
        return LocalRuntime(width, height)
    if kind == "docker":
        return DockerRuntime(width, height, image)
    raise ValueError(f"unknown app runtime {kind!r}: use auto, local or docker")
