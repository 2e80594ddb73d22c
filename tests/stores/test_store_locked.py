"""Stores never hold the crawl (issue 35): an SQLite file that another
process keeps locked (``BEGIN EXCLUSIVE``), in WAL or rollback-journal
mode. A store call gives up within the store's bound
(:data:`.stores._sqlite.BUSY_TIMEOUT`) and counts as a store error; the
calls queued behind it are answered at once; the probe writes, so the
store is said to answer again only when writes go through; the store is
opened and closed off the reactor.

First the :class:`.SharedStore` with real threads and a real file (probes
on ``twisted.internet.task.Clock``), then real crawls of 30 origins under
both activations, locked and healthy.
"""

from __future__ import annotations

import logging
import threading
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet import defer
from twisted.internet.task import Clock

from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.stores import Record, StoreBusy, StoreError
from scrapy_robots_rfc.stores._async import SharedStore
from scrapy_robots_rfc.stores._sqlite import BUSY_TIMEOUT, SqliteStore

from .sqlite_holder import held, make_store_file
from .test_store_close import Stats, wait_for

RECORD = Record(
    good=True,
    body=b"User-agent: *\nDisallow: /private\n",
    status=200,
    outcome="200",
    fetched_at=1.0,
    expires_at=2.0,
)


def shared_store(store: Any, clock: Clock) -> tuple[SharedStore, Stats]:
    """``store`` used through its own thread pool; probes on ``clock``."""
    stats = Stats()
    runtime = Runtime(
        stats,  # type: ignore[arg-type]
        call_later=clock.callLater,  # type: ignore[arg-type]
        monotonic=clock.seconds,
    )
    return SharedStore(store, runtime), stats


def lines(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == level]


def source(path: Path) -> str:
    return f"ROBOTSTXT_RFC_STORE ('sqlite:///{path}')"


def locked(path: Path) -> str:
    return f"database is locked (another connection held it for more than {BUSY_TIMEOUT:g} s)"


def locked_at_set_up(path: Path) -> str:
    """SQLite's busy handler waited the whole bound in the set-up's first
    try (a read of a rollback-journal file held ``EXCLUSIVE``)."""
    return (
        "database is locked while the file was set up (its switch to WAL and its tables): "
        f"another connection held its lock for more than {BUSY_TIMEOUT:g} s (1 try)"
    )


@pytest_twisted.inlineCallbacks
def test_calls_queued_behind_a_locked_write_are_answered_at_once(tmp_path, caplog):
    """Twenty origins ask for their lease at once: the four threads wait for
    the lock once, in parallel, and the others find the store set aside;
    before, each call waited its turn behind the store's one mutex."""
    path = tmp_path / "held.db"
    shared, stats = shared_store(SqliteStore(str(path)), Clock())
    got = yield deferred_from_coro(shared.get("https://warm.example:443"))  # opened
    assert got is None
    with held(path), caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        start = time.monotonic()
        leases = yield defer.gatherResults(
            [deferred_from_coro(shared.acquire(f"https://o{i}.example:443", 10)) for i in range(20)]
        )
        took = time.monotonic() - start
        assert leases == [False] * 20  # a store set aside grants no lease
        assert took < 2 * BUSY_TIMEOUT + 0.5, took
        assert stats.values == {"robotstxt/store/error": 1}
        assert not shared.available
    assert lines(caplog, logging.ERROR) == [
        f"The robots.txt store failed ({source(path)}: {locked(path)}); robots.txt is cached "
        "in memory until the store answers again (tried again in 1 s, then at growing "
        "intervals of up to 60 s)"
    ]
    yield shared.close()


@pytest_twisted.inlineCallbacks
def test_the_store_answers_again_only_once_writes_go_through(tmp_path, caplog):
    """A WAL file's reads answer while another process holds its write
    lock: the probe is a write, so no "answers again" until it is let go."""
    path = tmp_path / "held.db"
    make_store_file(path, "WAL")
    clock = Clock()
    shared, stats = shared_store(SqliteStore(str(path)), clock)
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        with held(path):
            assert (yield deferred_from_coro(shared.get("https://a.example:443"))) is None
            assert shared.available  # a read: it answered
            assert not (yield deferred_from_coro(shared.acquire("https://a.example:443", 10)))
            assert not shared.available
            for delay, probes in ((1, 1), (2, 2), (4, 3)):
                clock.advance(delay)  # a probe, in the store's thread
                yield wait_for(lambda p=probes: len(still_fails(caplog)) == p)
                assert not shared.available
        assert stats.values == {"robotstxt/store/error": 1}
        clock.advance(8)  # let go: the next probe's write goes through
        yield wait_for(lambda: shared.available)
    assert stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    assert lines(caplog, logging.WARNING) == [
        f"The robots.txt store {source(path)} answers again after 15 s; robots.txt is "
        "shared through it again"
    ]
    assert (yield deferred_from_coro(shared.acquire("https://a.example:443", 10)))
    yield shared.close()


