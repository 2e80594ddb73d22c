"""Deciding an origin: its robots.txt fetched (:mod:`.fetcher`) or read from
the shared store (:mod:`.shared`), parsed, turned into a cache entry by the
policy (:mod:`.policy`), counted and logged; then what follows parsing, the
crawl-delay and the ``robots_parsed`` signal."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from scrapy import signals

from . import policy
from .config import LOGGER_NAME
from .fetcher import Fetched
from .parser import RobotsTxt, cut_at_limit
from .policy import Answer, State
from .robotparser import RobotParser

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Spider
    from scrapy.crawler import Crawler
    from scrapy.http import Request
    from scrapy.statscollectors import StatsCollector

    from .config import Config
    from .fetcher import Fetcher
    from .matcher import AgentRules
    from .origin import Origin, Origins
    from .report import Report
    from .shared import SharedStore
    from .stores.base import Record
    from .waiting import Waiting, WaitingRoom

__all__ = ["Resolver"]

logger = logging.getLogger(LOGGER_NAME)


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
    token: str
    clock: Callable[[], float]
    spider: Callable[[], Spider | None]

    async def decide(self, key: Origin, waiting: Waiting) -> policy.Entry:
        """Fetch (or read from the store) ``key``'s robots.txt and cache the
        entry it gives; never raises."""
        previous = self.cache.get(key)
        try:
            if self.shared.store is None:
                entry, _ = await self._fetch_entry(key, waiting, previous)
            else:
                entry = await self._through_store(key, waiting, previous)
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra={"spider": self.spider()},
            )
            answer = Answer(State.UNREACHABLE, f"{type(exc).__name__}: {exc}")
            entry = self._entry(key, Fetched(answer), previous, None)
        self._remember(key, entry)
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
        fetched = await self.fetcher.fetch(key, waiting.trigger)
        row.redirects += fetched.answer.redirects
        rules = None
        if fetched.body is not None:
            robots, rules = self._rules(key, waiting, fetched.body)
            self.stats.inc_value("robotstxt/rules")
            await self._adopt(waiting, robots, rules)
        entry = self._entry(key, fetched, previous, rules)
        if entry.allows_all_by_answer():
            await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", self.config.mode))
        return entry, fetched

    async def _through_store(
        self, key: Origin, waiting: Waiting, previous: policy.Entry | None
    ) -> policy.Entry:
        """The entry from the store when it is fresh there; otherwise fetch,
        one crawler at a time, and store what was found."""
        config = self.config

        async def use(record: Record, stat: str) -> policy.Entry | None:
            nonlocal previous
            robots, rules = None, None
            if record.body is not None:
                body, _ = cut_at_limit(record.body, config.max_bytes)
                robots, rules = self._rules(key, waiting, body)
            now = self.clock()
            entry = policy.entry_from_record(record, rules, now=now, ttl=config.cache_ttl)
            if entry.due(now):
                previous = entry
                return None
            self.stats.inc_value(stat)
            if entry.unreachable_since is not None and not entry.usable(now, config.allow_after):
                # Requests wait for the retry another crawler's backoff set:
                # say so, as a fetch of ours would.
                outcome = f"{entry.outcome}, from ROBOTSTXT_RFC_STORE"
                self.room.warn_unreachable(key, outcome, entry.retry_at - now)
            if robots is not None and entry.rules:
                await self._adopt(waiting, robots, entry.rules)
            elif entry.allows_all_by_answer():
                await self._send_robots_parsed(waiting, RobotsTxt.parse(b"", config.mode))
            return entry

        async def fetch(old: Record | None) -> tuple[policy.Entry, Record | None]:
            entry, fetched = await self._fetch_entry(key, waiting, previous)
            status = fetched.answer.status
            now = self.clock()
            return entry, policy.record_for(
                entry, body=fetched.body, status=status, old=old, now=now
            )

        lock_ttl = config.timeout * (config.max_redirects + 1) + 5
        return await self.shared.fetch_once(str(key), lock_ttl=lock_ttl, use=use, fetch=fetch)

    def _entry(
        self,
        key: Origin,
        fetched: Fetched,
        previous: policy.Entry | None,
        rules: dict[str, AgentRules] | None,
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
    ) -> tuple[RobotsTxt, dict[str, AgentRules]]:
        """Parse ``body`` and keep the groups of the tokens in use."""
        robots = RobotsTxt.parse(body, self.config.mode)
        tokens = {self.token, *waiting.tokens}
        previous = self.cache.get(key)
        if previous is not None and previous.rules:
            tokens.update(previous.rules)
        return robots, {token: robots.for_agent(token) for token in tokens}

    async def _adopt(
        self, waiting: Waiting, robots: RobotsTxt, rules: dict[str, AgentRules]
    ) -> None:
        """What follows parsing, fetched or from the store: the crawl-delay
        (OTHER-2) and the ``robots_parsed`` signal (Scrapy 2.18+)."""
        self._apply_crawl_delay(waiting.trigger, rules[self.token])
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
        )
        evicted = self.cache.put(key, entry, keep=self.room)
        if evicted:
            self.stats.inc_value("robotstxt/cache/evicted", evicted)

    def _apply_crawl_delay(self, trigger: Request, agent: AgentRules) -> None:
        """OTHER-2: with ``ROBOTSTXT_RFC_CRAWL_DELAY``, the group's
        crawl-delay becomes the download slot's delay, capped by
        ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``; it never shortens a longer one."""
        if not self.config.crawl_delay or not agent.crawl_delay:
            return
        delay = min(agent.crawl_delay, self.config.crawl_delay_max)
        downloader = self.crawler.engine.downloader
        slot_key = downloader.get_slot_key(trigger)
        slot_settings = downloader.per_slot_settings.setdefault(slot_key, {})
        slot = downloader.slots.get(slot_key)
        if slot is not None:
            current = slot.delay
        else:
            current = slot_settings.get("delay", self.crawler.settings.getfloat("DOWNLOAD_DELAY"))
        if delay <= current:
            return
        slot_settings["delay"] = delay
        if slot is not None:
            slot.delay = delay
        self.stats.inc_value("robotstxt/crawl_delay/applied")
        site = self.origins(trigger.url)
        if site is not None:
            self.report.row(site).crawl_delay = delay
        logger.debug(
            "Download slot %(slot)r: crawl-delay %(delay)s s from robots.txt",
            {"slot": slot_key, "delay": delay},
            extra={"spider": self.spider()},
        )
