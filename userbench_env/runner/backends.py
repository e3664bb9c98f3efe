"""Where episodes are played: ``local`` (this process) or ``ray`` (actors of a Ray cluster).

Every backend takes the same jobs and hands each finished record to the same sink in
the calling (driver) process, so the store, resume by key, ``retry_errors``, the
progress bar and the separation of infrastructure errors do not depend on the backend.
"""
from __future__ import annotations

from typing import Iterable, Literal

from pydantic import BaseModel, ConfigDict, Field

from userbench_env.runner.engine import EnvFactory, Job, RecordSink, run_jobs

BackendName = Literal["local", "ray"]


class Backend(BaseModel):
    """A backend choice: ``name``, and for ``ray`` the cluster ``ray_address`` (``None``:
    the session already initialised in this process, else ``RAY_ADDRESS``, else a new
    local one; see :func:`~userbench_env.runner.ray_backend.cluster_address`) and the
    number of ``workers`` (actors; ``None``: one per CPU of the cluster)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: BackendName = "local"
    ray_address: str | None = None
    workers: int | None = Field(default=None, ge=1)

    def check(self) -> None:
        """Fail before any episode when the backend cannot run here (``ImportError`` without
        Ray; :class:`~userbench_env.runner.ray_backend.ClusterUnreachable` when the named
        cluster does not answer and this process has no Ray session)."""
        if self.name == "ray":
            from userbench_env.runner.ray_backend import check_cluster, import_ray

            if not import_ray().is_initialized():
                check_cluster(self.ray_address)

    async def run(self, jobs: Iterable[Job], make_env: EnvFactory, concurrency: int, on_record: RecordSink) -> None:
        """Play every job, ``concurrency`` episodes in flight per process (per actor on Ray)."""
        if self.name == "ray":
            from userbench_env.runner.ray_backend import run_jobs_ray

            await run_jobs_ray(jobs, make_env, concurrency, on_record, workers=self.workers, address=self.ray_address)
        else:
            await run_jobs(jobs, make_env, concurrency, on_record)
