"""The spider's own requests for a robots.txt, answered with the response of
the middleware's fetch of that file, so that the server sees one GET per
origin (a ``SitemapSpider`` with ``sitemap_urls = [".../robots.txt"]``;
Scrapy issue 8069; docs/sitemaps.rst, "Sitemaps").

Such a request (its URL is its origin's robots.txt URL, its meta has no
``dont_obey_robotstxt``) waits for the origin's fetch like any other request
(:mod:`.crawl._lives`). When the fetch decides the origin, its response is kept
for the requests that waited for it (*takers*, each known by an id that its
:class:`.Ticket` carries, so that a copy or a disk queue keeps it), and each
gets a copy whose ``request`` is itself. A taker that is dropped instead
(``ForbiddenByRobotsTxt``, ``ROBOTSTXT_RFC_USAGE``, an unreachable origin)
gives up its share. The body is let go when the last taker has had its
share, or :data:`KEEP_FOR` seconds after the fetch (a timer), whichever
comes first: memory per cached origin stays what the cache keeps
(:mod:`.policy`). A request that finds no response to take is downloaded as
usual.

Only a plain GET is answered so (:func:`unlike_the_fetch`): another method,
a body, a ``Range`` or a conditional header asks the server for something
else than the fetch asked, and is downloaded.

What the spider gets is what the server sent, never less: a response whose
body was cut at ``ROBOTSTXT_RFC_MAX_BYTES`` (RFC 9309 §2.5) is not handed
out, and the request downloads the whole file itself. Nor more than the
request may receive: a body over its ``download_maxsize`` (by default
``DOWNLOAD_MAXSIZE``) is not handed out either, and Scrapy cancels the
request's own download as it would have.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from ..policy import classify
from ..robotstxt import ROBOTS_TXT_PATH

if TYPE_CHECKING:
    from scrapy.http import Request, Response

    from .._runtime import Runtime
    from .._timers import Timer
    from ..policy import Origin
    from ._fetcher import Fetched
    from ._tickets import Ticket

logger = logging.getLogger(__name__)

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


def unlike_the_fetch(request: Request) -> str | None:
    """Why the fetch's response is not the answer to ``request``, a request
    for a robots.txt, or ``None`` when it is: the fetch is a plain GET
    (RFC 9309 §2.3), so another method, a body, a ``Range`` header or a
    conditional ``If-*`` header (RFC 9110 §13) asks for something else.

    >>> from scrapy import Request
    >>> unlike_the_fetch(Request("http://a.test/robots.txt")) is None
    True
    >>> unlike_the_fetch(Request("http://a.test/robots.txt", method="HEAD"))
    'it is a HEAD request'
    >>> unlike_the_fetch(Request("http://a.test/robots.txt", headers={"If-None-Match": "x"}))
    'it has an If-None-Match header'
    """
    if request.method != "GET":
        return f"it is a {request.method} request"
    if request.body:
        return "it has a body"
    for name in request.headers:
        text = name.decode("latin-1")
        lower = text.lower()
        if lower == "range" or lower.startswith("if-"):
            return (
                f"it has an {text} header" if lower.startswith("if-") else f"it has a {text} header"
            )
    return None


@dataclass(frozen=True, slots=True)
class Share:
    """The spider's own request for its origin's robots.txt, and its share
    of a fetch's response: ``taker``, the id it waited for a fetch with
    (its :class:`.Ticket`'s), or ``None`` when it did not wait for one."""

    taker: str | None = None


@dataclass(eq=False, slots=True)
class _Kept:
    """What one fetch left for the requests that waited for it."""

    #: The response to hand out, ``None`` when there is none (``why``).
    response: Response | None
    #: Why there is no response, for the DEBUG line of a download.
    why: str
    #: Whether the fetch followed redirects to reach ``response``.
    redirected: bool
    #: The ids of the requests that waited and have not had their share.
    takers: set[str] = field(default_factory=set)
    #: Lets it go :data:`KEEP_FOR` seconds after the fetch.
    timer: Timer | None = None


class KeptResponses:
    """The responses kept for the spider's robots.txt requests, per origin.

    ``follows_redirects`` is ``REDIRECT_ENABLED``: a request that would not
    follow a redirect must see the 3xx, so it never gets a response the
    fetch reached through one. ``maxsize`` is ``DOWNLOAD_MAXSIZE`` (0: no
    limit): a request whose limit (its ``download_maxsize`` meta, or that)
    the fetch's body exceeds is downloaded, and Scrapy cancels it as it
    would have. ``call_later`` is the reactor's (tests pass
    ``twisted.internet.task.Clock``'s).
    """

    def __init__(
        self,
        runtime: Runtime,
        *,
        follows_redirects: bool,
        maxsize: int = 0,
    ) -> None:
        self._runtime = runtime
        self._follows_redirects = follows_redirects
        self._maxsize = maxsize
        self._kept: dict[Origin, _Kept] = {}
        #: Per origin, the takers that wait for its next fetch.
        self._waiting: dict[Origin, set[str]] = {}

    def __len__(self) -> int:
        return len(self._kept)

    @staticmethod
    def share_of(request: Request, ticket: Ticket | None) -> Share | None:
        """If ``request`` is the spider's request for its origin's
        robots.txt, its :class:`Share` (the taker its ``ticket`` carries, if
        it waited for a fetch); ``None`` for any other request."""
        if not asks_for_robots_txt(request.url):
            return None
        return Share(None if ticket is None else ticket.taker)

    def wait_for(self, key: Origin, request: Request, share: Share | None) -> Share | None:
        """``request`` waits for ``key``'s next fetch: a robots.txt request
        (``share``) that is a plain GET gets a new share of that fetch's
        response (an id unique across runs too, since a ``JOBDIR`` brings
        requests of an earlier run back with theirs); its share of an
        earlier fetch is given up."""
        if share is None:
            return None
        self.release(key, share)
        if unlike_the_fetch(request) is not None:
            return Share()
        taker = uuid.uuid4().hex
        self._waiting.setdefault(key, set()).add(taker)
        return Share(taker)

    def keep(self, key: Origin, fetched: Fetched | None, why: str) -> None:
        """The fetch that decided ``key`` found ``fetched`` (``None``: there
        is no fetch to take from, and ``why`` says why, e.g. the copy came
        from ``ROBOTSTXT_RFC_STORE``); the requests that waited for it take
        their shares."""
        takers = self._waiting.pop(key, None)
        redirected = False
        response: Response | None = None
        if fetched is None:
            pass
        elif fetched.response is None:
            why = f"the fetch got no response ({fetched.answer.outcome})"
        elif classify(fetched.response.status) == "redirect":
            why = f"the fetch gave up on a redirect ({fetched.answer.outcome})"
        elif fetched.cut:
            why = "the fetch read only ROBOTSTXT_RFC_MAX_BYTES of it (RFC 9309 §2.5)"
        else:
            response, redirected = fetched.response, fetched.answer.redirects > 0
        self._let_go(key)
        if not takers:
            return
        kept = self._kept[key] = _Kept(response, why, redirected, takers)
        kept.timer = self._runtime.call_later(KEEP_FOR, lambda: self._expire(key, kept))

    def release(self, key: Origin, share: Share | None) -> None:
        """The request of ``share`` will not take it (it was dropped);
        nothing for ``None`` or a share without a taker."""
        taker = None if share is None else share.taker
        if taker is None:
            return
        waiting = self._waiting.get(key)
        if waiting is not None:
            waiting.discard(taker)
            if not waiting:
                del self._waiting[key]
        kept = self._kept.get(key)
        if kept is not None and taker in kept.takers:
            kept.takers.discard(taker)
            if not kept.takers:
                self._let_go(key)

    def serve(self, key: Origin, request: Request, share: Share) -> Response | None:
        """The response for ``request``, the spider's request for ``key``'s
        robots.txt, which robots.txt allows, and which waited for the fetch
        with ``share``: a copy of the fetch's, or ``None`` to download it
        (each counted and logged at DEBUG)."""
        taker = share.taker
        kept = self._kept.get(key)
        unlike = unlike_the_fetch(request)
        why = unlike or (
            "no response of a fetch is kept for it (it did not wait for the fetch, "
            f"or came back more than {KEEP_FOR:g} s after it)"
        )
        served = None
        if taker is not None and kept is not None and taker in kept.takers:
            self.release(key, share)
            if unlike is None:
                why = kept.why
                if kept.response is None:
                    pass
                elif kept.redirected and not self._follows(request):
                    why = "the fetch was redirected, and the request does not follow redirects"
                elif (too_large := self._too_large(kept.response, request)) is not None:
                    why = too_large
                else:
                    served = self._copy(kept.response, request, kept.redirected)
        if served is None:
            self._runtime.stats.inc_value("robotstxt/spider_request/downloaded")
            logger.debug(
                "Downloading %(request)s: %(why)s",
                {"request": request, "why": why},
                extra=self._runtime.log,
            )
            return None
        self._runtime.stats.inc_value("robotstxt/spider_request/served")
        logger.debug(
            "Answered %(request)s with the response of the robots.txt fetch: %(response)s",
            {"request": request, "response": served},
            extra=self._runtime.log,
        )
        return served

    def clear(self) -> None:
        """The spider closed: let every response go."""
        self._waiting.clear()
        for key in list(self._kept):
            self._let_go(key)

    def _let_go(self, key: Origin) -> None:
        kept = self._kept.pop(key, None)
        if kept is not None and kept.timer is not None:
            kept.timer.cancel()

    def _expire(self, key: Origin, kept: _Kept) -> None:
        """:data:`KEEP_FOR` seconds have passed since ``kept`` was kept."""
        kept.timer = None
        if self._kept.get(key) is kept:
            del self._kept[key]

    def _too_large(self, response: Response, request: Request) -> str | None:
        """Why ``response`` is larger than ``request`` may receive (its
        ``download_maxsize``, else ``DOWNLOAD_MAXSIZE``; 0: no limit), or
        ``None``: the fetch reads robots.txt to ``ROBOTSTXT_RFC_MAX_BYTES``
        whatever the pages' limit."""
        limit = request.meta.get("download_maxsize", self._maxsize)
        size = len(response.body)
        if not limit or size <= limit:
            return None
        return f"the fetch's body ({size} bytes) is larger than its download_maxsize ({limit})"

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
