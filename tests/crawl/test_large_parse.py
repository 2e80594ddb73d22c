"""A large robots.txt in a real crawl (issue 41): parsed in the parse thread
(:mod:`scrapy_robots_rfc.crawl._parsing`), fetched or read from the store
by the next crawl, it gives what the parse on the reactor's thread gives:
the requests the server gets, the pages the spider sees, every
``robotstxt/*`` stat, the crawl-delay and the ``robots_parsed`` signal. An
error of the parse in the thread loses no request."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals
from twisted.python.threadable import isInIOThread

from scrapy_robots_rfc.crawl import _parsing

from ..crawling import Stage, make_crawler, pages, robots_origin, stat
from ..mockserver import MockServer, Reply

pytestmark = pytest.mark.e2e

#: What the crawl asks for: TestBot's group allows /a, /b and /private/ok.
PATHS = ("/a", "/private/x", "/private/ok", "/b", "/p7", "/late")


def large_robots() -> bytes:
    """About 700 KiB: TestBot's group with a crawl-delay, then 20,000 groups
    of other crawlers, sitemaps among them, and a last TestBot group past
    500 KiB (the crawls read 1 MiB), merged with the first (GRP-4)."""
    head = (
        b"User-agent: TestBot\nCrawl-delay: 0.05\nDisallow: /private\nAllow: /private/ok\n\n"
        b"Sitemap: https://example.com/sitemap.xml\n"
    )
    groups = b"".join(
        b"User-agent: bot%d\nDisallow: /p%d\n" % (number, number) for number in range(20_000)
    )
    tail = b"\n" + b"#" * 200 + b"\n" * 100 + b"User-agent: TestBot\nDisallow: /late\n"
    body = head + groups + b"#" * 150_000 + tail
    assert 600 * 1024 < len(body) < 1024 * 1024
    return body


BODY = large_robots()
#: The stats that count how many requests came while robots.txt was on its
#: way, or before the crawl-delay's turn: they depend on timing, in either
#: thread (the store is read in a thread too).
BY_TIMING = ("robotstxt/waiting", "robotstxt/crawl_delay/waited")
SETTINGS = {"ROBOTSTXT_RFC_MAX_BYTES": 1024 * 1024, "ROBOTSTXT_RFC_CRAWL_DELAY": True}


def parse_threads(monkeypatch: Any, *, in_thread: bool) -> list[bool]:
    """Whether each parse ran on the reactor's thread; the large body in
    the parse thread (``in_thread``) or on the reactor's, as before issue 41."""
    if not in_thread:
        monkeypatch.setattr(_parsing, "IN_THREAD_BYTES", len(BODY) + 1)
    on_reactor: list[bool] = []
    real = _parsing.parse_and_keep

    def recorded(body: bytes, *args: Any) -> Any:
        if len(body) > 1000:
            on_reactor.append(isInIOThread())
        return real(body, *args)

    monkeypatch.setattr(_parsing, "parse_and_keep", recorded)
    return on_reactor


def two_crawls(server: MockServer, activation: dict[str, Any], store: Path) -> Any:
    """A crawl that fetches the large robots.txt and stores it, then one
    that reads it from the store: for each, what the server got, what the
    spider saw, the ``robotstxt/*`` stats and what ``robots_parsed`` gave."""
    origin = robots_origin(server, Reply(body=BODY))
    settings = {**SETTINGS, "ROBOTSTXT_RFC_STORE": f"sqlite:///{store}"}
    found = []
    for _ in range(2):
        crawler = make_crawler(activation, settings)
        parsed: list[Any] = []

        def on_parsed(robotparser: Any, request: Any, parsed: list[Any] = parsed) -> None:
            verdicts = [robotparser.allowed(origin.url(p), "TestBot") for p in PATHS]
            parsed.append((request.url.removeprefix(origin.url("")), verdicts))

        if hasattr(signals, "robots_parsed"):  # Scrapy 2.18+
            crawler.signals.connect(on_parsed, signal=signals.robots_parsed)
        hits = len(server.paths(origin))
        yield crawler.crawl(stages=[Stage(pages(origin, *PATHS))])
        stats = {
            key: value
            for key, value in crawler.stats.get_stats().items()
            if key.startswith("robotstxt/") and not key.startswith(BY_TIMING)
        }
        found.append(
            (
                sorted(server.paths(origin)[hits:]),
                sorted(url.removeprefix(origin.url("")) for url in crawler.spider.seen),
                stats,
                parsed,
            )
        )
    return found


@pytest_twisted.inlineCallbacks
def test_a_large_robotstxt_parsed_in_the_thread_gives_what_the_reactor_parse_gives(
    server, activation, monkeypatch, tmp_path
):
    threads = parse_threads(monkeypatch, in_thread=True)
    threaded = yield from two_crawls(server, activation, tmp_path / "threaded.db")
    assert threads == [False, False], "fetched, then read from the store: in the parse thread"
    monkeypatch.undo()
    threads = parse_threads(monkeypatch, in_thread=False)
    inline = yield from two_crawls(server, activation, tmp_path / "inline.db")
    assert threads == [True, True]
    assert threaded == inline
    (fetch_hits, fetch_seen, fetch_stats, _), (store_hits, store_seen, store_stats, _) = threaded
    assert fetch_seen == ["/a", "/b", "/p7", "/private/ok"]
    assert fetch_hits == sorted(["/robots.txt", *fetch_seen])
    assert store_hits == store_seen == fetch_seen, "no fetch: the store's copy"
    assert fetch_stats["robotstxt/forbidden"] == store_stats["robotstxt/forbidden"] == 2
    assert fetch_stats["robotstxt/crawl_delay/applied"] == 1
    assert store_stats["robotstxt/store/hit"] == 1


@pytest_twisted.inlineCallbacks
def test_an_error_of_the_parse_in_the_thread_loses_no_request(server, activation, monkeypatch):
    """A bug of ours in the thread is one of the fetch (the loader never
    raises): robots.txt counts as unreachable, the request waits, and it
    is dropped at the end of the wait, saying why."""
    failed = threading.Event()

    def broken(*args: Any) -> Any:
        failed.set()
        raise RuntimeError("boom")

    monkeypatch.setattr(_parsing, "parse_and_keep", broken)
    origin = robots_origin(server, Reply(body=BODY))
    crawler = make_crawler(activation, {**SETTINGS, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0})
    yield crawler.crawl(stages=[Stage(pages(origin, "/a"))])
    assert failed.is_set()
    assert server.paths(origin) == ["/robots.txt"]
    assert crawler.spider.failed == [origin.url("/a")]
    assert stat(crawler, "robotstxt/unreachable") == 1
