"""The append-only JSONL episode store: one record per finished episode.

Each record is written as one line and flushed to disk at once (``fsync``), so a run
killed at any moment loses no finished episode; at worst the last line is cut short,
and readers skip such a torn tail. Resume is by record key (proxy, agent, task, trial).
"""
from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator


def episode_key(proxy: str, agent: str, domain: str, source: str, task_id: str, trial: int) -> str:
    """The resume key of one episode."""
    return "|".join((proxy, agent, domain, source, task_id, str(trial)))


class EpisodeStore:
    """Append-only JSONL file of episode records (plain dicts with a ``key``)."""

    def __init__(self, path: str | os.PathLike[str]):
        self.path = Path(path)
        self._lock = threading.Lock()
        #: lines the last complete :meth:`records` pass skipped (torn tail, not a JSON object)
        self.unreadable = 0

    def records(self) -> Iterator[dict[str, Any]]:
        """Every complete record (a JSON object) in file order.

        The file is read as bytes up to each newline and only a complete line is decoded
        (strict UTF-8), so a tail cut anywhere, even inside a multi-byte character, is just
        a torn line. A torn last line, a line that is not UTF-8 or not JSON (or nests past
        the stack) and a JSON value that is not an object are skipped; when the pass ends,
        :attr:`unreadable` holds how many were.
        """
        self.unreadable = skipped = 0
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            for raw in handle:
                torn = not raw.endswith(b"\n")  # the tail of a killed writer
                raw = raw.strip()
                if not raw:
                    continue
                try:
                    record = None if torn else json.loads(raw.decode("utf-8"))
                except (ValueError, RecursionError):  # UnicodeDecodeError and JSONDecodeError are ValueErrors
                    record = None
                if isinstance(record, dict):
                    yield record
                else:
                    skipped += 1
        self.unreadable = skipped

    def latest(self) -> dict[str, dict[str, Any]]:
        """The last record of each key (a retried episode supersedes its error)."""
        return {r["key"]: r for r in self.records() if "key" in r}

    def done_keys(self, retry_errors: bool = False) -> set[str]:
        """Keys that need no further run; with ``retry_errors`` errored ones are redone."""
        return {
            key for key, rec in self.latest().items() if not (retry_errors and rec.get("error"))
        }

    def append(self, record: dict[str, Any]) -> None:
        """Write one record as one line and force it to disk."""
        self.append_many([record])

    def append_many(self, records: list[dict[str, Any]]) -> None:
        """Write records, one line each, in one write and one ``fsync`` (a group commit)."""
        if not records:
            return
        text = "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_tail()
            # a lone surrogate (not encodable) is written as its JSON escape, so no record breaks the batch
            with self.path.open("a", encoding="utf-8", errors="backslashreplace") as handle:
                handle.write(text)
                handle.flush()
                os.fsync(handle.fileno())

    def _repair_tail(self) -> None:
        """Cut a torn last line (left by a killed writer) before appending."""
        if not self.path.exists() or self.path.stat().st_size == 0:
            return
        with self.path.open("rb+") as handle:
            handle.seek(-1, os.SEEK_END)
            if handle.read(1) == b"\n":
                return
            handle.seek(0)
            data = handle.read()
            cut = data.rfind(b"\n") + 1
            handle.truncate(cut)
