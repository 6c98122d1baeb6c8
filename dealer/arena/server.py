"""``dealer arena serve``: the API, the builder and the ladder on one event loop, with the arena's log.

The log (``storage/arena.log``, mode 0600) records submissions, refusals, builds and the ladder's
pauses by team and version; never a token (the API's access log, which would add nothing but
request lines, is off; every line passes ``guard.NoTokensFormatter``). The HTTP side is guarded as
``dealer.arena.guard`` says: connections per client, a header timeout. The ladder's matches are
played by the local executor (one dealer server in this process, ``ladder.jobs`` matches at a
time) or, with a Dask scheduler's address, by its workers, which must see the storage folder at
the same path.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import logging
import signal
import sys
from collections.abc import AsyncIterator, Callable

from aiohttp import web

from dealer.arena.builds import HOUSE_PROGRAM, Builder, BuildExecutor
from dealer.arena.config import ArenaConfig
from dealer.arena.guard import REQUESTS, GuardedSite, NoTokensFormatter, quiet_tokens
from dealer.arena.http import make_app
from dealer.arena.ladder_loop import Ladder
from dealer.arena.layout import matches_folder, server_log
from dealer.arena.model import ArenaError
from dealer.arena.organiser_pages import add_organiser_pages
from dealer.arena.pages import add_pages
from dealer.arena.store.ladder import LadderStore
from dealer.arena.store.teams import open_repository
from dealer.connect.server import DealerServer
from dealer.league.jobs import Executor
from dealer.league.runner import LocalExecutor
from dealer.league.seeds import draw_seed
from dealer.runtime import log_file

LOGGER = logging.getLogger(__name__)


def _log_to(config: ArenaConfig) -> None:
    """Send the dealer's log (arena, builds, matches) to ``storage/arena.log`` at info."""
    config.storage.mkdir(parents=True, exist_ok=True)
    log_file(server_log(config.storage), "info", NoTokensFormatter)
    quiet_tokens()
    logging.getLogger("dealer").propagate = False


@contextlib.asynccontextmanager
async def executor_for(config: ArenaConfig, scheduler: str | None) -> AsyncIterator[Executor]:
    """Where the ladder's matches are played: this process (a dealer server of its own), or the
    workers of the Dask ``scheduler`` (``tcp://HOST:8786``)."""
    if scheduler is None:
        async with DealerServer("127.0.0.1:0") as server:
            yield LocalExecutor(server, max(1, config.ladder.jobs))
        return
    from dealer.league.cluster import dask_executor

    async with dask_executor({}, config.storage, matches_folder(config.storage), scheduler=scheduler) as executor:
        yield executor


@contextlib.asynccontextmanager
async def _build_executor(config: ArenaConfig, scheduler: str | None) -> AsyncIterator[BuildExecutor | None]:
    """Where builds and smoke tests run: this process (None), or the Dask cluster of ``scheduler``."""
    if scheduler is None:
        yield None
        return
    from dealer.arena.cluster import dask_builds  # imports Dask, which a local arena does not need

    async with dask_builds(config, scheduler) as executor:
        yield executor


async def _ladder(ladder: Ladder, config: ArenaConfig, scheduler: str | None) -> None:
    """Run the ladder forever (the house bot entered first, when it plays)."""
    seed = await ladder.store.seed(config.ladder.seed, draw_seed())
    if config.ladder.house:
        await ladder.store.ensure_house((sys.executable, str(HOUSE_PROGRAM)))
    async with executor_for(config, scheduler) as executor:
        await ladder.run(executor, seed)


def listen_problem(listen: str, error: OSError) -> str:
    """The one line that says why the arena cannot listen on ``listen`` (its file's ``listen:``)."""
    port = listen.rpartition(":")[2]
    if error.errno == errno.EADDRINUSE:
        return (
            f"cannot listen on {listen}: port {port} is already in use (another arena or program listens "
            "there): stop it, or give the arena file another listen: address"
        )
    return f"cannot listen on {listen} (the arena file's listen:): {error.strerror or error}"


async def run_arena(config: ArenaConfig, ready: Callable[[str], None], scheduler: str | None = None) -> None:
    """Serve the arena until SIGTERM (or Ctrl-C): the API on ``config.listen`` (``ready`` gets its
    URL once it listens), the builder, which first takes up the versions a stopped server left
    unbuilt (a build cut off by the stop is built again then), and the ladder (unless
    ``ladder.jobs`` is 0), which takes up the matches a stopped server left. With ``scheduler``,
    builds and smoke tests run on that Dask cluster's workers too."""
    _log_to(config)
    async with open_repository(config.database) as repository, _build_executor(config, scheduler) as build_on:
        builder = Builder(repository, config, build_on)
        ladder = Ladder(LadderStore(repository), config)
        app = make_app(repository, config, builder.queued, ladder.requested)
        add_pages(app)
        add_organiser_pages(app)
        runner = web.AppRunner(app, access_log=None, logger=REQUESTS, keepalive_timeout=config.http.header_timeout_s)
        await runner.setup()
        host, _, port = config.listen.rpartition(":")
        try:
            try:
                await GuardedSite(runner, host, int(port), config.http.connections_per_client).start()
            except OSError as error:  # the port is taken, the host is not this machine's, ...
                raise ArenaError(listen_problem(config.listen, error)) from None
            bound_host, bound_port = runner.addresses[0][:2]
            stop = asyncio.Event()  # SIGTERM stops it cleanly from the moment it says it is ready
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
            ready(f"http://{bound_host}:{bound_port}")
            tasks = {asyncio.create_task(builder.run()), asyncio.create_task(stop.wait())}
            if config.ladder.jobs > 0:
                tasks.add(asyncio.create_task(_ladder(ladder, config, scheduler)))
            await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in tasks:
                task.cancel()
            await asyncio.wait(tasks)
            for task in tasks:
                if not task.cancelled() and task.exception() is not None:
                    raise task.exception()  # type: ignore[misc]  # the builder or the ladder failed: a bug of ours
            LOGGER.info("arena stopped")
        finally:
            await runner.cleanup()
            await asyncio.sleep(0)  # let the closed connections' callbacks run before the loop ends
