"""A fleet of worker processes on scrapy-redis (issue 13), against a real
``redis-server`` and the local site: the requests that wait for robots.txt
are held in Redis (README.rst, "Fleets with scrapy-redis"), so that a worker
killed with SIGKILL, or stopped early, loses none of them, and every page is
crawled or dropped once across the fleet.

The workers are ``tests/fleet_worker.py`` processes with scrapy-redis's
scheduler and dupefilter and the add-on; the site is the in-process
:class:`~tests.mockserver.MockServer`, whose hit log (the User-Agent names
the worker) is what the assertions read. Without ``redis-server`` (or
scrapy-redis) the tests skip, except under CI, where they fail.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import pickle
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from twisted.internet import defer, task

from scrapy_robots_rfc.stores._redis_lua import KEY_PREFIX

from ..crawling import Stage, make_crawler
from ..mockserver import Hit, MockServer, Origin, Reply
from ..redis_server import RedisServer, redis_server_fixture
from ._support import ROBOTS, keys, need, scrapy_redis, scrapy_redis_warnings

redis = need("redis")
need("scrapy_redis")

from scrapy import Request  # noqa: E402
from scrapy_redis.dupefilter import RFPDupeFilter  # noqa: E402
from scrapy_redis.queue import Base, LifoQueue, PriorityQueue  # noqa: E402

from ..fleet_worker import FleetSpider  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
WORKER = ROOT / "tests" / "fleet_worker.py"
#: ``ROBOTSTXT_RFC_LEASE`` of the workers (tests/fleet_worker.py).
LEASE = 2.0
QUEUE = "fleet:requests"
INDEX = f"{KEY_PREFIX}heldidx:{QUEUE}"

redis_server = redis_server_fixture()

#: The crawls on scrapy-redis whose timing another test's load breaks (a
#: worker's first sweep must see what the fleet holds within the lease): they
#: run while no other test runs (tests/alone.py).
alone = pytest.mark.alone


def held_key(origin: Origin) -> str:
    return f"{KEY_PREFIX}held:{QUEUE}:{origin.base}"


def lock_key(origin: Origin) -> str:
    return f"{KEY_PREFIX}lock:{origin.base}"


def pages(origin: Origin, count: int) -> list[str]:
    return [origin.url(f"/p{i}") for i in range(count)]


def seed(client: Any, requests: Iterable[tuple[str, int]]) -> None:
    """Put ``(url, priority)`` requests in the shared queue and their
    fingerprints in the shared dupefilter, as a worker's engine would."""
    spider = FleetSpider()
    queue = PriorityQueue(client, spider, QUEUE)
    seen = RFPDupeFilter(client, "fleet:dupefilter")
    for url, priority in requests:
        request = Request(url, errback=spider.failed, priority=priority)
        assert not seen.request_seen(request)
        queue.push(request)


