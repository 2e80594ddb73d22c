"""Crawls with the Redis store (issue 4) against a real ``redis-server``:
two crawl processes share one fetch per origin, a server that dies mid-crawl
or is not there at start-up leaves the crawl on memory with the rules still
obeyed, and a second run finds the lifetime in Redis."""

from __future__ import annotations

import json
import logging
import os
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer
from twisted.internet.utils import getProcessOutputAndValue

from .crawling import Stage
from .mockserver import Reply
from .redis_server import RedisServer, free_port, redis_server_fixture
from .test_middleware import crawl, pages, robots_origin, stat

pytest.importorskip("redis")

ROOT = Path(__file__).resolve().parents[1]
#: Origins each of the two crawl processes visits.
N = 50
ROBOTS = b"User-agent: *\nDisallow: /private\n"
MEMORY_ONLY = "cached in memory only"

redis_server = redis_server_fixture()


def errors(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR]


# -- two crawl processes ------------------------------------------------------------

#: One crawl in its own process: ``/a`` and ``/private/x`` of every origin
#: in ``$E2E_ORIGINS``, with the store ``$E2E_STORE``. Both processes wait at
#: a file barrier before crawling, so that they race for the same origins,
#: and each prints one ``RESULT {json}`` line.
CRAWLER = textwrap.dedent(
    """
    import json, os, sys, time
    sys.path.insert(0, os.environ["E2E_ROOT"])
    import scrapy
    from scrapy.crawler import CrawlerProcess

    origins = json.loads(os.environ["E2E_ORIGINS"])
    barrier = os.environ["E2E_BARRIER"]
    name = os.environ["E2E_NAME"]

    class Pair(scrapy.Spider):
        name = "pair"
        seen = []
        forbidden = []
        other = []

        async def start(self):
            open(os.path.join(barrier, name), "w").close()
            give_up = time.monotonic() + 60
            while len(os.listdir(barrier)) < 2 and time.monotonic() < give_up:
                time.sleep(0.01)
            for base in origins:
                for path in ("/a", "/private/x"):
                    yield scrapy.Request(base + path, errback=self.failed, dont_filter=True)

        def parse(self, response):
            self.seen.append(response.url)

        def failed(self, failure):
            message = str(failure.value)
            bucket = self.forbidden if message.startswith("Forbidden by robots.txt") else self.other
            bucket.append(failure.request.url + " " + message)

    settings = {
        "ROBOTSTXT_OBEY": True,
        "ROBOTSTXT_RFC_STORE": os.environ["E2E_STORE"],
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "LOG_LEVEL": "INFO",
        "RETRY_ENABLED": False,
        # Two crawls start at the same moment: they must not race for the
        # telnet console's port (or, on Scrapy 2.19, the remote control's).
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "USER_AGENT": "TestBot/1.0 (+https://example.com/bot)",
        "CONCURRENT_REQUESTS": 64,
        "CONCURRENT_REQUESTS_PER_DOMAIN": 64,
        **json.loads(os.environ["E2E_ACTIVATION"]),
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(Pair)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    keys = (
        "robotstxt/request_count", "robotstxt/store/hit", "robotstxt/store/shared",
        "robotstxt/store/error", "robotstxt/forbidden", "log_count/ERROR", "finish_reason",
    )
    result = {key: stats.get(key) for key in keys}
    result.update(seen=Pair.seen, forbidden=Pair.forbidden, other=Pair.other)
    print("RESULT " + json.dumps(result), flush=True)
    """
)


def run_crawler(name: str, env: dict[str, str]) -> defer.Deferred[tuple[bytes, bytes, int]]:
    from twisted.internet import reactor

    d = getProcessOutputAndValue(
        sys.executable, ["-c", CRAWLER], env={**env, "E2E_NAME": name}, path=str(ROOT)
    )
    return d.addTimeout(120, reactor)


def result_of(out: bytes) -> dict[str, Any]:
    lines = [line for line in out.decode().splitlines() if line.startswith("RESULT ")]
    assert len(lines) == 1, out
    result: dict[str, Any] = json.loads(lines[0][len("RESULT ") :])
    return result


