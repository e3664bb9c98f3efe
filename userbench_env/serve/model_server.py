"""The local model behind the chat server: a responder that generates with a real model,
and a managed server process that tests, benches and ``eval`` can start and stop.

:class:`ModelResponder` plugs an :class:`~userbench_env.serve.engines.Engine` into
:class:`~userbench_env.serve.server.ChatServer`: it renders the request as ChatML with
tools (:mod:`userbench_env.serve.chatml`), generates on a bounded pool of ``parallel``
worker threads (a request queues while every worker is busy; no batching), and parses
``<tool_call>`` blocks back. ``max_tokens`` (or ``max_completion_tokens``) is clamped
to ``max_tokens_cap`` (also the default when the request sets none). When the client
disconnects, aiohttp cancels the handler; the responder then sets the generation's
cancel event, so the worker stops at the next token (or never starts, if still queued).
Odd completions seen (``empty``, ``bad_tool_call``, ``unknown_tool``, ``length``,
``cancelled``) are counted in ``odd``; ``generating`` is how many workers are busy;
the tokens reported in usage, and the answered requests, are summed in ``served``.

:class:`LocalModelServer` runs ``userbench models serve`` as a child process on a free
port, waits until ``GET /v1/models`` answers, and stops the process on exit.
"""
from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from userbench_env.serve.chatml import STOP_STRINGS, parse_completion, render_prompt
from userbench_env.serve.engines import Engine, Generation, SamplingParams
from userbench_env.serve.responders import Reply, RequestError

#: the server-side cap on completion tokens unless ``--max-tokens-cap`` says otherwise
DEFAULT_MAX_TOKENS_CAP = 512


class ModelResponder:
    """Answers chat requests with ``engine`` on ``parallel`` workers (module docstring)."""

    def __init__(self, engine: Engine, parallel: int = 1, max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP) -> None:
        if parallel < 1 or max_tokens_cap < 1:
            raise ValueError("parallel and max_tokens_cap must be >= 1")
        self.engine = engine
        self.parallel = parallel
        self.max_tokens_cap = max_tokens_cap
        self.pool = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="userbench-model")
        self.odd: Counter[str] = Counter()
        self.served: Counter[str] = Counter()
        self.cancelled = 0
        self.generating = 0
        self._lock = threading.Lock()

    def params(self, request: dict[str, Any]) -> SamplingParams:
        """The sampling parameters of ``request``, max_tokens clamped to the cap."""
        asked = request.get("max_completion_tokens") or request.get("max_tokens") or self.max_tokens_cap
        stop = request.get("stop") or []
        stop = [stop] if isinstance(stop, str) else list(stop)
        try:
            return SamplingParams(
                max_tokens=min(int(asked), self.max_tokens_cap),
                temperature=float(request.get("temperature") if request.get("temperature") is not None else 1.0),
                top_p=float(request.get("top_p") if request.get("top_p") is not None else 1.0),
                seed=request.get("seed"),
                stop=list(STOP_STRINGS) + stop,
            )
        except (TypeError, ValueError) as exc:
            raise RequestError(f"bad sampling parameters: {exc}") from exc

    async def reply(self, request: dict[str, Any]) -> Reply:
        """Generate the reply to ``request`` on a worker; cancelling this stops the worker."""
        messages = request.get("messages")
        if not isinstance(messages, list) or not messages:
            raise RequestError("the request has no messages")
        tools = request.get("tools") or None
        try:
            prompt = render_prompt(messages, tools)
        except (ValueError, AttributeError, TypeError) as exc:
            raise RequestError(f"unreadable conversation: {exc}") from exc
        params = self.params(request)
        cancelled = threading.Event()
        loop = asyncio.get_running_loop()
        try:
            generation = await loop.run_in_executor(self.pool, self._generate, prompt, params, cancelled)
        except asyncio.CancelledError:
            cancelled.set()
            self.cancelled += 1
            raise
        parsed = parse_completion(generation.text, tools)
        self.odd.update(parsed.odd)
        self.served.update(requests=1, prompt_tokens=generation.prompt_tokens, completion_tokens=generation.completion_tokens)
        finish = "tool_calls" if parsed.tool_calls else ("length" if generation.finish_reason == "length" else "stop")
        return Reply(
            text=parsed.text, tool_calls=parsed.tool_calls, prompt_tokens=generation.prompt_tokens,
            completion_tokens=generation.completion_tokens, finish_reason=finish,
        )

    def _generate(self, prompt: str, params: SamplingParams, cancelled: threading.Event) -> Generation:
        """The engine's generation on a worker thread (``generating`` counts those running)."""
        with self._lock:
            self.generating += 1
        try:
            generation = self.engine.generate(prompt, params, cancelled)
        finally:
            with self._lock:
                self.generating -= 1
        if generation.finish_reason != "stop":
            with self._lock:
                self.odd[generation.finish_reason] += 1
        return generation

    def close(self) -> None:
        """Stop the workers (running generations are cancelled by their requests)."""
        self.pool.shutdown(wait=False, cancel_futures=True)


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port that was free a moment ago."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def wait_until_answering(base_url: str, timeout: float, process: subprocess.Popen | None = None) -> None:
    """Poll ``GET {base_url}/models`` until it answers 200; ``TimeoutError`` after
    ``timeout`` s, ``RuntimeError`` (with the exit code) if ``process`` dies first."""
    deadline = time.monotonic() + timeout
    while True:
        if process is not None and process.poll() is not None:
            raise RuntimeError(f"the model server exited with code {process.returncode} before answering")
        try:
            with urllib.request.urlopen(f"{base_url}/models", timeout=5) as answer:
                if answer.status == 200:
                    return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise TimeoutError(f"the model server at {base_url} did not answer within {timeout:.0f} s")
        time.sleep(0.5)


