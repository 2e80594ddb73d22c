"""An SQLite store whose records table is damaged in part (issue 41): the
crawl's reads and writes of the origins on the damaged pages fail, while
one row still reads and the locks table takes writes. The store is set
aside once, with one "store failed" line, and probed for as long as the
damage lasts without ever being said to answer again; once the file is
repaired, the next probe brings it back, with one "answers again" line,
and it stays in use.

Before, the probe (a read of one row and a write to the locks table)
passed on such a file: the store came back and failed again at the next
write, 6 "store failed" and 5 "answers again" lines in 67 s.

:class:`.SharedStore` with its real threads and a real file, the probes'
timers on ``twisted.internet.task.Clock``; then a real crawl on such a file,
under both activations.
"""

from __future__ import annotations

import logging
import sqlite3
from pathlib import Path

import pytest
import pytest_twisted
from scrapy.utils.defer import deferred_from_coro
from twisted.internet.task import Clock

from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc.stores import Record
from scrapy_robots_rfc.stores._circuit_breaker import StoreHealth
from scrapy_robots_rfc.stores._sqlite import SqliteStore

from ..crawling import ROBOTS, Stage, crawl, pages, robots_origin, stat
from ..mockserver import Reply
from .sqlite_damage import damage_records
from .test_store_close import wait_for
from .test_store_locked import shared_store

RECORD = Record(
    good=True,
    body=b"User-agent: *\nDisallow: /private\n" * 30,
    status=200,
    outcome="200",
    fetched_at=1.0,
    expires_at=2.0,
)


def stored(path: Path, origins: int = 300) -> list[str]:
    """A store file of ``origins`` records, checkpointed and closed."""
    names = [f"https://o{i:03}.example:443" for i in range(origins)]
    store = SqliteStore(str(path))
    for name in names:
        store.put(name, RECORD)
    store.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    return names


def said(caplog: pytest.LogCaptureFixture, start: str) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith(LOGGER_NAME) and r.getMessage().startswith(start)
    ]


def probes_at(until: float) -> list[float]:
    """When the store is probed after an error at 0: 1 s, then doubling
    waits, up to one a minute (:class:`.StoreHealth`)."""
    times, at, wait = [], 0.0, StoreHealth.FIRST_RETRY
    while at + wait <= until:
        at += wait
        times.append(at)
        wait = min(wait * 2, StoreHealth.MAX_RETRY)
    return times


@pytest_twisted.inlineCallbacks
def test_a_damaged_records_table_fails_once_and_answers_again_once_repaired(tmp_path, caplog):
    path = tmp_path / "damaged.db"
    first, *_, last = stored(path)
    damage = damage_records(path)
    clock = Clock()
    shared, stats = shared_store(SqliteStore(str(path)), clock)
    failed = "The robots.txt store failed"
    back = f"The robots.txt store ROBOTSTXT_RFC_STORE ('sqlite:///{path}') answers again"
    still = "The robots.txt store still fails"
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        assert (yield deferred_from_coro(shared.get(first))) == RECORD  # one row reads
        assert shared.available
        # A write of a new origin's record: the crawl's own call fails.
        assert (yield deferred_from_coro(shared.put("https://new.example:443", RECORD)))
        assert not shared.available
        # Ten minutes of probes, every one of which finds the damage.
        times = probes_at(600)
        for n, at in enumerate(times, 1):
            clock.advance(at - clock.seconds())
            yield wait_for(lambda n=n: len(said(caplog, still)) == n)
            assert not shared.available
        assert len(times) == 14
        assert said(caplog, back) == []
        assert stats.values == {"robotstxt/store/error": 1}
        assert all("the file is damaged (PRAGMA quick_check: " in m for m in said(caplog, still))
        damage.repair()
        clock.advance(times[-1] + StoreHealth.MAX_RETRY - clock.seconds())
        yield wait_for(lambda: shared.available)
        # The crawl's calls go through again, and the store stays in use.
        assert (yield deferred_from_coro(shared.get(last))) == RECORD
        assert (yield deferred_from_coro(shared.put("https://new.example:443", RECORD)))
        assert (yield deferred_from_coro(shared.get("https://new.example:443"))) == RECORD
        clock.advance(600)
        assert shared.available
    [error] = said(caplog, failed)
    assert error.startswith(
        f"{failed} (ROBOTSTXT_RFC_STORE ('sqlite:///{path}'): database disk image is malformed)"
    )
    assert said(caplog, back) == [f"{back} after 603 s; robots.txt is shared through it again"]
    assert stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    yield shared.close()


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_crawl_on_a_damaged_store_fails_once_and_never_says_it_answers(
    server, activation, tmp_path, caplog
):
    """A real crawl of two origins on such a file: the first origin's record
    cannot be written (the store failed, once); the second's robots.txt comes
    2.5 s later, after the first probe. Before, that probe passed ("answers
    again"), and the second origin's write failed again. The crawl goes on
    with memory: every allowed page reached the spider, and no disallowed
    one was requested."""
    path = tmp_path / "damaged.db"
    stored(path)
    damage_records(path)
    quick = robots_origin(server, Reply(body=ROBOTS))
    slow = robots_origin(server, Reply(body=ROBOTS, delay=2.5))
    urls = [*pages(quick, "/a", "/private/x"), *pages(slow, "/b", "/private/y")]
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_STORE=f"sqlite:///{path}")
    failed = said(caplog, "The robots.txt store failed")
    assert len(failed) == 1, failed
    assert "database disk image is malformed" in failed[0]
    assert said(caplog, "The robots.txt store ROBOTSTXT_RFC_STORE") == []  # "answers again"
    assert len(said(caplog, "The robots.txt store still fails")) >= 1  # probed meanwhile
    assert stat(crawler, "robotstxt/store/error") == 1
    assert stat(crawler, "robotstxt/store/recovered") is None
    assert sorted(crawler.spider.seen) == sorted([quick.url("/a"), slow.url("/b")])
    assert sorted(crawler.spider.failed_with("Forbidden by robots.txt")) == sorted(
        [quick.url("/private/x"), slow.url("/private/y")]
    )
    assert sorted(server.paths(quick)) == ["/a", "/robots.txt"]
    assert sorted(server.paths(slow)) == ["/b", "/robots.txt"]