def still_fails(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [m for m in lines(caplog, logging.DEBUG) if m.startswith("The robots.txt store still")]


@pytest_twisted.inlineCallbacks
def test_a_rollback_journal_file_locked_at_opening_is_used_once_let_go(tmp_path, caplog):
    """Opening waits for the lock at most the bound, in the store's
    thread; it is a store error like any other, not "cannot be used":
    the store is probed, and used once the other process lets go."""
    path = tmp_path / "journal.db"
    make_store_file(path, "DELETE")
    clock = Clock()
    shared, stats = shared_store(SqliteStore(str(path)), clock)
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        with held(path):
            start = time.monotonic()
            gets = yield defer.gatherResults(
                [deferred_from_coro(shared.get(f"https://o{i}.example:443")) for i in range(10)]
            )
            assert time.monotonic() - start < BUSY_TIMEOUT + 0.5
            assert gets == [None] * 10
            assert stats.values == {"robotstxt/store/error": 1}
        clock.advance(1)
        yield wait_for(lambda: shared.available)
    assert lines(caplog, logging.ERROR) == [
        f"The robots.txt store failed ({source(path)}: {locked_at_set_up(path)}); robots.txt "
        "is cached in memory until the store answers again (tried again in 1 s, then at "
        "growing intervals of up to 60 s)"
    ]
    assert stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    assert (yield deferred_from_coro(shared.put("https://o1.example:443", RECORD)))
    assert (yield deferred_from_coro(shared.get("https://o1.example:443"))) == RECORD
    yield shared.close()


class OpenedStore:
    """A store of one's own with an ``open()`` method: records the threads
    it is called from; ``open()`` raises ``fail`` if set."""

    source = "ROBOTSTXT_RFC_STORE ('tests')"

    def __init__(self, fail: StoreError | None = None) -> None:
        self.fail = fail
        self.calls: list[tuple[str, int]] = []
        self.records: dict[str, Record] = {}

    def _call(self, name: str) -> None:
        self.calls.append((name, threading.get_ident()))

    def open(self) -> None:
        self._call("open")
        time.sleep(0.1)  # the other calls wait for it
        if self.fail is not None:
            raise self.fail

    def get(self, origin: str) -> Record | None:
        self._call("get")
        return self.records.get(origin)

    def put(self, origin: str, record: Record) -> bool:
        self._call("put")
        self.records[origin] = record
        return True

    def acquire(self, origin: str, ttl: float) -> bool:
        return True

    def renew(self, origin: str, ttl: float) -> bool:
        return True

    def release(self, origin: str) -> None:
        pass

    def ping(self) -> None:
        self._call("ping")

    def close(self) -> None:
        self._call("close")


@pytest_twisted.inlineCallbacks
def test_a_store_is_opened_once_off_the_reactor_before_any_call():
    store = OpenedStore()
    shared, stats = shared_store(store, Clock())
    assert store.calls == []  # nothing until the first call
    yield defer.gatherResults(
        [deferred_from_coro(shared.get(f"https://o{i}.example:443")) for i in range(5)]
    )
    names = [name for name, _ in store.calls]
    assert names == ["open"] + ["get"] * 5
    yield shared.close()
    assert [name for name, _ in store.calls][-1] == "close"
    reactor_thread = threading.get_ident()
    assert reactor_thread not in {thread for _, thread in store.calls}
    assert stats.values == {}


@pytest_twisted.inlineCallbacks
def test_a_store_that_cannot_be_opened_is_set_aside_for_the_crawl(caplog):
    store = OpenedStore(fail=StoreError(f"{OpenedStore.source}: no such table"))
    clock = Clock()
    shared, stats = shared_store(store, clock)
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        got = yield deferred_from_coro(shared.get("https://a.example:443"))
        written = yield deferred_from_coro(shared.put("https://a.example:443", RECORD))
    assert (got, written) == (None, True)
    assert not shared.available
    assert clock.getDelayedCalls() == []  # never probed
    assert [name for name, _ in store.calls] == ["open"]
    assert lines(caplog, logging.ERROR) == [
        f"The robots.txt store cannot be used ({OpenedStore.source}: no such table); "
        "robots.txt is cached in memory only for this crawl"
    ]
    assert stats.values == {}
    yield shared.close()
    assert [name for name, _ in store.calls] == ["open", "close"]


@pytest_twisted.inlineCallbacks
def test_a_store_busy_at_opening_is_probed_until_it_answers(caplog):
    store = OpenedStore(fail=StoreBusy(f"{OpenedStore.source}: locked"))
    clock = Clock()
    shared, stats = shared_store(store, clock)
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        assert (yield deferred_from_coro(shared.get("https://a.example:443"))) is None
        assert stats.values == {"robotstxt/store/error": 1}
        clock.advance(1)
        yield wait_for(lambda: shared.available)
        assert (yield deferred_from_coro(shared.put("https://a.example:443", RECORD)))
    assert [name for name, _ in store.calls] == ["open", "ping", "put"]
    assert stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    yield shared.close()


class SlowOpening(OpenedStore):
    """Says when its ``open()`` has ended, too."""

    def open(self) -> None:
        super().open()
        self._call("opened")


@pytest_twisted.inlineCallbacks
def test_a_close_during_the_opening_lets_it_end_first():
    """A crawl that ends while the store the spider's opening started is
    still being opened (a spider with no request) keeps what the opening
    set up: the store is closed once ``open()`` has returned."""
    store = SlowOpening()
    shared, stats = shared_store(store, Clock())
    shared.open()
    closed = yield shared.close()
    assert closed is True
    assert [name for name, _ in store.calls] == ["open", "opened", "close"]
    assert stats.values == {}
