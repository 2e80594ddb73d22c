"""Crawl-delay as a floor (issue 13): the download slot's delay with its
jitter off, and turns per origin, in memory or shared by every crawler of a
Redis store on the server's clock.

- The slot functions on Scrapy's own ``Slot`` objects (2.13's
  ``randomize_delay`` and 2.19's ``jitter`` alike).
- The memory turns on ``twisted.internet.task.Clock``.
- Turns shared through a real ``redis-server``.
- Crawls against the local server, read off its hit log.
"""

from __future__ import annotations

import itertools
import threading
import time
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.core.downloader import Downloader, Slot
from scrapy.settings import Settings
from scrapy.utils.defer import deferred_from_coro
from scrapy.utils.test import get_crawler
from twisted.internet import defer
from twisted.internet.defer import CancelledError, Deferred
from twisted.internet.task import Clock

from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.crawl._config import Config
from scrapy_robots_rfc.crawl._crawl_delay import BUSY_POLL, Pacer, floor_slot, slot_clock, slot_lag
from scrapy_robots_rfc.policy._origin import Origin
from scrapy_robots_rfc.stores import _redis_lua as redis_lua
from scrapy_robots_rfc.stores._async import SharedStore
from scrapy_robots_rfc.stores._redis import KEY_PREFIX, RedisStore

from ..crawling import Stage, crawl, pages, robots_origin, stat
from ..mockserver import Hit, MockServer, Reply
from ..redis_server import RedisServer, redis_server_fixture

ORIGIN = Origin("https", "example.com", 443)
OTHER = Origin("https", "other.example", 443)
#: Scrapy 2.19 slots take a jitter (a magnitude); 2.13 slots a flag.
JITTER = "jitter" in Slot.__init__.__code__.co_varnames

redis_server = redis_server_fixture(scope="module")


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


def config(**settings: Any) -> Config:
    return Config.from_settings(Settings({"ROBOTSTXT_RFC_CRAWL_DELAY": True, **settings}))


def downloader(**settings: Any) -> Downloader:
    return Downloader(get_crawler(Spider, settings))


def jittery_slot(delay: float) -> Slot:
    """A slot as Scrapy makes it by default: its delay varies ±50 %."""
    return Slot(8, delay, 0.5) if JITTER else Slot(8, delay, True)


def gaps(times: list[float]) -> list[float]:
    return [b - a for a, b in itertools.pairwise(sorted(times))]


# -- the download slot ---------------------------------------------------------------


def test_floor_slot_makes_the_delay_exact_on_a_live_slot() -> None:
    dl = downloader()
    slot = dl.slots["example.com"] = jittery_slot(0.5)
    assert min(slot.download_delay() for _ in range(200)) < 0.5  # what the issue saw
    assert floor_slot(dl, "example.com", 2.0) is True
    assert slot.delay == 2.0
    assert {slot.download_delay() for _ in range(200)} == {2.0}
    settings = {"delay": 2.0, **({"jitter": 0.0} if JITTER else {"randomize_delay": False})}
    assert dl.per_slot_settings == {"example.com": settings}


def test_floor_slot_keeps_a_longer_delay_and_still_turns_jitter_off() -> None:
    dl = downloader()
    slot = dl.slots["example.com"] = jittery_slot(5.0)
    assert floor_slot(dl, "example.com", 2.0) is False
    assert {slot.download_delay() for _ in range(50)} == {5.0}


def test_floor_slot_writes_the_settings_of_a_slot_not_made_yet() -> None:
    dl = downloader(DOWNLOAD_DELAY=3.0)
    assert floor_slot(dl, "a.example", 2.0) is False  # DOWNLOAD_DELAY is longer
    assert floor_slot(dl, "b.example", 4.0) is True
    jitter_off = {"jitter": 0.0} if JITTER else {"randomize_delay": False}
    assert dl.per_slot_settings == {
        "a.example": jitter_off,
        "b.example": {"delay": 4.0, **jitter_off},
    }
    assert dl.slots == {}


