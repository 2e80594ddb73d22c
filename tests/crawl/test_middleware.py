"""End-to-end crawls against a real local server: every status, redirect,
size and failure of the issue, under both activations.

Each test asserts on what reached the server (its hit log), what reached
the spider (responses and errbacks) and the stats.
"""

from __future__ import annotations

import gc
import itertools
import logging
import re
import threading
from typing import Any, ClassVar

import pytest
import pytest_twisted
from pydispatch import dispatcher
from scrapy import Request, signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc.crawl._fetcher import Fetcher
from scrapy_robots_rfc.crawl.middleware import RobotsTxtMiddleware

from ..crawling import (
    BASE_SETTINGS,
    ROBOTS,
    FakeClock,
    Recorder,
    Stage,
    crawl,
    make_crawler,
    middleware_of,
    pages,
    robots_origin,
    stat,
    switchable_origin,
    use_clock,
)
from ..mockserver import Hit, MockServer, Origin, Reply

pytestmark = pytest.mark.e2e

# -- 2xx ------------------------------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_200_rules_are_obeyed_and_robots_txt_is_fetched_once(server, activation):
    origin = robots_origin(server, Reply(body=ROBOTS))
    urls = pages(origin, "/public", "/private/a", "/private/ok", "/")
    crawler = yield crawl(activation, [Stage(urls)])
    spider = crawler.spider
    assert server.paths(origin).count("/robots.txt") == 1
    assert "/private/a" not in server.paths(origin)
    assert sorted(spider.seen) == sorted(pages(origin, "/public", "/private/ok", "/"))
    assert spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/a")]
    assert stat(crawler, "robotstxt/request_count") == 1
    assert stat(crawler, "robotstxt/response_count") == 1
    assert stat(crawler, "robotstxt/response_status_count/200") == 1
    assert stat(crawler, "robotstxt/forbidden") == 1
    assert not any(k.startswith("_robotstxt_rfc") for m in spider.metas for k in m), spider.metas


@pytest_twisted.inlineCallbacks
def test_concurrent_waiters_all_get_their_verdict(server, activation):
    """Scrapy 2.14-2.19's built-in lets all but the first waiter through."""
    slow = Reply(body=b"User-agent: *\nDisallow: /private\n", delay=0.3)
    origin = robots_origin(server, slow)
    urls = pages(origin, *(f"/private/{i}" for i in range(30)), "/open")
    crawler = yield crawl(activation, [Stage(urls)], CONCURRENT_REQUESTS=64)
    assert server.paths(origin) == ["/robots.txt", "/open"]
    assert len(crawler.spider.failed_with("Forbidden by robots.txt")) == 30
    assert crawler.spider.seen == [origin.url("/open")]
    assert stat(crawler, "robotstxt/forbidden") == 30
    assert stat(crawler, "robotstxt/request_count") == 1


