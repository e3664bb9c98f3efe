"""Display, app launch, actions and screenshots on one X display (standalone: stdlib + Pillow).

The same code drives the app on the host (imported by the local runtime) and inside
the container (run as a script by the Docker runtime):

* :func:`start_display` starts Xvfb on a free display chosen by the server itself
  (``-displayfd``), so parallel envs never share one;
* :func:`launch_app` starts ``tkapp.py`` on a display; :func:`request` writes a control
  request and waits for the app's ``ui.json`` answer (the app processes every pending
  X event and waits for the drawing first, so the answer matches the screen);
* :func:`perform` turns one action dict into xdotool calls (click, double/triple/right
  click, move, type, key, scroll, drag, wait, done);
* :func:`screenshot` grabs the screen as raw RGB bytes (Pillow's ``ImageGrab``).

Script use: ``driver.py loop STATE_DIR DISPLAY`` reads one request per stdin line
(``{"action": {...} or null, "op": "sync"|"load", ...op args}``), runs :func:`frame`
and answers each with one JSON line (``{"ui", "width", "height", "size", "error"}``, plus
``"invalid"`` when the agent's input was refused)
followed by ``size`` bytes of raw screenshot;
``driver.py serve PAYLOAD OUT_DIR STATE_DIR WxH`` runs Xvfb on ``:1`` and keeps the app
alive (relaunching it when it dies) until killed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Callable

APP_SCRIPT = Path(__file__).with_name("tkapp.py")
SYNC_TIMEOUT = 10.0
MAX_WAIT = 3.0
SCROLL_BUTTONS = {"up": "4", "down": "5", "left": "6", "right": "7"}


class AppTimeout(RuntimeError):
    """The app did not answer a control request in time (dead or hung)."""


class InvalidInput(ValueError):
    """The action's input cannot be performed (xdotool refused a key or the text): the
    agent's mistake, answered as an invalid action, never an infrastructure error."""


#: called with each process right after it starts (before any wait), so its owner can
#: register it for cleanup
OnStart = Callable[[subprocess.Popen], None]


def _started(proc: subprocess.Popen, on_start: OnStart | None) -> subprocess.Popen:
    if on_start is not None:
        on_start(proc)
    return proc


def start_display(width: int, height: int, display: int | None = None,
                  on_start: OnStart | None = None) -> tuple[subprocess.Popen, str]:
    """Start Xvfb (``WIDTHxHEIGHTx24``, no TCP) in its own session; returns the process and ``":N"``.

    Without ``display`` the server picks a free number and reports it on a pipe.
    """
    screen = ["-screen", "0", f"{width}x{height}x24", "-nolisten", "tcp", "-nocursor"]
    if display is not None:
        proc = _started(subprocess.Popen(["Xvfb", f":{display}", *screen], stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL, start_new_session=True), on_start)
        _wait_for_socket(display, proc)
        return proc, f":{display}"
    read_fd, write_fd = os.pipe()
    proc = _started(subprocess.Popen(["Xvfb", "-displayfd", str(write_fd), *screen], pass_fds=(write_fd,),
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True),
                    on_start)
    os.close(write_fd)
    with os.fdopen(read_fd) as pipe:
        number = pipe.readline().strip()
    if not number:
        proc.kill()
        raise RuntimeError(f"Xvfb did not start (exit code {proc.wait()})")
    return proc, f":{number}"


def _wait_for_socket(display: int, proc: subprocess.Popen) -> None:
    deadline = time.monotonic() + SYNC_TIMEOUT
    while not Path(f"/tmp/.X11-unix/X{display}").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"Xvfb :{display} did not start")
        time.sleep(0.02)


def launch_app(display: str, payload: Path, out_dir: Path, state_dir: Path, size: str,
               python: str = sys.executable, on_start: OnStart | None = None) -> subprocess.Popen:
    """Start the Tk app on ``display`` in its own session and wait for its first ``ui.json``."""
    (state_dir / "ui.json").unlink(missing_ok=True)
    proc = _started(subprocess.Popen([python, str(APP_SCRIPT), str(payload), str(out_dir), str(state_dir), size],
                                     env={**os.environ, "DISPLAY": display}, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True), on_start)
    deadline = time.monotonic() + SYNC_TIMEOUT
    while not (state_dir / "ui.json").exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise AppTimeout(f"the app did not start on {display} (exit code {proc.poll()})")
        time.sleep(0.01)
    return proc


