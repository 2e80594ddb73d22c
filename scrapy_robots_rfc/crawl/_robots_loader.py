"""Loading an origin's robots.txt: fetched (:mod:`.crawl._fetcher`) or read
from the shared store (:mod:`.stores._async`), parsed, turned into a cache
entry by the policy (:mod:`.policy`), counted; then what follows parsing,
the crawl-delay and the ``robots_parsed`` signal.

The loader never calls back into whoever asked: :meth:`RobotsLoader.load`
answers with a :class:`Loaded`, which says what the waiting room is to
announce when robots.txt is unreachable (:class:`Unreachable`)."""

from __future__ import annotations

import logging
from collections.abc import Container
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from .. import policy
from ..policy import Answer, State
from ..robotstxt import RobotsTxt, cut_at_limit
from ..stores import entry_from_record, record_for
from ._crawl_delay import Pacer, floor_slot
from ._fetcher import Fetched
from .robotparser import RobotParser

if TYPE_CHECKING:
    from scrapy.core.downloader import Downloader
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from .._runtime import Runtime
    from ..policy import Origin, Origins
    from ..robotstxt import AgentRules, Token
    from ..stores import Record, SharedStore
    from ._config import Config
    from ._fetcher import Fetcher
    from ._report import Report

logger = logging.getLogger(__name__)

#: Why :meth:`RobotsLoader.load` has no fetch of this crawler's to show: the
#: entry came from ``ROBOTSTXT_RFC_STORE`` (the DEBUG line of :mod:`.crawl._kept_responses`).
FROM_THE_STORE = "the copy in use came from ROBOTSTXT_RFC_STORE, not from a fetch"


@dataclass(frozen=True, slots=True)
class Unreachable:
    """robots.txt is unreachable (HTTP-4 to HTTP-6), or a stored record
    says so: the WARNING the waiting room says, with what happens next to
    the requests that wait (:class:`.crawl._waiting_room.Outlook`)."""

    outcome: str
    #: When robots.txt is fetched again (wall clock, RFC 9309 §2.3.1.4).
    retry_at: float
    #: A last good copy stays in force meanwhile (HTTP-5).
    good: bool = False
    #: ERROR when an error of ours or the network's ended the fetch.
    level: int = logging.WARNING


@dataclass(frozen=True, slots=True)
class Loaded:
    """What :meth:`RobotsLoader.load` found: the cache entry, what this
    crawler's fetch found (or why there is none: the entry came from the
    store, or an error of ours ended the fetch), and what to announce if
    robots.txt is unreachable."""

    entry: policy.Entry
    fetched: Fetched | str
    unreachable: Unreachable | None = None


