"""What every agent shares: the infrastructure error type and how an agent is described.

An agent is any object with ``reset(task)`` and ``act(observation, info) -> action``
(optionally ``async aact``), driven by an env's observation stream; actions follow
:mod:`userbench_env.envs.actions`. An agent that cannot produce a turn for reasons
outside the conversation (provider down, retries exhausted) raises
:class:`AgentError`; envs holding the agent turn it into an episode error.
"""
from __future__ import annotations

from typing import Any


class AgentError(RuntimeError):
    """An infrastructure failure of an agent (after its own retries)."""


def agent_provenance(agent: Any) -> dict[str, Any]:
    """The agent's ``provenance`` dict, or ``{"name", "model": None}`` for agents without one."""
    found = getattr(agent, "provenance", None)
    if isinstance(found, dict):
        return dict(found)
    return {"name": str(getattr(agent, "name", None) or type(agent).__name__), "model": None}


def agent_usage(agent: Any) -> dict[str, Any]:
    """The agent's cumulative usage (tokens, cost in USD, calls) as a dict; zeros when it has none."""
    usage = getattr(agent, "usage", None)
    if usage is None:
        return {"prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "calls": 0}
    return dict(usage.model_dump())
