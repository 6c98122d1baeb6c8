"""``dealer arena serve``: the API and the builder on one event loop, with the arena's log.

The log (``storage/arena.log``, mode 0600) records submissions, refusals and builds by team and
version; never a token (the API's access log, which would add nothing but request lines, is off).
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Callable

from aiohttp import web

from dealer.arena.builds import Builder
from dealer.arena.config import ArenaConfig
from dealer.arena.http import make_app
from dealer.arena.layout import server_log
from dealer.arena.repository import open_repository

LOGGER = logging.getLogger(__name__)


def _log_to(config: ArenaConfig) -> None:
    """Send the dealer's log (arena, builds, matches) to ``storage/arena.log`` at info."""
    config.storage.mkdir(parents=True, exist_ok=True)
    path = server_log(config.storage)
    os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600))
    handler = logging.FileHandler(path, encoding="utf-8")
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    logger = logging.getLogger("dealer")
    logger.addHandler(handler)
    logger.setLevel(logging.INFO)
    logger.propagate = False


async def run_arena(config: ArenaConfig, ready: Callable[[str], None]) -> None:
    """Serve the arena until SIGTERM (or Ctrl-C): the API on ``config.listen`` (``ready`` gets its
    URL once it listens) and the builder, which first takes up the versions a stopped server left
    unbuilt (a build cut off by the stop is built again then)."""
    _log_to(config)
    async with open_repository(config.database) as repository:
        builder = Builder(repository, config)
        runner = web.AppRunner(make_app(repository, config, builder.queued), access_log=None)
        await runner.setup()
        host, _, port = config.listen.rpartition(":")
        try:
            await web.TCPSite(runner, host, int(port)).start()
            bound_host, bound_port = runner.addresses[0][:2]
            ready(f"http://{bound_host}:{bound_port}")
            stop = asyncio.Event()
            asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stop.set)
            building = asyncio.create_task(builder.run())
            stopping = asyncio.create_task(stop.wait())
            await asyncio.wait({building, stopping}, return_when=asyncio.FIRST_COMPLETED)
            for task in (building, stopping):
                task.cancel()
            if building.done() and not building.cancelled():
                building.result()  # the builder ended by itself: a bug of ours, raised
            LOGGER.info("arena stopped")
        finally:
            await runner.cleanup()
            await asyncio.sleep(0)  # let the closed connections' callbacks run before the loop ends
