"""The web surface's network policy in real Chromium: the task's own page and assets
load; every request to any other host (fetch, img, script, WebSocket) is aborted and
recorded, proven against a live local HTTP server that must see no request; files
outside the site folder are never served; a task's declared page server works."""
from __future__ import annotations

import http.server
import sys
import threading
from pathlib import Path
from typing import ClassVar

import pytest

from userbench_env.surfaces.tasks import SurfaceTask, TraitCheck
from userbench_env.surfaces.web.backend import WebBackend
from userbench_env.surfaces.web.spec import WebOutput, WebSpec

pytestmark = pytest.mark.browser

PAGE = """<!DOCTYPE html><html><head><title>Offline</title><link rel="stylesheet" href="style.css">
<script src="https://cdn.example.org/lib.js"></script></head><body><h1>Own page</h1>
<img src="http://example.com/pixel.png" alt="">
<img src="OUTSIDE/tracker.gif" alt="">
<ul id="cart-items"><li data-id="a1">A</li></ul><div class="item" data-id="a1" data-flag="true">A</div>
<script>
window.__net = {};
fetch('OUTSIDE/data.json').then(() => { window.__net.outside = 'reached'; }).catch(() => { window.__net.outside = 'blocked'; });
fetch('local.json').then(r => r.json()).then(j => { window.__net.local = j.ok; });
fetch('..%2fsecret.txt').then(r => { window.__net.secret = r.status; });
const ws = new WebSocket('ws://example.net/socket');
ws.onmessage = () => { window.__net.ws_message = true; };
ws.onclose = () => { window.__net.ws = 'closed'; };
ws.onerror = () => { window.__net.ws = 'closed'; };
</script></body></html>"""


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        type(self).hits.append(self.path)
        self.send_response(200)
        self.send_header("Access-Control-Allow-Origin", "*")
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def outside_server():
    """A real HTTP server standing for 'the internet': it must receive nothing."""
    _Recorder.hits = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def _task(site: Path, server: list[str] | None = None) -> SurfaceTask:
    return SurfaceTask(
        id="net-test", source="bundled", surface="web", instruction="# Instruction\n\nLook at the page.\n",
        checks=[TraitCheck(dimension_id="x", value="y", rule="avoid", label="flag")],
        web=WebSpec(site=str(site), server=server,
                    outputs=[WebOutput(kind="dom", selector="#cart-items li", attr="data-id", key="orderedItemIds")]),
    )


def _site(tmp_path: Path, outside: str) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(PAGE.replace("OUTSIDE", outside))
    (site / "style.css").write_text("h1 { color: rgb(200, 0, 0); }")
    (site / "local.json").write_text('{"ok": true}')
    (tmp_path / "secret.txt").write_text("never served")
    return site


def _settle(backend: WebBackend) -> dict:
    async def wait(page):
        await page.wait_for_function(
            "() => window.__net.outside && window.__net.local !== undefined && window.__net.secret && window.__net.ws",
            timeout=10_000)
        return await page.evaluate("() => ({...window.__net, h1: getComputedStyle(document.querySelector('h1')).color})")
    return backend.page_call(wait)


def test_outside_requests_are_blocked(tmp_path: Path, outside_server: str) -> None:
    backend = WebBackend()
    try:
        obs = backend.reset(_task(_site(tmp_path, outside_server)), None, 0)
        net = _settle(backend)
        assert "Own page" in obs
        assert net["local"] is True and net["h1"] == "rgb(200, 0, 0)"  # own page and assets load
        assert net["outside"] == "blocked" and net["secret"] == 404
        assert net["ws"] == "closed" and "ws_message" not in net
        blocked = backend.blocked
        for url in ("https://cdn.example.org/lib.js", "http://example.com/pixel.png", f"{outside_server}/tracker.gif",
                    f"{outside_server}/data.json", "ws://example.net/socket"):
            assert url in blocked
        assert _Recorder.hits == []
        assert backend.artifact() == {"orderedItemIds": ["a1"]}
    finally:
        backend.close()


SERVER = """import http.server, json, sys
srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
print(json.dumps({"port": srv.server_address[1]}), flush=True)
print("serving", flush=True)
srv.serve_forever()
"""


def test_declared_page_server_is_used_and_still_fenced(tmp_path: Path, outside_server: str) -> None:
    site = _site(tmp_path, outside_server)
    (site / "server.py").write_text(SERVER)
    backend = WebBackend()
    try:
        backend.reset(_task(site, server=[sys.executable, "server.py"]), None, 0)
        net = _settle(backend)
        assert net["local"] is True and net["outside"] == "blocked"
        assert backend._site.server_origin and backend._site.url.startswith("http://127.0.0.1:")
        assert _Recorder.hits == []
        server = backend._site._server
    finally:
        backend.close()
    assert server.poll() is not None  # the page server stops with the episode


def test_silent_page_server_is_rejected_in_time(tmp_path: Path, monkeypatch) -> None:
    """A server that never prints its port cannot stall the reset; it is killed."""
    from userbench_env.surfaces.web import site as site_module

    monkeypatch.setattr(site_module, "SERVER_TIMEOUT_S", 1.0)
    site = _site(tmp_path, "http://127.0.0.1:9")
    (site / "server.py").write_text("import os, time\nopen('pid', 'w').write(str(os.getpid()))\ntime.sleep(600)\n")
    with pytest.raises(RuntimeError, match="did not print its port as JSON within 1 s"):
        WebBackend().reset(_task(site, server=[sys.executable, "server.py"]), None, 0)
    assert not Path(f"/proc/{(site / 'pid').read_text()}").exists()


def test_page_server_without_port_line_is_rejected(tmp_path: Path) -> None:
    site = _site(tmp_path, "http://127.0.0.1:9")
    (site / "server.py").write_text("print('hello')\n")
    with pytest.raises(RuntimeError, match="did not print its port"):
        WebBackend().reset(_task(site, server=[sys.executable, "server.py"]), None, 0)
