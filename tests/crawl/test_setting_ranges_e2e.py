"""Every numeric setting at its largest value, in a real crawl with a real
``redis-server`` store (issue 35): where the setting reaches Redis (an
expiry, a lease, a fence, a crawl-delay turn, a body), Redis takes it and
holds it for as long as the setting says; where it does not, the crawl
still works. The next value up stops the crawl at start-up, naming the
setting and its maximum, before anything is fetched or written.

``tests/crawl/test_config.py`` checks the messages and ranges without a crawl.
"""

from __future__ import annotations

import logging
import math
from typing import Any

import pytest
import pytest_twisted

from scrapy_robots_rfc.exceptions import ConfigError
from scrapy_robots_rfc.stores import Record

from ..crawling import Stage, crawl, pages, stat
from ..mockserver import Origin, Reply
from ..redis_server import RedisServer, redis_server_fixture
from ._support import MAXIMA, next_up

redis = pytest.importorskip("redis")

redis_server = redis_server_fixture()

ROBOTS = b"User-agent: *\nDisallow: /private\n"
DAY = 86400
#: The slack allowed between a PTTL read and what was set: the time the
#: crawl took since, well within a minute.
SLACK_MS = 60_000
KEY_PREFIX = "robotstxt_rfc:v1:"


def ttl_ms(url: str, kind: str, origin: Origin) -> int:
    """The PTTL of this package's ``kind`` key for ``origin`` (-2: none)."""
    client = redis.Redis.from_url(url)
    try:
        return int(client.pttl(f"{KEY_PREFIX}{kind}:{origin.base}"))
    finally:
        client.close()


def record_of(url: str, origin: Origin) -> Record:
    client = redis.Redis.from_url(url)
    try:
        data = client.get(f"{KEY_PREFIX}record:{origin.base}")
    finally:
        client.close()
    assert data is not None
    record = Record.decode(data)
    assert record is not None
    return record


def about(ms: int, seconds: float) -> bool:
    """Whether a PTTL of ``ms`` is what ``seconds`` set a moment ago."""
    return seconds * 1000 - SLACK_MS < ms <= seconds * 1000


def watching(url: str, at: dict[str, Origin], body: bytes = ROBOTS) -> tuple[Any, dict[str, int]]:
    """A robots.txt route that answers ``body`` and notes the PTTLs of the
    fetch lock and the fence of the origin ``at["origin"]`` (set once the
    origin is added) while the fetch is in flight."""
    seen: dict[str, int] = {}

    def route(hit: Any, n: int) -> Reply:
        seen["lock"] = ttl_ms(url, "lock", at["origin"])
        seen["fence"] = ttl_ms(url, "fence", at["origin"])
        return Reply(body=body)

    return route, seen


def assert_crawled(crawler: Any, origin: Origin, *, seen: list[str] | None = None) -> None:
    """The crawl ran to its end with the store in use: /a came, /private/x
    was forbidden, and no store call failed."""
    assert stat(crawler, "finish_reason") == "finished"
    assert stat(crawler, "robotstxt/store/error") is None
    assert crawler.spider.seen == (seen if seen is not None else [origin.url("/a")])
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/x")]
    assert stat(crawler, "log_count/ERROR") is None


def largest(name: str) -> float:
    [value] = [value for setting, _, value, _ in MAXIMA if setting == name]
    return value


