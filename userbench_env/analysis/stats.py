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
