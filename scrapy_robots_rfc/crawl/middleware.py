"""The downloader middleware: wiring between Scrapy and the parts that do
the work, the way Scrapy's ``HttpCacheMiddleware`` wires a policy and a
storage (README.rst, "How it works").

How a request travels:

1. ``process_request`` finds the request's origin (:mod:`.policy._origin`). With a
   usable copy of that origin's robots.txt in the cache (:mod:`.policy`),
   the verdict is immediate: ``None``, or :class:`.ForbiddenByRobotsTxt`.
2. Otherwise the robots.txt fetch starts, once per origin
   (:mod:`.crawl._fetcher`, through :mod:`.stores._async` with a store), and the request
   waits in the :mod:`.crawl._waiting_room` room, out of the downloader; in a fleet on
   scrapy-redis, it is held in Redis (:mod:`.fleet`).
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
import os
import time
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import DontCloseSpider, NotConfigured
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future

from .. import policy
from .._logging import LOGGER_NAME, reaches_a_handler
from .._timers import call_later
from ..exceptions import ForbiddenByRobotsTxt, RobotsTxtUnreachable
from ..policy import Origin, Origins, Standing, State, Verdict, origin, standing
from ..robotstxt import (
    NO_PREFERENCES,
    USAGE_META_KEY,
    ascii_lower,
    caller_name,
    canonical_match_string,
    crawler_name,
    name_problem,
    product_token,
)
from ..stores import SharedStore, open_store
from ._config import Config
from ._fetcher import DOWNLOAD_PRIORITY, Fetcher
from ._holding import hold_class, let_go
from ._jobdir import JOBDIR_FILE, load_waiting, save_waiting
from ._kept_responses import TAKER_KEY, KeptResponses, asks_for_robots_txt, unlike_the_fetch
from ._misspelt_settings import warn_about_misspelt_settings
from ._report import Report
from ._robots_loader import Resolver
from ._startup_warnings import warn_about_builtin, warn_about_robotstxt_parser
from ._usage_gate import UsageGate
from ._waiting_room import DROP_KEY, FILTER_KEY, SCHEDULED_KEY, Waiting, WaitingRoom

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable
    from typing import NoReturn, Self

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request, Response

    from ..robotstxt import AgentRules, Token

__all__ = ["Origin", "RobotsTxtMiddleware", "origin"]

logger = logging.getLogger(LOGGER_NAME)


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
        # cannot show them (README.rst, "Settings").
        logger.debug("Settings in effect: %(settings)r", {"settings": config.in_effect()})
        assert crawler.stats is not None
        self._stats = stats = crawler.stats
        #: The wall clock of cache lifetimes; tests replace it.
        self.clock: Callable[[], float] = time.time
        self._spider: Spider | None = None
        #: Whether the crawl is a command's one-off run (set when the spider
        #: opens): no JOBDIR advice then.
        self._one_off = False
        self._cache: policy.LruCache[Origin, policy.Entry] = policy.LruCache(config.max_origins)
        self._origins = Origins()
        #: Names already warned about, and what was said of the crawler's
        #: own; User-Agent header -> lower-cased name.
        self._warned_names: set[str] = set()
        self._name_notes: list[str] = []
        self._tokens: dict[bytes, str] = {}
        #: The crawler's names (docs/decisions.md "crawler name", D-21, D-22):
        #: ROBOTSTXT_USER_AGENT's, most specific first, else the product of
        #: USER_AGENT that names it; in rfc mode each is reduced to the
        #: crawler's product name.
        if config.robots_names is not None:
            names = tuple(
                self._checked_name(name, "ROBOTSTXT_USER_AGENT", own=True)
                for name in config.robots_names
            )
        else:
            name = product_token(config.user_agent)
            names = (self._checked_name(name, f"USER_AGENT {config.user_agent!r}", own=True),)
        self._names = names
        self._name = ", ".join(names)
        #: The key of an entry's rules: the lower-cased name, or the family's
        #: lower-cased names (D-22).
        self._default_token: Token = (
            ascii_lower(names[0]) if len(names) == 1 else tuple(map(ascii_lower, names))
        )
        warn_about_robotstxt_parser(crawler, config.mode)
        self._report = Report(config.max_origins)
        self._room = WaitingRoom(
            wait=config.unreachable_wait,
            monotonic=time.monotonic,
            call_later=call_later,
            start=self._start,
            release=self._release,
            reason=self._drop_reason,
            stats=stats,
            report=self._report,
            spider=self._current_spider,
        )
        store = open_store(
            config.store,
            crawler.settings.get("JOBDIR"),
            crawler=crawler,
            lease=config.lease,
            ttl=config.store_ttl,
            fetch_bound=config.fetch_bound,
        )
        self._shared = SharedStore(store, stats=stats, spider=self._current_spider)
        self._usage = UsageGate(
            config, stats, self._report, self._origins, spider=self._current_spider
        )
        self._kept = KeptResponses(
            stats=stats,
            call_later=call_later,
            follows_redirects=crawler.settings.getbool("REDIRECT_ENABLED"),
            spider=self._current_spider,
        )
        self._resolver = Resolver(
            crawler,
            config,
            stats,
            self._cache,
            self._report,
            Fetcher(crawler, config, stats, self._current_spider, owner=self, clock=self._now),
            self._shared,
            self._origins,
            room=self._room,
            token=self._default_token,
            clock=self._now,
            spider=self._current_spider,
        )
        self._fleet = hold_class(config, crawler.settings)(
            crawler,
            config,
            self._shared,
            self._room,
            clock=self._now,
            monotonic=time.monotonic,
            call_later=call_later,
            adopt=self._adopt_origin,
            stats=stats,
        )
        connect = crawler.signals.connect
        connect(self._request_scheduled, signal=signals.request_scheduled)
        connect(self._spider_idle, signal=signals.spider_idle)
        connect(self._spider_opened, signal=signals.spider_opened)
        connect(self._spider_closed, signal=signals.spider_closed)

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> Self:
        return cls(crawler)

    # -- read-only views ---------------------------------------------------

    @property
    def product_token(self) -> str:
        """The crawler's name for requests without their own User-Agent
        header: ``ROBOTSTXT_USER_AGENT``, else the product of ``USER_AGENT``
        that names the crawler, reduced to a product name in rfc mode
        (docs/decisions.md "crawler name", D-21); a crawler family's names are
        joined with ``", "``, most specific first (D-22)."""
        return self._name

    @property
    def crawler_names(self) -> tuple[str, ...]:
        """The names behind :attr:`product_token`, most specific first: one
        for a crawler, several for a crawler family (D-22)."""
        return self._names

    @property
    def name_notes(self) -> tuple[str, ...]:
        """What the start-up warnings said of the crawler's own names: for
        each name that is not a product token, what was taken and which
        groups apply (D-21); empty when every name is a product token."""
        return tuple(self._name_notes)

    @property
    def busy(self) -> bool:
        """Whether a robots.txt fetch is under way or requests wait for one:
        the engine may look idle meanwhile (a store read in a thread)."""
        return self._room.busy() or self._room.fetching()

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
        return None if rules is None else rules.get(self._default_token)

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
        agent = None if entry.rules is None else entry.rules.get(self._default_token)
        if state is State.UNREACHABLE or agent is None:
            return Verdict.of_state(url, self._name, state, entry.outcome, source=source)
        path = canonical_match_string(url, self.config.mode)
        return Verdict.of_rules(url, self._name, agent, path, state=state, source=source)

    # -- the verdict -------------------------------------------------------

    async def process_request(self, request: Request, spider: Spider | None = None) -> Any:
        """``None`` to let ``request`` through, ``IgnoreRequest`` to drop it,
        or a copy of it to take it out of the downloader while it waits.
        Read top to bottom: a cache hit is decided in step 1; a miss starts
        the fetch (2) and waits (3), then comes through again (4)."""
        meta = request.meta
        scheduled = meta.pop(SCHEDULED_KEY, False)
        if meta.pop(FILTER_KEY, False) and scheduled:
            request.dont_filter = False
        key = None if meta.get("dont_obey_robotstxt") else self._origins(request.url)
        if key is None:
            meta[USAGE_META_KEY] = NO_PREFERENCES  # the header's part only (U-6)
            return None
        token = self._token(request)
        # The spider's own request for this robots.txt (a SitemapSpider's):
        # answered with the fetch's response (:mod:`.crawl._kept_responses`) if it waited for
        # the fetch as ``taker``; dropped instead, it gives up its share.
        asks = asks_for_robots_txt(request.url)
        taker: str | None = meta.pop(TAKER_KEY, None) if asks else None
        try:
            reason = meta.pop(DROP_KEY, None)
            if reason is not None:  # sent back by the waiting room to be dropped
                self._drop(key, reason, request)
            # 1. Decided: the verdict now.
            hit = await self._cache_hit(key, request, token)
            if hit is not None:
                entry, agent = hit
                self._decide(request, key, entry, agent)
                self._usage.on_request(request, key, agent, entry.url or key.robots_url)
                if asks:
                    served = self._kept.serve(key, request, taker)
                    taker = None  # served or not, its share is taken
                    if served is not None:
                        return served
                if agent is not None and agent.crawl_delay and self.config.crawl_delay:
                    # Crawl-delay, across the fleet (OTHER-2)
                    await self._resolver.pacer.turn(key, request, agent.crawl_delay)
                return None
            # 2. Not decided: dropped now if it may not wait for the retry of
            # an unreachable origin (RFC 9309 §2.3.1.4); else the fetch starts,
            # unless one is under way or the backoff runs.
            known = self._cache.get(key)
            if known is not None and await self._may_not_wait(key, request, known, token):
                self._drop(key, known.outcome, request)
            waiting = self._fetch(key, request, token)
            if asks and unlike_the_fetch(request) is None:
                if taker is not None:  # its share of an earlier fetch
                    self._let_taker_go(key, taker)
                taker = self._kept.taker()
                waiting.asked.add(taker)
            # 3. It waits: out of the downloader (parked, or held in Redis) if
            # it came through the scheduler, else in place.
            if scheduled:
                copy = await self._park(key, request, taker)
                taker = None  # the copy carries it
                return copy
            reason = await maybe_deferred_to_future(self._room.wait_in_place(key, waiting))
            if reason is not None:
                self._drop(key, reason, request)
            if taker is not None:  # carried to step 4
                meta[TAKER_KEY], taker = taker, None
        finally:
            if taker is not None:
                self._let_taker_go(key, taker)
        # 4. Decided while it waited in place: through again, as a parked
        # request comes back from the engine.
        return await self.process_request(request)

    async def _cache_hit(
        self, key: Origin, request: Request, token: Token
    ) -> tuple[policy.Entry, AgentRules | None] | None:
        """The usable entry of ``key`` that keeps rules for ``token`` (or
        has none: allow all), and those rules; ``None`` on a miss. In a
        fleet, an origin no one here waits for costs one store read: another
        worker may have decided it. A good copy in force while robots.txt is
        unreachable is fetched again when its backoff is due."""
        entry = self._cache.get(key)
        if entry is None and key not in self._room and self._fleet.holding:
            entry = await self._resolver.peek(key, request, token)
        where = standing(entry, token, self.clock(), self.config.allow_after)
        if entry is None or where not in (Standing.DECIDED, Standing.RETRY_DUE):
            return None
        self._cache.touch(key)
        if where is Standing.RETRY_DUE:  # a good copy in force while unreachable
            self._fetch(key, request, token)
        let_go(request)
        return entry, None if entry.rules is None else entry.rules.get(token)

    async def _may_not_wait(
        self, key: Origin, request: Request, entry: policy.Entry, token: Token
    ) -> bool:
        """Whether ``request``, for an undecided origin, is dropped at once:
        held in Redis long enough (:mod:`.fleet`), or unreachable and in its
        backoff while it may not wait (:meth:`.WaitingRoom.no_time_to_wait`)."""
        if await self._fleet.expired(key, request, entry):
            return True
        where = standing(entry, token, self.clock(), self.config.allow_after)
        return where is Standing.BACKOFF and self._room.no_time_to_wait(key, request)

    async def _park(self, key: Origin, request: Request, taker: str | None) -> Request:
        """The copy of scheduled ``request`` that waits out of the
        downloader, carrying ``taker``: held in Redis in a fleet, else
        parked by the ``request_scheduled`` handler. ``dont_filter`` lets
        the copy past the dupefilter, which has seen the request once; it is
        set back on the verdict."""
        copy = request
        if not request.dont_filter:
            copy = request.replace(dont_filter=True)
            copy.meta[FILTER_KEY] = True
        if taker is not None:
            copy.meta[TAKER_KEY] = taker
        if not await self._hold(key, copy):
            self._room.park_when_scheduled(copy, key)
        return copy

    def process_response(
        self, request: Request, response: Response, spider: Spider | None = None
    ) -> Response:
        """Usage preferences of the ``Content-Usage`` header (U-6, :mod:`.crawl._usage_gate`)."""
        return self._usage.on_response(request, response)

    def _decide(
        self, request: Request, key: Origin, entry: policy.Entry, agent: AgentRules | None
    ) -> None:
        """Raise :class:`.ForbiddenByRobotsTxt` if ``agent``'s rules disallow
        ``request`` (RFC 9309 §2.2.2; PATH-5: the longest match decides)."""
        if agent is None or not agent.rules:
            return
        path = canonical_match_string(request.url, self.config.mode)
        rule = agent.deciding_rule(path)
        if rule is None or rule.allow:
            return
        self._stats.inc_value("robotstxt/forbidden")
        self._report.row(key).forbidden += 1
        if reaches_a_handler(logger, logging.DEBUG):
            source = entry.url or key.robots_url
            logger.debug(
                "Forbidden by robots.txt: %(request)s: %(verdict)s of %(robots)s",
                {
                    "request": request,
                    "verdict": Verdict.of_rules(
                        request.url, agent.token, agent, path, source=source
                    ),
                    "robots": source,
                },
                extra={"spider": self._spider},
            )
        raise ForbiddenByRobotsTxt

    async def _hold(self, key: Origin, copy: Request) -> bool:
        """Hold ``copy`` in Redis rather than in memory, if the crawl is a
        fleet's (:mod:`.fleet`); ``False`` if it must wait in memory."""
        if not await self._fleet.hold(key, copy):
            return False
        self._room.park_when_scheduled(copy, key, in_store=True)
        if not self._room.held_one(key, self._fleet.waited_since(copy)):
            self._fleet.release_soon(key)  # decided while Redis took it
        return True

    def _adopt_origin(self, key: Origin, trigger: Request, since: float) -> None:
        """Decide ``key``, whose held requests this worker adopted from
        another (:mod:`.fleet`); ``trigger`` stands for them."""
        entry = self._cache.get(key)
        if entry is not None and entry.usable(self.clock(), self.config.allow_after):
            self._fleet.release_soon(key)
            return
        token = self._token(trigger)
        waiting = self._room.join(key, trigger, token)
        self._room.adopted(key, waiting, self._fleet.to_monotonic(since))
        self._fetch(key, trigger, token)

    def _let_taker_go(self, key: Origin, taker: str) -> None:
        """A spider request for ``key``'s robots.txt that waited for a fetch
        as ``taker`` will not take its share: it was dropped."""
        waiting = self._room.get(key)
        if waiting is not None:
            waiting.asked.discard(taker)
        self._kept.release(key, taker)

    def _drop(self, key: Origin, reason: str, request: Request) -> NoReturn:
        let_go(request)
        self._stats.inc_value("robotstxt/unreachable/dropped")
        self._report.row(key).dropped += 1
        raise RobotsTxtUnreachable(reason)

    def _token(self, request: Request) -> Token:
        """The lower-cased name the request is decided for:
        ``ROBOTSTXT_USER_AGENT``, else the crawler's product in the request's
        User-Agent header, else in ``USER_AGENT`` (docs/decisions.md "crawler
        name")."""
        header = request.headers.get(b"User-Agent")
        if self.config.robots_user_agent is not None or not header:
            return self._default_token
        try:
            return self._tokens[header]
        except KeyError:
            if len(self._tokens) >= 64:
                self._tokens.clear()
            text = caller_name(header)
            name = self._checked_name(product_token(text), f"the User-Agent header {text!r}")
            token = self._tokens[header] = ascii_lower(name)
            return token

    def _checked_name(self, name: str, source: str, *, own: bool = False) -> str:
        """The name the rules are looked up for (D-21: in rfc mode a name
        that is not a product token, ``[A-Za-z_-]+`` per RFC 9309 §2.2.1, is
        reduced to the crawler's product name), with one warning per name
        that is not a product token saying what was taken and which groups
        it selects; the crawler's ``own`` names keep it for
        :attr:`name_notes`."""
        mode = self.config.mode
        problem = name_problem(name, mode)
        if problem is not None and name not in self._warned_names:
            self._warned_names.add(name)
            if own:
                self._name_notes.append(f"the name {name!r} {problem}")
            logger.warning(
                "The robots.txt name of this crawler, %(name)r from %(source)s, %(problem)s. "
                "If that is not what you want, set ROBOTSTXT_USER_AGENT to the name site "
                'owners use for your crawler, e.g. ROBOTSTXT_USER_AGENT = "MyBot".',
                {"name": name, "source": source, "problem": problem},
            )
        return crawler_name(name, mode)

    # -- fetching ----------------------------------------------------------

    def _fetch(self, key: Origin, trigger: Request, token: Token) -> Waiting:
        """Start fetching ``key``'s robots.txt unless a fetch is under way,
        or the backoff of an unreachable one has not ended (RFC 9309
        §2.3.1.4): the origin's life decides (:class:`.policy.OriginLife`)."""
        entry = self._cache.get(key)
        now = self.clock()
        if entry is None or entry.unreachable_since is None or entry.due(now):
            return self._room.fetch(key, trigger, token, retry_in=None, outcome="")
        return self._room.fetch(
            key, trigger, token, retry_in=entry.retry_at - now, outcome=entry.outcome
        )

    def _start(self, key: Origin, waiting: Waiting) -> None:
        deferred_from_coro(self._fetch_and_settle(key, waiting))

    async def _fetch_and_settle(self, key: Origin, waiting: Waiting) -> None:
        entry, fetched = await self._resolver.decide(key, waiting)
        try:
            now = self.clock()
            usable = entry.usable(now, self.config.allow_after)
            if usable and waiting.asked:
                self._kept.keep(key, fetched, waiting.asked)
                waiting.asked = set()
            since = entry.unreachable_since
            self._room.settle(
                key,
                decided=usable,
                retry_in=None if usable else entry.retry_at - now,
                # Held requests are dropped by the fleet's clock: the record's.
                unreachable_since=None if since is None else self._fleet.to_monotonic(since),
            )
        except Exception:
            logger.error(
                "Error releasing the requests that waited for %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self._spider},
            )

    # -- the waiting room's callbacks --------------------------------------

    def _now(self) -> float:
        return self.clock()

    def _current_spider(self) -> Spider | None:
        return self._spider

    def _drop_reason(self, key: Origin) -> str:
        entry = self._cache.get(key)
        return entry.outcome if entry is not None else "robots.txt not fetched"

    def _request_scheduled(self, request: Request, **kwargs: Any) -> None:
        # **kwargs: PyDispatcher then passes the signal's arguments as they
        # are instead of matching them to the parameters, for every request.
        self._room.scheduled(request)

    def _release(self, requests: Iterable[Request]) -> None:
        engine = self.crawler.engine
        for request in requests:
            try:
                engine.crawl(request)
            except Exception:  # the engine is closing
                logger.error(
                    "Could not send %(request)s back to the engine after it waited for robots.txt",
                    {"request": request},
                    exc_info=True,
                    extra={"spider": self._spider},
                )

    # -- the spider's life -------------------------------------------------

    async def _spider_opened(self, spider: Spider) -> None:
        self._spider = spider
        self._one_off = _one_off(self.crawler, spider)
        warn_about_builtin(self.crawler, spider)
        await self._fleet.open(spider)
        self._release(_resume_waiting(self.crawler, spider))

    def _spider_idle(self, spider: Spider) -> None:
        if self._room.busy() or self._fleet.busy:
            raise DontCloseSpider

    async def _spider_closed(self, spider: Spider, reason: str) -> None:
        # A robots.txt fetch cut off by the close must not be stored as the
        # origin's record for the fleet; the hand-over below still uses the store.
        self._shared.closing = True
        try:
            parked = await self._fleet.close(reason)  # held ones go to the fleet
        except Exception:  # kept or counted below instead; the store still closes
            message = "Cannot hand the requests waiting for robots.txt over to the fleet"
            logger.error(message, exc_info=True, extra={"spider": spider})
            parked = self._room.close()
        finally:
            self._shared.close()
        self._kept.clear()
        if parked:
            _put_aside(self.crawler, parked, spider, reason, one_off=self._one_off)
        self._report.close(spider, self.config.report)


