"""Builds and smoke tests on Dask workers (``dealer arena serve --scheduler ADDR``), as a league's
matches run there (``dealer.league.cluster``): each build is one Dask task that runs ``build_version`` on a
worker, which must run the same dealer and see the arena's storage folder at the same path (a
shared folder: the version's files are read and its build folder and log written there). The
database stays the server's: a worker returns the outcome and the server records it. Dask plays a
build again on another worker when its worker dies."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import distributed

from dealer.arena.builds import BuildExecutor, BuildOutcome, build_version
from dealer.arena.config import ArenaConfig
from dealer.arena.model import Version
from dealer.errors import ClusterError
from dealer.league.cluster import DaskExecutor, dask_executor, worker_problems


def build_task(version: Version, config: ArenaConfig, marker: str, code: str) -> BuildOutcome:
    """The task: check this worker sees the storage folder and runs this dealer, then build."""
    problems = worker_problems({}, str(config.storage), marker, code)
    if problems:
        where = distributed.get_worker().address
        raise ClusterError("\n".join(f"worker {where}: {p}" for p in problems))
    return asyncio.run(build_version(version, config))


class DaskBuilds:
    """A build executor that runs each build as a task on the cluster of ``cluster``'s client."""

    def __init__(self, cluster: DaskExecutor, config: ArenaConfig) -> None:
        self.cluster = cluster
        self.config = config

    async def __call__(self, version: Version) -> BuildOutcome:
        """Build ``version`` on some worker; a build lost with its workers too often is a ClusterError."""
        cluster = self.cluster
        future = cluster.client.submit(build_task, version, self.config, cluster.marker, cluster.code, pure=False)
        try:
            outcome: BuildOutcome = await future
        except distributed.scheduler.KilledWorker as error:
            raise ClusterError(
                f"the build of version {version.id} was lost with its worker too many times: {error}"
            ) from None
        return outcome


@contextlib.asynccontextmanager
async def dask_builds(config: ArenaConfig, scheduler: str, log_level: str = "info") -> AsyncIterator[BuildExecutor]:
    """Builds on the cluster of the Dask ``scheduler`` (``tcp://HOST:8786``), its workers checked
    first (the same dealer, the storage folder seen); their logs go to the storage folder."""
    async with dask_executor({}, config.storage, config.storage, scheduler=scheduler, log_level=log_level) as cluster:
        yield DaskBuilds(cluster, config)
