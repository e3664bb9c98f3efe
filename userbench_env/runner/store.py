"""The append-only JSONL episode store: one record per finished episode.

Each record is written as one line and flushed to disk at once (``fsync``), so a run
killed at any moment loses no finished episode; at worst the last line is cut short,
and readers skip such a torn tail. Resume is by record key (proxy, agent, task, trial).

A batch of records is all or nothing: when a write fails (``ENOSPC``, ``EFBIG``, an I/O
error) the file is cut back to its length before the batch and the ``OSError`` raised, so
every line in the store is a whole record. One process writes a store at a time:
:meth:`EpisodeStore.exclusive` holds an advisory lock (``flock``) on the store file for
a run, and a second writer fails at once with :class:`StoreBusy` instead of doubling the
episodes (where ``fcntl`` does not exist, e.g. Windows, there is no lock).
"""
from __future__ import annotations

import contextlib
import json
import os
import threading
from pathlib import Path
from typing import Any, Iterator

from userbench_env.errors import UserError


def episode_key(proxy: str, agent: str, domain: str, source: str, task_id: str, trial: int) -> str:
    """The resume key of one episode."""
    return "|".join((proxy, agent, domain, source, task_id, str(trial)))


class StoreBusy(UserError, RuntimeError):
    """Another process is writing the store."""


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
        """Write records, one line each, with one ``fsync`` (a group commit); all or nothing: a
        failed write leaves the file as it was and raises the ``OSError``."""
        if not records:
            return
        text = "".join(json.dumps(r, ensure_ascii=False, default=str) + "\n" for r in records)
        # a lone surrogate (not encodable) is written as its JSON escape, so no record breaks the batch
        data = memoryview(text.encode("utf-8", errors="backslashreplace"))
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._repair_tail()
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
            try:
                start = os.fstat(fd).st_size
                try:
                    while data:
                        data = data[os.write(fd, data):]
                    os.fsync(fd)
                except OSError:
                    with contextlib.suppress(OSError):  # if even this fails, the next append cuts the torn tail
                        os.ftruncate(fd, start)
                    raise
            finally:
                os.close(fd)

    @contextlib.contextmanager
    def exclusive(self) -> Iterator[None]:
        """Hold the store's writer lock while the block runs; :class:`StoreBusy` at once when
        another process holds it. The store file is created for the lock and removed again
        when the block wrote nothing into a store that did not exist."""
        try:
            import fcntl
        except ImportError:  # no flock on this platform: no lock
            yield
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        created = not self.path.exists()
        with self._locked(fcntl):
            try:
                yield
            finally:
                with contextlib.suppress(FileNotFoundError):
                    if created and self.path.stat().st_size == 0:  # still holding the lock: no writer sees it go
                        self.path.unlink()

    def _locked(self, fcntl: Any) -> Any:
        """The store file, opened and locked (its handle; closing it releases the lock). A file its
        last writer removed while this one was opening it is opened again."""
        while True:
            handle = self.path.open("ab")
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                raise StoreBusy(f"{self.path} is being written by another process (two writers would double its "
                                "episodes): wait for that run to end, or write to another --out") from None
            try:
                if os.path.samestat(os.fstat(handle.fileno()), os.stat(self.path)):
                    return handle
            except FileNotFoundError:
                pass
            handle.close()

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
