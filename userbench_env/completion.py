"""One litellm chat completion with our retries, backoff, token counting and pricing.

Shared by every role an LLM plays through litellm (the user proxy, the LLM agent):
:class:`LiteLLMCaller` holds the connection settings (model, ``base_url``, key,
timeout, retry policy, price overrides, extra litellm arguments) and runs one call,
blocking (:meth:`LiteLLMCaller.complete`) or not (:meth:`LiteLLMCaller.acomplete`).

Every answered reply is counted and priced (into the caller's ``usage`` and a per-turn
:class:`~userbench_env.proxies.base.Usage`), including replies the role's parser then
rejects as :class:`MalformedReply`. Provider faults (HTTP 429, 5xx, timeouts,
connection errors, malformed replies) are retried with exponential backoff; after
``max_retries`` retries, or at once for a request the provider rejects as invalid
(:data:`FATAL_STATUSES`), the role's error type (``llm_error``) is raised. litellm is
imported inside the calls only.
"""
from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any, TypeVar

from userbench_env.pricing import (
    PriceSource,
    PriceTable,
    call_cost,
    import_litellm,
    load_prices,
)
from userbench_env.proxies.base import Usage

#: HTTP statuses meaning the request itself is wrong: retrying cannot help.
FATAL_STATUSES = frozenset({400, 401, 403, 404, 422})

T = TypeVar("T")


class MalformedReply(ValueError):
    """The provider answered, but not with a usable turn."""


def first_message(response: Any) -> Any:
    """The message of the first choice of a completion response (``MalformedReply`` if none)."""
    choices = getattr(response, "choices", None)
    if not choices:
        raise MalformedReply("the reply has no choices")
    return choices[0].message


class LiteLLMCaller:
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
    ) -> None:
        """Store the settings (``temperature`` None: the provider's default). Retry ``n`` waits ``backoff * 2**n`` s (at most ``max_backoff``);
        ``timeout`` is per call; ``extra`` goes to litellm unchanged (e.g. ``max_tokens``)."""
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

    def llm_kwargs(
        self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None = None, seed: int | None = None
    ) -> dict[str, Any]:
        """litellm arguments for ``messages``: model, temperature, timeout, our retries
        only, tools with ``tool_choice="auto"`` and the seed when given (litellm drops it
        for providers that take none), the endpoint, then ``extra``."""
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "timeout": self.timeout,
            "max_retries": 0,  # retries are ours, counted and backed off
            "drop_params": True,
        }
        if self.temperature is not None:
            kwargs["temperature"] = self.temperature
        if tools:
            kwargs["tools"] = tools
            kwargs["tool_choice"] = "auto"
        if seed is not None:
            kwargs["seed"] = seed
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

    def _retry_delay(self, attempt: int, exc: Exception) -> float:
        """Seconds to wait before the next attempt, or ``llm_error`` when giving up."""
        status = getattr(exc, "status_code", None)
        if status in FATAL_STATUSES and not isinstance(exc, MalformedReply):
            raise self.llm_error(f"{self.model}: request rejected ({status}): {exc}") from exc
        if attempt >= self.max_retries:
            raise self.llm_error(f"{self.model}: failed after {attempt + 1} attempts: {type(exc).__name__}: {exc}") from exc
        return min(self.backoff * 2**attempt, self.max_backoff)

    def complete(self, kwargs: dict[str, Any], parse: Callable[[Any], T], turn_usage: Usage) -> T:
        """``parse`` of a blocking ``litellm.completion(**kwargs)``, retried (module docstring)."""
        litellm = import_litellm()
        attempt = 0
        while True:
            try:
                response = litellm.completion(**kwargs)
                self._count(response, turn_usage)
                return parse(response)
            except Exception as exc:  # every provider failure is retried or becomes llm_error
                delay = self._retry_delay(attempt, exc)
            time.sleep(delay)
            attempt += 1

    async def acomplete(self, kwargs: dict[str, Any], parse: Callable[[Any], T], turn_usage: Usage) -> T:
        """:meth:`complete` with the non-blocking ``litellm.acompletion``."""
        litellm = import_litellm()
        attempt = 0
        while True:
            try:
                response = await litellm.acompletion(**kwargs)
                self._count(response, turn_usage)
                return parse(response)
            except Exception as exc:  # every provider failure is retried or becomes llm_error
                delay = self._retry_delay(attempt, exc)
            await asyncio.sleep(delay)
            attempt += 1
