"""How one chat-completion request reaches the model: through litellm, or straight over HTTP.

A transport sends the OpenAI chat-completions body that
:class:`~userbench_env.completion.LLMCaller` builds (``model``, ``messages``,
``temperature``, ``tools``/``tool_choice``, ``seed``, then the caller's ``extra``) and
returns the response, read by attribute in the OpenAI shape
(``response.choices[0].message.tool_calls[0].function.arguments``,
``response.usage.prompt_tokens``), blocking (``send``) or not (``asend``). It also
says how a call is priced (``pricer``). Transports never retry: the caller does.

* :class:`LiteLLMTransport` (``"litellm"``): ``litellm.completion`` /
  ``litellm.acompletion`` (any provider; litellm's own retries off), priced with
  litellm's cost function after the override table.
* :class:`DirectTransport` (``"direct"``): the chat-completions wire format posted to
  ``<base_url>/chat/completions`` of a self-hosted OpenAI-compatible server (vLLM,
  SGLang, ``userbench serve``) with no litellm in the call path: the non-blocking path
  shares one pooled ``aiohttp.ClientSession`` per event loop (closed when
  ``asyncio.run`` shuts the loop down), the blocking path keeps one keep-alive
  ``http.client`` connection per thread. The model name goes on the wire without a
  leading ``openai/`` or ``hosted_vllm/`` (litellm's routes to such servers), so one
  model string works with both transports. Priced once per caller from the override
  table, else litellm's price map read as data (:func:`~userbench_env.pricing.flat_price`).

Errors: an HTTP error status raises :class:`HTTPStatusError` (with ``status_code``, as
litellm's errors have); a body that is not a chat completion raises
:class:`MalformedReply`; timeouts and connection errors propagate as they are.
"""
from __future__ import annotations

import asyncio
import http.client
import json
import threading
from collections.abc import AsyncIterator, Callable
from types import SimpleNamespace
from typing import Any, Protocol
from urllib.parse import urlsplit

from userbench_env.pricing import PriceSource, call_cost, flat_price, import_litellm

#: price of one call from its (prompt, completion) token counts; ``None`` when unknown
Pricer = Callable[[int, int], "float | None"]

#: litellm model prefixes that route to an OpenAI-compatible server (dropped on the wire)
WIRE_PREFIXES = ("openai/", "hosted_vllm/")


class MalformedReply(ValueError):
    """The provider answered, but not with a usable turn."""


class HTTPStatusError(RuntimeError):
    """The server answered with an HTTP error status (``status_code``)."""

    def __init__(self, status_code: int, body: str) -> None:
        super().__init__(f"HTTP {status_code}: {body}")
        self.status_code = status_code


class Transport(Protocol):
    """What :class:`~userbench_env.completion.LLMCaller` needs from a transport."""

    name: str

    def send(self, body: dict[str, Any]) -> Any:
        """The response to ``body`` (blocking)."""
        ...

    async def asend(self, body: dict[str, Any]) -> Any:
        """The response to ``body`` (non-blocking)."""
        ...

    def pricer(self, model: str, prices: PriceSource) -> Pricer:
        """How calls of ``model`` are priced, given the override table."""
        ...


class LiteLLMTransport:
    """Calls through litellm (see the module docstring); ``base_url``/``api_key`` optional."""

    name = "litellm"

    def __init__(self, base_url: str | None, api_key: str | None, timeout: float) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout

    def kwargs(self, body: dict[str, Any]) -> dict[str, Any]:
        """litellm's arguments: the timeout, litellm's retries off, unknown params dropped,
        the endpoint and key when set, then ``body`` (whose ``extra`` may override them)."""
        kwargs: dict[str, Any] = {"timeout": self.timeout, "max_retries": 0, "drop_params": True}
        if self.base_url:
            kwargs["api_base"] = self.base_url
        if self.api_key:
            kwargs["api_key"] = self.api_key
        kwargs.update(body)
        return kwargs

    def send(self, body: dict[str, Any]) -> Any:
        """``litellm.completion`` of ``body``."""
        return import_litellm().completion(**self.kwargs(body))

    async def asend(self, body: dict[str, Any]) -> Any:
        """``litellm.acompletion`` of ``body``."""
        return await import_litellm().acompletion(**self.kwargs(body))

    def pricer(self, model: str, prices: PriceSource) -> Pricer:
        """:func:`~userbench_env.pricing.call_cost` per call (tiered prices apply)."""
        return lambda prompt, completion: call_cost(model, prompt, completion, prices)


class Fields(SimpleNamespace):
    """A JSON object read by attribute; a missing field reads as ``None`` (as in litellm's objects)."""

    def __getattr__(self, name: str) -> Any:
        return None


#: one decoder for every reply (``json.loads`` with a hook would build a decoder per call)
_DECODER = json.JSONDecoder(object_hook=lambda fields: Fields(**fields))


