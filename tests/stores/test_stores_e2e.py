"""Crawls with a store (issue 4): a re-run makes no robots.txt requests
within the lifetime, the 30-day rule with a fake clock across runs, and a
broken store falls back to memory without crashing or allowing all."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from ..crawling import (
    ROBOTS,
    FakeClock,
    Stage,
    crawl,
    pages,
    robots_origin,
    stat,
    switchable_origin,
    use_clock,
)
from ..mockserver import Reply

DAY = 86_400


def sqlite(tmp_path: Path) -> dict[str, Any]:
    return {"ROBOTSTXT_RFC_STORE": f"sqlite:///{tmp_path / 'robots.db'}"}


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_rerun_makes_no_robots_requests_within_the_lifetime(server, activation, tmp_path):
    origins = [robots_origin(server, Reply(body=ROBOTS)) for _ in range(5)]
    urls = [o.url(p) for o in origins for p in ("/a", "/private/x")]
    first = yield crawl(activation, [Stage(urls)], **sqlite(tmp_path))
    second = yield crawl(activation, [Stage(urls)], **sqlite(tmp_path))
    assert stat(first, "robotstxt/request_count") == 5
    assert stat(second, "robotstxt/request_count") is None
    assert stat(second, "robotstxt/store/hit") == 5
    assert sorted(second.spider.seen) == sorted(o.url("/a") for o in origins)
    assert len(second.spider.failed_with("Forbidden by robots.txt")) == 5
    for origin in origins:
        assert server.paths(origin).count("/robots.txt") == 1
        assert "/private/x" not in server.paths(origin)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_lifetime_is_shared_through_the_store(server, activation, tmp_path):
    clock = FakeClock()
    origin = robots_origin(server, Reply(body=ROBOTS))
    yield crawl(activation, [Stage(pages(origin, "/a"), hook=use_clock(clock))], **sqlite(tmp_path))
    clock.advance(DAY + 1)
    yield crawl(activation, [Stage(pages(origin, "/b"), hook=use_clock(clock))], **sqlite(tmp_path))
    assert server.paths(origin) == ["/robots.txt", "/a", "/robots.txt", "/b"]


UNREACHABLE = {"ROBOTSTXT_RFC_UNREACHABLE_RETRY": 0.3, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 1}


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_31_days_unreachable_with_a_good_copy_obeys_the_copy(server, activation, tmp_path):
    origin, state = switchable_origin(server, up=True)
    clock = FakeClock()
    settings = {**sqlite(tmp_path), **UNREACHABLE}
    yield crawl(activation, [Stage(pages(origin, "/a"), hook=use_clock(clock))], **settings)
    state["up"] = False
    clock.advance(31 * DAY)
    later = yield crawl(
        activation, [Stage(pages(origin, "/b", "/private/x"), hook=use_clock(clock))], **settings
    )
    assert later.spider.seen == [origin.url("/b")]
    assert later.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/x")]
    assert stat(later, "robotstxt/unreachable/last_good") == 1


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_31_days_unreachable_without_a_good_copy_allows_all(server, activation, tmp_path):
    origin = robots_origin(server, Reply(status=503))
    clock = FakeClock()
    settings = {**sqlite(tmp_path), **UNREACHABLE}
    first = yield crawl(activation, [Stage(pages(origin, "/a"), hook=use_clock(clock))], **settings)
    assert first.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    clock.advance(31 * DAY)
    later = yield crawl(
        activation, [Stage(pages(origin, "/b", "/private/x"), hook=use_clock(clock))], **settings
    )
    assert sorted(later.spider.seen) == pages(origin, "/b", "/private/x")
    assert "/a" not in server.paths(origin)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_corrupted_sqlite_file_falls_back_to_memory(server, activation, tmp_path, caplog):
    path = tmp_path / "robots.db"
    path.write_bytes(b"this is not a database" * 200)
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.ERROR):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/a", "/private/x"))],
            ROBOTSTXT_RFC_STORE=f"sqlite:///{path}",
        )
    assert crawler.spider.seen == [origin.url("/a")]
    assert "/private/x" not in server.paths(origin)
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        f"The robots.txt store cannot be used (ROBOTSTXT_RFC_STORE ('sqlite:///{path}'): "
        f"cannot use the SQLite file {path}: file is not a database); robots.txt is cached "
        "in memory only for this crawl"
    ]


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_sqlite_file_truncated_mid_crawl_falls_back_to_memory(
    server, activation, tmp_path, caplog
):
    path = tmp_path / "robots.db"
    first, second = (robots_origin(server, Reply(body=ROBOTS)) for _ in range(2))

    def truncate(spider: Any) -> None:
        for suffix in ("", "-wal"):
            target = Path(f"{path}{suffix}")
            if target.exists():
                target.write_bytes(b"\0" * 10)

    stages = [Stage(pages(first, "/a")), Stage(pages(second, "/b", "/private/y"), hook=truncate)]
    with caplog.at_level(logging.ERROR):
        crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_STORE=f"sqlite:///{path}")
    # SQLite goes on from its open connection (page cache and WAL) or
    # reports an error, which makes the middleware use memory; either way
    # the crawl goes on with the rules obeyed and nothing raised.
    assert set(crawler.spider.seen) == {first.url("/a"), second.url("/b")}
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [second.url("/private/y")]
    assert "/private/y" not in server.paths(second)
    # The first store error is an ERROR; one after the store answered
    # again is a WARNING (health.py), and nothing else logs an ERROR.
    errors = stat(crawler, "robotstxt/store/error") or 0
    assert (stat(crawler, "log_count/ERROR") or 0) == min(1, errors)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_store_hit_applies_crawl_delay_and_sends_robots_parsed(server, activation, tmp_path):
    from scrapy import signals

    from ..crawling import make_crawler

    body = b"User-agent: *\nCrawl-delay: 0.2\nDisallow: /private\n"
    origin = robots_origin(server, Reply(body=body))
    settings = {**sqlite(tmp_path), "ROBOTSTXT_RFC_CRAWL_DELAY": True}
    yield crawl(activation, [Stage(pages(origin, "/a"))], **settings)
    crawler = make_crawler(activation, settings)
    parsed: list[Any] = []

    def on_parsed(robotparser: Any, request: Any) -> None:
        parsed.append(robotparser)

    if hasattr(signals, "robots_parsed"):
        crawler.signals.connect(on_parsed, signal=signals.robots_parsed)
    yield crawler.crawl(stages=[Stage(pages(origin, "/b", "/private/x"))])
    assert server.paths(origin).count("/robots.txt") == 1
    assert stat(crawler, "robotstxt/store/hit") == 1
    assert stat(crawler, "robotstxt/crawl_delay/applied") == 1
    if hasattr(signals, "robots_parsed"):
        assert len(parsed) == 1
        assert not parsed[0].allowed(origin.url("/private/x"), "TestBot")


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_good_copy_missing_from_the_store_is_never_saved_as_allow_all(
    server, activation, tmp_path
):
    """The store lost the record (a Redis restart, a deleted row) while this
    crawl still had the rules in memory; robots.txt then fails. Saving the
    failure as "good, no body" would read back as allow all."""
    import sqlite3

    origin, state = switchable_origin(server, up=True)
    clock = FakeClock()
    settings = {**sqlite(tmp_path), **UNREACHABLE}

    def lose_the_record(spider: Any) -> None:
        with sqlite3.connect(tmp_path / "robots.db") as db:
            db.execute("DELETE FROM records")
        state["up"] = False
        clock.advance(DAY + 1)

    first = yield crawl(
        activation,
        [
            Stage(pages(origin, "/a"), hook=use_clock(clock)),
            Stage(pages(origin, "/b", "/private/x"), hook=lose_the_record),
        ],
        **settings,
    )
    assert first.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/x")]
    clock.advance(3600)
    later = yield crawl(
        activation, [Stage(pages(origin, "/c", "/private/y"), hook=use_clock(clock))], **settings
    )
    assert "/private/y" not in server.paths(origin)
    assert sorted(later.spider.failed_with("robots.txt unreachable")) == pages(
        origin, "/c", "/private/y"
    )


def test_stored_times_are_limited_to_what_this_crawler_would_set():
    """A record written by a machine whose clock runs hours ahead cannot
    hold an origin back longer than the longest backoff or the lifetime."""
    from scrapy_robots_rfc import RobotsTxt, policy
    from scrapy_robots_rfc.stores import entry_from_record
    from scrapy_robots_rfc.stores._base import Record

    now = 1_000_000.0
    ahead = now + 10 * DAY
    record = Record(
        good=True,
        body=ROBOTS,
        status=200,
        outcome="200",
        fetched_at=ahead,
        expires_at=ahead + DAY,
        unreachable_since=ahead,
        failures=1,
        retry_at=ahead + 30,
    )
    rules = {"testbot": RobotsTxt.parse(ROBOTS).for_agent("testbot")}
    entry = entry_from_record(record, rules, now=now, ttl=DAY)
    assert entry.expires == now + DAY
    assert entry.retry_at == now + policy.MAX_RETRY_DELAY
    assert entry.rules is not None
    assert not entry.rules["testbot"].allowed("http://h/private/x")
