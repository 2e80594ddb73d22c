"""Crawls with the Redis store (issue 4) against a real ``redis-server``:
two crawl processes share one fetch per origin, a server that dies mid-crawl
or is not there at start-up leaves the crawl on memory with the rules still
obeyed, and a second run finds the lifetime in Redis."""

from __future__ import annotations

import json
import logging
import os
import re
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer
from twisted.internet.utils import getProcessOutputAndValue

from ..crawling import Stage, crawl, pages, robots_origin, stat
from ..mockserver import Reply
from ..redis_server import RedisServer, redis_server_fixture

pytestmark = pytest.mark.e2e

pytest.importorskip("redis")

ROOT = Path(__file__).resolve().parents[2]
#: Origins each of the two crawl processes visits.
N = 50
ROBOTS = b"User-agent: *\nDisallow: /private\n"
MEMORY_ONLY = "cached in memory until the store answers again"

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
def test_unreachable_redis_at_start_up_uses_memory(server, activation, caplog, closed_port):
    url = f"redis://robot:s3cret@127.0.0.1:{closed_port}/0"  # nothing listens there
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


# -- healing and takeover (issue 13) ---------------------------------------------------


def redis_keys(url: str) -> dict[str, int]:
    """Every key of this package in the Redis at ``url``, with its PTTL."""
    import redis

    from scrapy_robots_rfc.stores._redis import KEY_PREFIX

    client = redis.Redis.from_url(url)
    try:
        return {key.decode(): client.pttl(key) for key in client.scan_iter(match=KEY_PREFIX + "*")}
    finally:
        client.close()


@pytest_twisted.inlineCallbacks
def test_the_store_is_used_again_after_a_redis_restart(
    server, activation, redis_server: RedisServer, caplog, monkeypatch
):
    from scrapy_robots_rfc.stores._circuit_breaker import StoreHealth
    from scrapy_robots_rfc.stores._redis import KEY_PREFIX

    # Probes every 0.1 s to 0.2 s instead of 1 s to 60 s.
    monkeypatch.setattr(StoreHealth, "FIRST_RETRY", 0.1)
    monkeypatch.setattr(StoreHealth, "MAX_RETRY", 0.2)
    a = server.add_origin({"/robots.txt": Reply(body=ROBOTS), "/slow": Reply(delay=1.0)})
    b, c = (robots_origin(server, Reply(body=ROBOTS)) for _ in range(2))
    during: dict[str, Any] = {}

    def stop_redis(spider: Any) -> None:
        redis_server.stop()

    def start_redis(spider: Any) -> None:
        during["error"] = spider.crawler.stats.get_value("robotstxt/store/error")
        redis_server.start()  # the same port, empty

    stages = [
        Stage(pages(a, "/a", "/private/x")),
        Stage(pages(b, "/b", "/private/y"), hook=stop_redis),
        # A slow page: the crawl goes on while the probes find Redis back.
        Stage(pages(a, "/slow"), hook=start_redis),
        Stage(pages(c, "/c", "/private/z")),
    ]
    with caplog.at_level(logging.WARNING):
        crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_STORE=redis_server.url)
    spider = crawler.spider
    assert stat(crawler, "finish_reason") == "finished"
    assert sorted(spider.seen) == sorted([a.url("/a"), b.url("/b"), a.url("/slow"), c.url("/c")])
    assert sorted(spider.failed_with("Forbidden by robots.txt")) == sorted(
        [a.url("/private/x"), b.url("/private/y"), c.url("/private/z")]
    )
    assert server.paths(a) == ["/robots.txt", "/a", "/slow"]
    assert server.paths(b) == ["/robots.txt", "/b"]
    assert server.paths(c) == ["/robots.txt", "/c"]
    assert during == {"error": 1}, "b was decided in memory while Redis was away"
    assert stat(crawler, "robotstxt/store/error") == 1
    assert stat(crawler, "robotstxt/store/recovered") == 1
    # Only c, decided after the restart, is in the new (empty) Redis: the
    # store was used again. b's copy, learned meanwhile, is not written back.
    keys = redis_keys(redis_server.url)
    records = sorted(key for key in keys if key.startswith(KEY_PREFIX + "record:"))
    assert records == [KEY_PREFIX + "record:" + c.base]
    assert not any(key.startswith(KEY_PREFIX + "lock:") for key in keys), keys
    assert all(ttl > 0 for ttl in keys.values()), keys
    logged = [(r.levelname, r.getMessage()) for r in caplog.records]
    source = f"ROBOTSTXT_RFC_STORE ({redis_server.url!r})"
    assert [level for level, _ in logged] == ["ERROR", "WARNING"], logged
    assert logged[0][1].startswith(f"The robots.txt store failed ({source}: GET ")
    assert logged[0][1].endswith(
        "; robots.txt is cached in memory until the store answers again (tried again in "
        "0.1 s, then at growing intervals of up to 0.2 s)"
    )
    assert re.fullmatch(
        rf"The robots\.txt store {re.escape(source)} answers again after [0-9.]+ s; "
        r"robots\.txt is shared through it again",
        logged[1][1],
    ), logged[1][1]
    assert stat(crawler, "log_count/ERROR") == 1