# -- settings that reach Redis --------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_store_ttl_is_the_records_expiry(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_STORE_TTL")
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_STORE_TTL=value,
    )
    assert_crawled(crawler, origin)
    assert about(ttl_ms(redis_server.url, "record", origin), value)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_cache_ttl_is_the_copys_lifetime_in_redis(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_CACHE_TTL")
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    settings = {"ROBOTSTXT_RFC_STORE": redis_server.url, "ROBOTSTXT_RFC_CACHE_TTL": value}
    first = yield crawl(activation, [Stage(pages(origin, "/a", "/private/x"))], **settings)
    assert_crawled(first, origin)
    record = record_of(redis_server.url, origin)
    assert record.expires_at - record.fetched_at == pytest.approx(value, abs=0.01)
    # The store's TTL by default: ROBOTSTXT_RFC_UNREACHABLE_DAYS (30) and it.
    assert about(ttl_ms(redis_server.url, "record", origin), 30 * DAY + value)
    second = yield crawl(activation, [Stage(pages(origin, "/a", "/private/x"))], **settings)
    assert_crawled(second, origin)
    assert stat(second, "robotstxt/store/hit") == 1
    assert server.paths(origin).count("/robots.txt") == 1


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_unreachable_days_is_the_records_expiry(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_UNREACHABLE_DAYS")
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_UNREACHABLE_DAYS=value,
    )
    assert_crawled(crawler, origin)
    assert about(ttl_ms(redis_server.url, "record", origin), value * DAY + DAY)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_lease_is_the_locks_expiry(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_LEASE")
    at: dict[str, Origin] = {}
    route, seen = watching(redis_server.url, at)
    origin = at["origin"] = server.add_origin({"/robots.txt": route})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_LEASE=value,
    )
    assert_crawled(crawler, origin)
    # While the fetch ran: the lock for a lease, the fence for the fetch's
    # bound (30 s for each of 6 requests, and 5 s) and a lease.
    assert about(seen["lock"], value)
    assert about(seen["fence"], 30 * 6 + 5 + value)
    # Released: the lock is gone, the fence stays one lease more.
    assert ttl_ms(redis_server.url, "lock", origin) == -2
    assert about(ttl_ms(redis_server.url, "fence", origin), value)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_timeout_is_in_the_fences_expiry(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_TIMEOUT")
    at: dict[str, Origin] = {}
    route, seen = watching(redis_server.url, at)
    origin = at["origin"] = server.add_origin({"/robots.txt": route})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_TIMEOUT=value,
    )
    assert_crawled(crawler, origin)
    assert about(seen["fence"], value * 6 + 5 + 10)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_max_redirects_are_followed_and_in_the_fences_expiry(
    server, activation, redis_server
):
    value = largest("ROBOTSTXT_RFC_MAX_REDIRECTS")
    at: dict[str, Origin] = {}
    route, seen = watching(redis_server.url, at)
    # /robots.txt -> /r1 -> ... -> /r20, which answers: 20 hops.
    hops = [f"/r{n}" for n in range(1, int(value) + 1)]
    routes: dict[str, Any] = {
        here: Reply(301, headers={"Location": there})
        for here, there in zip(["/robots.txt", *hops], hops, strict=False)
    }
    routes[hops[-1]] = route
    origin = at["origin"] = server.add_origin(routes)
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_MAX_REDIRECTS=value,
    )
    assert_crawled(crawler, origin)
    assert stat(crawler, "robotstxt/redirects") == value
    assert about(seen["fence"], 30 * (value + 1) + 5 + 10)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_crawl_delay_max_is_the_turns_expiry(server, activation, redis_server, caplog):
    value = largest("ROBOTSTXT_RFC_CRAWL_DELAY_MAX")
    body = b"User-agent: *\nCrawl-delay: %d\nDisallow: /private\n" % (value * 2)
    origin = server.add_origin({"/robots.txt": Reply(body=body)})
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(
            activation,
            # Only a disallowed page: an allowed one would wait its turn, a day.
            [Stage(pages(origin, "/private/x"))],
            ROBOTSTXT_RFC_STORE=redis_server.url,
            ROBOTSTXT_RFC_CRAWL_DELAY=True,
            ROBOTSTXT_RFC_CRAWL_DELAY_MAX=value,
        )
    assert_crawled(crawler, origin, seen=[])
    # The robots.txt fetch took the first turn; the next is a day later,
    # and the key lives until then and one second more.
    assert about(ttl_ms(redis_server.url, "next", origin), value + 1)
    said = f"asks for a Crawl-delay of {value * 2:g} s (line 2, for '*'); {value:g} s in force"
    assert any(said in r.getMessage() for r in caplog.records), caplog.text


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_max_bytes_is_read_and_stored(server, activation, redis_server):
    value = int(largest("ROBOTSTXT_RFC_MAX_BYTES"))
    head = b"User-agent: *\nDisallow: /private\n"
    last = b"Disallow: /last-in\n"
    filler = value - len(head) - len(last)
    line = b"#" * 999 + b"\n"
    body = head + line * (filler // 1000) + b"#" * (filler % 1000 - 1) + b"\n" + last
    assert len(body) == value
    body += b"Disallow: /after\n"
    origin = server.add_origin({"/robots.txt": Reply(body=body)})
    settings = {"ROBOTSTXT_RFC_STORE": redis_server.url, "ROBOTSTXT_RFC_MAX_BYTES": value}
    urls = pages(origin, "/a", "/private/x", "/last-in", "/after")
    first = yield crawl(activation, [Stage(urls)], **settings)
    stored = record_of(redis_server.url, origin).body
    assert stored is not None
    assert len(stored) == value
    assert stored.endswith(last)
    second = yield crawl(activation, [Stage(urls)], **settings)
    for crawler in (first, second):
        assert stat(crawler, "finish_reason") == "finished"
        assert stat(crawler, "robotstxt/store/error") is None
        assert sorted(crawler.spider.seen) == [origin.url("/a"), origin.url("/after")]
    assert stat(first, "robotstxt/truncated") == 1
    assert stat(second, "robotstxt/store/hit") == 1


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_unreachable_retry_is_the_records_next_try(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_UNREACHABLE_RETRY")
    origin = server.add_origin({"/robots.txt": Reply(status=503)})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=value,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
    )
    assert stat(crawler, "finish_reason") == "finished"
    assert stat(crawler, "robotstxt/store/error") is None
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    record = record_of(redis_server.url, origin)
    assert record.unreachable_since is not None
    assert record.retry_at - record.unreachable_since == pytest.approx(value, abs=60)


# -- settings that stay in the crawl process -------------------------------------------


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_unreachable_wait_holds_requests_until_robots_txt_comes(
    server, activation, redis_server
):
    value = largest("ROBOTSTXT_RFC_UNREACHABLE_WAIT")
    origin = server.add_origin(
        {"/robots.txt": lambda hit, n: Reply(status=503) if n == 1 else Reply(body=ROBOTS)}
    )
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=value,
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.3,
    )
    assert_crawled(crawler, origin)
    assert server.paths(origin).count("/robots.txt") == 2


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_park_after_waits_in_place_and_parks_nothing(server, activation):
    """A minute of grace: the requests behind a robots.txt that takes 0.5 s
    wait for it in place, none is parked, and the crawl decides them all."""
    value = largest("ROBOTSTXT_RFC_PARK_AFTER")
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=0.5)})
    crawler = yield crawl(
        activation,
        [Stage(pages(origin, "/a", "/private/x"))],
        ROBOTSTXT_RFC_PARK_AFTER=value,
    )
    assert_crawled(crawler, origin)
    assert stat(crawler, "robotstxt/waiting") >= 1
    assert stat(crawler, "robotstxt/waiting/parked") is None


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_max_origins_crawls(server, activation, redis_server):
    value = largest("ROBOTSTXT_RFC_MAX_ORIGINS")
    origins = [server.add_origin({"/robots.txt": Reply(body=ROBOTS)}) for _ in range(3)]
    crawler = yield crawl(
        activation,
        [Stage([url for o in origins for url in pages(o, "/a", "/private/x")])],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_MAX_ORIGINS=value,
    )
    assert stat(crawler, "finish_reason") == "finished"
    assert stat(crawler, "robotstxt/store/error") is None
    assert sorted(crawler.spider.seen) == sorted(o.url("/a") for o in origins)
    assert stat(crawler, "robotstxt/forbidden") == 3


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_largest_cache_bytes_crawls(server, activation, redis_server):
    """A TiB bounds nothing a crawl holds: no origin is evicted."""
    value = largest("ROBOTSTXT_RFC_CACHE_BYTES")
    origins = [server.add_origin({"/robots.txt": Reply(body=ROBOTS)}) for _ in range(3)]
    crawler = yield crawl(
        activation,
        [Stage([url for o in origins for url in pages(o, "/a", "/private/x")])],
        ROBOTSTXT_RFC_STORE=redis_server.url,
        ROBOTSTXT_RFC_CACHE_BYTES=value,
    )
    assert stat(crawler, "finish_reason") == "finished"
    assert sorted(crawler.spider.seen) == sorted(o.url("/a") for o in origins)
    assert stat(crawler, "robotstxt/forbidden") == 3
    assert stat(crawler, "robotstxt/cache/evicted") is None
    assert 0 < stat(crawler, "robotstxt/cache/bytes/max") < value