class Worker:
    """One ``tests/fleet_worker.py`` process, its log, events and output in
    ``folder``."""

    def __init__(self, name: str, folder: Path, redis_url: str, **settings: Any) -> None:
        self.name = name
        self.log = folder / f"{name}.log"
        self.events = folder / f"{name}.jsonl"
        self.output = folder / f"{name}.out"
        self.errors = folder / f"{name}.err"
        settings = {
            "REDIS_URL": redis_url,
            "ROBOTSTXT_RFC_STORE": redis_url,
            "LOG_FILE": str(self.log),
            **settings,
        }
        env = {
            **os.environ,
            "FLEET_NAME": name,
            "FLEET_EVENTS": str(self.events),
            "FLEET_SETTINGS": json.dumps(settings),
        }
        # scrapy-redis 0.9.1 warns about Scrapy deprecations: not errors here.
        env.pop("PYTHONWARNINGS", None)
        with open(self.output, "w") as out, open(self.errors, "w") as err:
            self.process = subprocess.Popen(
                [sys.executable, str(WORKER)],
                env=env,
                cwd=ROOT,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )

    @property
    def done(self) -> bool:
        return self.process.poll() is not None

    def kill(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()

    def frozen_when(self, ready: Callable[[], bool]) -> bool:
        """Stop the process (SIGSTOP) and look at ``ready()``; if it is
        false, let the process go on. What ``ready`` reads from Redis then
        cannot change before a SIGKILL."""
        if self.done:
            pytest.fail(f"{self.name} exited:\n{self.errors.read_text()}\n{self.log.read_text()}")
        self.process.send_signal(signal.SIGSTOP)
        if ready():
            return True
        self.process.send_signal(signal.SIGCONT)
        return False

    def stop(self) -> None:
        if not self.done:
            self.kill()

    def result(self) -> dict[str, Any]:
        """Its ``RESULT`` line, once it exited 0 without a traceback."""
        out, err = self.output.read_text(), self.errors.read_text()
        log = self.log.read_text() if self.log.exists() else ""
        assert self.process.returncode == 0, f"{self.name}:\n{out}\n{err}\n{log[-5000:]}"
        assert "Traceback" not in err + log, f"{self.name}:\n{err}\n{log[-5000:]}"
        lines = [line for line in out.splitlines() if line.startswith("RESULT ")]
        assert len(lines) == 1, out
        result: dict[str, Any] = json.loads(lines[0][len("RESULT ") :])
        return result

    def recorded(self) -> list[dict[str, Any]]:
        if not self.events.exists():
            return []
        return [json.loads(line) for line in self.events.read_text().splitlines()]


@defer.inlineCallbacks
def until(condition: Callable[[], bool], timeout: float, what: Callable[[], str]) -> Any:
    """Wait for ``condition`` without blocking the reactor (the site runs
    on it); fail with ``what()`` after ``timeout`` seconds."""
    from twisted.internet import reactor

    give_up = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > give_up:
            pytest.fail(f"timed out after {timeout} s: {what()}")
        yield task.deferLater(reactor, 0.1, lambda: None)


def worker_of(hit: Hit) -> str:
    return hit.headers.get("user-agent", "").partition("(")[2].rstrip(")")


def total(results: Iterable[dict[str, Any]], key: str) -> int:
    return sum(int(r.get(key) or 0) for r in results)


@pytest.fixture
def workers() -> Iterable[list[Worker]]:
    started: list[Worker] = []
    yield started
    for worker in started:
        worker.stop()


@pytest.fixture
def client(redis_server: RedisServer) -> Iterable[Any]:
    c = redis.Redis.from_url(redis_server.url)
    yield c
    c.close()


def _hang_first(hit: Hit, count: int) -> Reply:
    # The first fetch never answers: its worker holds the lease while it dies.
    return Reply(hang=True) if count == 1 else Reply(body=ROBOTS)


def _down_first(times: int) -> Callable[[Hit, int], Reply]:
    return lambda hit, count: Reply(503) if count <= times else Reply(body=ROBOTS)


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_killed_workers_held_requests_are_crawled_by_the_others(
    server: MockServer, redis_server: RedisServer, client: Any, workers: list[Worker], tmp_path
):
    healthy = [server.add_origin({"/robots.txt": Reply(body=ROBOTS)}) for _ in range(8)]
    # Unreachable twice, then rules: adopted in the backoff.
    late = [server.add_origin({"/robots.txt": _down_first(2)}) for _ in range(3)]
    down = server.add_origin({"/robots.txt": Reply(503)})  # dropped after the wait
    delayed_robots = Reply(body=ROBOTS + b"Crawl-delay: 2\n")
    delayed = [server.add_origin({"/robots.txt": delayed_robots}) for _ in range(2)]
    stalled = server.add_origin({"/robots.txt": _hang_first})
    allowed = {
        **{url: "healthy" for o in healthy for url in pages(o, 10)},
        **{url: "late" for o in late for url in pages(o, 6)},
        **{url: "delayed" for o in delayed for url in pages(o, 5)},
        **{url: "stalled" for url in pages(stalled, 4)},
    }
    held_first = [o for o in (*late, down, stalled)]
    held_urls = [url for url, group in allowed.items() if group in ("late", "stalled")]
    held_urls += pages(down, 3)
    # What w0 pops first, and holds: the origins it cannot decide.
    seed(client, [(url, 1) for url in held_urls])
    seed(client, [(url, 0) for url, group in allowed.items() if group in ("healthy", "delayed")])
    seed(client, [(o.url("/private/x"), 0) for o in healthy])
    # Long enough for the late origins to be decided after w0 dies, even on a
    # slow machine; the origin that never answers is dropped after it.
    settings = {"ROBOTSTXT_RFC_UNREACHABLE_WAIT": 12}

    w0 = Worker("w0", tmp_path, redis_server.url, **settings)
    workers.append(w0)

    def all_held() -> bool:
        # Every request of those origins held, and no robots.txt fetch under
        # way but the one that hangs: the healthy origins are fetched once.
        locks = keys(client, "lock:")
        held = sum(client.zcard(held_key(o)) for o in held_first)
        return held == len(held_urls) and locks == [lock_key(stalled)]

    def state() -> str:
        held = {o.base: client.zcard(held_key(o)) for o in held_first}
        return f"held {held}, locks {keys(client, 'lock:')}, w0 done: {w0.done}"

    yield until(lambda: w0.frozen_when(all_held), 30, state)
    # The origins w0 leaves requests held for.
    orphans = sorted(
        name
        for name in (o.decode() for o in client.zrange(INDEX, 0, -1))
        if client.zcard(f"{KEY_PREFIX}held:{QUEUE}:{name}")
    )
    killed_at = time.monotonic()
    w0.kill()
    w1 = Worker("w1", tmp_path, redis_server.url, **settings)
    w2 = Worker("w2", tmp_path, redis_server.url, **settings)
    workers.extend((w1, w2))
    yield until(lambda: w1.done and w2.done, 90, lambda: f"w1 {w1.done}, w2 {w2.done}")
    results = [w1.result(), w2.result()]

    for result in results:
        assert result["finish_reason"] == "finished", result
    page_hits = [h for h in server.hits if h.path != "/robots.txt"]
    # No page twice (the shared dupefilter, and held requests moved once),
    # and no disallowed page.
    twice = [k for k, n in Counter((h.port, h.path) for h in page_hits).items() if n > 1]
    assert twice == []
    assert [h for h in page_hits if h.path.startswith("/private")] == []
    # One robots.txt fetch per healthy origin, across the fleet.
    for o in (*healthy, *delayed):
        assert len(server.hits_for(o, "/robots.txt")) == 1, o
    # The stalled origin: fetched again once, by the worker that took its
    # lease over after w0 died.
    stalled_robots = server.hits_for(stalled, "/robots.txt")
    assert len(stalled_robots) == 2
    assert stalled_robots[1].time - killed_at <= LEASE + 8
    assert worker_of(stalled_robots[1]) in ("w1", "w2")
    # Every held request of w0 crawled: 0 lost. The origin that never
    # answers has each of its requests dropped once, by one worker.
    hit_urls = {f"http://127.0.0.1:{h.port}{h.path}" for h in page_hits}
    assert sorted(set(held_urls) - set(pages(down, 3)) - hit_urls) == []
    assert server.hits_for(down) == [h for h in server.hits_for(down, "/robots.txt")]
    events = [e for w in (w0, w1, w2) for e in w.recorded()]
    dropped = sorted(e["url"] for e in events if e["ev"] == "fail" and e["url"] in pages(down, 3))
    assert dropped == pages(down, 3)
    assert all(
        e["why"].startswith("robots.txt unreachable: HTTP 503")
        for e in events
        if e["url"] in dropped
    )
    assert total(results, "robotstxt/unreachable/dropped") == 3
    # What w0's downloader had when it died is all that may be missing.
    missing = sorted(set(allowed) - hit_urls)
    assert len(missing) <= 4, missing
    assert {allowed[url] for url in missing} <= {"healthy", "delayed"}
    # Crawl-delay: 2 s between requests to an origin, whichever worker.
    for o in delayed:
        times = [h.time for h in server.hits_for(o)]
        gaps = [round(b - a, 3) for a, b in itertools.pairwise(times)]
        assert min(gaps) >= 1.9, gaps
    assert len({worker_of(h) for o in delayed for h in server.hits_for(o)}) >= 2
    # The orphans w0 left were adopted: at least every origin whose requests
    # only w0 held. An orphan of a healthy origin (decided by w0 just before
    # it froze, its release not yet run) may instead be released by a worker
    # that holds a request of its own for that origin and so watches it:
    # nothing is lost either way (asserted above).
    only_w0 = [o.base for o in held_first if o.base in orphans]
    assert len(only_w0) == len(held_first)
    assert total(results, "robotstxt/fleet/adopted") >= len(only_w0)
    assert total(results, "robotstxt/waiting/released") >= len(held_urls) - 3
    # Redis afterwards: nothing held, every key expires, no lease or turn
    # outlives the crawl.
    assert keys(client, "held") == []
    assert all(client.pttl(k) > 0 for k in keys(client, "")), {
        k: client.pttl(k) for k in keys(client, "")
    }
    yield task.deferLater(_reactor(), 3, lambda: None)
    assert keys(client, "lock:") == keys(client, "next:") == []


@pytest.mark.e2e
@alone
@pytest_twisted.inlineCallbacks
def test_a_graceful_stop_hands_held_requests_to_the_fleet(
    server: MockServer, redis_server: RedisServer, client: Any, workers: list[Worker], tmp_path
):
    unreachable = {"now": True}

    def robots(hit: Hit, count: int) -> Reply:
        return Reply(503) if unreachable["now"] else Reply(body=ROBOTS)

    waiting = [server.add_origin({"/robots.txt": robots}) for _ in range(2)]
    healthy = [server.add_origin({"/robots.txt": Reply(body=ROBOTS)}) for _ in range(2)]
    held_urls = [url for o in waiting for url in pages(o, 5)]
    healthy_urls = [url for o in healthy for url in pages(o, 5)]
    seed(client, [(url, 1) for url in held_urls] + [(url, 0) for url in healthy_urls])

    w0 = Worker("w0", tmp_path, redis_server.url, CLOSESPIDER_TIMEOUT=3)
    workers.append(w0)
    yield until(lambda: w0.done, 60, lambda: "w0 still runs")
    first = w0.result()
    assert first["finish_reason"] == "closespider_timeout"
    assert first["robotstxt/waiting/handed_over"] == len(held_urls)
    assert "robotstxt/waiting/abandoned" not in first
    assert "JOBDIR" not in w0.log.read_text()
    # Still held, and orphans at once: nobody has to wait a lease.
    assert sum(client.zcard(held_key(o)) for o in waiting) == len(held_urls)
    assert client.zrange(INDEX, 0, -1, withscores=True) == [
        (o.base.encode(), 0.0) for o in sorted(waiting, key=lambda o: o.base)
    ]
    assert [h for o in waiting for h in server.hits_for(o) if h.path != "/robots.txt"] == []

    unreachable["now"] = False
    w1 = Worker("w1", tmp_path, redis_server.url)
    workers.append(w1)
    yield until(lambda: w1.done, 60, lambda: "w1 still runs")
    second = w1.result()
    assert second["finish_reason"] == "finished"
    assert second["robotstxt/fleet/adopted"] == len(waiting)
    assert second["robotstxt/waiting/released"] == len(held_urls)
    page_hits = Counter(
        f"http://127.0.0.1:{h.port}{h.path}" for h in server.hits if h.path != "/robots.txt"
    )
    assert page_hits == Counter(held_urls + healthy_urls)
    assert {
        worker_of(h) for o in waiting for h in server.hits_for(o) if h.path != "/robots.txt"
    } == {"w1"}
    assert keys(client, "held") == []


# -- one crawl process, with scrapy-redis's scheduler ----------------------------------


def in_process_crawl(activation: dict[str, Any], urls: list[str], **settings: Any) -> Any:
    crawler = make_crawler(activation, settings)
    d = crawler.crawl(stages=[Stage(urls)])
    d.addCallback(lambda _: crawler)
    return d


@pytest.mark.e2e
@alone
@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_requests_wait_in_redis_and_come_back_through_the_queue(
    server: MockServer, redis_server: RedisServer, client: Any, activation: dict[str, Any], caplog
):
    slow = server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=0.5)})
    fast = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    urls = [slow.url("/a"), slow.url("/b"), slow.url("/private/x"), fast.url("/c")]
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield in_process_crawl(activation, urls, **scrapy_redis(redis_server.url))
    spider, stats = crawler.spider, crawler.stats
    assert sorted(spider.seen) == sorted([slow.url("/a"), slow.url("/b"), fast.url("/c")])
    assert spider.failed_with("Forbidden by robots.txt") == [slow.url("/private/x")]
    assert server.paths(slow) == ["/robots.txt", "/a", "/b"]
    # Every request waited in Redis, and went back to the queue once.
    assert stats.get_value("robotstxt/waiting/held") == 4
    assert stats.get_value("robotstxt/waiting/released") == 4
    assert stats.get_value("robotstxt/waiting") == 4
    assert (
        "Requests that wait for robots.txt are held in Redis for the scrapy-redis queue "
        "recorder:requests" in caplog.messages
    )
    # The private keys are gone by the time the response reaches the spider.
    assert [k for meta in spider.metas for k in meta if k.startswith("_robotstxt_rfc")] == []
    assert keys(client, "held") == []


