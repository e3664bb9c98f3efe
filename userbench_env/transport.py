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

Deadlines: ``timeout`` bounds the *whole* call (connect, send and every read), on both
transports, blocking and not: a server that trickles its answer a byte at a time is cut
off at the deadline like one that never answers, with :class:`DeadlineExceeded` naming
the deadline and the endpoint, and the connection is closed so the server sees the
client leave. (litellm's and ``http.client``'s own timeouts bound each read only.) The
blocking litellm path runs litellm's async call on one background event loop so that
cancelling it really drops the request; the blocking direct path arms a shared watchdog
that shuts the socket down at the deadline.

Errors: an HTTP error status raises :class:`HTTPStatusError` (with ``status_code``, as
litellm's errors have); a body that is not a chat completion raises
:class:`MalformedReply`; missing credentials (litellm finds no key for a provider and
none was given) raise :class:`ConfigurationError` before any request; connection errors
propagate as they are.
"""
from __future__ import annotations

import asyncio
import heapq
import http.client
import itertools
import json
import socket
import threading
import time
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


class ConfigurationError(ValueError):
    """The call cannot work as configured (e.g. no credentials): retrying cannot help."""


class DeadlineExceeded(TimeoutError):
    """No complete reply within the call's deadline (named in the message, with the endpoint)."""

    def __init__(self, timeout: float, endpoint: str) -> None:
        super().__init__(f"no complete reply within {timeout:g} s from {endpoint}")
        self.timeout = timeout
        self.endpoint = endpoint


class HTTPStatusError(RuntimeError):
    """The server answered with an HTTP error status (``status_code``)."""

    def __init__(self, status_code: int, body: str) -> None:
        super().__init__(f"HTTP {status_code}: {body}")
        self.status_code = status_code


class Transport(Protocol):
    """What :class:`~userbench_env.completion.LLMCaller` needs from a transport."""

    name: str

    def endpoint(self, model: str) -> str:
        """Where ``model``'s calls go, for messages."""
        ...

    def send(self, body: dict[str, Any]) -> Any:
        """The response to ``body`` (blocking)."""
        ...

    async def asend(self, body: dict[str, Any]) -> Any:
        """The response to ``body`` (non-blocking)."""
        ...

    def pricer(self, model: str, prices: PriceSource) -> Pricer:
        """How calls of ``model`` are priced, given the override table."""
        ...

    def check(self, model: str) -> None:
        """Before any call: :class:`ConfigurationError` when ``model``'s calls cannot work
        (no credentials, or the server not reachable)."""
        ...


#: the longest :func:`check_reachable` waits for a connection
REACH_TIMEOUT_S = 5.0


def check_reachable(url: str, timeout: float) -> None:
    """:class:`ConfigurationError` naming ``url`` unless a TCP connection to its host and port opens
    within ``timeout`` (at most :data:`REACH_TIMEOUT_S`) seconds; nothing is sent."""
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        socket.create_connection((parts.hostname, port), timeout=min(timeout, REACH_TIMEOUT_S)).close()
    except OSError as exc:
        raise ConfigurationError(f"cannot reach {url}: {exc.strerror or exc}: is the server running there?") from exc


#: the key sent to a ``base_url`` server when none is given and the provider's variable is unset
#: (self-hosted OpenAI-compatible servers take any key; the OpenAI client refuses to send none)
PLACEHOLDER_KEY = "userbench-no-key"


class _LoopThread:
    """One daemon thread running an event loop, for blocking callers of async calls.

    :meth:`run` blocks the calling thread until the coroutine finishes on that loop, so a
    blocking call can be bounded with ``asyncio.wait_for`` and really cancelled.
    """

    _lock = threading.Lock()
    _loop: asyncio.AbstractEventLoop | None = None

    @classmethod
    def run(cls, coroutine: Any) -> Any:
        """The result of ``coroutine`` run on the background loop (its exception re-raised)."""
        with cls._lock:
            if cls._loop is None or cls._loop.is_closed():
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="userbench-llm-loop", daemon=True).start()
                cls._loop = loop
        return asyncio.run_coroutine_threadsafe(coroutine, cls._loop).result()


