"""`import userbench_env` time in a fresh interpreter, against `import gymnasium` alone.

Prints the median over several fresh processes and which heavy packages got loaded
(there must be none). Run: ``python bench/bench_import.py``.
"""
from __future__ import annotations

import json
import statistics
import subprocess
import sys

HEAVY = ("litellm", "playwright", "docker", "ray", "matplotlib")
PROBE = (
    "import json,sys,time;t=time.perf_counter();import {mod};"
    "print(json.dumps([time.perf_counter()-t,[m for m in {heavy!r} if m in sys.modules]]))"
)


def measure(module: str, runs: int = 7) -> tuple[float, list[str]]:
    """Median seconds to import ``module`` in a fresh process, and heavy modules loaded."""
    times, heavy = [], []
    for _ in range(runs):
        out = subprocess.run(
            [sys.executable, "-c", PROBE.format(mod=module, heavy=HEAVY)],
            capture_output=True, text=True, check=True,
        ).stdout
        seconds, loaded = json.loads(out)
        times.append(seconds)
        heavy = loaded
    return statistics.median(times), heavy


def main() -> None:
    base, _ = measure("gymnasium")
    ours, heavy = measure("userbench_env")
    print(f"import gymnasium      {base * 1000:8.1f} ms  (baseline)")
    print(f"import userbench_env  {ours * 1000:8.1f} ms  ratio {ours / base:.2f}x  budget 500 ms")
    print(f"heavy packages loaded: {', '.join(heavy) or 'none'}")


if __name__ == "__main__":
    main()
