"""Building agents from spec strings: ``scripted``, ``adaptive``, ``litellm:<model>``,
``direct:<model>`` or ``failing:<name>`` (agents failing their users on purpose,
:mod:`userbench_env.agents.failing`).

A spec is ``<kind>`` or ``<kind>:<rest>``; the kind picks a factory in
:data:`AGENT_SPECS`, which receives ``rest`` (may be empty) and keyword options. Other
modules add kinds with :func:`register_agent_spec`. The LLM agent is imported inside
its factory (litellm stays unloaded until a call).
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any

AgentFactory = Callable[..., Any]

AGENT_SPECS: dict[str, AgentFactory] = {}


def register_agent_spec(kind: str, factory: AgentFactory) -> None:
    """Make ``make_agent("<kind>:<rest>")`` call ``factory(rest, **options)``."""
    AGENT_SPECS[kind] = factory


def make_agent(spec: Any, **options: Any) -> Any:
    """A fresh agent from a spec string; an agent object (anything with ``act``) is returned unchanged.

    Raises ``ValueError`` naming the known kinds for an unknown kind or a missing part,
    ``TypeError`` for something that is neither a string nor an agent.
    """
    if not isinstance(spec, str):
        if hasattr(spec, "act"):
            return spec
        raise TypeError(f"an agent is a spec string or an object with act(), got {type(spec).__name__}")
    kind, _, rest = spec.strip().partition(":")
    factory = AGENT_SPECS.get(kind)
    if factory is None:
        raise ValueError(f"unknown agent spec {spec!r}; known kinds: {', '.join(sorted(AGENT_SPECS))}")
    return factory(rest, **options)


def _scripted(rest: str, **options: Any) -> Any:
    from userbench_env.agents.scripted import ScriptedAgent

    return ScriptedAgent(**options)


def _adaptive(rest: str, **options: Any) -> Any:
    from userbench_env.agents.adaptive import AdaptiveScriptedAgent

    return AdaptiveScriptedAgent(**options)


def _litellm(rest: str, **options: Any) -> Any:
    from userbench_env.agents.llm import LLMAgent

    if not rest:
        raise ValueError("litellm agent spec needs a model: 'litellm:<provider/model>'")
    return LLMAgent(model=rest, **options)


def _direct(rest: str, **options: Any) -> Any:
    from userbench_env.agents.llm import LLMAgent

    if not rest:
        raise ValueError("direct agent spec needs a model: 'direct:<served model name>'")
    if not options.get("base_url"):
        raise ValueError("direct agent spec needs the base_url option of the OpenAI-compatible server")
    return LLMAgent(model=rest, transport="direct", **options)


def _failing(rest: str, **options: Any) -> Any:
    from userbench_env.agents.failing import make_failing_agent

    return make_failing_agent(rest or "mixed", options.get("seed"))


for _kind, _factory in (("scripted", _scripted), ("adaptive", _adaptive), ("litellm", _litellm), ("direct", _direct),
                        ("failing", _failing)):
    register_agent_spec(_kind, _factory)
