"""A local OpenAI-compatible chat server (scripted or canned answers, latency, faults).

Used by tests to drive the LLM proxies over real HTTP through real litellm, and as
``userbench serve`` to stand in for a provider with no API key.
"""
from userbench_env.serve.faults import FaultSchedule
from userbench_env.serve.responders import AgentReplayResponder, CannedResponder, Reply, Responder, ScriptedUserResponder
from userbench_env.serve.server import ChatServer

__all__ = ["AgentReplayResponder", "CannedResponder", "ChatServer", "FaultSchedule", "Reply", "Responder", "ScriptedUserResponder"]
