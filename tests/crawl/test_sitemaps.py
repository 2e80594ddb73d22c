"""One robots.txt GET per origin, also for a ``SitemapSpider`` on
``/robots.txt`` (issue 20, part 2; Scrapy issue 8069): the spider's request
for the file is answered with the response of the middleware's fetch, and
the origin's ``Sitemap`` lines are offered through
``RobotsTxtMiddleware.sitemaps``.

Real crawls against the local server, under both activations; each test
asserts what the server received, what reached the spider, and the stats.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider, signals
from scrapy.spiders import SitemapSpider
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import RobotsTxtMiddleware
from scrapy_robots_rfc.crawl._kept_responses import SERVED_FLAG

from ..crawling import BASE_SETTINGS, Stage, crawl, middleware_of, stat
from ..mockserver import MockServer, Origin, Reply

pytestmark = pytest.mark.e2e

PAGES = ("/a", "/b", "/private/c")


def sitemap_xml(origin: Origin, paths: tuple[str, ...] = PAGES) -> Reply:
    urls = "".join(f"<url><loc>{origin.url(path)}</loc></url>" for path in paths)
    body = (
        '<?xml version="1.0" encoding="UTF-8"?>'
        f'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">{urls}</urlset>'
    )
    return Reply(body=body.encode(), headers={"Content-Type": "application/xml"})


def robots_txt(*sitemaps: str, extra: bytes = b"") -> bytes:
    lines = "".join(f"Sitemap: {url}\n" for url in sitemaps)
    return b"User-agent: *\nDisallow: /private\n" + extra + lines.encode()


def site(server: MockServer, robots: Any = None) -> Origin:
    """An origin whose robots.txt names its own /sitemap.xml (or answers
    with ``robots``), whose sitemap lists :data:`PAGES`."""
    origin: Origin

    def default_robots(hit: Any, n: int) -> Reply:
        return Reply(body=robots_txt(origin.url("/sitemap.xml")))

    def sitemap(hit: Any, n: int) -> Reply:
        return sitemap_xml(origin)

    origin = server.add_origin({"/robots.txt": robots or default_robots, "/sitemap.xml": sitemap})
    return origin


class Sitemaps(SitemapSpider):
    """A ``SitemapSpider`` that records the pages it parsed and the
    responses it received for its own requests."""

    name = "sitemaps"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.seen: list[str] = []
        #: (request URL, response URL, status, flags, body length)
        self.received: list[tuple[str, str, int, list[str], int]] = []

    @classmethod
    def from_crawler(cls, crawler: Any, *args: Any, **kwargs: Any) -> Sitemaps:
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.on_response, signal=signals.response_received)
        return spider

    def on_response(self, response: Any, request: Any, spider: Any) -> None:
        if not request.meta.get("dont_obey_robotstxt"):  # not the middleware's fetch
            entry = (request.url, response.url, response.status, response.flags, len(response.body))
            self.received.append(entry)

    def parse(self, response: Any) -> None:
        self.seen.append(response.url)

    def robots_responses(self) -> list[tuple[str, str, int, list[str], int]]:
        return [r for r in self.received if r[0].endswith("/robots.txt")]


def crawl_sitemaps(activation: dict[str, Any], urls: list[str], **settings: Any) -> Any:
    """A ``SitemapSpider`` crawl of ``urls``; the Deferred fires with the crawler."""
    crawler = get_crawler(Sitemaps, {**BASE_SETTINGS, **activation, **settings})
    d = crawler.crawl(sitemap_urls=urls)
    d.addCallback(lambda _: crawler)
    return d


def robots_gets(server: MockServer, origin: Origin) -> int:
    return server.paths(origin).count("/robots.txt")


# -- the spider's robots.txt request is answered from the fetch -------------------------


@pytest_twisted.inlineCallbacks
def test_a_sitemap_spider_on_robots_txt_makes_one_robots_txt_get(server, activation):
    origin = site(server)
    crawler = yield crawl_sitemaps(activation, [origin.url("/robots.txt")])
    spider = crawler.spider
    assert robots_gets(server, origin) == 1
    assert server.paths(origin)[:2] == ["/robots.txt", "/sitemap.xml"]
    assert sorted(server.paths(origin)[2:]) == ["/a", "/b"]  # /private/c is forbidden
    assert sorted(spider.seen) == [origin.url("/a"), origin.url("/b")]
    body = robots_txt(origin.url("/sitemap.xml"))
    url = origin.url("/robots.txt")
    assert spider.robots_responses() == [(url, url, 200, [SERVED_FLAG], len(body))]
    assert stat(crawler, "robotstxt/request_count") == 1
    assert stat(crawler, "robotstxt/spider_request/served") == 1
    assert stat(crawler, "robotstxt/spider_request/downloaded") is None
    assert stat(crawler, "robotstxt/forbidden") == 1
    assert middleware_of(crawler).sitemaps(origin.url("/")) == (origin.url("/sitemap.xml"),)


@pytest_twisted.inlineCallbacks
def test_each_origin_gets_one_robots_txt_get(server, activation):
    origins = [site(server), site(server)]
    urls = [origin.url("/robots.txt") for origin in origins]
    crawler = yield crawl_sitemaps(activation, urls)
    for origin in origins:
        assert robots_gets(server, origin) == 1
        assert server.paths(origin).count("/sitemap.xml") == 1
    expected = [origin.url(path) for origin in origins for path in ("/a", "/b")]
    assert sorted(crawler.spider.seen) == sorted(expected)
    assert stat(crawler, "robotstxt/request_count") == 2
    assert stat(crawler, "robotstxt/spider_request/served") == 2


@pytest_twisted.inlineCallbacks
def test_requests_waiting_for_one_fetch_each_get_the_response(server, activation, caplog):
    """Two spider requests for the file and a page, all waiting for one
    slow fetch: one GET; each response carries its own request's meta."""
    origin = server.add_origin({"/robots.txt": Reply(body=robots_txt(), delay=0.2)})
    url = origin.url("/robots.txt")
    requests = [{"url": url, "meta": {"n": n}} for n in (1, 2)] + [origin.url("/page")]
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(requests)])
    spider = crawler.spider
    assert server.paths(origin) == ["/robots.txt", "/page"]
    assert sorted(spider.seen) == sorted([url, url, origin.url("/page")])
    served = [meta["n"] for meta in spider.metas if "n" in meta]
    assert sorted(served) == [1, 2]
    assert stat(crawler, "robotstxt/spider_request/served") == 2
    answered = [r for r in caplog.records if r.getMessage().startswith("Answered <GET")]
    assert len(answered) == 2


