"""``WebBackend``: the persona user drives the task's page in a real Chromium.

Each episode gets a fresh browser context on the process's shared browser (viewport
1280x900), with every request outside the task's own page refused (:mod:`.site`),
every popup closed, and no network below that (:mod:`.browser`).
The observation is text: the goal (the instruction without its ``## Files`` part,
plus the task's notes), the page with numbered controls (:mod:`.snapshot`), the
scroll line, and the last 15 actions with their results (``ok``, ``ok (no visible
change)``, ``failed: ...``, ``invalid: ...``). With ``screenshot=True`` the env's
observation is a ``Dict`` of that text and a Set-of-Marks screenshot (:mod:`.marks`).

Actions are one JSON object per step (:mod:`.actions`). The episode ends on ``done``,
after ``max_invalid`` invalid replies in a row, or at ``max_steps``; then the
``web.json`` outputs are read from the final page into the artifact (no final
"confirm" click is required, as in APB).
"""
from __future__ import annotations

import contextlib
import json
import re
from typing import Any

import numpy as np

from userbench_env.surfaces.base import SurfaceStep
from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.tasks import SurfaceTask, errand_text
from userbench_env.surfaces.web.actions import (
    ACTION_HELP,
    SCROLL_PX,
    Click,
    Done,
    InvalidAction,
    Scroll,
    Select,
    Type,
    describe,
    parse_action,
)
from userbench_env.surfaces.web.snapshot import (
    CLICK_TARGET_JS,
    REFS_PROP,
    SNAPSHOT_JS,
    Snapshot,
    parse_snapshot,
)

VIEWPORT = {"width": 1280, "height": 900}
OBSERVE_TIMEOUT_MS = 30_000  # snapshot, screenshot and navigation waits (not the policy's actions)
_INSTRUCTION_HEADING = re.compile(r"\A#\s*Instruction\s*\n")

GUIDANCE = (
    "## How to use the website\n"
    "You are on a real website. Each turn you see your goal, the page as text and your recent actions. "
    "Every control you can use is shown as [N] kind \"label\" (for \"item\") (state). "
    "Act as yourself: choose what you would genuinely choose, and finish what the page asks. "
    "Use only what the page shows.\n" + ACTION_HELP + " When you have finished, reply with {\"action\": \"done\"}."
)


