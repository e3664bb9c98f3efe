"""Reading run stores: the latest record of each episode key, and repricing."""
from __future__ import annotations

import os
from typing import Any, Iterable

from userbench_env.runner.store import EpisodeStore


def load_records(paths: Iterable[str | os.PathLike[str]]) -> list[dict[str, Any]]:
    """The latest record per key over ``paths`` (a later file or line supersedes), in first-seen order.

    Raises ``FileNotFoundError`` naming a missing store.
    """
    latest: dict[str, dict[str, Any]] = {}
    for path in paths:
        store = EpisodeStore(path)
        if not store.path.is_file():
            raise FileNotFoundError(f"no run store at {store.path}")
        latest.update(store.latest())
    return list(latest.values())


def reprice(records: list[dict[str, Any]], prices: Any) -> list[dict[str, Any]]:
    """Copies of ``records`` with ``user_cost_usd`` recomputed from their tokens.

    A record whose proxy names a model is priced with the override table ``prices``
    (dollars per million input/output tokens), else litellm's price map; a model with
    no known price keeps its recorded cost.
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
        out.append(copy)
    return out
