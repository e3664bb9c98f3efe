"""Latency of the app surface per runtime: reset() and one action, medians.

Run: ``python bench/bench_app.py [--repeat N] [--runtimes local,docker]``. For each
runtime that can run here it times ``reset()`` (load a task's app; the first reset,
which starts the display or container, is reported apart) and one ``step()`` (a click
on an add button, then on it again: perform, sync with the app, screenshot). The
baseline is the local runtime; Docker is shown as a ratio to it. Prints a table,
asserts nothing.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _util import median_time, table

TASK = "lstyle-diet-type-app"


def measure(runtime: str, repeat: int) -> dict[str, float]:
    """Seconds for the first reset, a median reset and a median click step."""
    import gymnasium as gym

    import userbench_env  # noqa: F401
    from userbench_env.surfaces.app.player import buttons

    env = gym.make("UserBench/App-v0", surface_options={"runtime": runtime}, task_id=TASK)
    try:
        start = time.perf_counter()
        obs, _ = env.reset()
        first = time.perf_counter() - start
        reset = median_time(lambda: env.reset(), repeat=repeat, warmup=1)
        obs, _ = env.reset()
        _, _, x, y = next(b for b in buttons(obs["text"]) if b[1])
        click = json.dumps({"type": "click", "x": x, "y": y})
        step = median_time(lambda: env.step(click), repeat=repeat * 2, warmup=2)
    finally:
        env.close()
    return {"first_reset": first, "reset": reset, "step": step}


def main() -> int:
    """Measure each requested runtime and print the table."""
    from userbench_env.surfaces.app.runtime import docker_available

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--runtimes", default="local,docker")
    args = parser.parse_args()
    results = {}
    for runtime in args.runtimes.split(","):
        if runtime == "docker" and (reason := docker_available()) is not None:
            print(f"docker: skipped ({reason})")
            continue
        results[runtime] = measure(runtime, args.repeat)
    base = results.get("local")
    rows = []
    for runtime, r in results.items():
        ratio = f"{r['step'] / base['step']:.2f}x" if base else "-"
        rows.append((runtime, f"{r['first_reset'] * 1000:.0f}", f"{r['reset'] * 1000:.0f}",
                     f"{r['step'] * 1000:.0f}", ratio))
    print(table(rows, ("runtime", "first reset ms", "reset ms (median)", "step ms (median)", "step vs local")))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
