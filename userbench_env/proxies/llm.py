"""An LLM plays the user, through litellm (any provider, or any OpenAI-compatible ``base_url``).

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

import asyncio
import time
from typing import Any

from userbench_env.core.messages import ToolCall
from userbench_env.core.task import Task
from userbench_env.pricing import PriceSource, call_cost, import_litellm, load_prices
from userbench_env.proxies.base import ProxyError, UserProxy, UserTurn, UserView, Usage
from userbench_env.proxies.chat import parse_arguments, view_to_chat
from userbench_env.proxies.prompt import GuidelineSource, prompt_hash, system_prompt

#: HTTP statuses meaning the request itself is wrong: retrying cannot help.
FATAL_STATUSES = frozenset({400, 401, 403, 404, 422})


class MalformedReply(ValueError):
    """The provider answered, but not with a usable user turn."""


def parse_reply(response: Any) -> tuple[str | None, ToolCall | None]:
    """The text and the (first) user tool call of a litellm completion response.

    Raises :class:`MalformedReply` when there is no choice, no usable content, or a
    tool call whose arguments are not a JSON object.
    """
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("the reply has no choices")
    message = choices[0].message
    calls = getattr(message, "tool_calls", None) or []
    if calls:
        first = calls[0]
        try:
            arguments = parse_arguments(first.function.arguments)
        except ValueError as exc:
            raise MalformedReply(str(exc)) from exc
        if not first.function.name:
            raise MalformedReply("a tool call has no name")
        return None, ToolCall(id=first.id or "", name=first.function.name, arguments=arguments, requestor="user")
    text = message.content
    if not isinstance(text, str) or not text.strip():
        raise MalformedReply("the reply has neither text nor a tool call")
    return text, None


class LLMUserProxy(UserProxy):
    """The user played by an LLM through litellm (see the module docstring).

    ``model`` is a litellm model name (``openai/gpt-4.1-mini``; ``openai/<name>`` with
    ``base_url`` for an OpenAI-compatible server). ``seed`` fixes the sampling seed;
    when ``None`` the episode seed from :meth:`reset` is forwarded. ``timeout`` is per
    call in seconds; retry ``n`` waits ``backoff * 2**n`` seconds (at most
    ``max_backoff``). ``price_override`` prices models litellm does not know (see
    :mod:`userbench_env.pricing`). ``guidelines`` picks our guideline text or tau2's.
    ``extra`` goes to litellm unchanged (e.g. ``max_tokens``).
    """

    name = "llm"

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
    ) -> None:
        super().__init__()
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.temperature = temperature
        self.fixed_seed = seed
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.prices = load_prices(price_override)
        self.guidelines = guidelines
        self.extra = dict(extra or {})
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
        """The keyword arguments of the litellm call for ``view``."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": view_to_chat(self.system_prompt(bool(view.tools)), view),
            "temperature": self.temperature,
            "timeout": self.timeout,
            "max_retries": 0,  # retries are ours, counted and backed off
            "drop_params": True,
        }
        if view.tools:
            kwargs["tools"] = view.tools
            kwargs["tool_choice"] = "auto"
        if self.effective_seed is not None:
            kwargs["seed"] = self.effective_seed
        if self.base_url:
            kwargs["api_base"] = self.base_url
        if self.api_key:
            kwargs["api_key"] = self.api_key
        kwargs.update(self.extra)
        return kwargs

    def _count(self, response: Any, turn_usage: Usage) -> None:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = call_cost(self.model, prompt, completion, self.prices)
        if cost is None:
            self.priced = False
        call = Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost or 0.0, calls=1)
        turn_usage.add(call)
        self.usage.add(call)

    def _accept(self, response: Any, turn_usage: Usage) -> UserTurn:
        self._count(response, turn_usage)
        text, call = parse_reply(response)
        return UserTurn(text=text, tool_call=call, usage=turn_usage)

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        """Seconds to wait before the next attempt, or :class:`ProxyError` when giving up."""
        status = getattr(exc, "status_code", None)
        if status in FATAL_STATUSES and not isinstance(exc, MalformedReply):
            raise ProxyError(f"{self.model}: request rejected ({status}): {exc}") from exc
        if attempt >= self.max_retries:
            raise ProxyError(f"{self.model}: failed after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
        return min(self.backoff * 2**attempt, self.max_backoff)

    def respond(self, view: UserView) -> UserTurn:
        """The user's next turn (blocking litellm call with retries)."""
        litellm = import_litellm()
        kwargs = self.request(view)
        turn_usage = Usage()
        attempt = 0
        while True:
            try:
                return self._accept(litellm.completion(**kwargs), turn_usage)
            except Exception as exc:  # every provider failure is retried or becomes ProxyError
                delay = self._retry_delay(attempt, exc)
            time.sleep(delay)
            attempt += 1

    async def arespond(self, view: UserView) -> UserTurn:
        """The user's next turn (non-blocking ``litellm.acompletion`` with retries)."""
        litellm = import_litellm()
        kwargs = self.request(view)
        turn_usage = Usage()
        attempt = 0
        while True:
            try:
                return self._accept(await litellm.acompletion(**kwargs), turn_usage)
            except Exception as exc:  # every provider failure is retried or becomes ProxyError
                delay = self._retry_delay(attempt, exc)
            await asyncio.sleep(delay)
            attempt += 1

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
