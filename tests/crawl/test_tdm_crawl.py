"""TDM reservations (W3C TDMRep) in real crawls (T-1 to T-5,
``ROBOTSTXT_RFC_TDM``), under both activations.

Each test asserts what reached the server (``/.well-known/tdmrep.json`` once
per origin, or never with the setting off; URLs the file reserves never
requested), what reached the item pipeline (no item of a page its header or
meta reserves; every item carries its page's final value from
``response.meta["robotstxt_tdm"]``), the stats and the log lines.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, Spider
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc.tdmrep import TDM_META_KEY, TDMREP_PATH, TdmValue

from ..crawling import ACTIVATIONS, BASE_SETTINGS, FakeClock, Stage, pages, stat, use_clock
from ..crawling import crawl as crawl_stages
from ..jsonschemas import valid_lines
from ..mockserver import MockServer, Origin, Reply

ROBOTS = b"User-agent: *\nDisallow: /private\n"
POLICY = "https://publisher.example/tdm-policy.json"
#: The file: /a/ reserved but its JPEGs under /a/open/ (the first rule that
#: matches decides, T-3), /b/ free; anything else unset.
FILE = json.dumps(
    [
        {"location": "/a/open/*.jpg", "tdm-reservation": 0},
        {"location": "/a/", "tdm-reservation": 1, "tdm-policy": POLICY},
        {"location": "/b/", "tdm-reservation": 0},
    ]
).encode()


def page(head: str = "", links: tuple[str, ...] = ()) -> bytes:
    anchors = "".join(f'<a href="{link}">{link}</a>' for link in links)
    return f"<html><head><title>t</title>{head}</head><body>{anchors}</body></html>".encode()


def tdm_meta(content: str) -> str:
    return f'<meta name="tdm-reservation" content="{content}">'


#: path -> its reply; the index links to each.
PAGES: dict[str, Reply] = {
    "/a/page": Reply(body=page(), html=True),  # the file reserves it
    "/a/open/cat.jpg": Reply(body=b"\xff\xd8jpeg", headers={"Content-Type": "image/jpeg"}),
    # The file frees it, its header reserves it; its link is still followed.
    "/b/header": Reply(
        body=page(links=("/c/linked-from-reserved",)),
        html=True,
        headers={"tdm-reservation": "1", "tdm-policy": POLICY},
    ),
    # The file leaves it unset, its header reserves it.
    "/c/header": Reply(body=page(), html=True, headers={"TDM-Reservation": "1"}),
    # The file leaves it unset, its meta tag reserves it.
    "/c/meta": Reply(body=page(tdm_meta("1"), links=("/c/child",)), html=True),
    # An invalid value: unset, the item goes.
    "/c/invalid": Reply(body=page(tdm_meta("yes")), html=True, headers={"tdm-reservation": "2"}),
    "/c/child": Reply(body=page(), html=True),
    "/c/plain": Reply(body=page(), html=True),
    # Linked from /b/header only, a page its header reserves.
    "/c/linked-from-reserved": Reply(body=page(), html=True),
}
#: What the index links to: not the page only a reserved page links to.
INDEXED = tuple(path for path in PAGES if path != "/c/linked-from-reserved")
KEPT = {"/", "/a/open/cat.jpg", "/c/invalid", "/c/child", "/c/plain", "/c/linked-from-reserved"}
PAGE_RESERVED = {"/b/header", "/c/header", "/c/meta"}


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
    """Requests the index, follows every link, yields one item per page with
    its TDM value, and records each request the middleware drops."""

    name = "tdm-follower"

    def __init__(self, *args: Any, start_url: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.start_url = start_url
        self.errors: list[Any] = []

    async def start(self) -> Any:
        yield Request(self.start_url, errback=self.failed)

    def parse(self, response: Any) -> Any:
        value = response.meta.get(TDM_META_KEY)
        yield {"url": response.url, "value": value}
        if hasattr(response, "css"):
            for href in response.css("a::attr(href)").getall():
                yield response.follow(href, errback=self.failed)

    def failed(self, failure: Any) -> None:
        self.errors.append(failure.value)


def site(server: MockServer, tdmrep: Reply | None = None, **extra: Reply) -> Origin:
    routes: dict[str, Any] = {"/robots.txt": Reply(body=ROBOTS)}
    routes["/"] = Reply(body=page(links=INDEXED), html=True)
    routes.update(PAGES)
    routes.update(extra)
    if tdmrep is not None:
        routes[TDMREP_PATH] = tdmrep
    return server.add_origin(routes)


def settings_for(activation: str, **settings: Any) -> dict[str, Any]:
    chosen = dict(ACTIVATIONS[activation])
    if activation == "manual":  # by hand, the spider middleware is listed too
        chosen["SPIDER_MIDDLEWARES"] = {"scrapy_robots_rfc.TdmReservationMiddleware": 960}
    return {
        **BASE_SETTINGS,
        **chosen,
        "ITEM_PIPELINES": {f"{__name__}.Collect": 100},
        **settings,
    }


def crawl(origin: Origin, settings: dict[str, Any]) -> Any:
    crawler = get_crawler(Follower, settings)
    d = crawler.crawl(start_url=origin.url("/"))
    d.addCallback(lambda _: crawler)
    return d


def tdm_stats(crawler: Any) -> dict[str, Any]:
    return {k: v for k, v in crawler.stats.get_stats().items() if k.startswith("robotstxt/tdm/")}


def kept(crawler: Any, origin: Origin) -> dict[str, Any]:
    """The items that reached the pipeline, by path."""
    base = origin.url("")
    return {item["url"].removeprefix(base): item["value"] for item in crawler.collected}


@pytest.fixture(params=sorted(ACTIVATIONS))
def activated(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_reservations_are_honoured_by_file_header_and_meta(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture, tmp_path: Path
):
    origin = site(server, Reply(body=FILE, headers={"Content-Type": "application/json"}))
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            origin,
            settings_for(activated, ROBOTSTXT_RFC_TDM=True, ROBOTSTXT_RFC_REPORT=str(report)),
        )
    paths = server.paths(origin)
    # The file once, before the first page; /a/page never downloaded.
    assert paths.count(TDMREP_PATH) == 1
    assert paths.index(TDMREP_PATH) < paths.index("/")
    assert set(paths) == {"/robots.txt", TDMREP_PATH, "/", *PAGES} - {"/a/page"}
    # What reached the pipeline: every page but the reserved ones.
    items = kept(crawler, origin)
    assert set(items) == KEPT
    assert str(items["/a/open/cat.jpg"]).startswith("not reserved (tdm-reservation 0 from")
    assert items["/c/plain"].reservation is None
    invalid = items["/c/invalid"]
    assert invalid.reservation is None
    assert len(invalid.errors) == 2
    assert isinstance(items["/"], TdmValue)
    # The links of a reserved page are followed: only /b/header links there.
    assert "/c/linked-from-reserved" in paths
    assert tdm_stats(crawler) == {
        "robotstxt/tdm/fetches": 1,
        "robotstxt/tdm/request_count": 1,
        "robotstxt/tdm/response_count": 1,
        "robotstxt/tdm/response_status_count/200": 1,
        "robotstxt/tdm/response_status_class/2xx": 1,
        "robotstxt/tdm/file": 1,
        "robotstxt/tdm/reserved": 1,
        "robotstxt/tdm/page_reserved/header": 2,
        "robotstxt/tdm/page_reserved/meta": 1,
        "robotstxt/tdm/items_dropped": 3,
    }
    (error,) = crawler.spider.errors
    assert str(error).startswith(
        "TDM rights reserved: reserved (tdm-reservation 1 from tdmrep.json[1]"
    )
    assert POLICY in str(error)
    messages = [r.getMessage() for r in caplog.records]
    assert any(
        m.startswith("TDM rights reserved, not downloaded: <GET " + origin.url("/a/page"))
        and "tdmrep.json[1] (location '/a/')" in m
        for m in messages
    )
    dropped = [m for m in messages if m.startswith("Dropped an item (dict) from <200 ")]
    assert len(dropped) == 3
    assert any("from HTTP header" in m for m in dropped)
    assert any("from HTML meta" in m for m in dropped)
    (row,) = valid_lines("report", report.read_text().splitlines())
    assert row["tdm"] == "file (3 rules)"
    assert (row["tdm_fetches"], row["tdm_reserved"]) == (1, 1)
    assert (row["tdm_pages_reserved"], row["tdm_items_dropped"]) == (3, 3)
    summary = [m for m in messages if m.startswith("robots.txt: 1 origin checked")]
    assert len(summary) == 1
    assert summary[0].endswith(
        "; TDM: 1 request reserved, 3 pages reserved (3 items kept from the pipeline)"
    )


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_with_the_setting_off_nothing_is_fetched_or_read(
    server: MockServer, activated: str, monkeypatch: pytest.MonkeyPatch
):
    """No file fetched, no TDM gate built (so no TDM work per response: the
    response hook left in every crawl notices page-level rules left off,
    issue 43), no spider middleware."""
    from scrapy_robots_rfc.crawl import _tdm_gate

    built: list[object] = []
    init = _tdm_gate.TdmGate.__init__

    def counted(self: object, *args: Any, **kwargs: Any) -> None:
        built.append(self)
        init(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(_tdm_gate.TdmGate, "__init__", counted)
    origin = site(server, Reply(body=FILE))
    crawler = yield crawl(origin, settings_for(activated))
    assert TDMREP_PATH not in server.paths(origin)
    assert set(kept(crawler, origin)) == {"/", *PAGES}
    assert all(value is None for value in kept(crawler, origin).values())
    assert tdm_stats(crawler) == {}
    assert built == [], "no TDM gate, no TDM work per response"
    assert not any(
        type(m).__name__ == "TdmReservationMiddleware"
        for m in crawler.engine.scraper.spidermw.middlewares
    )


# -- the file's statuses (T-2) ----------------------------------------------------


def status_origin(server: MockServer, route: Any) -> Origin:
    return server.add_origin(
        {
            "/robots.txt": Reply(body=ROBOTS),
            TDMREP_PATH: route,
            "/a": Reply(body=page(), html=True),
            "/b": Reply(body=page(tdm_meta("1")), html=True),
        }
    )


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_no_file_means_unset_and_the_page_still_decides(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    origin = status_origin(server, Reply(status=404))
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl_stages(
            ACTIVATIONS[activated], [Stage(pages(origin, "/a", "/b"))], ROBOTSTXT_RFC_TDM=True
        )
    assert sorted(server.paths(origin)) == sorted(["/robots.txt", TDMREP_PATH, "/a", "/b"])
    values = {
        url: meta[TDM_META_KEY]
        for url, meta in zip(crawler.spider.seen, crawler.spider.metas, strict=True)
    }
    assert values[origin.url("/a")].reservation is None
    assert values[origin.url("/b")].reserved
    assert stat(crawler, "robotstxt/tdm/no_file") == 1
    assert stat(crawler, "robotstxt/tdm/response_status_count/404") == 1
    assert stat(crawler, "robotstxt/tdm/page_reserved/meta") == 1
    assert stat(crawler, "robotstxt/tdm/reserved") is None
    said = [m for m in caplog.messages if m.startswith(f"{origin.url(TDMREP_PATH)}: 404")]
    assert len(said) == 1
    assert said[0].startswith(f"{origin.url(TDMREP_PATH)}: 404: no file: unset: every URL of")


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_5xx_file_is_not_known_its_requests_wait_and_are_dropped_then_retried(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    state = {"up": False}
    origin = status_origin(
        server, lambda hit, n: Reply(body=FILE) if state["up"] else Reply(status=503)
    )
    clock = FakeClock()

    def recover(spider: Any) -> None:
        state["up"] = True
        clock.advance(3600)  # past the retry (RFC 9309 §2.3.1.4 backoff, on the wall clock)

    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl_stages(
            ACTIVATIONS[activated],
            [
                Stage(pages(origin, "/a", "/b"), use_clock(clock)),
                Stage(pages(origin, "/a", "/b"), recover),
            ],
            ROBOTSTXT_RFC_TDM=True,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        )
    paths = server.paths(origin)
    # The first stage's pages never reach the server; the second's do.
    assert sorted(paths) == sorted(["/robots.txt", TDMREP_PATH, TDMREP_PATH, "/a", "/b"])
    assert paths.index("/a") > paths.index(TDMREP_PATH, paths.index(TDMREP_PATH) + 1)
    dropped = crawler.spider.failed_with("TDM reservations not known: tdmrep.json HTTP 503")
    assert sorted(dropped) == pages(origin, "/a", "/b")
    assert sorted(crawler.spider.seen) == pages(origin, "/a", "/b")
    assert stat(crawler, "robotstxt/tdm/unreachable") == 1
    assert stat(crawler, "robotstxt/tdm/unreachable/dropped") == 2
    assert stat(crawler, "robotstxt/unreachable/dropped") is None
    assert stat(crawler, "robotstxt/tdm/file") == 1
    assert stat(crawler, "robotstxt/tdm/fetches") == 2
    assert any(
        m.startswith(
            f"{origin.url(TDMREP_PATH)} is unreachable (TDM reservations not known: HTTP 503)"
        )
        for m in caplog.messages
    )


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_invalid_json_is_a_file_without_rules(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    origin = status_origin(server, Reply(body=b'{"location": "/", "tdm-reservation": 1}'))
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl_stages(
            ACTIVATIONS[activated], [Stage(pages(origin, "/a"))], ROBOTSTXT_RFC_TDM=True
        )
    assert crawler.spider.seen == pages(origin, "/a")
    assert crawler.spider.metas[0][TDM_META_KEY].reservation is None
    assert stat(crawler, "robotstxt/tdm/file") == 1
    notes = [m for m in caplog.messages if m.startswith(f"{origin.url(TDMREP_PATH)}: 0 rules read")]
    assert len(notes) == 1
    assert "not an array (a rule must be inside [ ])" in notes[0]


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_file_over_the_size_bound_is_not_known(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    # 600,000 bytes of a valid file that would free everything: not read.
    body = b'[{"location": "/", "tdm-reservation": 0}' + b" " * 600_000 + b"]"
    origin = status_origin(server, Reply(body=body))
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        crawler = yield crawl_stages(
            ACTIVATIONS[activated],
            [Stage(pages(origin, "/a"))],
            ROBOTSTXT_RFC_TDM=True,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        )
    assert "/a" not in server.paths(origin)
    assert crawler.spider.failed_with("TDM reservations not known: tdmrep.json larger than") == (
        pages(origin, "/a")
    )
    assert stat(crawler, "robotstxt/tdm/unreachable") == 1
    assert stat(crawler, "robotstxt/tdm/file") is None
    assert any(
        "larger than 512,000 bytes, or cut short: not read, not known (T-2)" in m
        for m in caplog.messages
    )


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_obey_off_says_that_reservations_are_not_honoured(
    server: MockServer, activated: str, caplog: pytest.LogCaptureFixture
):
    origin = status_origin(server, Reply(body=FILE))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl_stages(
            ACTIVATIONS[activated],
            [Stage(pages(origin, "/a"))],
            ROBOTSTXT_RFC_TDM=True,
            ROBOTSTXT_OBEY=False,
        )
    assert server.paths(origin) == ["/a"]
    warned = [r for r in caplog.records if r.getMessage().startswith("TDM reservations are not")]
    assert len(warned) == 1
    assert warned[0].levelno == logging.WARNING
    assert "ROBOTSTXT_RFC_TDM is on but ROBOTSTXT_OBEY is off" in warned[0].getMessage()
    assert crawler.spider.seen == pages(origin, "/a")


@pytest.mark.parametrize("value", ["maybe", [1]])
def test_an_invalid_setting_stops_the_crawl(value: Any) -> None:
    from scrapy.settings import Settings

    from scrapy_robots_rfc.crawl._config import Config
    from scrapy_robots_rfc.exceptions import ConfigError

    with pytest.raises(ConfigError) as raised:
        Config.from_settings(Settings({"ROBOTSTXT_RFC_TDM": value}))
    message = str(raised.value)
    assert message.startswith(f"The value of the ROBOTSTXT_RFC_TDM setting ({value!r}) is invalid")
    assert "It must be True or False" in message


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_parked_requests_dropped_for_the_file_are_counted_as_its_drops(
    server: MockServer, activated: str
):
    """Requests that wait for the file out of the downloader (parked at
    once) and are sent back to be dropped carry which document dropped
    them: TdmUnknown and the file's stat, never robots.txt's."""
    origin = status_origin(server, Reply(status=503))
    crawler = yield crawl_stages(
        ACTIVATIONS[activated],
        [Stage(pages(origin, "/a", "/b"))],
        ROBOTSTXT_RFC_TDM=True,
        ROBOTSTXT_RFC_PARK_AFTER=0,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0.3,
    )
    # Each parked twice: for robots.txt, then for the file.
    assert stat(crawler, "robotstxt/waiting/parked") == 4
    dropped = crawler.spider.failed_with("TDM reservations not known: tdmrep.json HTTP 503")
    assert sorted(dropped) == pages(origin, "/a", "/b")
    assert stat(crawler, "robotstxt/tdm/unreachable/dropped") == 2
    assert stat(crawler, "robotstxt/unreachable/dropped") is None
    assert "/a" not in server.paths(origin)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_request_that_waits_for_one_fetch_waits_so_for_the_file(
    server: MockServer, activated: str
):
    """``scrapy robots`` marks its request to wait for the fetch under way
    only: robots.txt's wait takes its ticket, and the file's wait keeps
    the mark, so an unreachable file drops it at once, not after
    ROBOTSTXT_RFC_UNREACHABLE_WAIT (600 s)."""
    from scrapy_robots_rfc.crawl import wait_once

    origin = status_origin(server, Reply(status=503))
    meta: dict[str, Any] = {}
    wait_once(meta)
    crawler = yield crawl_stages(
        ACTIVATIONS[activated],
        [Stage([{"url": origin.url("/a"), "meta": meta}])],
        ROBOTSTXT_RFC_TDM=True,
    )
    assert crawler.spider.failed_with("TDM reservations not known") == pages(origin, "/a")
    assert stat(crawler, "robotstxt/tdm/unreachable/dropped") == 1


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_shared_store_keeps_the_file_for_the_next_crawl(
    server: MockServer, activated: str, tmp_path: Path
):
    """The file's record goes to ROBOTSTXT_RFC_STORE beside robots.txt's,
    named by its URL: a second crawl on the store reads both, fetches
    neither, and still drops what the file reserves."""
    origin = site(server, Reply(body=FILE))
    store = f"sqlite:///{tmp_path / 'records.db'}"
    settings = settings_for(activated, ROBOTSTXT_RFC_TDM=True, ROBOTSTXT_RFC_STORE=store)
    first = yield crawl(origin, settings)
    assert stat(first, "robotstxt/tdm/fetches") == 1
    before = len(server.paths(origin))
    second = yield crawl(origin, settings)
    later = server.paths(origin)[before:]
    assert TDMREP_PATH not in later
    assert "/robots.txt" not in later
    assert "/a/page" not in later
    assert stat(second, "robotstxt/tdm/fetches") is None
    assert stat(second, "robotstxt/tdm/store/hit") == 1
    assert stat(second, "robotstxt/tdm/reserved") == 1
    assert set(kept(second, origin)) == KEPT