@pytest.mark.e2e
@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_a_release_slower_than_the_idle_check_loses_no_request(
    server: MockServer,
    redis_server: RedisServer,
    client: Any,
    activation: dict[str, Any],
    monkeypatch: pytest.MonkeyPatch,
):
    """What a loaded machine does to the store's thread: the release of an
    origin's held requests takes a second. Every request still comes back
    through the queue and is crawled or forbidden once.

    The sweep is kept from seeing the held requests, as when it last ran
    before they were held: otherwise it keeps the spider open until its
    next run, long after the release, and hides the loss."""
    from scrapy_robots_rfc.stores._redis_fleet import RedisFleet

    release = RedisFleet.release

    def slow_release(self: RedisFleet, *args: Any, **kwargs: Any) -> Any:
        time.sleep(1.0)  # in the store's thread, never the reactor's
        return release(self, *args, **kwargs)

    monkeypatch.setattr(RedisFleet, "release", slow_release)
    monkeypatch.setattr(RedisFleet, "held_origins", lambda self: 0)
    slow = server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=0.5)})
    urls = [slow.url("/a"), slow.url("/b"), slow.url("/private/x")]
    crawler = yield in_process_crawl(activation, urls, **scrapy_redis(redis_server.url))
    assert sorted(crawler.spider.seen) == [slow.url("/a"), slow.url("/b")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [slow.url("/private/x")]
    assert crawler.stats.get_value("robotstxt/waiting/released") == 3
    assert keys(client, "held") == []


class PopCountingQueue(LifoQueue):  # type: ignore[misc]
    """LifoQueue's push, so its layout; counts what it pops."""

    popped = 0

    def pop(self, timeout: int = 0) -> Request | None:
        request: Request | None = super().pop(timeout)
        if request is not None:
            PopCountingQueue.popped += 1
        return request


class TaggedSerializer:
    """A ``SCHEDULER_SERIALIZER`` whose data no other serializer reads."""

    TAG = b"tagged:"

    @staticmethod
    def dumps(obj: Any) -> bytes:
        return TaggedSerializer.TAG + pickle.dumps(obj)

    @staticmethod
    def loads(data: bytes) -> Any:
        assert data.startswith(TaggedSerializer.TAG), data[:20]
        return pickle.loads(data[len(TaggedSerializer.TAG) :])


@pytest.mark.e2e
@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_held_requests_go_to_the_queue_the_scheduler_loaded(
    server: MockServer, redis_server: RedisServer, client: Any, activation: dict[str, Any], caplog
):
    """The fleet takes the queue of scrapy-redis's scheduler as it loaded
    it: its class (one that keeps LifoQueue's push), its key
    (SCHEDULER_QUEUE_KEY) and its serializer; held requests come back
    through that queue's own pop and serializer."""
    PopCountingQueue.popped = 0
    slow = server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=0.5)})
    urls = [slow.url("/a"), slow.url("/b"), slow.url("/private/x")]
    settings = scrapy_redis(
        redis_server.url,
        SCHEDULER_QUEUE_CLASS="tests.fleet.test_fleet_e2e.PopCountingQueue",
        SCHEDULER_QUEUE_KEY="%(spider)s:own-key",
        SCHEDULER_SERIALIZER=TaggedSerializer,
    )
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield in_process_crawl(activation, urls, **settings)
    spider, stats = crawler.spider, crawler.stats
    assert sorted(spider.seen) == [slow.url("/a"), slow.url("/b")]
    assert spider.failed_with("Forbidden by robots.txt") == [slow.url("/private/x")]
    assert stats.get_value("robotstxt/waiting/held") == 3
    assert stats.get_value("robotstxt/waiting/released") == 3
    assert PopCountingQueue.popped == 6  # each request twice: before and after its hold
    assert (
        "Requests that wait for robots.txt are held in Redis for the scrapy-redis queue "
        "recorder:own-key" in caplog.messages
    )
    assert stats.get_value("log_count/ERROR") is None
    assert keys(client, "held") == []


