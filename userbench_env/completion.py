"""One chat completion with our retries, backoff, token counting and pricing.

Shared by every role an LLM plays (the user proxy, the LLM agent): :class:`LLMCaller`
holds the connection settings (model, ``base_url``, key, timeout, retry policy, price
overrides, extra request fields) and a *transport* that carries the request
(:mod:`userbench_env.transport`: ``litellm`` for any provider, ``direct`` for a
self-hosted OpenAI-compatible server with no litellm in the call path). It runs one
call, blocking (:meth:`LLMCaller.complete`) or not (:meth:`LLMCaller.acomplete`),
with the same semantics whichever the transport.

Every request carries ``max_tokens`` (:data:`DEFAULT_MAX_TOKENS` unless set; ``None``
sends none) so a reply without an end token cannot keep a server generating, and every
call has a whole-call deadline (``timeout``, see :mod:`userbench_env.transport`).

Every answered reply is counted and priced (its usage counts must be whole numbers from
0 to :data:`MAX_USAGE_TOKENS`; any other count makes the reply malformed) (into the caller's ``usage`` and a per-turn
:class:`~userbench_env.proxies.base.Usage`), including replies the role's parser then
rejects as :class:`MalformedReply`. Provider faults (HTTP 429, 5xx, timeouts,
connection errors, malformed replies) are retried with exponential backoff; after
``max_retries`` retries, or at once for a misconfiguration (a request the provider
rejects as invalid, :data:`FATAL_STATUSES`, or missing credentials), the role's error
type (``llm_error``) is raised, naming the role, the model and the endpoint. litellm is
imported inside litellm calls only.
"""
from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from typing import Any, TypeVar

from userbench_env.pricing import PriceSource, PriceTable, load_prices
from userbench_env.proxies.base import Usage
from userbench_env.transport import ConfigurationError, MalformedReply, make_transport

__all__ = ["DEFAULT_MAX_TOKENS", "FATAL_STATUSES", "LLMCaller", "MalformedReply", "first_message", "named_tool_calls"]

#: HTTP statuses meaning the request itself is wrong: retrying cannot help.
FATAL_STATUSES = frozenset({400, 401, 403, 404, 422})
#: the completion-token cap of every request unless the caller sets one (a user or agent turn is short)
DEFAULT_MAX_TOKENS = 1024
#: the largest token count one call may report (far above any context window): more is not a count
MAX_USAGE_TOKENS = 100_000_000

T = TypeVar("T")


def usage_count(usage: Any, field: str) -> int:
    """``usage.<field>`` as a token count: absent or ``None`` is 0; anything but a whole
    number from 0 to :data:`MAX_USAGE_TOKENS` is a :class:`MalformedReply`."""
    value = getattr(usage, field, None)
    if value is None:
        return 0
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_USAGE_TOKENS:
        raise MalformedReply(f"the reply's usage.{field} is not a token count: {value!r}")
    return value


