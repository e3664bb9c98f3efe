"""ChatMessages: observations as OpenAI chat messages plus the agent's tool schemas, for LLM policies.

The observation is ``{"messages": [...], "tools": [...]}``: the system prompt (the
env's instructions and policy), then the conversation as the agent sees it: its own
messages (text or ``tool_calls``), the user's text messages, and the results of its
own tool calls (role ``tool``). The user's private tool calls are not shown. An
invalid action adds the env's error text as a ``system`` message. Feed
``observation["messages"]`` and ``observation["tools"]`` to a chat-completion call
and send the reply message (a dict) back as the action.
"""
from __future__ import annotations

import json
from typing import Any, Iterable

import gymnasium as gym

from userbench_env.core.messages import Message


class ChatObservation(gym.spaces.Space):
    """The space of ``{"messages": list[dict], "tools": list[dict]}`` observations."""

    def __init__(self) -> None:
        super().__init__(shape=None, dtype=None)

    def contains(self, x: Any) -> bool:
        """True for a dict holding a ``messages`` list and a ``tools`` list."""
        return isinstance(x, dict) and isinstance(x.get("messages"), list) and isinstance(x.get("tools"), list)

    @property
    def is_np_flattenable(self) -> bool:
        """Chat transcripts have no fixed-size numeric form."""
        return False


def to_openai_messages(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """The agent-visible part of a transcript in OpenAI chat format (see the module docstring)."""
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "assistant":
            entry: dict[str, Any] = {"role": "assistant", "content": m.content}
            if m.tool_calls:
                entry["tool_calls"] = [
                    {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
                    for c in m.tool_calls
                ]
            out.append(entry)
        elif m.role == "user" and not m.tool_calls:
            out.append({"role": "user", "content": m.content})
        elif m.role == "tool" and m.requestor != "user":
            out.append({"role": "tool", "tool_call_id": m.tool_call_id, "content": m.content})
    return out


class ChatMessages(gym.ObservationWrapper):
    """Chat-message observations (see the module docstring). Wraps a ``ConversationEnv``."""

    def __init__(self, env: gym.Env) -> None:
        super().__init__(env)
        self.observation_space = ChatObservation()
        self.messages: list[dict[str, Any]] = []
        self.tools: list[dict[str, Any]] = []
        self._seen = 0
        self._invalid = 0

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        """Reset; the observation holds the system prompt and the opening exchange."""
        observation, info = self.env.reset(seed=seed, options=options)
        self.tools = list(info.get("tools") or [])
        self.messages = [{"role": "system", "content": info.get("system_prompt", "")}]
        self._seen, self._invalid = 0, 0
        return self._extend(observation, info), info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """Step; the observation is the whole conversation so far."""
        observation, reward, terminated, truncated, info = self.env.step(action)
        return self._extend(observation, info), reward, terminated, truncated, info

    def observation(self, observation: Any) -> dict[str, Any]:
        """The current chat observation (copies of the lists)."""
        return {"messages": [dict(m) for m in self.messages], "tools": list(self.tools)}

    def _extend(self, observation: Any, info: dict[str, Any]) -> dict[str, Any]:
        transcript = self.env.unwrapped.messages
        self.messages += to_openai_messages(transcript[self._seen:])
        self._seen = len(transcript)
        invalid = int(info.get("invalid_actions", 0))
        if invalid > self._invalid:
            self.messages.append({"role": "system", "content": str(observation)})
        self._invalid = invalid
        return self.observation(observation)
