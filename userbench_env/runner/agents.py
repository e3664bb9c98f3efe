"""Agents the runner can put opposite a user: spec names, and plain functions as agents.

An agent has ``reset(task)`` (optional) and ``act(observation, info) -> action``, or
an asynchronous ``aact(observation, info)``, which the runner prefers. A policy given
to :func:`~userbench_env.runner.collect` is either such an object (one per episode
through a factory) or a plain function ``(observation, info) -> action``.
"""
from __future__ import annotations

import inspect
from typing import Any, Callable, Protocol

from userbench_env.core.task import Task


class Agent(Protocol):
    """The agent interface the runner drives."""

    def act(self, observation: Any, info: dict[str, Any]) -> Any:
        """The next action given the last observation and info."""
        ...


class FunctionAgent:
    """A stateless agent around ``fn(observation, info) -> action`` (sync or async)."""

    def __init__(self, fn: Callable[[Any, dict[str, Any]], Any], name: str | None = None) -> None:
        self.fn = fn
        self.name = name or getattr(fn, "__name__", "policy")

    def reset(self, task: Task) -> None:
        """Nothing to forget."""

    async def aact(self, observation: Any, info: dict[str, Any]) -> Any:
        """Call the function (awaiting it when it returns an awaitable)."""
        action = self.fn(observation, info)
        return await action if inspect.isawaitable(action) else action


def agent_factory(policy: Any, **options: Any) -> Callable[[], Any]:
    """A factory of per-episode agents from a spec string, a class/factory, or a function.

    * a spec string (:func:`userbench_env.agents.make_agent`: ``scripted``,
      ``litellm:<model>``, ``direct:<model>``), built with ``options`` per episode;
    * an object with ``act``/``aact``: shared by every episode (it must be stateless);
    * a class, or a zero-argument factory returning an agent: called once per episode;
    * any other callable: a policy function ``(observation, info) -> action``.
    """
    if isinstance(policy, str):
        from userbench_env.agents.spec import make_agent

        make_agent(policy, **options)  # fail now on an unknown or incomplete spec
        return lambda: make_agent(policy, **options)
    if hasattr(policy, "act") or hasattr(policy, "aact"):
        if inspect.isclass(policy):
            return policy
        return lambda: policy
    if not callable(policy):
        raise TypeError(f"a policy must be an agent, an agent factory or a function, got {type(policy).__name__}")
    try:
        params = [p for p in inspect.signature(policy).parameters.values()
                  if p.default is p.empty and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    if inspect.isclass(policy) or not params:
        return policy
    return lambda: FunctionAgent(policy)


async def agent_act(agent: Any, observation: Any, info: dict[str, Any]) -> Any:
    """One action from ``agent`` (``aact`` when it has one, else ``act``)."""
    if hasattr(agent, "aact"):
        return await agent.aact(observation, info)
    return agent.act(observation, info)


def agent_name(policy: Any) -> str:
    """A short name for records: the spec name, ``name`` attribute or class name."""
    if isinstance(policy, str):
        return policy
    return str(getattr(policy, "name", None) or getattr(policy, "__name__", None) or type(policy).__name__)
