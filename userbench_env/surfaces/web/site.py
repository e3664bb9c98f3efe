"""Where a task's page comes from, and the network policy around it.

Every page is served at a private origin (:data:`ORIGIN`) through Playwright's request
interception, never from ``file://`` (whose requests interception cannot see): a
request for that origin is answered from the site folder (or our rendered template),
a request to the task's own page server (when ``web.json`` declares one) is fetched by
this handler and its answer passed on, and **every other request is refused** and
recorded in :attr:`Site.blocked`: a sub-resource is aborted, and a navigation (link,
``location``, ``window.open``, meta refresh) gets ``204 No Content``, which leaves the
page where it was. WebSockets are refused the same way. Nothing reaches the network
from the browser itself: it only knows a dead proxy (:mod:`.browser`), and the backend
closes every popup.

The page server is the task's code: it runs with a scrubbed environment in its own
process group, killed with the episode (:mod:`userbench_env.surfaces.sandbox`).
"""
from __future__ import annotations

import asyncio
import contextlib
import json
import mimetypes
import subprocess
import threading
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from userbench_env.surfaces.sandbox import inside, kill_group, scrubbed_env, spawn
from userbench_env.surfaces.tasks import SurfaceTask

#: the private origin a task's own page is served from (``.test`` never resolves)
ORIGIN = "http://site.userbench.test"
#: how many refused URLs an episode records
MAX_BLOCKED = 1000
#: bounds on a page server's start (its port line) and its answer to one request
SERVER_TIMEOUT_S, SERVER_MAX_BYTES = 30.0, 50 * 2**20
#: request headers not forwarded to the page server (hop-by-hop, or set by urllib)
_DROPPED_HEADERS = {"host", "connection", "content-length", "transfer-encoding", "accept-encoding"}


