"""Loading an origin's robots.txt: fetched (:mod:`.crawl._fetcher`) or read
from the shared store (:mod:`.stores._async`), parsed, turned into a cache
entry by the policy (:mod:`.policy`), counted; then what follows parsing,
the crawl-delay (:mod:`.crawl._crawl_delay`) and the ``robots_parsed``
signal.

The loader never calls back into whoever asked: :meth:`RobotsLoader.load`
answers with a :class:`Loaded`, which says what the undecided origins are to
announce when robots.txt is unreachable (:class:`Unreachable`). Each step
returns what it found, with what it has to announce, rather than setting
it on a shared object."""

from __future__ import annotations

import logging
from collections.abc import Container
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from scrapy import signals
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from .. import policy
from .._logging import reaches_a_handler
from ..policy import ROBOTS_TXT, Answer, State, Target
from ..robotstxt import RobotsTxt, cut_at_limit, file_notes, looks_like_html
from ..stores import InForce, Ours, Unshared, entry_from_record, record_for
from ._fetcher import Fetched
from ._parsing import Parses
from .robotparser import RobotParser

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from .._runtime import Runtime
    from ..policy import Origin
    from ..robotstxt import AgentRules, Token
    from ..stores import Record, SharedStore
    from ._config import Config
    from ._crawl_delay import CrawlDelays
    from ._fetcher import Fetcher
    from ._report import Report

logger = logging.getLogger(__name__)

#: The file notes the crawl says in lines of its own: the size cut (the
#: fetcher's INFO line) and an HTML page (a WARNING).
_SAID_APART = frozenset({"size-cut", "html-page"})

#: Why :meth:`RobotsLoader.load` has no fetch of this crawler's to show: the
#: entry came from ``ROBOTSTXT_RFC_STORE`` (the DEBUG line of :mod:`.crawl._kept_responses`).
FROM_THE_STORE = "the copy in use came from ROBOTSTXT_RFC_STORE, not from a fetch"


