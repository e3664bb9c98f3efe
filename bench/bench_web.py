"""UserBench/Web-v0 overhead: ``reset()`` and per-``step()`` latency, memory per env.

Baseline: the bare Playwright work of one step (one ``element.click()`` on the same
page through the same browser thread, no snapshot). ``step()`` adds the page-to-text
snapshot, the change check and the observation; the target is < 60 ms per action in
text mode. Screenshot mode (Set-of-Marks, Pillow) is measured separately. Memory is
the proportional set size (PSS) of this process and every browser process under it,
with 1 and then 4 envs open; the difference gives the cost of one more env (one more
browser context). Run: ``python bench/bench_web.py [--repeat N]``.
"""
from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from _util import median_time, table

from userbench_env.surfaces.tasks import load_surface_tasks
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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args()
    task = next(t for t in load_surface_tasks("web") if t.web and t.web.page and t.web.page.template == "booking")
    start = time.perf_counter()
    host = get_browser()
    launch = time.perf_counter() - start

    rows = []
    for mode, screenshot in (("text", False), ("screenshot", True)):
        backend = WebBackend(screenshot=screenshot, max_steps=10**6)
        reset = median_time(lambda: backend.reset(task, None, 0), repeat=max(5, args.repeat // 4), warmup=1)
        details = [c.ref for c in backend.snapshot.controls if c.label == "Details"][:2]
        clicks = iter(range(10**9))
        step = median_time(lambda: backend.step(json.dumps({"action": "click", "ref": details[next(clicks) % 2]})),
                           repeat=args.repeat)
        scroll = median_time(lambda: backend.step('{"action": "scroll", "direction": "down"}'), repeat=args.repeat)

        async def bare_click(page, ref=details[0]):
            handle = await page.evaluate_handle(f"(i) => window.{REFS_PROP}[i - 1]", ref)
            await handle.as_element().click()
            await handle.dispose()

        baseline = median_time(lambda: backend.page_call(bare_click), repeat=args.repeat)
        backend.close()
        rows.append((mode, f"{reset * 1000:.1f}", f"{step * 1000:.1f}", f"{scroll * 1000:.1f}",
                     f"{baseline * 1000:.1f}", f"{step / baseline:.2f}x"))
    print(f"browser launch (cold, once per process): {launch * 1000:.0f} ms  (task {task.id})")
    print(table(rows, ("mode", "reset ms", "click step ms", "scroll step ms", "bare click ms (baseline)",
                       "step/baseline")))

    pid = os.getpid()
    before = tree_pss_mb(pid)
    backends = [WebBackend() for _ in range(4)]
    backends[0].reset(task, None, 0)
    one = tree_pss_mb(pid)
    for b in backends[1:]:
        b.reset(task, None, 0)
    four = tree_pss_mb(pid)
    for b in backends:
        b.close()
    print(f"memory (PSS, this process + browser): idle browser {before:.0f} MB, 1 env {one:.0f} MB, "
          f"4 envs {four:.0f} MB -> {(four - one) / 3:.0f} MB per extra env")
    host.close()


if __name__ == "__main__":
    main()
