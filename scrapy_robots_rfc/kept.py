"""The spider's own requests for a robots.txt, answered with the response of
the middleware's fetch of that file, so that the server sees one GET per
origin (a ``SitemapSpider`` with ``sitemap_urls = [".../robots.txt"]``;
Scrapy issue 8069; README.rst, "Sitemaps").

Such a request (its URL is its origin's robots.txt URL, its meta has no
``dont_obey_robotstxt``) waits for the origin's fetch like any other request
(:mod:`.waiting`). When the fetch decides the origin, its response is kept
for the requests that waited for it, and each gets a copy whose ``request``
is itself. The body is let go when the last of them has taken it, or
:data:`KEEP_FOR` seconds after the fetch, whichever comes first: memory per
cached origin stays what the cache keeps (:mod:`.policy`). A request that
finds no response to take is downloaded as usual.

What the spider gets is what the server sent, never less: a response whose
body was cut at ``ROBOTSTXT_RFC_MAX_BYTES`` (RFC 9309 §2.5) is not handed
out, and the request downloads the whole file itself.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from .config import LOGGER_NAME
from .matcher import ROBOTS_TXT_PATH
from .policy import classify

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.http import Request, Response
    from scrapy.statscollectors import StatsCollector

    from .fetcher import Fetched
    from .origin import Origin

__all__ = ["KEEP_FOR", "SERVED_FLAG", "KeptResponses", "asks_for_robots_txt"]

logger = logging.getLogger(LOGGER_NAME)

#: Seconds a fetch's response is kept at most for the requests that waited
#: for it: a request that comes back later (from a long scheduler queue, or
#: one dropped meanwhile that never comes) is downloaded instead.
KEEP_FOR = 300.0
#: In the ``flags`` of a response answered from the fetch (shown in the
#: "Crawled" log line, as Scrapy's HTTP cache shows ``cached``).
SERVED_FLAG = "robotstxt_fetch"


def asks_for_robots_txt(url: str) -> bool:
    """Whether ``url`` is its origin's robots.txt itself (RFC 9309 §2.3:
    the path ``/robots.txt``, no query), the file the middleware fetches.

    >>> asks_for_robots_txt("https://example.com/robots.txt")
    True
    >>> asks_for_robots_txt("https://example.com/robots.txt?x=1")
    False
    >>> asks_for_robots_txt("https://example.com/a/robots.txt")
    False
    """
    if ROBOTS_TXT_PATH not in url:  # every request comes here: split only these
        return False
    parts = urlsplit(url)
    return parts.path == ROBOTS_TXT_PATH and not parts.query


@dataclass(eq=False, slots=True)
class _Kept:
    """What one fetch left for the requests that waited for it."""

    #: The response to hand out, ``None`` when there is none (``why``).
    response: Response | None
    #: Why there is no response, for the DEBUG line of a download.
    why: str
    #: Whether the fetch followed redirects to reach ``response``.
    redirected: bool
    #: Requests that waited and have not taken it yet.
    pending: int
    #: When it is let go (monotonic clock).
    until: float


class KeptResponses:
    """The responses kept for the spider's robots.txt requests, per origin.

    ``follows_redirects`` is ``REDIRECT_ENABLED``: a request that would not
    follow a redirect must see the 3xx, so it never gets a response the
    fetch reached through one.
    """

    def __init__(
        self,
        *,
        stats: StatsCollector,
        monotonic: Callable[[], float],
        follows_redirects: bool,
        spider: Callable[[], Spider | None],
    ) -> None:
        self._stats = stats
        self._monotonic = monotonic
        self._follows_redirects = follows_redirects
        self._spider = spider
        #: Oldest first: every item is kept for the same time.
        self._kept: dict[Origin, _Kept] = {}

    def __len__(self) -> int:
        return len(self._kept)

    def keep(self, key: Origin, fetched: Fetched | None, pending: int) -> None:
        """The fetch that decided ``key`` found ``fetched`` (``None``: the
        copy came from ``ROBOTSTXT_RFC_STORE``); ``pending`` requests for
        the file waited for it."""
        self._let_go_expired()
        response, why, redirected = None, "", False
        if fetched is None:
            why = "the copy in use came from ROBOTSTXT_RFC_STORE, not from a fetch"
        elif fetched.response is None:
            why = f"the fetch got no response ({fetched.answer.outcome})"
        elif classify(fetched.response.status) == "redirect":
            why = f"the fetch gave up on a redirect ({fetched.answer.outcome})"
        elif fetched.cut:
            why = "the fetch read only ROBOTSTXT_RFC_MAX_BYTES of it (RFC 9309 §2.5)"
        else:
            response, redirected = fetched.response, fetched.answer.redirects > 0
        self._kept.pop(key, None)  # the newest goes last
        self._kept[key] = _Kept(response, why, redirected, pending, self._monotonic() + KEEP_FOR)

    def serve(self, key: Origin, request: Request) -> Response | None:
        """The response for ``request``, the spider's request for ``key``'s
        robots.txt, which robots.txt allows: a copy of the fetch's, or
        ``None`` to download it (each counted and logged at DEBUG)."""
        self._let_go_expired()
        kept = self._kept.get(key)
        why = (
            "no response of a fetch is kept for it (it did not wait for the fetch, "
            f"or came back more than {KEEP_FOR:g} s after it)"
        )
        served = None
        if kept is not None:
            kept.pending -= 1
            if kept.pending <= 0:
                del self._kept[key]
            why = kept.why
            if kept.response is not None:
                if kept.redirected and not self._follows(request):
                    why = "the fetch was redirected, and the request does not follow redirects"
                else:
                    served = self._copy(kept.response, request, kept.redirected)
        if served is None:
            self._stats.inc_value("robotstxt/spider_request/downloaded")
            logger.debug(
                "Downloading %(request)s: %(why)s",
                {"request": request, "why": why},
                extra={"spider": self._spider()},
            )
            return None
        self._stats.inc_value("robotstxt/spider_request/served")
        logger.debug(
            "Answered %(request)s with the response of the robots.txt fetch: %(response)s",
            {"request": request, "response": served},
            extra={"spider": self._spider()},
        )
        return served

    def clear(self) -> None:
        """The spider closed: let every response go."""
        self._kept.clear()

    def _follows(self, request: Request) -> bool:
        """Whether Scrapy's ``RedirectMiddleware`` would follow a redirect
        for ``request``."""
        meta = request.meta
        return self._follows_redirects and not (
            meta.get("dont_redirect") or meta.get("handle_httpstatus_all")
        )

    @staticmethod
    def _copy(response: Response, request: Request, redirected: bool) -> Response:
        """``response`` for ``request``: the same class, status, headers and
        body; the URL is the request's, or where the redirects led."""
        return response.replace(
            url=response.url if redirected else request.url,
            request=request,
            flags=[*response.flags, SERVED_FLAG],
        )

    def _let_go_expired(self) -> None:
        now = self._monotonic()
        kept = self._kept
        while kept:
            key = next(iter(kept))
            if kept[key].until > now:
                break
            del kept[key]
