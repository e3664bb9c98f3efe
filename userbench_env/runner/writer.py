"""Group commit of records from many concurrent episodes into one store.

``await writer.write(record)`` returns once the record is on disk (fsynced). Records
that arrive while a write is in flight are written together by the next one (one
``fsync`` for the batch), in a worker thread, so the event loop never waits on the
disk and the disk is not the bottleneck at high concurrency.
"""
from __future__ import annotations

import asyncio
from typing import Any

from userbench_env.runner.store import EpisodeStore


class StoreWriter:
    """Batches concurrent appends to an :class:`EpisodeStore` (see the module docstring)."""

    def __init__(self, store: EpisodeStore) -> None:
        self.store = store
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._flusher: asyncio.Task[None] | None = None

    async def write(self, record: dict[str, Any]) -> None:
        """Queue ``record`` and wait until it is durably written (re-raises a write error)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((record, done))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        await done

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            try:
                await asyncio.to_thread(self.store.append_many, [record for record, _ in batch])
            except Exception as exc:  # every waiter of the batch learns of the failure
                for _, done in batch:
                    done.set_exception(exc)
            else:
                for _, done in batch:
                    done.set_result(None)
