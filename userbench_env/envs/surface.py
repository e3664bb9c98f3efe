"""``SurfaceEnv``: the persona-surface Gymnasium env (survey, chat; web and app plug in).

One class for every surface, chosen by the ``surface`` keyword (the ALE pattern); the
surface's backend (:mod:`userbench_env.surfaces.base`) owns the world. The policy plays
the persona user: the observation is text from the surface, the action is text (a
JSON answer, a chat message...). ``reset`` returns the errand; ``info`` carries the
persona system prompt (``system_prompt``), the task id and surface. The terminal step
scores the backend's artifact (:func:`userbench_env.surfaces.artifacts.score_artifact`)
and returns the reward (1/0 single, checks held for multi; 0 on error) with
``info["episode_record"]``: status pass/fail/error (``pending`` when chat judging is deferred),
reward, max_points, per-check verdicts, error and the artifact.

Actions go through the input policy of :mod:`userbench_env.core.limits` first (``limits=``
overrides it): a non-string, a text over the limit or with a NUL or lone surrogate, and
JSON nested too deep or too large are invalid actions (``Invalid action: ...``, counted
in ``info["invalid_actions"]``, the episode goes on); text observations are clipped to
``max_observation_chars``. ``step`` before the first ``reset`` raises
``gymnasium.error.ResetNeeded``; a step after the episode ended changes nothing and
returns an empty observation (``""``, or empty text and a black image), reward 0.0, the
same terminated/truncated flags and the terminal info, as in the conversation envs.
"""
from __future__ import annotations

import zlib
from collections.abc import Mapping
from typing import Any

import gymnasium as gym
import numpy as np

from userbench_env.core.limits import InputLimits, InvalidInput, NotJson, clip_observation, decode_json, resolve_limits, text_problem
from userbench_env.envs.conventions import TIME_LIMIT, positive_int
from userbench_env.errors import UnknownTaskId
from userbench_env.envs.spaces import AnyText
from userbench_env.registration import mark_nondeterministic
from userbench_env.surfaces.base import SurfaceBackend, backend_class
from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.personas.render import render_persona
from userbench_env.surfaces.tasks import SurfaceTask, load_surface_tasks


def surface_observation_space(image_shape: tuple[int, int, int] | None, max_length: int = 1_000_000) -> gym.Space:
    """Text observations of at most ``max_length`` characters, or ``Dict(text, image)`` with
    an RGB ``uint8`` image of ``image_shape``."""
    if image_shape is None:
        return AnyText(max_length)
    return gym.spaces.Dict({"text": AnyText(max_length), "image": gym.spaces.Box(0, 255, image_shape, np.uint8)})


def action_problem(action: Any, limits: InputLimits) -> str | None:
    """Why a surface action breaks the input policy, or ``None`` (the backend judges the rest)."""
    if not isinstance(action, str):
        return f"expected text, got {type(action).__name__}"
    problem = text_problem(action, limits)
    if problem is None and action.lstrip()[:1] in ("{", "["):
        try:
            decode_json(action, limits)
        except NotJson:  # not JSON after all: the backend says what it expected
            pass
        except InvalidInput as exc:
            problem = str(exc)
    return problem


def unknown_surface_task(surface: str, task_id: str) -> UnknownTaskId:
    """The error for a task id the env's tasks do not hold."""
    return UnknownTaskId(f"no {surface} task {task_id!r}: `userbench tasks --surface {surface}` lists the bundled "
                         "ones (add --source apb --data-path DIR for an APB folder)")


