"""Agents the env can put opposite a user: the scripted oracle baseline (``ScriptedAgent``)
and an LLM agent through litellm (``userbench_env.agents.llm.LLMAgent``, imported lazily).
Build one from a spec string with :func:`make_agent` (``scripted``, ``adaptive``: the oracle that
skips questions already answered, ``litellm:<model>``).
"""
from userbench_env.agents.base import AgentError
from userbench_env.agents.scripted import ScriptedAgent
from userbench_env.agents.spec import AGENT_SPECS, make_agent, register_agent_spec

__all__ = ["AGENT_SPECS", "AgentError", "ScriptedAgent", "make_agent", "register_agent_spec"]
