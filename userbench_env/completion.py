"""One chat completion with our retries, backoff, token counting and pricing.

Shared by every role an LLM plays (the user proxy, the LLM agent): :class:`LLMCaller`
holds the connection settings (model, ``base_url``, key, timeout, retry policy, price
overrides, extra request fields) and a *transport* that carries the request
(:mod:`userbench_env.transport`: ``litellm`` for any provider, ``direct`` for a
self-hosted OpenAI-compatible server with no litellm in the call path). It runs one
call, blocking (:meth:`LLMCaller.complete`) or not (:meth:`LLMCaller.acomplete`),
with the same semantics whichever the transport.

Every answered reply is counted and priced (into the caller's ``usage`` and a per-turn
:class:`~userbench_env.proxies.base.Usage`), including replies the role's parser then
rejects as :class:`MalformedReply`. Provider faults (HTTP 429, 5xx, timeouts,
connection errors, malformed replies) are retried with exponential backoff; after
``max_retries`` retries, or at once for a request the provider rejects as invalid
(:data:`FATAL_STATUSES`), the role's error type (``llm_error``) is raised. litellm is
imported inside litellm calls only.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from userbench_env.pricing import PriceSource, PriceTable, load_prices
from userbench_env.proxies.base import Usage
from userbench_env.transport import MalformedReply, make_transport

__all__ = ["FATAL_STATUSES", "LLMCaller", "MalformedReply", "first_message"]

#: HTTP statuses meaning the request itself is wrong: retrying cannot help.
FATAL_STATUSES = frozenset({400, 401, 403, 404, 422})

T = TypeVar("T")


def first_message(response: Any) -> Any:
    """The message of the first choice of a completion response (``MalformedReply`` if none)."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("the reply has no choices")
    return choices[0].message


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
    ) -> None:
        """Store the settings (``temperature`` None: the provider's default). Retry ``n`` waits ``backoff * 2**n`` s (at most ``max_backoff``);
        ``timeout`` is per call; ``extra`` is added to every request unchanged (e.g. ``max_tokens``);
        ``transport`` names how requests travel (``litellm`` or ``direct``, which needs ``base_url``)."""
        if max_retries < 0:
            raise ValueError("max_retries must be >= 0")
        self.model = model
        self.base_url = base_url
        self.api_key = api_key
        self.temperature = temperature
        self.max_retries = max_retries
        self.timeout = timeout
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.prices: PriceTable = load_prices(price_override)
        self.extra = dict(extra or {})
        self.transport = make_transport(transport, base_url, api_key, timeout)
        self.pricer = self.transport.pricer(model, self.prices)

    def chat_request(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, seed: int | None = None
    ) -> dict[str, Any]:
        """The chat-completions body for ``messages``: model, temperature, tools with
        ``tool_choice="auto"``, the seed when given (litellm drops it for providers that
        take none), then ``extra``. Endpoint, key and timeout are the transport's."""
        body: dict[str, Any] = {"model": self.model, "messages": messages}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if tools:
            body["tools"] = tools
            body["tool_choice"] = "auto"
        if seed is not None:
            body["seed"] = seed
        body.update(self.extra)
        return body

    def _count(self, response: Any, turn_usage: Usage) -> None:
        usage = getattr(response, "usage", None)
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        cost = self.pricer(prompt, completion)
        if cost is None:
            self.priced = False
        call = Usage(prompt_tokens=prompt, completion_tokens=completion, cost_usd=cost or 0.0, calls=1)
        turn_usage.add(call)
        self.usage.add(call)

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        """Seconds to wait before the next attempt, or ``llm_error`` when giving up."""
        status = getattr(exc, "status_code", None)
        if status in FATAL_STATUSES and not isinstance(exc, MalformedReply):
            raise self.llm_error(f"{self.model}: request rejected ({status}): {exc}") from exc
        if attempt >= self.max_retries:
            raise self.llm_error(f"{self.model}: failed after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
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
