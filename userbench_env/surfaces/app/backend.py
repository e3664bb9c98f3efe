"""The app surface backend: a task's Tk app on a display, one computer action per step.

Observation: ``{"text": str, "image": uint8 array (height, width, 3)}`` (the web
surface's screenshot keys), built by :meth:`AppBackend.observe`; the text
holds the errand (first observation only), what the last action did, and every visible
widget with its centre in screen pixels, for text-only policies, e.g.
``- button "+" for "Black Bean Burger" at (664, 409)``. Actions: one JSON object
(:mod:`userbench_env.surfaces.app.actions`). The episode ends when the app shows its
confirmation (the submit button wrote the file) or on ``done``; the artifact is the
written file (none: the episode scores as an error). ``runtime`` is ``auto``, ``local``
or ``docker`` (:func:`userbench_env.surfaces.app.runtime.make_runtime`).
"""
from __future__ import annotations

import json
from typing import Any

import numpy as np

from userbench_env.surfaces.app.actions import parse_action
from userbench_env.surfaces.app.driver import InvalidInput
from userbench_env.surfaces.app.runtime import (
    DEFAULT_IMAGE,
    AppRuntime,
    Frame,
    make_runtime,
)
from userbench_env.surfaces.app.spec import launch_payload
from userbench_env.surfaces.base import SurfaceStep
from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.tasks import SurfaceTask, errand_text

GUIDANCE = (
    "## How to use the app\n"
    "You see a desktop app as a screenshot and as a list of its visible widgets, each with the pixel "
    "coordinates (x, y) of its centre. Answer with exactly one JSON action per message, for example "
    '{"type": "click", "x": 512, "y": 300}. Types: click, double_click, right_click, move (x, y); '
    'type (text); key (keys, e.g. "Return"); scroll (x, y, scroll_y); drag (x, y, end_x, end_y); '
    'wait (seconds); done. Use only what the app shows. When you have finished, answer {"type": "done"}.'
)


def describe(ui: dict[str, Any] | None, width: int, height: int) -> str:
    """The visible widgets as text lines, with centre coordinates."""
    widgets = (ui or {}).get("widgets", [])
    lines = [f"Screen {width}x{height}. Visible widgets, (x, y) = centre in screen pixels:"]
    for w in widgets:
        centre = f"({w['x'] + w['w'] // 2}, {w['y'] + w['h'] // 2})"
        context = f' for "{w["context"]}"' if w.get("context") and w["kind"] == "button" else ""
        if w["kind"] == "textbox":
            lines.append(f'- textbox "{w["context"]}" containing "{w["text"]}" at {centre}')
        elif w["text"]:
            state = "" if w.get("enabled", True) else " (disabled)"
            lines.append(f'- {w["kind"]} "{w["text"]}"{context}{state} at {centre}')
    if len(lines) == 1:
        lines.append("- (nothing: the app is not showing)")
    return "\n".join(lines)


