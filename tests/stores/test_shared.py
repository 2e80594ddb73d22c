"""One fetch per origin across crawlers, on ``twisted.internet.task.Clock``:
the lease that follows its holder (renewed while the fetch runs, taken over
by one waiter when the holder is gone), fencing of a holder whose lease was
taken over, and the store set aside while it fails.

Each crawler is a :class:`SharedStore` over its own view of one in-memory
lease store (:class:`LeaseStore`: the token stays inside the view, as in
:class:`~scrapy_robots_rfc.stores.RedisStore`); the store methods run
at once instead of in threads, and the reactor only carries the awaits."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request
from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet import defer, reactor
from twisted.internet.task import Clock, deferLater

from scrapy_robots_rfc import policy
from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.crawl._robots_loader import FROM_THE_STORE
from scrapy_robots_rfc.policy._origin import Origin
from scrapy_robots_rfc.stores import InForce, Ours, Unshared, entry_from_record
from scrapy_robots_rfc.stores._async import POLL_INTERVAL, SharedStore
from scrapy_robots_rfc.stores._base import Record, StoreError

ORIGIN = "https://example.com:443"
LEASE = 3.0
#: Wall-clock times of the records (far from the fake clock's 0).
WALL = 1_000_000.0


@dataclass
class Lock:
    token: int
    owner: str
    until: float


@dataclass
class Backend:
    """The shared state: records, leases with fencing tokens, and a switch
    that makes every call fail."""

    clock: Clock
    records: dict[str, Record] = field(default_factory=dict)
    locks: dict[str, Lock] = field(default_factory=dict)
    fence: dict[str, int] = field(default_factory=dict)
    down: bool = False
    reads: int = 0
    renewals: list[tuple[str, float]] = field(default_factory=list)

    def lock(self, name: str) -> Lock | None:
        lock = self.locks.get(name)
        return lock if lock is not None and lock.until > self.clock.seconds() else None


class LeaseStore:
    """One crawler's view of :class:`Backend`."""

    def __init__(self, backend: Backend, owner: str) -> None:
        self.backend = backend
        self.owner = owner
        self.tokens: dict[str, int] = {}

    def _check(self) -> None:
        if self.backend.down:
            raise StoreError("ROBOTSTXT_RFC_STORE ('fake://'): refused")

    def get(self, name: str) -> Record | None:
        self._check()
        self.backend.reads += 1
        return self.backend.records.get(name)

    def put(self, name: str, record: Record) -> bool:
        self._check()
        token = self.tokens.get(name)
        if token is not None and self.backend.fence.get(name) != token:
            return False
        self.backend.records[name] = record
        return True

    def acquire(self, name: str, ttl: float) -> bool:
        self._check()
        if self.backend.lock(name) is not None:
            return False
        token = self.backend.fence[name] = self.backend.fence.get(name, 0) + 1
        now = self.backend.clock.seconds()
        self.backend.locks[name] = Lock(token, self.owner, now + ttl)
        self.tokens[name] = token
        return True

    def renew(self, name: str, ttl: float) -> bool:
        self._check()
        lock = self.backend.lock(name)
        if lock is None or lock.token != self.tokens.get(name):
            return False
        lock.until = self.backend.clock.seconds() + ttl
        self.backend.renewals.append((self.owner, self.backend.clock.seconds()))
        return True

    def release(self, name: str) -> None:
        self._check()
        token = self.tokens.pop(name, None)
        lock = self.backend.lock(name)
        if lock is not None and lock.token == token:
            del self.backend.locks[name]

    def ping(self) -> None:
        self._check()

    def close(self) -> None:
        pass


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count

    def max_value(self, key: str, value: int) -> None:
        self.values[key] = max(self.values.get(key, value), value)


def record(by: str) -> Record:
    return Record(
        good=True,
        body=b"",
        status=200,
        outcome=f"200 by {by}",
        fetched_at=WALL,
        expires_at=WALL + 86400,
    )


