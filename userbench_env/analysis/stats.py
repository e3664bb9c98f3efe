"""Small statistics helpers (plain Python; ``None`` where a value is undefined)."""
from __future__ import annotations

import math
from typing import Iterable, Sequence


def mean(values: Iterable[float | int | bool | None]) -> float | None:
    """The mean of the non-``None`` values, or ``None`` when there are none."""
    kept = [float(v) for v in values if v is not None]
    return sum(kept) / len(kept) if kept else None


def pearson(xs: Sequence[float | None], ys: Sequence[float | None], min_points: int = 3) -> float | None:
    """Pearson's r over pairs with both values; ``None`` with fewer than ``min_points``
    pairs or when either side is constant."""
    pairs = [(float(x), float(y)) for x, y in zip(xs, ys) if x is not None and y is not None]
    if len(pairs) < min_points:
        return None
    mx = sum(x for x, _ in pairs) / len(pairs)
    my = sum(y for _, y in pairs) / len(pairs)
    sxy = sum((x - mx) * (y - my) for x, y in pairs)
    sxx = sum((x - mx) ** 2 for x, _ in pairs)
    syy = sum((y - my) ** 2 for _, y in pairs)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


#: the normal quantile of a two-sided 95% interval
Z95 = 1.959963984540054


def wilson_interval(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a success rate (95% by default); ``(0, 1)`` when ``n`` is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low = 0.0 if successes == 0 else max(0.0, centre - half)  # exact ends, no rounding residue
    high = 1.0 if successes == n else min(1.0, centre + half)
    return low, high


def bootstrap_interval(values: Sequence[float], resamples: int = 10_000, seed: int = 0,
                       level: float = 0.95) -> tuple[float, float]:
    """A percentile bootstrap interval of the mean of ``values`` (seeded, so reproducible)."""
    import random

    if not values:
        return float("nan"), float("nan")
    rng = random.Random(seed)
    n = len(values)
    means = sorted(sum(values[rng.randrange(n)] for _ in range(n)) / n for _ in range(resamples))
    tail = (1 - level) / 2
    return means[int(tail * resamples)], means[min(resamples - 1, int((1 - tail) * resamples))]
