"""Group commit of records from many concurrent episodes into one store.

``submit(record)`` queues a record and returns a future that completes once the record
is on disk (fsynced); ``await write(record)`` waits for it; ``await drain()`` waits for
every submitted record and re-raises the first write error. Records that arrive while a
write is in flight go out together in the next one (one ``fsync`` per batch), in a
worker thread, so neither the event loop nor the episodes wait on the disk. A record
not yet written when the process dies is simply an unfinished episode: resume reruns it.
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
        self._outstanding: set[asyncio.Future[None]] = set()
        self._flusher: asyncio.Task[None] | None = None
        self._error: BaseException | None = None

    def submit(self, record: dict[str, Any]) -> asyncio.Future[None]:
        """Queue ``record``; the future completes when it is durably written."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((record, done))
        self._outstanding.add(done)
        done.add_done_callback(self._settle)
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.create_task(self._flush())
        return done

    async def write(self, record: dict[str, Any]) -> None:
        """Queue ``record`` and wait until it is written (re-raises a write error)."""
        await self.submit(record)

    async def drain(self) -> None:
        """Wait for every submitted record; re-raise the first write error."""
        if self._outstanding:
            await asyncio.gather(*list(self._outstanding), return_exceptions=True)
        if self._error is not None:
            raise self._error

    def _settle(self, done: asyncio.Future[None]) -> None:
        """Forget a finished future, keeping the first write error for :meth:`drain`."""
        self._outstanding.discard(done)
        if not done.cancelled() and done.exception() is not None and self._error is None:
            self._error = done.exception()

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
