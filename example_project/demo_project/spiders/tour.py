"""The ``tour`` spider: crawls every origin of the local site, following
links, and records what happened to each request, per origin.

robots.txt is not this spider's business: the middleware decides. Its
errback tells the outcomes apart by the ``IgnoreRequest`` it receives:
``"Forbidden by robots.txt"`` for a URL the rules disallow, and
``"robots.txt unreachable: ..."`` for a request that waited for an
unreachable robots.txt longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
"""

from __future__ import annotations

import time
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from scrapy import Request, Spider
from scrapy.exceptions import IgnoreRequest
from scrapy.http import HtmlResponse
from scrapy.spidermiddlewares.httperror import HttpError
from scrapy.utils.defer import maybe_deferred_to_future

from demo_project.localsite import LocalSite

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Iterator

    from scrapy.http import Response
    from twisted.python.failure import Failure

FORBIDDEN = "Forbidden by robots.txt"
UNREACHABLE = "robots.txt unreachable"


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
    #: (path, error)
    errors: list[tuple[str, str]] = field(default_factory=list)


class TourSpider(Spider):
    name = "tour"

    def __init__(self, *args: Any, site: LocalSite | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.site = site if site is not None else LocalSite()
        self.origins: defaultdict[str, OriginLog] = defaultdict(OriginLog)
        self.started = time.monotonic()

    async def start(self) -> AsyncIterator[Any]:
        self.site.start()
        self.started = time.monotonic()
        for spec in self.site.specs.values():
            if not spec.crawl:
                continue
            for path in spec.start:
                url = self.site.url(spec.name, path)
                yield Request(url, callback=self.parse, errback=self.failed)

    def parse(self, response: Response, **kwargs: Any) -> Iterator[Request]:
        self._log(response.url).crawled.append(path_of(response.url))
        if not isinstance(response, HtmlResponse):
            return
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href, callback=self.parse, errback=self.failed)

    def failed(self, failure: Failure) -> None:
        request: Request = failure.request  # type: ignore[attr-defined]
        log = self._log(request.url)
        path = path_of(request.url)
        message = str(failure.value)
        if failure.check(HttpError) or not failure.check(IgnoreRequest):
            log.errors.append((path, f"{type(failure.value).__name__}: {message}"))
        elif message.startswith(FORBIDDEN):
            log.forbidden.append(path)
            self.logger.info("Forbidden by robots.txt: %s", request.url)
        elif message.startswith(UNREACHABLE):
            log.dropped.append((path, time.monotonic() - self.started, message))
            self.logger.info("Dropped (%s): %s", message, request.url)
        else:
            log.errors.append((path, f"IgnoreRequest: {message}"))

    async def closed(self, reason: str) -> None:
        await maybe_deferred_to_future(self.site.stop())

    def _log(self, url: str) -> OriginLog:
        return self.origins[self.site.origin_of(url) or url]
