"""Closing the store never blocks the reactor (issue 25): the store is closed
and its threads stopped off the reactor, in a thread the close waits for
at most ``CLOSE_WAIT`` seconds (on ``twisted.internet.task.Clock`` here);
what a store that hangs or fails at close did not store is said in one
WARNING, with ``robotstxt/store/close_timeout`` and
``robotstxt/store/not_stored`` (README.rst, "Stores")."""

from __future__ import annotations

import threading
import time
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import reactor
from twisted.internet.task import Clock, LoopingCall, deferLater

from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.stores import _async
from scrapy_robots_rfc.stores._async import CLOSE_WAIT, SharedStore
from scrapy_robots_rfc.stores._base import Record, StoreError

ORIGIN = "https://example.com:443"
SOURCE = "ROBOTSTXT_RFC_STORE ('tests')"
RECORD = Record(
    status=200,
    outcome="200",
    body=b"User-agent: *\nDisallow: /x\n",
    fetched_at=1.0,
    expires_at=2.0,
    good=True,
    url=ORIGIN + "/robots.txt",
)


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


class Store:
    """A store whose writes wait for :attr:`go` (a Redis server stopped
    with SIGSTOP), or fail (:attr:`fail`); it records its close."""

    source = SOURCE

    def __init__(self, *, hang: bool = False, fail: bool = False) -> None:
        self.go = threading.Event()
        if not hang:
            self.go.set()
        self.fail = fail
        self.closed = threading.Event()
        self.entered = threading.Event()
        self.written: list[str] = []

    def get(self, origin: str) -> Record | None:
        return None

    def put(self, origin: str, record: Record) -> bool:
        self.entered.set()
        self.go.wait(30)
        if self.fail:
            raise StoreError(f"{SOURCE}: SET {origin} failed: timeout")
        self.written.append(origin)
        return True

    def acquire(self, origin: str, ttl: float) -> bool:
        return True

    def renew(self, origin: str, ttl: float) -> bool:
        return True

    def release(self, origin: str) -> None:
        pass

    def ping(self) -> None:
        pass

    def close(self) -> None:
        self.closed.set()


def shared_store(store: Store, clock: Clock) -> tuple[SharedStore, Stats]:
    """A store used through its own thread pool, the bound on ``clock``."""
    stats = Stats()
    runtime = Runtime(stats, call_later=clock.callLater)  # type: ignore[arg-type]
    return SharedStore(store, runtime), stats  # type: ignore[arg-type]


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelname == "WARNING"]


@pytest_twisted.inlineCallbacks
def wait_for(condition: Any, timeout: float = 10.0) -> Any:
    """Let the reactor run (the threads report through it) until
    ``condition()``."""
    give_up = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < give_up, "timed out"
        yield deferLater(reactor, 0.01, lambda: None)


@pytest_twisted.inlineCallbacks
def test_a_store_that_closes_in_time_says_nothing(caplog):
    store = Store()
    clock = Clock()
    shared, stats = shared_store(store, clock)
    written = yield deferred_from_coro(shared.put(ORIGIN, RECORD))
    assert written is True
    with caplog.at_level("DEBUG", logger=LOGGER_NAME):
        closed = shared.close()
        assert not shared.available
        result = yield closed
    assert result is True
    assert store.closed.is_set()
    assert clock.getDelayedCalls() == []  # the bound's timer is cancelled
    assert stats.values == {}
    assert warnings(caplog) == []


@pytest_twisted.inlineCallbacks
def test_a_hung_store_is_left_after_the_bound_with_what_it_did_not_store(caplog):
    store = Store(hang=True)
    clock = Clock()
    shared, stats = shared_store(store, clock)
    put = deferred_from_coro(shared.put(ORIGIN, RECORD))
    try:
        yield wait_for(store.entered.is_set)  # hangs in the store's thread
        with caplog.at_level("DEBUG", logger=LOGGER_NAME):
            started = time.monotonic()
            closed = shared.close()
            # close() returned at once: the pool is stopped in another thread.
            assert time.monotonic() - started < 0.5
            yield wait_for(store.closed.is_set)
            assert not closed.called  # its thread still joins the hung call
            clock.advance(CLOSE_WAIT - 0.1)
            assert not closed.called
            clock.advance(0.1)
            assert closed.called
            result = yield closed
        assert result is False
        assert stats.values == {"robotstxt/store/close_timeout": 1, "robotstxt/store/not_stored": 1}
        assert warnings(caplog) == [
            f"The robots.txt store {SOURCE} did not close within 5 s of the spider closing; "
            f"not stored, or not known to be: the robots.txt record of {ORIGIN}"
        ]
    finally:
        store.go.set()
        yield put
    # The thread ends by itself once the store answers; nothing is said twice.
    yield wait_for(lambda: "robotstxt_rfc-store-close" not in _threads())
    assert len(warnings(caplog)) == 1