def _jobdir_file(crawler: Crawler) -> str | None:
    jobdir = crawler.settings.get("JOBDIR")
    return os.path.join(jobdir, JOBDIR_FILE) if jobdir else None


def _resume_waiting(crawler: Crawler, spider: Spider) -> list[Request]:
    """The requests that were waiting when the crawl paused, from ``JOBDIR``,
    to send back to the engine."""
    path = _jobdir_file(crawler)
    if path is None or not os.path.exists(path):
        return []
    requests = load_waiting(path, spider) or []
    if requests:
        logger.info(
            "Resuming %(requests)s that %(were)s waiting for robots.txt",
            {"requests": _requests(len(requests)), "were": _were(len(requests))},
            extra={"spider": spider},
        )
    return requests


def _put_aside(
    crawler: Crawler, parked: list[Request], spider: Spider, reason: str, *, one_off: bool
) -> None:
    """Save in ``JOBDIR`` the requests still waiting in memory when the
    spider closed (``reason``), or count them as abandoned; a command's
    ``one_off`` run gets no JOBDIR advice."""
    stats = crawler.stats
    assert stats is not None
    path = _jobdir_file(crawler)
    if path is None:
        count = len(parked)
        stats.set_value("robotstxt/waiting/abandoned", count)
        message = (
            "%(requests)s %(were)s still waiting for robots.txt when the spider closed (%(reason)s)"
        )
        # A command's one request (scrapy fetch, shell, robots...) has no
        # next run to keep it for.
        if not one_off:
            message += "; set JOBDIR to keep %(them)s for the next run"
        logger.warning(
            message,
            {
                "requests": _requests(count),
                "were": _were(count),
                "reason": reason,
                "them": "it" if count == 1 else "them",
            },
            extra={"spider": spider},
        )
        return
    saved, failed = save_waiting(path, parked, spider)
    if failed:
        stats.inc_value("robotstxt/waiting/abandoned", failed)
    stats.set_value("robotstxt/waiting/saved", saved)


def _requests(count: int) -> str:
    return f"{count} request" if count == 1 else f"{count} requests"


def _were(count: int) -> str:
    return "was" if count == 1 else "were"


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
