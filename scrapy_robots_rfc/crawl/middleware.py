"""The downloader middleware: Scrapy's hooks, mapped onto the parts that do
the work, the way Scrapy's ``HttpCacheMiddleware`` maps them onto a policy
and a storage (docs/how-it-works.rst, "How it works"). :func:`.assemble`
builds every part from the one :class:`.Config`; the parts never call back
into the middleware, nor into each other's owners.

How a request travels, top to bottom in :meth:`RobotsTxtMiddleware.process_request`:

1. Its origin (:mod:`.policy._origin`), and its ticket if it waited before
   (:mod:`.crawl._tickets`).
2. A **hit**: its verdict from the cache (:meth:`.Verdicts.decide`, RFC 9309
   §2.2.2), allowed or forbidden.
3. A **miss**, or back from a wait: one ``await`` of :meth:`.Waits.wait`,
   which ends in allowed, forbidden, dropped (robots.txt unreachable for
   ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``, RFC 9309 §2.3.1.4), or away: a copy
   that waits out of the downloader, and comes back through the engine.
4. One ``match`` on that outcome; an allowed request that comes with
   something more (usage preferences, the fetch's response for the
   spider's robots.txt request, its crawl-delay turn) gets it from
   :meth:`.Allowance.grant`.
5. In a crawl that mines (``ROBOTSTXT_RFC_TDM``), an allowed request is
   checked against its origin's TDMRep file the same way, before that:
   a hit (:meth:`.TdmGate.decide`) or one ``await`` of :meth:`.Waits.wait`
   for the file, and one ``match``: reserved (T-4), or on its way.

Every outcome is counted in ``robotstxt/*`` stats and in the crawl report
(:mod:`.crawl._report`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future

from .. import policy
from .._runtime import Runtime
from ..exceptions import ForbiddenByRobotsTxt, RobotsTxtUnreachable, TdmReserved, TdmUnknown
from ..policy import ROBOTS_TXT, TDMREP_JSON, Origin, State, Verdict, origin
from ..robotstxt import NO_PREFERENCES, USAGE_META_KEY
from ._assembly import assemble
from ._config import Config, obeys
from ._fetcher import DOWNLOAD_PRIORITY
from ._jobdir import put_aside, resume_waiting
from ._kept_responses import asks_for_robots_txt
from ._log_count import counted
from ._misspelt_settings import warn_about_misspelt_settings
from ._outcomes import Allowed, Away, Dropped, Forbidden, Outcome, Reserved
from ._page_gate import PageGate
from ._startup_line import log_startup_line
from ._startup_warnings import (
    warn_about_builtin,
    warn_about_page_rules,
    warn_about_robotstxt_parser,
    warn_about_tdm_items,
    warn_about_tdm_without_obey,
)
from ._tickets import LEGACY_KEYS, TICKET_KEY, carried
from .addon import OURS, refuse_as_addon

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from ..pagerules import PageRules
    from ..policy import Origins
    from ..robotstxt import AgentRules, Preferences, Token
    from ._allowance import Allowance
    from ._crawler_names import CrawlerNames
    from ._kept_responses import KeptResponses
    from ._tdm_gate import TdmGate
    from ._usage_gate import UsageGate
    from ._verdicts import Verdicts
    from ._waits import Waits

__all__ = ["Origin", "RobotsTxtMiddleware", "origin", "page_rules", "usage_preferences"]

logger = logging.getLogger(__name__)


class RobotsTxtMiddleware:
    """Drop-in replacement for Scrapy's ``RobotsTxtMiddleware`` that follows
    RFC 9309 and Google's robots.txt specification."""

    #: The robots.txt request's priority, as in the built-in.
    DOWNLOAD_PRIORITY = DOWNLOAD_PRIORITY

    def __init__(self, crawler: Crawler) -> None:
        refuse_as_addon(crawler, OURS)
        # Before ROBOTSTXT_OBEY is read: "ROBOTSTXT_OBAY = True" is a slip too.
        warn_about_misspelt_settings(crawler.settings)
        if not obeys(crawler.settings):
            # Scrapy says nothing of a component that is not configured: a
            # project that enabled this one and forgot ROBOTSTXT_OBEY learns
            # why nothing is obeyed.
            logger.info(
                "robots.txt is not obeyed: ROBOTSTXT_OBEY is off, so %(ours)s does nothing; "
                "set ROBOTSTXT_OBEY = True to obey it",
                {"ours": OURS},
                extra={"crawler": crawler},
            )
            # A crawl that says it mines learns that reservations are not
            # honoured either (T-4): never silently nothing.
            warn_about_tdm_without_obey(crawler)
            raise NotConfigured
        self.crawler = crawler
        self.config = config = Config.from_settings(crawler.settings)
        # The defaults are the package's, not settings: ``scrapy settings``
        # cannot show them (docs/settings.rst, "Settings").
        logger.debug("Settings in effect: %(settings)r", {"settings": config.in_effect()})
        assert crawler.stats is not None
        self._runtime = runtime = Runtime(crawler.stats)
        #: Whether the crawl is a command's one-off run (set when the spider
        #: opens): no JOBDIR advice then.
        self._one_off = False
        #: Whether Scrapy's built-in runs beside (found when the spider opens).
        self._builtin_beside = False
        warn_about_robotstxt_parser(crawler, config.mode)
        # The parts, each built once and given what it needs; the request
        # path's four at hand.
        self._parts = parts = assemble(crawler, config, runtime)
        log_startup_line(crawler, config, parts.names)
        self._origins: Origins = parts.origins
        self._verdicts: Verdicts = parts.verdicts
        self._waits: Waits = parts.waits
        self._allowance: Allowance = parts.allowance
        self._names: CrawlerNames = parts.names
        self._usage: UsageGate = parts.usage
        self._pages: PageGate = parts.pages
        self._kept: KeptResponses = parts.kept
        #: The TDMRep file's verdicts, only in a crawl that mines (T-4).
        self._tdm: TdmGate | None = parts.tdm
        #: What the crawl reads on each request and response (P-4, U-6
        #: revised, T-4): page-level rules and usage preferences when it
        #: honours them or names usage categories, TDM reservations when it
        #: mines; otherwise only whether a page asks for page-level rules it
        #: leaves off (:meth:`.PageGate.notice`: a header lookup, and for HTML
        #: the search of its head).
        self._usage_on = bool(config.usage)
        self._reads_pages = config.page_rules or self._usage.reads_pages
        connect = crawler.signals.connect
        connect(self._spider_idle, signal=signals.spider_idle)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    @property
    def clock(self) -> Callable[[], float]:
        """The wall clock of cache lifetimes (``time.time``); tests replace
        it."""
        return self._runtime.clock

    @clock.setter
    def clock(self, clock: Callable[[], float]) -> None:
        self._runtime.clock = clock

    # -- read-only views ---------------------------------------------------

    @property
    def product_token(self) -> str:
        """The crawler's name for requests without their own User-Agent
        header: ``ROBOTSTXT_USER_AGENT``, else the product of ``USER_AGENT``
        that names the crawler, reduced to a product name in rfc mode
        (docs/decisions.md "crawler name", D-21); a crawler family's names are
        joined with ``", "``, most specific first (D-22)."""
        return self._names.name

    @property
    def crawler_names(self) -> tuple[str, ...]:
        """The names behind :attr:`product_token`, most specific first: one
        for a crawler, several for a crawler family (D-22)."""
        return self._names.names

    @property
    def name_notes(self) -> tuple[str, ...]:
        """What the start-up warnings said of the crawler's own names: for
        each name that is not a product token, what was taken and which
        groups apply (D-21); empty when every name is a product token."""
        return self._names.notes

    @property
    def page_gate(self) -> PageGate:
        """What :class:`.PageRulesMiddleware` asks about a callback's
        output (P-4)."""
        return self._pages

    @property
    def busy(self) -> bool:
        """Whether a robots.txt fetch is under way or requests wait for one:
        the engine may look idle meanwhile (a store read in a thread)."""
        lives = self._parts.lives
        return lives.waiting() or lives.fetching()

    @property
    def waiting_requests(self) -> int:
        """How many requests wait for robots.txt in this worker's memory now
        (those held in Redis for a fleet are not counted). When the spider
        closes, before this middleware's own ``spider_closed`` handler, they
        are the ones about to be saved in ``JOBDIR`` or abandoned
        (``robotstxt/waiting/saved``, ``robotstxt/waiting/abandoned``): the
        close-time monitor (:mod:`..monitors`) reads it then."""
        return self._parts.lives.waiting_requests()

    def entry(self, url: str) -> policy.Entry | None:
        """What the cache holds for the origin of ``url``, if anything."""
        return self._verdicts.entry(url)

    def state(self, url: str) -> State | None:
        """The :class:`~.policy.State` of ``url``'s origin now, ``None``
        while no fetch has decided it."""
        return self._verdicts.state(url)

    def agent_rules(self, url: str) -> AgentRules | None:
        """The rules the cache keeps for the crawler's own name (or family)
        at ``url``'s origin; ``None`` when it keeps none (undecided, or no
        rules: allow all)."""
        return self._verdicts.agent_rules(url)

    def sitemaps(self, url: str) -> tuple[str, ...] | None:
        """The ``Sitemap`` URLs of ``url``'s origin (RFC 9309 §2.2.4,
        OTHER-1: absolute, in file order, without duplicates), from the copy
        of its robots.txt that the cache holds: ``()`` when the file has
        none, or the origin has no robots.txt (a 4xx); ``None`` when the
        cache holds no copy the server sent (not fetched yet, evicted,
        unreachable with no good copy, refused by a local middleware)."""
        return self._verdicts.sitemaps(url)

    def explain(self, url: str) -> Verdict | None:
        """The verdict the cache gives ``url`` now for the crawler's name,
        with what decides it; ``None`` while the origin is undecided."""
        return self._verdicts.explain(url)

    @property
    def tdm_gate(self) -> TdmGate | None:
        """What :class:`.TdmReservationMiddleware` asks about a callback's
        items (T-4); ``None`` in a crawl that does not mine."""
        return self._tdm

    @property
    def mines(self) -> bool:
        """Whether the crawl honours TDM reservations (``ROBOTSTXT_RFC_TDM``)."""
        return self._tdm is not None

    def tdm_outcome(self, url: str) -> str | None:
        """What the last fetch of ``url``'s origin's TDMRep file found, in
        words ("200", "404: no file: unset", "HTTP 503"...); ``None`` before
        any, or in a crawl that does not mine."""
        return None if self._tdm is None else self._tdm.outcome(url)

    # -- the verdict -------------------------------------------------------

    async def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """``None`` to let ``request`` through, ``IgnoreRequest`` to drop it,
        a copy of it to take it out of the downloader while it waits, or the
        fetch's response for the spider's own request for a robots.txt."""
        meta = request.meta
        key = None if meta.get("dont_obey_robotstxt") else self._origins(request.url)
        if key is None:
            return self._ungoverned(request)
        token = self._names.of(request)  # the name it is decided for
        # A request that waited before carries its ticket (or the keys of 0.1).
        returning = TICKET_KEY in meta or not LEGACY_KEYS.isdisjoint(meta)
        # A request that may wait for one fetch only (scrapy robots) waits
        # so for the TDMRep file too: robots.txt's wait takes its ticket.
        once = returning and self._tdm is not None and carried(request).once
        outcome: Outcome | None = None
        if not returning:
            outcome = self._verdicts.decide(key, request, token)
        if outcome is None:  # a miss, or back from a wait
            outcome = await self._waits.wait(key, request, token, returning)
        match outcome:
            case Allowed(extras=False) if self._tdm is None:
                return None
            case Allowed():
                # The spider's own robots.txt requests are not mined.
                if self._tdm is not None and not asks_for_robots_txt(request.url):
                    away = await self._mined(key, request, token, once)
                    if away is not None:
                        return away
                if not outcome.extras:
                    return None
                return await self._allowance.grant(key, request, outcome)
            case Forbidden():
                raise ForbiddenByRobotsTxt
            case Dropped(reason=reason, document=document) if document is not ROBOTS_TXT:
                raise TdmUnknown(reason)  # a copy back from the file's wait
            case Dropped(reason=reason):
                raise RobotsTxtUnreachable(reason)
            case Away(copy=copy):
                return copy
            case Reserved():  # robots.txt's verdicts never reserve
                raise AssertionError(outcome)

    async def _mined(
        self, key: Origin, request: Request, token: Token, once: bool
    ) -> Request | None:
        """In a crawl that mines (T-4): ``None`` to let ``request`` go on,
        with its file's value in its meta; :class:`.TdmReserved` when the
        origin's TDMRep file reserves its URL; a copy that waits for the
        file out of the downloader; dropped when the file stays not known
        (T-2) for ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``."""
        assert self._tdm is not None
        outcome: Outcome | None = self._tdm.decide(key, request, token)
        if outcome is None:
            outcome = await self._waits.wait(key, request, token, document=TDMREP_JSON, once=once)
        match outcome:
            case Allowed():
                return None
            case Reserved(value=value):
                raise TdmReserved(value)
            case Dropped(reason=reason):
                raise TdmUnknown(reason)
            case Away(copy=copy):
                return copy
            case Forbidden():  # the file's verdicts never forbid
                raise AssertionError(outcome)

    def _ungoverned(self, request: Request) -> None:
        """A request that robots.txt does not govern (``dont_obey_robotstxt``,
        or a URL without an origin): in a crawl for named usage categories,
        only the header's part of its preferences (U-6)."""
        if self._usage_on:
            request.meta[USAGE_META_KEY] = NO_PREFERENCES

    async def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """The response's page-level rules (:mod:`.crawl._page_gate`) and
        usage preferences (:mod:`.crawl._usage_gate`) in its meta, and the
        drops they ask for, in a crawl that honours page-level rules or
        names usage categories (P-4, U-6 revised); in any other, whether
        the page asks for page-level rules the crawl leaves off. A
        coroutine, as ``process_request`` is: Scrapy awaits what each
        method returns, and would wrap a plain value in a coroutine of its
        own."""
        if self._tdm is not None:
            self._tdm.on_response(request, response)
        if self._reads_pages:
            self._pages.on_response(request, response, self._names.of(request))
        else:
            self._pages.notice(request, response, self._names)
        if self._usage_on:
            return self._usage.on_response(request, response)
        return response

    # -- reading a response's rules when asked (P-4, U-6) ----------------

    def page_rules(self, response: Response) -> PageRules:
        """The page-level rules of ``response`` for this crawler (its
        ``X-Robots-Tag`` headers and robots meta tags, P-1 to P-3), read
        now, once per response (:func:`scrapy_robots_rfc.page_rules`)."""
        request = response.request
        token = self._names.token if request is None else self._names.of(request)
        return self._pages.read(response, token)

    def usage(self, response: Response) -> Preferences:
        """The usage preferences of ``response`` (U-1 to U-8): robots.txt's
        for its request's URL, from the copy the cache holds, combined with
        its ``Content-Usage`` and ``Content-Signal`` headers and its page's
        ``noai``; read now, once per response
        (:func:`scrapy_robots_rfc.usage_preferences`). A request that does
        not obey robots.txt has its headers' part only."""
        request = response.request
        agent = None
        if request is not None and not request.meta.get("dont_obey_robotstxt"):
            agent = self._verdicts.agent_rules(request.url, self._names.of(request))
        page = self.page_rules(response) if self._usage.reads_pages else None
        return self._usage.read(response, agent, page)

    # -- the spider's life -------------------------------------------------

    async def _spider_opened(self, spider: Spider) -> None:
        parts = self._parts
        parts.shared.open()  # in the store's threads: the reactor goes on
        parts.progress.start()
        self._runtime.spider = spider
        self._one_off = _one_off(self.crawler, spider)
        self._builtin_beside = warn_about_builtin(self.crawler, spider)
        warn_about_page_rules(self.crawler, spider, self.config)
        warn_about_tdm_items(self.crawler, spider, self.config)
        if parts.holding is not None:
            await parts.holding.open(spider)
        parts.engine.give_back(resume_waiting(self.config.jobdir, spider))

    def _spider_idle(self, spider: Spider) -> None:
        if self._parts.lives.busy():
            raise DontCloseSpider

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        try:
            # What the close logs is counted in log_count/* (Scrapy 2.14+'s
            # LogCount has stopped counting by now).
            with counted(self.crawler):
                await self._close(spider, reason)
        finally:  # nothing holds the middleware once the crawl is over
            self._parts.progress.stop()

    async def _close(self, spider: Spider, reason: str) -> None:
        parts = self._parts
        # A robots.txt fetch cut off by the close must not be stored as the
        # origin's record for the fleet; the hand-over below still uses the store.
        parts.shared.closing = True
        parked = await parts.lives.close()
        try:
            if parts.holding is not None:  # held ones go to the fleet
                parked = await parts.holding.close(reason, parked)
        except Exception:  # kept or counted below instead; the store still closes
            message = "Cannot hand the requests waiting for robots.txt over to the fleet"
            logger.error(message, exc_info=True, extra={"spider": spider})
        finally:
            # Off the reactor, and for stores.CLOSE_WAIT seconds at most: a
            # hung store says what it did not store, and the crawl ends.
            await maybe_deferred_to_future(parts.shared.close())
        self._kept.clear()
        if parked:
            put_aside(
                self.config.jobdir,
                self._runtime.stats,
                parked,
                spider,
                reason,
                one_off=self._one_off,
            )
        parts.report.close(spider, self.config.report, builtin=self._builtin_beside)


