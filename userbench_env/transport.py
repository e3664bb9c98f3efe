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

A reply is complete only when its whole body has arrived: a body without a length that
is still arriving at the deadline (or trickled headers, or a trickled event stream) is
:class:`DeadlineExceeded`, never its partial text. The same holds on every path.

Redirects are never followed, on any path: a 3xx answer raises :class:`RedirectRefused`
naming the location (a configuration error: ``base_url`` should name the final address).
aiohttp is told not to follow; litellm's calls to an OpenAI-compatible route
(``openai/``, ``hosted_vllm/``) get an ``httpx`` client per event loop that does not
follow and refuses 3xx answers and over-long bodies in a response hook (litellm wraps
that error; :meth:`LiteLLMTransport.asend` finds it in the cause chain and raises it
as it is). A body over :data:`MAX_REPLY_BYTES` is a :class:`MalformedReply` (litellm:
when the server says its length).

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


class RedirectRefused(ConfigurationError):
    """The server answered with a redirect (never followed: ``base_url`` should be the final address)."""

    def __init__(self, status: int, location: str | None) -> None:
        super().__init__(f"the server redirected (HTTP {status}) to {location or 'an unnamed location'}; "
                         "redirects are not followed: set base_url to the final address")
        self.status_code = status
        self.location = location


#: the largest reply body read (a chat turn is a few kilobytes; a larger body is malformed)
MAX_REPLY_BYTES = 16 * 1024 * 1024


def too_large(size: int) -> MalformedReply:
    """The error of a reply body of ``size`` bytes (or more) over :data:`MAX_REPLY_BYTES`."""
    return MalformedReply(f"the reply body is larger than {MAX_REPLY_BYTES} bytes ({size} or more)")


def refuse_redirect(status: int, location: str | None) -> None:
    """:class:`RedirectRefused` for a 3xx status (every transport's one rule)."""
    if 300 <= status < 400:
        raise RedirectRefused(status, location)


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
        self._providers: dict[str, str] = {}

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

    def _provider(self, model: str) -> str:
        """litellm's provider of ``model`` (``openai``, ``hosted_vllm``, ...; resolved once per model)."""
        if model not in self._providers:
            try:
                self._providers[model] = import_litellm().get_llm_provider(model, api_base=self.base_url)[1]
            except Exception:  # litellm's BadRequestError for a model it cannot route: its call says so
                self._providers[model] = ""
        return self._providers[model]

    async def _client(self, kwargs: dict[str, Any]) -> Any:
        """The ``client`` litellm gets for an OpenAI-compatible route (module docstring), else ``None``."""
        provider = self._provider(str(kwargs.get("model", "")))
        if provider == "openai":
            import openai

            clients = await _LITELLM.get()
            return openai.AsyncOpenAI(api_key=kwargs.get("api_key"), base_url=kwargs.get("api_base"),
                                      http_client=clients.httpx, max_retries=0)
        if provider == "hosted_vllm":
            return (await _LITELLM.get()).handler
        return None

    async def _bounded(self, body: dict[str, Any]) -> Any:
        kwargs = self.kwargs(body)
        if "client" not in kwargs:
            client = await self._client(kwargs)
            if client is not None:
                kwargs["client"] = client
        try:
            return await asyncio.wait_for(import_litellm().acompletion(**kwargs), self.timeout)
        except asyncio.TimeoutError as exc:
            raise DeadlineExceeded(self.timeout, self.endpoint(str(body.get("model", "")))) from exc
        except Exception as exc:
            own = _own_error(exc)
            if own is None:
                raise
            raise own from None

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


class _PerLoop:
    """One resource per event loop: made on first use, closed when the loop shuts its
    async generators down (``asyncio.run`` does on exit). ``found`` maps a loop to
    ``(resource, keeper)``."""

    def __init__(self, make: Callable[[], Any], is_closed: Callable[[Any], bool],
                 close: Callable[[Any], Any]) -> None:
        self.make, self.is_closed, self.close = make, is_closed, close
        self.found: dict[asyncio.AbstractEventLoop, tuple[Any, AsyncIterator[Any]]] = {}

    async def _keep(self, loop: asyncio.AbstractEventLoop) -> AsyncIterator[Any]:
        resource = self.make()
        try:
            yield resource
        finally:
            self.found.pop(loop, None)
            await self.close(resource)

    async def get(self) -> Any:
        """The running loop's resource."""
        loop = asyncio.get_running_loop()
        found = self.found.get(loop)
        if found is None or self.is_closed(found[0]):
            keeper = self._keep(loop)
            found = self.found[loop] = (await keeper.__anext__(), keeper)
        return found[0]


