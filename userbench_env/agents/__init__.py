"""Agents the env can put opposite a user: the scripted oracle baseline (``ScriptedAgent``)."""
from userbench_env.agents.scripted import ScriptedAgent

__all__ = ["ScriptedAgent"]