def test_slot_lag_is_what_is_left_of_the_delay_since_the_last_start() -> None:
    dl = downloader()
    assert slot_lag(dl, "example.com") == 0.0  # no slot: starts at once
    slot = dl.slots["example.com"] = Slot(8, 2.0, 0.0) if JITTER else Slot(8, 2.0, False)
    assert slot_lag(dl, "example.com") < 0  # never used
    slot.lastseen = slot_clock() - 0.5
    assert 1.4 < slot_lag(dl, "example.com") <= 1.5
    slot.lastseen = slot_clock() - 3.0
    assert slot_lag(dl, "example.com") < 0


def test_slot_lag_asks_to_look_again_while_the_slot_is_busy() -> None:
    dl = downloader()
    slot = dl.slots["example.com"] = Slot(1, 0.0, 0.0) if JITTER else Slot(1, 0.0, False)
    request = Request("https://example.com/a")
    slot.queue.append((request, Deferred()))
    assert slot_lag(dl, "example.com") == BUSY_POLL
    slot.queue.clear()
    slot.transferring.add(request)  # its one transfer place is taken
    assert slot_lag(dl, "example.com") == BUSY_POLL
    slot.transferring.clear()
    assert slot_lag(dl, "example.com") <= 0


# -- memory turns, on a fake clock ---------------------------------------------------


class Turns:
    """A pacer without a store, on ``task.Clock``; records when each turn
    was given."""

    def __init__(self, **settings: Any) -> None:
        self.clock = Clock()
        self.stats = Stats()
        self.downloader = downloader()
        runtime = Runtime(
            self.stats,  # type: ignore[arg-type]
            monotonic=self.clock.seconds,
            call_later=self.clock.callLater,
        )
        shared = SharedStore(None, runtime)
        self.pacer = Pacer(
            runtime,
            config(**settings),
            shared,
            downloader=lambda: self.downloader,
            to_future=lambda d: d,
        )
        self.given: list[tuple[str, float]] = []

    def turn(
        self, url: str, crawl_delay: float | None = 2.0, key: Origin = ORIGIN
    ) -> Deferred[Any]:
        d = Deferred.fromCoroutine(self.pacer.turn(key, Request(url), crawl_delay))
        d.addCallback(lambda _: self.given.append((url, self.clock.seconds())))
        return d

    def run(self, until: float) -> None:
        while self.clock.seconds() < until:
            self.clock.advance(0.25)


def test_requests_to_one_origin_take_turns_a_crawl_delay_apart() -> None:
    turns = Turns()
    for n in range(4):
        turns.turn(f"https://example.com/{n}")
    turns.run(10)
    assert turns.given == [
        ("https://example.com/0", 0.0),
        ("https://example.com/1", 2.0),
        ("https://example.com/2", 4.0),
        ("https://example.com/3", 6.0),
    ]
    assert turns.stats.values == {"robotstxt/crawl_delay/waited": 3}


def test_a_turn_comes_a_crawl_delay_after_the_last_one_not_at_once() -> None:
    turns = Turns()
    turns.turn("https://example.com/0")
    turns.run(1.5)
    turns.turn("https://example.com/1")
    turns.run(5)
    assert [t for _, t in turns.given] == [0.0, 2.0]


def test_other_origins_do_not_wait() -> None:
    turns = Turns()
    for n in range(3):
        turns.turn(f"https://example.com/{n}")
    turns.turn("https://other.example/x", key=OTHER)
    turns.turn("https://other.example/y", crawl_delay=None, key=OTHER)
    assert turns.given == [
        ("https://example.com/0", 0.0),
        ("https://other.example/x", 0.0),
        ("https://other.example/y", 0.0),
    ]


def test_crawl_delay_max_cuts_the_delay() -> None:
    turns = Turns(ROBOTSTXT_RFC_CRAWL_DELAY_MAX=3)
    for n in range(3):
        turns.turn(f"https://example.com/{n}", crawl_delay=100)
    turns.run(10)
    assert [t for _, t in turns.given] == [0.0, 3.0, 6.0]


def test_no_turns_when_crawl_delay_is_off() -> None:
    turns = Turns(ROBOTSTXT_RFC_CRAWL_DELAY=False)
    for n in range(3):
        turns.turn(f"https://example.com/{n}")
    assert [t for _, t in turns.given] == [0.0, 0.0, 0.0]
    assert turns.stats.values == {}
    assert turns.downloader.per_slot_settings == {}


