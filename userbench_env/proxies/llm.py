"""An LLM plays the user, through litellm (any provider, or any OpenAI-compatible ``base_url``)
or straight over HTTP to a self-hosted OpenAI-compatible server (``transport="direct"``).

The system prompt is the simulation guidelines (ours by default, with or without the
tools variant depending on whether the view offers user tools) plus the task's
rendered scenario (:mod:`userbench_env.proxies.prompt`). The conversation is sent
with roles flipped (:mod:`userbench_env.proxies.chat`), the user tools as function
schemas with ``tool_choice="auto"``, the temperature, and the seed (litellm drops it
for providers that do not take one).

Replies: tool calls win over text (tau2's rule for a message carrying both); the first
tool call is the turn. A reply with no choices, neither text nor a tool call, or tool
arguments that are not a JSON object is malformed. Provider faults (HTTP 429, 5xx,
timeouts, connection errors, malformed replies) are retried with exponential backoff;
after ``max_retries`` retries, or at once for a request the provider rejects as
invalid (400, 401, 403, 404, 422), :class:`ProxyError` is raised. Every reply's tokens
are counted and priced, including replies discarded as malformed.
"""
from __future__ import annotations

from typing import Any

from userbench_env.completion import (
    DEFAULT_MAX_TOKENS,
    FATAL_STATUSES,
    LLMCaller,
    MalformedReply,
    first_message,
    named_tool_calls,
)
from userbench_env.core.messages import ToolCall
from userbench_env.core.task import Task
from userbench_env.pricing import PriceSource
from userbench_env.proxies.base import ProxyError, Usage, UserProxy, UserTurn, UserView
from userbench_env.proxies.chat import parse_arguments, view_to_chat
from userbench_env.proxies.prompt import GuidelineSource, prompt_hash, system_prompt

__all__ = ["FATAL_STATUSES", "LLMUserProxy", "MalformedReply", "parse_reply"]


def parse_reply(response: Any) -> tuple[str | None, ToolCall | None]:
    """The text and the (first) user tool call of a completion response (either transport).

    Raises :class:`MalformedReply` when there is no choice, no usable content, or a
    tool call whose arguments are not a JSON object.
    """
    message = first_message(response)
    calls = named_tool_calls(message)
    if calls:
        first = calls[0]
        try:
            arguments = parse_arguments(first.function.arguments)
        except ValueError as exc:
            raise MalformedReply(str(exc)) from exc
        return None, ToolCall(id=first.id or "", name=first.function.name, arguments=arguments, requestor="user")
    text = message.content
    if not isinstance(text, str) or not text.strip():
        raise MalformedReply("the reply has neither text nor a tool call")
    return text, None


class LLMUserProxy(UserProxy, LLMCaller):
    """The user played by an LLM (see the module docstring).

    ``model`` is a litellm model name (``openai/gpt-4.1-mini``; ``openai/<name>`` with
    ``base_url`` for an OpenAI-compatible server). ``transport="direct"`` (with
    ``base_url``) skips litellm and posts to that server itself (:mod:`userbench_env.transport`);
    retries, faults, usage and pricing are the same. ``seed`` fixes the sampling seed;
    when ``None`` the episode seed from :meth:`reset` is forwarded. ``timeout`` is per
    call in seconds; retry ``n`` waits ``backoff * 2**n`` seconds (at most
    ``max_backoff``). ``price_override`` prices models litellm does not know (see
    :mod:`userbench_env.pricing`). ``guidelines`` picks our guideline text or tau2's.
    ``extra`` is added to every request unchanged (e.g. ``max_tokens``).
    """

    name = "llm"
    llm_error = ProxyError

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
        guidelines: GuidelineSource = "userbench",
        extra: dict[str, Any] | None = None,
        transport: str = "litellm",
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        api_key_env: str | None = None,
    ) -> None:
        super().__init__()
        self.configure_llm(model, base_url, api_key, temperature, max_retries, timeout, backoff, max_backoff, price_override,
                           extra, transport, max_tokens, api_key_env)
        self.fixed_seed = seed
        self.guidelines = guidelines
        self.priced = True
        self._prompts: dict[bool, str] = {}
        self._last_prompt: str | None = None

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Start an episode: forget prompts, usage and pricing state of the last one."""
        super().reset(task, seed)
        self._prompts = {}
        self._last_prompt = None
        self.priced = True

    @property
    def effective_seed(self) -> int | None:
        """The seed sent to the provider: the fixed one, else the episode's."""
        return self.fixed_seed if self.fixed_seed is not None else self.seed

    def system_prompt(self, with_tools: bool) -> str:
        """The system prompt for this episode's task (cached per episode)."""
        if self.task is None:
            raise RuntimeError("LLMUserProxy.reset(task) must be called before responding")
        if with_tools not in self._prompts:
            self._prompts[with_tools] = system_prompt(self.task, with_tools, self.guidelines)
        self._last_prompt = self._prompts[with_tools]
        return self._last_prompt

    def request(self, view: UserView) -> dict[str, Any]:
        """The chat-completions body of the call for ``view``."""
        return self.chat_request(view_to_chat(self.system_prompt(bool(view.tools)), view), view.tools, self.effective_seed)

    def respond(self, view: UserView) -> UserTurn:
        """The user's next turn (blocking call with retries)."""
        turn_usage = Usage()
        text, call = self.complete(self.request(view), parse_reply, turn_usage)
        return UserTurn(text=text, tool_call=call, usage=turn_usage)

    async def arespond(self, view: UserView) -> UserTurn:
        """The user's next turn (non-blocking call with retries)."""
        turn_usage = Usage()
        text, call = await self.acomplete(self.request(view), parse_reply, turn_usage)
        return UserTurn(text=text, tool_call=call, usage=turn_usage)

    @property
    def provenance(self) -> dict[str, Any]:
        """name, model, prompt hash (of the last prompt used), temperature, seed, and
        whether every call could be priced."""
        prompt = self._last_prompt
        return {
            "name": self.name,
            "model": self.model,
            "prompt_hash": prompt_hash(prompt) if prompt is not None else None,
            "temperature": self.temperature,
            "seed": self.effective_seed,
            "guidelines": self.guidelines,
            "priced": self.priced,
        }