def _aiohttp_session() -> Any:
    import aiohttp

    return aiohttp.ClientSession(connector=aiohttp.TCPConnector(limit=0))


_AIOHTTP = _PerLoop(_aiohttp_session, lambda session: session.closed, lambda session: session.close())
_SESSIONS = _AIOHTTP.found


async def loop_session() -> Any:
    """The pooled ``aiohttp.ClientSession`` of the running event loop (created on first use)."""
    return await _AIOHTTP.get()


async def _check_litellm_answer(response: Any) -> None:
    """httpx response hook of litellm's calls: refuse a redirect and a body said to be too large."""
    refuse_redirect(response.status_code, response.headers.get("location"))
    length = response.headers.get("content-length", "")
    if length.isdigit() and int(length) > MAX_REPLY_BYTES:
        raise too_large(int(length))


def _litellm_clients() -> SimpleNamespace:
    """The loop's ``httpx`` client for litellm (no redirects, the answer hook) and litellm's
    own handler around it (what litellm takes as ``client`` for ``hosted_vllm/``)."""
    import httpx
    from litellm.llms.custom_httpx.http_handler import AsyncHTTPHandler

    client = httpx.AsyncClient(follow_redirects=False, event_hooks={"response": [_check_litellm_answer]})
    handler = AsyncHTTPHandler()
    handler.client = client
    return SimpleNamespace(httpx=client, handler=handler)


_LITELLM = _PerLoop(_litellm_clients, lambda clients: clients.httpx.is_closed, lambda clients: clients.httpx.aclose())


def _own_error(exc: BaseException) -> BaseException | None:
    """The :class:`RedirectRefused` or :class:`MalformedReply` our hook raised, found in the
    chain of the error litellm wrapped it in (``None`` when there is none)."""
    seen: BaseException | None = exc
    for _ in range(32):  # the chain is short; a cycle stops here
        if seen is None or isinstance(seen, (RedirectRefused, MalformedReply)):
            return seen
        seen = seen.__cause__ or seen.__context__
    return None


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
                                    timeout=self._client_timeout, allow_redirects=False) as answer:
                refuse_redirect(answer.status, answer.headers.get("Location"))
                if (answer.content_length or 0) > MAX_REPLY_BYTES:
                    raise too_large(answer.content_length or 0)
                chunks, size = [], 0
                async for chunk in answer.content.iter_any():
                    size += len(chunk)
                    if size > MAX_REPLY_BYTES:
                        raise too_large(size)
                    chunks.append(chunk)
                status = answer.status
        except asyncio.TimeoutError as exc:  # aiohttp's own timeout errors derive from it
            raise DeadlineExceeded(self.timeout, self.url) from exc
        return decode_completion(status, b"".join(chunks))

    def _connection(self) -> http.client.HTTPConnection:
        kind = http.client.HTTPSConnection if self._parts.scheme == "https" else http.client.HTTPConnection
        return kind(self._parts.hostname or "", self._parts.port, timeout=self.timeout)

    def _exchange(self, connection: http.client.HTTPConnection, payload: bytes, deadline: float) -> tuple[int, bytes]:
        """One request and its whole answer, the socket shut down at ``deadline``.

        Whatever was read when the deadline fired is not an answer (a body without a
        length ends where the shutdown cut it): that is :class:`DeadlineExceeded`.
        """
        if connection.sock is None:
            connection.timeout = max(deadline - time.monotonic(), 0.001)
            connection.connect()
        entry = WATCHDOG.arm(deadline, connection.sock)
        try:
            connection.request("POST", self._parts.path, body=payload, headers=self.headers)
            answer = connection.getresponse()
            refuse_redirect(answer.status, answer.getheader("Location"))
            raw = answer.read(MAX_REPLY_BYTES + 1)
            if len(raw) > MAX_REPLY_BYTES:
                raise too_large(len(raw))
        except BaseException as exc:
            if WATCHDOG.disarm(entry):
                connection.close()
                raise DeadlineExceeded(self.timeout, self.url) from exc
            raise
        if WATCHDOG.disarm(entry):  # fired before the answer was read to its end
            connection.close()
            raise DeadlineExceeded(self.timeout, self.url)
        if not answer.isclosed():  # a body left unread: the connection cannot carry another call
            connection.close()
        return answer.status, raw

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
