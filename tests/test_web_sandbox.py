"""Web-v0's sandbox at the browser level, proven with hostile pages and live listeners.

A UDP and a TCP listener on 127.0.0.1 stand for "the outside". Our own hostile pages
(served as task sites through the real backend and real Chromium) aim everything they
can at them: WebRTC (STUN and TURN servers, a remote host candidate), link clicks,
``location.href``, ``window.open``, meta refresh, preconnect and DNS-prefetch hints,
fetch, images, WebSocket, EventSource, beacons and WebTransport. The listeners must
see zero packets and zero connections; a Python probe first proves they count. A
task's page server runs scrubbed, is reached only through our handler, and dies whole
with its episode.
"""
from __future__ import annotations

import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest

from userbench_env.surfaces.tasks import SurfaceTask, TraitCheck
from userbench_env.surfaces.web.backend import WebBackend
from userbench_env.surfaces.web.site import MAX_BLOCKED
from userbench_env.surfaces.web.spec import WebOutput, WebSpec

pytestmark = pytest.mark.browser

#: how long each page gets to try (ICE gathering and STUN retransmits start within ~1 s)
SETTLE_S = 3.0


class Listeners:
    """A UDP and a TCP socket on 127.0.0.1 counting what arrives."""

    def __init__(self) -> None:
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.tcp = socket.socket()
        self.tcp.bind(("127.0.0.1", 0))
        self.tcp.listen(64)
        self.udp_port, self.tcp_port = self.udp.getsockname()[1], self.tcp.getsockname()[1]
        self.datagrams: list[bytes] = []
        self.connections = 0
        self._stop = False
        for target in (self._read_udp, self._accept_tcp):
            threading.Thread(target=target, daemon=True).start()

    def _read_udp(self) -> None:
        self.udp.settimeout(0.2)
        while not self._stop:
            try:
                self.datagrams.append(self.udp.recv(65536))
            except OSError:
                continue

    def _accept_tcp(self) -> None:
        self.tcp.settimeout(0.2)
        while not self._stop:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                continue
            self.connections += 1
            conn.close()

    @property
    def seen(self) -> int:
        """Datagrams plus connections received so far."""
        return len(self.datagrams) + self.connections

    def close(self) -> None:
        self._stop = True
        time.sleep(0.3)
        self.udp.close()
        self.tcp.close()


RTC = """<script>
const servers = [{urls: 'stun:127.0.0.1:@UDP@'}, {urls: 'turn:127.0.0.1:@UDP@', username: 'u', credential: 'p'},
                 {urls: 'turn:127.0.0.1:@TCP@?transport=tcp', username: 'u', credential: 'p'}];
async function attack() {
  const Ctor = window.RTCPeerConnection || window.webkitRTCPeerConnection;
  if (!Ctor) { window.__state = 'no-rtc'; return; }
  const pc = new Ctor({iceServers: servers, iceTransportPolicy: 'all'});
  pc.createDataChannel('x');
  await pc.setLocalDescription(await pc.createOffer());
  const sdp = pc.localDescription.sdp.replace(/a=setup:actpass/g, 'a=setup:active')
    .replace(/a=ice-ufrag:.*/g, 'a=ice-ufrag:abcd').replace(/a=ice-pwd:.*/g, 'a=ice-pwd:abcdefghijklmnopqrstuvwx')
    + 'a=candidate:1 1 udp 2122260223 127.0.0.1 @UDP@ typ host\\r\\n'
    + 'a=candidate:2 1 tcp 1518280447 127.0.0.1 @TCP@ typ host tcptype passive\\r\\n';
  await pc.setRemoteDescription({type: 'answer', sdp});
  window.__state = 'rtc-started';
}
attack().catch(e => { window.__state = 'rtc-error: ' + e; });
</script>"""

PAGES = {
    "rtc.html": "<h1>rtc</h1>" + RTC,
    "link.html": '<h1>link</h1><a id="out" href="http://127.0.0.1:@TCP@/link" style="font-size:40px">go out</a>',
    "location.html": "<h1>location</h1><script>setTimeout(() => { location.href = 'http://127.0.0.1:@TCP@/loc'; }, 100);</script>",
    "inline.html": "<h1>inline</h1><script>location.href = 'http://127.0.0.1:@TCP@/inline';</script><p>cut here</p>",
    "open.html": "<h1>open</h1><script>window.open('http://127.0.0.1:@TCP@/open');</script>"
                 '<button id="out" onclick="window.open(\'http://127.0.0.1:@TCP@/open2\')">open</button>',
    "meta.html": '<meta http-equiv="refresh" content="0; url=http://127.0.0.1:@TCP@/meta"><h1>meta</h1>',
    "hints.html": '<link rel="preconnect" href="http://127.0.0.1:@TCP@"><link rel="dns-prefetch" href="http://outside.example">'
                  '<link rel="prefetch" href="http://127.0.0.1:@TCP@/prefetch"><h1>hints</h1>',
    "subresources.html": """<h1>subresources</h1><img src="http://127.0.0.1:@TCP@/img.png">
<iframe src="http://127.0.0.1:@TCP@/frame"></iframe><script>
fetch('http://127.0.0.1:@TCP@/fetch').catch(() => {});
try { new WebSocket('ws://127.0.0.1:@TCP@/ws'); } catch (e) {}
try { new EventSource('http://127.0.0.1:@TCP@/sse'); } catch (e) {}
try { navigator.sendBeacon('http://127.0.0.1:@TCP@/beacon', 'x'); } catch (e) {}
try { new WebTransport('https://127.0.0.1:@UDP@/wt').ready.catch(() => {}); } catch (e) {}
</script>""",
}


