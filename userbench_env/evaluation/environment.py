"""The DB and ENV_ASSERTION components: predicted versus reference worlds (tau2 4.2-4.3).

* Predicted world: a fresh world, the task's initialization data and actions, then the
  *whole* transcript replayed (mutating calls re-executed, as tau2's ``set_state``).
* Reference world: a fresh world with the task's full initial state (message history
  included), then each gold action called directly on its toolkit, with no sync in
  between and failures ignored. It does not depend on the transcript, so it is built
  once per task and data source and compared with each predicted world record by
  record (:func:`same_state`), never by re-hashing the whole DB.
"""
from __future__ import annotations

import hashlib
import os
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Optional

from userbench_env.core.messages import Message
from userbench_env.core.task import EnvAssertion, Task
from userbench_env.domains import make_world
from userbench_env.domains.world import World


@dataclass(frozen=True)
class StateHashes:
    """Agent and user DB hashes of one world (``user`` is ``None`` without a user DB)."""

    agent: Optional[str]
    user: Optional[str]

    @classmethod
    def of(cls, world: World) -> "StateHashes":
        """The hashes of ``world`` now."""
        return cls(world.db_hash("agent"), world.db_hash("user"))


#: Reference worlds are kept for the most recent tasks (LRU); their hashes for all.
REFERENCE_WORLDS_KEPT = 512

_reference_worlds: "OrderedDict[tuple[str, ...], World]" = OrderedDict()
_reference_hashes: dict[tuple[str, ...], StateHashes] = {}
_cache_lock = threading.Lock()


def _task_key(task: Task, source: str, data_path: str | os.PathLike[str] | None) -> tuple[str, ...]:
    content = task.model_dump_json(include={"initial_state", "evaluation"})
    digest = hashlib.sha256(content.encode("utf-8")).hexdigest()
    return (task.domain, source, str(data_path or ""), task.id, digest)


def reference_world(task: Task, source: str, data_path: str | os.PathLike[str] | None = None) -> World:
    """The reference world of ``task`` (built once per task and source; do not mutate)."""
    key = _task_key(task, source, data_path)
    with _cache_lock:
        found = _reference_worlds.get(key)
        if found is not None:
            _reference_worlds.move_to_end(key)
            return found
    world = make_world(task.domain, source=source, task=task, data_path=data_path)
    for gold in task.gold_actions:
        try:
            world.invoke(gold.requestor, gold.name, gold.arguments)
        except Exception:  # tau2 logs and skips failing gold calls
            continue
    with _cache_lock:
        _reference_worlds[key] = world
        while len(_reference_worlds) > REFERENCE_WORLDS_KEPT:
            _reference_worlds.popitem(last=False)
    return world


def reference_hashes(task: Task, source: str, data_path: str | os.PathLike[str] | None = None) -> StateHashes:
    """Hashes of the reference world of ``task`` (computed once per task and source)."""
    key = _task_key(task, source, data_path)
    found = _reference_hashes.get(key)
    if found is None:
        found = StateHashes.of(reference_world(task, source, data_path))
        with _cache_lock:
            _reference_hashes.setdefault(key, found)
            found = _reference_hashes[key]
    return found


def same_state(world: World, reference: World) -> bool:
    """tau2's DB check: equal agent and equal user DB hashes (compared without hashing)."""
    if not world.agent_db.same_state(reference.agent_db):
        return False
    if world.user_db is None or reference.user_db is None:
        return world.user_db is None and reference.user_db is None
    return world.user_db.same_state(reference.user_db)


def predicted_world(task: Task, messages: list[Message], source: str, data_path: str | os.PathLike[str] | None = None) -> World:
    """The world rebuilt from the initialization data/actions and the whole transcript.

    The transcript must start with the task's message history (if any): it replaces
    the history during the rebuild. Replay is lenient: a re-executed call whose output
    differs from the recorded one is kept (tau2's strict mode would abort scoring).
    """
    state = task.initial_state.model_copy(update={"message_history": None}) if task.initial_state else None
    world = make_world(task.domain, source=source, task=task.model_copy(update={"initial_state": state}), data_path=data_path)
    world.replay_messages(messages, strict=False)
    return world


def assertion_results(world: World, assertions: list[EnvAssertion]) -> list[bool]:
    """Each env assertion run on ``world``; one that raises counts as not met."""
    results = []
    for assertion in assertions:
        try:
            results.append(world.run_assertion(assertion))
        except Exception:
            results.append(False)
    return results
