"""Giving requests back to Scrapy's engine: the one way back into the crawl
for a request that waited for robots.txt away from the downloader (parked
in memory, or resumed from ``JOBDIR``)."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy.http import Request

    from .._runtime import Runtime

logger = logging.getLogger(__name__)


class EngineGate:
    """Gives requests back to the engine (``engine.crawl``)."""

    def __init__(self, runtime: Runtime, crawl: Callable[[Request], object]) -> None:
        self._runtime = runtime
        self._crawl = crawl

    def give_back(self, requests: Iterable[Request]) -> None:
        for request in requests:
            try:
                self._crawl(request)
            except Exception:  # the engine is closing
                logger.error(
                    "Could not send %(request)s back to the engine after it waited for robots.txt",
                    {"request": request},
                    exc_info=True,
                    extra=self._runtime.log,
                )