@pytest.mark.parametrize(
    ("body", "served_as"),
    [
        pytest.param(b"<html><body>User-agent: *<br>Disallow: /x</body></html>", {}, id="html"),
        pytest.param(b"\xef\xbb\xbfUser-agent: *\r\nDisallow: /private\r\n", {}, id="bom-crlf"),
        pytest.param(ROBOTS, {"gzip": True}, id="gzip"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_odd_bodies_are_parsed(server, activation, body, served_as):
    origin = robots_origin(server, Reply(body=body, html=body.startswith(b"<html"), **served_as))
    urls = pages(origin, "/private/a", "/public")
    crawler = yield crawl(activation, [Stage(urls)])
    if body.startswith(b"<html"):
        # "User-agent: *<br>Disallow: /x</body></html>" is one line whose
        # user-agent value is "*<br>Disallow:..." (GRP-1): no rules.
        assert sorted(crawler.spider.seen) == sorted(urls)
        # An HTML page, counted apart from the files with rules (issue 41).
        assert (stat(crawler, "robotstxt/html_page"), stat(crawler, "robotstxt/rules")) == (1, None)
    else:
        assert "/private/a" not in server.paths(origin)
        assert crawler.spider.seen == [origin.url("/public")]
        assert (stat(crawler, "robotstxt/html_page"), stat(crawler, "robotstxt/rules")) == (None, 1)


@pytest_twisted.inlineCallbacks
def test_body_over_the_limit_is_cut_and_a_rule_after_it_ignored(server, activation):
    padding = b"# " + b"x" * 1000 + b"\n"
    body = b"User-agent: *\nDisallow: /early\n" + padding * 600 + b"Disallow: /late\n"
    assert len(body) > 512_000
    origin = robots_origin(server, Reply(body=body))
    crawler = yield crawl(activation, [Stage(pages(origin, "/early", "/late"))])
    assert crawler.spider.seen == [origin.url("/late")]
    assert "/early" not in server.paths(origin)
    assert stat(crawler, "robotstxt/truncated") == 1


@pytest_twisted.inlineCallbacks
def test_the_size_limit_handlers_are_disconnected_when_no_fetch_is_in_flight(server, activation):
    """The fetcher's download signal handlers are held by strong references
    while robots.txt downloads are in flight (several here, of origins
    fetched at once), and the last one to end disconnects them."""
    origins = [robots_origin(server, Reply(body=ROBOTS, delay=0.2)) for _ in range(3)]
    urls = [url for origin in origins for url in pages(origin, "/private/a", "/public")]
    crawler = yield crawl(activation, [Stage(urls)])
    assert sorted(crawler.spider.seen) == sorted(o.url("/public") for o in origins)
    assert stat(crawler, "robotstxt/request_count") == 3
    for signal in (
        signals.request_reached_downloader,
        signals.headers_received,
        signals.bytes_received,
        signals.response_downloaded,
    ):
        receivers = dispatcher.getAllReceivers(crawler.signals.sender, signal)
        assert not [r for r in receivers if isinstance(getattr(r, "__self__", None), Fetcher)], (
            signal
        )


@pytest_twisted.inlineCallbacks
def test_gzip_bomb_is_read_up_to_the_limit(server, activation):
    body = b"User-agent: *\nDisallow: /early\n" + b"#" * 50_000_000 + b"\nDisallow: /late\n"
    origin = robots_origin(server, Reply(body=body, gzip=True))
    crawler = yield crawl(activation, [Stage(pages(origin, "/early", "/late"))])
    assert crawler.spider.seen == [origin.url("/late")]
    assert stat(crawler, "robotstxt/truncated") == 1


# -- 4xx ------------------------------------------------------------------------------


@pytest.mark.parametrize("status", [404, 401, 403, 410])
@pytest_twisted.inlineCallbacks
def test_4xx_allows_everything(server, activation, status):
    origin = robots_origin(server, Reply(status=status, body=b"User-agent: *\nDisallow: /\n"))
    urls = pages(origin, "/private/a", "/b")
    crawler = yield crawl(activation, [Stage(urls)])
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert server.paths(origin).count("/robots.txt") == 1
    assert stat(crawler, "robotstxt/allow_all") == 1
    assert stat(crawler, f"robotstxt/response_status_count/{status}") == 1


# -- unreachable ----------------------------------------------------------------------

UNREACHABLE = {"ROBOTSTXT_RFC_UNREACHABLE_RETRY": 0.3, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 1.0}


@pytest.mark.parametrize(
    "reply",
    [
        pytest.param(Reply(status=500), id="500"),
        pytest.param(Reply(status=503), id="503"),
        pytest.param(Reply(status=429), id="429"),
        pytest.param(Reply(reset=True), id="reset"),
        pytest.param(Reply(body=ROBOTS, truncate=True), id="truncated"),
        pytest.param(Reply(hang=True), id="hang"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_unreachable_disallows_all_then_drops_after_the_wait(server, activation, reply, caplog):
    origin = robots_origin(server, reply)
    urls = pages(origin, "/a", "/b", "/c")
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_TIMEOUT=0.4, **UNREACHABLE)
    assert set(server.paths(origin)) == {"/robots.txt"}, "no page was downloaded"
    assert len(server.paths(origin)) >= 2, "robots.txt was retried"
    assert crawler.spider.seen == []
    assert sorted(crawler.spider.failed_with("robots.txt unreachable")) == sorted(urls)
    assert stat(crawler, "robotstxt/unreachable/dropped") == 3
    assert stat(crawler, "robotstxt/unreachable") >= 2
    assert stat(crawler, "robotstxt/disallow_all") >= 1
    dropping = [r for r in caplog.records if r.getMessage().startswith("Dropping requests")]
    assert len(dropping) == 1, "logged once per origin"
    assert str(origin.port) in dropping[0].getMessage()
    if reply.hang or reply.reset or reply.truncate:
        assert any(k.startswith("robotstxt/exception_count/") for k in crawler.stats.get_stats())


@pytest_twisted.inlineCallbacks
def test_retry_after_is_honoured(server, activation):
    origin = robots_origin(
        server,
        lambda hit, n: (
            Reply(status=429, headers={"Retry-After": "1"}) if n == 1 else Reply(body=ROBOTS)
        ),
    )
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.3,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=5,
    )
    robots = server.hits_for(origin, "/robots.txt")
    assert len(robots) == 2
    assert robots[1].time - robots[0].time >= 0.9  # not the 0.3 s of the backoff
    assert crawler.spider.seen == [origin.url("/a")]


@pytest_twisted.inlineCallbacks
def test_retry_after_zero_does_not_spin(server, activation):
    origin = robots_origin(server, Reply(status=503, headers={"Retry-After": "0"}))
    crawler = yield crawl(activation, [Stage(pages(origin, "/a"))], **UNREACHABLE)
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    # 0.3 s, 0.6 s... of backoff within the 1 s wait: a handful, not thousands.
    assert 2 <= len(server.hits_for(origin, "/robots.txt")) <= 4


@pytest_twisted.inlineCallbacks
def test_the_wait_counts_only_once_the_origin_is_unreachable(server, activation):
    origin = robots_origin(server, Reply(body=ROBOTS, delay=0.3))
    urls = pages(origin, "/a", "/private/x")
    crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_UNREACHABLE_WAIT=0)
    assert crawler.spider.seen == [origin.url("/a")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/x")]
    assert stat(crawler, "robotstxt/unreachable/dropped") is None


def unreachable_lines(caplog: Any, origin: Origin) -> list[str]:
    """The WARNINGs that ``origin``'s robots.txt is unreachable."""
    prefix = f"{origin.url('/robots.txt')} is unreachable"
    return [r.getMessage() for r in caplog.records if r.getMessage().startswith(prefix)]


@pytest.mark.parametrize(
    ("settings", "outlook"),
    [
        pytest.param(
            {"ROBOTSTXT_RFC_UNREACHABLE_WAIT": 2},
            "requests to it will be dropped in 2 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
            "before the next try in 30 s",
            id="wait-shorter-than-the-retry",
        ),
        pytest.param(
            {"ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0},
            "requests to it are dropped at once (ROBOTSTXT_RFC_UNREACHABLE_WAIT is 0); "
            "next try in 30 s",
            id="wait-0",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_the_unreachable_warning_says_when_requests_are_dropped(
    server, activation, settings, outlook, caplog
):
    origin = robots_origin(server, Reply(status=503))
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a"))], **settings)
    assert unreachable_lines(caplog, origin) == [
        f"{origin.url('/robots.txt')} is unreachable (HTTP 503): {outlook}"
    ]
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    assert server.paths(origin) == ["/robots.txt"], "dropped before the next try"


@pytest.mark.parametrize(
    ("count", "closing"),
    [
        (
            1,
            "1 request was still waiting for robots.txt when the spider closed "
            "(closespider_timeout); set JOBDIR to keep it for the next run",
        ),
        (
            2,
            "2 requests were still waiting for robots.txt when the spider closed "
            "(closespider_timeout); set JOBDIR to keep them for the next run",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_with_default_settings_the_warning_gives_the_deadline_and_the_next_try(
    server, activation, count, closing, caplog
):
    """The crawl is stopped after 0.5 s, while its requests wait: they are
    counted, and a crawl (not a command's one request) is told of JOBDIR."""
    origin = robots_origin(server, Reply(status=503))
    urls = pages(origin, *(f"/{i}" for i in range(count)))
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(urls)], CLOSESPIDER_TIMEOUT=0.5)
    assert unreachable_lines(caplog, origin) == [
        f"{origin.url('/robots.txt')} is unreachable (HTTP 503): requests to it wait until it "
        "answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s"
    ]
    assert [r.getMessage() for r in caplog.records if "still waiting" in r.getMessage()] == [
        closing
    ]
    assert stat(crawler, "robotstxt/waiting/abandoned") == count
    # Counted as every WARNING of the crawl, the close-time one too (issue 43).
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert stat(crawler, "log_count/WARNING") == len(warnings) == 2


@pytest.mark.parametrize(
    ("wait", "second"),
    [
        pytest.param(
            0.5,
            "requests to it are dropped after 0.5 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before "
            "the next try in 20 s",
            id="told-when-the-wait-begins",
        ),
        pytest.param(0, None, id="wait-0-dropped-at-once"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_request_in_the_backoff_waits_the_wait_not_the_backoff(
    server, activation, wait, second, caplog
):
    """Stage 2 comes 10 s (on the cache's clock) after stage 1's request was
    dropped, while the 30 s backoff runs: it waits at most
    ROBOTSTXT_RFC_UNREACHABLE_WAIT from when it comes, not until the retry,
    and the WARNING says so when its wait begins (RFC 9309 §2.3.1.4)."""
    clock = FakeClock()
    origin = robots_origin(server, Reply(status=503))
    stages = [
        Stage(pages(origin, "/a"), use_clock(clock)),
        Stage(pages(origin, "/b"), lambda spider: clock.advance(10)),
    ]
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_UNREACHABLE_WAIT=wait)
    assert crawler.spider.failed_with("robots.txt unreachable") == pages(origin, "/a", "/b")
    assert server.paths(origin) == ["/robots.txt"]
    assert stat(crawler, "robotstxt/unreachable/dropped") == 2
    robots = origin.url("/robots.txt")
    assert unreachable_lines(caplog, origin)[1:] == (
        [] if second is None else [f"{robots} is unreachable (HTTP 503): {second}"]
    )


# When another test takes the CPU, the store's read (in its thread) can
# answer before the request is counted as waiting: the line then says "are
# dropped after 1 s" and the origin is announced twice. It runs while no
# other test runs (tests/alone.py) until that ordering is fixed.
@pytest.mark.alone
@pytest_twisted.inlineCallbacks
def test_an_unreachable_origin_read_from_the_store_is_warned_about(
    server, activation, tmp_path, caplog
):
    """The second crawl reads the first one's failure from the store, 10 s
    into its 30 s backoff: its request waits, and is told how long, as
    after a fetch of its own."""
    clock = FakeClock()
    origin = robots_origin(server, Reply(status=503))
    settings = {"ROBOTSTXT_RFC_STORE": f"sqlite:///{tmp_path / 'robots.db'}"}
    yield crawl(
        activation,
        [Stage(pages(origin, "/a"), use_clock(clock))],
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        **settings,
    )
    clock.advance(10)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        second = yield crawl(
            activation,
            [Stage(pages(origin, "/b"), use_clock(clock))],
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=1,
            **settings,
        )
    assert unreachable_lines(caplog, origin) == [
        f"{origin.url('/robots.txt')} is unreachable (HTTP 503, from ROBOTSTXT_RFC_STORE): "
        "requests to it will be dropped in 1 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the "
        "next try in 20 s"
    ]
    assert second.spider.failed_with("robots.txt unreachable") == [origin.url("/b")]
    assert server.paths(origin) == ["/robots.txt"]


class OffsiteRecorder(Recorder):
    allowed_domains: ClassVar[list[str]] = ["127.0.0.1"]


@pytest_twisted.inlineCallbacks
def test_a_request_that_waited_is_filtered_as_the_user_made_it(server, activation):
    """It went back to the scheduler with dont_filter; once decided, the
    dupefilter and offsite filtering see the user's setting again."""
    other = server.add_origin()
    origin = robots_origin(server, Reply(body=ROBOTS, delay=0.2))
    redirect = Reply(status=302, headers={"Location": other.url("/landing", host="localhost")})
    origin_redirect = server.add_origin(
        {"/robots.txt": Reply(body=ROBOTS, delay=0.2), "/r": redirect}
    )
    specs = [
        {"url": origin_redirect.url("/r"), "dont_filter": False},
        {"url": origin.url("/a"), "dont_filter": False},
        {"url": origin.url("/a"), "dont_filter": False},
    ]
    crawler = get_crawler(OffsiteRecorder, {**BASE_SETTINGS, **activation})
    yield crawler.crawl(stages=[Stage(specs)])
    assert server.paths(other) == [], "the redirect to another domain was filtered"
    assert server.paths(origin).count("/a") == 1, "the duplicate was filtered"
    assert crawler.spider.seen == [origin.url("/a")]
    assert stat(crawler, "robotstxt/waiting") >= 2


@pytest_twisted.inlineCallbacks
def test_503_turning_into_200_releases_waiting_requests(server, activation):
    def flaky(hit: Hit, n: int) -> Reply:
        return Reply(status=503) if n <= 2 else Reply(body=ROBOTS)

    origin = robots_origin(server, flaky)
    urls = pages(origin, "/a", "/b", "/private/x")
    crawler = yield crawl(
        activation,
        [Stage(urls)],
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.2,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=30,
    )
    paths = server.paths(origin)
    assert paths[:3] == ["/robots.txt"] * 3, "nothing was downloaded before robots.txt was read"
    assert sorted(paths[3:]) == ["/a", "/b"]
    assert sorted(crawler.spider.seen) == pages(origin, "/a", "/b")
    # A waiting request's errback is not called; only the forbidden one's is.
    assert crawler.spider.failed == [origin.url("/private/x")]
    assert stat(crawler, "robotstxt/unreachable/dropped") is None
    assert stat(crawler, "robotstxt/waiting") == 3
    assert stat(crawler, "robotstxt/unreachable") == 2


@pytest_twisted.inlineCallbacks
def test_a_stalled_origin_does_not_stall_the_crawl(server, activation):
    """CONCURRENT_REQUESTS = 2: one origin's robots.txt fails for a while,
    the other origin's 20 pages are crawled meanwhile."""

    def slow_then_ok(hit: Hit, n: int) -> Reply:
        return Reply(status=503, delay=0.5) if n <= 2 else Reply(body=ROBOTS)

    stalled = robots_origin(server, slow_then_ok)
    fine = robots_origin(server, Reply(body=ROBOTS))
    urls = pages(stalled, *(f"/s{i}" for i in range(5)))
    urls += pages(fine, *(f"/f{i}" for i in range(20)))
    crawler = yield crawl(
        activation,
        [Stage(urls)],
        CONCURRENT_REQUESTS=2,
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.5,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=30,
    )
    assert len(crawler.spider.seen) == 25
    stalled_pages = [h for h in server.hits_for(stalled) if h.path != "/robots.txt"]
    fine_pages = [h for h in server.hits_for(fine) if h.path != "/robots.txt"]
    good_robots = server.hits_for(stalled, "/robots.txt")[-1]
    assert len(fine_pages) == 20
    assert all(h.time < good_robots.time for h in fine_pages), "crawled while the other waited"
    assert all(h.time > good_robots.time for h in stalled_pages)


@pytest_twisted.inlineCallbacks
def test_requests_waiting_for_a_first_fetch_do_not_block_other_origins(server, activation):
    hanging = robots_origin(server, Reply(hang=True))
    fine = robots_origin(server, Reply(body=ROBOTS))
    urls = pages(hanging, *(f"/h{i}" for i in range(10))) + pages(
        fine, *(f"/f{i}" for i in range(10))
    )
    crawler = yield crawl(
        activation, [Stage(urls)], CONCURRENT_REQUESTS=2, ROBOTSTXT_RFC_TIMEOUT=2, **UNREACHABLE
    )
    assert len([u for u in crawler.spider.seen if str(fine.port) in u]) == 10
    assert len(crawler.spider.failed_with("robots.txt unreachable")) == 10
    first_timeout = server.hits_for(hanging, "/robots.txt")[0].time + 2
    assert all(h.time < first_timeout for h in server.hits_for(fine) if h.path != "/robots.txt")


class DirectDownloads(Recorder):
    """Downloads with ``engine.download`` from a callback, as media
    pipelines do: those requests never pass the scheduler."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.direct_requests: list[Request] = []

    async def parse(self, response: Any) -> None:  # type: ignore[override]
        super().parse(response)
        dont_filter = response.meta.get("dont_filter", True)
        for url in response.meta.get("direct", ()):
            engine = self.crawler.engine
            request = Request(url, dont_filter=dont_filter)
            try:
                if hasattr(engine, "download_async"):
                    downloaded = await engine.download_async(request)
                else:
                    downloaded = await maybe_deferred_to_future(engine.download(request))
            except IgnoreRequest as exc:
                self.failures.append((url, exc))
            else:
                self.seen.append(url)
                self.direct_requests.append(downloaded.request)


@pytest_twisted.inlineCallbacks
def test_engine_download_requests_wait_in_place_and_get_their_verdict(server, activation):
    first = robots_origin(server, Reply(status=404))
    slow = robots_origin(server, Reply(body=ROBOTS, delay=0.3))
    direct = pages(slow, "/private/x", "/ok")
    crawler = get_crawler(DirectDownloads, {**BASE_SETTINGS, **activation})
    yield crawler.crawl(stages=[Stage([{"url": first.url("/"), "meta": {"direct": direct}}])])
    assert crawler.spider.seen == [first.url("/"), slow.url("/ok")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [slow.url("/private/x")]
    assert server.paths(slow) == ["/robots.txt", "/ok"]


@pytest_twisted.inlineCallbacks
def test_an_engine_download_request_given_back_to_be_parked_waits_in_place_as_the_user_made_it(
    server, activation
):
    """Without a fleet the middleware takes every request as one from the
    scheduler and gives a copy back to be parked; engine.download_async
    downloads that copy itself, so it comes back without passing the
    scheduler, and waits in place. Its dont_filter is the user's again,
    and it waited once."""
    first = robots_origin(server, Reply(status=404))
    slow = robots_origin(server, Reply(body=ROBOTS, delay=0.3))
    direct = pages(slow, "/ok", "/private/x")  # the first waits, the second is decided
    crawler = get_crawler(DirectDownloads, {**BASE_SETTINGS, **activation})
    start = {"url": first.url("/"), "meta": {"direct": direct, "dont_filter": False}}
    yield crawler.crawl(stages=[Stage([start])])
    assert crawler.spider.seen == [first.url("/"), slow.url("/ok")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [slow.url("/private/x")]
    assert server.paths(slow) == ["/robots.txt", "/ok"]
    assert [request.dont_filter for request in crawler.spider.direct_requests] == [False]
    assert stat(crawler, "robotstxt/waiting") == 2  # the start request, and /ok


# -- 3xx ------------------------------------------------------------------------------


def redirect_chain(server: MockServer, hops: int, final: Reply) -> Origin:
    """An origin whose robots.txt redirects ``hops`` times, then ``final``."""
    target = server.add_origin({"/robots.txt": final})
    for _ in range(hops - 1):
        target = server.add_origin(
            {"/robots.txt": Reply(status=301, headers={"Location": target.url("/robots.txt")})}
        )
    return server.add_origin(
        {"/robots.txt": Reply(status=302, headers={"Location": target.url("/robots.txt")})}
    )


@pytest_twisted.inlineCallbacks
def test_five_redirects_are_followed_across_hosts(server, activation):
    origin = redirect_chain(server, 5, Reply(body=ROBOTS))
    crawler = yield crawl(activation, [Stage(pages(origin, "/a", "/private/x"))])
    assert crawler.spider.seen == [origin.url("/a")]
    assert "/private/x" not in server.paths(origin)
    assert stat(crawler, "robotstxt/redirects") == 5
    assert stat(crawler, "robotstxt/request_count") == 6


@pytest_twisted.inlineCallbacks
def test_twenty_five_redirects_count_as_404(server, activation):
    origin = redirect_chain(server, 25, Reply(body=b"User-agent: *\nDisallow: /\n"))
    urls = pages(origin, "/a", "/private/x")
    crawler = yield crawl(activation, [Stage(urls)])
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert stat(crawler, "robotstxt/request_count") == 6, "gave up after the 6th response"
    assert stat(crawler, "robotstxt/allow_all") == 1


@pytest_twisted.inlineCallbacks
def test_redirect_loop_counts_as_404(server, activation):
    other: dict[str, Origin] = {}
    loop = robots_origin(
        server,
        lambda hit, n: Reply(status=301, headers={"Location": other["b"].url("/robots.txt")}),
    )
    other["b"] = server.add_origin(
        {"/robots.txt": Reply(status=307, headers={"Location": loop.url("/robots.txt")})}
    )
    urls = pages(loop, "/x", "/private/y")
    crawler = yield crawl(activation, [Stage(urls)])
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert stat(crawler, "robotstxt/allow_all") == 1
    assert stat(crawler, "robotstxt/request_count") == 2


@pytest_twisted.inlineCallbacks
def test_cross_host_redirect_rules_apply_to_the_origin_first_asked(server, activation):
    target = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /t\n")})
    origin = server.add_origin(
        {
            "/robots.txt": Reply(
                status=301, headers={"Location": target.url("/robots.txt", host="localhost")}
            )
        }
    )
    crawler = yield crawl(
        activation, [Stage([*pages(origin, "/t1", "/u"), target.url("/t2"), target.url("/v")])]
    )
    assert sorted(crawler.spider.seen) == sorted([origin.url("/u"), target.url("/v")])
    # The target's own origin (127.0.0.1) fetched its robots.txt itself.
    assert sorted(h.host for h in server.hits_for(target, "/robots.txt")) == [
        "127.0.0.1",
        "localhost",
    ]


@pytest_twisted.inlineCallbacks
def test_redirect_to_a_non_http_scheme_counts_as_404(server, activation):
    origin = robots_origin(
        server, Reply(status=301, headers={"Location": "ftp://127.0.0.1/robots.txt"})
    )
    urls = pages(origin, "/private/a")
    crawler = yield crawl(activation, [Stage(urls)])
    assert crawler.spider.seen == urls
    assert stat(crawler, "robotstxt/allow_all") == 1


# -- cache ----------------------------------------------------------------------------


def advance(clock: FakeClock, seconds: float) -> Any:
    return lambda spider: clock.advance(seconds)


@pytest_twisted.inlineCallbacks
def test_cache_control_max_age_expires_and_new_rules_apply(server, activation):
    clock = FakeClock()

    def changing(hit: Hit, n: int) -> Reply:
        rule = b"/first" if n == 1 else b"/second"
        return Reply(
            body=b"User-agent: *\nDisallow: " + rule, headers={"Cache-Control": "max-age=1"}
        )

    origin = robots_origin(server, changing)
    stages = [
        Stage(pages(origin, "/first", "/second"), hook=use_clock(clock)),
        Stage(pages(origin, "/first?again", "/second?again"), hook=advance(clock, 30)),
        Stage(pages(origin, "/first?3", "/second?3"), hook=advance(clock, 61)),
    ]
    crawler = yield crawl(activation, stages)
    # max-age=1 is floored at 60 s (policy.MIN_LIFETIME): still fresh after 30 s.
    assert crawler.spider.seen == pages(origin, "/second", "/second?again", "/first?3")
    assert server.paths(origin).count("/robots.txt") == 2
    assert stat(crawler, "robotstxt/cache/refreshed") == 1


@pytest_twisted.inlineCallbacks
def test_entries_live_24_hours(server, activation):
    clock = FakeClock()
    origin = robots_origin(server, Reply(body=ROBOTS))
    stages = [
        Stage(pages(origin, "/a"), hook=use_clock(clock)),
        Stage(pages(origin, "/b"), hook=advance(clock, 86_399)),
        Stage(pages(origin, "/c"), hook=advance(clock, 2)),
    ]
    yield crawl(activation, stages)
    assert server.paths(origin) == ["/robots.txt", "/a", "/b", "/robots.txt", "/c"]


@pytest_twisted.inlineCallbacks
def test_unreachable_refetch_keeps_the_last_good_copy(server, activation):
    clock = FakeClock()
    origin = robots_origin(
        server, lambda hit, n: Reply(body=ROBOTS) if n == 1 else Reply(status=503)
    )
    stages = [
        Stage(pages(origin, "/a"), hook=use_clock(clock)),
        Stage(pages(origin, "/b", "/private/x"), hook=advance(clock, 90_000)),
        Stage(pages(origin, "/c", "/private/y"), hook=advance(clock, 10)),
    ]
    crawler = yield crawl(activation, stages, **UNREACHABLE)
    assert crawler.spider.seen == pages(origin, "/a", "/b", "/c")
    assert crawler.spider.failed_with("Forbidden by robots.txt") == pages(
        origin, "/private/x", "/private/y"
    )
    assert stat(crawler, "robotstxt/unreachable/last_good") >= 1
    assert stat(crawler, "robotstxt/unreachable/dropped") is None


@pytest_twisted.inlineCallbacks
def test_lru_evicts_and_refetches(server, activation):
    a = robots_origin(server, Reply(body=ROBOTS))
    b = robots_origin(server, Reply(body=ROBOTS))
    stages = [Stage([a.url("/1")]), Stage([b.url("/2")]), Stage([a.url("/3")])]
    crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_MAX_ORIGINS=1)
    assert server.paths(a) == ["/robots.txt", "/1", "/robots.txt", "/3"]
    assert stat(crawler, "robotstxt/cache/evicted") == 2


@pytest_twisted.inlineCallbacks
def test_the_cache_evicts_by_bytes_and_refetches(server, activation):
    """ROBOTSTXT_RFC_CACHE_BYTES: three origins whose rules cost about
    400 KB each (750 rules, charged with what their indexes may take) do
    not fit in 1 MiB together: the least recently used one is evicted and
    fetched again when needed; the cache never holds more than the bound."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /private-%d/\n" % n for n in range(750))
    a, b, c = (robots_origin(server, Reply(body=body)) for _ in range(3))
    stages = [
        Stage(pages(a, "/1", "/private-7/x")),
        Stage(pages(b, "/2")),
        Stage(pages(c, "/3")),
        Stage(pages(a, "/4", "/private-8/x")),
    ]
    crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_CACHE_BYTES=1024 * 1024)
    assert server.paths(a) == ["/robots.txt", "/1", "/robots.txt", "/4"]
    assert server.paths(b) == ["/robots.txt", "/2"]
    assert server.paths(c) == ["/robots.txt", "/3"]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == pages(
        a, "/private-7/x", "/private-8/x"
    )
    assert stat(crawler, "robotstxt/cache/evicted") == 2  # a for c, then b for a
    held = stat(crawler, "robotstxt/cache/bytes/max")
    assert 2 * 300_000 < held <= 1024 * 1024


@pytest.mark.parametrize(("count", "most"), [(4, 1), (8, 2)])
@pytest_twisted.inlineCallbacks
def test_a_fetched_copy_waits_for_the_requests_that_waited_for_it(server, activation, count, most):
    """Origins fetched at once, each about 400 KB in the cache: the
    requests that waited for each come back from the scheduler and are
    decided by its copy. The cache evicts the origins already used first:
    with room for all those in flight (4 in 2 MiB), no robots.txt is
    fetched twice; with room for 2 of 8, an origin evicted before its
    requests came back is fetched once more, never in a loop (evicting the
    least recently put first fetched each one 3 to 15 times)."""
    body = b"User-agent: *\n" + b"".join(b"Disallow: /private-%d/\n" % n for n in range(750))
    origins = [robots_origin(server, Reply(body=body, delay=0.05)) for _ in range(count)]
    urls = [url for o in origins for url in pages(o, "/a", "/b", "/private-3/x")]
    crawler = yield crawl(
        activation, [Stage(urls)], ROBOTSTXT_RFC_CACHE_BYTES=(1 if count > 4 else 2) * 1024 * 1024
    )
    fetches = [server.paths(o).count("/robots.txt") for o in origins]
    assert max(fetches) <= most, fetches
    assert sorted(crawler.spider.seen) == sorted(u for u in urls if "private" not in u)
    assert stat(crawler, "robotstxt/forbidden") == count


# -- origins, meta, user agent ----------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_two_ports_of_one_host_are_two_origins(server, activation):
    strict = robots_origin(server, Reply(body=b"User-agent: *\nDisallow: /\n"))
    lax = robots_origin(server, Reply(status=404))
    crawler = yield crawl(activation, [Stage([strict.url("/x"), lax.url("/x")])])
    assert crawler.spider.seen == [lax.url("/x")]
    assert server.paths(strict) == ["/robots.txt"]
    assert stat(crawler, "robotstxt/request_count") == 2


@pytest_twisted.inlineCallbacks
def test_default_port_and_case_are_the_same_origin(server, activation):
    origin = robots_origin(server, Reply(body=ROBOTS))
    urls = [
        origin.url("/a"),
        origin.url("/b", host="LOCALHOST"),
        origin.url("/c", host="localhost"),
    ]
    crawler = yield crawl(activation, [Stage(urls)])
    assert len(crawler.spider.seen) == 3
    hosts = [h.host for h in server.hits_for(origin, "/robots.txt")]
    assert sorted(hosts) == ["127.0.0.1", "localhost"]


@pytest_twisted.inlineCallbacks
def test_dont_obey_robotstxt_skips_the_check(server, activation):
    origin = robots_origin(server, Reply(body=b"User-agent: *\nDisallow: /\n"))
    spec = {"url": origin.url("/x"), "meta": {"dont_obey_robotstxt": True}}
    crawler = yield crawl(activation, [Stage([spec])])
    assert crawler.spider.seen == [origin.url("/x")]
    assert server.paths(origin) == ["/x"]


@pytest_twisted.inlineCallbacks
def test_the_robots_request_goes_through_the_users_middlewares(server, activation):
    origin = robots_origin(server, Reply(body=ROBOTS))
    settings = {
        "DEFAULT_REQUEST_HEADERS": {"X-Team": "robots"},
        "ROBOTSTXT_USER_AGENT": "ExampleBot",
    }
    yield crawl(activation, [Stage([origin.url("/a")])], **settings)
    robots = server.hits_for(origin, "/robots.txt")[0]
    assert robots.headers["x-team"] == "robots"
    # Encodings the middleware can cut at the size limit without decoding it all.
    assert robots.headers["accept-encoding"] == "gzip, deflate"
    assert robots.headers["user-agent"].startswith("TestBot/1.0")


@pytest_twisted.inlineCallbacks
def test_the_robots_request_uses_the_pages_proxy(server, activation):
    proxy = server.add_origin()
    origin = robots_origin(server, Reply(body=ROBOTS))
    spec = {"url": origin.url("/a"), "meta": {"proxy": proxy.base}}
    crawler = yield crawl(activation, [Stage([spec])])
    assert server.paths(origin) == [], "everything went through the proxy"
    assert server.paths(proxy) == [origin.url("/robots.txt"), origin.url("/a")]
    assert stat(crawler, "robotstxt/request_count") == 1


@pytest_twisted.inlineCallbacks
def test_the_robots_request_uses_the_pages_download_slot(server, activation):
    origin = robots_origin(server, Reply(body=ROBOTS))
    spec = {"url": origin.url("/a"), "meta": {"download_slot": "slow"}}
    yield crawl(activation, [Stage([spec])], DOWNLOAD_SLOTS={"slow": {"delay": 0.5}})
    robots, page = server.hits_for(origin)
    # The slot's delay (randomised to 0.5x-1.5x) separates the two.
    assert page.time - robots.time >= 0.24


@pytest_twisted.inlineCallbacks
def test_the_robots_request_bypasses_the_http_cache(server, activation, tmp_path):
    origin = robots_origin(server, Reply(body=ROBOTS))
    settings = {"HTTPCACHE_ENABLED": True, "HTTPCACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a"))], **settings)
        assert crawler.spider.seen == [origin.url("/a")]
    assert server.paths(origin) == ["/robots.txt", "/a", "/robots.txt"], "/a came from the cache"


@pytest_twisted.inlineCallbacks
def test_the_robots_request_is_not_filtered_as_offsite(server, activation):
    target = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /t\n")})
    location = target.url("/robots.txt", host="localhost")
    origin = robots_origin(server, Reply(status=301, headers={"Location": location}))
    crawler = get_crawler(OffsiteRecorder, {**BASE_SETTINGS, **activation})
    yield crawler.crawl(stages=[Stage(pages(origin, "/t", "/u"))])
    assert crawler.spider.seen == [origin.url("/u")]
    assert [h.host for h in server.hits_for(target)] == ["localhost"]


GROUPS = b"User-agent: *\nDisallow: /all\n\nUser-agent: examplebot\nDisallow: /example\n"


@pytest.mark.parametrize(
    ("settings", "headers", "blocked"),
    [
        ({"ROBOTSTXT_USER_AGENT": "ExampleBot"}, {}, "/example"),
        # D-21: a ROBOTSTXT_USER_AGENT that is no product token is reduced to
        # its product name (and warned about).
        ({"ROBOTSTXT_USER_AGENT": "ExampleBot/2"}, {}, "/example"),
        ({"ROBOTSTXT_USER_AGENT": "Mozilla/5.0 (compatible; ExampleBot/2)"}, {}, "/example"),
        ({"ROBOTSTXT_USER_AGENT": "OtherBot/2"}, {}, "/all"),
        # D-22: a crawler family, most specific first, as a string or a list.
        ({"ROBOTSTXT_USER_AGENT": "ExampleBot-News, ExampleBot"}, {}, "/example"),
        ({"ROBOTSTXT_USER_AGENT": ["ExampleBot-News", "ExampleBot"]}, {}, "/example"),
        ({"ROBOTSTXT_USER_AGENT": "OtherBot-News, OtherBot"}, {}, "/all"),
        ({}, {}, "/all"),  # USER_AGENT "TestBot/1.0" names no group
        ({}, {"User-Agent": "ExampleBot/3"}, "/example"),
        ({"ROBOTSTXT_USER_AGENT": "Other"}, {"User-Agent": "ExampleBot/3"}, "/all"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_the_product_token_chooses_the_group(server, activation, settings, headers, blocked):
    origin = robots_origin(server, Reply(body=GROUPS))
    specs = [{"url": origin.url(p), "headers": headers} for p in ("/all", "/example")]
    crawler = yield crawl(activation, [Stage(specs)], **settings)
    assert crawler.spider.failed == [origin.url(blocked)]


@pytest_twisted.inlineCallbacks
def test_a_mozilla_token_is_warned_about_once(server, activation, caplog):
    """A browser's header names no crawler: "*", and one warning."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        yield crawl(
            activation, [Stage(pages(origin, "/a", "/b"))], USER_AGENT="Mozilla/5.0 (X11) Firefox"
        )
    warnings = [r for r in caplog.records if "ROBOTSTXT_USER_AGENT" in r.getMessage()]
    assert [r.getMessage() for r in warnings] == [
        "The robots.txt name of this crawler, '*' from USER_AGENT 'Mozilla/5.0 (X11) Firefox', "
        "names no crawler, so only the 'User-agent: *' groups apply to it. If that is not what "
        "you want, set ROBOTSTXT_USER_AGENT to the name site owners use for your crawler, e.g. "
        'ROBOTSTXT_USER_AGENT = "MyBot".'
    ]


@pytest_twisted.inlineCallbacks
def test_forbidden_requests_are_logged_with_the_deciding_rule(server, activation, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        yield crawl(activation, [Stage(pages(origin, "/private/a"))])
    [record] = [r for r in caplog.records if r.getMessage().startswith("Forbidden by robots.txt")]
    assert "disallow: /private" in record.getMessage()
    assert "line 2" in record.getMessage()


class Formatted(logging.Handler):
    def __init__(self, level: int) -> None:
        super().__init__(level)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


@pytest.mark.parametrize(("level", "logged"), [(logging.INFO, 0), (logging.DEBUG, 1)])
@pytest_twisted.inlineCallbacks
def test_a_forbidden_requests_debug_line_is_built_only_for_a_handler_that_takes_it(
    server, activation, monkeypatch, level, logged
):
    """Scrapy leaves the loggers' level unset and gives LOG_LEVEL to its
    handler, so DEBUG is enabled whatever LOG_LEVEL is: the verdict of a
    forbidden request is worked out for its DEBUG line only if a handler
    takes DEBUG records."""
    from scrapy_robots_rfc.policy._verdict import Verdict

    verdicts: list[str] = []
    of_rules = Verdict.of_rules

    def counted(*args: Any, **kwargs: Any) -> Verdict:
        verdicts.append(args[0])
        return of_rules(*args, **kwargs)

    monkeypatch.setattr(Verdict, "of_rules", counted)
    logger = logging.getLogger("scrapy_robots_rfc")
    monkeypatch.setattr(logger, "propagate", False)
    handler, unset = Formatted(level), logger.level
    logger.addHandler(handler)
    logger.setLevel(logging.DEBUG)  # what Scrapy's unset root level gives it
    try:
        origin = robots_origin(server, Reply(body=ROBOTS))
        crawler = yield crawl(activation, [Stage(pages(origin, "/private/a", "/private/b"))])
    finally:
        logger.removeHandler(handler)
        logger.setLevel(unset)
    assert stat(crawler, "robotstxt/forbidden") == 2
    assert len(verdicts) == 2 * logged
    forbidden = [m for m in handler.messages if m.startswith("Forbidden by robots.txt")]
    assert len(forbidden) == 2 * logged
    assert all("disallow: /private" in m for m in forbidden)


@pytest_twisted.inlineCallbacks
def test_robots_parsed_signal_gets_a_robotparser(server, activation):
    if not hasattr(signals, "robots_parsed"):
        pytest.skip("the robots_parsed signal is Scrapy 2.18+")
    body = ROBOTS + b"Sitemap: https://example.com/sitemap.xml\n"
    origin = robots_origin(server, Reply(body=body))
    received: list[tuple[Any, Any]] = []
    crawler = make_crawler(activation)

    def on_parsed(robotparser: Any, request: Any) -> None:
        received.append((robotparser, request))

    crawler.signals.connect(on_parsed, signal=signals.robots_parsed)
    yield crawler.crawl(stages=[Stage(pages(origin, "/a"))])
    [(parser, request)] = received
    assert request.url == origin.url("/a")
    assert not parser.allowed(origin.url("/private/x"), "TestBot")
    assert list(parser.sitemaps()) == ["https://example.com/sitemap.xml"]


@pytest_twisted.inlineCallbacks
def test_crawl_delay_becomes_the_slot_delay_when_asked(server, activation):
    origin = robots_origin(server, Reply(body=b"User-agent: *\nCrawl-delay: 0.4\n"))
    urls = pages(origin, "/1", "/2", "/3")
    crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_CRAWL_DELAY=True)
    times = [h.time for h in server.hits_for(origin) if h.path != "/robots.txt"]
    assert len(times) == 3
    # Scrapy randomises a slot's delay to 0.5x-1.5x by default.
    assert all(b - a >= 0.19 for a, b in itertools.pairwise(times))
    assert stat(crawler, "robotstxt/crawl_delay/applied") == 1


#: D-17 (revised): bingbot 1 s, msnbot 2 s, everyone else none; Disallow:
#: /login is all three's (D-18 makes one group of the three runs).
BING_MSN = (
    b"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n\n"
    b"User-agent: *\nDisallow: /login\n"
)


@pytest.mark.parametrize(
    ("user_agent", "gap"),
    [
        pytest.param("msnbot/2.0b (+http://search.msn.com/msnbot.htm)", 2.0, id="msnbot"),
        pytest.param("OtherBot/1.0", None, id="another-name"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_crawl_delay_paces_the_crawler_its_lines_are_for(server, activation, user_agent, gap):
    origin = robots_origin(server, Reply(body=BING_MSN))
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/1", "/2", "/3", "/login"))],
        ROBOTSTXT_RFC_CRAWL_DELAY=True,
        USER_AGENT=user_agent,
    )
    times = [h.time for h in server.hits_for(origin) if h.path != "/robots.txt"]
    assert sorted(server.paths(origin)) == ["/1", "/2", "/3", "/robots.txt"]
    assert stat(crawler, "robotstxt/forbidden") == 1  # /login: everyone's rule
    gaps = [b - a for a, b in itertools.pairwise(times)]
    if gap is None:
        assert stat(crawler, "robotstxt/crawl_delay/applied") is None
        assert all(g < 1.0 for g in gaps), gaps
    else:
        # At least the delay the site wrote for msnbot, never bingbot's 1 s.
        assert all(g >= gap for g in gaps), gaps
        assert stat(crawler, "robotstxt/crawl_delay/applied") == 1


def delay_lines(caplog: Any) -> list[str]:
    """The INFO lines that say what an origin's crawl-delay does."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("scrapy_robots_rfc.")
        and r.levelno == logging.INFO
        and "Crawl-delay" in r.getMessage()
    ]


@pytest.mark.parametrize(
    ("settings", "why"),
    [
        # By default crawl-delay is not applied: every page crawled, none
        # waited for, and the line says which setting would apply it.
        pytest.param({}, "ROBOTSTXT_RFC_CRAWL_DELAY is off", id="off"),
        pytest.param(
            {"ROBOTSTXT_RFC_CRAWL_DELAY": True, "ROBOTSTXT_RFC_CRAWL_DELAY_MAX": 0},
            "ROBOTSTXT_RFC_CRAWL_DELAY_MAX is 0",
            id="max-0",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_crawl_delay_not_applied_is_said_once_per_origin(
    server, activation, settings, why, caplog
):
    clock = FakeClock()
    delayed = robots_origin(server, Reply(body=b"User-agent: *\nCrawl-delay: 2\nDisallow: /x\n"))
    other = robots_origin(server, Reply(body=b"User-agent: TestBot\nCrawl-delay: 5\n"))
    plain = robots_origin(server, Reply(body=ROBOTS))
    stages = [
        Stage(
            [*pages(delayed, "/1", "/2", "/3"), *pages(other, "/1", "/2"), plain.url("/1")],
            hook=use_clock(clock),
        ),
        # Fetched again a day later, asking for the same: not said again.
        Stage(pages(delayed, "/4", "/5"), hook=lambda spider: clock.advance(90_000)),
    ]
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, stages, **settings)
    assert server.paths(delayed).count("/robots.txt") == 2
    assert len(crawler.spider.seen) == 8
    assert sorted(delay_lines(caplog)) == sorted(
        [
            f"{delayed.url('/robots.txt')} asks for a Crawl-delay of 2 s (line 2, for '*'); "
            f"this crawl does not apply it ({why})",
            f"{other.url('/robots.txt')} asks for a Crawl-delay of 5 s (line 2, for 'TestBot'); "
            f"this crawl does not apply it ({why})",
        ]
    )
    assert stat(crawler, "robotstxt/crawl_delay/applied") is None
    assert stat(crawler, "robotstxt/crawl_delay/waited") is None


@pytest.mark.parametrize(
    ("asked", "settings", "in_force", "applied"),
    [
        pytest.param(0.3, {}, "0.3 s in force", 1, id="as-asked"),
        # 2 s asked, cut to 0.3 s: the line says what the crawl keeps to.
        pytest.param(
            2,
            {"ROBOTSTXT_RFC_CRAWL_DELAY_MAX": 0.3},
            "0.3 s in force (ROBOTSTXT_RFC_CRAWL_DELAY_MAX)",
            1,
            id="cut-to-max",
        ),
        # DOWNLOAD_DELAY is longer: the floor holds, the slot keeps its own.
        pytest.param(
            0.3,
            {"DOWNLOAD_DELAY": 0.4},
            "0.3 s in force; the download slot's own delay is already as long",
            None,
            id="slot-longer",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_the_crawl_delay_in_force_is_said_once_per_origin(
    server, activation, asked, settings, in_force, applied, caplog
):
    body = f"User-agent: *\nDisallow: /x\n\nUser-agent: TestBot\nCrawl-delay: {asked}\n"
    origin = robots_origin(server, Reply(body=body.encode()))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/1", "/2", "/3"))],
            ROBOTSTXT_RFC_CRAWL_DELAY=True,
            **settings,
        )
    robots_txt = origin.url("/robots.txt")
    assert delay_lines(caplog) == [
        f"{robots_txt} asks for a Crawl-delay of {asked:g} s (line 5, for 'TestBot'); {in_force}"
    ]
    # The delay said is the delay kept: 0.3 s between starts, not 2 s.
    times = [h.time for h in server.hits_for(origin)]
    gaps = [b - a for a, b in itertools.pairwise(times)]
    assert len(gaps) == 3
    assert all(0.29 <= gap < 1.5 for gap in gaps), gaps
    assert stat(crawler, "robotstxt/crawl_delay/applied") == applied


@pytest_twisted.inlineCallbacks
def test_a_crawl_delay_that_changes_is_said_again(server, activation, caplog):
    clock = FakeClock()
    origin = robots_origin(
        server,
        lambda hit, n: Reply(body=b"User-agent: *\nCrawl-delay: %d\n" % (n if n < 3 else 9)),
    )
    stages = [
        Stage(pages(origin, "/1", "/2"), hook=use_clock(clock)),
        Stage(pages(origin, "/3"), hook=lambda spider: clock.advance(90_000)),
        Stage(pages(origin, "/4"), hook=lambda spider: clock.advance(90_000)),
    ]
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        yield crawl(activation, stages)
    assert server.paths(origin).count("/robots.txt") == 3
    assert [line.split("; ")[0] for line in delay_lines(caplog)] == [
        f"{origin.url('/robots.txt')} asks for a Crawl-delay of {n} s (line 2, for '*')"
        for n in (1, 2, 9)
    ]


@pytest_twisted.inlineCallbacks
def test_a_misspelt_setting_gets_one_warning_and_the_crawl_goes_on(server, activation, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS + b"Crawl-delay: 2\n"))
    misspelt = {
        "ROBOTSTXT_RFC_TIMOUT": 5,  # the example
        "ROBOTSTXT_CRAWL_DELAY": True,  # the prefix cut short
        "ROBOTSTXT_RFC_SITEMAPS": True,  # close to no name: no guess
    }
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            activation, [Stage(pages(origin, "/public", "/private/a"))], **misspelt
        )
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith("scrapy_robots_rfc.") and r.levelno == logging.WARNING
    ]
    assert warnings == [
        "ROBOTSTXT_CRAWL_DELAY is not a setting of Scrapy or scrapy_robots_rfc and is "
        "ignored; did you mean ROBOTSTXT_RFC_CRAWL_DELAY?",
        "ROBOTSTXT_RFC_SITEMAPS is not a setting of scrapy_robots_rfc and is ignored",
        "ROBOTSTXT_RFC_TIMOUT is not a setting of scrapy_robots_rfc and is ignored; "
        "did you mean ROBOTSTXT_RFC_TIMEOUT?",
    ]
    # Ignored indeed: the defaults hold, and the crawl obeys robots.txt.
    config = middleware_of(crawler).config
    assert (config.timeout, config.crawl_delay) == (30, False)
    assert delay_lines(caplog) == [
        f"{origin.url('/robots.txt')} asks for a Crawl-delay of 2 s (line 4, for '*'); "
        "this crawl does not apply it (ROBOTSTXT_RFC_CRAWL_DELAY is off)"
    ]
    assert server.paths(origin) == ["/robots.txt", "/public"]
    assert crawler.spider.seen == [origin.url("/public")]
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest_twisted.inlineCallbacks
def test_the_settings_in_effect_are_logged_at_start_up(server, activation, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        yield crawl(activation, [Stage(pages(origin, "/public"))], ROBOTSTXT_RFC_CACHE_TTL="60")
    [line] = [r.getMessage() for r in caplog.records if "Settings in effect" in r.getMessage()]
    assert "'ROBOTSTXT_RFC_CACHE_TTL': 60.0" in line
    assert "'ROBOTSTXT_RFC_MODE': 'rfc'" in line
    assert "'ROBOTSTXT_RFC_CRAWL_DELAY_MAX': 60.0" in line
    # The store in force, not "unset" (the docs' default is "memory").
    assert "'ROBOTSTXT_RFC_STORE': 'memory'" in line


@pytest_twisted.inlineCallbacks
def test_the_store_in_effect_with_jobdir_is_its_sqlite_file(server, activation, caplog, tmp_path):
    origin = robots_origin(server, Reply(body=ROBOTS))
    jobdir = tmp_path / "job"
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        yield crawl(activation, [Stage(pages(origin, "/public"))], JOBDIR=str(jobdir))
    [line] = [r.getMessage() for r in caplog.records if "Settings in effect" in r.getMessage()]
    store = f"sqlite:///{jobdir / 'robotstxt_rfc.db'}"
    assert f"'ROBOTSTXT_RFC_STORE': {store!r}" in line
    assert (jobdir / "robotstxt_rfc.db").is_file()


@pytest_twisted.inlineCallbacks
def test_non_http_schemes_pass_unchecked(server, activation, tmp_path):
    page = tmp_path / "page.html"
    page.write_bytes(b"<html></html>")
    crawler = yield crawl(activation, [Stage([page.as_uri(), "data:,hello"])])
    assert len(crawler.spider.seen) == 2
    assert stat(crawler, "robotstxt/request_count") is None


# -- JOBDIR -----------------------------------------------------------------------------


def paused_with_jobdir(tmp_path: Any) -> dict[str, Any]:
    """A crawl that pauses after 1 s while its requests wait for a 503
    robots.txt, and resumes from the same JOBDIR."""
    return {
        "JOBDIR": str(tmp_path / "job"),
        # Not the default SQLite file in JOBDIR, which would keep the
        # backoff of the first run: this is about the waiting requests.
        "ROBOTSTXT_RFC_STORE": "memory",
        "CLOSESPIDER_TIMEOUT": 1,
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY": 5,
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 60,
    }


@pytest_twisted.inlineCallbacks
def test_waiting_requests_survive_a_pause_with_jobdir(server, activation, tmp_path, caplog):
    origin, state = switchable_origin(server, up=False)
    settings = paused_with_jobdir(tmp_path)
    first = yield crawl(activation, [Stage(pages(origin, "/a", "/private/b"))], **settings)
    assert stat(first, "finish_reason") == "closespider_timeout"
    assert stat(first, "robotstxt/waiting/saved") == 2
    assert first.spider.seen == []
    assert first.spider.failures == []
    state["up"] = True
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        second = yield crawl(activation, [], **settings)
    assert "Resuming 2 requests that were waiting for robots.txt" in caplog.messages
    assert second.spider.seen == [origin.url("/a")]
    assert second.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/b")]
    assert "/private/b" not in server.paths(origin)


def _scrapy_213_disk_queue_leak(test: Any) -> Any:
    """Scrapy 2.13's scheduler leaves a disk queue file open after failing
    to serialise a request (a ResourceWarning at garbage collection); 2.14+
    does not. The test collects garbage at its end so that the warning is
    raised inside it, where this filter applies, and nowhere else."""
    import scrapy

    if scrapy.version_info >= (2, 14):
        return test
    for category in ("ResourceWarning", "pytest.PytestUnraisableExceptionWarning"):
        test = pytest.mark.filterwarnings(f"ignore::{category}")(test)
    return test


@_scrapy_213_disk_queue_leak
@pytest_twisted.inlineCallbacks
def test_an_unpicklable_waiting_request_does_not_lose_the_others(
    server, activation, tmp_path, caplog
):
    origin, state = switchable_origin(server, up=False)
    settings = paused_with_jobdir(tmp_path)
    specs = [origin.url("/a"), {"url": origin.url("/b"), "meta": {"lock": threading.Lock()}}]
    first = yield crawl(activation, [Stage(specs)], **settings)
    assert stat(first, "robotstxt/waiting/saved") == 1
    assert stat(first, "robotstxt/waiting/abandoned") == 1
    state["up"] = True
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        second = yield crawl(activation, [], **settings)
    assert "Resuming 1 request that was waiting for robots.txt" in caplog.messages
    assert second.spider.seen == [origin.url("/a")]
    gc.collect()


# -- activation -----------------------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_only_one_robots_middleware_runs(server, activation):
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as Builtin

    origin = robots_origin(server, Reply(body=ROBOTS))
    crawler = yield crawl(activation, [Stage([origin.url("/a")])])
    middlewares = crawler.engine.downloader.middleware.middlewares
    assert not any(isinstance(mw, Builtin) for mw in middlewares)
    assert middleware_of(crawler) is not None
    assert server.paths(origin).count("/robots.txt") == 1


@pytest_twisted.inlineCallbacks
def test_robotstxt_obey_false_leaves_it_unconfigured(server, activation):
    origin = robots_origin(server, Reply(body=b"User-agent: *\nDisallow: /\n"))
    crawler = yield crawl(activation, [Stage([origin.url("/a")])], ROBOTSTXT_OBEY=False)
    middlewares = crawler.engine.downloader.middleware.middlewares
    assert not any(isinstance(mw, RobotsTxtMiddleware) for mw in middlewares)
    assert server.paths(origin) == ["/a"]


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("ROBOTSTXT_RFC_MODE", "strict"),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", -1),
        ("ROBOTSTXT_RFC_MAX_BYTES", 1000),
        ("ROBOTSTXT_RFC_CACHE_TTL", "soon"),
        ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", -5),
    ],
)
@pytest_twisted.inlineCallbacks
def test_invalid_settings_fail_the_crawl_at_start_up(server, activation, name, value):
    crawler = make_crawler(activation, {name: value})
    with pytest.raises(ValueError, match=f"The value of the {name} setting") as info:
        yield crawler.crawl(stages=[])
    assert repr(value) in str(info.value)
    assert server.hits == []


# -- the grace in place before a park (ROBOTSTXT_RFC_PARK_AFTER) ------------------


@pytest_twisted.inlineCallbacks
def test_a_fast_robots_txt_parks_nothing(server, activation):
    """robots.txt answers within the grace: the requests that waited for it
    waited in place, and none was parked (no copy, no trip through the
    scheduler)."""
    origin = robots_origin(server, Reply(body=ROBOTS, delay=0.05))
    crawler = yield crawl(
        activation, [Stage(pages(origin, "/a", "/b", "/private/c"))], ROBOTSTXT_RFC_PARK_AFTER=2
    )
    assert sorted(crawler.spider.seen) == pages(origin, "/a", "/b")
    assert server.paths(origin).count("/robots.txt") == 1
    assert stat(crawler, "robotstxt/waiting") >= 1
    assert stat(crawler, "robotstxt/waiting/parked") is None
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest_twisted.inlineCallbacks
def test_a_robots_txt_that_answered_parks_nothing_while_it_is_read(server, activation):
    """robots.txt answers at once, and the crawl takes 0.3 s to read it (a
    ``robots_parsed`` handler that waits, as a slow store would): at the end
    of the 0.05 s grace it has answered, so the requests wait in place,
    grace after grace, and none is parked."""
    if not hasattr(signals, "robots_parsed"):
        pytest.skip("the robots_parsed signal is Scrapy 2.18+")
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    origin = robots_origin(server, Reply(body=ROBOTS))
    crawler = make_crawler(activation, {"ROBOTSTXT_RFC_PARK_AFTER": 0.05})

    async def on_parsed(robotparser: Any, request: Any) -> None:
        await maybe_deferred_to_future(deferLater(reactor, 0.3, lambda: None))

    crawler.signals.connect(on_parsed, signal=signals.robots_parsed)
    yield crawler.crawl(stages=[Stage(pages(origin, "/a", "/b", "/private/c"))])
    assert sorted(crawler.spider.seen) == pages(origin, "/a", "/b")
    times = {hit.path: hit.time for hit in server.hits_for(origin)}
    assert times["/a"] - times["/robots.txt"] >= 0.25, "the pages waited for the reading"
    assert stat(crawler, "robotstxt/waiting") >= 1
    assert stat(crawler, "robotstxt/waiting/parked") is None
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest.mark.parametrize("park_after", [0, 0.2])
@pytest_twisted.inlineCallbacks
def test_behind_a_slow_robots_txt_requests_are_parked_and_nothing_stalls(
    server, activation, park_after
):
    """robots.txt takes 1.5 s: the first requests wait in place for the
    grace at most, the others are parked at once; with 2 concurrent requests
    the other origin's pages (its robots.txt known already) are all
    downloaded meanwhile."""
    slow = robots_origin(server, Reply(body=ROBOTS, delay=1.5))
    fine = robots_origin(server, Reply(body=ROBOTS))
    urls = [
        *pages(slow, *(f"/s{i}" for i in range(8))),
        *pages(fine, *(f"/f{i}" for i in range(8))),
    ]
    stages = [Stage(pages(fine, "/first")), Stage(urls)]
    crawler = yield crawl(
        activation, stages, CONCURRENT_REQUESTS=2, ROBOTSTXT_RFC_PARK_AFTER=park_after
    )
    assert len(crawler.spider.seen) == 17
    slow_robots = server.hits_for(slow, "/robots.txt")[0].time
    fine_pages = [h.time for h in server.hits_for(fine) if h.path not in ("/robots.txt", "/first")]
    assert len(fine_pages) == 8
    assert max(fine_pages) < slow_robots + 1.5, "the other origin went on meanwhile"
    # /first waited for fine's robots.txt; each of the slow origin's 8
    # requests waited too, counted once, and was parked.
    assert stat(crawler, "robotstxt/waiting") == 9, "each waiting request counted once"
    assert stat(crawler, "robotstxt/waiting/parked") == 8 + (park_after == 0)


# -- progress during long waits ---------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_long_waits_say_what_waits_at_the_log_stats_interval(server, activation, caplog):
    """A 503 robots.txt, requests that wait up to 5 s, a retry due in 30 s:
    an INFO line each second says how many wait, for how many origins, and
    when the next try and the first drop are due; then they are dropped."""
    origin = robots_origin(server, Reply(status=503))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/1", "/2", "/3", "/4"))],
            LOGSTATS_INTERVAL=1,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=5,
            ROBOTSTXT_RFC_UNREACHABLE_RETRY=30,
        )
    assert len(crawler.spider.failed_with("robots.txt unreachable")) == 4
    line = re.compile(
        r"^4 requests wait for robots.txt of 1 unreachable origin "
        r"\((?P<origin>[^:]+://[^ ]+): 4\); "
        r"next try in (?P<retry>[\d.]+) s \((?P=origin)\); the first drop in (?P<drop>[\d.]+) s "
        r"\(ROBOTSTXT_RFC_UNREACHABLE_WAIT\)$"
    )
    found = [
        line.match(r.getMessage())
        for r in caplog.records
        if r.levelno == logging.INFO and "wait for robots.txt of" in r.getMessage()
    ]
    assert len(found) >= 3, [r.getMessage() for r in caplog.records]
    assert all(found), [r.getMessage() for r in caplog.records]
    assert {m["origin"] for m in found if m} == {origin.base}
    retries = [float(m["retry"]) for m in found if m]
    drops = [float(m["drop"]) for m in found if m]
    assert all(25 <= r <= 30 for r in retries), retries
    assert all(0 <= d <= 5 for d in drops), drops
    assert retries == sorted(retries, reverse=True)
    assert drops == sorted(drops, reverse=True)
