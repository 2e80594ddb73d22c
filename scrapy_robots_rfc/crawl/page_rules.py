"""The spider middleware that honours page-level rules when the crawl asks
(P-4): ``SPIDER_MIDDLEWARES = {"scrapy_robots_rfc.PageRulesMiddleware": 950}``,
which the add-on sets: close to the spider, so that what it drops is never
seen by the spider middlewares after it (depth, referer...).

It is not configured unless ``ROBOTSTXT_OBEY`` is on and the crawl asks for
page-level rules to be honoured (``ROBOTSTXT_RFC_NOFOLLOW = True``, or
``ROBOTSTXT_RFC_NOINDEX = "drop"``): otherwise it costs nothing. The rules
themselves are read by :class:`~scrapy_robots_rfc.RobotsTxtMiddleware`, which
puts them in every response's meta; this middleware asks its page gate
(:mod:`.crawl._page_gate`) about each request and item a callback yields.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import NotConfigured
from scrapy.spidermiddlewares.base import BaseSpiderMiddleware

from ._config import obeys, page_rules_asked
from .addon import OURS_SPIDER, refuse_as_addon
from .middleware import RobotsTxtMiddleware

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Response

    from ._page_gate import PageGate

__all__ = ["PageRulesMiddleware"]

logger = logging.getLogger(__name__)


class PageRulesMiddleware(BaseSpiderMiddleware):
    """Drop what a callback yields from a page whose robots meta tag or
    ``X-Robots-Tag`` forbids it for this crawler: requests from a
    ``nofollow`` page (``ROBOTSTXT_RFC_NOFOLLOW``), items from a
    ``noindex`` page or one past its ``unavailable_after``
    (``ROBOTSTXT_RFC_NOINDEX = "drop"``)."""

    def __init__(self, crawler: Crawler) -> None:
        refuse_as_addon(crawler, OURS_SPIDER)
        super().__init__(crawler)
        settings = crawler.settings
        if not obeys(settings):
            raise NotConfigured
        if not page_rules_asked(settings):
            raise NotConfigured
        self._gate: PageGate | None = None
        crawler.signals.connect(self._spider_opened, signal=signals.spider_opened)

    def _spider_opened(self, spider: Spider) -> None:
        middleware = self.crawler.get_downloader_middleware(RobotsTxtMiddleware)
        if middleware is None:
            logger.warning(
                "Page-level rules are not honoured: ROBOTSTXT_RFC_NOFOLLOW or "
                "ROBOTSTXT_RFC_NOINDEX asks for them, but "
                "scrapy_robots_rfc.RobotsTxtMiddleware, which reads them, is not in "
                'DOWNLOADER_MIDDLEWARES (use ADDONS = {"scrapy_robots_rfc.Addon": 100})',
                extra={"spider": spider},
            )
            return
        self._gate = middleware.page_gate

    def get_processed_request(self, request: Request, response: Response | None) -> Request | None:
        gate = self._gate
        if gate is None or response is None:  # a start request, or nothing reads the rules
            return request
        return gate.request_from(response, request)

    def get_processed_item(self, item: Any, response: Response | None) -> Any:
        gate = self._gate
        if gate is None or response is None:
            return item
        return gate.item_from(response, item)