#: One crawl in its own process, named ``$E2E_NAME``: ``$E2E_URLS`` with the
#: store ``$E2E_STORE`` and ``ROBOTSTXT_RFC_LEASE = $E2E_LEASE``. It creates
#: the file ``$E2E_READY`` when the crawl starts and prints one
#: ``RESULT {json}`` line.
LEASED = textwrap.dedent(
    """
    import json, os, sys
    sys.path.insert(0, os.environ["E2E_ROOT"])
    import scrapy
    from scrapy.crawler import CrawlerProcess

    class Leased(scrapy.Spider):
        name = "leased"
        seen = []
        forbidden = []
        other = []

        async def start(self):
            open(os.environ["E2E_READY"], "w").close()
            for url in json.loads(os.environ["E2E_URLS"]):
                yield scrapy.Request(url, errback=self.failed, dont_filter=True)

        def parse(self, response):
            self.seen.append(response.url)

        def failed(self, failure):
            message = str(failure.value)
            bucket = self.forbidden if message.startswith("Forbidden by robots.txt") else self.other
            bucket.append(failure.request.url + " " + message)

    settings = {
        "ROBOTSTXT_OBEY": True,
        "ROBOTSTXT_RFC_STORE": os.environ["E2E_STORE"],
        "ROBOTSTXT_RFC_LEASE": float(os.environ["E2E_LEASE"]),
        "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
        "LOG_LEVEL": "INFO",
        "RETRY_ENABLED": False,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "USER_AGENT": "LeaseBot/1.0 (" + os.environ["E2E_NAME"] + ")",
        **json.loads(os.environ["E2E_ACTIVATION"]),
    }
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(Leased)
    process.crawl(crawler)
    process.start()
    stats = crawler.stats.get_stats()
    keys = (
        "robotstxt/request_count", "robotstxt/store/hit", "robotstxt/store/shared",
        "robotstxt/store/error", "robotstxt/lock/lost", "robotstxt/store/fenced",
        "log_count/ERROR", "finish_reason",
    )
    result = {key: stats.get(key) for key in keys}
    result.update(seen=Leased.seen, forbidden=Leased.forbidden, other=Leased.other)
    print("RESULT " + json.dumps(result), flush=True)
    """
)