@pytest_twisted.inlineCallbacks
def test_a_404_reaches_the_spider_as_the_server_sent_it(server, activation):
    """No robots.txt: the spider gets the 404 (HttpErrorMiddleware ignores
    it, as it would have without the middleware), and the server sees one GET."""
    origin = server.add_origin({"/robots.txt": Reply(status=404, body=b"not here")})
    crawler = yield crawl_sitemaps(activation, [origin.url("/robots.txt")])
    url = origin.url("/robots.txt")
    assert server.paths(origin) == ["/robots.txt"]
    assert crawler.spider.robots_responses() == [(url, url, 404, [SERVED_FLAG], 8)]
    assert crawler.spider.seen == []
    assert stat(crawler, "robotstxt/allow_all") == 1
    assert stat(crawler, "robotstxt/spider_request/served") == 1
    assert stat(crawler, "httperror/response_ignored_status_count/404") == 1
    assert middleware_of(crawler).sitemaps(url) == ()


@pytest_twisted.inlineCallbacks
def test_an_unreachable_robots_txt_is_served_from_the_retry_that_answers(server, activation):
    """A 503 decides nothing: the spider's request waits for the retry, as
    every request to the origin does, and gets the 200 that decides it."""
    origin: Origin

    def robots(hit: Any, n: int) -> Reply:
        if n == 1:
            return Reply(status=503)
        return Reply(body=robots_txt(origin.url("/sitemap.xml")))

    origin = site(server, robots)
    crawler = yield crawl_sitemaps(
        activation, [origin.url("/robots.txt")], ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.2
    )
    assert robots_gets(server, origin) == 2  # both the middleware's
    assert sorted(crawler.spider.seen) == [origin.url("/a"), origin.url("/b")]
    [(_, _, status, flags, _)] = crawler.spider.robots_responses()
    assert (status, flags) == (200, [SERVED_FLAG])
    assert stat(crawler, "robotstxt/unreachable") == 1
    assert stat(crawler, "robotstxt/spider_request/served") == 1


