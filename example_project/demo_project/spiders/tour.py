"""The ``tour`` spider: crawls every origin of the local site, following
links, yields one item per page, and records what happened to each request,
per origin.

robots.txt is not this spider's business: the middleware decides. Its
errback tells the outcomes apart by the ``IgnoreRequest`` subclass it
receives (``scrapy_robots_rfc``'s public exceptions):
``ForbiddenByRobotsTxt`` for a URL the rules disallow,
``RobotsTxtUnreachable`` for a request that waited for an unreachable
robots.txt longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``, and
``ForbiddenByUsagePreference`` for one whose content this crawl may not use
(``ROBOTSTXT_RFC_USAGE``). What page-level rules drop (the links of a
``nofollow`` page, the item of a ``noindex`` one) never reaches the spider:
the ``item_scraped`` signal tells which items reached the pipeline.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import Request, Spider, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import maybe_deferred_to_future

from demo_project.localsite import LocalSite
from scrapy_robots_rfc import (
    ForbiddenByRobotsTxt,
    ForbiddenByUsagePreference,
    RobotsTxtUnreachable,
    page_rules,
    usage_preferences,
)

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from scrapy.crawler import Crawler
    from scrapy.http import Response
    from twisted.python.failure import Failure


def path_of(url: str) -> str:
    """The path and query of ``url``, as the server sees them."""
    parts = urlsplit(url)
    return f"{parts.path or '/'}?{parts.query}" if parts.query else parts.path or "/"


@dataclass
class OriginLog:
    """What happened to the requests for one origin."""

    crawled: list[str] = field(default_factory=list)
    forbidden: list[str] = field(default_factory=list)
    #: (path, seconds after the crawl started, the middleware's reason)
    dropped: list[tuple[str, float, str]] = field(default_factory=list)
    #: (path, the exception's message, where: "robots.txt", "header", "page"...)
    usage: list[tuple[str, str, str]] = field(default_factory=list)
    #: path -> the paths of the links its callback yielded
    links: dict[str, list[str]] = field(default_factory=dict)
    #: path -> its page-level rules for this crawler, each with where it
    #: came from, when it has any
    page_rules: dict[str, str] = field(default_factory=dict)
    #: the pages whose rules say nofollow, and noindex
    nofollow: set[str] = field(default_factory=set)
    noindex: set[str] = field(default_factory=set)
    #: path -> its usage preferences (robots.txt's for its URL, with its
    #: headers' and its page's), when any is stated
    preferences: dict[str, str] = field(default_factory=dict)
    #: the pages whose item reached the item pipeline
    items: list[str] = field(default_factory=list)
    #: (path, error)
    errors: list[tuple[str, str]] = field(default_factory=list)


class TourSpider(Spider):
    name = "tour"
    #: What this crawl asks of robots.txt and of the pages beyond the
    #: project's settings (here, not in settings.py, so that ``scrapy
    #: robots`` in this project shows the defaults): honour page-level
    #: ``nofollow`` and ``noindex``, crawl for AI training only where the
    #: site allows it, and keep the crawl-delay robots.txt asks for.
    custom_settings = {  # noqa: RUF012 (Scrapy reads it from the class)
        "ROBOTSTXT_RFC_NOFOLLOW": True,
        "ROBOTSTXT_RFC_NOINDEX": "drop",
        "ROBOTSTXT_RFC_USAGE": ["train-ai"],
        "ROBOTSTXT_RFC_CRAWL_DELAY": True,
    }

    def __init__(self, *args: Any, site: LocalSite | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.site = site if site is not None else LocalSite()
        self.origins: defaultdict[str, OriginLog] = defaultdict(OriginLog)
        self.started = time.monotonic()

    @classmethod
    def from_crawler(cls, crawler: Crawler, *args: Any, **kwargs: Any) -> TourSpider:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.item_scraped, signal=signals.item_scraped)
        return spider

    async def start(self) -> AsyncIterator[Any]:
        self.site.start()
        self.started = time.monotonic()
        for spec in self.site.specs.values():
            if not spec.crawl:
                continue
            for path in spec.start:
                yield self._request(self.site.url(spec.name, path))

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Any]:
        path = path_of(response.url)
        log = self._log(response.url)
        log.crawled.append(path)
        rules = page_rules(response, self.crawler)
        if rules.directives:
            log.page_rules[path] = "; ".join(map(str, rules.directives))
            if rules.nofollow:
                log.nofollow.add(path)
            if rules.noindex:
                log.noindex.add(path)
        preferences = usage_preferences(response, self.crawler)
        if preferences:  # a category is stated
            log.preferences[path] = str(preferences)
        yield {"url": response.url}
        if not isinstance(response, HtmlResponse):
            return
        links = log.links[path] = []
        for href in response.css("a::attr(href)").getall():
            url = response.urljoin(href)
            links.append(path_of(url))
            yield self._request(url)

    def item_scraped(self, item: dict[str, str], response: Response, spider: Spider) -> None:
        self._log(item["url"]).items.append(path_of(item["url"]))

    def failed(self, failure: Failure) -> None:
        request: Request = failure.request  # type: ignore[attr-defined]
        log = self._log(request.url)
        path = path_of(request.url)
        error = failure.value
        message = str(error)
        if isinstance(error, ForbiddenByRobotsTxt):
            log.forbidden.append(path)
            self.logger.info("Forbidden by robots.txt: %s", request.url)
        elif isinstance(error, RobotsTxtUnreachable):
            log.dropped.append((path, time.monotonic() - self.started, message))
            self.logger.info("Dropped (%s): %s", message, request.url)
        elif isinstance(error, ForbiddenByUsagePreference):
            log.usage.append((path, message, error.where))
            self.logger.info("Dropped (%s): %s", message, request.url)
        elif failure.check(HttpError) or not failure.check(IgnoreRequest):
            log.errors.append((path, f"{type(error).__name__}: {message}"))
        else:
            log.errors.append((path, f"IgnoreRequest: {message}"))

    async def closed(self, reason: str) -> None:
        await maybe_deferred_to_future(self.site.stop())

    def _request(self, url: str) -> Request:
        # One download slot per origin (docs/fleets.rst, "Origins that share
        # a host name"): every origin is on 127.0.0.1, whose one slot would
        # otherwise give the crawl-delay origin's 1 s to all of them.
        slot = urlsplit(url).netloc
        return Request(url, self.parse, errback=self.failed, meta={"download_slot": slot})

    def _log(self, url: str) -> OriginLog:
        return self.origins[self.site.origin_of(url) or url]