class Crawler:
    """One crawler deciding :data:`ORIGIN` through the store: its fetch
    takes ``fetch_time`` seconds of the fake clock."""

    def __init__(self, name: str, backend: Backend, *, fetch_time: float = 1.0) -> None:
        self.name = name
        self.clock = backend.clock
        self.fetch_time = fetch_time
        self.stats = Stats()
        self.store = LeaseStore(backend, name)
        self.shared = SharedStore(
            self.store,  # type: ignore[arg-type]
            Runtime(self.stats, clock=lambda: WALL, call_later=self.clock.callLater),  # type: ignore[arg-type]
            in_thread=lambda func, *args: defer.maybeDeferred(func, *args),
        )
        self.fetches: list[float] = []
        #: What each decision gave, and when.
        self.decided: list[tuple[str, float]] = []

    def decide(self) -> None:
        d = deferred_from_coro(self._decide())
        d.addCallback(lambda entry: self.decided.append((entry.outcome, self.clock.seconds())))

    async def _decide(self) -> policy.Entry:
        """What the loader does with the store's claim: use a record in
        force, or fetch and keep what was found."""
        match await self.shared.claim(ORIGIN, lease=LEASE):
            case InForce(record=found, waited=waited):
                self.stats.inc_value("robotstxt/store/shared" if waited else "robotstxt/store/hit")
                return entry_from_record(found, None, now=WALL, ttl=86400)
            case Ours(lease=lease):
                entry, new = await self._fetch()
                await lease.keep(new)
                return entry
            case Unshared():
                entry, _ = await self._fetch()
                return entry

    async def _fetch(self) -> tuple[policy.Entry, Record]:
        self.fetches.append(self.clock.seconds())
        done: defer.Deferred[None] = defer.Deferred()
        self.clock.callLater(self.fetch_time, done.callback, None)
        await maybe_deferred_to_future(done)
        new = record(self.name)
        return entry_from_record(new, None, now=WALL, ttl=86400), new


@defer.inlineCallbacks
def settle() -> Any:
    """Let the reactor carry the awaits that are ready."""
    for _ in range(10):
        yield deferLater(reactor, 0, lambda: None)


@defer.inlineCallbacks
def run(clock: Clock, until: float, step: float = 1 / 16) -> Any:
    """Move the fake clock to ``until`` by ``step`` (a power of two: the
    times add up exactly), letting the reactor carry the awaits before and
    after each step."""
    yield settle()
    while clock.seconds() < until - 1e-9:
        clock.advance(min(step, until - clock.seconds()))
        yield settle()


@pytest_twisted.inlineCallbacks
def test_a_renewed_lease_keeps_a_slow_fetch_single():
    backend = Backend(Clock())
    holder = Crawler("holder", backend, fetch_time=7 * LEASE)
    others = [Crawler(f"other{i}", backend) for i in range(2)]
    holder.decide()
    yield run(backend.clock, 0.125)
    for other in others:
        other.decide()
    yield run(backend.clock, 7 * LEASE + 1)
    assert holder.fetches == [0.0]
    assert [o.fetches for o in others] == [[], []], "nobody fetched while the holder lived"
    assert holder.decided == [("200 by holder", 7 * LEASE)]
    for other in others:
        [(outcome, when)] = other.decided
        assert outcome == "200 by holder"
        assert 7 * LEASE <= when <= 7 * LEASE + POLL_INTERVAL + 0.1
        assert other.stats.values == {"robotstxt/store/shared": 1}
    assert holder.stats.values == {}
    # Renewed every third of the lease while it fetched, then released.
    renewals = [when for owner, when in backend.renewals if owner == "holder"]
    assert len(renewals) == 20
    assert max(b - a for a, b in zip([0.0, *renewals], renewals, strict=False)) < LEASE / 3 + 0.1
    assert backend.lock(ORIGIN) is None
    assert backend.records[ORIGIN].outcome == "200 by holder"
    assert backend.clock.getDelayedCalls() == [], "no renewal left behind"


@pytest_twisted.inlineCallbacks
def test_one_waiter_takes_over_from_a_holder_that_died():
    backend = Backend(Clock())
    # The holder took the lease and died: nobody renews it.
    assert LeaseStore(backend, "dead").acquire(ORIGIN, LEASE)
    waiters = [Crawler(f"w{i}", backend, fetch_time=1.0) for i in range(3)]
    for waiter in waiters:
        waiter.decide()
    yield run(backend.clock, LEASE + 4)
    fetched = [(w.name, when) for w in waiters for when in w.fetches]
    assert len(fetched) == 1, f"exactly one takeover, not a herd: {fetched}"
    [(taker, when)] = fetched
    assert LEASE <= when <= LEASE + POLL_INTERVAL + 0.1, "the first poll after the lease ended"
    for waiter in waiters:
        [(outcome, _)] = waiter.decided
        assert outcome == f"200 by {taker}"
        expected = {} if waiter.name == taker else {"robotstxt/store/shared": 1}
        assert waiter.stats.values == expected, waiter.name
    assert backend.fence[ORIGIN] == 2
    assert backend.records[ORIGIN].outcome == f"200 by {taker}"


