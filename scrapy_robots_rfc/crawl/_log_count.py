"""The lines the middleware logs when the spider closes, counted in
``log_count/<LEVEL>`` as every other line of the crawl.

Scrapy 2.14+ counts log lines with its ``LogCount`` extension, which takes
its counting handler off the root logger in its own ``spider_closed``
handler; extensions are built before the downloader middlewares, so that
handler runs first, and a line the middleware logs while it closes (the
requests still waiting for robots.txt, the crawl's summary) was not counted.
On Scrapy 2.13 the handler stays until the engine stops, and counts them.
"""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import TYPE_CHECKING

from scrapy.utils.log import LogCounterHandler

if TYPE_CHECKING:
    from collections.abc import Iterator

    from scrapy.crawler import Crawler


@contextmanager
def counted(crawler: Crawler) -> Iterator[None]:
    """Count what is logged within in ``crawler``'s stats, as Scrapy's own
    handler would (same class, same ``LOG_LEVEL``), unless that handler is
    still on the root logger (Scrapy 2.13): never twice."""
    root = logging.getLogger()
    if any(
        isinstance(handler, LogCounterHandler) and handler.crawler is crawler
        for handler in root.handlers
    ):
        yield
        return
    handler = LogCounterHandler(crawler, level=crawler.settings.get("LOG_LEVEL"))
    root.addHandler(handler)
    try:
        yield
    finally:
        root.removeHandler(handler)
