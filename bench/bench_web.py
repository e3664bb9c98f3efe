"""UserBench/Web-v0 overhead: ``reset()`` and per-``step()`` latency, memory per env.

Baseline: Playwright's own ``element.click()`` on the same page through the same
browser thread, with no snapshot (what a step would cost with no observation at all). ``step()`` adds the page-to-text
snapshot, the change check and the observation; the target is < 60 ms per action in
text mode. Screenshot mode (Set-of-Marks, Pillow) is measured separately. Memory is
the proportional set size (PSS) of this process and every browser process under it,
with 1 and then 4 envs open; the difference gives the cost of one more env (one more
browser context). ``reset`` is timed after an episode ended and 0.5 s of "policy think
time" (the prewarmed context is ready), and without prewarming. Run: ``python bench/bench_web.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from _util import median_time, table

from userbench_env.surfaces.tasks import SurfaceTask, load_surface_tasks
from userbench_env.surfaces.web.backend import WebBackend
from userbench_env.surfaces.web.browser import get_browser
from userbench_env.surfaces.web.snapshot import REFS_PROP


def tree_pss_mb(root: int) -> float:
    """PSS in MB of ``root`` and all its descendant processes."""
    children: dict[int, list[int]] = {}
    for proc in Path("/proc").iterdir():
        if proc.name.isdigit():
            try:
                ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (FileNotFoundError, ProcessLookupError):
                continue
            children.setdefault(ppid, []).append(int(proc.name))
    total, todo = 0, [root]
    while todo:
        pid = todo.pop()
        todo += children.get(pid, [])
        try:
            for line in Path(f"/proc/{pid}/smaps_rollup").read_text().splitlines():
                if line.startswith("Pss:"):
                    total += int(line.split()[1])
        except (FileNotFoundError, ProcessLookupError, PermissionError):
            pass
    return total / 1024


def measure(task: SurfaceTask, mode: str, screenshot: bool, repeat: int) -> tuple[str, ...]:
    """One table row: resets (prewarmed, cold), click and scroll steps, bare click, ratio."""
    backend = WebBackend(screenshot=screenshot, max_steps=10**6)
    backend.reset(task, None, 0)
    resets: list[float] = []
    for _ in range(max(5, repeat // 4)):
        backend.step('{"action": "done"}')  # the episode ends: the next context is prewarmed
        time.sleep(0.5)  # the policy's think time, during which the prewarm runs
        start = time.perf_counter()
        backend.reset(task, None, 0)
        resets.append(time.perf_counter() - start)
    cold = WebBackend(screenshot=screenshot, prewarm=False)
    cold_reset = median_time(lambda: cold.reset(task, None, 0), repeat=max(5, repeat // 4), warmup=1)
    cold.close()
    details = [c.ref for c in backend.snapshot.controls if c.label == "Details"][:2]
    clicks = iter(range(10**9))
    step = median_time(lambda: backend.step(json.dumps({"action": "click", "ref": details[next(clicks) % 2]})),
                       repeat=repeat)
    scroll = median_time(lambda: backend.step('{"action": "scroll", "direction": "down"}'), repeat=repeat)

    async def bare_click(page: Any) -> None:
        handle = await page.evaluate_handle(f"(i) => window.{REFS_PROP}[i - 1]", details[0])
        await handle.as_element().click()
        await handle.dispose()

    baseline = median_time(lambda: backend.page_call(bare_click), repeat=repeat)
    backend.close()
    return (mode, f"{statistics.median(resets) * 1000:.1f}", f"{cold_reset * 1000:.1f}", f"{step * 1000:.1f}",
            f"{scroll * 1000:.1f}", f"{baseline * 1000:.1f}", f"{step / baseline:.2f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    task = next(t for t in load_surface_tasks("web") if t.web and t.web.page and t.web.page.template == "booking")
    start = time.perf_counter()
    host = get_browser()
    launch = time.perf_counter() - start
    rows = [measure(task, "text", False, args.repeat), measure(task, "screenshot", True, args.repeat)]
    print(f"browser launch (cold, once per process): {launch * 1000:.0f} ms  (task {task.id})")
    print(table(rows, ("mode", "reset ms (prewarmed)", "reset ms (cold context)", "click step ms", "scroll step ms",
                       "bare click ms (baseline)", "step/baseline")))

    pid = os.getpid()
    before = tree_pss_mb(pid)
    backends = [WebBackend() for _ in range(4)]
    backends[0].reset(task, None, 0)
    one = tree_pss_mb(pid)
    for backend in backends[1:]:
        backend.reset(task, None, 0)
    four = tree_pss_mb(pid)
    for backend in backends:
        backend.close()
    print(f"memory (PSS, this process + browser): idle browser {before:.0f} MB, 1 env {one:.0f} MB, "
          f"4 envs {four:.0f} MB -> {(four - one) / 3:.0f} MB per extra env")
    host.close()


if __name__ == "__main__":
    main()