class LiteLLMTransport:
    """Calls through litellm (see the module docstring); ``base_url``/``api_key`` optional."""

    name = "litellm"

    def __init__(self, base_url: str | None, api_key: str | None, timeout: float) -> None:
        self.base_url = base_url
        self.api_key = api_key
        self.timeout = timeout
        self._keys: dict[str, str | None] = {}

    def endpoint(self, model: str) -> str:
        """Where ``model``'s calls go, for messages: the ``base_url``, else the provider's API."""
        return self.base_url or f"{model.partition('/')[0]} API"

    def _key(self, model: str) -> str | None:
        """The key to send for ``model``: the given one; else ``None`` when litellm finds the
        provider's key in the environment; else :data:`PLACEHOLDER_KEY` for a ``base_url``;
        else :class:`ConfigurationError` naming the missing variables (checked once per model)."""
        if self.api_key:
            return self.api_key
        if model not in self._keys:
            check = import_litellm().validate_environment(model=model, api_base=self.base_url)
            missing = check.get("missing_keys") or []
            if missing and not self.base_url:
                raise ConfigurationError(
                    f"{model}: missing credentials: set {' or '.join(missing)}, or pass an API key "
                    "(user_proxy_options={'api_key_env': NAME} or api_key)")
            self._keys[model] = PLACEHOLDER_KEY if missing else None
        return self._keys[model]

    def kwargs(self, body: dict[str, Any]) -> dict[str, Any]:
        """litellm's arguments: the timeout, litellm's retries off, unknown params dropped,
        the endpoint and key when set, then ``body`` (whose ``extra`` may override them)."""
        kwargs: dict[str, Any] = {"timeout": self.timeout, "max_retries": 0, "drop_params": True}
        if self.base_url:
            kwargs["api_base"] = self.base_url
        key = self._key(str(body.get("model", "")))
        if key:
            kwargs["api_key"] = key
        kwargs.update(body)
        return kwargs

    async def _bounded(self, body: dict[str, Any]) -> Any:
        kwargs = self.kwargs(body)
        try:
            return await asyncio.wait_for(import_litellm().acompletion(**kwargs), self.timeout)
        except asyncio.TimeoutError as exc:
            raise DeadlineExceeded(self.timeout, self.endpoint(str(body.get("model", "")))) from exc

    def send(self, body: dict[str, Any]) -> Any:
        """litellm's call of ``body`` within the deadline, blocking (run on the background loop)."""
        return _LoopThread.run(self._bounded(body))

    async def asend(self, body: dict[str, Any]) -> Any:
        """litellm's call of ``body`` within the deadline, non-blocking."""
        return await self._bounded(body)

    def pricer(self, model: str, prices: PriceSource) -> Pricer:
        """:func:`~userbench_env.pricing.call_cost` per call (tiered prices apply)."""
        return lambda prompt, completion: call_cost(model, prompt, completion, prices)

    def check(self, model: str) -> None:
        """Credentials for ``model`` are found (see :meth:`_key`), and a ``base_url`` is reachable."""
        self._key(model)
        if self.base_url:
            check_reachable(self.base_url, self.timeout)


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


class _Watchdog:
    """Shuts down the sockets of blocking calls that pass their deadline: one daemon
    thread for every call, a heap of ``[deadline, seq, socket, fired]`` entries."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[list[Any]] = []
        self._seq = itertools.count()
        self._thread: threading.Thread | None = None

    def arm(self, deadline: float, sock: socket.socket) -> list[Any]:
        """Watch ``sock`` until :meth:`disarm`; shut it down at ``deadline`` (``time.monotonic``)."""
        entry = [deadline, next(self._seq), sock, False]
        with self._cond:
            if self._thread is None or not self._thread.is_alive():  # also after a fork
                self._thread = threading.Thread(target=self._run, name="userbench-deadlines", daemon=True)
                self._thread.start()
            heapq.heappush(self._heap, entry)
            if self._heap[0] is entry:
                self._cond.notify()
        return entry

    def disarm(self, entry: list[Any]) -> bool:
        """Stop watching; True when the deadline had fired (the socket was shut down)."""
        with self._cond:
            entry[2] = None
            return bool(entry[3])

    def _run(self) -> None:
        with self._cond:
            while True:
                now = time.monotonic()
                while self._heap and (self._heap[0][2] is None or self._heap[0][0] <= now):
                    entry = heapq.heappop(self._heap)
                    if entry[2] is not None:
                        entry[3] = True
                        try:
                            entry[2].shutdown(socket.SHUT_RDWR)
                        except OSError:  # already closed
                            pass
                self._cond.wait(self._heap[0][0] - now if self._heap else None)


WATCHDOG = _Watchdog()


class DirectTransport:
    """Posts the chat-completions body to an OpenAI-compatible server (module docstring).

    ``timeout`` bounds each whole call, blocking or not (module docstring).
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

    def endpoint(self, model: str) -> str:
        """Where calls go, for messages: the chat-completions URL."""
        return self.url

    def check(self, model: str) -> None:
        """The server is reachable (credentials cannot be known before a call)."""
        check_reachable(self.url, self.timeout)

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
        try:
            async with session.post(self.url, data=self.payload(body), headers=self.headers,
                                    timeout=self._client_timeout) as answer:
                raw = await answer.read()
                status = answer.status
        except asyncio.TimeoutError as exc:  # aiohttp's own timeout errors derive from it
            raise DeadlineExceeded(self.timeout, self.url) from exc
        return decode_completion(status, raw)

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return kind(self._parts.hostname or "", self._parts.port, timeout=self.timeout)

    def _exchange(self, connection: http.client.HTTPConnection, payload: bytes, deadline: float) -> tuple[int, bytes]:
        """One request and its whole answer, the socket shut down at ``deadline``."""
        if connection.sock is None:
            connection.timeout = max(deadline - time.monotonic(), 0.001)
            connection.connect()
        entry = WATCHDOG.arm(deadline, connection.sock)
        try:
            connection.request("POST", self._parts.path, body=payload, headers=self.headers)
            answer = connection.getresponse()
            return answer.status, answer.read()
        except BaseException as exc:
            if WATCHDOG.disarm(entry):
                raise DeadlineExceeded(self.timeout, self.url) from exc
            raise
        finally:
            if WATCHDOG.disarm(entry):  # fired as the answer completed: the socket is gone
                connection.close()

    def send(self, body: dict[str, Any]) -> Any:
        """POST over this thread's kept-alive connection (blocking, within the deadline)."""
        deadline = time.monotonic() + self.timeout
        payload = self.payload(body)
        connection = getattr(self._local, "connection", None)
        reused = connection is not None
        if connection is None:
            connection = self._local.connection = self._connection()
        try:
            try:
                status, raw = self._exchange(connection, payload, deadline)
            except STALE_CONNECTION:
                if not reused:
                    raise
                connection.close()
                status, raw = self._exchange(connection, payload, deadline)  # on a new connection
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