class WebBackend:
    """Web world state for one env (see the module docstring).

    ``screenshot`` adds the marked image to observations; ``max_steps`` (40) caps the
    episode; ``max_invalid`` (3) invalid replies in a row end it; ``history`` (15) is
    how many past actions are shown; ``action_timeout_ms`` bounds one browser action
    (typing, selecting). Observing the page (snapshot, screenshot, waiting for a
    navigation) is not the policy's act and gets ``OBSERVE_TIMEOUT_MS``, so a loaded
    machine slows an episode down instead of failing it.
    With ``prewarm`` (default) the next episode's fresh context and page are created in
    the background as soon as an episode ends (its own context is closed then), which
    takes the renderer start-up off the next ``reset``.
    """

    surface = "web"
    artifact_kind = "web"

    def __init__(self, screenshot: bool = False, max_steps: int = 40, max_invalid: int = 3, history: int = 15,
                 action_timeout_ms: int = 1500, prewarm: bool = True) -> None:
        self.role = "a user"
        self.screenshot = screenshot
        self.max_steps, self.max_invalid, self.history_size = max_steps, max_invalid, history
        self.action_timeout_ms = action_timeout_ms
        self.prewarm = prewarm
        self._spare: Any = None
        self._spare_host: Any = None
        self._task: SurfaceTask | None = None
        self._site: Any = None
        self._context: Any = None
        self._page: Any = None
        self._snapshot: Snapshot | None = None
        self._image: np.ndarray | None = None
        self._history: list[str] = []
        self._steps = 0
        self._invalid_run = 0
        self._artifact: dict[str, Any] | None = None
        self._ended = False

    # ------------------------------------------------------------------ protocol

    @property
    def image_shape(self) -> tuple[int, int, int] | None:
        """The screenshot's (height, width, 3) in screenshot mode, else ``None`` (text only)."""
        return (VIEWPORT["height"], VIEWPORT["width"], 3) if self.screenshot else None

    def observe(self, text: str) -> Any:
        """The env observation for ``text``: the text, or ``{"text", "image"}`` in screenshot mode."""
        if not self.screenshot:
            return text
        image = self._image if self._image is not None else np.zeros(
            (VIEWPORT["height"], VIEWPORT["width"], 3), np.uint8)
        return {"text": text, "image": image}

    def guidance(self, task: SurfaceTask) -> str:
        """How the page is shown and the action format."""
        return GUIDANCE

    def reset(self, task: SurfaceTask, persona: Persona, seed: int | None) -> str:
        """Open the task's page in a fresh context; returns the first observation."""
        from userbench_env.surfaces.web.browser import get_browser
        from userbench_env.surfaces.web.site import Site

        self._close_episode()
        if task.web is None:
            raise ValueError(f"task {task.id} is not a web task (no web spec)")
        self._task, self.role = task, task.web.role
        self._history, self._steps, self._invalid_run, self._artifact, self._ended = [], 0, 0, None, False
        self._site = Site(task)
        host = get_browser()
        self._context, self._page = host.run(self._open(host.browser, self._take_spare(host)))
        self._refresh()
        return self._render()

    def step(self, action: str) -> SurfaceStep:
        """Apply one JSON action (see :mod:`.actions`)."""
        if self._page is None or self._ended:
            raise RuntimeError("reset the web backend before stepping")
        self._steps += 1
        try:
            parsed = parse_action(action)
            problem = self._check(parsed)
        except InvalidAction as exc:
            parsed, problem = None, str(exc)
        if problem is not None:
            return self._invalid(action, problem)
        assert parsed is not None
        self._invalid_run = 0
        if isinstance(parsed, Done):
            self._history.append(f"{self._steps}. done -> ok")
            return self._end("You finished.")
        try:
            result = self._apply(*self._get_host().run(self._act_and_snap(parsed)))
        except Exception as exc:
            if self._page.is_closed():
                return SurfaceStep(observation=f"The browser page is gone: {exc}", done=True, error=str(exc))
            raise
        self._history.append(f"{self._steps}. {describe(parsed)} -> {result}")
        if self._steps >= self.max_steps:
            return self._end(f"Step limit ({self.max_steps}) reached.")
        return SurfaceStep(observation=self._render())

    def sample_action(self, rng: Any) -> str:
        """A random action: a click on an enabled control, or a scroll."""
        enabled = [c.ref for c in (self._snapshot.controls if self._snapshot else []) if not c.disabled]
        if not enabled or rng.random() < 0.1:
            return json.dumps({"action": "scroll", "direction": "down" if rng.random() < 0.5 else "up"})
        return json.dumps({"action": "click", "ref": int(enabled[int(rng.integers(len(enabled)))])})

    def artifact(self) -> dict[str, Any] | None:
        """The outputs read from the final page (live page while the episode runs); ``None`` if unreadable."""
        if self._ended:
            return self._artifact
        return self._extract()

    def close(self) -> None:
        """Close the episode's context, any prewarmed one and the page server (the shared
        browser stays up)."""
        self._close_episode()
        spare, self._spare, self._spare_host = self._spare, None, None
        if spare is not None:
            with contextlib.suppress(Exception):  # a failed prewarm leaves nothing to close
                context, _ = spare.result(60)
                self._get_host().run(_quiet_close(context), timeout=30.0)

    # ------------------------------------------------------------------ extras

    @property
    def blocked(self) -> list[str]:
        """URLs the current episode's page tried to reach and was refused."""
        return list(self._site.blocked) if self._site is not None else []

    @property
    def snapshot(self) -> Snapshot | None:
        """The latest page snapshot."""
        return self._snapshot

    def page_call(self, func: Any) -> Any:
        """Run ``func(page)`` (an async function of the Playwright page) on the browser thread."""
        return self._get_host().run(func(self._page))

    # ------------------------------------------------------------------ internals

    @staticmethod
    def _get_host() -> Any:
        from userbench_env.surfaces.web.browser import get_browser

        return get_browser()

    async def _new_context(self, browser: Any) -> tuple[Any, Any]:
        """A fresh context with one blank page (no request is made before routes exist)."""
        context = await browser.new_context(viewport=VIEWPORT, service_workers="block", accept_downloads=False)
        page = await context.new_page()
        page.set_default_timeout(OBSERVE_TIMEOUT_MS)
        return context, page

    async def _open(self, browser: Any, fresh: tuple[Any, Any] | None) -> tuple[Any, Any]:
        """Fence a fresh context to the episode's site (popups closed) and load the page."""
        context, page = fresh if fresh is not None else await self._new_context(browser)
        await context.route("**/*", self._site.handle)
        await context.route_web_socket("**/*", self._site.block_websocket)
        context.on("page", _close_popup)
        # not goto(wait_until="load"): a page that navigates away while loading (refused with
        # 204, so it stays) never sends the lifecycle event goto waits for, though it is complete
        await page.goto(self._site.url, wait_until="commit", timeout=OBSERVE_TIMEOUT_MS)
        await page.wait_for_function("document.readyState === 'complete'", timeout=OBSERVE_TIMEOUT_MS)
        return context, page

    def _take_spare(self, host: Any) -> tuple[Any, Any] | None:
        """The prewarmed (context, page) if it was made by ``host`` and is usable."""
        spare, spare_host, self._spare, self._spare_host = self._spare, self._spare_host, None, None
        if spare is None or spare_host is not host:
            return None
        try:
            return spare.result(60)
        except Exception:  # noqa: BLE001 - a failed prewarm just means creating one now
            return None

    def _release_context(self, prewarm: bool) -> None:
        """Close the episode's context in the background; optionally start the next one."""
        context, self._context, self._page = self._context, None, None
        host = self._get_host()
        if context is not None:
            host.submit(_quiet_close(context))
        if prewarm and self._spare is None:
            self._spare, self._spare_host = host.submit(self._new_context(host.browser)), host

    async def _snap(self) -> tuple[Snapshot, bytes | None]:
        try:
            raw = await self._page.evaluate(SNAPSHOT_JS)
        except Exception:  # noqa: BLE001 - a navigation replaced the document: wait and retry once
            await self._page.wait_for_load_state("load")
            raw = await self._page.evaluate(SNAPSHOT_JS)
        shot = await self._page.screenshot(type="jpeg", quality=75) if self.screenshot else None
        return parse_snapshot(raw), shot

    def _refresh(self) -> None:
        self._show(*self._get_host().run(self._snap()))

    def _show(self, snapshot: Snapshot, shot: bytes | None) -> None:
        """Make ``snapshot`` (and its marked screenshot) current."""
        self._snapshot = snapshot
        if shot is not None:
            from userbench_env.surfaces.web.marks import marked_screenshot

            self._image = marked_screenshot(shot, snapshot)

    async def _act_and_snap(self, action: Any) -> tuple[str, Snapshot, bytes | None]:
        """Perform ``action`` and take the next snapshot, in one trip to the browser thread."""
        result = await self._act(action)
        return (result, *await self._snap())

    def _apply(self, result: str, snapshot: Snapshot, shot: bytes | None) -> str:
        """Make the new snapshot current; an ``ok`` that changed nothing visible says so."""
        before = self._snapshot
        self._show(snapshot, shot)
        assert before is not None
        if result == "ok" and before.text() == snapshot.text() and before.scroll_y == snapshot.scroll_y:
            return "ok (no visible change)"
        return result

    def _check(self, action: Any) -> str | None:
        """Why ``action`` cannot apply to the current page (an invalid action), or ``None``."""
        if isinstance(action, (Click, Type, Select)):
            assert self._snapshot is not None
            control = self._snapshot.control(action.ref)
            if control is None:
                return f"there is no control [{action.ref}] on the page"
            if isinstance(action, Select) and control.kind != "dropdown":
                return f"[{action.ref}] is a {control.kind}, not a dropdown"
            if isinstance(action, Type) and control.kind not in ("textbox", "slider"):
                return f"[{action.ref}] is a {control.kind}, not a text field"
        return None

    async def _act(self, action: Any) -> str:
        """Perform a checked action; returns its result line (``ok``/``failed: ...``)."""
        page = self._page
        if isinstance(action, Scroll):
            delta = SCROLL_PX if action.direction == "down" else -SCROLL_PX
            await page.evaluate("(dy) => window.scrollBy({top: dy, behavior: 'instant'})", delta)
            return "ok"
        assert self._snapshot is not None
        control = self._snapshot.control(action.ref)
        assert control is not None
        if control.disabled:
            return f"failed: [{action.ref}] is disabled"
        if isinstance(action, Click):
            target = await page.evaluate(CLICK_TARGET_JS, action.ref)
            if "error" in target:
                return f"failed: [{action.ref}] {target['error']}"
            await page.mouse.click(target["x"], target["y"])
            return "ok"
        handle = await page.evaluate_handle(
            f"(i) => {{ const el = window.{REFS_PROP}[i - 1]; return el && el.isConnected ? el : null; }}", action.ref)
        element = handle.as_element()
        if element is None:
            return f"failed: [{action.ref}] is no longer on the page"
        try:
            if isinstance(action, Type):
                await element.fill(action.text, timeout=self.action_timeout_ms)
            else:
                await element.select_option(label=self._option(control, action.option), timeout=self.action_timeout_ms)
        except Exception as exc:
            if page.is_closed():
                raise
            return "failed: " + _first_line(str(exc))
        finally:
            await handle.dispose()
        return "ok"

    @staticmethod
    def _option(control: Any, wanted: str) -> str:
        """The dropdown's option text matching ``wanted`` (case and spaces ignored)."""
        listed = next((s for s in control.state if s.startswith("options: ")), "options: ")
        options = [o.strip() for o in listed.removeprefix("options: ").split(" | ") if o.strip()]
        for option in options:
            if option.casefold() == wanted.strip().casefold():
                return option
        raise ValueError(f'no option "{wanted}"; options are: {" | ".join(options)}')

    def _invalid(self, raw: str, problem: str) -> SurfaceStep:
        self._invalid_run += 1
        shown = raw.strip().replace("\n", " ")
        shown = shown[:60] + ("..." if len(shown) > 60 else "")
        self._history.append(f"{self._steps}. {json.dumps(shown)} -> invalid: {problem}")
        if self._invalid_run >= self.max_invalid:
            return self._end(f"Stopped after {self.max_invalid} invalid actions in a row.", invalid=True)
        if self._steps >= self.max_steps:
            return self._end(f"Step limit ({self.max_steps}) reached.", invalid=True)
        return SurfaceStep(observation=self._render(), invalid=True)

    def _end(self, reason: str, invalid: bool = False) -> SurfaceStep:
        self._artifact = self._extract()
        self._ended = True
        observation = f"{reason}\n\n{self._render()}"
        self._release_context(self.prewarm)
        return SurfaceStep(observation=observation, done=True, invalid=invalid)

    def _extract(self) -> dict[str, Any] | None:
        from userbench_env.surfaces.web.artifact import extract_outputs

        if self._page is None or self._task is None or self._task.web is None:
            return None
        try:
            return self._get_host().run(extract_outputs(self._page, self._task.web.outputs))
        except Exception:  # noqa: BLE001 - an unreadable page produced no artifact (scored as error)
            return None

    def _render(self) -> str:
        assert self._task is not None and self._task.web is not None and self._snapshot is not None
        goal = _INSTRUCTION_HEADING.sub("", errand_text(self._task.instruction), count=1).strip()
        notes = "\n".join(f"- {n}" for n in self._task.web.notes)
        parts = [f"# Goal\n{goal}" + (f"\n\nNotes:\n{notes}" if notes else ""),
                 f"# Page: {self._snapshot.title}\n{self._snapshot.text()}",
                 self._snapshot.screen_line()]
        recent = self._history[-self.history_size:]
        parts.append("# Recent actions\n" + ("\n".join(recent) if recent else "none yet"))
        parts.append(f"Step {self._steps} of {self.max_steps}. Reply with one JSON action.")
        return "\n\n".join(parts)

    def _close_episode(self) -> None:
        """Close the context (waiting for it) and the page server."""
        context, site = self._context, self._site
        self._context = self._page = self._site = None
        if context is not None:
            self._get_host().run(_quiet_close(context), timeout=30.0)
        if site is not None:
            site.close()


async def _close_popup(page: Any) -> None:
    """Close a page the task's page opened (``window.open``, ``target=_blank``): the
    episode has one page."""
    with contextlib.suppress(Exception):  # it may close itself first
        await page.close()


async def _quiet_close(context: Any) -> None:
    """Close a browser context; one already gone is fine."""
    with contextlib.suppress(Exception):  # the browser may already be gone
        await context.close()


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "error"
    return line[:200]