def test_the_robots_txt_fetch_counts_as_a_turn() -> None:
    turns = Turns()
    pacer, request = turns.pacer, Request("https://example.com/robots.txt")
    Deferred.fromCoroutine(pacer.seed(ORIGIN, request, 2.0))
    turns.turn("https://example.com/0")
    turns.run(5)
    assert [t for _, t in turns.given] == [2.0]


def test_a_cancelled_wait_leaves_the_line() -> None:
    turns = Turns()
    turns.turn("https://example.com/0")
    second = turns.turn("https://example.com/1")
    turns.turn("https://example.com/2")
    second.cancel()
    failures: list[type[BaseException]] = []
    second.addErrback(lambda f: failures.append(f.type))
    turns.run(10)
    assert failures == [CancelledError]
    assert turns.given == [("https://example.com/0", 0.0), ("https://example.com/2", 2.0)]
    assert turns.clock.getDelayedCalls() == []


def test_a_cancelled_sleep_takes_its_timer_and_the_next_request_goes_on() -> None:
    turns = Turns()
    turns.turn("https://example.com/0")
    second = turns.turn("https://example.com/1")  # sleeps until 2
    turns.turn("https://example.com/2")
    turns.run(1)
    second.cancel()
    second.addErrback(lambda f: f.trap(CancelledError))
    # The third request sleeps in its place; the second's timer is gone.
    assert [call.getTime() for call in turns.clock.getDelayedCalls()] == [2.0]
    turns.run(10)
    assert turns.given == [("https://example.com/0", 0.0), ("https://example.com/2", 2.0)]
    assert turns.clock.getDelayedCalls() == []


def test_a_turn_floors_the_requests_slot() -> None:
    """A page in a download slot of its own (``download_slot`` meta) gets
    the floor too, not only the slot of the robots.txt request."""
    turns = Turns()
    slot = turns.downloader.slots["own"] = jittery_slot(0.0)
    request = Request("https://example.com/a", meta={"download_slot": "own"})
    Deferred.fromCoroutine(turns.pacer.turn(ORIGIN, request, 2.0))
    assert {slot.download_delay() for _ in range(50)} == {2.0}


# -- turns shared through Redis ------------------------------------------------------


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    import redis

    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    client.close()
    return redis_server.url


