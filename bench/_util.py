"""Small helpers shared by the benchmarks: repeated timing and side-by-side tables.

Benchmarks report medians and ratios against a named baseline; they never assert.
Importing this module points ``USERBENCH_TAU2_DATA`` at ``../shared/tau2-data`` when
that folder exists and the variable is unset.
"""
from __future__ import annotations

import os
import statistics
import time
from pathlib import Path
from typing import Callable

_SHARED_TAU2 = Path(__file__).resolve().parents[2] / "shared" / "tau2-data"
if _SHARED_TAU2.is_dir():
    os.environ.setdefault("USERBENCH_TAU2_DATA", str(_SHARED_TAU2))


def median_time(func: Callable[[], object], repeat: int = 20, warmup: int = 2) -> float:
    """Median wall time of ``func()`` in seconds over ``repeat`` runs after ``warmup``."""
    for _ in range(warmup):
        func()
    samples = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        samples.append(time.perf_counter() - start)
    return statistics.median(samples)


def table(rows: list[tuple[str, ...]], header: tuple[str, ...]) -> str:
    """A plain-text table with left-aligned columns."""
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    line = lambda r: "  ".join(str(c).ljust(w) for c, w in zip(r, widths))  # noqa: E731
    return "\n".join([line(header), line(tuple("-" * w for w in widths)), *map(line, rows)])