@pytest_twisted.inlineCallbacks
def test_a_holder_whose_lease_was_taken_over_cannot_store_its_copy(caplog):
    backend = Backend(Clock())
    stalled = Crawler("stalled", backend, fetch_time=10.0)
    taker = Crawler("taker", backend, fetch_time=1.0)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        stalled.decide()
        yield run(backend.clock, 0.5)
        # Its lease lapses (the process stalled past it, say) before its
        # first renewal, and the other crawler takes over.
        del backend.locks[ORIGIN]
        taker.decide()
        yield run(backend.clock, 12)
    assert stalled.fetches == [0.0]
    assert taker.fetches == [0.5]
    assert taker.decided == [("200 by taker", 1.5)]
    assert stalled.decided == [("200 by stalled", 10.0)], "it uses what it fetched"
    assert backend.records[ORIGIN].outcome == "200 by taker", "but cannot store it"
    assert stalled.stats.values == {"robotstxt/lock/lost": 1, "robotstxt/store/fenced": 1}
    assert taker.stats.values == {}
    assert [r.getMessage() for r in caplog.records] == [
        f"The lease on fetching the robots.txt of {ORIGIN} lapsed before the fetch ended "
        "(ROBOTSTXT_RFC_LEASE is 3 s): another crawler may fetch it too, and then its copy "
        "is the one kept"
    ]


@pytest_twisted.inlineCallbacks
def test_nothing_is_stored_once_the_crawl_closes():
    backend = Backend(Clock())
    crawler = Crawler("closing", backend, fetch_time=2.0)
    crawler.decide()
    yield run(backend.clock, 1.0)
    crawler.shared.closing = True  # the spider closes while it fetches
    yield run(backend.clock, 3.0)
    assert crawler.decided == [("200 by closing", 2.0)]
    assert ORIGIN not in backend.records
    assert backend.lock(ORIGIN) is None, "the lease is given back"


@pytest_twisted.inlineCallbacks
def test_a_failing_store_is_set_aside_and_used_again_when_it_answers(caplog):
    backend = Backend(Clock())
    crawler = Crawler("c", backend)
    backend.down = True
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        crawler.decide()
        yield run(backend.clock, 0.5)
        assert not crawler.shared.available
        yield run(backend.clock, 1.5)
    # Fetched without the lease, and not stored.
    assert crawler.fetches == [0.0]
    assert crawler.decided == [("200 by c", 1.0)]
    assert backend.records == {}
    assert crawler.stats.values == {"robotstxt/store/error": 1}
    backend.down = False
    yield run(backend.clock, 3.5)  # probes at 1 s (down), then at 3 s
    assert crawler.shared.available
    assert crawler.stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    crawler.decide()
    yield run(backend.clock, 5.0)
    assert crawler.fetches == [0.0, 3.5]
    assert backend.records[ORIGIN].outcome == "200 by c"
    assert [r.levelname for r in caplog.records] == ["ERROR", "WARNING"]


@pytest_twisted.inlineCallbacks
def test_after_close_nothing_reaches_the_store():
    backend = Backend(Clock())
    crawler = Crawler("c", backend)
    crawler.shared.close()
    assert not crawler.shared.available
    assert (yield deferred_from_coro(crawler.shared.get(ORIGIN))) is None
    crawler.decide()
    yield run(backend.clock, 1.5)
    assert crawler.fetches == [0.0]
    assert backend.records == {}
    assert backend.locks == {}


@pytest.mark.parametrize("down", [False, True])
@pytest_twisted.inlineCallbacks
def test_fleet_call_answers_the_default_when_the_store_fails(down):
    backend = Backend(Clock(), down=down)
    crawler = Crawler("c", backend)
    called: list[int] = []

    def func(value: int) -> int:
        called.append(value)
        crawler.store.ping()
        return value * 2

    result = yield deferred_from_coro(crawler.shared.fleet_call(func, 21, default=-1))
    assert result == (-1 if down else 42)
    assert called == [21]
    assert crawler.shared.available is not down
    result = yield deferred_from_coro(crawler.shared.fleet_call(func, 1, default=-1))
    assert result == (-1 if down else 2)
    assert called == ([21] if down else [21, 1]), "not called while set aside"


# -- RobotsLoader.peek: what the store knows, without fetching ---------------------