def redirected_site(server: MockServer) -> tuple[Origin, Origin]:
    """An origin whose robots.txt is a 301 to another origin's, which names
    the first origin's /sitemap.xml."""
    first: Origin

    def moved_robots(hit: Any, n: int) -> Reply:
        return Reply(body=robots_txt(first.url("/sitemap.xml")))

    moved = server.add_origin({"/robots.txt": moved_robots})
    first = site(server, Reply(301, headers={"Location": moved.url("/robots.txt")}))
    return first, moved


@pytest_twisted.inlineCallbacks
def test_a_redirected_fetch_gives_the_spider_the_final_response(server, activation):
    """The response's URL is where the redirect led, as Scrapy's
    RedirectMiddleware would give it, and its Sitemap lines are read."""
    first, moved = redirected_site(server)
    crawler = yield crawl_sitemaps(activation, [first.url("/robots.txt")])
    assert robots_gets(server, first) == 1
    assert server.paths(moved) == ["/robots.txt"]
    [(request_url, url, status, flags, _)] = crawler.spider.robots_responses()
    assert (request_url, url) == (first.url("/robots.txt"), moved.url("/robots.txt"))
    assert (status, flags) == (200, [SERVED_FLAG])
    assert sorted(crawler.spider.seen) == [first.url("/a"), first.url("/b")]
    assert stat(crawler, "robotstxt/redirects") == 1
    assert stat(crawler, "robotstxt/spider_request/served") == 1


@pytest_twisted.inlineCallbacks
def test_a_crawl_that_does_not_follow_redirects_downloads_the_3xx_itself(server, activation):
    """With REDIRECT_ENABLED off the spider must see the 301, which the
    fetch followed: its request is downloaded, and counted."""
    first, moved = redirected_site(server)
    crawler = yield crawl_sitemaps(activation, [first.url("/robots.txt")], REDIRECT_ENABLED=False)
    assert robots_gets(server, first) == 2
    assert server.paths(moved) == ["/robots.txt"]
    [(_, _, status, flags, _)] = crawler.spider.robots_responses()
    assert (status, flags) == (301, [])
    assert crawler.spider.seen == []
    assert stat(crawler, "robotstxt/spider_request/served") is None
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 1


@pytest_twisted.inlineCallbacks
def test_a_file_cut_at_the_limit_is_downloaded_whole_by_the_spider(server, activation):
    """The middleware reads 500 KiB (RFC 9309 §2.5); the spider asked for
    the file and gets all of it, Sitemap lines past the cut included."""
    padding = b"# " + b"x" * 1000 + b"\n"
    origin: Origin

    def robots(hit: Any, n: int) -> Reply:
        return Reply(body=robots_txt(origin.url("/sitemap.xml"), extra=padding * 600))

    origin = site(server, robots)
    crawler = yield crawl_sitemaps(activation, [origin.url("/robots.txt")])
    size = len(robots_txt(origin.url("/sitemap.xml"), extra=padding * 600))
    assert size > 512_000
    assert robots_gets(server, origin) == 2
    [(_, _, status, flags, length)] = crawler.spider.robots_responses()
    assert (status, flags, length) == (200, [], size)
    assert sorted(crawler.spider.seen) == [origin.url("/a"), origin.url("/b")]
    assert stat(crawler, "robotstxt/truncated") == 1
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 1
    # The middleware's copy stops before the Sitemap line.
    assert middleware_of(crawler).sitemaps(origin.url("/")) == ()


# -- requests that download the file themselves -----------------------------------------


@pytest_twisted.inlineCallbacks
def test_a_request_after_the_fetch_downloads_the_file(server, activation, caplog):
    """The fetch's response is kept only for the requests that waited for
    it: one that comes once the origin is decided downloads the file."""
    origin = server.add_origin({"/robots.txt": Reply(body=robots_txt())})
    url = origin.url("/robots.txt")
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage([origin.url("/page")]), Stage([url])])
    assert server.paths(origin) == ["/robots.txt", "/page", "/robots.txt"]
    assert crawler.spider.seen == [origin.url("/page"), url]
    assert stat(crawler, "robotstxt/spider_request/served") is None
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 1
    [line] = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Downloading")]
    assert line.startswith(f"Downloading <GET {url}>: no response of a fetch is kept for it")