class Site:
    """One episode's page: its files (or rendered HTML), optional server, blocked log."""

    def __init__(self, task: SurfaceTask) -> None:
        spec = task.web
        if spec is None:
            raise ValueError(f"task {task.id} has no web spec (solution/web.json, input/site or page data)")
        self.root: Path | None = Path(spec.site) if spec.site else None
        self.html: str | None = None
        if spec.page is not None:
            from userbench_env.surfaces.web.templates import render_page

            self.html = render_page(spec.page)
        elif self.root is None or not inside(self.root, spec.entry, "web.json entry").is_file():
            raise FileNotFoundError(f"task {task.id}: no page at {self.root}/{spec.entry}")
        self.entry = spec.entry
        self.blocked: list[str] = []
        self._server: subprocess.Popen[str] | None = None
        self.server_origin: str | None = None
        if spec.server:
            self._start_server(spec.server)

    @property
    def url(self) -> str:
        """The page's start URL."""
        return f"{self.server_origin or ORIGIN}/{self.entry}"

    def served_html(self) -> str:
        """The HTML as served (label attributes are read from this, never from the live DOM)."""
        if self.html is not None:
            return self.html
        assert self.root is not None
        return inside(self.root, self.entry, "web.json entry").read_text(encoding="utf-8")

    def _start_server(self, command: list[str]) -> None:
        """Start the task's page server in its site folder (scrubbed environment, own
        process group); it prints ``{"port": N}`` first, within ``SERVER_TIMEOUT_S`` (the
        rest of its output is drained and dropped)."""
        self._server = spawn(command, self.root or ".", scrubbed_env(), stdin=subprocess.DEVNULL,
                             stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, errors="replace")
        stdout = self._server.stdout
        assert stdout is not None
        lines: list[str] = []
        reader = threading.Thread(target=lambda: lines.append(stdout.readline(4096)), daemon=True)
        reader.start()
        reader.join(SERVER_TIMEOUT_S)
        first = lines[0] if lines else ""
        try:
            port = int(json.loads(first)["port"])
            if not 0 < port < 65536:
                raise ValueError(port)
        except (ValueError, KeyError, TypeError, RecursionError) as exc:
            self.close()
            raise RuntimeError(f"page server {command} did not print its port as JSON within "
                               f"{SERVER_TIMEOUT_S:g} s: {first[:200]!r}") from exc
        self.server_origin = f"http://127.0.0.1:{port}"
        threading.Thread(target=_drain, args=(stdout,), name="page-server-drain", daemon=True).start()

    async def handle(self, route: Any) -> None:
        """Playwright route handler: serve our origin, relay the page server, refuse the rest."""
        request = route.request
        url = request.url
        if self.server_origin and (url == self.server_origin or url.startswith(self.server_origin + "/")):
            status, headers, body = await asyncio.to_thread(
                _relay, url, request.method, request.headers, request.post_data_buffer)
            await route.fulfill(status=status, headers=headers, body=body)
            return
        if url.startswith(ORIGIN + "/") or url == ORIGIN:
            body, status = self._file(urlsplit(url).path)
            ctype = mimetypes.guess_type(urlsplit(url).path)[0] or "text/html"
            await route.fulfill(status=status, body=body, content_type=ctype)
            return
        self._refused(url)
        if request.is_navigation_request():
            await route.fulfill(status=204)  # a navigation answered "no content" stays on the page
        else:
            await route.abort("blockedbyclient")

    def _file(self, path: str) -> tuple[bytes, int]:
        """The bytes for a path under our origin, or a 404 (never outside the site folder)."""
        rel = unquote(path).lstrip("/") or self.entry
        if self.html is not None:
            return (self.html.encode(), 200) if rel == self.entry else (b"not found", 404)
        assert self.root is not None
        root = self.root.resolve()
        target = (root / rel).resolve()
        if target.is_file() and target.is_relative_to(root):
            return target.read_bytes(), 200
        return b"not found", 404

    def _refused(self, url: str) -> None:
        """Record a refused URL (the first :data:`MAX_BLOCKED`, each cut at 2,000 characters:
        a page looping over requests cannot grow the log without bound)."""
        if len(self.blocked) < MAX_BLOCKED:
            self.blocked.append(url[:2000])

    async def block_websocket(self, ws: Any) -> None:
        """WebSocket route handler: record, never connect, close the page's end."""
        self._refused(ws.url)
        await ws.close()

    def close(self) -> None:
        """Stop the page server, if any."""
        if self._server is not None:
            kill_group(self._server)
            if self._server.stdout:
                self._server.stdout.close()
            self._server = None


def _drain(stream: Any) -> None:
    """Read ``stream`` to its end, keeping nothing (a stream closed under us ends it too)."""
    with contextlib.suppress(ValueError, OSError):
        while stream.read(65536):
            pass


class _NoRedirects(urllib.request.HTTPRedirectHandler):
    """Hand redirects back to the browser (whose next request meets the fence again)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None


#: direct to 127.0.0.1: no proxy from our environment, no redirect followed
_OPENER = urllib.request.build_opener(urllib.request.ProxyHandler({}), _NoRedirects())


def _relay(url: str, method: str, headers: dict[str, str], body: bytes | None) -> tuple[int, dict[str, str], bytes]:
    """One request to the task's page server on 127.0.0.1: (status, headers, body).

    A body over ``SERVER_MAX_BYTES`` is cut there; a server that does not answer within
    ``SERVER_TIMEOUT_S`` gives a 504.
    """
    sent = {k: v for k, v in headers.items() if k.lower() not in _DROPPED_HEADERS}
    req = urllib.request.Request(url, data=body, headers=sent, method=method)
    try:
        response = _OPENER.open(req, timeout=SERVER_TIMEOUT_S)
    except urllib.error.HTTPError as exc:  # 3xx/4xx/5xx are answers too
        response = exc
    except (OSError, ValueError) as exc:
        return 504, {"content-type": "text/plain"}, f"page server unreachable: {exc}".encode()
    with response:
        try:
            data = response.read(SERVER_MAX_BYTES)
        except OSError as exc:
            return 504, {"content-type": "text/plain"}, f"page server failed: {exc}".encode()
        kept = {k: v for k, v in response.headers.items() if k.lower() not in _DROPPED_HEADERS}
        return response.status, kept, data
