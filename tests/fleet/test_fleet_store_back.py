"""A Redis store that hangs as the spider closes, and one that comes back
(issue 25), against a real ``redis-server``, in crawls on scrapy-redis's
scheduler, both activations (README.rst, "Stores" and "Fleets with
scrapy-redis").

- A server frozen with SIGSTOP while the spider closes: the crawl ends
  within a bound, the reactor never stops, and one WARNING says what was
  not stored; the held requests are still in Redis once it goes on.
- A server down when the spider opens and started again mid-crawl: once
  the store answers, requests are held in Redis, the ones parked in memory
  meanwhile move there, and each is crawled once.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals
from twisted.internet import task

from scrapy_robots_rfc.stores._circuit_breaker import StoreHealth

from ..crawling import Stage, make_crawler
from ..mockserver import MockServer, Reply
from ..redis_server import RedisServer, redis_server_fixture
from ._support import ROBOTS, keys, need, scrapy_redis, scrapy_redis_warnings

pytestmark = pytest.mark.e2e

redis = need("redis")
need("scrapy_redis")

redis_server = redis_server_fixture()


@pytest.fixture
def client(redis_server: RedisServer) -> Any:
    c = redis.Redis.from_url(redis_server.url)
    yield c
    c.close()


def crawl(
    activation: dict[str, Any],
    urls: list[str],
    hooks: dict[Any, Any],
    later: tuple[list[str], ...] = (),
    **settings: Any,
) -> Any:
    """A crawl of ``urls``, then of each of ``later`` once the crawl is
    idle, whose signal ``hooks`` run before the middleware's handlers
    (connected before the crawl starts)."""
    crawler = make_crawler(activation, settings)
    for signal, hook in hooks.items():
        crawler.signals.connect(hook, signal=signal)
    d = crawler.crawl(stages=[Stage(urls), *(Stage(more) for more in later)])
    d.addCallback(lambda _: crawler)
    return d


def held(client: Any) -> int:
    return sum(client.zcard(key) for key in keys(client, "held:"))


class Ticks:
    """The longest the reactor went without running a 50 ms timer."""

    def __init__(self) -> None:
        self.last = time.monotonic()
        self.longest = 0.0
        self.loop = task.LoopingCall(self._tick)

    def _tick(self) -> None:
        now = time.monotonic()
        self.longest = max(self.longest, now - self.last)
        self.last = now


@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_a_redis_frozen_as_the_spider_closes_ends_the_crawl_within_a_bound(
    server: MockServer,
    redis_server: RedisServer,
    client: Any,
    activation: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
):
    down = server.add_origin({"/robots.txt": Reply(503)})
    urls = [down.url(f"/p{i}") for i in range(3)]
    frozen: list[float] = []
    ticks = Ticks()

    def freeze(spider: Any, reason: str) -> None:
        # Before the middleware's handler: the hand-over meets a hung server.
        redis_server.pause()
        frozen.append(time.monotonic())
        ticks.last = time.monotonic()
        ticks.loop.start(0.05)

    settings = scrapy_redis(
        redis_server.url,
        CLOSESPIDER_TIMEOUT=2,
        # scrapy-redis's scheduler closes before spider_closed: nothing of
        # its own to write then.
        SCHEDULER_PERSIST=True,
    )
    try:
        with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
            crawler = yield crawl(activation, urls, {signals.spider_closed: freeze}, **settings)
        ended = time.monotonic()
    finally:
        if ticks.loop.running:
            ticks.loop.stop()
        redis_server.resume()
    stats = crawler.stats
    assert stats.get_value("finish_reason") == "closespider_timeout"
    # Bounded: one Redis command (two tries of the store's 2 s timeout),
    # then memory; the reactor ran all along.
    assert ended - frozen[0] < 8, ended - frozen[0]
    assert ticks.longest < 1.0, ticks.longest
    assert stats.get_value("robotstxt/waiting/held") == 3
    assert stats.get_value("robotstxt/store/error") == 1
    assert stats.get_value("robotstxt/store/not_stored") == 1
    assert stats.get_value("robotstxt/store/close_timeout") is None
    assert stats.get_value("robotstxt/waiting/handed_over") is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings[-1] == (
        f"The robots.txt store ROBOTSTXT_RFC_STORE ({redis_server.url!r}) failed as the spider "
        "closed; not stored: the hand-over of 1 origins (the other workers adopt them after "
        "ROBOTSTXT_RFC_LEASE)"
    )
    # Nothing lost: the held requests wait in Redis for the fleet.
    assert held(client) == 3
    assert [h for h in server.hits_for(down) if h.path != "/robots.txt"] == []


# Its spider can close before the store's thread has put the moved requests
# back in the queue when another test takes the CPU
# (tests/fleet/test_fleet_e2e.py, test_a_release_slower_than_the_idle_check_loses_no_request):
# it runs while no other test runs (tests/alone.py) until that is fixed.
@pytest.mark.alone
@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_a_redis_down_at_spider_open_is_used_again_when_it_comes_back(
    server: MockServer,
    redis_server: RedisServer,
    client: Any,
    activation: dict[str, Any],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
):
    # The first probe of the store after its error comes once requests are
    # parked in memory, before their robots.txt arrives.
    monkeypatch.setattr(StoreHealth, "FIRST_RETRY", 1.5)
    slow = [server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=3.5)}) for _ in range(2)]
    allowed = [o.url(f"/p{i}") for o in slow for i in range(3)]
    forbidden = [o.url("/private/x") for o in slow]
    # Asked for once the others are crawled: fetched under a lease, stored.
    after = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    restarted: list[threading.Timer] = []

    def take_redis_away(spider: Any) -> None:
        # Before the middleware's handler: the store fails as the spider opens.
        redis_server.stop()
        timer = threading.Timer(0.5, redis_server.start)
        timer.start()
        restarted.append(timer)

    settings = scrapy_redis(
        redis_server.url,
        # scrapy-redis's queue is on the same server: its client waits for it.
        REDIS_PARAMS={"retry": redis.retry.Retry(redis.backoff.ConstantBackoff(0.1), 100)},
    )
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            activation,
            allowed + forbidden,
            {signals.spider_opened: take_redis_away},
            ([after.url("/a")],),
            **settings,
        )
    restarted[0].join()
    spider, stats = crawler.spider, crawler.stats
    # Every request crawled once, none lost; the disallowed ones dropped.
    assert sorted(spider.seen) == sorted([*allowed, after.url("/a")])
    assert sorted(spider.failed_with("Forbidden by robots.txt")) == sorted(forbidden)
    for o in slow:
        assert len(server.hits_for(o, "/robots.txt")) == 1
    # The switches: the store failed, answered again, requests are held in
    # Redis from then on, and the parked ones moved there.
    total = len(allowed) + len(forbidden)
    assert stats.get_value("robotstxt/store/error") == 1
    assert stats.get_value("robotstxt/store/recovered") == 1
    assert stats.get_value("robotstxt/fleet/resumed") == 1
    # The parked requests moved; the later one was held in Redis at once.
    assert stats.get_value("robotstxt/waiting") == total + 1
    assert stats.get_value("robotstxt/waiting/moved") == total
    assert stats.get_value("robotstxt/waiting/held") == 1
    assert stats.get_value("robotstxt/waiting/released") == total + 1
    assert stats.get_value("robotstxt/waiting/abandoned") is None
    messages = caplog.messages
    assert (
        "The robots.txt store answers again: requests that wait for robots.txt are held in "
        "Redis for the scrapy-redis queue recorder:requests from now on"
    ) in messages
    assert (
        f"Moved {total} requests that waited for robots.txt in this worker's memory to Redis "
        "(recorder:requests)"
    ) in messages
    assert keys(client, "held") == []
    # Leases and records again: the fetches begun while the store was away
    # keep their copy in memory; the one after it came back stores its own.
    assert keys(client, "record:") == [f"robotstxt_rfc:v1:record:{after.base}"]
    assert keys(client, "lock:") == []