@pytest_twisted.inlineCallbacks
def test_a_dont_obey_robotstxt_request_is_downloaded_as_usual(server, activation):
    origin = server.add_origin({"/robots.txt": Reply(body=robots_txt())})
    url = origin.url("/robots.txt")
    request = {"url": url, "meta": {"dont_obey_robotstxt": True}}
    crawler = yield crawl(activation, [Stage([request])])
    assert server.paths(origin) == ["/robots.txt"]  # the spider's: nothing was checked
    assert crawler.spider.seen == [url]
    assert stat(crawler, "robotstxt/request_count") is None
    assert stat(crawler, "robotstxt/spider_request/served") is None
    assert stat(crawler, "robotstxt/spider_request/downloaded") is None


@pytest.mark.parametrize(("mode", "served"), [("rfc", True), ("google", False)])
@pytest_twisted.inlineCallbacks
def test_the_verdict_on_robots_txt_itself_still_applies(server, activation, mode, served):
    """``Disallow: /``: RFC 9309 mode always allows /robots.txt (D-1), so
    the spider gets it; google mode, as Google's parser, does not."""
    origin = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /\n")})
    url = origin.url("/robots.txt")
    crawler = yield crawl(activation, [Stage([url])], ROBOTSTXT_RFC_MODE=mode)
    assert server.paths(origin) == ["/robots.txt"]
    if served:
        assert crawler.spider.seen == [url]
        assert stat(crawler, "robotstxt/spider_request/served") == 1
    else:
        assert crawler.spider.failed_with("Forbidden by robots.txt") == [url]
        assert stat(crawler, "robotstxt/spider_request/served") is None


@pytest_twisted.inlineCallbacks
def test_with_a_store_each_run_gets_the_file_once(server, activation, tmp_path: Path):
    """The second run reads the origin from ROBOTSTXT_RFC_STORE and fetches
    nothing, so the spider's request downloads the file: one GET per run."""
    origin = site(server)
    store = {"ROBOTSTXT_RFC_STORE": f"sqlite:///{tmp_path / 'robots.db'}"}
    url = origin.url("/robots.txt")
    first = yield crawl_sitemaps(activation, [url], **store)
    second = yield crawl_sitemaps(activation, [url], **store)
    assert robots_gets(server, origin) == 2
    assert stat(first, "robotstxt/spider_request/served") == 1
    assert stat(second, "robotstxt/store/hit") == 1
    assert stat(second, "robotstxt/spider_request/downloaded") == 1
    assert sorted(second.spider.seen) == [origin.url("/a"), origin.url("/b")]
    # The Sitemap lines are read back from the stored copy too.
    assert middleware_of(second).sitemaps(url) == (origin.url("/sitemap.xml"),)


# -- RobotsTxtMiddleware.sitemaps, as user code reaches it ------------------------------