class LocalModelServer:
    """``userbench models serve`` as a child process (module docstring).

    ``with LocalModelServer(parallel=4) as server: server.base_url``; ``log`` is where
    the server's output goes (default: discarded); ``model_dir`` serves a saved
    checkpoint directory instead of a GGUF file, under ``model_name`` if given.
    """

    def __init__(
        self,
        gguf: str | Path | None = None,
        engine: str = "auto",
        parallel: int = 1,
        max_tokens_cap: int = DEFAULT_MAX_TOKENS_CAP,
        startup_timeout: float = 600.0,
        log: str | Path | None = None,
        model_dir: str | Path | None = None,
        model_name: str | None = None,
    ) -> None:
        self.command = [sys.executable, "-m", "userbench_env.cli", "models", "serve", "--engine", engine,
                        "--parallel", str(parallel), "--max-tokens-cap", str(max_tokens_cap)]
        if gguf is not None:
            self.command += ["--gguf", str(gguf)]
        if model_dir is not None:
            self.command += ["--model-dir", str(model_dir)]
        if model_name is not None:
            self.command += ["--model-name", model_name]
        self.startup_timeout = startup_timeout
        self.log = log
        self.port = 0
        self.process: subprocess.Popen | None = None

    @property
    def base_url(self) -> str:
        """The OpenAI-style base URL of the running server."""
        return f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> "LocalModelServer":
        """Start the process and wait until it answers (it is stopped if it never does)."""
        self.port = free_port()
        out = open(self.log, "ab") if self.log else subprocess.DEVNULL
        self.process = subprocess.Popen(self.command + ["--port", str(self.port)], stdout=out, stderr=subprocess.STDOUT)
        if self.log:
            out.close()
        try:
            wait_until_answering(self.base_url, self.startup_timeout, self.process)
        except BaseException:
            self.__exit__()
            raise
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop the process (terminate, then kill after 10 s)."""
        if self.process is None:
            return
        self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.process = None
