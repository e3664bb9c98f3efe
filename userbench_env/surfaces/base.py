"""The surface backend protocol: what ``SurfaceEnv`` needs from a survey, chat, web or app world.

A backend is built once per env, then driven per episode: ``reset`` with a task and
its persona returns the first observation (text); ``step`` takes one policy action
(text) and returns a :class:`SurfaceStep`; ``artifact`` returns what the episode
produced, in the artifact kind's JSON shape (``None`` when nothing was produced, which
scores as an error); ``close`` releases resources. ``role`` is how the persona prompt
names the user, ``guidance`` the surface's rules appended to the system prompt, and
``artifact_kind`` the :mod:`userbench_env.surfaces.artifacts` kind that scores it.
New surfaces register in :data:`BACKENDS` (lazy ``module:Class`` strings).
"""
from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from userbench_env.surfaces.personas.model import Persona
from userbench_env.surfaces.tasks import SurfaceTask


class SurfaceStep(BaseModel):
    """One step's result: the next observation, whether the episode is over, whether
    the action was invalid (answered with an error observation), and an infrastructure
    error (provider down...) that ends the episode as an error."""

    model_config = ConfigDict(extra="forbid")

    observation: str
    done: bool = False
    invalid: bool = False
    error: str | None = None


@runtime_checkable
class SurfaceBackend(Protocol):
    """A persona world the env drives (see the module docstring)."""

    surface: str
    role: str
    artifact_kind: str

    def guidance(self, task: SurfaceTask) -> str:
        """Surface rules for the persona's system prompt (answer format, tools...)."""

    def reset(self, task: SurfaceTask, persona: Persona, seed: int | None) -> str:
        """Start an episode; returns the first observation."""

    def step(self, action: str) -> SurfaceStep:
        """Apply one policy action."""

    def sample_action(self, rng: Any) -> str:
        """A valid action for the current state (used by the action space's ``sample``)."""

    def artifact(self) -> dict[str, Any] | None:
        """The episode's artifact, or ``None`` when nothing was produced."""

    def close(self) -> None:
        """Release resources."""


#: surface -> "module:Class" of its backend, imported on first use
BACKENDS: dict[str, str] = {
    "survey": "userbench_env.surfaces.survey:SurveyBackend",
    "chat": "userbench_env.surfaces.chat:ChatBackend",
    "web": "userbench_env.surfaces.web.backend:WebBackend",
    "app": "userbench_env.surfaces.app.backend:AppBackend",
}


def backend_class(surface: str) -> type:
    """The backend class registered for ``surface``."""
    import importlib

    if surface not in BACKENDS:
        raise ValueError(f"unknown surface {surface!r}: known {sorted(BACKENDS)}")
    module, _, name = BACKENDS[surface].partition(":")
    return getattr(importlib.import_module(module), name)