class SitemapsFromTheMiddleware(Spider):
    """Crawls a page of each origin and follows the Sitemap lines the
    middleware read, the way README.rst "Sitemaps" shows."""

    name = "sitemaps_from_the_middleware"

    def __init__(self, *args: Any, pages: list[str], other: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.pages = pages
        self.other = other
        self.found: dict[str, tuple[str, ...] | None] = {}
        self.sitemaps_seen: list[str] = []

    async def start(self) -> Any:
        for url in self.pages:
            yield Request(url)

    def start_requests(self) -> Any:  # Scrapy before 2.13
        return (Request(url) for url in self.pages)

    def parse(self, response: Any) -> Any:
        robots = self.crawler.get_downloader_middleware(RobotsTxtMiddleware)
        self.found[response.url] = robots.sitemaps(response.url)
        self.found[self.other] = robots.sitemaps(self.other)
        for url in robots.sitemaps(response.url) or ():
            yield Request(url, callback=self.parse_sitemap)

    def parse_sitemap(self, response: Any) -> None:
        self.sitemaps_seen.append(response.url)


@pytest_twisted.inlineCallbacks
def test_the_sitemaps_accessor_from_a_callback(server, activation):
    with_two = server.add_origin(
        {"/robots.txt": lambda hit, n: Reply(body=robots_txt(*two))},
    )
    two = [with_two.url("/news.xml"), with_two.url("/sitemap.xml")]
    without = server.add_origin({"/robots.txt": Reply(body=robots_txt())})
    missing = server.add_origin({"/robots.txt": Reply(status=404)})
    other = server.add_origin()
    pages = [with_two.url("/p"), without.url("/p"), missing.url("/p")]
    crawler = get_crawler(SitemapsFromTheMiddleware, {**BASE_SETTINGS, **activation})
    yield crawler.crawl(pages=pages, other=other.url("/p"))
    spider = crawler.spider
    assert spider.found == {
        with_two.url("/p"): tuple(two),
        without.url("/p"): (),
        missing.url("/p"): (),
        other.url("/p"): None,  # never fetched
    }
    assert sorted(spider.sitemaps_seen) == two
    assert server.paths(other) == []
    for origin in (with_two, without, missing):
        assert robots_gets(server, origin) == 1


class DownloadsRobotsTxt(Spider):
    """Downloads an origin's robots.txt with ``engine.download``, as media
    pipelines download: the request waits inside ``process_request``."""

    name = "downloads_robots_txt"

    def __init__(self, *args: Any, page: str, robots: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.page = page
        self.robots = robots
        self.got: list[tuple[str, int, list[str]]] = []

    async def start(self) -> Any:
        yield Request(self.page)

    def start_requests(self) -> Any:  # Scrapy before 2.13
        yield Request(self.page)

    async def parse(self, response: Any) -> Any:
        engine = self.crawler.engine
        request = Request(self.robots)
        if hasattr(engine, "download_async"):  # Scrapy 2.14+
            got = await engine.download_async(request)
        else:
            got = await maybe_deferred_to_future(engine.download(request))
        self.got.append((got.url, got.status, got.flags))
        return
        yield


@pytest_twisted.inlineCallbacks
def test_a_request_waiting_in_place_gets_the_response(server, activation):
    origin = site(server)
    other = server.add_origin()
    url = origin.url("/robots.txt")
    crawler = get_crawler(DownloadsRobotsTxt, {**BASE_SETTINGS, **activation})
    yield crawler.crawl(page=other.url("/p"), robots=url)
    assert crawler.spider.got == [(url, 200, [SERVED_FLAG])]
    assert server.paths(origin) == ["/robots.txt"]
    assert stat(crawler, "robotstxt/spider_request/served") == 1


# -- the kept response is let go, and taken only by what the fetch answers --------------


def kept_now(spider: Any) -> int:
    """How many origins have a response kept for their robots.txt requests."""
    return len(middleware_of(spider.crawler)._kept)


@pytest_twisted.inlineCallbacks
def test_a_request_dropped_after_its_wait_lets_the_response_go(server, activation):
    """google mode, ``Disallow: /``: the spider's request waited for the
    fetch and is then forbidden; it gives up its share, so nothing is kept
    for it until the spider closes."""
    origin = server.add_origin(
        {"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /\n", delay=0.2)}
    )
    url = origin.url("/robots.txt")
    left: list[int] = []
    stages = [
        Stage([url, origin.url("/page")]),
        Stage([], hook=lambda spider: left.append(kept_now(spider))),
    ]
    crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_MODE="google")
    assert server.paths(origin) == ["/robots.txt"]
    assert sorted(crawler.spider.failed_with("Forbidden by robots.txt")) == sorted(
        [url, origin.url("/page")]
    )
    assert left == [0]
    assert stat(crawler, "robotstxt/spider_request/served") is None