def decode_completion(status: int, raw: bytes) -> Any:
    """The chat completion in an HTTP answer (:class:`HTTPStatusError` for an error status,
    :class:`MalformedReply` for a body that is not a chat completion)."""
    if status >= 400:
        raise HTTPStatusError(status, raw[:500].decode("utf-8", "replace"))
    try:
        response = _DECODER.decode(raw.decode("utf-8"))
    except ValueError as exc:  # UnicodeDecodeError and JSONDecodeError alike
        raise MalformedReply(f"the reply is not JSON: {raw[:200]!r}") from exc
    choices = getattr(response, "choices", None) if isinstance(response, Fields) else None
    if not isinstance(choices, list) or not all(isinstance(c, Fields) and isinstance(c.message, Fields) for c in choices):
        raise MalformedReply(f"the reply is not a chat completion: {raw[:200]!r}")
    return response


_SESSIONS: dict[asyncio.AbstractEventLoop, tuple[Any, AsyncIterator[Any]]] = {}


async def _keep_session(loop: asyncio.AbstractEventLoop) -> AsyncIterator[Any]:
    """Owns the loop's session: yields it once, closes it when the loop shuts its async
    generators down (``asyncio.run`` does on exit)."""
    import aiohttp

    session = aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))
    try:
        yield session
    finally:
        _SESSIONS.pop(loop, None)
        await session.close()


async def loop_session() -> Any:
    """The pooled ``aiohttp.ClientSession`` of the running event loop (created on first use)."""
    loop = asyncio.get_running_loop()
    found = _SESSIONS.get(loop)
    if found is None or found[0].closed:
        keeper = _keep_session(loop)
        found = _SESSIONS[loop] = (await keeper.__anext__(), keeper)
    return found[0]


#: errors of a kept-alive connection the server has closed meanwhile (sent again once, on a new one)
STALE_CONNECTION = (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError)


class DirectTransport:
    """Posts the chat-completions body to an OpenAI-compatible server (module docstring).

    ``timeout`` bounds a whole async call, and each socket operation of a blocking one.
    """

    name = "direct"

    def __init__(self, base_url: str | None, api_key: str | None, timeout: float) -> None:
        if not base_url:
            raise ValueError("the direct transport needs base_url (e.g. http://127.0.0.1:8000/v1)")
        self.url = base_url.rstrip("/") + "/chat/completions"
        parts = urlsplit(self.url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"base_url must be an http(s) URL, got {base_url!r}")
        self._parts = parts
        self.timeout = timeout
        self.headers = {"Content-Type": "application/json"}
        if api_key:
            self.headers["Authorization"] = f"Bearer {api_key}"
        self._client_timeout: Any = None
        self._local = threading.local()

    @staticmethod
    def payload(body: dict[str, Any]) -> bytes:
        """The request body on the wire (model without a litellm routing prefix)."""
        model = str(body.get("model", ""))
        for prefix in WIRE_PREFIXES:
            if model.startswith(prefix):
                body = {**body, "model": model[len(prefix):]}
                break
        return json.dumps(body, separators=(",", ":")).encode("utf-8")

    async def asend(self, body: dict[str, Any]) -> Any:
        """POST through the loop's pooled session."""
        if self._client_timeout is None:
            import aiohttp

            self._client_timeout = aiohttp.ClientTimeout(total=self.timeout)
        session = await loop_session()
        async with session.post(self.url, data=self.payload(body), headers=self.headers,
                                timeout=self._client_timeout) as answer:
            raw = await answer.read()
            status = answer.status
        return decode_completion(status, raw)

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return kind(self._parts.hostname or "", self._parts.port, timeout=self.timeout)

    def _exchange(self, connection: http.client.HTTPConnection, payload: bytes) -> tuple[int, bytes]:
        connection.request("POST", self._parts.path, body=payload, headers=self.headers)
        answer = connection.getresponse()
        return answer.status, answer.read()

    def send(self, body: dict[str, Any]) -> Any:
        """POST over this thread's kept-alive connection (blocking)."""
        payload = self.payload(body)
        connection = getattr(self._local, "connection", None)
        reused = connection is not None
        if connection is None:
            connection = self._local.connection = self._connection()
        try:
            try:
                status, raw = self._exchange(connection, payload)
            except STALE_CONNECTION:
                if not reused:
                    raise
                connection.close()
                status, raw = self._exchange(connection, payload)  # http.client reconnects
        except BaseException:
            connection.close()  # an unread or broken exchange: start the next call afresh
            self._local.connection = None
            raise
        return decode_completion(status, raw)

    def pricer(self, model: str, prices: PriceSource) -> Pricer:
        """A flat per-token price resolved on the first call, then plain arithmetic."""
        resolved: list[Any] = []

        def price(prompt: int, completion: int) -> float | None:
            if not resolved:
                resolved.append(flat_price(model, prices))
            found = resolved[0]
            return found.cost(prompt, completion) if found is not None else None

        return price


TRANSPORTS: dict[str, type[LiteLLMTransport] | type[DirectTransport]] = {
    "litellm": LiteLLMTransport,
    "direct": DirectTransport,
}


def make_transport(kind: str, base_url: str | None, api_key: str | None, timeout: float) -> Transport:
    """The transport named ``kind`` (``litellm`` or ``direct``) for this endpoint."""
    factory = TRANSPORTS.get(kind)
    if factory is None:
        raise ValueError(f"unknown transport {kind!r}; known: {', '.join(sorted(TRANSPORTS))}")
    return factory(base_url, api_key, timeout)