def make_resolver(backend: Backend) -> tuple[Any, Stats]:
    from scrapy.utils.test import get_crawler

    from scrapy_robots_rfc.crawl._config import Config
    from scrapy_robots_rfc.crawl._crawl_delay import CrawlDelays, Pacer
    from scrapy_robots_rfc.crawl._report import Report
    from scrapy_robots_rfc.crawl._robots_loader import RobotsLoader
    from scrapy_robots_rfc.policy._origin import Origins

    crawler = get_crawler(settings_dict={"ROBOTSTXT_OBEY": True, "USER_AGENT": "TestBot/1.0"})
    stats = Stats()
    runtime = Runtime(stats, clock=lambda: WALL, call_later=backend.clock.callLater)  # type: ignore[arg-type]
    shared = SharedStore(
        LeaseStore(backend, "peeker"),  # type: ignore[arg-type]
        runtime,
        # Answers on a later turn of the reactor, as from a thread.
        in_thread=lambda func, *args: deferLater(reactor, 0, func, *args),
    )
    config = Config.from_settings(crawler.settings)
    report = Report(10)
    pacer = Pacer(runtime, config, shared, downloader=lambda: crawler.engine.downloader)
    delays = CrawlDelays(
        runtime,
        config,
        pacer,
        downloader=lambda: crawler.engine.downloader,
        report=report,
        origins=Origins(),
        token="testbot",
    )
    resolver = RobotsLoader(
        runtime,
        crawler,
        config,
        policy.LruCache(10),
        report,
        None,  # type: ignore[arg-type]  # never fetches
        shared,
        delays=delays,
        token="testbot",
    )
    return resolver, stats


PEEKED = Origin("https", "example.com", 443)


def stored(*, expires_at: float) -> Record:
    return Record(
        good=True,
        body=b"User-agent: *\nDisallow: /private\n",
        status=200,
        outcome="200",
        fetched_at=WALL - 10,
        expires_at=expires_at,
    )


@pytest_twisted.inlineCallbacks
def test_a_peek_finds_the_record_another_crawler_stored():
    backend = Backend(Clock())
    backend.records[str(PEEKED)] = stored(expires_at=WALL + 3600)
    resolver, stats = make_resolver(backend)
    trigger = Request("https://example.com/a")
    peeks = [
        deferred_from_coro(resolver.peek(PEEKED, trigger, "testbot", keep=())) for _ in range(3)
    ]
    loads = yield defer.gatherResults(peeks)
    assert backend.reads == 1, "concurrent peeks of one origin share one read"
    loaded = loads[0]
    assert loads == [loaded, loaded, loaded]
    assert (loaded.fetched, loaded.why, loaded.unreachable) == (None, FROM_THE_STORE, None)
    entry = loaded.entry
    assert entry.outcome == "200"
    assert not entry.rules["testbot"].allowed("https://example.com/private/x")
    assert resolver.cache.get(PEEKED) is entry
    assert stats.values == {"robotstxt/store/hit": 1}
    assert backend.locks == {}, "a peek never takes the lease"


@pytest.mark.parametrize("case", ["due", "absent", "down"])
@pytest_twisted.inlineCallbacks
def test_a_peek_without_a_record_in_force_gives_nothing(case):
    backend = Backend(Clock())
    if case == "due":
        backend.records[str(PEEKED)] = stored(expires_at=WALL - 1)
    resolver, stats = make_resolver(backend)
    if case == "down":
        resolver.shared.close()
    entry = yield deferred_from_coro(
        resolver.peek(PEEKED, Request("https://example.com/a"), "testbot", keep=())
    )
    assert entry is None
    assert resolver.cache.get(PEEKED) is None
    assert stats.values == {}
    assert backend.reads == (0 if case == "down" else 1)


@pytest_twisted.inlineCallbacks
def test_concurrent_peeks_of_an_unreachable_record_have_one_warning_to_say():
    """Another crawler found robots.txt unreachable (HTTP 503) and stored
    its backoff: the peeks that share one read get the same entry, and only
    the first has the WARNING to say, so that the room says it once."""
    backend = Backend(Clock())
    backend.records[str(PEEKED)] = Record(
        good=False,
        body=None,
        status=503,
        outcome="HTTP 503",
        fetched_at=WALL - 10,
        expires_at=WALL - 10,
        unreachable_since=WALL - 10,
        failures=1,
        retry_at=WALL + 300,
    )
    resolver, _ = make_resolver(backend)
    trigger = Request("https://example.com/a")
    peeks = [
        deferred_from_coro(resolver.peek(PEEKED, trigger, "testbot", keep=())) for _ in range(3)
    ]
    loads = yield defer.gatherResults(peeks)
    assert backend.reads == 1
    assert [loaded.entry for loaded in loads] == [loads[0].entry] * 3
    said = [loaded.unreachable for loaded in loads]
    assert said[1:] == [None, None]
    assert said[0] is not None
    assert (said[0].outcome, said[0].retry_at) == ("HTTP 503, from ROBOTSTXT_RFC_STORE", WALL + 300)