@defer.inlineCallbacks
def until(condition: Any, timeout: float, what: Any) -> Any:
    """Poll ``condition`` every 50 ms without blocking the reactor (the
    local server runs on it); fail with ``what()`` after ``timeout`` s."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            pytest.fail(f"timed out waiting for {what()}")
        yield deferLater(reactor, 0.05, lambda: None)


@pytest_twisted.inlineCallbacks
def test_one_crawler_takes_over_the_lease_of_a_killed_one(
    server, activation, redis_server: RedisServer, tmp_path
):
    """The crawler fetching robots.txt is SIGKILLed while the server hangs
    on its request: of the two crawlers waiting for its record, exactly one
    fetches in its place, about one lease after the kill, and the other
    uses that copy."""
    from twisted.internet import reactor
    from twisted.internet.task import deferLater

    from scrapy_robots_rfc.stores._async import POLL_INTERVAL

    lease = 2.0
    origin = robots_origin(
        server, lambda hit, count: Reply(hang=True) if count == 1 else Reply(body=ROBOTS)
    )
    env = {
        **os.environ,
        "E2E_ROOT": str(ROOT),
        "E2E_URLS": json.dumps(pages(origin, "/a", "/private/x")),
        "E2E_STORE": redis_server.url,
        "E2E_LEASE": str(lease),
        "E2E_ACTIVATION": json.dumps(activation),
    }

    def start(name: str, **kwargs: Any) -> Any:
        return {**env, "E2E_NAME": name, "E2E_READY": str(tmp_path / name), **kwargs}

    robots = lambda: server.hits_for(origin, "/robots.txt")  # noqa: E731
    log = tmp_path / "holder.log"
    with log.open("wb") as out:
        holder = subprocess.Popen(
            [sys.executable, "-c", LEASED],
            env=start("holder"),
            cwd=ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    try:
        yield until(robots, 30, lambda: "the holder's robots.txt request:\n" + log.read_text())
        survivors = [
            getProcessOutputAndValue(
                sys.executable, ["-c", LEASED], env=start(name), path=str(ROOT)
            ).addTimeout(60, reactor)
            for name in ("one", "two")
        ]
        ready = [tmp_path / "one", tmp_path / "two"]
        yield until(lambda: all(p.exists() for p in ready), 30, lambda: "the other crawlers")
        # They find the lease taken and wait for the holder's record; the
        # holder renews it past its first term.
        pause = max(1.0, robots()[0].time + lease + 0.5 - time.monotonic())
        yield deferLater(reactor, pause, lambda: None)
        killed_at = time.monotonic()
        holder.kill()
    finally:
        if holder.poll() is None:
            holder.kill()
        holder.wait()
    runs = yield defer.gatherResults(survivors, consumeErrors=True)
    results = {}
    for name, (out, err, code) in zip(("one", "two"), runs, strict=True):
        assert code == 0, (out + err).decode()
        assert b"Traceback" not in err, err.decode()
        results[name] = result_of(out)

    first, *others = robots()
    # The holder's lease outlived its first term: it was renewed while the
    # server hung, and nobody took it over while the holder lived.
    assert first.headers["user-agent"] == "LeaseBot/1.0 (holder)"
    assert killed_at - first.time > lease
    assert len(others) == 1, f"one takeover fetch, not a herd: {[h.headers for h in others]}"
    [takeover] = others
    assert killed_at < takeover.time <= killed_at + lease + POLL_INTERVAL + 1.0
    taker = takeover.headers["user-agent"].removeprefix("LeaseBot/1.0 (").removesuffix(")")
    assert taker in results
    for name, r in results.items():
        fetched = name == taker
        assert r["robotstxt/request_count"] == (1 if fetched else None), (name, r)
        assert r["robotstxt/store/shared"] == (None if fetched else 1), (name, r)
        assert r["finish_reason"] == "finished"
        assert r["robotstxt/store/error"] is None
        assert r["robotstxt/lock/lost"] is None
        assert r["log_count/ERROR"] is None
        assert r["seen"] == [origin.url("/a")]
        assert len(r["forbidden"]) == 1
        assert r["other"] == []
    assert server.hits_for(origin, "/private/x") == []
    assert len(server.hits_for(origin, "/a")) == 2