class SurfaceEnv(gym.Env[str, str]):
    """The persona user on a surface (see the module docstring).

    ``surface``: survey, chat (web, app when their backends are registered).
    ``task_source``: ``bundled`` or ``apb`` (``path`` = an APB tasks folder or one task);
    ``tasks``: explicit :class:`SurfaceTask` list instead. ``split``: all/single/multi.
    ``task_id`` pins a task (else one is sampled with the reset seed; ``options=
    {"task_id": ...}`` pins one episode). ``rule`` overrides decision rules (one, or one
    per check, as strings). ``judge``: ``None``/``"deferred"`` (chat verdicts pending) or
    an LLM config/dict/model name. ``bot``: ``"scripted"`` or an LLM config (chat).
    ``turns`` overrides the chat length; ``max_turns`` caps steps (truncation).
    ``surface_options`` go to the backend (web: ``screenshot``, ``max_steps``...). A backend
    whose ``image_shape`` is set gives ``Dict(text, image)`` observations (built by its
    ``observe``); otherwise observations are text.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 1}

    def __init__(
        self,
        surface: str,
        task_source: str = "bundled",
        split: str = "all",
        task_id: str | None = None,
        path: str | None = None,
        tasks: list[SurfaceTask] | None = None,
        rule: str | list[str] | None = None,
        judge: Any = None,
        bot: Any = "scripted",
        turns: int | None = None,
        max_turns: int | None = None,
        render_mode: str | None = None,
        surface_options: dict[str, Any] | None = None,
        limits: InputLimits | Mapping[str, Any] | None = None,
    ) -> None:
        self.surface = surface
        self._bot = bot
        kwargs = {"bot": bot, "turns": turns} if surface == "chat" else {}
        kwargs = {**kwargs, **(surface_options or {})}
        self.backend: SurfaceBackend = backend_class(surface)(**kwargs)
        loaded = tasks if tasks is not None else load_surface_tasks(surface, task_source, split, path)  # type: ignore[arg-type]
        loaded = [t for t in loaded if t.surface == surface]
        if rule is not None:
            rules = [rule] if isinstance(rule, str) else list(rule)
            loaded = [t.with_rules(rules) for t in loaded]
        if not loaded:
            raise ValueError(f"no {surface} tasks for source={task_source!r} split={split!r}")
        self.tasks = {t.id: t for t in loaded}
        if task_id is not None and task_id not in self.tasks:
            raise unknown_surface_task(surface, task_id)
        self.task_id = task_id
        self.judge = None if judge in (None, "deferred") else judge
        self.max_turns = None if max_turns is None else positive_int("max_turns", max_turns)
        self.render_mode = render_mode
        self.limits = resolve_limits(limits)
        self.observation_space = surface_observation_space(getattr(self.backend, "image_shape", None),
                                                           self.limits.max_observation_chars)
        self.action_space = AnyText(self.limits.max_action_chars, sampler=self.backend.sample_action)
        self._personas: dict[str, Persona] = {}
        self._task: SurfaceTask | None = None
        self._last_obs = ""
        self._turn = 0
        self._invalid = 0
        self._done = True

    # ------------------------------------------------------------------ episode

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[str, dict[str, Any]]:
        """Start an episode on a pinned or seed-sampled task; returns (errand, info)."""
        super().reset(seed=seed)
        task_id = (options or {}).get("task_id") or self.task_id
        if task_id is None:
            ids = sorted(self.tasks)
            task_id = ids[int(self.np_random.integers(len(ids)))]
        if task_id not in self.tasks:
            raise unknown_surface_task(self.surface, task_id)
        self._task = self.tasks[task_id]
        if self.judge is not None or (self.surface == "chat" and self._bot != "scripted"):
            mark_nondeterministic(self)
        persona = self.persona_for(self._task)
        self._turn, self._invalid, self._done = 0, 0, False
        self._last_obs = self.backend.reset(self._task, persona, seed)
        system_prompt = (f"{render_persona(persona, self.backend.role)}\n"
                         f"{self.backend.guidance(self._task)}\n")
        info = {**self._step_info(), "system_prompt": system_prompt, "instruction": self._task.instruction,
                "persona_id": persona.persona_id, "n_checks": len(self._task.checks)}
        return self._observe(self._last_obs), info

    def step(self, action: str) -> tuple[str, float, bool, bool, dict[str, Any]]:
        """One persona action; the terminal step scores the artifact (before reset and after
        the end: see the module docstring)."""
        if self._task is None:
            raise gym.error.ResetNeeded("call reset() before step()")
        if self._done:
            return self._empty_observation(), 0.0, not self._final_truncated, self._final_truncated, dict(self._final_info)
        self._turn += 1
        problem = action_problem(action, self.limits)
        if problem is not None:
            self._invalid += 1
            self._last_obs = f"Invalid action: {problem}."
            return self._finish_or_continue(self._last_obs, done=False, error=None)
        result = self.backend.step(action)
        self._invalid += int(result.invalid)
        self._last_obs = result.observation
        return self._finish_or_continue(result.observation, result.done, result.error)

    def _observe(self, text: str) -> Any:
        """The observation for ``text``: the backend's own shape when it has one (web screenshots)."""
        text = clip_observation(text, self.limits.max_observation_chars)
        observe = getattr(self.backend, "observe", None)
        return observe(text) if observe is not None else text

    def _empty_observation(self) -> Any:
        """The observation of a step after the end: empty text (and a black image)."""
        if isinstance(self.observation_space, gym.spaces.Dict):
            return {"text": "", "image": np.zeros(self.observation_space["image"].shape, np.uint8)}
        return ""

    def _finish_or_continue(self, obs: str, done: bool, error: str | None) -> tuple[str, float, bool, bool, dict[str, Any]]:
        observation = self._observe(obs)
        truncated = not done and error is None and self.max_turns is not None and self._turn >= self.max_turns
        info = self._step_info()
        if not (done or error or truncated):
            return observation, 0.0, False, False, info
        reward, info = self._end(error, "truncated" if truncated else ("error" if error else "done"))
        return observation, reward, not truncated, truncated, info

    def end_episode(self, termination: str) -> tuple[float, dict[str, Any]]:
        """End the running episode as cut by an outer limit (gymnasium's ``TimeLimit``, see
        :mod:`~userbench_env.envs.conventions`): score the artifact now; returns (reward, info)."""
        return self._end(None, termination)

    def _end(self, error: str | None, termination: str) -> tuple[float, dict[str, Any]]:
        """Score the episode; its reward and the info holding ``episode`` (and ``error``)."""
        self._done = True
        info = self._step_info()
        episode = self._score(error, termination)
        info["episode_record"] = episode
        if episode["error"]:
            info["error"] = episode["error"]
        self._final_truncated, self._final_info = termination in ("truncated", TIME_LIMIT), info
        return (float(episode["reward"]) if episode["status"] in ("pass", "fail") else 0.0), info

    def _score(self, error: str | None, termination: str) -> dict[str, Any]:
        """The terminal ``episode`` record (flat dicts and lists only)."""
        from userbench_env.surfaces.artifacts import score_artifact
        from userbench_env.surfaces.scoring import error_outcome

        task = self._task
        assert task is not None
        artifact = self.backend.artifact()
        names = [c.name for c in task.checks]
        if error:
            outcome = error_outcome(error, len(names), names)
        elif self.backend.artifact_kind == "chat" and self.judge is None and artifact is not None:
            return {"task_id": task.id, "surface": self.surface, "termination": termination, "status": "pending",
                    "reward": 0.0, "max_points": len(names), "checks": [], "error": None, "artifact": artifact}
        else:
            outcome = score_artifact(task, artifact, self.backend.artifact_kind, judge=self.judge)
        return {"task_id": task.id, "surface": self.surface, "termination": termination, **outcome.as_dict(),
                "error": outcome.error, "artifact": artifact}

    def _step_info(self) -> dict[str, Any]:
        info: dict[str, Any] = {"turn": self._turn, "invalid_actions": self._invalid, "surface": self.surface,
                                "task_id": self._task.id if self._task else None}
        if hasattr(self.backend, "nudges"):
            info["nudges"] = self.backend.nudges
        return info

    # ------------------------------------------------------------------ helpers

    def persona_for(self, task: SurfaceTask) -> Persona:
        """The task's persona, or one generated around its pins (seeded by the task id)."""
        if task.id not in self._personas:
            persona = task.load_persona()
            if persona is None:
                from userbench_env.surfaces.personas.generator import generate_persona

                labels = {c.dimension_id: (c.dimension_label, c.category or "Other") for c in task.checks}
                persona = generate_persona(task.pins, zlib.crc32(task.id.encode()), labels=labels)
            self._personas[task.id] = persona
        return self._personas[task.id]

    def render(self) -> str | None:
        """The last observation (``ansi`` mode)."""
        return self._last_obs if self.render_mode == "ansi" else None

    def close(self) -> None:
        """Close the backend."""
        self.backend.close()
