"""The downloader middleware: wiring between Scrapy and the parts that do
the work, the way Scrapy's ``HttpCacheMiddleware`` wires a policy and a
storage (docs/how-it-works.rst, "How it works").

How a request travels:

1. ``process_request`` finds the request's origin (:mod:`.policy._origin`). With a
   usable copy of that origin's robots.txt in the cache (:mod:`.policy`),
   the verdict is immediate: ``None``, or :class:`.ForbiddenByRobotsTxt`.
2. Otherwise the waiting room (:mod:`.crawl._waiting_room`) starts the
   robots.txt load, once per origin (:mod:`.crawl._robots_loader`: the
   fetch, through :mod:`.stores._async` with a store), and the request waits
   there, out of the downloader; in a fleet on scrapy-redis, it is held in
   Redis (:mod:`.fleet`). The room and the parts below never call back into
   the middleware.
3. When the origin is decided, its waiting requests go back to the engine
   and come through step 1 again; a request still waiting after
   ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` seconds is dropped with
   :class:`.RobotsTxtUnreachable`.
4. A spider request for an origin's robots.txt itself (a ``SitemapSpider``
   on ``/robots.txt``) waits for the fetch in the same way, and is answered
   with the fetch's response instead of a second download (:mod:`.crawl._kept_responses`).

Every outcome is counted in ``robotstxt/*`` stats and in the crawl report
(:mod:`.crawl._report`). Usage preferences (``Content-Usage``, ``Content-Signal``)
go into each request's and response's meta, and drop those
``ROBOTSTXT_RFC_USAGE`` says the crawl may not use (:mod:`.crawl._usage_gate`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.utils.defer import maybe_deferred_to_future

from .. import policy
from .._logging import reaches_a_handler
from .._runtime import Runtime
from ..exceptions import ForbiddenByRobotsTxt, RobotsTxtUnreachable
from ..policy import Origin, Origins, State, Verdict, origin
from ..robotstxt import NO_PREFERENCES, USAGE_META_KEY, canonical_match_string
from ..stores import SharedStore, open_store
from ._config import Config
from ._crawler_names import CrawlerNames
from ._fetcher import DOWNLOAD_PRIORITY
from ._holding import let_go
from ._jobdir import put_aside, resume_waiting
from ._kept_responses import TAKER_KEY, KeptResponses, asks_for_robots_txt, unlike_the_fetch
from ._misspelt_settings import warn_about_misspelt_settings
from ._page_gate import PageGate
from ._report import Report
from ._startup_warnings import (
    warn_about_builtin,
    warn_about_page_rules,
    warn_about_robotstxt_parser,
)
from ._usage_gate import UsageGate
from ._waiting_room import DROP_KEY, FILTER_KEY, WaitingRoom

if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import NoReturn, Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from ..robotstxt import AgentRules

__all__ = ["Origin", "RobotsTxtMiddleware", "origin"]

logger = logging.getLogger(__name__)


class RobotsTxtMiddleware:
    """Drop-in replacement for Scrapy's ``RobotsTxtMiddleware`` that follows
    RFC 9309 and Google's robots.txt specification."""

    #: The robots.txt request's priority, as in the built-in.
    DOWNLOAD_PRIORITY = DOWNLOAD_PRIORITY

    def __init__(self, crawler: Crawler) -> None:
        # Before ROBOTSTXT_OBEY is read: "ROBOTSTXT_OBAY = True" is a slip too.
        warn_about_misspelt_settings(crawler.settings)
        if not crawler.settings.getbool("ROBOTSTXT_OBEY"):
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
        self._names = CrawlerNames(config, runtime)
        warn_about_robotstxt_parser(crawler, config.mode)
        self._report = Report(config.max_origins, runtime.stats)
        self._cache: policy.LruCache[Origin, policy.Entry] = policy.LruCache(config.max_origins)
        self._origins = Origins()
        store = open_store(
            config.store,
            crawler.settings.get("JOBDIR"),
            crawler=crawler,
            lease=config.lease,
            ttl=config.store_ttl,
            fetch_bound=config.fetch_bound,
        )
        self._shared = SharedStore(store, runtime)
        self._usage = UsageGate(runtime, config, self._report, self._origins)
        self._pages = PageGate(runtime, config, self._report, self._origins)
        self._kept = KeptResponses(
            runtime, follows_redirects=crawler.settings.getbool("REDIRECT_ENABLED")
        )
        self._room = WaitingRoom(
            runtime,
            crawler,
            config,
            cache=self._cache,
            report=self._report,
            shared=self._shared,
            kept=self._kept,
            names=self._names,
            origins=self._origins,
        )
        self._pacer = self._room.loader.pacer
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
        return self._room.waiting() or self._room.fetching()

    @property
    def waiting_requests(self) -> int:
        """How many requests wait for robots.txt in this worker's memory now
        (those held in Redis for a fleet are not counted). When the spider
        closes, before this middleware's own ``spider_closed`` handler, they
        are the ones about to be saved in ``JOBDIR`` or abandoned
        (``robotstxt/waiting/saved``, ``robotstxt/waiting/abandoned``): the
        close-time monitor (:mod:`..monitors`) reads it then."""
        return self._room.waiting_requests()

    def entry(self, url: str) -> policy.Entry | None:
        """What the cache holds for the origin of ``url``, if anything."""
        key = self._origins(url)
        return None if key is None else self._cache.get(key)

    def state(self, url: str) -> State | None:
        """The :class:`~.policy.State` of ``url``'s origin now, ``None``
        while no fetch has decided it."""
        entry = self.entry(url)
        return None if entry is None else entry.state(self.clock(), self.config.allow_after)

    def agent_rules(self, url: str) -> AgentRules | None:
        """The rules the cache keeps for the crawler's own name (or family)
        at ``url``'s origin; ``None`` when it keeps none (undecided, or no
        rules: allow all)."""
        entry = self.entry(url)
        rules = None if entry is None else entry.rules
        return None if rules is None else rules.get(self._names.token)

    def sitemaps(self, url: str) -> tuple[str, ...] | None:
        """The ``Sitemap`` URLs of ``url``'s origin (RFC 9309 §2.2.4,
        OTHER-1: absolute, in file order, without duplicates), from the copy
        of its robots.txt that the cache holds: ``()`` when the file has
        none, or the origin has no robots.txt (a 4xx); ``None`` when the
        cache holds no copy the server sent (not fetched yet, evicted,
        unreachable with no good copy, refused by a local middleware)."""
        entry = self.entry(url)
        return entry.sitemaps if entry is not None and entry.good else None

    def explain(self, url: str) -> Verdict | None:
        """The verdict the cache gives ``url`` now for the crawler's name,
        with what decides it; ``None`` while the origin is undecided."""
        key = self._origins(url)
        entry = None if key is None else self._cache.get(key)
        if key is None or entry is None:
            return None
        source = entry.url or key.robots_url
        state = entry.state(self.clock(), self.config.allow_after)
        agent = None if entry.rules is None else entry.rules.get(self._names.token)
        name = self._names.name
        if state is State.UNREACHABLE or agent is None:
            return Verdict.of_state(url, name, state, entry.outcome, source=source)
        path = canonical_match_string(url, self.config.mode)
        return Verdict.of_rules(url, name, agent, path, state=state, source=source)

    # -- the verdict -------------------------------------------------------

    async def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """``None`` to let ``request`` through, ``IgnoreRequest`` to drop it,
        or a copy of it to take it out of the downloader while it waits.
        Read top to bottom: a cache hit is decided in step 1; a miss starts
        the fetch (2) and waits (3), then comes through again (4)."""
        meta = request.meta
        room = self._room
        scheduled = room.from_scheduler(request)
        if meta.pop(FILTER_KEY, False):  # a parked copy, or one given back to download_async
            request.dont_filter = False
        url = request.url
        key = None if meta.get("dont_obey_robotstxt") else self._origins(url)
        if key is None:
            meta[USAGE_META_KEY] = NO_PREFERENCES  # the header's part only (U-6)
            return None
        token = self._names.of(request)
        # The spider's own request for this robots.txt (a SitemapSpider's):
        # answered with the fetch's response (:mod:`.crawl._kept_responses`) if it waited for
        # the fetch as ``taker``; dropped instead, it gives up its share.
        asks = asks_for_robots_txt(url)
        taker: str | None = meta.pop(TAKER_KEY, None) if asks else None
        try:
            reason = meta.pop(DROP_KEY, None)
            if reason is not None:  # sent back by the waiting room to be dropped
                self._drop(key, reason, request)
            # 1. Decided: the verdict now.
            hit = room.cached(key, request, token)
            if hit is None:  # in a fleet, another worker may have decided it
                hit = await room.shared(key, request, token)
            if hit is not None:
                entry, agent = hit
                self._decide(request, key, entry, agent)
                self._usage.on_request(request, key, agent, entry.url)
                if asks:
                    served = self._kept.serve(key, request, taker)
                    taker = None  # served or not, its share is taken
                    if served is not None:
                        return served
                if agent is not None and agent.crawl_delay and self.config.crawl_delay:
                    # Crawl-delay, across the fleet (OTHER-2)
                    await self._pacer.turn(key, request, agent.crawl_delay)
                return None
            # 2. Not decided: dropped now if it may not wait (held long
            # enough, or unreachable in its backoff: RFC 9309 §2.3.1.4);
            # else the fetch starts, unless one is under way or the backoff
            # runs.
            reason = await room.may_not_wait(key, request, token)
            if reason is not None:
                self._drop(key, reason, request)
            waiting = room.need(key, request, token)
            if asks and unlike_the_fetch(request) is None:
                if taker is not None:  # its share of an earlier fetch
                    room.let_taker_go(key, taker)
                taker = self._kept.taker()
                waiting.asked.add(taker)
            # 3. It waits: out of the downloader (parked, or held in Redis) if
            # it came through the scheduler, else in place.
            if scheduled:
                copy = await room.park(key, request, taker)
                taker = None  # the copy carries it
                return copy
            reason = await maybe_deferred_to_future(room.wait_in_place(key, waiting))
            if reason is not None:
                self._drop(key, reason, request)
            if taker is not None:  # carried to step 4
                meta[TAKER_KEY], taker = taker, None
        finally:
            if taker is not None:
                room.let_taker_go(key, taker)
        # 4. Decided while it waited in place: through again, as a parked
        # request comes back from the engine.
        return await self.process_request(request)

    async def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """The response's page-level rules (P-1, :mod:`.crawl._page_gate`)
        and usage preferences (U-6, :mod:`.crawl._usage_gate`), in its
        meta. A coroutine, as ``process_request`` is: Scrapy awaits what
        each method returns, and would wrap a plain value in a coroutine
        of its own."""
        self._pages.on_response(request, response, self._names.of(request))
        return self._usage.on_response(request, response)

    def _decide(
        self, request: Request, key: Origin, entry: policy.Entry, agent: AgentRules | None
    ) -> None:
        """Raise :class:`.ForbiddenByRobotsTxt` if ``agent``'s rules disallow
        ``request`` (RFC 9309 §2.2.2; PATH-5: the longest match decides)."""
        if agent is None:
            return
        rule = agent.url_rule(request.url)
        if rule is None or rule.allow:
            return
        self._runtime.stats.inc_value("robotstxt/forbidden")
        self._report.row(key).forbidden += 1
        if reaches_a_handler(logger, logging.DEBUG):
            source = entry.url or key.robots_url
            path = canonical_match_string(request.url, agent.mode)
            logger.debug(
                "Forbidden by robots.txt: %(request)s: %(verdict)s of %(robots)s",
                {
                    "request": request,
                    "verdict": Verdict.of_rules(
                        request.url, agent.token, agent, path, source=source
                    ),
                    "robots": source,
                },
                extra=self._runtime.log,
            )
        raise ForbiddenByRobotsTxt

    def _drop(self, key: Origin, reason: str, request: Request) -> NoReturn:
        let_go(request)
        self._runtime.stats.inc_value("robotstxt/unreachable/dropped")
        self._report.row(key).dropped += 1
        raise RobotsTxtUnreachable(reason)

    # -- the spider's life -------------------------------------------------

    async def _spider_opened(self, spider: Spider) -> None:
        # In a fleet, the request_scheduled handler marks every request from
        # the scheduler: connected before the requests JOBDIR kept are sent
        # back below.
        self._room.listen()
        self._runtime.spider = spider
        self._one_off = _one_off(self.crawler, spider)
        warn_about_builtin(self.crawler, spider)
        warn_about_page_rules(self.crawler, spider, self.config)
        await self._room.hold.open(spider)
        self._room.release(resume_waiting(self.crawler, spider))

    def _spider_idle(self, spider: Spider) -> None:
        if self._room.busy():
            raise DontCloseSpider

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        try:
            await self._close(spider, reason)
        finally:  # nothing holds the middleware once the crawl is over
            self._room.stop_listening()

    async def _close(self, spider: Spider, reason: str) -> None:
        # A robots.txt fetch cut off by the close must not be stored as the
        # origin's record for the fleet; the hand-over below still uses the store.
        self._shared.closing = True
        try:
            parked = await self._room.hold.close(reason)  # held ones go to the fleet
        except Exception:  # kept or counted below instead; the store still closes
            message = "Cannot hand the requests waiting for robots.txt over to the fleet"
            logger.error(message, exc_info=True, extra={"spider": spider})
            parked = self._room.close()
        finally:
            # Off the reactor, and for stores.CLOSE_WAIT seconds at most: a
            # hung store says what it did not store, and the crawl ends.
            await maybe_deferred_to_future(self._shared.close())
        self._kept.clear()
        if parked:
            put_aside(self.crawler, parked, spider, reason, one_off=self._one_off)
        self._report.close(spider, self.config.report)


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