@dataclass(eq=False)
class RobotsLoader:
    """Turns fetches and stored records into cache entries."""

    runtime: Runtime
    crawler: Crawler
    config: Config
    cache: policy.LruCache[Origin, policy.Entry]
    report: Report
    fetcher: Fetcher
    shared: SharedStore
    origins: Origins
    #: The crawler's lower-cased name, whose rules are always kept.
    token: Token
    #: The origins requests wait for: the cache never evicts them, which
    #: would reset their backoff and their waits.
    keep: Container[Origin]
    #: Callers of :meth:`peek` waiting for the read under way, per origin.
    _peeks: dict[Origin, list[Deferred[Loaded | None]]] = field(
        default_factory=dict, init=False, repr=False
    )
    #: The crawl-delay turns (OTHER-2): ``process_request`` awaits
    #: ``pacer.turn`` for each allowed request.
    pacer: Pacer = field(init=False, repr=False)
    #: Per origin, the crawl-delay its robots.txt asks for and the one in
    #: force, as the INFO line said them; as many origins as the cache.
    _delays_said: policy.LruCache[Origin, tuple[float, float]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.pacer = Pacer(self.runtime, self.config, self.shared, downloader=self._downloader)
        self._delays_said = policy.LruCache(self.config.max_origins)

    def _downloader(self) -> Downloader:
        return self.crawler.engine.downloader

    async def load(self, key: Origin, trigger: Request, tokens: set[Token]) -> Loaded:
        """Fetch (or read from the store) ``key``'s robots.txt and cache the
        entry it gives, keeping the rules of ``tokens``; ``trigger`` is the
        request the fetch is for (its proxy and slot are used, and
        ``robots_parsed`` receives it). Never raises."""
        previous = self.cache.get(key)
        fetched: Fetched | str
        load = _Load(trigger, tokens)
        try:
            if not self.shared.available:
                entry, fetched = await self._fetch_entry(key, load, previous)
            else:
                entry, ours = await self._through_store(key, load, previous)
                fetched = ours if ours is not None else FROM_THE_STORE
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra=self.runtime.log,
            )
            answer = Answer(State.UNREACHABLE, f"{type(exc).__name__}: {exc}")
            entry = self._entry(key, load, Fetched(answer), previous, None)
            fetched = f"an error ended the fetch ({answer.outcome})"
        self._remember(key, entry)
        return Loaded(entry, fetched, load.unreachable)

    async def peek(self, key: Origin, trigger: Request, token: Token) -> Loaded | None:
        """What the store knows of ``key``, without fetching: the entry of
        its record, cached, when the record is in force (fresh, or
        unreachable and in its backoff: another crawler decided the origin);
        ``None`` when there is none, it is due, or the store is not in use.
        Concurrent peeks of one origin share one read, and only the first
        has a WARNING to say (:attr:`Loaded.unreachable`); never raises."""
        if not self.shared.available:
            return None
        waiters = self._peeks.get(key)
        if waiters is not None:
            d: Deferred[Loaded | None] = Deferred()
            waiters.append(d)
            shared = await maybe_deferred_to_future(d)
            return None if shared is None else replace(shared, unreachable=None)
        self._peeks[key] = waiters = []
        loaded = None
        try:
            record = await self.shared.get(str(key))
            if record is not None:
                load = _Load(trigger, {token})
                found, in_force = await self._from_record(key, load, record, "robotstxt/store/hit")
                if in_force:
                    self._remember(key, found)
                    loaded = Loaded(found, FROM_THE_STORE, load.unreachable)
        except Exception:  # a bug of ours: the caller fetches instead
            logger.error(
                "Error reading %(url)s from ROBOTSTXT_RFC_STORE",
                {"url": key.robots_url},
                exc_info=True,
                extra=self.runtime.log,
            )
        finally:
            del self._peeks[key]
            for d in waiters:
                d.callback(loaded)
        return loaded

    async def _fetch_entry(
        self, key: Origin, load: _Load, previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched]:
        """Fetch and apply the status policy (HTTP-1 to HTTP-8; RFC 9309
        §2.3.1). An answer that means "allow all" (4xx, redirects given up
        on) sends ``robots_parsed`` with a parser that allows everything, as
        the built-in sends one for every response."""
        if previous is not None and previous.good:
            self.runtime.stats.inc_value("robotstxt/cache/refreshed")
        row = self.report.row(key)
        row.fetches += 1
        # Fetching again the robots.txt of an origin with a crawl-delay is
        # one of its requests: it takes a turn (OTHER-2).
        paced = self._crawl_delay(previous)
        if paced:
            await self.pacer.turn(key, load.trigger, paced)
        fetched = await self.fetcher.fetch(key, load.trigger)
        row.redirects += fetched.answer.redirects
        rules = None
        sitemaps: tuple[str, ...] = ()
        if fetched.body is not None:
            robots, rules = self._rules(key, load, fetched.body)
            sitemaps = robots.sitemaps
            self.runtime.stats.inc_value("robotstxt/rules")
            await self._adopt(key, load, robots, rules)
            if not paced:
                # The first fetch counts as the origin's first turn, taken
                # before the record is stored: no crawler sharing the store
                # sends a page sooner than the crawl-delay after it.
                await self.pacer.seed(key, load.trigger, rules[self.token].crawl_delay)
        entry = self._entry(key, load, fetched, previous, rules, sitemaps)
        if entry.allows_all_by_answer():
            await self._send_robots_parsed(load, RobotsTxt.parse(b"", self.config.mode))
        return entry, fetched

    async def _through_store(
        self, key: Origin, load: _Load, previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched | None]:
        """The entry from the store when it is fresh there; otherwise fetch,
        one crawler at a time, and store what was found; and what this
        crawler's fetch found, if it fetched."""
        config = self.config
        ours: Fetched | None = None

        async def use(record: Record, stat: str) -> policy.Entry | None:
            nonlocal previous
            entry, in_force = await self._from_record(key, load, record, stat)
            if not in_force:
                previous = entry
                return None
            return entry

        async def fetch(old: Record | None) -> tuple[policy.Entry, Record | None]:
            nonlocal ours
            entry, fetched = await self._fetch_entry(key, load, previous)
            ours = fetched
            status = fetched.answer.status
            now = self.runtime.clock()
            return entry, record_for(entry, body=fetched.body, status=status, old=old, now=now)

        entry = await self.shared.fetch_once(str(key), lease=config.lease, use=use, fetch=fetch)
        return entry, ours

    async def _from_record(
        self, key: Origin, load: _Load, record: Record, stat: str
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
            robots, rules = self._rules(key, load, body)
        now = self.runtime.clock()
        entry = entry_from_record(
            record,
            rules,
            now=now,
            ttl=config.cache_ttl,
            sitemaps=() if robots is None else robots.sitemaps,
        )
        if entry.due(now):
            return entry, False
        self.runtime.stats.inc_value(stat)
        if entry.unreachable_since is not None and not entry.usable(now, config.allow_after):
            # Requests wait for the retry another crawler's backoff set: say
            # so, as a fetch of ours would.
            outcome = f"{entry.outcome}, from ROBOTSTXT_RFC_STORE"
            load.unreachable = Unreachable(outcome, entry.retry_at)
        if robots is not None and entry.rules:
            await self._adopt(key, load, robots, entry.rules)
        elif entry.allows_all_by_answer():
            await self._send_robots_parsed(load, RobotsTxt.parse(b"", config.mode))
        return entry, True

    def _entry(
        self,
        key: Origin,
        load: _Load,
        fetched: Fetched,
        previous: policy.Entry | None,
        rules: dict[Token, AgentRules] | None,
        sitemaps: tuple[str, ...] = (),
    ) -> policy.Entry:
        """The entry for what a fetch found, counted and logged."""
        answer, config = fetched.answer, self.config
        now = self.runtime.clock()
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
            self.runtime.stats.inc_value("robotstxt/allow_all")
            logger.debug(
                "%(url)s: %(outcome)s",
                {"url": key.robots_url, "outcome": answer.outcome},
                extra=self.runtime.log,
            )
        elif answer.state is State.UNREACHABLE:  # HTTP-4 to HTTP-6
            self.runtime.stats.inc_value("robotstxt/unreachable")
            self.runtime.stats.inc_value(
                "robotstxt/unreachable/last_good" if entry.good else "robotstxt/disallow_all"
            )
            load.unreachable = Unreachable(
                answer.outcome,
                entry.retry_at,
                good=entry.good,
                level=logging.ERROR if fetched.error else logging.WARNING,
            )
        return entry

    def _rules(
        self, key: Origin, load: _Load, body: bytes
    ) -> tuple[RobotsTxt, dict[Token, AgentRules]]:
        """Parse ``body`` (already cut at ``ROBOTSTXT_RFC_MAX_BYTES``, which
        may be more than the parser's 500 KiB default) and keep the groups of
        the tokens in use."""
        robots = RobotsTxt.parse(body, self.config.mode, max_bytes=self.config.max_bytes)
        tokens = {self.token, *load.tokens}
        previous = self.cache.get(key)
        if previous is not None and previous.rules:
            tokens.update(previous.rules)
        return robots, {token: robots.for_agent(token) for token in tokens}

    async def _adopt(
        self, key: Origin, load: _Load, robots: RobotsTxt, rules: dict[Token, AgentRules]
    ) -> None:
        """What follows parsing, fetched or from the store: the crawl-delay
        (OTHER-2) and the ``robots_parsed`` signal (Scrapy 2.18+)."""
        agent = rules[self.token]
        raised = self._apply_crawl_delay(load.trigger, agent)
        self._say_crawl_delay(key, agent, raised)
        await self._send_robots_parsed(load, robots)

    async def _send_robots_parsed(self, load: _Load, robots: RobotsTxt) -> None:
        """The ``robots_parsed`` signal (Scrapy 2.18+), with the request that
        triggered the fetch, as the built-in sends it."""
        robots_parsed = getattr(signals, "robots_parsed", None)
        if robots_parsed is not None:
            parser = RobotParser(robots, self.config.robots_user_agent)
            await self.crawler.signals.send_catch_log_async(
                signal=robots_parsed, robotparser=parser, request=load.trigger
            )

    def _remember(self, key: Origin, entry: policy.Entry) -> None:
        """Cache ``entry``; never evict an origin that requests wait for,
        which would reset its backoff and its waits."""
        previous = self.cache.get(key)
        now, allow_after = self.runtime.clock(), self.config.allow_after
        self.report.outcome(
            key,
            entry.state(now, allow_after),
            entry.outcome,
            entry.url or key.robots_url,
            None if previous is None else previous.state(now, allow_after),
            status=entry.status,
        )
        evicted = self.cache.put(key, entry, keep=self.keep)
        if evicted:
            self.runtime.stats.inc_value("robotstxt/cache/evicted", evicted)

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
        self.runtime.stats.inc_value("robotstxt/crawl_delay/applied")
        site = self.origins(trigger.url)
        if site is not None:
            self.report.row(site).crawl_delay_applied = delay
        logger.debug(
            "Download slot %(slot)r: crawl-delay %(delay)s s from robots.txt",
            {"slot": slot_key, "delay": delay},
            extra=self.runtime.log,
        )
        return True

    def _say_crawl_delay(self, key: Origin, agent: AgentRules, raised: bool) -> None:
        """One INFO line for an origin whose robots.txt asks the crawler for
        a crawl-delay (OTHER-2), naming the line and the user-agent lines it
        belongs to (D-17): the delay in force (``raised``:
        it raised the download slot's delay; else the slot's own delay is
        already as long), or the setting that keeps the crawl from applying
        it. Said again only if robots.txt, fetched again, asks for another
        delay."""
        line = agent.delay
        if line is None or not line.seconds:
            return
        asked = line.seconds
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
            "%(url)s asks for a Crawl-delay of %(asked)g s (line %(line)d, for %(agents)s); "
            "%(effect)s",
            {
                "url": key.robots_url,
                "asked": asked,
                "line": line.line,
                "agents": ", ".join(repr(name) for name in line.agents),
                "effect": effect,
            },
            extra=self.runtime.log,
        )

    def _crawl_delay(self, entry: policy.Entry | None) -> float:
        """The crawl-delay ``entry`` gives the crawler's name, as applied
        (0 when not applied)."""
        rules = None if entry is None else entry.rules
        agent = None if rules is None else rules.get(self.token)
        return self.pacer.delay(None if agent is None else agent.crawl_delay)


@dataclass(slots=True)
class _Load:
    """One load (or peek): the request it is for, the names whose rules the
    parse keeps, and what it is to announce, if robots.txt is unreachable
    (at most one line: a fetch's, or a stored record's in force)."""

    trigger: Request
    tokens: set[Token]
    unreachable: Unreachable | None = None
