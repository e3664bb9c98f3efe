"""Reading run stores: the latest record of each episode key, and repricing."""
from __future__ import annotations

import os
from typing import Any, Iterable, NamedTuple

from userbench_env.analysis.schema import record_problem
from userbench_env.errors import UserError
from userbench_env.runner.store import EpisodeStore


class NotARunStore(UserError, ValueError):
    """A file given as a run store holds no episode record (e.g. a CSV)."""


class Runs(NamedTuple):
    """Records read from run stores, the lines that could not be read per store, and the
    first reason a record line did not fit the schema per store (when one did not)."""

    records: list[dict[str, Any]]
    unreadable: dict[str, int]
    problems: dict[str, str]

    def warning(self) -> str | None:
        """One line naming the unreadable lines per store, or ``None`` when there are none."""
        bad = {path: n for path, n in self.unreadable.items() if n}
        if not bad:
            return None
        return "skipped unreadable lines (torn or corrupt): " + ", ".join(
            f"{n} in {path}" + (f" (first misfit: {self.problems[path]})" if path in self.problems else "")
            for path, n in bad.items())


def read_runs(paths: Iterable[str | os.PathLike[str]]) -> Runs:
    """The latest record per key over ``paths`` (a later file or line supersedes), in first-seen order,
    with the count of unreadable lines per store.

    A line is read when it is a JSON object with a ``key`` that fits
    :class:`~userbench_env.analysis.schema.StoredRecord` (field types exact, numbers
    finite); every other line is unreadable. Raises ``FileNotFoundError`` naming a
    missing store, :class:`NotARunStore` for a non-empty file none of whose lines is an
    episode record, and :class:`~userbench_env.runner.settings.SettingsMismatch` when the
    records (superseded ones too) answer different questions, so a later store never
    silently replaces them.
    """
    from userbench_env.runner.settings import common_settings

    latest: dict[str, dict[str, Any]] = {}
    everything: list[dict[str, Any]] = []
    unreadable: dict[str, int] = {}
    problems: dict[str, str] = {}
    for path in paths:
        store = EpisodeStore(path)
        if not store.path.is_file():
            raise FileNotFoundError(f"no run store at {store.path}")
        records, misfits = [], 0
        for record in store.records():
            problem = "key: missing" if "key" not in record else record_problem(record)
            if problem is None:
                records.append(record)
                continue
            misfits += 1
            if "key" in record:
                problems.setdefault(str(store.path), problem)
        unreadable[str(store.path)] = store.unreadable + misfits
        if not records and unreadable[str(store.path)]:
            raise NotARunStore(f"{store.path} is not a run store: none of its lines is an episode record "
                               "(one JSON object with a 'key' per line, as `userbench eval` writes)")
        latest.update((r["key"], r) for r in records)
        everything += records
    common_settings(everything)
    return Runs(list(latest.values()), unreadable, problems)


def load_records(paths: Iterable[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """The records of :func:`read_runs` (unreadable lines skipped)."""
    return read_runs(paths).records


def reprice(records: list[dict[str, Any]], prices: Any) -> list[dict[str, Any]]:
    """Copies of ``records`` with ``user_cost_usd`` recomputed from their tokens.

    A record whose proxy names a model is priced with the override table ``prices``
    (dollars per million input/output tokens), else litellm's price map, and counts as
    priced from then on; a model with no known price keeps its recorded cost (and stays
    unpriced when it was).
    """
    from userbench_env.pricing import call_cost, load_prices

    table = load_prices(prices)
    out = []
    for record in records:
        model = (record.get("user_provenance") or {}).get("model")
        copy = dict(record)
        tokens = (int(record.get("user_prompt_tokens") or 0), int(record.get("user_completion_tokens") or 0))
        if model and any(tokens):
            cost = call_cost(str(model), *tokens, table)
            if cost is not None:
                copy["user_cost_usd"] = cost
                copy["user_provenance"] = {**record["user_provenance"], "priced": True}
        out.append(copy)
    return out
