"""Page-level rules in real crawls (P-1 to P-5): the robots meta tag and the
``X-Robots-Tag`` header of the pages of a local site, under both
activations.

Each test asserts what reached the server (the links of a ``nofollow`` page
are not requested when ``ROBOTSTXT_RFC_NOFOLLOW`` is on), what reached the
spider (every response's rules, by the call a callback makes:
``page_rules(response, crawler)``), what reached the
item pipeline (no item of a ``noindex`` page with ``ROBOTSTXT_RFC_NOINDEX =
"drop"``), the stats and the crawl report.

The crawler is ``TestBot`` (``USER_AGENT = "TestBot/1.0 ..."``): a tag or a
header for ``testbot`` applies to it (P-2), one for ``otherbot`` does not.
"""

from __future__ import annotations

import json
import logging
import re
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import page_rules, usage_preferences

from ..crawling import ACTIVATIONS, BASE_SETTINGS, middleware_of
from ..mockserver import MockServer, Origin, Reply

ROBOTS = b"User-agent: *\nDisallow: /private\n"


def page(head: str = "", links: tuple[str, ...] = ()) -> bytes:
    anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
    return f"<html><head><title>t</title>{head}</head><body>{anchors}</body></html>".encode()


def meta(name: str, content: str) -> str:
    return f'<meta name="{name}" content="{content}">'


#: path -> (the page's head, the X-Robots-Tag headers); each page links to
#: ``<path>/child`` and to a robots.txt-disallowed ``/private<path>``.
PAGES: dict[str, tuple[str, list[str]]] = {
    "/plain": ("", []),
    "/meta-nofollow": (meta("robots", "nofollow"), []),
    "/header-nofollow": ("", ["nofollow"]),
    "/ours-nofollow": (meta("TestBot", "nofollow"), []),
    "/theirs-nofollow": (meta("otherbot", "nofollow, noindex"), ["otherbot: nofollow"]),
    "/none": (meta("robots", "none"), []),
    "/noindex": ("", ["noindex"]),
    "/expired": ("", ["unavailable_after: 2001-01-01T00:00:00+00:00"]),
    "/future": ("", ["unavailable_after: 2999-01-01T00:00:00+00:00"]),
    "/headers": ("", ["noarchive", "testbot: nofollow"]),
    "/all": (meta("robots", "all"), ["index, follow"]),
}
NOFOLLOW = {"/meta-nofollow", "/header-nofollow", "/ours-nofollow", "/none", "/headers"}
NOINDEX = {"/none", "/noindex", "/expired"}


class Collect:
    """An item pipeline that keeps every item on the crawler."""

    def __init__(self, crawler: Any) -> None:
        self.items: list[dict[str, Any]] = []
        crawler.collected = self.items

    @classmethod
    def from_crawler(cls, crawler: Any) -> Collect:
        return cls(crawler)

    def process_item(self, item: Any, spider: Any = None) -> Any:
        self.items.append(item)
        return item


class Follower(Spider):
    """Requests the index, follows every link, yields one item per page and
    records each response's page-level rules."""

    name = "follower"

    def __init__(self, *args: Any, start_url: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_url = start_url
        self.rules: dict[str, Any] = {}

    async def start(self) -> Any:
        yield Request(self.start_url)

    def parse(self, response: Any) -> Any:
        self.rules[response.url] = page_rules(response, self.crawler)
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            yield response.follow(href)


class Site:
    def __init__(self, server: MockServer) -> None:
        routes: dict[str, Any] = {"/robots.txt": Reply(body=ROBOTS)}
        routes["/"] = Reply(body=page(links=tuple(PAGES)), html=True)
        for path, (head, headers) in PAGES.items():
            routes[path] = Reply(
                body=page(head, (f"{path}/child", f"/private{path}")),
                html=True,
                headers={"X-Robots-Tag": headers} if headers else {},
            )
            routes[f"{path}/child"] = Reply(body=page(), html=True)
        self.origin: Origin = server.add_origin(routes)

    def url(self, path: str) -> str:
        return self.origin.url(path)


def settings_for(activation: str, **settings: Any) -> dict[str, Any]:
    chosen = dict(ACTIVATIONS[activation])
    if activation == "manual":  # by hand, the spider middleware is listed too
        chosen["SPIDER_MIDDLEWARES"] = {"scrapy_robots_rfc.PageRulesMiddleware": 950}
    return {
        **BASE_SETTINGS,
        **chosen,
        "ITEM_PIPELINES": {f"{__name__}.Collect": 100},
        **settings,
    }


def crawl(site: Site, settings: dict[str, Any]) -> Any:
    crawler = get_crawler(Follower, settings)
    d = crawler.crawl(start_url=site.url("/"))
    d.addCallback(lambda _: crawler)
    return d


def page_stats(crawler: Any) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("robotstxt/page/")}