@dataclass(frozen=True, slots=True)
class Unreachable:
    """robots.txt is unreachable (HTTP-4 to HTTP-6), or a stored record
    says so: the WARNING :class:`.Lives` says, with what happens next to
    the requests that wait (:class:`.crawl._announce.Outlook`)."""

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
    crawler's fetch found (``None``: there is none, and ``why`` says why:
    the entry came from the store, or an error of ours ended the fetch), and
    what to announce if robots.txt is unreachable."""

    entry: policy.Entry
    fetched: Fetched | None
    why: str = ""
    unreachable: Unreachable | None = None


#: An entry, and what its robots.txt's unreachable outcome has to announce.
_Found = tuple[policy.Entry, Unreachable | None]


class RobotsLoader:
    """Turns fetches and stored records of an origin's robots.txt (the
    document :data:`.ROBOTS_TXT`) into cache entries."""

    def __init__(
        self,
        runtime: Runtime,
        crawler: Crawler,
        config: Config,
        cache: policy.LruCache[Origin, policy.Entry],
        report: Report,
        fetcher: Fetcher,
        shared: SharedStore,
        *,
        delays: CrawlDelays,
        token: Token,
    ) -> None:
        self.runtime = runtime
        self.crawler = crawler
        self.config = config
        self.cache = cache
        self.report = report
        self.fetcher = fetcher
        self.shared = shared
        self.delays = delays
        #: The crawler's lower-cased name, whose rules are always kept.
        self.token = token
        #: Callers of :meth:`peek` waiting for the read under way, per origin.
        self._peeks: dict[Origin, list[Deferred[Loaded | None]]] = {}
        #: A large body is parsed in a thread (issue 41).
        self.parses = Parses()
        #: Origins whose fetch has its answer, being read and stored.
        self._answered: set[Origin] = set()

    def answered(self, key: Origin) -> bool:
        """Whether the load of ``key`` under way has robots.txt's answer, all
        of it: the response has come whole (:meth:`.Fetcher.downloaded`),
        or the fetch is over and its answer is being read (parsed, its
        signal sent). What is left is this crawler's own work, done in a
        moment; not the store's write of it, which may hang, and which its
        waiters are parked for as for a fetch."""
        return key in self._answered or self.fetcher.downloaded(key)

    async def load(
        self, key: Origin, trigger: Request, tokens: set[Token], *, keep: Container[Origin]
    ) -> Loaded:
        """Fetch (or read from the store) ``key``'s robots.txt and cache the
        entry it gives, keeping the rules of ``tokens``; ``trigger`` is the
        request the fetch is for (its proxy and slot are used, and
        ``robots_parsed`` receives it). The cache never evicts an origin of
        ``keep`` for it. Never raises."""
        previous = self.cache.get(key)
        fetched: Fetched | None
        why = ""
        try:
            if not self.shared.available:
                entry, fetched, unreachable = await self._fetch_entry(
                    key, trigger, tokens, previous
                )
            else:
                entry, fetched, unreachable = await self._through_store(
                    key, trigger, tokens, previous
                )
                if fetched is None:
                    why = FROM_THE_STORE
        except Exception as exc:  # a bug of ours must not lose requests
            logger.error(
                "Error fetching %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra=self.runtime.log,
            )
            answer = Answer(State.UNREACHABLE, f"{type(exc).__name__}: {exc}")
            entry, unreachable = self._entry(key, Fetched(answer), previous, None)
            fetched, why = None, f"an error ended the fetch ({answer.outcome})"
        finally:
            self._answered.discard(key)
        self._remember(key, entry, keep)
        return Loaded(entry, fetched, why, unreachable)

    async def peek(
        self, key: Origin, trigger: Request, token: Token, *, keep: Container[Origin]
    ) -> Loaded | None:
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
            record = await self.shared.get(Target(key, ROBOTS_TXT).name)
            if record is not None:
                found = await self._from_record(
                    key, trigger, {token}, record, "robotstxt/store/hit"
                )
                entry, in_force, unreachable = found
                if in_force:
                    self._remember(key, entry, keep)
                    loaded = Loaded(entry, None, FROM_THE_STORE, unreachable)
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
        self, key: Origin, trigger: Request, tokens: set[Token], previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched, Unreachable | None]:
        """Fetch and apply the status policy (HTTP-1 to HTTP-8; RFC 9309
        §2.3.1). An answer that means "allow all" (4xx, redirects given up
        on) sends ``robots_parsed`` with a parser that allows everything, as
        the built-in sends one for every response."""
        if previous is not None and previous.good:
            self.runtime.stats.inc_value("robotstxt/cache/refreshed")
        row = self.report.row(key)
        row.fetches += 1
        paced = await self.delays.refetch_turn(key, trigger, previous)
        fetched = await self.fetcher.fetch(key, trigger)
        self._answered.add(key)  # until load() returns
        row.redirects += fetched.answer.redirects
        rules = None
        sitemaps: tuple[str, ...] = ()
        if fetched.body is not None:
            robots, rules = await self._rules(key, tokens, fetched.body)
            sitemaps = robots.sitemaps
            # An HTML page is counted apart from the files with rules.
            row.html_page = self._html_page(key, fetched, robots, rules[self.token])
            if not row.html_page:
                self._say_file_notes(key, fetched, robots)
            self.runtime.stats.inc_value(
                "robotstxt/html_page" if row.html_page else "robotstxt/rules"
            )
            # The first fetch counts as the origin's first turn (OTHER-2).
            await self._adopt(key, trigger, robots, rules, seed=not paced)
        entry, unreachable = self._entry(key, fetched, previous, rules, sitemaps)
        if entry.allows_all_by_answer():
            await self._send_robots_parsed(trigger, RobotsTxt.parse(b"", self.config.mode))
        return entry, fetched, unreachable

    async def _through_store(
        self, key: Origin, trigger: Request, tokens: set[Token], previous: policy.Entry | None
    ) -> tuple[policy.Entry, Fetched | None, Unreachable | None]:
        """The entry from the store when its record is in force there;
        otherwise fetch, one crawler at a time, and store what was found;
        and what this crawler's fetch found, if it fetched, and what to
        announce. The store says what it found; the loader decides."""
        name = Target(key, ROBOTS_TXT).name  # the store's records are per target
        match await self.shared.claim(name, lease=self.config.lease):
            case InForce(record=record, waited=waited):
                stat = "robotstxt/store/shared" if waited else "robotstxt/store/hit"
                entry, in_force, said = await self._from_record(key, trigger, tokens, record, stat)
                if in_force:
                    return entry, None, said
                # Due in the moment since the store looked: fetch, unshared.
                return await self._fetch_entry(key, trigger, tokens, entry)
            case Ours(record=record, lease=lease):
                try:
                    if record is not None:  # a due record: the copy a failure keeps (HTTP-5)
                        previous = await self._previous(key, trigger, tokens, record)
                    entry, fetched, said = await self._fetch_entry(key, trigger, tokens, previous)
                except BaseException:
                    await lease.drop()
                    raise
                now = self.runtime.clock()
                status = fetched.answer.status
                # Not answered any more while the store writes: a store that
                # hangs must not hold the waiters in the downloader's places.
                self._answered.discard(key)
                await lease.keep(
                    record_for(entry, body=fetched.body, status=status, old=record, now=now)
                )
                return entry, fetched, said
            case Unshared(record=record):
                if record is not None:
                    previous = await self._previous(key, trigger, tokens, record)
                return await self._fetch_entry(key, trigger, tokens, previous)

    async def _previous(
        self, key: Origin, trigger: Request, tokens: set[Token], record: Record
    ) -> policy.Entry:
        """The entry of a due stored record: the last copy a fetch starts
        from, as the one in the cache would be."""
        entry, _, _ = await self._from_record(key, trigger, tokens, record, "robotstxt/store/hit")
        return entry

    async def _from_record(
        self, key: Origin, trigger: Request, tokens: set[Token], record: Record, stat: str
    ) -> tuple[policy.Entry, bool, Unreachable | None]:
        """The entry of a stored record, whether it is in force (not due: no
        fetch is needed), and what to announce. One in force is counted
        under ``stat`` and adopted as a fetch of ours would be: its
        crawl-delay, ``robots_parsed``, and the WARNING of an unreachable
        origin in its backoff."""
        config = self.config
        robots, rules = None, None
        if record.body is not None:
            body, _ = cut_at_limit(record.body, config.max_bytes)
            robots, rules = await self._rules(key, tokens, body)
        now = self.runtime.clock()
        entry = entry_from_record(
            record,
            rules,
            now=now,
            ttl=config.cache_ttl,
            sitemaps=() if robots is None else robots.sitemaps,
        )
        if entry.due(now):
            return entry, False, None
        self.runtime.stats.inc_value(stat)
        unreachable = None
        if entry.unreachable_since is not None and not entry.usable(now, config.allow_after):
            # Requests wait for the retry another crawler's backoff set: say
            # so, as a fetch of ours would.
            outcome = f"{entry.outcome}, from ROBOTSTXT_RFC_STORE"
            unreachable = Unreachable(outcome, entry.retry_at)
        if robots is not None and entry.rules:
            await self._adopt(key, trigger, robots, entry.rules)
        elif entry.allows_all_by_answer():
            await self._send_robots_parsed(trigger, RobotsTxt.parse(b"", config.mode))
        return entry, True, unreachable

    def _entry(
        self,
        key: Origin,
        fetched: Fetched,
        previous: policy.Entry | None,
        rules: dict[Token, AgentRules] | None,
        sitemaps: tuple[str, ...] = (),
    ) -> _Found:
        """The entry for what a fetch found, counted and logged, and what
        to announce if robots.txt is unreachable."""
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
        unreachable = None
        if answer.state is State.ALLOW_ALL:  # HTTP-2, HTTP-3
            self.runtime.stats.inc_value("robotstxt/allow_all")
            self._say_allow_all(key, answer)
        elif answer.state is State.UNREACHABLE:  # HTTP-4 to HTTP-6
            self.runtime.stats.inc_value("robotstxt/unreachable")
            self.runtime.stats.inc_value(
                "robotstxt/unreachable/last_good" if entry.good else "robotstxt/disallow_all"
            )
            unreachable = Unreachable(
                answer.outcome,
                entry.retry_at,
                good=entry.good,
                level=logging.ERROR if fetched.error else logging.WARNING,
            )
        return entry, unreachable

    def _html_page(
        self, key: Origin, fetched: Fetched, robots: RobotsTxt, ours: AgentRules
    ) -> bool:
        """Whether the body fetched looks like an HTML page, not a robots.txt
        (:func:`.robotstxt.looks_like_html`: a soft 404, a log-in page); if
        so, the WARNING that says what the crawl makes of it. Its lines that
        parse as robots.txt lines are used, the others ignored (RFC 9309
        §2.3.1.5), so what applies is what they say: ``ours``, the rules of
        this crawler's group."""
        assert fetched.body is not None
        response = fetched.response
        raw = None if response is None else response.headers.get(b"Content-Type")
        media = (raw or b"").decode("latin-1").partition(";")[0].strip()
        found = looks_like_html(fetched.body, media, robots=robots)
        if found is None:
            return False
        if ours.rules:
            count = len(ours.rules)
            means = (
                f"its lines that parse as robots.txt lines are used and the rest is ignored, "
                f"and {count} {'rule' if count == 1 else 'rules'} of them "
                f"{'applies' if count == 1 else 'apply'} to {self.token}"
            )
        else:
            read = "its lines that parse as robots.txt lines have" if found.read else "it has"
            means = (
                f"{read} no rule for {self.token}, so every request to {key} is allowed until "
                "robots.txt is fetched again"
            )
        logger.warning(
            "%(url)s looks like an HTML page, not a robots.txt (%(why)s): %(means)s "
            "(RFC 9309 §2.3.1.5)",
            {"url": fetched.answer.url or key.robots_url, "why": found.why, "means": means},
            extra=self.runtime.log,
        )
        return True

    def _say_file_notes(self, key: Origin, fetched: Fetched, robots: RobotsTxt) -> None:
        """At DEBUG, what ``check`` and ``lint`` say of the file besides
        its size cut and an HTML page, which the crawl says in lines of its
        own (INFO, WARNING): bytes that are not UTF-8, lines ignored
        (:func:`.robotstxt.file_notes`, the same words). Read only when a
        DEBUG line reaches a handler: a file's notes are explained when
        asked."""
        if not reaches_a_handler(logger, logging.DEBUG):
            return
        assert fetched.body is not None
        url = fetched.answer.url or key.robots_url
        for note in file_notes(fetched.body, mode=self.config.mode, robots=robots):
            if note.code in _SAID_APART:
                continue
            logger.debug("%(url)s: %(note)s", {"url": url, "note": note}, extra=self.runtime.log)

    def _say_allow_all(self, key: Origin, answer: Answer) -> None:
        """The line of a fetch that found no robots.txt: DEBUG for a 4xx
        asked for (the usual way to have none); INFO when redirects led to
        it, or were given up on (a loop, too many, no ``Location``, not
        HTTP: RFC 9309 §2.3.1.2, HTTP-3), since the site may mean to serve
        rules there, with the chain followed."""
        status = answer.status
        gave_up = status is not None and policy.classify(status) == "redirect"
        hops = answer.redirects
        if not gave_up and not hops:
            logger.debug(
                "%(url)s: %(outcome)s",
                {"url": key.robots_url, "outcome": answer.outcome},
                extra=self.runtime.log,
            )
            return
        if hops:
            followed = f"{hops} {'redirect' if hops == 1 else 'redirects'} followed, the last "
            followed += f"to {answer.url}"
        else:
            followed = "no redirect followed"
        logger.info(
            "%(url)s: %(outcome)s (%(followed)s): every request to %(origin)s is allowed "
            "until robots.txt is fetched again (RFC 9309 %(section)s)",
            {
                "url": key.robots_url,
                "outcome": answer.outcome,
                "followed": followed,
                "origin": key,
                "section": "§2.3.1.2" if gave_up else "§2.3.1.3",
            },
            extra=self.runtime.log,
        )

    async def _rules(
        self, key: Origin, tokens: set[Token], body: bytes
    ) -> tuple[RobotsTxt, dict[Token, AgentRules]]:
        """Parse ``body`` (already cut at ``ROBOTSTXT_RFC_MAX_BYTES``, which
        may be more than the parser's 500 KiB default) and keep the groups of
        the tokens in use, read before the parse; a large body in a thread
        (:mod:`.crawl._parsing`)."""
        kept = {self.token, *tokens}
        previous = self.cache.get(key)
        if previous is not None and previous.rules:
            kept.update(previous.rules)
        config = self.config
        return await self.parses.parse(body, config.mode, config.max_bytes, kept)

    async def _adopt(
        self,
        key: Origin,
        trigger: Request,
        robots: RobotsTxt,
        rules: dict[Token, AgentRules],
        *,
        seed: bool = False,
    ) -> None:
        """What follows parsing, fetched or from the store: the crawl-delay
        (OTHER-2; ``seed``: the fetch is the origin's first turn) and the
        ``robots_parsed`` signal (Scrapy 2.18+)."""
        await self.delays.adopted(key, trigger, rules[self.token], seed=seed)
        await self._send_robots_parsed(trigger, robots)

    async def _send_robots_parsed(self, trigger: Request, robots: RobotsTxt) -> None:
        """The ``robots_parsed`` signal (Scrapy 2.18+), with the request that
        triggered the fetch, as the built-in sends it."""
        robots_parsed = getattr(signals, "robots_parsed", None)
        if robots_parsed is not None:
            parser = RobotParser(robots, self.config.robots_names)
            await self.crawler.signals.send_catch_log_async(
                signal=robots_parsed, robotparser=parser, request=trigger
            )

    def _remember(self, key: Origin, entry: policy.Entry, keep: Container[Origin]) -> None:
        """Cache ``entry``; never evict an origin of ``keep`` (requests wait
        for it), which would reset its backoff and its waits. The cache
        evicts others while it holds more than ``ROBOTSTXT_RFC_MAX_ORIGINS``
        origins or ``ROBOTSTXT_RFC_CACHE_BYTES`` (:meth:`.Entry.cost`)."""
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
        evicted = self.cache.put(key, entry, keep=keep)
        if evicted:
            self.runtime.stats.inc_value("robotstxt/cache/evicted", evicted)
        # What the cache holds at most, as ROBOTSTXT_RFC_CACHE_BYTES counts it
        # (a cache bounded by count only has no such figure).
        if self.cache.max_bytes is not None:
            self.runtime.stats.max_value("robotstxt/cache/bytes/max", self.cache.total)