@pytest.mark.e2e
@scrapy_redis_warnings
@pytest.mark.parametrize(
    ("settings", "warning"),
    [
        pytest.param(lambda url: {"ROBOTSTXT_RFC_HOLD": "memory"}, None, id="hold-memory"),
        pytest.param(
            lambda url: {"REDIS_URL": url.replace("/0", "/1")},
            "Requests that wait for robots.txt stay in this worker's memory: "
            "ROBOTSTXT_RFC_STORE and the scrapy-redis queue (REDIS_URL) are not the same "
            "Redis server and database, so held requests could not go back to it",
            id="another-db",
        ),
        pytest.param(
            lambda url: {"ROBOTSTXT_RFC_STORE": "memory"},
            "Requests that wait for robots.txt stay in this worker's memory, and robots.txt "
            "is fetched by each worker: set ROBOTSTXT_RFC_STORE to the Redis server of the "
            "scrapy-redis queue to share both with the other workers",
            id="memory-store",
        ),
        pytest.param(
            lambda url: {"SCHEDULER_QUEUE_CLASS": "tests.fleet.test_fleet_e2e.OwnQueue"},
            "Requests that wait for robots.txt stay in this worker's memory: "
            "SCHEDULER_QUEUE_CLASS 'tests.fleet.test_fleet_e2e.OwnQueue' writes requests its own "
            "way, and only scrapy-redis's PriorityQueue, FifoQueue and LifoQueue are known",
            id="own-queue",
        ),
        pytest.param(
            lambda url: {"SCHEDULER_QUEUE_CLASS": "tests.fleet.test_fleet_e2e.OwnListQueue"},
            "Requests that wait for robots.txt stay in this worker's memory: "
            "SCHEDULER_QUEUE_CLASS 'tests.fleet.test_fleet_e2e.OwnListQueue' writes requests its "
            "own way, and only scrapy-redis's PriorityQueue, FifoQueue and LifoQueue are known",
            id="own-queue-class",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_requests_wait_in_memory_when_redis_cannot_hold_them(
    server: MockServer, redis_server: RedisServer, client: Any, caplog, settings, warning
):
    slow = server.add_origin({"/robots.txt": Reply(body=ROBOTS, delay=0.3)})
    urls = [slow.url("/a"), slow.url("/private/x")]
    activation = {"ADDONS": {"scrapy_robots_rfc.Addon": 100}}
    with caplog.at_level(logging.WARNING, logger="scrapy_robots_rfc"):
        crawler = yield in_process_crawl(
            activation, urls, **scrapy_redis(redis_server.url, **settings(redis_server.url))
        )
    assert crawler.spider.seen == [slow.url("/a")]
    assert server.paths(slow) == ["/robots.txt", "/a"]
    stats = crawler.stats
    assert stats.get_value("robotstxt/waiting") == 2
    assert stats.get_value("robotstxt/waiting/held") is None
    warnings = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings == ([] if warning is None else [warning])
    assert keys(client, "held") == []


class OwnQueue(PriorityQueue):  # type: ignore[misc]
    """A queue class that writes requests its own way."""

    def push(self, request: Request) -> None:
        super().push(request)


class OwnListQueue(Base):  # type: ignore[misc]
    """A queue class of one's own, on scrapy-redis's base class: a list
    pushed on the right."""

    def __len__(self) -> int:
        return int(self.server.llen(self.key))

    def push(self, request: Request) -> None:
        self.server.rpush(self.key, self._encode_request(request))

    def pop(self, timeout: int = 0) -> Request | None:
        data = self.server.lpop(self.key)
        return None if data is None else self._decode_request(data)


@pytest.mark.e2e
@alone
@scrapy_redis_warnings
@pytest_twisted.inlineCallbacks
def test_flush_on_start_drops_what_an_earlier_run_held(
    server: MockServer, redis_server: RedisServer, client: Any
):
    left = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    fresh = server.add_origin({"/robots.txt": Reply(body=ROBOTS)})
    # What a run that stopped left: one request held for ``left``, handed over.
    client.zadd(f"{KEY_PREFIX}held:recorder:requests:{left.base}", {b"0|not a request": 1})
    client.zadd(f"{KEY_PREFIX}heldidx:recorder:requests", {left.base: 0})
    activation = {"ADDONS": {"scrapy_robots_rfc.Addon": 100}}
    settings = scrapy_redis(redis_server.url, SCHEDULER_FLUSH_ON_START=True)
    crawler = yield in_process_crawl(activation, [fresh.url("/a")], **settings)
    assert crawler.spider.seen == [fresh.url("/a")]
    assert server.hits_for(left) == []
    assert crawler.stats.get_value("robotstxt/fleet/adopted") is None
    assert keys(client, "held") == []


#: A crawl in a process of its own, with the settings of its first
#: argument; it prints the scrapy-redis modules it imported, then whether
#: it imported the package's fleet.
_CRAWL_AND_LIST_MODULES = """
import json, sys
from scrapy import Spider
from scrapy.crawler import CrawlerProcess

class Empty(Spider):
    name = "empty"
    start_urls = []

process = CrawlerProcess(json.loads(sys.argv[1]))
process.crawl(Empty)
process.start()
print(sorted(m for m in sys.modules if m.partition(".")[0] == "scrapy_redis"))
print("scrapy_robots_rfc.fleet" in sys.modules)
"""


@pytest.mark.e2e
@pytest.mark.parametrize("scrapy_redis_scheduler", [False, True])
def test_scrapy_redis_is_imported_only_by_a_crawl_on_its_scheduler(
    redis_server: RedisServer, activation: dict[str, Any], scrapy_redis_scheduler: bool
) -> None:
    """scrapy-redis stays optional: a crawl with a Redis store and Scrapy's
    scheduler never imports it, nor the package's fleet, which the
    middleware loads by name on scrapy-redis only."""
    settings = {
        **activation,
        "ROBOTSTXT_OBEY": True,
        "ROBOTSTXT_RFC_STORE": redis_server.url,
        "TELNETCONSOLE_ENABLED": False,
        "LOG_LEVEL": "ERROR",
    }
    if scrapy_redis_scheduler:
        settings.update(scrapy_redis(redis_server.url))
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    done = subprocess.run(
        [sys.executable, "-c", _CRAWL_AND_LIST_MODULES, json.dumps(settings)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    imported, fleet = done.stdout.strip().splitlines()[-2:]
    if scrapy_redis_scheduler:
        assert "'scrapy_redis.scheduler'" in imported, done.stdout
    else:
        assert imported == "[]", done.stderr
    assert fleet == str(scrapy_redis_scheduler), done.stdout


def _reactor() -> Any:
    from twisted.internet import reactor

    return reactor


# -- TDM reservations in a fleet (ROBOTSTXT_RFC_TDM, issue 44) ---------------------------

#: Every origin's tdmrep.json: /p1 reserved.
TDM_FILE = b'[{"location": "/p1$", "tdm-reservation": 1}]'


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_fleet_fetches_each_tdmrep_json_once_per_origin(
    server: MockServer, redis_server: RedisServer, client: Any, workers: list[Worker], tmp_path
):
    """Three workers crawl four origins whose robots.txt and tdmrep.json
    answer slowly, so that the workers may meet on each (which worker
    fetches, and whether another waits for its fetch, is the scheduler's
    timing): the file is fetched once per origin across the fleet (the
    store's lease, as robots.txt's), the URL it reserves is never
    downloaded, and every other page is crawled once."""
    origins = [
        server.add_origin(
            {
                "/robots.txt": Reply(body=ROBOTS, delay=0.3),
                "/.well-known/tdmrep.json": Reply(body=TDM_FILE, delay=1.5),
            }
        )
        for _ in range(4)
    ]
    urls = [url for o in origins for url in pages(o, 6)]
    seed(client, [(url, 0) for url in urls])
    for name in ("w0", "w1", "w2"):
        workers.append(Worker(name, tmp_path, redis_server.url, ROBOTSTXT_RFC_TDM=True))
    yield until(lambda: all(w.done for w in workers), 90, lambda: "the workers still run")
    results = [w.result() for w in workers]
    for o in origins:
        paths = server.paths(o)
        assert paths.count("/.well-known/tdmrep.json") == 1, (o, paths)
        assert paths.count("/robots.txt") == 1, (o, paths)
        assert "/p1" not in paths
    page_hits = Counter(
        f"http://127.0.0.1:{h.port}{h.path}"
        for h in server.hits
        if h.path not in ("/robots.txt", "/.well-known/tdmrep.json")
    )
    assert page_hits == Counter(u for u in urls if not u.endswith("/p1"))
    assert total(results, "robotstxt/tdm/fetches") == len(origins)
    assert total(results, "robotstxt/tdm/file") == len(origins)
    assert total(results, "robotstxt/tdm/reserved") == len(origins)
    failed = [e for w in workers for e in w.recorded() if e["ev"] == "fail"]
    assert sorted(e["url"] for e in failed) == sorted(o.url("/p1") for o in origins)
    assert all(e["why"].startswith("TDM rights reserved: reserved") for e in failed)
    assert keys(client, "held") == []
