"""A store of one's own (issue 21): ``ROBOTSTXT_RFC_STORE`` names a class
that implements ``scrapy_robots_rfc.stores.Store``, by its import path or
as the class itself, as Scrapy's ``HTTPCACHE_STORAGE`` does. Real crawls,
both activations: robots.txt is fetched once, its record goes through the
class, and the next crawl reads it from there without fetching."""

from __future__ import annotations

import logging
import threading

import pytest
import pytest_twisted
from scrapy.settings import BaseSettings

from scrapy_robots_rfc.stores import Record, StoreError

from ..crawling import ROBOTS, Stage, crawl, pages, robots_origin, stat
from ..dict_store import CrawlerDictStore, DictStore
from ..mockserver import Reply

pytestmark = pytest.mark.e2e

HERE = __name__


class UnopenableStore(DictStore):
    """A store whose server cannot be reached when the crawl starts."""

    def __init__(self, settings: BaseSettings) -> None:
        raise StoreError("the dict is on the moon")


@pytest.fixture(autouse=True)
def empty_shelf() -> None:
    DictStore.shelf.clear()
    DictStore.calls.clear()
    DictStore.built.clear()


def methods(origin: str | None = None) -> list[str]:
    return [m for m, o, _ in DictStore.calls if origin is None or o == origin]


@pytest.mark.parametrize(
    ("value", "by_crawler"),
    [
        (f"{HERE}.DictStore", False),
        (f"{HERE}.CrawlerDictStore", True),
        (CrawlerDictStore, True),
    ],
    ids=["path-settings", "path-from_crawler", "class"],
)
@pytest_twisted.inlineCallbacks
def test_a_store_class_keeps_robots_txt_across_crawls(server, activation, value, by_crawler):
    origins = [robots_origin(server, Reply(body=ROBOTS)) for _ in range(2)]
    urls = [o.url(p) for o in origins for p in ("/a", "/private/x")]

    first = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_STORE=value, DICT_STORE="one")
    # Built once, the Scrapy way, with this crawl's settings or crawler.
    assert len(DictStore.built) == 1
    if by_crawler:
        assert DictStore.built[0] is first
    else:
        assert DictStore.built[0] is first.settings
    assert stat(first, "robotstxt/request_count") == 2
    for origin in origins:
        assert server.paths(origin).count("/robots.txt") == 1
        assert "/private/x" not in server.paths(origin)
    # One record per origin went through the class, the good copy's body in it.
    assert sorted(DictStore.shelf) == sorted(o.url("") for o in origins)
    records = [Record.decode(data) for data in DictStore.shelf.values()]
    assert all(r is not None and r.good and r.body == ROBOTS for r in records)
    for key in DictStore.shelf:
        assert methods(key)[:2] == ["get", "acquire"]
        assert methods(key).count("put") == 1
        assert methods(key)[-1] == "release"
    assert methods().count("close") == 1
    # Called off the reactor's thread, and closed off it too (issue 35).
    reactor_thread = threading.get_ident()
    assert reactor_thread not in {t for m, _, t in DictStore.calls if m != "close"}
    closers = [t for m, _, t in DictStore.calls if m == "close"]
    assert len(closers) == 1
    assert closers[0] != reactor_thread

    DictStore.calls.clear()
    second = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_STORE=value, DICT_STORE="two")
    assert len(DictStore.built) == 2
    assert DictStore.built[1] is (second if by_crawler else second.settings)
    assert stat(second, "robotstxt/request_count") is None
    assert stat(second, "robotstxt/store/hit") == 2
    assert sorted(second.spider.seen) == sorted(o.url("/a") for o in origins)
    assert len(second.spider.failed_with("Forbidden by robots.txt")) == 2
    for origin in origins:
        assert server.paths(origin).count("/robots.txt") == 1
        assert "/private/x" not in server.paths(origin)
    # Read, not leased nor written: the record was fresh.
    assert sorted(methods()) == ["close", "get", "get"]


@pytest_twisted.inlineCallbacks
def test_a_store_class_that_cannot_open_leaves_memory(server, activation, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.ERROR):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/a", "/private/x"))],
            ROBOTSTXT_RFC_STORE=f"{HERE}.UnopenableStore",
        )
    assert crawler.spider.seen == [origin.url("/a")]
    assert server.paths(origin) == ["/robots.txt", "/a"]
    assert stat(crawler, "robotstxt/store/hit") is None
    errors = [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]
    assert errors == [
        "The robots.txt store cannot be used (the dict is on the moon); robots.txt is "
        "cached in memory only for this crawl"
    ]
