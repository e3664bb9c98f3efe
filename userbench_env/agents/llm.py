"""LLMAgent: a customer-service agent played by an LLM through litellm (any provider or ``base_url``)
or straight over HTTP to a self-hosted OpenAI-compatible server (``transport="direct"``).

The agent is driven by an agent-side env's observation stream (``reset(task)``, then
``act(observation, info)`` once per turn) and keeps its own chat:

* the first ``act`` of an episode takes the system prompt (``info["system_prompt"]``:
  instructions + domain policy) and the tool schemas (``info["tools"]``) from the
  env's reset info, unless fixed in the constructor; ``info["greeting"]``, when
  present, becomes the agent's opening assistant message (the env says it for the agent);
* an observation answering the agent's tool calls becomes ``tool`` messages: one call
  gets the observation as its result; several calls get the entries of the env's JSON
  list ``[{"id", "content", ...}]`` by id (an observation that is not such a list
  answers every call in full); any other observation is a ``user`` message;
* the reply is returned as an OpenAI assistant message dict ``{"role": "assistant",
  "content": ..., "tool_calls": [...]}`` (always a dict, so a text that happens to
  start with ``{`` is never mistaken for a tool call); calls without an id get
  ``call_<turn>_<i>`` so the env's results can be matched back.

The task itself is never read (the agent knows only the policy, the tools and the
conversation). Provider faults are retried with backoff (shared plumbing in
:mod:`userbench_env.completion`); giving up raises :class:`AgentError`. Usage and
cost accumulate per episode in ``usage``; ``provenance`` names model, prompt hash,
temperature and seed.
"""
from __future__ import annotations

import json
from typing import Any

from userbench_env.agents.base import AgentError
from userbench_env.completion import DEFAULT_MAX_TOKENS, LLMCaller, MalformedReply, first_message, named_tool_calls
from userbench_env.core.task import Task
from userbench_env.pricing import PriceSource
from userbench_env.proxies.base import Usage
from userbench_env.proxies.chat import parse_arguments
from userbench_env.proxies.prompt import prompt_hash

ChatMessage = dict[str, Any]


def parse_agent_reply(response: Any) -> ChatMessage:
    """The assistant message of a completion response (either transport) as a plain dict (text and all tool calls).

    Tool-call arguments are normalised to JSON object strings; ids are kept (``""``
    when missing). Raises :class:`MalformedReply` when there is no choice, neither
    text nor a tool call, a call without a name, or arguments that are not a JSON object.
    """
    message = first_message(response)
    calls = []
    for call in named_tool_calls(message):
        name = call.function.name
        try:
            arguments = parse_arguments(call.function.arguments)
        except ValueError as exc:
            raise MalformedReply(str(exc)) from exc
        calls.append({"id": call.id or "", "type": "function", "function": {"name": name, "arguments": json.dumps(arguments)}})
    text = message.content if isinstance(message.content, str) and message.content.strip() else None
    if not calls and text is None:
        raise MalformedReply("the reply has neither text nor a tool call")
    reply: ChatMessage = {"role": "assistant", "content": text}
    if calls:
        reply["tool_calls"] = calls
    return reply


def select_tools(schemas: list[dict[str, Any]], names: list[str] | tuple[str, ...] | None) -> list[dict[str, Any]]:
    """The schemas of the named tools, in the env's order (all when ``names`` is None);
    ``ValueError`` naming the env's tools for an unknown name."""
    if names is None:
        return list(schemas)
    known = {s["function"]["name"] for s in schemas}
    unknown = sorted(set(names) - known)
    if unknown:
        raise ValueError(f"no tools {unknown}; the env's tools: {sorted(known)}")
    return [s for s in schemas if s["function"]["name"] in set(names)]


def observation_messages(observation: str, pending: list[str]) -> list[ChatMessage]:
    """The chat messages an observation adds, given the ids of unanswered tool calls."""
    if not pending:
        return [{"role": "user", "content": observation}]
    if len(pending) > 1:
        try:
            entries = json.loads(observation)
        except ValueError:
            entries = None
        if isinstance(entries, list):
            by_id = {str(e.get("id")): e for e in entries if isinstance(e, dict)}
            if all(call_id in by_id for call_id in pending):
                return [{"role": "tool", "tool_call_id": call_id, "content": str(by_id[call_id].get("content", ""))}
                        for call_id in pending]
    return [{"role": "tool", "tool_call_id": call_id, "content": observation} for call_id in pending]


