"""Deciding an origin: its robots.txt fetched (:mod:`.crawl._fetcher`) or read from
the shared store (:mod:`.stores._async`), parsed, turned into a cache entry by the
policy (:mod:`.policy`), counted and logged; then what follows parsing, the
crawl-delay and the ``robots_parsed`` signal."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from .. import policy
from .._logging import LOGGER_NAME
from ..policy import Answer, State
from ..robotstxt import RobotsTxt, cut_at_limit
from ..stores import entry_from_record, record_for
from ._crawl_delay import Pacer, floor_slot
from ._fetcher import Fetched
from ._waiting_room import Waiting
from .robotparser import RobotParser

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.core.downloader import Downloader
    from scrapy.crawler import Crawler
    from scrapy.http import Request
    from scrapy.statscollectors import StatsCollector

    from ..policy import Origin, Origins
    from ..robotstxt import AgentRules, Token
    from ..stores import Record, SharedStore
    from ._config import Config
    from ._fetcher import Fetcher
    from ._report import Report
    from ._waiting_room import WaitingRoom

logger = logging.getLogger(LOGGER_NAME)

#: Why :meth:`Resolver.decide` has no fetch of this crawler's to show: the
#: entry came from ``ROBOTSTXT_RFC_STORE`` (the DEBUG line of :mod:`.crawl._kept_responses`).
FROM_THE_STORE = "the copy in use came from ROBOTSTXT_RFC_STORE, not from a fetch"


@dataclass(eq=False)
class Resolver:
    """Turns fetches and stored records into cache entries."""

    crawler: Crawler
    config: Config
    stats: StatsCollector
    cache: policy.LruCache[Origin, policy.Entry]
    report: Report
    fetcher: Fetcher
    shared: SharedStore
    origins: Origins
    #: Where requests wait: the cache never evicts their origins, and the
    #: WARNING of an unreachable origin says what happens next to them.
    room: WaitingRoom
    #: The crawler's lower-cased name, whose rules are always kept.
    token: Token
    clock: Callable[[], float]
    spider: Callable[[], Spider | None]
    #: Callers of :meth:`peek` waiting for the read under way, per origin.
    _peeks: dict[Origin, list[Deferred[policy.Entry | None]]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: The crawl-delay turns (OTHER-2): ``process_request`` awaits
    #: ``pacer.turn`` for each allowed request.
    pacer: Pacer = field(init=False, repr=False)
    #: Per origin, the crawl-delay its robots.txt asks for and the one in
    #: force, as the INFO line said them; as many origins as the cache.
    _delays_said: policy.LruCache[Origin, tuple[float, float]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.pacer = Pacer(
            self.config,
            self.shared,
            downloader=self._downloader,
            stats=self.stats,
        )
        self._delays_said = policy.LruCache(self.config.max_origins)

    def _downloader(self) -> Downloader:
        return self.crawler.engine.downloader

    async def decide(self, key: Origin, waiting: Waiting) -> tuple[policy.Entry, Fetched | str]:
        """Fetch (or read from the store) ``key``'s robots.txt and cache the
        entry it gives; also what this crawler's fetch found, or why there
        is none (the entry came from the store, or an error of ours ended
        the fetch), for :mod:`.crawl._kept_responses`. Never raises."""
        previous = self.cache.get(key)
        fetched: Fetched | str
        try:
            if not self.shared.available:
                entry, fetched = await self._fetch_entry(key, waiting, previous)
            else:
                entry, ours = await self._through_store(key, waiting, previous)
                fetched = ours if ours is not None else FROM_THE_STORE
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self.spider()},
            )
            answer = Answer(State.UNREACHABLE, f"{type(exc).__name__}: {exc}")
            entry = self._entry(key, Fetched(answer), previous, None)
            fetched = f"an error ended the fetch ({answer.outcome})"
        self._remember(key, entry)
        return entry, fetched

    async def peek(self, key: Origin, trigger: Request, token: Token) -> policy.Entry | None:
        """What the store knows of ``key``, without fetching: the entry of
        its record, cached, when the record is in force (fresh, or
        unreachable and in its backoff: another crawler decided the origin);
        ``None`` when there is none, it is due, or the store is not in use.
        Concurrent peeks of one origin share one read; never raises."""
        if not self.shared.available:
            return None
        waiters = self._peeks.get(key)
        if waiters is not None:
            d: Deferred[policy.Entry | None] = Deferred()
            waiters.append(d)
            return await maybe_deferred_to_future(d)
        self._peeks[key] = waiters = []
        entry = None
        try:
            record = await self.shared.get(str(key))
            if record is not None:
                waiting = self.room.get(key)
                tokens = {token, *(() if waiting is None else waiting.tokens)}
                found, in_force = await self._from_record(
                    key, Waiting(trigger, tokens=tokens), record, "robotstxt/store/hit"
                )
                if in_force:
                    entry = found
                    self._remember(key, entry)
        except Exception:  # a bug of ours: the caller fetches instead
            logger.error(
                "Error reading %(url)s from ROBOTSTXT_RFC_STORE",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self.spider()},
            )
        finally:
            del self._peeks[key]
            for d in waiters:
                d.callback(entry)
        return entry

    async def _fetch_entry(
        self, key: Origin, waiting: Waiting, previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched]:
        """Fetch and apply the status policy (HTTP-1 to HTTP-8; RFC 9309
        §2.3.1). An answer that means "allow all" (4xx, redirects given up
        on) sends ``robots_parsed`` with a parser that allows everything, as
        the built-in sends one for every response."""
        if previous is not None and previous.good:
            self.stats.inc_value("robotstxt/cache/refreshed")
        row = self.report.row(key)
        row.fetches += 1
        # Fetching again the robots.txt of an origin with a crawl-delay is
        # one of its requests: it takes a turn (OTHER-2).
        paced = self._crawl_delay(previous)
        if paced:
            await self.pacer.turn(key, waiting.trigger, paced)
        fetched = await self.fetcher.fetch(key, waiting.trigger)
        row.redirects += fetched.answer.redirects
        rules = None
        sitemaps: tuple[str, ...] = ()
        if fetched.body is not None:
            robots, rules = self._rules(key, waiting, fetched.body)
            sitemaps = robots.sitemaps
            self.stats.inc_value("robotstxt/rules")
            await self._adopt(key, waiting, robots, rules)
            if not paced:
                # The first fetch counts as the origin's first turn, taken
                # before the record is stored: no crawler sharing the store
                # sends a page sooner than the crawl-delay after it.
                await self.pacer.seed(key, waiting.trigger, rules[self.token].crawl_delay)
        entry = self._entry(key, fetched, previous, rules, sitemaps)
        if entry.allows_all_by_answer():
            await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", self.config.mode))
        return entry, fetched

    async def _through_store(
        self, key: Origin, waiting: Waiting, previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched | None]:
        """The entry from the store when it is fresh there; otherwise fetch,
        one crawler at a time, and store what was found; and what this
        crawler's fetch found, if it fetched."""
        config = self.config
        ours: Fetched | None = None

        async def use(record: Record, stat: str) -> policy.Entry | None:
            nonlocal previous
            entry, in_force = await self._from_record(key, waiting, record, stat)
            if not in_force:
                previous = entry
                return None
            return entry

        async def fetch(old: Record | None) -> tuple[policy.Entry, Record | None]:
            nonlocal ours
            entry, fetched = await self._fetch_entry(key, waiting, previous)
            ours = fetched
            status = fetched.answer.status
            now = self.clock()
            return entry, record_for(entry, body=fetched.body, status=status, old=old, now=now)

        entry = await self.shared.fetch_once(str(key), lease=config.lease, use=use, fetch=fetch)
        return entry, ours

    async def _from_record(
        self, key: Origin, waiting: Waiting, record: Record, stat: str
    ) -> tuple[policy.Entry, bool]:
        """The entry of a stored record, and whether it is in force (not
        due: no fetch is needed). One in force is counted under ``stat`` and
        adopted as a fetch of ours would be: its crawl-delay,
        ``robots_parsed``, and the WARNING of an unreachable origin in its
        backoff."""
        config = self.config
        robots, rules = None, None
        if record.body is not None:
            body, _ = cut_at_limit(record.body, config.max_bytes)
            robots, rules = self._rules(key, waiting, body)
        now = self.clock()
        entry = entry_from_record(
            record,
            rules,
            now=now,
            ttl=config.cache_ttl,
            sitemaps=() if robots is None else robots.sitemaps,
        )
        if entry.due(now):
            return entry, False
        self.stats.inc_value(stat)
        if entry.unreachable_since is not None and not entry.usable(now, config.allow_after):
            # Requests wait for the retry another crawler's backoff set: say
            # so, as a fetch of ours would.
            outcome = f"{entry.outcome}, from ROBOTSTXT_RFC_STORE"
            self.room.warn_unreachable(key, outcome, entry.retry_at - now)
        if robots is not None and entry.rules:
            await self._adopt(key, waiting, robots, entry.rules)
        elif entry.allows_all_by_answer():
            await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", config.mode))
        return entry, True

    def _entry(
        self,
        key: Origin,
        fetched: Fetched,
        previous: policy.Entry | None,
        rules: dict[Token, AgentRules] | None,
        sitemaps: tuple[str, ...] = (),
    ) -> policy.Entry:
        """The entry for what a fetch found, counted and logged."""
        answer, config = fetched.answer, self.config
        now = self.clock()
        entry = policy.entry_for(
            answer,
            previous,
            rules=rules,
            now=now,
            fresh_for=fetched.fresh_for,
            first_retry=config.unreachable_retry,
            sitemaps=sitemaps,
        )
        if answer.state is State.ALLOW_ALL:  # HTTP-2, HTTP-3
            self.stats.inc_value("robotstxt/allow_all")
            logger.debug(
                "%(url)s: %(outcome)s",
                {"url": key.robots_url, "outcome": answer.outcome},
                extra={"spider": self.spider()},
            )
        elif answer.state is State.UNREACHABLE:  # HTTP-4 to HTTP-6
            self.stats.inc_value("robotstxt/unreachable")
            self.stats.inc_value(
                "robotstxt/unreachable/last_good" if entry.good else "robotstxt/disallow_all"
            )
            self.room.warn_unreachable(
                key,
                answer.outcome,
                entry.retry_at - now,
                good=entry.good,
                level=logging.ERROR if fetched.error else logging.WARNING,
            )
        return entry

    def _rules(
        self, key: Origin, waiting: Waiting, body: bytes
    ) -> tuple[RobotsTxt, dict[Token, AgentRules]]:
        """Parse ``body`` and keep the groups of the tokens in use."""
        robots = RobotsTxt.parse(body, self.config.mode)
        tokens = {self.token, *waiting.tokens}
        previous = self.cache.get(key)
        if previous is not None and previous.rules:
            tokens.update(previous.rules)
        return robots, {token: robots.for_agent(token) for token in tokens}

    async def _adopt(
        self, key: Origin, waiting: Waiting, robots: RobotsTxt, rules: dict[Token, AgentRules]
    ) -> None:
        """What follows parsing, fetched or from the store: the crawl-delay
        (OTHER-2) and the ``robots_parsed`` signal (Scrapy 2.18+)."""
        agent = rules[self.token]
        raised = self._apply_crawl_delay(waiting.trigger, agent)
        self._say_crawl_delay(key, agent, raised)
        await self._send_robots_parsed(waiting, robots)

    async def _send_robots_parsed(self, waiting: Waiting, robots: RobotsTxt) -> None:
        """The ``robots_parsed`` signal (Scrapy 2.18+), with the request that
        triggered the fetch, as the built-in sends it."""
        robots_parsed = getattr(signals, "robots_parsed", None)
        if robots_parsed is not None:
            parser = RobotParser(robots, self.config.robots_user_agent)
            await self.crawler.signals.send_catch_log_async(
                signal=robots_parsed, robotparser=parser, request=waiting.trigger
            )

    def _remember(self, key: Origin, entry: policy.Entry) -> None:
        """Cache ``entry``; never evict an origin that requests wait for,
        which would reset its backoff and its waits."""
        previous = self.cache.get(key)
        now, allow_after = self.clock(), self.config.allow_after
        self.report.outcome(
            key,
            entry.state(now, allow_after),
            entry.outcome,
            entry.url or key.robots_url,
            None if previous is None else previous.state(now, allow_after),
            status=entry.status,
        )
        evicted = self.cache.put(key, entry, keep=self.room)
        if evicted:
            self.stats.inc_value("robotstxt/cache/evicted", evicted)

    def _apply_crawl_delay(self, trigger: Request, agent: AgentRules) -> bool:
        """OTHER-2: with ``ROBOTSTXT_RFC_CRAWL_DELAY``, the group's
        crawl-delay becomes the download slot's delay, capped by
        ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``; it never shortens a longer one.
        The slot's jitter is turned off, so that it never starts a request
        sooner than the delay (:func:`.crawl._crawl_delay.floor_slot`). ``True`` if
        the delay raised the slot's."""
        delay = self.pacer.delay(agent.crawl_delay)
        if not delay:
            return False
        downloader = self.crawler.engine.downloader
        slot_key = downloader.get_slot_key(trigger)
        if not floor_slot(downloader, slot_key, delay):
            return False
        self.stats.inc_value("robotstxt/crawl_delay/applied")
        site = self.origins(trigger.url)
        if site is not None:
            self.report.row(site).crawl_delay_applied = delay
        logger.debug(
            "Download slot %(slot)r: crawl-delay %(delay)s s from robots.txt",
            {"slot": slot_key, "delay": delay},
            extra={"spider": self.spider()},
        )
        return True

    def _say_crawl_delay(self, key: Origin, agent: AgentRules, raised: bool) -> None:
        """One INFO line for an origin whose robots.txt asks the crawler's
        group for a crawl-delay (OTHER-2): the delay in force (``raised``:
        it raised the download slot's delay; else the slot's own delay is
        already as long), or the setting that keeps the crawl from applying
        it. Said again only if robots.txt, fetched again, asks for another
        delay."""
        asked = agent.crawl_delay
        if not asked:
            return
        delay = self.pacer.delay(asked)
        if self._delays_said.get(key) == (asked, delay):
            return
        self._delays_said.put(key, (asked, delay))
        if not delay:
            why = (
                "ROBOTSTXT_RFC_CRAWL_DELAY_MAX is 0"
                if self.config.crawl_delay
                else "ROBOTSTXT_RFC_CRAWL_DELAY is off"
            )
            effect = f"this crawl does not apply it ({why})"
        elif delay < asked:
            effect = f"{delay:g} s in force (ROBOTSTXT_RFC_CRAWL_DELAY_MAX)"
        else:
            effect = f"{delay:g} s in force"
        if delay and not raised:
            effect += "; the download slot's own delay is already as long"
        logger.info(
            "%(url)s: the group for %(group)s asks for a Crawl-delay of %(asked)g s; %(effect)s",
            {
                "url": key.robots_url,
                "group": ", ".join(repr(name) for name in agent.agents),
                "asked": asked,
                "effect": effect,
            },
            extra={"spider": self.spider()},
        )

    def _crawl_delay(self, entry: policy.Entry | None) -> float:
        """The crawl-delay ``entry`` gives the crawler's name, as applied
        (0 when not applied)."""
        rules = None if entry is None else entry.rules
        agent = None if rules is None else rules.get(self.token)
        return self.pacer.delay(None if agent is None else agent.crawl_delay)