def test_every_largest_value_has_its_crawl():
    """One crawl test above per numeric setting."""
    names = [name for name in globals() if name.startswith("test_the_largest_")]
    for _, attribute, _, _ in MAXIMA:
        assert any(attribute in name for name in names), attribute


# -- the next value up ----------------------------------------------------------------


@pytest.mark.e2e
@pytest.mark.parametrize(("name", "attribute", "value", "allowed"), MAXIMA)
@pytest_twisted.inlineCallbacks
def test_the_next_value_up_stops_the_crawl_at_start_up(
    server, activation, redis_server: RedisServer, name, attribute, value, allowed
):
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    above = next_up(value, attribute)
    crawler_settings = {"ROBOTSTXT_RFC_STORE": redis_server.url, name: above}
    with pytest.raises(ConfigError) as info:
        yield crawl(activation, [Stage(pages(origin, "/a"))], **crawler_settings)
    error = info.value
    assert (error.setting, error.value) == (name, above)
    assert str(error).startswith(f"The value of the {name} setting ({above!r}) is invalid.")
    assert f" to {value} (" in str(error)
    assert str(error).endswith(f"It must be {allowed}.")
    assert server.hits == []
    client = redis.Redis.from_url(redis_server.url)
    try:
        assert list(client.scan_iter(match=KEY_PREFIX + "*")) == []
    finally:
        client.close()
    assert math.isfinite(above)
