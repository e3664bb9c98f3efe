"""A local OpenAI-compatible ``/v1/chat/completions`` server backed by a responder.

One asyncio event loop (aiohttp) serves every connection; each request waits the
configured latency, then takes the next fault from the schedule (see
:mod:`userbench_env.serve.faults`) and answers accordingly. Token usage in replies
is an estimate (about four characters per token) so cost accounting can be tested,
unless the responder reports the real counts (the local model does).
``GET /v1/models`` lists the server's model name (clients probe it).

Use it in-process (``with ChatServer(responder) as server: server.base_url``: a
background thread on 127.0.0.1 with a free port) or from an existing loop
(``await server.start()``), or as ``userbench serve``.
"""
from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import threading
import time
from collections import Counter
from typing import Any, Callable

from aiohttp import web

from userbench_env.serve.faults import FaultSchedule
from userbench_env.serve.responders import Reply, RequestError, Responder

CHARS_PER_TOKEN = 4


def estimate_tokens(text: str) -> int:
    """The token estimate the server reports for ``text`` (at least 1)."""
    return len(text) // CHARS_PER_TOKEN + 1


def _prompt_text(request: dict[str, Any]) -> str:
    return json.dumps(request.get("messages") or []) + json.dumps(request.get("tools") or [])


def completion_body(request: dict[str, Any], reply: Reply, number: int, bad_args: bool = False) -> dict[str, Any]:
    """An OpenAI chat-completion body for ``reply`` (tool-call arguments as JSON strings;
    ``bad_args`` corrupts them)."""
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [
            {
                "id": call.id or f"call_{number}_{i}",
                "type": "function",
                "function": {"name": call.name, "arguments": "{not json" if bad_args else json.dumps(call.arguments)},
            }
            for i, call in enumerate(reply.tool_calls)
        ]
    completion = reply.completion_tokens
    if completion is None:
        completion = estimate_tokens((reply.text or "") + json.dumps(message.get("tool_calls") or []))
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else estimate_tokens(_prompt_text(request))
    finish = reply.finish_reason or ("tool_calls" if reply.tool_calls else "stop")
    return {
        "id": f"chatcmpl-{number}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": request.get("model", "local"),
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish}
        ],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }


def _error(status: int, message: str, kind: str) -> web.Response:
    return web.json_response({"error": {"message": message, "type": kind, "code": status}}, status=status)


class ServerStats:
    """What the server saw: request count, in-flight peak, faults served, request bodies."""

    def __init__(self, record: bool) -> None:
        self.requests = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.faults: Counter[str] = Counter()
        self.bodies: list[dict[str, Any]] = []
        self.record = record