@pytest.mark.parametrize(
    "delay",
    [
        # Slow robots.txt replies: the crawler that fetches an origin holds
        # its lock long enough for the other to find it taken and wait.
        pytest.param(0.2, id="slow"),
        # Fast ones: the other crawler may read the store before the record
        # is there and take the lock after it was released.
        pytest.param(0.0, id="fast"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_two_processes_sharing_redis_fetch_each_robots_txt_once(
    server, activation, redis_server: RedisServer, tmp_path, delay
):
    origins = [robots_origin(server, Reply(body=ROBOTS, delay=delay)) for _ in range(N)]
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    env = {
        **os.environ,
        "E2E_ROOT": str(ROOT),
        "E2E_ORIGINS": json.dumps([o.base for o in origins]),
        "E2E_BARRIER": str(barrier),
        "E2E_STORE": redis_server.url,
        "E2E_ACTIVATION": json.dumps(activation),
    }
    start = time.monotonic()
    runs = yield defer.gatherResults(
        [run_crawler("one", env), run_crawler("two", env)], consumeErrors=True
    )
    results = []
    for out, err, code in runs:
        assert code == 0, (out + err).decode()
        assert b"Traceback" not in err, err.decode()
        results.append(result_of(out))

    twice = {
        o.base: [round(h.time - start, 3) for h in server.hits_for(o, "/robots.txt")]
        for o in origins
        if len(server.hits_for(o, "/robots.txt")) != 1
    }
    assert twice == {}, f"robots.txt fetched more than once (seconds into the crawl): {twice}"
    for origin in origins:
        assert server.hits_for(origin, "/private/x") == []
        assert len(server.hits_for(origin, "/a")) == 2, origin
    assert len(server.hits) == 3 * N

    assert sum(r["robotstxt/request_count"] or 0 for r in results) == N
    expected_seen = sorted(o.url("/a") for o in origins)
    for r in results:
        # Each process decided every origin exactly once: by fetching it,
        # from a record already in Redis, or from the other's fresh record.
        decided = sum(
            r[k] or 0
            for k in ("robotstxt/request_count", "robotstxt/store/hit", "robotstxt/store/shared")
        )
        assert decided == N, r
        assert r["finish_reason"] == "finished"
        assert r["robotstxt/store/error"] is None
        assert r["log_count/ERROR"] is None
        assert sorted(r["seen"]) == expected_seen
        assert len(r["forbidden"]) == N
        assert r["robotstxt/forbidden"] == N
        assert r["other"] == []
    if delay:
        # They really raced: with slow robots.txt files, a crawler waited for
        # the other's fetch (which one, and how often, is up to the timing).
        assert any(r["robotstxt/store/shared"] for r in results), results


# -- Redis going away -----------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_redis_killed_mid_crawl_falls_back_to_memory(
    server, activation, redis_server: RedisServer, caplog
):
    a, b, c = (robots_origin(server, Reply(body=ROBOTS)) for _ in range(3))

    def stop_redis(spider: Any) -> None:
        redis_server.stop()

    stages = [
        Stage(pages(a, "/a", "/private/x")),
        Stage(pages(b, "/b", "/private/y") + pages(c, "/c", "/private/z"), hook=stop_redis),
    ]
    with caplog.at_level(logging.ERROR):
        crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_STORE=redis_server.url)
    spider = crawler.spider
    assert stat(crawler, "finish_reason") == "finished"
    assert sorted(spider.seen) == sorted([a.url("/a"), b.url("/b"), c.url("/c")])
    assert sorted(spider.failed_with("Forbidden by robots.txt")) == sorted(
        [a.url("/private/x"), b.url("/private/y"), c.url("/private/z")]
    )
    assert spider.failed_with("robots.txt unreachable") == []
    for origin, page in ((a, "/a"), (b, "/b"), (c, "/c")):
        assert server.paths(origin) == ["/robots.txt", page]
    assert stat(crawler, "robotstxt/request_count") == 3
    assert stat(crawler, "robotstxt/store/error") == 1
    logged = errors(caplog)
    assert len(logged) == 1, logged
    assert MEMORY_ONLY in logged[0]
    assert logged[0].startswith(
        f"The robots.txt store failed (ROBOTSTXT_RFC_STORE ({redis_server.url!r}): "
    )
    assert stat(crawler, "log_count/ERROR") == 1


@pytest_twisted.inlineCallbacks
def test_unreachable_redis_at_start_up_uses_memory(server, activation, caplog):
    url = f"redis://robot:s3cret@127.0.0.1:{free_port()}/0"  # nothing listens there
    first, second = (robots_origin(server, Reply(body=ROBOTS)) for _ in range(2))
    urls = pages(first, "/a", "/private/x") + pages(second, "/b", "/private/y")
    with caplog.at_level(logging.ERROR):
        crawler = yield crawl(activation, [Stage(urls)], ROBOTSTXT_RFC_STORE=url)
    spider = crawler.spider
    assert stat(crawler, "finish_reason") == "finished"
    assert sorted(spider.seen) == sorted([first.url("/a"), second.url("/b")])
    assert sorted(spider.failed_with("Forbidden by robots.txt")) == sorted(
        [first.url("/private/x"), second.url("/private/y")]
    )
    assert server.paths(first) == ["/robots.txt", "/a"]
    assert server.paths(second) == ["/robots.txt", "/b"]
    assert stat(crawler, "robotstxt/store/error") == 1
    logged = errors(caplog)
    assert len(logged) == 1, logged
    assert MEMORY_ONLY in logged[0]
    # The setting and its value, the password hidden.
    shown = url.replace(":s3cret@", ":***@")
    assert logged[0].startswith(f"The robots.txt store failed (ROBOTSTXT_RFC_STORE ({shown!r}): ")
    assert "s3cret" not in caplog.text
    assert stat(crawler, "log_count/ERROR") == 1


# -- across runs ------------------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_a_rerun_with_the_same_redis_makes_no_robots_requests(
    server, activation, redis_server: RedisServer
):
    origins = [robots_origin(server, Reply(body=ROBOTS)) for _ in range(5)]
    urls = [o.url(p) for o in origins for p in ("/a", "/private/x")]
    store = {"ROBOTSTXT_RFC_STORE": redis_server.url}
    first = yield crawl(activation, [Stage(urls)], **store)
    second = yield crawl(activation, [Stage(urls)], **store)
    assert stat(first, "robotstxt/request_count") == 5
    assert stat(first, "robotstxt/store/hit") is None
    assert stat(second, "robotstxt/request_count") is None
    assert stat(second, "robotstxt/store/hit") == 5
    assert stat(second, "robotstxt/store/error") is None
    assert sorted(second.spider.seen) == sorted(o.url("/a") for o in origins)
    assert len(second.spider.failed_with("Forbidden by robots.txt")) == 5
    for origin in origins:
        assert server.paths(origin) == ["/robots.txt", "/a", "/a"]