@pytest_twisted.inlineCallbacks
def test_only_a_plain_get_of_robots_txt_is_answered_from_the_fetch(server, activation, caplog):
    """A HEAD, a POST, a Range or a conditional request for the file asks
    the server for something else than the fetch's GET: each is downloaded
    with the reason at DEBUG; the plain GET waiting with them is served."""
    origin = server.add_origin({"/robots.txt": Reply(body=robots_txt(), delay=0.2)})
    url = origin.url("/robots.txt")
    requests: list[Any] = [
        {"url": url, "method": "HEAD"},
        {"url": url, "method": "POST", "body": b"x=1"},
        {"url": url, "headers": {"Range": "bytes=0-9"}},
        {"url": url, "headers": {"If-None-Match": '"v1"'}},
        url,
    ]
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(requests)])
    hits = [(hit.method, hit.path) for hit in server.hits_for(origin)]
    assert hits[0] == ("GET", "/robots.txt")  # the middleware's fetch
    # HEAD, POST, then the Range and the If-None-Match GETs.
    assert sorted(hits[1:]) == sorted(
        [
            ("HEAD", "/robots.txt"),
            ("POST", "/robots.txt"),
            ("GET", "/robots.txt"),
            ("GET", "/robots.txt"),
        ]
    )
    assert stat(crawler, "robotstxt/spider_request/served") == 1
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 4
    reasons = sorted(
        r.getMessage().split(">: ", 1)[1]
        for r in caplog.records
        if r.getMessage().startswith("Downloading <")
    )
    assert reasons == [
        "it has a Range header",
        "it has an If-None-Match header",
        "it is a HEAD request",
        "it is a POST request",
    ]
    assert len(crawler.spider.seen) == 5


@pytest_twisted.inlineCallbacks
def test_a_downloaded_robots_txt_request_takes_its_crawl_delay_turn(server, activation):
    """``Crawl-delay`` applies to the spider's robots.txt request that is
    downloaded, as to any request the crawl sends to the origin."""
    origin = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nCrawl-delay: 0.4\n")})
    url = origin.url("/robots.txt")
    stages = [Stage([origin.url("/page")]), Stage([url])]
    crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_CRAWL_DELAY=True)
    hits = server.hits_for(origin)
    assert [hit.path for hit in hits] == ["/robots.txt", "/page", "/robots.txt"]
    assert hits[2].time - hits[1].time >= 0.39
    assert stat(crawler, "robotstxt/spider_request/downloaded") == 1
    assert stat(crawler, "robotstxt/crawl_delay/waited") == 2  # /page, then robots.txt


class LateComer(Spider):
    """Asks for an origin's robots.txt, and for a page of it only once a
    slow page elsewhere answers: the page waits for the same unreachable
    robots.txt, longer than the robots.txt request, which is dropped first."""

    name = "late_comer"

    def __init__(self, *args: Any, robots: str, slow: str, page: str, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.robots, self.slow, self.page = robots, slow, page
        self.failed: list[str] = []
        self.kept_at_page: list[int] = []

    async def start(self) -> Any:
        for request in self.start_requests():
            yield request

    def start_requests(self) -> Any:  # Scrapy before 2.13
        yield Request(self.robots, errback=self.errback, dont_filter=True)
        yield Request(self.slow, callback=self.after_slow)

    def after_slow(self, response: Any) -> Any:
        yield Request(self.page, callback=self.parse_page, errback=self.errback)

    def parse_page(self, response: Any) -> None:
        self.kept_at_page.append(kept_now(self))

    def errback(self, failure: Any) -> None:
        self.failed.append(failure.request.url)


@pytest_twisted.inlineCallbacks
def test_a_request_dropped_while_others_wait_is_no_longer_counted(server, activation):
    """robots.txt answers 503, then 200 on the retry (1 s). The spider's
    robots.txt request is dropped at ROBOTSTXT_RFC_UNREACHABLE_WAIT (0.8 s);
    a page that began to wait later keeps the origin's wait open and gets
    the 200. Nothing is kept then for the dropped request."""
    origin: Origin

    def robots(hit: Any, n: int) -> Reply:
        return Reply(status=503) if n == 1 else Reply(body=robots_txt())

    origin = server.add_origin({"/robots.txt": robots})
    other = server.add_origin({"/slow": Reply(body=b"ok", delay=0.4)})
    crawler = get_crawler(
        LateComer,
        {
            **BASE_SETTINGS,
            **activation,
            "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0.8,
            "ROBOTSTXT_RFC_UNREACHABLE_RETRY": 1.0,
        },
    )
    url = origin.url("/robots.txt")
    yield crawler.crawl(robots=url, slow=other.url("/slow"), page=origin.url("/page"))
    spider = crawler.spider
    assert spider.failed == [url]
    assert server.paths(origin) == ["/robots.txt", "/robots.txt", "/page"]
    assert spider.kept_at_page == [0]
    assert stat(crawler, "robotstxt/unreachable/dropped") == 1
    assert stat(crawler, "robotstxt/spider_request/served") is None