def test_the_reserve_script_spaces_turns_on_the_servers_clock(redis_url: str) -> None:
    """5 threads take 3 turns each at a 0.1 s spacing; each granted turn's
    time is read on the server in the same transaction: the turns are at
    least the spacing apart, to the millisecond."""
    import redis

    client = redis.Redis.from_url(redis_url)
    reserve = client.register_script(redis_lua.RESERVE)
    key = KEY_PREFIX + "next:" + str(ORIGIN)
    granted: list[int] = []
    lock = threading.Lock()
    failed: list[BaseException] = []

    def take_turns() -> None:
        try:
            for _ in range(3):
                while True:
                    with client.pipeline(transaction=True) as pipe:
                        reserve(keys=[key], args=[100, "0"], client=pipe)
                        pipe.get(key)
                        wait, next_at = pipe.execute()
                    if wait == 0:
                        with lock:
                            granted.append(int(next_at) - 100)
                        break
                    assert 0 < wait <= 100
                    time.sleep(wait / 1000)
        except BaseException as exc:
            failed.append(exc)

    threads = [threading.Thread(target=take_turns) for _ in range(5)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    client.close()
    assert failed == []
    assert len(granted) == 15
    assert min(gaps([float(t) for t in granted])) >= 100


def redis_pacer(url: str, stats: Stats) -> tuple[Pacer, SharedStore]:
    """A crawler's pacer on the Redis store at ``url``, on the reactor."""
    runtime = Runtime(stats)  # type: ignore[arg-type]
    shared = SharedStore(RedisStore(url), runtime)
    dl = downloader()
    pacer = Pacer(runtime, config(), shared, downloader=lambda: dl)
    return pacer, shared


@pytest_twisted.inlineCallbacks
def test_crawlers_sharing_redis_take_turns_a_crawl_delay_apart(redis_url: str) -> Any:
    """Three crawlers (each with its own store connection, threads and
    turnstile) ask for 3 turns each at once: all 9 come at least the
    crawl-delay apart, whoever asks."""
    stats = [Stats() for _ in range(3)]
    workers = [redis_pacer(redis_url, s) for s in stats]
    given: list[float] = []

    async def take(pacer: Pacer, n: int) -> None:
        await pacer.turn(ORIGIN, Request(f"https://example.com/{n}"), 0.3)
        given.append(time.monotonic())

    try:
        yield defer.DeferredList(
            [deferred_from_coro(take(p, n)) for p, _ in workers for n in range(3)],
            fireOnOneErrback=True,
        )
    finally:
        for _, shared in workers:
            shared.close()
    assert len(given) == 9
    # 0.3 s on the server's clock; a reply may reach its crawler a few ms
    # later than the next one.
    assert min(gaps(given)) >= 0.27, gaps(given)
    assert sum(s.values.get("robotstxt/crawl_delay/waited", 0) for s in stats) == 8
    assert all("robotstxt/store/error" not in s.values for s in stats)


@pytest_twisted.inlineCallbacks
def test_turns_go_on_in_memory_while_the_store_is_down(closed_port: int) -> Any:
    stats = Stats()
    pacer, shared = redis_pacer(f"redis://127.0.0.1:{closed_port}/0", stats)
    given: list[float] = []

    async def take(n: int) -> None:
        await pacer.turn(ORIGIN, Request(f"https://example.com/{n}"), 0.2)
        given.append(time.monotonic())

    try:
        yield defer.DeferredList([deferred_from_coro(take(n)) for n in range(3)])
    finally:
        shared.close()
    assert len(given) == 3
    assert min(gaps(given)) >= 0.19
    assert stats.values["robotstxt/store/error"] == 1


# -- crawls --------------------------------------------------------------------------


def hit_gaps(hits: list[Hit]) -> list[float]:
    return gaps([hit.time for hit in hits])


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_one_crawler_never_goes_below_the_crawl_delay(server: MockServer, activation: Any) -> Any:
    """Scrapy's default jitter (±50 %) once gave gaps of 1.23 s for a
    crawl-delay of 2 s; with the slot's jitter off, no gap, the robots.txt
    fetch included, is shorter than the crawl-delay."""
    origin = robots_origin(server, Reply(body=b"User-agent: *\nCrawl-delay: 1\n"))
    urls = pages(origin, "/1", "/2", "/3", "/4", "/5")
    crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_CRAWL_DELAY=True)
    hits = server.hits_for(origin)
    assert hits[0].path == "/robots.txt"
    assert len(hits) == 6
    assert min(hit_gaps(hits)) >= 0.95, hit_gaps(hits)
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert stat(crawler, "robotstxt/crawl_delay/applied") == 1


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_crawlers_sharing_redis_never_go_below_the_crawl_delay(
    server: MockServer, redis_url: str
) -> Any:
    """Two crawlers share a Redis store and crawl one origin with
    ``Crawl-delay: 1`` at the same time: across both, no two requests, the
    robots.txt fetch included, are less than the crawl-delay apart."""
    origin = robots_origin(server, Reply(body=b"User-agent: *\nCrawl-delay: 1\n"))
    settings = {
        "ROBOTSTXT_RFC_CRAWL_DELAY": True,
        "ROBOTSTXT_RFC_STORE": redis_url,
        # Two telnet consoles in one process: Scrapy 2.13 leaks the socket
        # of the port the second one finds taken.
        "TELNETCONSOLE_ENABLED": False,
    }
    activation = {"ADDONS": {"scrapy_robots_rfc.Addon": 100}}
    crawlers = yield defer.gatherResults(
        [
            crawl(
                activation,
                [Stage(pages(origin, f"/{name}1", f"/{name}2", f"/{name}3"))],
                **settings,
            )
            for name in ("a", "b")
        ]
    )
    hits = server.hits_for(origin)
    assert [h.path for h in hits].count("/robots.txt") == 1
    assert len(hits) == 7
    assert min(hit_gaps(hits)) >= 0.95, [(h.path, round(h.time, 3)) for h in hits]
    assert sum(stat(c, "robotstxt/crawl_delay/waited") or 0 for c in crawlers) > 0