class LLMAgent(LLMCaller):
    """The agent played by an LLM (see the module docstring).

    ``model`` is a litellm model name (``openai/gpt-4.1``; ``openai/<name>`` with
    ``base_url`` for an OpenAI-compatible server; ``transport="direct"`` posts to that
    server without litellm). ``system_prompt``/``tools`` fix the
    prompt and tools instead of reading them from the reset info; ``tool_names`` offers
    only the env's tools of these names (a compact prompt for a small model). Retry, timeout,
    pricing and ``extra`` options are those of
    :meth:`~userbench_env.completion.LLMCaller.configure_llm`.
    """

    name = "llm-agent"
    llm_error = AgentError

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_retries: int = 3,
        timeout: float = 60.0,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        price_override: PriceSource = None,
        system_prompt: str | None = None,
        tools: list[dict[str, Any]] | None = None,
        extra: dict[str, Any] | None = None,
        transport: str = "litellm",
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        api_key_env: str | None = None,
        tool_names: list[str] | tuple[str, ...] | None = None,
    ) -> None:
        self.configure_llm(model, base_url, api_key, temperature, max_retries, timeout, backoff, max_backoff, price_override,
                           extra, transport, max_tokens, api_key_env)
        self.seed = seed
        self.fixed_system_prompt = system_prompt
        self.fixed_tools = tools
        self.tool_names = tuple(tool_names) if tool_names is not None else None
        self.usage = Usage()
        self.priced = True
        self.chat: list[ChatMessage] = []
        self.tools: list[dict[str, Any]] = []
        self._pending: list[str] = []
        self._turns = 0

    def reset(self, task: Task | None = None) -> None:
        """Start an episode: forget the chat, usage and pricing state (``task`` is not read)."""
        self.usage = Usage()
        self.priced = True
        self.chat = []
        self.tools = []
        self._pending = []
        self._turns = 0

    def _start(self, info: dict[str, Any]) -> None:
        system = self.fixed_system_prompt if self.fixed_system_prompt is not None else info.get("system_prompt")
        if not isinstance(system, str) or not system:
            raise ValueError("LLMAgent needs a system prompt: pass the env's reset info (info['system_prompt']) "
                             "to the first act() of an episode, or give system_prompt= to the constructor")
        self.tools = select_tools(list(self.fixed_tools if self.fixed_tools is not None else info.get("tools") or []),
                                  self.tool_names)
        self.chat = [{"role": "system", "content": system}]
        greeting = info.get("greeting")
        if isinstance(greeting, str) and greeting:
            self.chat.append({"role": "assistant", "content": greeting})

    def request(self, observation: str, info: dict[str, Any] | None) -> dict[str, Any]:
        """The chat-completions body for the turn answering ``observation`` (starts the chat if needed)."""
        if not self.chat:
            self._start(info or {})
        messages = self.chat + observation_messages(observation, self._pending)
        return self.chat_request(messages, self.tools, self.seed)

    def _record(self, kwargs: dict[str, Any], reply: ChatMessage) -> ChatMessage:
        self._turns += 1
        for i, call in enumerate(reply.get("tool_calls") or []):
            call["id"] = call["id"] or f"call_{self._turns}_{i}"
        self._pending = [call["id"] for call in reply.get("tool_calls") or []]
        self.chat = kwargs["messages"] + [reply]
        return json.loads(json.dumps(reply))  # the caller gets its own copy

    def act(self, observation: str, info: dict[str, Any] | None = None) -> ChatMessage:
        """The agent's next action (blocking call with retries; :class:`AgentError` on giving up)."""
        kwargs = self.request(observation, info)
        return self._record(kwargs, self.complete(kwargs, parse_agent_reply, Usage()))

    async def aact(self, observation: str, info: dict[str, Any] | None = None) -> ChatMessage:
        """:meth:`act` with the transport's non-blocking call."""
        kwargs = self.request(observation, info)
        return self._record(kwargs, await self.acomplete(kwargs, parse_agent_reply, Usage()))

    @property
    def provenance(self) -> dict[str, Any]:
        """name, model, hash of the system prompt in use, temperature, seed, and whether
        every call could be priced."""
        system = self.chat[0]["content"] if self.chat else None
        return {
            "name": self.name,
            "model": self.model,
            "prompt_hash": prompt_hash(system) if system is not None else None,
            "temperature": self.temperature,
            "seed": self.seed,
            "priced": self.priced,
        }
