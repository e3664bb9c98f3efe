"""Where a task's page comes from, and the network policy around it.

Every page is served at a private origin (:data:`ORIGIN`) through Playwright's request
interception, never from ``file://`` (whose requests interception cannot see): a
request for that origin is answered from the site folder (or our rendered template),
a request to the task's own page server (when ``web.json`` declares one) goes through,
and **every other request is aborted** and recorded in :attr:`Site.blocked`.
WebSockets are refused the same way.
"""
from __future__ import annotations

import json
import mimetypes
import subprocess
import threading
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from userbench_env.surfaces.tasks import SurfaceTask

#: the private origin a task's own page is served from (``.test`` never resolves)
ORIGIN = "http://site.userbench.test"


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
        elif self.root is None or not (self.root / spec.entry).is_file():
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
        return (self.root / self.entry).read_text(encoding="utf-8")

    def _start_server(self, command: list[str]) -> None:
        """Start the task's page server in its site folder; it prints ``{"port": N}`` first
        (the rest of its output is drained and dropped)."""
        self._server = subprocess.Popen(command, cwd=self.root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                        text=True)
        assert self._server.stdout is not None
        first = self._server.stdout.readline()
        try:
            port = int(json.loads(first)["port"])
        except (ValueError, KeyError, TypeError) as exc:
            self.close()
            raise RuntimeError(f"page server {command} did not print its port as JSON: {first!r}") from exc
        self.server_origin = f"http://127.0.0.1:{port}"
        threading.Thread(target=self._server.stdout.read, name="page-server-drain", daemon=True).start()

    async def handle(self, route: Any) -> None:
        """Playwright route handler: serve our origin, pass the page server, abort the rest."""
        url = route.request.url
        if self.server_origin and (url == self.server_origin or url.startswith(self.server_origin + "/")):
            await route.continue_()
            return
        if url.startswith(ORIGIN + "/") or url == ORIGIN:
            body, status = self._file(urlsplit(url).path)
            ctype = mimetypes.guess_type(urlsplit(url).path)[0] or "text/html"
            await route.fulfill(status=status, body=body, content_type=ctype)
            return
        self.blocked.append(url)
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

    async def block_websocket(self, ws: Any) -> None:
        """WebSocket route handler: record, never connect, close the page's end."""
        self.blocked.append(ws.url)
        await ws.close()

    def close(self) -> None:
        """Stop the page server, if any."""
        if self._server is not None:
            self._server.kill()
            self._server.wait(timeout=5)
            if self._server.stdout:
                self._server.stdout.close()
            self._server = None
