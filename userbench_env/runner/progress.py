"""Running totals of a run (R_tau, UFS, cost, errors) and the progress bar showing them."""
from __future__ import annotations

import sys
from typing import Any

from userbench_env.runner.record import is_success, user_cost


class RunningStats:
    """Totals over finished episodes; errored episodes are only counted as errors. ``cost`` sums
    the known costs; ``unpriced`` counts the episodes whose cost is not known."""

    def __init__(self) -> None:
        self.episodes = 0
        self.errors = 0
        self.reward = 0.0
        self.scored = 0  # episodes with a reward (a user failure has none)
        self.successes = 0
        self.ufs_pass = 0
        self.ufs_known = 0
        self.cost = 0.0
        self.unpriced = 0

    def add(self, record: dict[str, Any]) -> None:
        """Count one record."""
        cost = user_cost(record)
        if cost is None:
            self.unpriced += 1
        else:
            self.cost += cost
        if record.get("error"):
            self.errors += 1
            return
        self.episodes += 1
        if record.get("reward") is not None:
            self.scored += 1
            self.reward += float(record["reward"])
        self.successes += is_success(record)
        if record.get("ufs_pass") is not None:
            self.ufs_known += 1
            self.ufs_pass += bool(record["ufs_pass"])

    @property
    def r_tau(self) -> float | None:
        """Mean reward of the non-errored episodes that score the agent so far."""
        return self.reward / self.scored if self.scored else None

    @property
    def ufs(self) -> float | None:
        """UFS so far: share passing among episodes with a verdict."""
        return self.ufs_pass / self.ufs_known if self.ufs_known else None

    def postfix(self) -> dict[str, str]:
        """The progress-bar fields."""
        fmt = lambda v: "-" if v is None else f"{v:.3f}"  # noqa: E731
        from userbench_env.analysis.tables import money

        cost = f"${money(self.cost)}" + (f" +{self.unpriced} unpriced" if self.unpriced else "")
        return {"R_tau": fmt(self.r_tau), "UFS": fmt(self.ufs), "cost": cost, "errors": str(self.errors)}


class Progress:
    """A tqdm bar (stderr) updated with :class:`RunningStats`; silent when disabled."""

    def __init__(self, total: int, enabled: bool = True, desc: str = "episodes") -> None:
        self.stats = RunningStats()
        self.bar = None
        if enabled and total:
            from tqdm import tqdm

            self.bar = tqdm(total=total, desc=desc, file=sys.stderr, dynamic_ncols=True, leave=True)

    def add(self, record: dict[str, Any]) -> None:
        """Count one record and advance the bar."""
        self.stats.add(record)
        if self.bar is not None:
            self.bar.set_postfix(self.stats.postfix(), refresh=False)
            self.bar.update(1)

    def close(self) -> None:
        """Close the bar."""
        if self.bar is not None:
            self.bar.close()