@pytest_twisted.inlineCallbacks
def test_writes_that_fail_as_the_spider_closes_are_said_once(caplog):
    store = Store(fail=True)
    clock = Clock()
    shared, stats = shared_store(store, clock)
    shared.closing = True  # as the middleware sets it before the hand-over
    with caplog.at_level("DEBUG", logger=LOGGER_NAME):
        first = yield deferred_from_coro(shared.put(ORIGIN, RECORD))
        # Set aside after the error: the next write is skipped, and said too.
        second = yield deferred_from_coro(shared.put("https://other.example:443", RECORD))
        result = yield shared.close()
    assert (first, second, result) == (True, True, True)
    assert stats.values == {"robotstxt/store/error": 1, "robotstxt/store/not_stored": 2}
    assert warnings(caplog)[-1] == (
        f"The robots.txt store {SOURCE} failed as the spider closed; not stored: the "
        f"robots.txt record of {ORIGIN}; the robots.txt record of https://other.example:443"
    )


@pytest_twisted.inlineCallbacks
def test_writes_that_fail_during_the_crawl_are_not_reported_at_close(caplog):
    """An error during the crawl is the health's to say (ERROR): the close
    says nothing more."""
    store = Store(fail=True)
    shared, stats = shared_store(store, Clock())
    with caplog.at_level("DEBUG", logger=LOGGER_NAME):
        yield deferred_from_coro(shared.put(ORIGIN, RECORD))
        result = yield shared.close()
    assert result is True
    assert stats.values == {"robotstxt/store/error": 1}
    assert warnings(caplog) == []


def _threads() -> list[str]:
    return [t.name for t in threading.enumerate()]


def test_without_a_store_the_close_is_at_once():
    shared, stats = shared_store(None, Clock())  # type: ignore[arg-type]
    closed = shared.close()
    assert closed.called
    assert stats.values == {}


# -- in a crawl ----------------------------------------------------------------


class HungStore(Store):
    """``ROBOTSTXT_RFC_STORE = "tests.stores.test_store_close.HungStore"``: every
    write hangs until the test sets :attr:`let_go`."""

    let_go = threading.Event()

    def __init__(self, settings: Any) -> None:
        super().__init__(hang=True)
        self.go = HungStore.let_go


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_crawl_whose_store_hangs_at_close_ends_within_the_bound(
    server: Any, activation: dict[str, Any], caplog: pytest.LogCaptureFixture, monkeypatch
):
    from scrapy import signals

    from ..crawling import Stage, make_crawler
    from ..mockserver import Reply

    monkeypatch.setattr(_async, "CLOSE_WAIT", 1.0)
    site = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /x\n")})
    settings = {
        "ROBOTSTXT_RFC_STORE": "tests.stores.test_store_close.HungStore",
        "CLOSESPIDER_TIMEOUT": 1,
    }
    crawler = make_crawler(activation, settings)
    gaps: list[float] = []
    closing: list[float] = []

    def tick() -> None:
        now = time.monotonic()
        if closing:
            gaps.append(now - closing[-1])
            closing.append(now)

    loop = LoopingCall(tick)
    loop.start(0.05)

    def closed(spider: Any, reason: str) -> None:
        closing.append(time.monotonic())

    crawler.signals.connect(closed, signal=signals.spider_closed)
    HungStore.let_go.clear()
    try:
        with caplog.at_level("DEBUG", logger=LOGGER_NAME):
            yield crawler.crawl(stages=[Stage([site.url("/a")])])
        ended = time.monotonic()
    finally:
        loop.stop()
        HungStore.let_go.set()
    stats = crawler.stats
    assert stats.get_value("finish_reason") == "closespider_timeout"
    # The robots.txt record hung in the store: the close waited 1 s for it.
    assert 0.9 < ended - closing[0] < 3.0, ended - closing[0]
    assert max(gaps) < 0.5, max(gaps)  # the reactor ran all along
    assert stats.get_value("robotstxt/store/close_timeout") == 1
    assert stats.get_value("robotstxt/store/not_stored") == 1
    assert stats.get_value("robotstxt/waiting/abandoned") == 1
    assert (
        f"The robots.txt store {SOURCE} did not close within 1 s of the spider closing; "
        f"not stored, or not known to be: the robots.txt record of {site.base}"
    ) in warnings(caplog)
    yield wait_for(lambda: "robotstxt_rfc-store-close" not in _threads())