def read_ui(state_dir: Path) -> dict[str, Any] | None:
    """The app's last ``ui.json``, or ``None``."""
    try:
        return json.loads((state_dir / "ui.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def request(state_dir: Path, op: str = "sync", timeout: float = SYNC_TIMEOUT, **args: Any) -> dict[str, Any]:
    """Send one control request and return the app's answer (``AppTimeout`` if none)."""
    cmd_path = state_dir / "cmd.json"
    try:
        seq = int(json.loads(cmd_path.read_text(encoding="utf-8"))["seq"]) + 1
    except (OSError, ValueError, KeyError):
        seq = 1
    tmp = state_dir / ".cmd.json.tmp"
    tmp.write_text(json.dumps({"seq": seq, "op": op, **args}), encoding="utf-8")
    os.replace(tmp, cmd_path)
    deadline = time.monotonic() + timeout
    while True:
        ui = read_ui(state_dir)
        if ui is not None and int(ui.get("seq", 0)) >= seq:
            return ui
        if time.monotonic() > deadline:
            raise AppTimeout(f"the app did not answer request {seq} within {timeout:.0f} s")
        time.sleep(0.005)


def xdotool_args(action: dict[str, Any]) -> list[list[str]]:
    """The xdotool argument lists for one validated action (empty for wait/done)."""
    kind = action["type"]
    at = ["mousemove", str(action.get("x", 0)), str(action.get("y", 0))]
    if kind in ("click", "double_click", "triple_click", "right_click"):
        button = "3" if kind == "right_click" else {"left": "1", "middle": "2", "right": "3"}[action.get("button", "left")]
        repeat = {"double_click": "2", "triple_click": "3"}.get(kind, "1")
        return [[*at, "click", "--repeat", repeat, "--delay", "60", button]]
    if kind == "move":
        return [at]
    if kind == "type":
        return [["type", "--delay", "8", "--", action["text"]]]
    if kind == "key":
        keys = action["keys"] if isinstance(action["keys"], list) else [action["keys"]]
        return [["key", "--delay", "20", "--", *keys]]
    if kind == "scroll":
        calls = [at]
        for amount, negative, positive in ((action.get("scroll_y", 0), "up", "down"),
                                           (action.get("scroll_x", 0), "left", "right")):
            if amount:
                button = SCROLL_BUTTONS[positive if amount > 0 else negative]
                calls.append(["click", "--repeat", str(abs(int(amount))), "--delay", "20", button])
        return calls
    if kind == "drag":
        return [[*at, "mousedown", "1", "mousemove", str(action["end_x"]), str(action["end_y"]),
                 "mouseup", "1"]]
    return []


def perform(action: dict[str, Any], display: str) -> None:
    """Carry out one validated action on ``display``.

    xdotool refusing a ``key`` or ``type`` input (an unknown key sequence, a NUL byte)
    raises :class:`InvalidInput`; any other failure ``RuntimeError``.
    """
    if action["type"] == "wait":
        time.sleep(min(float(action.get("seconds", 1.0)), MAX_WAIT))
    env = {**os.environ, "DISPLAY": display}
    agent_input = action["type"] in ("key", "type")
    for args in xdotool_args(action):
        try:
            done = subprocess.run(["xdotool", *args], env=env, capture_output=True, text=True, timeout=30,
                                  check=False)
        except ValueError as exc:  # an argument the OS cannot pass (embedded NUL)
            raise InvalidInput(f"{action['type']} input cannot be sent: {exc}") from exc
        if done.returncode != 0:
            reason = done.stderr.strip().splitlines()[0] if done.stderr.strip() else f"exit {done.returncode}"
            if agent_input:
                raise InvalidInput(f"{action['type']} input was refused: {reason}")
            raise RuntimeError(f"xdotool {args[0]} failed: {reason}")


def screenshot(display: str) -> tuple[int, int, bytes]:
    """The whole screen of ``display`` as (width, height, raw RGB bytes)."""
    from PIL import ImageGrab

    image = ImageGrab.grab(xdisplay=display).convert("RGB")
    return image.width, image.height, image.tobytes()


def frame(state_dir: Path, display: str, action: dict[str, Any] | None = None, op: str = "sync",
          **args: Any) -> tuple[dict[str, Any], tuple[int, int, bytes]]:
    """Perform ``action`` (if any), send control request ``op``, and return (the app's
    answer, the screenshot taken after it)."""
    if action is not None:
        perform(action, display)
    ui = request(state_dir, op, **args)
    return ui, screenshot(display)


def answer(state_dir: Path, display: str, req: dict[str, Any]) -> bytes:
    """One loop answer: the JSON header line, then the raw screenshot bytes."""
    try:
        ui, (width, height, pixels) = frame(state_dir, display, **req)
        header = {"ui": ui, "width": width, "height": height, "error": None}
    except InvalidInput as exc:
        header, pixels = {"ui": read_ui(state_dir), "error": None, "invalid": str(exc)}, b""
    except (AppTimeout, RuntimeError, subprocess.TimeoutExpired) as exc:
        header, pixels = {"ui": read_ui(state_dir), "error": str(exc)}, b""
    return json.dumps({**header, "size": len(pixels)}).encode() + b"\n" + pixels


def serve(payload: Path, out_dir: Path, state_dir: Path, size: str) -> None:
    """Container main: Xvfb on ``:1`` and the app, relaunched whenever it exits."""
    width, height = (int(v) for v in size.split("x"))
    xvfb, display = start_display(width, height, display=1)
    while xvfb.poll() is None:
        try:
            app = launch_app(display, payload, out_dir, state_dir, size)
            app.wait()
        except AppTimeout:
            time.sleep(0.5)


def main(argv: list[str]) -> int:
    """Script entry (see the module docstring)."""
    if argv[:1] == ["loop"]:
        state_dir, display = Path(argv[1]), argv[2]
        for line in sys.stdin:
            sys.stdout.buffer.write(answer(state_dir, display, json.loads(line)))
            sys.stdout.buffer.flush()
        return 0
    if argv[:1] == ["serve"]:
        serve(Path(argv[1]), Path(argv[2]), Path(argv[3]), argv[4])
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