def _middleware(crawler: Crawler) -> RobotsTxtMiddleware:
    middleware = crawler.get_downloader_middleware(RobotsTxtMiddleware)
    if middleware is None:
        raise RuntimeError(
            "scrapy_robots_rfc.RobotsTxtMiddleware is not enabled in this crawl: set "
            'ROBOTSTXT_OBEY = True and ADDONS = {"scrapy_robots_rfc.Addon": 100}'
        )
    return middleware


def page_rules(response: Response, crawler: Crawler) -> PageRules:
    """The page-level rules of ``response`` for the crawler (P-1 to P-3):
    what its ``X-Robots-Tag`` headers and robots meta tags say to it, read
    when asked, once per response (P-4). In a callback::

        rules = page_rules(response, self.crawler)
        if rules.noindex: ...

    ``RuntimeError`` when the crawl does not run this package's middleware."""
    return _middleware(crawler).page_rules(response)


def usage_preferences(response: Response, crawler: Crawler) -> Preferences:
    """The usage preferences of ``response`` (U-1 to U-8): robots.txt's for
    its URL combined with its ``Content-Usage`` and ``Content-Signal``
    headers and its page's ``noai``, read when asked, once per response
    (U-6). ``RuntimeError`` when the crawl does not run this package's
    middleware."""
    return _middleware(crawler).usage(response)


def _one_off(crawler: Crawler, spider: Spider) -> bool:
    """Whether the crawl is a command's one-off run rather than a crawl
    that ``JOBDIR`` could resume: ``scrapy shell`` drives the engine
    without ``Crawler.crawl``; ``scrapy fetch``, ``view``, ``parse`` and
    ``scrapy robots`` give the spider a ``start`` of their own (on Scrapy's
    ``DefaultSpider`` when no project spider handles the URL)."""
    from scrapy.utils.spider import DefaultSpider

    if not crawler.crawling or isinstance(spider, DefaultSpider):
        return True
    module = getattr(getattr(type(spider), "start", None), "__module__", None) or ""
    return module.startswith(("scrapy.commands.", "scrapy_robots_rfc.commands."))