class AppBackend:
    """App world for one env (see the module docstring)."""

    surface = "app"
    role = "a user"
    artifact_kind = "app"

    def __init__(self, runtime: str = "auto", width: int = 1024, height: int = 768, image: str = DEFAULT_IMAGE) -> None:
        self.runtime_kind, self.width, self.height, self.image = runtime, width, height, image
        self.runtime: AppRuntime | None = None
        self._task: SurfaceTask | None = None
        self._frame: Frame | None = None

    @property
    def screen_shape(self) -> tuple[int, int, int]:
        """Shape of the screenshot array: (height, width, 3)."""
        return (self.height, self.width, 3)

    @property
    def image_shape(self) -> tuple[int, int, int]:
        """The screenshot's (height, width, 3): observations are the widget text and the image."""
        return self.screen_shape

    def guidance(self, task: SurfaceTask) -> str:
        """The action format."""
        return GUIDANCE

    def reset(self, task: SurfaceTask, persona: Persona, seed: int | None) -> str:
        """Load the task's app (starting the runtime on first use); returns the first observation."""
        if task.app is None:
            raise ValueError(f"task {task.id} has no app catalogue (an APB app task needs its catalogue attached)")
        if self.runtime is None:
            self.runtime = make_runtime(self.runtime_kind, self.width, self.height, self.image)
        self._task = task
        try:
            self._frame = self.runtime.start(launch_payload(task.app, task.answer_key))
        except BaseException:
            self.close()  # a failed reset leaves no display, app or folder behind
            raise
        return self.text(f"{errand_text(task.instruction)}\n\n{GUIDANCE}")

    def text(self, note: str) -> str:
        """``note`` followed by the current widget list."""
        return f"{note}\n\n{describe(self._frame.ui if self._frame else None, self.width, self.height)}"

    def observe(self, text: str) -> dict[str, Any]:
        """The env observation: ``text`` and the current screenshot."""
        frame = self._frame
        if frame is None or len(frame.pixels) != self.width * self.height * 3:
            image = np.zeros(self.screen_shape, dtype=np.uint8)
        else:
            image = np.frombuffer(frame.pixels, dtype=np.uint8).reshape(self.screen_shape).copy()
        return {"text": text, "image": image}

    def step(self, action: str) -> SurfaceStep:
        """Validate and perform one action; done on confirmation or ``done``."""
        if self.runtime is None or self._task is None:
            raise RuntimeError("reset the app backend before stepping")
        try:
            parsed = parse_action(action, self.width, self.height)
        except ValueError as exc:
            return SurfaceStep(observation=self.text(f"Invalid action: {exc}."), invalid=True)
        if parsed.type == "done":
            return SurfaceStep(observation=self.text("Done."), done=True)
        try:
            frame = self.runtime.act(parsed.to_driver())
        except InvalidInput as exc:  # the agent's input, refused by the display: its mistake
            return SurfaceStep(observation=self.text(f"Invalid action: {exc}."), invalid=True)
        except Exception as exc:  # noqa: BLE001 (display, container or xdotool failure: an infrastructure error)
            return SurfaceStep(observation=self.text(f"The app could not be driven: {exc}"),
                               error=f"app runtime failed: {exc}")
        if frame.error:
            return SurfaceStep(observation=self.text(frame.error), error=f"app runtime failed: {frame.error}")
        self._frame = frame
        confirmed = bool(frame.ui and frame.ui.get("confirmed"))
        note = f"Did {parsed.type}."
        if frame.restarted:
            note += " The app had stopped and was started again; anything not yet submitted was lost."
        if confirmed:
            note += " The app shows its confirmation: the errand is complete."
        return SurfaceStep(observation=self.text(note), done=confirmed)

    def sample_action(self, rng: Any) -> str:
        """A click on the centre of a random visible button (``wait`` when none is visible)."""
        widgets = (self._frame.ui or {}).get("widgets", []) if self._frame else []
        buttons = [w for w in widgets if w["kind"] == "button"]
        if not buttons:
            return json.dumps({"type": "wait", "seconds": 0})
        w = buttons[int(rng.integers(len(buttons)))]
        return json.dumps({"type": "click", "x": w["x"] + w["w"] // 2, "y": w["y"] + w["h"] // 2})

    def artifact(self) -> dict[str, Any] | None:
        """The file the app wrote (parsed JSON), or ``None`` when it wrote none."""
        if self.runtime is None or self._task is None or self._task.app is None:
            return None
        raw = self.runtime.read_output(self._task.app.output_file)
        if raw is None:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            return {"unreadable": raw.decode("utf-8", errors="replace")[:2000]}
        return data if isinstance(data, dict) else {"unreadable": raw.decode("utf-8", errors="replace")[:2000]}

    def close(self) -> None:
        """Stop the runtime (idempotent)."""
        if self.runtime is not None:
            self.runtime.close()
            self.runtime = None