class ChatServer:
    """The local chat-completions server (see the module docstring).

    ``latency`` seconds before every answer; ``faults`` a schedule (or its text form);
    ``hang_seconds`` how long a ``hang`` fault holds the connection before giving up
    with HTTP 504; ``trickle_seconds`` the pause between the bytes of a ``trickle``
    fault's reply; ``record`` keeps every request body in ``stats.bodies``;
    ``model_name`` is the one model ``GET /v1/models`` lists (requests may name any);
    ``huge_bytes`` is the text length of a ``huge`` reply and ``redirect_to`` the URL a
    ``redirect`` fault points to (default: this server's own endpoint).
    A client that disconnects cancels its request's handler (and so an awaited responder).
    The trickling modes stop when the client leaves or after ``hang_seconds``.
    """

    def __init__(
        self,
        responder: Responder,
        latency: float = 0.0,
        faults: FaultSchedule | str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        hang_seconds: float = 300.0,
        trickle_seconds: float = 1.0,
        record: bool = True,
        model_name: str = "local",
        huge_bytes: int = 20 * 1024 * 1024,
        redirect_to: str | None = None,
    ) -> None:
        self.responder = responder
        self.model_name = model_name
        self.latency = latency
        self.faults = faults if isinstance(faults, FaultSchedule) else FaultSchedule.parse(faults)
        self.host = host
        self.port = port
        self.hang_seconds = hang_seconds
        self.trickle_seconds = trickle_seconds
        self.huge_bytes = huge_bytes
        self.redirect_to = redirect_to
        self.stats = ServerStats(record)
        self._runner: web.AppRunner | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL (``http://host:port/v1``)."""
        return f"http://{self.host}:{self.port}/v1"

    def _app(self) -> web.Application:
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/chat/completions", self._handle)
        app.router.add_post("/chat/completions", self._handle)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/models", self._models)
        return app

    async def _models(self, http_request: web.Request) -> web.Response:
        """The OpenAI model list: the one model this server answers as."""
        return web.json_response(
            {"object": "list", "data": [{"id": self.model_name, "object": "model", "created": 0, "owned_by": "userbench"}]}
        )

    async def start(self) -> None:
        """Start serving on the running loop; ``port`` is the bound port afterwards."""
        self._runner = web.AppRunner(self._app(), handler_cancellation=True, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port, backlog=1024)
        await site.start()
        self.port = self._runner.addresses[0][1]

    async def stop(self) -> None:
        """Stop serving (pending hangs are cancelled)."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    def run_until_interrupted(self, banner: Callable[["ChatServer"], str]) -> None:
        """Serve from this thread until Ctrl-C: start (an address that cannot be bound is a
        :class:`~userbench_env.errors.UserError`), print ``banner(self)``, then stop cleanly."""
        from userbench_env.errors import UserError

        async def main() -> None:
            try:
                await self.start()
            except OSError as exc:  # port taken, address not ours, no permission
                raise UserError(f"cannot listen on {self.host}:{self.port}: {exc.strerror or exc}") from exc
            print(banner(self), flush=True)
            try:
                await asyncio.Event().wait()
            finally:
                await self.stop()

        try:
            asyncio.run(main())
        except KeyboardInterrupt:
            pass

    def __enter__(self) -> "ChatServer":
        """Serve from a background thread with its own loop until the block exits."""
        loop = asyncio.new_event_loop()
        started = threading.Event()
        failure: list[BaseException] = []

        def run() -> None:
            asyncio.set_event_loop(loop)
            try:
                loop.run_until_complete(self.start())
            except BaseException as exc:  # reported to the starting thread
                failure.append(exc)
                started.set()
                return
            started.set()
            loop.run_forever()

        self._loop = loop
        self._thread = threading.Thread(target=run, name="userbench-serve", daemon=True)
        self._thread.start()
        started.wait()
        if failure:
            raise failure[0]
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop the background server and its thread."""
        if self._loop is None or self._thread is None:
            return
        asyncio.run_coroutine_threadsafe(self.stop(), self._loop).result(timeout=30)
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(timeout=30)
        self._loop.close()
        self._loop = self._thread = None

    async def _handle(self, http_request: web.Request) -> web.StreamResponse:
        stats = self.stats
        stats.requests += 1
        number = stats.requests
        stats.in_flight += 1
        stats.max_in_flight = max(stats.max_in_flight, stats.in_flight)
        try:
            return await self._answer(http_request, number)
        finally:
            stats.in_flight -= 1

    async def _answer(self, http_request: web.Request, number: int) -> web.StreamResponse:
        try:
            body = await http_request.json()
        except (json.JSONDecodeError, UnicodeDecodeError):
            return _error(400, "request body is not JSON", "invalid_request_error")
        if not isinstance(body, dict):
            return _error(400, "request body is not a JSON object", "invalid_request_error")
        if self.stats.record:
            self.stats.bodies.append(body)
        if body.get("stream"):
            return _error(400, "streaming is not supported by this server", "invalid_request_error")
        if self.latency > 0:
            await asyncio.sleep(self.latency)
        fault = self.faults.next()
        self.stats.faults[fault] += 1
        if fault.isdigit():
            kind = "rate_limit_error" if fault == "429" else "server_error"
            return _error(int(fault), f"injected fault {fault}", kind)
        if fault == "hang":
            await asyncio.sleep(self.hang_seconds)
            return _error(504, "injected hang gave up", "server_error")
        if fault == "malformed_json":
            return web.Response(status=200, text='{"id": "chatcmpl-broken", "choices": [', content_type="application/json")
        if fault == "garbage":
            return web.json_response({"unexpected": ["not", "a", "completion"], "choices": "nonsense"})
        if fault == "empty_choices":
            return web.json_response({**completion_body(body, Reply(text="unused"), number), "choices": []})
        if fault == "blank":
            return web.json_response(completion_body(body, Reply(text=""), number))
        hostile = await self._hostile(http_request, body, number, fault)
        if hostile is not None:
            return hostile
        try:
            reply = self.responder.reply(body)
            if inspect.isawaitable(reply):
                reply = await reply
        except RequestError as exc:
            return _error(400, str(exc), "invalid_request_error")
        if fault == "trickle":
            return await self._trickle(http_request, completion_body(body, reply, number))
        return web.json_response(completion_body(body, reply, number, bad_args=fault == "bad_tool_args"))

    async def _hostile(self, http_request: web.Request, body: dict[str, Any], number: int,
                       fault: str) -> web.StreamResponse | None:
        """The answer of a hostile mode (:mod:`userbench_env.serve.faults`), or ``None`` for another fault."""
        completion = completion_body(body, Reply(text="Hello."), number)
        message = completion["choices"][0]["message"]
        if fault == "null_content":
            message["content"] = None
        elif fault == "bad_tool_call":
            message["tool_calls"] = [{"id": "call_0", "type": "function"}]
        elif fault == "huge":
            message["content"] = "a" * self.huge_bytes
        elif fault.startswith("usage_"):
            completion["usage"]["prompt_tokens"] = {"usage_negative": -5, "usage_absurd": 1e300, "usage_fraction": 12.5}[fault]
        elif fault == "invalid_utf8":
            message["content"] = "PLACEHOLDER"
            raw = json.dumps(completion).encode("utf-8").replace(b"PLACEHOLDER", b"caf\xff\xfe")
            return web.Response(status=200, body=raw, content_type="application/json")
        elif fault == "redirect":
            raise web.HTTPTemporaryRedirect(self.redirect_to or f"{self.base_url}/chat/completions")
        elif fault == "trickle_unsized":
            head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n"
            return await self._raw(http_request, head + json.dumps(completion).encode("utf-8"), itertools.repeat(ord(" ")))
        elif fault == "trickle_headers":
            return await self._raw(http_request, b"HTTP/1.1 200 OK\r\n", itertools.cycle(b"X-Slow: a\r\n"))
        elif fault == "trickle_sse":
            head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
            event = b"data: " + json.dumps(completion).encode("utf-8") + b"\n\n"
            return await self._raw(http_request, head, itertools.cycle(event))
        else:
            return None
        return web.json_response(completion)

    async def _raw(self, http_request: web.Request, head: bytes, trickled: Any) -> web.StreamResponse:
        """Bytes on the bare connection, below HTTP framing: ``head`` at once, then the
        ints of ``trickled`` one byte per ``trickle_seconds`` until the client leaves or
        ``hang_seconds`` pass; then the connection is closed."""
        transport = http_request.transport
        assert transport is not None
        transport.write(head)
        give_up = time.monotonic() + self.hang_seconds
        for byte in trickled:
            if transport.is_closing() or time.monotonic() > give_up:
                break
            transport.write(bytes([byte]))
            await asyncio.sleep(self.trickle_seconds)
        transport.close()
        raise asyncio.CancelledError  # nothing more goes on this connection

    async def _trickle(self, http_request: web.Request, completion: dict[str, Any]) -> web.StreamResponse:
        """Send ``completion`` one byte per ``trickle_seconds`` (every read stays alive)."""
        raw = json.dumps(completion).encode("utf-8")
        response = web.StreamResponse(status=200, headers={"Content-Type": "application/json"})
        response.content_length = len(raw)
        await response.prepare(http_request)
        for i in range(len(raw)):
            await response.write(raw[i:i + 1])
            await asyncio.sleep(self.trickle_seconds)
        await response.write_eof()
        return response