def fetched(server: MockServer, site: Site) -> set[str]:
    return set(server.paths(site.origin))


ALL_PAGES = {"/", *PAGES, *(f"{p}/child" for p in PAGES)}


@pytest.fixture(params=sorted(ACTIVATIONS))
def activated(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_by_default_every_page_is_followed_and_kept_and_its_rules_are_exposed(
    server: MockServer, activated: str
):
    site = Site(server)
    crawler = yield crawl(site, settings_for(activated))
    assert fetched(server, site) == {"/robots.txt", *ALL_PAGES}, "nothing is honoured unasked"
    assert sorted(item["url"] for item in crawler.collected) == sorted(
        site.url(p) for p in ALL_PAGES
    )
    # What the pages asked for, and the crawl did not honour (issue 43).
    assert page_stats(crawler) == {
        "robotstxt/page/ignored/nofollow": len(NOFOLLOW),
        "robotstxt/page/ignored/noindex": len(NOINDEX - {"/expired"}),
        "robotstxt/page/ignored/unavailable_after": 1,
    }
    rules = crawler.spider.rules
    assert {p for p in PAGES if rules[site.url(p)].nofollow} == NOFOLLOW
    assert {p for p in PAGES if rules[site.url(p)].noindex} == {"/none", "/noindex"}
    assert rules[site.url("/theirs-nofollow")].directives == (), "otherbot's rules are not ours"
    assert str(rules[site.url("/plain")]) == ""
    assert rules[site.url("/headers")].noarchive
    assert str(rules[site.url("/headers")].deciding("nofollow")).startswith("nofollow")
    assert rules[site.url("/expired")].unavailable_after.year == 2001
    assert not rules[site.url("/all")].noindex
    assert not rules[site.url("/all")].nofollow


IGNORED_LINE = re.compile(
    r"(?P<page>\S+) asks this crawler not to (?P<what>.+): (?P<said>.+)\. Page-level rules "
    r"are off, so the crawl does not honour it; set (?P<settings>.+) to honour it \(said "
    r"once; robotstxt/page/ignored/\* counts the pages that ask\)"
)
#: The setting each page asks for, in the INFO line of the first to ask.
SETTINGS_ASKED = {
    "/meta-nofollow": "ROBOTSTXT_RFC_NOFOLLOW = True",
    "/header-nofollow": "ROBOTSTXT_RFC_NOFOLLOW = True",
    "/ours-nofollow": "ROBOTSTXT_RFC_NOFOLLOW = True",
    "/headers": "ROBOTSTXT_RFC_NOFOLLOW = True",
    "/none": 'ROBOTSTXT_RFC_NOFOLLOW = True and ROBOTSTXT_RFC_NOINDEX = "drop"',
    "/noindex": 'ROBOTSTXT_RFC_NOINDEX = "drop"',
    "/expired": 'ROBOTSTXT_RFC_NOINDEX = "drop"',
}


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_rules_left_off_are_said_once_at_the_first_page_that_asks(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    """Page-level rules off (the default): one INFO line, at the first page
    that asks for what a setting would honour, naming that setting; the
    stats count every such page (issue 43)."""
    site = Site(server)
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(site, settings_for(activated))
    said = [r for r in caplog.records if r.name == "scrapy_robots_rfc.crawl._page_gate"]
    assert [r.levelname for r in said] == ["INFO"]
    found = IGNORED_LINE.fullmatch(said[0].getMessage())
    assert found is not None, said[0].getMessage()
    path = found["page"].removeprefix(site.url(""))
    assert found["settings"] == SETTINGS_ASKED["/" + path.lstrip("/")]
    assert page_stats(crawler)["robotstxt/page/ignored/nofollow"] == len(NOFOLLOW)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_rules_of_other_crawlers_or_none_are_not_said(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    """Only pages that ask this crawler; ``noarchive`` and another
    crawler's rules ask nothing a setting would honour."""
    routes: dict[str, Any] = {"/robots.txt": Reply(body=ROBOTS)}
    routes["/"] = Reply(body=page(links=("/theirs", "/archive")), html=True)
    routes["/theirs"] = Reply(
        body=page(meta("otherbot", "nofollow, noindex")),
        html=True,
        headers={"X-Robots-Tag": "otherbot: noindex"},
    )
    routes["/archive"] = Reply(body=page(meta("robots", "noarchive")), html=True)
    origin = server.add_origin(routes)
    crawler = get_crawler(Follower, settings_for(activated))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        yield crawler.crawl(start_url=origin.url("/"))
    assert len(crawler.spider.rules) == 3
    assert page_stats(crawler) == {}
    assert not [r for r in caplog.records if r.name == "scrapy_robots_rfc.crawl._page_gate"]


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_nofollow_drops_the_requests_of_a_nofollow_page(
    server: MockServer, activated: str, tmp_path: Path
):
    site = Site(server)
    report = tmp_path / "report.jsonl"
    crawler = yield crawl(
        site, settings_for(activated, ROBOTSTXT_RFC_NOFOLLOW=True, ROBOTSTXT_RFC_REPORT=str(report))
    )
    followed = {"/robots.txt", *ALL_PAGES} - {f"{p}/child" for p in NOFOLLOW}
    assert fetched(server, site) == followed
    # Each nofollow page yields two requests: its child and a disallowed one.
    assert page_stats(crawler) == {"robotstxt/page/nofollow": 2 * len(NOFOLLOW)}
    assert crawler.stats.get_value("robotstxt/forbidden") == len(PAGES) - len(NOFOLLOW)
    assert len(crawler.collected) == len(followed) - 1, "items are kept"
    (row,) = [json.loads(line) for line in report.read_text().splitlines() if "origin" in line]
    assert (row["page_nofollow"], row["page_noindex"]) == (2 * len(NOFOLLOW), 0)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_noindex_drops_the_items_of_a_noindex_or_expired_page(server: MockServer, activated: str):
    site = Site(server)
    crawler = yield crawl(site, settings_for(activated, ROBOTSTXT_RFC_NOINDEX="drop"))
    assert fetched(server, site) == {"/robots.txt", *ALL_PAGES}, "every link is followed"
    kept = sorted(item["url"] for item in crawler.collected)
    assert kept == sorted(site.url(p) for p in ALL_PAGES - NOINDEX)
    assert page_stats(crawler) == {
        "robotstxt/page/noindex": 2,
        "robotstxt/page/unavailable_after": 1,
    }


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_drop_says_which_directive_and_where_it_came_from(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    site = Site(server)
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        yield crawl(
            site,
            settings_for(activated, ROBOTSTXT_RFC_NOFOLLOW=True, ROBOTSTXT_RFC_NOINDEX="drop"),
        )
    lines = [r.getMessage() for r in caplog.records if r.getMessage().startswith("Dropped ")]
    child = site.url("/ours-nofollow/child")
    assert any(
        line.startswith(f"Dropped <GET {child}> from <200 {site.url('/ours-nofollow')}>: ")
        and 'nofollow (<meta name="testbot">)' in line
        for line in lines
    ), lines
    assert any(
        line.startswith("Dropped an item (dict) from <200 " + site.url("/noindex") + ">: ")
        and "X-Robots-Tag" in line
        for line in lines
    ), lines


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_request_with_dont_obey_robotstxt_passes(server: MockServer, activated: str):
    site = Site(server)

    class Stubborn(Follower):
        name = "stubborn"

        def parse(self, response: Any) -> Any:
            for request in super().parse(response):
                if isinstance(request, Request) and request.url.endswith("/child"):
                    request.meta["dont_obey_robotstxt"] = True
                yield request

    crawler = get_crawler(Stubborn, settings_for(activated, ROBOTSTXT_RFC_NOFOLLOW=True))
    yield crawler.crawl(start_url=site.url("/"))
    assert {f"{p}/child" for p in NOFOLLOW} <= fetched(server, site)
    assert page_stats(crawler) == {"robotstxt/page/nofollow": len(NOFOLLOW)}, "only /private"


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_by_hand_without_the_spider_middleware_a_warning_says_nothing_is_dropped(
    server: MockServer, caplog: pytest.LogCaptureFixture
):
    site = Site(server)
    settings = {
        **BASE_SETTINGS,
        **ACTIVATIONS["manual"],
        "ITEM_PIPELINES": {f"{__name__}.Collect": 100},
        "ROBOTSTXT_RFC_NOFOLLOW": True,
    }
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield crawl(site, settings)
    assert fetched(server, site) == {"/robots.txt", *ALL_PAGES}
    warnings = [
        r.getMessage()
        for r in caplog.records
        if r.levelno == logging.WARNING and r.name.startswith("scrapy_robots_rfc.")
    ]
    assert warnings == [
        "ROBOTSTXT_RFC_NOFOLLOW asks for page-level rules to be honoured, but "
        "'scrapy_robots_rfc.PageRulesMiddleware' is not in SPIDER_MIDDLEWARES: nothing is "
        'dropped. Add "scrapy_robots_rfc.PageRulesMiddleware": 950 to SPIDER_MIDDLEWARES, '
        'or use ADDONS = {"scrapy_robots_rfc.Addon": 100}.'
    ]
    assert page_stats(crawler) == {}


# -- U-8: a page's noai counts as train-ai=n and ai-use=n ----------------------------

AI_PAGES: dict[str, Reply] = {
    "/noai": Reply(body=page(meta("robots", "noai")), html=True),
    "/noai-ours": Reply(body=b"x", headers={"X-Robots-Tag": "testbot: noai"}),
    "/noai-theirs": Reply(body=b"x", headers={"X-Robots-Tag": "otherbot: noai"}),
    "/image.png": Reply(
        body=b"png", headers={"Content-Type": "image/png", "X-Robots-Tag": "noimageai"}
    ),
    "/noimageai-page": Reply(body=page(meta("robots", "noimageai")), html=True),
    "/plain": Reply(body=page(), html=True),
}
DROPPED_FOR_AI = {"/noai", "/noai-ours", "/image.png"}


class Visitor(Spider):
    """Requests the given paths; records each response's usage preferences
    and each failure."""

    name = "visitor"

    def __init__(self, *args: Any, urls: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.urls = urls
        self.usage: dict[str, Any] = {}
        self.failures: dict[str, str] = {}

    async def start(self) -> Any:
        for url in self.urls:
            yield Request(url, errback=self.failed)

    def parse(self, response: Any) -> None:
        self.usage[response.url] = usage_preferences(response, self.crawler)

    def failed(self, failure: Any) -> None:
        self.failures[failure.request.url] = str(failure.value)


def visit(server: MockServer, activated: str, **settings: Any) -> Any:
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS), **AI_PAGES})
    crawler = get_crawler(Visitor, settings_for(activated, **settings))
    d = crawler.crawl(urls=tuple(origin.url(path) for path in AI_PAGES))
    d.addCallback(lambda _: (crawler, origin))
    return d


@pytest.mark.e2e
@pytest.mark.parametrize("category", ["ai-use", "train-ai"])
@pytest_twisted.inlineCallbacks
def test_a_noai_page_is_dropped_for_an_ai_crawl(server: MockServer, activated: str, category: str):
    crawler, origin = yield visit(server, activated, ROBOTSTXT_RFC_USAGE=[category])
    spider = crawler.spider
    assert set(server.paths(origin)) == {"/robots.txt", *AI_PAGES}, "dropped after download"
    assert {url.removeprefix(origin.base) for url in spider.failures} == DROPPED_FOR_AI
    assert spider.failures[origin.url("/noai-ours")] == (
        f"Forbidden by usage preference: {category}=n (noai (X-Robots-Tag header, testbot))"
    )
    assert spider.failures[origin.url("/noai")].endswith('(noai (<meta name="robots">))')
    assert sorted(spider.usage) == sorted(
        origin.url(p) for p in ("/noai-theirs", "/noimageai-page", "/plain")
    )
    stats = crawler.stats.get_stats()
    assert (stats["robotstxt/usage/page"], stats["robotstxt/usage/page_forbidden"]) == (3, 3)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_noai_page_is_kept_by_a_search_crawl_and_its_preferences_say_it(
    server: MockServer, activated: str
):
    """U-7: a search crawl is governed by the search preference alone, and
    the page's noai is not read into its preferences (U-8: only for a crawl
    that names train-ai or ai-use)."""
    crawler, origin = yield visit(server, activated, ROBOTSTXT_RFC_USAGE=["search", "ai-use"])
    assert {url.removeprefix(origin.base) for url in crawler.spider.failures} == DROPPED_FOR_AI
    crawler, origin = yield visit(server, activated, ROBOTSTXT_RFC_USAGE=["search"])
    spider = crawler.spider
    assert spider.failures == {}
    assert str(spider.usage[origin.url("/noai")]) == "none stated", "noai is not read for search"


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_without_an_ai_category_the_page_head_is_not_read_for_usage(
    server: MockServer, activated: str
):
    crawler, _ = yield visit(server, activated)
    spider = crawler.spider
    assert spider.failures == {}
    assert len(spider.usage) == len(AI_PAGES)
    assert {str(prefs) for prefs in spider.usage.values()} == {"none stated"}
    assert "robotstxt/usage/page" not in crawler.stats.get_stats()


# -- what a page's rules reach, and what they do not ----------------------------------


class Copier(Follower):
    """Follows with ``meta=response.meta``, the idiom that copies a page's
    meta into the requests it yields; marks API-like requests."""

    name = "copier"

    def parse(self, response: Any) -> Any:
        self.rules[response.url] = page_rules(response, self.crawler)
        yield {"url": response.url}
        for href in response.css("a::attr(href)").getall():
            meta = dict(response.meta)
            if href.endswith("/child") and "ours-nofollow" in href:
                meta["dont_obey_page_rules"] = True  # an API call, not a link
            yield response.follow(href, meta=meta)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_copied_meta_never_carries_a_page_s_rules_to_another_response(
    server: MockServer, activated: str
):
    """A child requested with its nofollow parent's meta gets its own rules
    (none); ``dont_obey_page_rules`` lets one request past NOFOLLOW."""
    site = Site(server)
    crawler = get_crawler(Copier, settings_for(activated, ROBOTSTXT_RFC_NOFOLLOW=True))
    yield crawler.crawl(start_url=site.url("/"))
    rules = crawler.spider.rules
    child = site.url("/ours-nofollow/child")
    assert child in rules, "let through by dont_obey_page_rules"
    assert rules[site.url("/ours-nofollow")].nofollow
    assert not rules[child].nofollow
    assert rules[child].directives == ()
    assert fetched(server, site) - {"/robots.txt", *ALL_PAGES} == set()
    assert {f"{p}/child" for p in NOFOLLOW - {"/ours-nofollow"}}.isdisjoint(fetched(server, site))


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_noindex_of_a_binary_response_and_of_a_page_fetched_without_robots_rules(
    server: MockServer, activated: str
):
    """An X-Robots-Tag on a non-HTML response counts (P-1); a page fetched
    with dont_obey_robotstxt keeps its items (P-4)."""
    origin = server.add_origin(
        {
            "/robots.txt": Reply(body=ROBOTS),
            "/report.pdf": Reply(
                body=b"%PDF-1.4",
                headers={"Content-Type": "application/pdf", "X-Robots-Tag": "noindex"},
            ),
            "/noindex": Reply(body=page(meta("robots", "noindex")), html=True),
        }
    )

    class Items(Spider):
        name = "items"

        async def start(self) -> Any:
            yield Request(origin.url("/report.pdf"))
            yield Request(origin.url("/noindex"), meta={"dont_obey_robotstxt": True})

        def parse(self, response: Any) -> Any:
            yield {"url": response.url}

    crawler = get_crawler(Items, settings_for(activated, ROBOTSTXT_RFC_NOINDEX="drop"))
    yield crawler.crawl()
    assert [item["url"] for item in crawler.collected] == [origin.url("/noindex")]
    assert page_stats(crawler) == {"robotstxt/page/noindex": 1}


def test_the_meta_value_pickles_what_was_read_not_the_head():
    """A JOBDIR disk queue pickles the meta of a request that copied it."""
    import pickle

    from scrapy_robots_rfc.crawl._page_gate import PageRulesOnDemand

    head = b'<html><head><meta name="robots" content="noindex, nofollow">'
    found = PageRulesOnDemand((b"noarchive",), head, ("testbot",), "utf-8")
    copy = pickle.loads(pickle.dumps(found))
    assert (copy.noindex, copy.nofollow, copy.noarchive) == (True, True, True)
    assert str(copy) == str(found) == "noindex, nofollow, noarchive"
    assert head not in pickle.dumps(found), "the head is not kept once read"


# -- nothing read unasked (P-4, U-6 revised) -------------------------------------------


class Asker(Follower):
    """Asks each response for its rules twice, and keeps its meta."""

    name = "asker"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.twice: dict[str, bool] = {}
        self.metas: dict[str, dict[str, Any]] = {}

    def parse(self, response: Any) -> Any:
        first = page_rules(response, self.crawler)
        self.twice[response.url] = page_rules(response, self.crawler) is first
        self.metas[response.url] = dict(response.meta)
        usage_preferences(response, self.crawler)
        yield from super().parse(response)


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("settings", "reads"),
    [
        pytest.param({}, False, id="nothing-asked"),
        pytest.param({"ROBOTSTXT_RFC_NOFOLLOW": True}, True, id="nofollow"),
        pytest.param({"ROBOTSTXT_RFC_USAGE": ["search"]}, True, id="usage"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_crawl_reads_each_response_only_when_it_asked(
    server: MockServer, activated: str, settings: dict[str, Any], reads: bool
):
    """Without a setting that honours them, the middleware puts nothing in
    the meta (its process_response only notices the pages that ask for
    rules it leaves off): a callback's call reads the rules, once per
    response (the same object again)."""
    site = Site(server)
    crawler = get_crawler(Asker, settings_for(activated, **settings))
    yield crawler.crawl(start_url=site.url("/"))
    assert middleware_of(crawler) is not None
    spider = crawler.spider
    assert spider.twice
    assert all(spider.twice.values())
    keys = {"robotstxt_page_rules", "robotstxt_usage"}
    carried = {url: keys & set(meta) for url, meta in spider.metas.items()}
    if reads:
        assert all(carried.values()), carried
    else:
        assert not any(carried.values()), carried
    # The rules read are the page's all the same.
    assert {p for p in PAGES if spider.rules[site.url(p)].nofollow} == NOFOLLOW