def first_message(response: Any) -> Any:
    """The message of the first choice of a completion response (``MalformedReply`` if none)."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("the reply has no choices")
    return choices[0].message


def named_tool_calls(message: Any) -> list[Any]:
    """The tool calls of a reply message, each an object whose ``function`` has a name
    (``MalformedReply`` for a ``tool_calls`` that is not a list or a call without a name)."""
    calls = getattr(message, "tool_calls", None) or []
    if not isinstance(calls, list):
        raise MalformedReply(f"the reply's tool_calls is not a list: {calls!r:.80}")
    for call in calls:
        name = getattr(getattr(call, "function", None), "name", None)
        if not isinstance(name, str) or not name:
            raise MalformedReply("a tool call has no name")
    return calls


class LLMCaller:
    """Connection settings and the retried, priced call (see the module docstring).

    Subclasses call :meth:`configure_llm` in ``__init__``, set ``llm_error`` (the
    exception raised when giving up) and keep a cumulative ``usage``
    (:class:`~userbench_env.proxies.base.Usage`) and a ``priced`` flag (False once a
    call could not be priced), both reset per episode by the subclass.
    """

    llm_error: type[Exception] = RuntimeError
    usage: Usage
    priced: bool

    def configure_llm(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        temperature: float | None = 0.0,
        max_retries: int = 3,
        timeout: float = 60.0,
        backoff: float = 1.0,
        max_backoff: float = 30.0,
        price_override: PriceSource = None,
        extra: dict[str, Any] | None = None,
        transport: str = "litellm",
        max_tokens: int | None = DEFAULT_MAX_TOKENS,
        api_key_env: str | None = None,
    ) -> None:
        """Store the settings (``temperature`` None: the provider's default). Retry ``n`` waits ``backoff * 2**n`` s (at most ``max_backoff``);
        ``timeout`` bounds each whole call in seconds; ``max_tokens`` caps each reply (``None``: no cap sent);
        ``extra`` is added to every request unchanged; ``transport`` names how requests travel
        (``litellm`` or ``direct``, which needs ``base_url``); ``api_key_env`` names the
        environment variable holding the key (read now; ``ValueError`` when unset)."""
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        if not timeout > 0:
            raise ValueError("timeout must be > 0 seconds")
        if max_tokens is not None and max_tokens < 1:
            raise ValueError("max_tokens must be >= 1 (or None for no cap)")
        if api_key_env is not None:
            if api_key is not None:
                raise ValueError("give api_key or api_key_env, not both")
            api_key = os.environ.get(api_key_env)
            if not api_key:
                raise ValueError(f"api_key_env names {api_key_env}, which is not set")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.temperature = temperature
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.prices: PriceTable = load_prices(price_override)
        self.max_tokens = max_tokens
        self.extra = dict(extra or {})
        self.transport = make_transport(transport, base_url, api_key, timeout)
        self.pricer = self.transport.pricer(model, self.prices)

    def chat_request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, seed: int | None = None
    ) -> dict[str, Any]:
        """The chat-completions body for ``messages``: model, temperature, ``max_tokens``,
        tools with ``tool_choice="auto"``, the seed when given (litellm drops it for
        providers that take none), then ``extra``. Endpoint, key and timeout are the transport's."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if seed is not None:
            body["seed"] = seed
        body.update(self.extra)
        return body

    def _count(self, response: Any, turn_usage: Usage) -> None:
        usage = getattr(response, "usage", None)
        prompt, completion = usage_count(usage, "prompt_tokens"), usage_count(usage, "completion_tokens")
        cost = self.pricer(prompt, completion)
        if cost is None:
            self.priced = False
        call = Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost or 0.0, calls=1)
        turn_usage.add(call)
        self.usage.add(call)

    @property
    def where(self) -> str:
        """``<role> <model> at <endpoint>``, the prefix of every error this caller raises."""
        role = getattr(self, "name", type(self).__name__)
        return f"{role} {self.model} at {self.transport.endpoint(self.model)}"

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        """Seconds to wait before the next attempt, or ``llm_error`` when giving up."""
        if isinstance(exc, ConfigurationError):
            raise self.llm_error(f"{self.where}: {exc}") from exc
        status = getattr(exc, "status_code", None)
        if status in FATAL_STATUSES and not isinstance(exc, MalformedReply):
            raise self.llm_error(f"{self.where}: request rejected ({status}), not retried: {exc}") from exc
        if attempt >= self.max_retries:
            raise self.llm_error(f"{self.where}: failed after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
        return min(self.backoff * 2**attempt, self.max_backoff)

    def complete(self, body: dict[str, Any], parse: Callable[[Any], T], turn_usage: Usage) -> T:
        """``parse`` of the transport's blocking answer to ``body``, retried (module docstring)."""
        attempt = 0
        while True:
            try:
                response = self.transport.send(body)
                self._count(response, turn_usage)
                return parse(response)
            except Exception as exc:  # every provider failure is retried or becomes llm_error
                delay = self._retry_delay(attempt, exc)
            time.sleep(delay)
            attempt += 1

    async def acomplete(self, body: dict[str, Any], parse: Callable[[Any], T], turn_usage: Usage) -> T:
        """:meth:`complete` with the transport's non-blocking call."""
        attempt = 0
        while True:
            try:
                response = await self.transport.asend(body)
                self._count(response, turn_usage)
                return parse(response)
            except Exception as exc:  # every provider failure is retried or becomes llm_error
                delay = self._retry_delay(attempt, exc)
            await asyncio.sleep(delay)
            attempt += 1
