"""ReplayUserProxy: replays the user turns of a recorded episode, in order.

Sources: a list of turns (``{"text": ...}`` or ``{"tool_call": {"name", "arguments"}}``),
a JSON file holding such a list or an episode record, or a JSONL file of episode records
(the runner's store). From a record, every ``user`` message becomes turns: its text, or
one turn per tool call. With several records, :meth:`reset` picks the one whose
``task_id`` matches the task (else the first). Running out of turns is a
:class:`~userbench_env.proxies.base.ProxyError` (the recording does not fit this episode).
"""
from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from userbench_env.core.messages import ToolCall
from userbench_env.core.task import Task
from userbench_env.proxies.base import ProxyError, UserProxy, UserTurn, UserView


def turns_from_record(record: dict[str, Any]) -> list[UserTurn]:
    """The user turns of one episode record (``messages`` list of message dicts)."""
    turns: list[UserTurn] = []
    for message in record.get("messages", []):
        if message.get("role") != "user":
            continue
        for call in message.get("tool_calls") or []:
            turns.append(UserTurn(tool_call=ToolCall(name=call["name"], arguments=call.get("arguments") or {}, requestor="user")))
        if not message.get("tool_calls") and message.get("content") is not None:
            turns.append(UserTurn(text=message["content"]))
    return turns


def _turn(raw: dict[str, Any]) -> UserTurn:
    call = raw.get("tool_call")
    if call:
        return UserTurn(tool_call=ToolCall(name=call["name"], arguments=call.get("arguments") or {}, requestor="user"))
    return UserTurn(text=raw.get("text"))


def _load(path: Path) -> list[dict[str, Any]]:
    """Records in ``path``: each ``{"task_id": str | None, "turns": [UserTurn]}``."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        raws = [json.loads(line) for line in text.splitlines() if line.strip()]
    else:
        loaded = json.loads(text)
        raws = [loaded] if isinstance(loaded, dict) else [{"turns": loaded}]
    return [
        {"task_id": raw.get("task_id"), "turns": turns_from_record(raw) if "messages" in raw else [_turn(t) for t in raw["turns"]]}
        for raw in raws
    ]


class ReplayUserProxy(UserProxy):
    """Replays recorded user turns (see the module docstring)."""

    name = "replay"

    def __init__(self, source: str | os.PathLike[str] | list[dict[str, Any]]):
        super().__init__()
        self.source = str(source) if not isinstance(source, list) else "<turns>"
        self._records = [{"task_id": None, "turns": [_turn(t) for t in source]}] if isinstance(source, list) else _load(Path(source))
        if not self._records:
            raise ValueError(f"no recorded episodes in {self.source}")
        self._turns: list[UserTurn] = []
        self._next = 0

    def reset(self, task: Task, seed: int | None = None) -> None:
        """Pick the recording of ``task`` (by id, else the first) and rewind it."""
        super().reset(task, seed)
        chosen = next((r for r in self._records if r["task_id"] == task.id), self._records[0])
        self._turns = chosen["turns"]
        self._next = 0

    def respond(self, view: UserView) -> UserTurn:
        """The next recorded turn; ProxyError when the recording is exhausted."""
        if self._next >= len(self._turns):
            raise ProxyError(f"replay {self.source}: no recorded user turn left (used {self._next})")
        turn = self._turns[self._next]
        self._next += 1
        return turn.model_copy(deep=True)

    @property
    def provenance(self) -> dict[str, Any]:
        """Replay provenance: the recording's path."""
        return {**super().provenance, "model": self.source}
