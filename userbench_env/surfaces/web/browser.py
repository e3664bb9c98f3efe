"""One headless Chromium per process, driven by Playwright from a private thread.

Playwright objects belong to the event loop that made them, and its sync API refuses
to run inside a running asyncio loop (the episode runner's). So the browser lives on
its own daemon thread with its own loop; :meth:`BrowserHost.run` submits a coroutine
and waits for its result, from any thread. :func:`get_browser` is the lazy,
thread-safe, fork-aware singleton (a forked worker gets its own browser); the browser
closes at interpreter exit.

Chromium is Debian's ``/usr/bin/chromium`` unless ``$USERBENCH_CHROMIUM`` names
another executable; with neither, a Playwright-managed browser is used if installed.
Browsers are never downloaded.

The browser is closed to the network at its own level, below the per-request fence of
:mod:`.site` (which sees only requests, not the sockets Chromium opens by itself):

* every connection goes through a **dead proxy**, a port on 127.0.0.1 that the host
  holds bound but never listens on (so it refuses, and no other process can take it);
  Playwright adds ``--proxy-bypass-list=<-loopback>``, so loopback is proxied too. Pages
  still load because our route handler answers their requests before any socket is
  needed. This is what stops the bare TCP preconnect Chromium opens on a navigation.
* WebRTC may use no UDP that does not go through the proxy
  (``--webrtc-ip-handling-policy=disable_non_proxied_udp``); with a dead HTTP proxy
  that leaves WebRTC no path at all. (Measured: the similar-looking
  ``--force-webrtc-ip-handling-policy`` switch changes nothing in Chromium 156.)
* host names never resolve (``--host-resolver-rules``): a second lock, since with the
  proxy alone no DNS query left in an strace of hostile pages either.

``tests/test_web_sandbox.py`` proves it with hostile pages against live UDP and TCP
listeners: zero packets, where the per-request fence alone let 56-62 UDP datagrams
(WebRTC) and 9 TCP connections (one per navigation, plus WebRTC's TCP candidates)
through, over repeated runs.
"""
from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import os
import shutil
import socket
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from userbench_env.errors import MissingDependency, apt_hint, require_module

CHROMIUM_ENV = "USERBENCH_CHROMIUM"
FEATURE = "UserBench/Web-v0 (a real browser)"

#: headless flags: no GPU, no background or component traffic, no QUIC (root needs no sandbox);
#: WebRTC only through the (dead) proxy; no host name resolves (see the module docstring)
LAUNCH_ARGS = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-quic", "--disable-dev-shm-usage",
    "--webrtc-ip-handling-policy=disable_non_proxied_udp", "--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1",
)

T = TypeVar("T")


def chromium_path() -> str | None:
    """The Chromium executable: ``$USERBENCH_CHROMIUM``, Debian's, or ``None`` (Playwright's own)."""
    configured = os.environ.get(CHROMIUM_ENV)
    if configured:
        if not os.path.isfile(configured):
            raise FileNotFoundError(f"{CHROMIUM_ENV}={configured} is not a file")
        return configured
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


class DeadProxy:
    """A local port that refuses every connection: bound on 127.0.0.1, never listening.

    Holding the bound socket keeps the port ours for as long as the browser lives, so
    no other process can start answering on it.
    """

    def __init__(self) -> None:
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"

    def close(self) -> None:
        """Release the port."""
        self._sock.close()


class BrowserHost:
    """A Chromium browser on a private event-loop thread (see the module docstring)."""

    def __init__(self) -> None:
        os.environ.setdefault("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1")
        self.pid = os.getpid()
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="userbench-chromium", daemon=True)
        self._thread.start()
        self._playwright: Any = None
        self.browser: Any = None
        self._dead = DeadProxy()
        try:
            self.run(self._launch())
        except BaseException:
            self.close()
            raise

    async def _launch(self) -> None:
        require_module("playwright", FEATURE, "web")
        from playwright.async_api import async_playwright

        self._playwright = await async_playwright().start()
        executable = chromium_path()
        if executable is None and not os.path.isfile(self._playwright.chromium.executable_path):
            raise MissingDependency(f"{FEATURE} needs Chromium, which is not installed: {apt_hint('chromium')} "
                                    f"(or point {CHROMIUM_ENV} at a Chromium executable)")
        self.browser = await self._playwright.chromium.launch(
            headless=True, executable_path=executable, args=list(LAUNCH_ARGS), proxy={"server": self._dead.url})

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None = 120.0) -> T:
        """Run ``coro`` on the browser's loop and return its result (re-raising its error)."""
        return self.submit(coro).result(timeout)

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Start ``coro`` on the browser's loop without waiting; returns its future."""
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

    @property
    def alive(self) -> bool:
        """Whether the loop runs and the browser is connected."""
        return self._thread.is_alive() and self.browser is not None and self.browser.is_connected()

    def close(self) -> None:
        """Close the browser and Playwright, then stop the loop (idempotent)."""
        if not self._thread.is_alive():
            return

        async def shutdown() -> None:
            for closer in (getattr(self.browser, "close", None), getattr(self._playwright, "stop", None)):
                if closer is not None:
                    with contextlib.suppress(Exception):  # already gone is fine at shutdown
                        await closer()

        try:
            self.run(shutdown(), timeout=30.0)
        finally:
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=5.0)
            self.browser = None
            self._dead.close()


_lock = threading.Lock()
_host: BrowserHost | None = None


def get_browser() -> BrowserHost:
    """This process's browser, launched on first use (relaunched if it died or we forked)."""
    global _host
    with _lock:
        if _host is None or _host.pid != os.getpid() or not _host.alive:
            if _host is not None and _host.pid == os.getpid():
                _host.close()
            _host = BrowserHost()
        return _host


def close_browser() -> None:
    """Close this process's browser, if one was started here."""
    global _host
    with _lock:
        if _host is not None and _host.pid == os.getpid():
            _host.close()
        _host = None


atexit.register(close_browser)