def _task(site: Path, entry: str) -> SurfaceTask:
    return SurfaceTask(
        id=f"hostile-{entry}", source="bundled", surface="web", instruction="# Instruction\n\nLook.\n",
        checks=[TraitCheck(dimension_id="x", value="y", rule="avoid", label="flag")],
        web=WebSpec(site=str(site), entry=entry,
                    outputs=[WebOutput(kind="dom", selector="#cart-items li", attr="data-id", key="orderedItemIds")]),
    )


@pytest.fixture()
def listeners():
    found = Listeners()
    yield found
    found.close()


@pytest.fixture()
def hostile_site(tmp_path: Path, listeners: Listeners) -> Path:
    site = tmp_path / "site"
    site.mkdir()
    for name, body in PAGES.items():
        html = body.replace("@UDP@", str(listeners.udp_port)).replace("@TCP@", str(listeners.tcp_port))
        (site / name).write_text(f"<!DOCTYPE html><html><body>{html}</body></html>")
    return site


def test_listeners_count_a_real_probe(listeners: Listeners) -> None:
    """The control: the listeners do see a packet and a connection when one is sent."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        udp.sendto(b"probe", ("127.0.0.1", listeners.udp_port))
    socket.create_connection(("127.0.0.1", listeners.tcp_port)).close()
    deadline = time.monotonic() + 5
    while listeners.seen < 2 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert listeners.datagrams == [b"probe"] and listeners.connections == 1


async def _page_state(page) -> tuple[str | None, int, str | None]:
    """(the page's h1, how many pages its context has, the page's ``__state``)."""
    heading = await page.evaluate("() => document.querySelector('h1')?.textContent ?? null")
    return heading, len(page.context.pages), await page.evaluate("() => window.__state ?? null")


def test_hostile_pages_reach_nothing(hostile_site: Path, listeners: Listeners) -> None:
    backend = WebBackend(prewarm=False)
    seen: dict[str, int] = {}
    try:
        for entry in PAGES:
            before = listeners.seen
            obs = backend.reset(_task(hostile_site, entry), None, 0)
            assert entry.removesuffix(".html") in obs  # the page itself loaded
            if entry in ("link.html", "open.html"):  # a real mouse click, as an agent would do it
                backend.page_call(lambda page: page.click("#out", timeout=5000))
            time.sleep(SETTLE_S)
            seen[entry] = listeners.seen - before
            heading, pages, state = backend.page_call(_page_state)
            assert heading == entry.removesuffix(".html") and pages == 1  # still on the task's page, popups closed
            if entry == "rtc.html":
                assert state == "rtc-started"  # WebRTC really ran: the sandbox, not the page, stopped it
            elif entry != "hints.html":
                assert any(f"127.0.0.1:{listeners.tcp_port}" in url for url in backend.blocked), (entry, backend.blocked)
    finally:
        backend.close()
    assert seen == dict.fromkeys(PAGES, 0), json.dumps(seen)
    assert listeners.datagrams == [] and listeners.connections == 0


SERVER = """import http.server, json, os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
page = ("<h1>served</h1><pre id='env'>" + " ".join(sorted(os.environ)) + "</pre><pre id='child'>%d</pre>" % child.pid)

class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("content-type", "text/html")
        self.end_headers()
        self.wfile.write(page.encode())

    def log_message(self, *args):
        pass

srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
print(json.dumps({"port": srv.server_address[1]}), flush=True)
srv.serve_forever()
"""


def test_page_server_runs_scrubbed_and_dies_whole_with_the_episode(tmp_path: Path, monkeypatch) -> None:
    """A task's page server is the task's code: no secrets in its environment, served only
    through our handler (the browser's own sockets go to the dead proxy), and nothing it
    started survives the episode."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-secret")
    site = tmp_path / "site"
    site.mkdir()
    (site / "server.py").write_text(SERVER)
    (site / "index.html").write_text("<h1>the file, not the server's page</h1>")
    task = _task(site, "index.html").model_copy(
        update={"web": WebSpec(site=str(site), server=[sys.executable, "server.py"])})
    backend = WebBackend(prewarm=False)
    try:
        obs = backend.reset(task, None, 0)
        env = backend.page_call(lambda page: page.inner_text("#env")).split()
        child = int(backend.page_call(lambda page: page.inner_text("#child")))
        assert "served" in obs and "PATH" in env and "OPENAI_API_KEY" not in env
        assert Path(f"/proc/{child}").exists()
    finally:
        backend.close()
    deadline = time.monotonic() + 10
    while Path(f"/proc/{child}").exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not Path(f"/proc/{child}").exists()  # the server's own child went with its group


def test_a_request_flood_keeps_a_bounded_log(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "flood.html").write_text("<h1>flood</h1><script>window.__n = 0; for (let i = 0; i < 3000; i++) "
                                     "fetch('http://flood.example/' + i).catch(() => { window.__n++; });</script>")
    backend = WebBackend(prewarm=False)
    try:
        backend.reset(_task(site, "flood.html"), None, 0)
        backend.page_call(lambda page: page.wait_for_function("() => window.__n === 3000", timeout=60_000))
        assert len(backend.blocked) == MAX_BLOCKED and backend.blocked[0].startswith("http://flood.example/")
    finally:
        backend.close()
