"""Group commit of records from many concurrent episodes into one store.

``submit(record)`` queues a record and returns a future that completes once the record
is on disk (fsynced); ``await write(record)`` waits for it; ``await drain()`` waits for
every submitted record and re-raises the write error (``await settle()`` only waits).
Records that arrive while a
write is in flight go out together in the next one (one ``fsync`` per batch), in a
worker thread, so the event loop never waits on the disk. A record
not yet written when the process dies is simply an unfinished episode: resume reruns it.

The first write error is final: that batch is not in the store (a batch is all or
nothing), every later record fails with the same error without touching the disk, and
``on_failure(error)`` is called once, so the caller can stop playing episodes whose
records could not be kept.
"""
from __future__ import annotations

import asyncio
from typing import Any, Callable

from userbench_env.runner.store import EpisodeStore


class StoreWriter:
    """Batches concurrent appends to an :class:`EpisodeStore` (see the module docstring)."""

    def __init__(self, store: EpisodeStore, on_failure: Callable[[Exception], None] | None = None) -> None:
        self.store = store
        self.on_failure = on_failure
        #: the first write error (``None`` while every write succeeded)
        self.failure: Exception | None = None
        self._pending: list[tuple[dict[str, Any], asyncio.Future[None]]] = []
        self._outstanding: set[asyncio.Future[None]] = set()
        self._flusher: asyncio.Task[None] | None = None

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

    async def settle(self) -> None:
        """Wait until every submitted record is written or has failed (see :attr:`failure`)."""
        if self._outstanding:
            await asyncio.gather(*list(self._outstanding), return_exceptions=True)

    async def drain(self) -> None:
        """Wait for every submitted record; re-raise the write error."""
        await self.settle()
        if self.failure is not None:
            raise self.failure

    def _settle(self, done: asyncio.Future[None]) -> None:
        """Forget a finished future (its error, if any, is :attr:`failure`)."""
        self._outstanding.discard(done)
        if not done.cancelled():
            done.exception()  # retrieved: the error is reported through drain, not the loop's logger

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            if self.failure is None:
                try:
                    await asyncio.to_thread(self.store.append_many, [record for record, _ in batch])
                except Exception as exc:  # the first failure is final (module docstring)
                    self.failure = exc
                    if self.on_failure is not None:
                        self.on_failure(exc)
            for _, done in batch:
                if self.failure is None:
                    done.set_result(None)
                else:
                    done.set_exception(self.failure)
