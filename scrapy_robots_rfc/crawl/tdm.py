"""The spider middleware that keeps the items of TDM-reserved pages from the
pipeline, in a crawl that mines (``ROBOTSTXT_RFC_TDM``; T-4):
``SPIDER_MIDDLEWARES = {"scrapy_robots_rfc.TdmReservationMiddleware": 960}``,
which the add-on sets: close to the spider, so that no spider middleware
after it sees such an item.

A page whose ``tdm-reservation`` header field or ``<meta
name="tdm-reservation">`` tag reserves its text and data mining rights (its
final value in ``response.meta["robotstxt_tdm"]``, which
:class:`~scrapy_robots_rfc.RobotsTxtMiddleware` sets) was downloaded, since
that was not known before; its links are still followed (following is not
mining), so the requests its callback yields go on, but the items it yields
are dropped: ``robotstxt/tdm/items_dropped``, a DEBUG line each. URLs the
origin's ``tdmrep.json`` reserves are never downloaded at all.

It is not configured unless ``ROBOTSTXT_OBEY`` and ``ROBOTSTXT_RFC_TDM``
are on: otherwise it costs nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from ._config import tdm_asked
from .addon import OURS_TDM_SPIDER, refuse_as_addon
from .middleware import RobotsTxtMiddleware

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ._tdm_gate import TdmGate

__all__ = ["TdmReservationMiddleware"]

logger = logging.getLogger(__name__)


class TdmReservationMiddleware(BaseSpiderMiddleware):
    """Drop the items a callback yields from a page that reserves its TDM
    rights (T-4); let its requests through."""

    def __init__(self, crawler: Crawler) -> None:
        refuse_as_addon(crawler, OURS_TDM_SPIDER)
        super().__init__(crawler)
        settings = crawler.settings
        # With ROBOTSTXT_OBEY off the downloader middleware says that
        # reservations are not honoured (T-4).
        if not settings.getbool("ROBOTSTXT_OBEY") or not tdm_asked(settings):
            raise NotConfigured
        self._gate: TdmGate | None = None
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    def _spider_opened(self, spider: Spider) -> None:
        middleware = self.crawler.get_downloader_middleware(RobotsTxtMiddleware)
        gate = None if middleware is None else middleware.tdm_gate
        if gate is None:
            logger.warning(
                "TDM reservations are not honoured: ROBOTSTXT_RFC_TDM asks for them, but "
                "scrapy_robots_rfc.RobotsTxtMiddleware, which reads them, is not in "
                'DOWNLOADER_MIDDLEWARES (use ADDONS = {"scrapy_robots_rfc.Addon": 100})',
                extra={"spider": spider},
            )
        self._gate = gate

    def get_processed_request(self, request: Request, response: Response | None) -> Request:
        return request  # following is not mining (T-4)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        gate = self._gate
        if gate is None or response is None:  # nothing reads them, or from start()
            return item
        return gate.item_from(response, item)
