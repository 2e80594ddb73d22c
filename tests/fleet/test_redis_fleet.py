"""Requests held in Redis for a fleet of workers, and shared crawl-delay
turns (issue 13), against a real ``redis-server``; what RELEASE moves is
popped with scrapy-redis's own queue classes, as a worker's scheduler pops
it."""

from __future__ import annotations

import itertools
import secrets
import threading
import time
from collections.abc import Callable, Iterator

import pytest
import scrapy
from scrapy.core.engine import ExecutionEngine
from scrapy.utils.request import request_from_dict
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc.fleet import queue_layout, scheduler_queue
from scrapy_robots_rfc.stores import _redis_lua as redis_lua
from scrapy_robots_rfc.stores._base import Record, StoreError
from scrapy_robots_rfc.stores._redis import KEY_PREFIX, RedisStore
from scrapy_robots_rfc.stores._redis_fleet import QUEUE_LAYOUTS, QueueTarget, RedisFleet
from tests.redis_server import RedisServer, redis_server_fixture

redis = pytest.importorskip("redis")
scrapy_redis_queue = pytest.importorskip("scrapy_redis.queue")
picklecompat = pytest.importorskip("scrapy_redis.picklecompat")
scrapy_redis_scheduler = pytest.importorskip("scrapy_redis.scheduler")

ORIGIN = "https://example.com:443"
OTHER = "http://other.example:80"
#: scrapy-redis's default SCHEDULER_QUEUE_KEY, for the spider "fleet".
QUEUE = "fleet:requests"
PRIORITY = QueueTarget(QUEUE, "priority")
LIST = QueueTarget(QUEUE, "list")
#: A lease short enough to lapse in a test, and a wait long enough for it.
SHORT, LAPSE = 0.2, 0.35

redis_server = redis_server_fixture(scope="module")
own_redis_server = redis_server_fixture(name="own_redis_server")


class FleetSpider(scrapy.Spider):
    name = "fleet"

    def parse(self, response: object) -> None:
        pass

    def failed(self, failure: object) -> None:
        pass


SPIDER = FleetSpider()


@pytest.fixture
def raw(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url)
    client.flushdb()
    yield client
    client.close()


@pytest.fixture
def fleets(redis_server: RedisServer, raw: redis.Redis) -> Iterator[Callable[..., RedisFleet]]:
    """Makes the fleet of one worker: each has a store of its own."""
    stores: list[RedisStore] = []

    def make(lease: float = 10.0, ttl: float = 3600.0) -> RedisFleet:
        stores.append(RedisStore(redis_server.url, lease=lease, ttl=ttl))
        return stores[-1].fleet(QUEUE)

    yield make
    for store in stores:
        store.close()


def encode(url: str, priority: int = 0) -> bytes:
    """A request as scrapy-redis's queue encodes it, with the random part
    that keeps identical requests apart."""
    request = scrapy.Request(
        url,
        callback=SPIDER.parse,
        errback=SPIDER.failed,
        priority=priority,
        dont_filter=True,
        meta={"_robotstxt_rfc_hold": secrets.token_hex(8)},
    )
    data: bytes = picklecompat.dumps(request.to_dict(spider=SPIDER))
    return data


def hold(fleet: RedisFleet, url: str, priority: int = 0, since: float = 1000.0) -> int:
    return fleet.hold(ORIGIN, encode(url, priority), priority=priority, since=since)


def server_ms(raw: redis.Redis) -> int:
    seconds, micros = raw.time()
    return int(seconds) * 1000 + int(micros) // 1000


def run_together(*targets: Callable[[], object]) -> None:
    """Each target in a thread of its own, all starting at once."""
    barrier = threading.Barrier(len(targets))
    errors: list[BaseException] = []

    def run(target: Callable[[], object]) -> None:
        barrier.wait()
        try:
            target()
        except BaseException as exc:  # reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(target,)) for target in targets]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []


# HOLD


def test_hold_counts_and_watches_the_origin(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    fleet = fleets(lease=10.0, ttl=3600.0)
    first = encode(ORIGIN + "/a")
    assert fleet.hold(ORIGIN, first, priority=0, since=1000.0) == 1
    assert hold(fleet, ORIGIN + "/b") == 2
    assert fleet.hold(ORIGIN, first, priority=0, since=1000.0) == 2  # the same bytes: one
    held = KEY_PREFIX + "held:fleet:requests:" + ORIGIN
    index = KEY_PREFIX + "heldidx:fleet:requests"
    assert raw.zscore(held, b"0|" + first) == 1_000_000  # since, in ms
    deadline = raw.zscore(index, ORIGIN)
    assert deadline is not None
    assert abs(deadline - (server_ms(raw) + 10_000)) < 1000  # server clock + the lease
    for key in (held, index):
        assert 3_590_000 < raw.pttl(key) <= 3_600_000
    assert fleet.held_origins() == 1


# RELEASE


def pop_all(queue: object) -> list[scrapy.Request]:
    popped = []
    while (request := queue.pop()) is not None:  # type: ignore[attr-defined]
        popped.append(request)
    return popped


def test_concurrent_releases_queue_each_request_exactly_once(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    """Every worker that learns the origin's robots.txt releases it at the
    same moment; between them each held request reaches the queue once,
    as scrapy-redis's PriorityQueue.push would have written it."""
    worker = fleets()
    urls = {f"{ORIGIN}/{i}": i % 5 - 2 for i in range(1100)}  # more than two batches
    for url, priority in urls.items():
        hold(worker, url, priority)
    releasers = [fleets() for _ in range(4)]
    results: list[tuple[int, int]] = []
    lock = threading.Lock()

    def release() -> None:
        fleet = releasers.pop()
        result = fleet.release(ORIGIN, PRIORITY)
        with lock:
            results.append(result)

    run_together(*[release] * 4)
    assert sum(moved for moved, _ in results) == 1100
    assert [left for _, left in results] == [0, 0, 0, 0]
    assert raw.exists(KEY_PREFIX + "held:fleet:requests:" + ORIGIN) == 0
    assert worker.held_origins() == 0  # no longer watched
    queue = scrapy_redis_queue.PriorityQueue(raw, SPIDER, "%(spider)s:requests")
    assert len(queue) == 1100
    popped = pop_all(queue)
    assert sorted(request.url for request in popped) == sorted(urls)
    assert [request.priority for request in popped] == sorted(urls.values(), reverse=True)
    assert all(r.callback == SPIDER.parse and r.errback == SPIDER.failed for r in popped)
    assert all(r.dont_filter and r.priority == urls[r.url] for r in popped)


def test_holds_racing_releases_lose_nothing(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    """Requests keep arriving while other workers release the origin:
    each one ends in the queue once, none stays held."""
    holder, releaser = fleets(), fleets()
    done = threading.Event()
    moved: list[int] = []

    def hold_all() -> None:
        for i in range(300):
            hold(holder, f"{ORIGIN}/{i}")
        done.set()

    def release_until_done() -> None:
        while not done.is_set():
            moved.append(releaser.release(ORIGIN, LIST)[0])

    run_together(hold_all, release_until_done)
    moved.append(releaser.release(ORIGIN, LIST)[0])
    assert sum(moved) == 300
    popped = pop_all(scrapy_redis_queue.FifoQueue(raw, SPIDER, "%(spider)s:requests"))
    assert sorted(r.url for r in popped) == sorted(f"{ORIGIN}/{i}" for i in range(300))
    assert holder.held_origins() == 0


@pytest.mark.parametrize(
    ("queue_class", "order"),
    [("FifoQueue", ["/1", "/2", "/3"]), ("LifoQueue", ["/3", "/2", "/1"])],
)
def test_release_into_a_list_queue_in_waiting_order(
    fleets: Callable[..., RedisFleet], raw: redis.Redis, queue_class: str, order: list[str]
) -> None:
    """Oldest first, as if each request had been pushed when it started
    waiting: FifoQueue pops the oldest first, LifoQueue the newest."""
    fleet = fleets()
    for path, since in [("/3", 3000.0), ("/1", 1000.0), ("/2", 2000.0)]:
        hold(fleet, ORIGIN + path, since=since)
    assert fleet.release(ORIGIN, LIST) == (3, 0)
    queue = getattr(scrapy_redis_queue, queue_class)(raw, SPIDER, "%(spider)s:requests")
    assert [r.url for r in pop_all(queue)] == [ORIGIN + path for path in order]


def test_the_priority_prefix_is_split_at_its_first_bar(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    fleet = fleets()
    fleet.hold(ORIGIN, b"a|b|c", priority=-3, since=1.0)
    fleet.hold(ORIGIN, b"|", priority=12, since=2.0)
    assert fleet.release(ORIGIN, PRIORITY) == (2, 0)
    assert raw.zrange(QUEUE, 0, -1, withscores=True) == [(b"|", -12.0), (b"a|b|c", 3.0)]


def test_release_before_moves_only_requests_that_waited_long_enough(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    """RFC 9309 §2.3.1.4: requests that waited too long for an unreachable
    robots.txt go back to the queue (for the worker that pops them to
    drop); the others stay held and watched."""
    fleet = fleets()
    for path, since in [("/old", 1000.0), ("/edge", 5000.0), ("/young", 9000.5)]:
        hold(fleet, ORIGIN + path, since=since)
    assert fleet.release(ORIGIN, LIST, before=5000.0) == (2, 1)
    assert fleet.held_origins() == 1
    popped = pop_all(scrapy_redis_queue.FifoQueue(raw, SPIDER, "%(spider)s:requests"))
    assert [r.url for r in popped] == [ORIGIN + "/old", ORIGIN + "/edge"]
    peeked = fleet.peek(ORIGIN)
    assert peeked is not None
    assert peeked[1] == 9000.5
    assert fleet.release(ORIGIN, LIST, before=5000.0) == (0, 1)
    assert fleet.release(ORIGIN, LIST) == (1, 0)
    assert fleet.held_origins() == 0


# The contract with scrapy-redis's queue classes


def queue_contents(raw: redis.Redis, key: str) -> tuple[str, object]:
    """What the queue's key holds, in order, whatever its Redis type."""
    kind = raw.type(key).decode()
    if kind == "zset":
        return kind, raw.zrange(key, 0, -1, withscores=True)
    if kind == "list":
        return kind, raw.lrange(key, 0, -1)
    return kind, raw.dump(key)


@pytest.mark.parametrize("queue_class", ["PriorityQueue", "FifoQueue", "LifoQueue"])
def test_release_writes_what_scrapy_redis_push_writes(
    fleets: Callable[..., RedisFleet], raw: redis.Redis, queue_class: str
) -> None:
    """RELEASE writes the queue's layout itself, in the step that takes each
    request out of its held set (exactly once), from QUEUE_LAYOUTS. For each
    of scrapy-redis's queue classes, the requests it releases oldest first
    are what the class's own ``push`` writes when it pushes them in that
    order, and its own ``pop`` gives them back in the same order: the day
    scrapy-redis lays a queue out another way, this fails."""
    layout = QUEUE_LAYOUTS[f"scrapy_redis.queue.{queue_class}"]
    queue = getattr(scrapy_redis_queue, queue_class)(raw, SPIDER, "%(spider)s:requests")
    priorities = [0, 3, -2, 3, 0, 250, -7, 1, 0, -2]
    requests = [
        scrapy.Request(
            f"{ORIGIN}/{i}",
            callback=SPIDER.parse,
            errback=SPIDER.failed,
            priority=priority,
            meta={"_robotstxt_rfc_hold": secrets.token_hex(8)},
        )
        for i, priority in enumerate(priorities)
    ]
    fleet = fleets()
    for since, request in reversed(list(enumerate(requests, start=1))):
        blob = queue.serializer.dumps(request.to_dict(spider=SPIDER))
        fleet.hold(ORIGIN, blob, priority=request.priority, since=float(since))
    assert fleet.release(ORIGIN, QueueTarget(queue.key, layout)) == (len(requests), 0)
    released = queue_contents(raw, queue.key)
    ours = [request.to_dict(spider=SPIDER) for request in pop_all(queue)]
    assert raw.exists(queue.key) == 0
    for request in requests:
        queue.push(request)
    assert queue_contents(raw, queue.key) == released
    theirs = [request.to_dict(spider=SPIDER) for request in pop_all(queue)]
    assert len(ours) == len(requests)
    assert ours == theirs


class PopsItsOwnWay(scrapy_redis_queue.FifoQueue):  # type: ignore[misc]
    """Keeps FifoQueue's push: its layout is FifoQueue's."""

    def pop(self, timeout: int = 0) -> object:
        return super().pop(timeout)


class PushesItsOwnWay(scrapy_redis_queue.PriorityQueue):  # type: ignore[misc]
    def push(self, request: scrapy.Request) -> None:
        super().push(request)


class NotScrapyRedis:
    def push(self, request: scrapy.Request) -> None:
        pass


@pytest.mark.parametrize(
    ("queue_class", "layout"),
    [
        (scrapy_redis_queue.PriorityQueue, "priority"),
        (scrapy_redis_queue.FifoQueue, "list"),
        (scrapy_redis_queue.LifoQueue, "list"),
        (scrapy_redis_queue.SpiderStack, "list"),
        (PopsItsOwnWay, "list"),
        (PushesItsOwnWay, None),
        (scrapy_redis_queue.Base, None),
        (NotScrapyRedis, None),
    ],
)
def test_the_layout_of_a_queue_class(queue_class: type, layout: str | None) -> None:
    """A class that writes requests its own way has none: its requests wait
    in memory (tests/fleet/test_fleet_e2e.py has the WARNING)."""
    assert queue_layout(queue_class) == layout


@pytest.mark.parametrize(
    "settings",
    [
        {},
        {
            "SCHEDULER_QUEUE_CLASS": "scrapy_redis.queue.LifoQueue",
            "SCHEDULER_QUEUE_KEY": "%(spider)s:own",
            "SCHEDULER_SERIALIZER": "json",
        },
    ],
)
def test_without_the_engines_scheduler_the_queue_is_built_as_scrapy_redis_builds_it(
    redis_server: RedisServer, fleets: Callable[..., RedisFleet], settings: dict[str, str]
) -> None:
    """A crawl finds the queue object of its scrapy-redis scheduler through
    the engine (tests/fleet/test_fleet_e2e.py); an engine that shows no scheduler
    gets the queue scrapy-redis's own Scheduler would open, from the same
    settings and scrapy-redis's defaults, with a client of its own."""
    crawler = get_crawler(
        FleetSpider,
        {
            "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
            "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
            "REDIS_URL": redis_server.url,
            **settings,
        },
    )
    spider = FleetSpider.from_crawler(crawler)
    crawler.engine = ExecutionEngine(crawler, lambda _: None)  # not open: no scheduler
    scheduler = scrapy_redis_scheduler.Scheduler.from_settings(crawler.settings)
    scheduler.open(spider)
    found = scheduler_queue(crawler, spider)
    assert found is not None
    queue, own_client = found
    try:
        assert own_client
        assert type(queue) is type(scheduler.queue)
        assert queue.key == scheduler.queue.key
        assert queue.serializer is scheduler.queue.serializer
        assert queue.server is not scheduler.server
        assert fleets().probe(queue.server)
    finally:
        queue.server.close()
        scheduler.server.close()
    assert scheduler_queue(get_crawler(FleetSpider), spider) is None  # Scrapy's scheduler


def test_release_refuses_an_unknown_queue_kind(raw: redis.Redis) -> None:
    held, index = "held", "index"
    raw.zadd(held, {b"0|x": 1})
    release = raw.register_script(redis_lua.RELEASE)
    with pytest.raises(redis.ResponseError, match="unknown queue kind: set"):
        release(keys=[held, index, "queue"], args=["o", "+inf", 10, "set"])
    assert raw.zcard(held) == 1
    assert raw.exists("queue") == 0


def test_peek_gives_the_oldest_request_and_its_since(fleets: Callable[..., RedisFleet]) -> None:
    fleet = fleets()
    assert fleet.peek(ORIGIN) is None
    oldest = encode(ORIGIN + "/oldest", priority=4)
    hold(fleet, ORIGIN + "/later", since=2000.0)
    fleet.hold(ORIGIN, oldest, priority=4, since=1500.25)
    assert fleet.peek(ORIGIN) == (oldest, 1500.25)
    decoded = request_from_dict(picklecompat.loads(oldest), spider=SPIDER)
    assert (decoded.url, decoded.priority) == (ORIGIN + "/oldest", 4)


# ADOPT, WATCH, HANDOVER


def test_a_dead_workers_origin_is_adopted_once_after_one_lease(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    dead, survivor, other = fleets(lease=SHORT), fleets(lease=SHORT), fleets(lease=SHORT)
    hold(dead, ORIGIN + "/a")
    assert survivor.adopt() == []  # still watched
    time.sleep(LAPSE)
    assert survivor.adopt() == [ORIGIN]
    assert other.adopt() == []  # the survivor watches it now
    time.sleep(LAPSE)  # ... unless it dies too
    assert other.adopt() == [ORIGIN]


def test_adopt_forgets_an_origin_whose_held_set_is_gone(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    fleet = fleets()
    index = KEY_PREFIX + "heldidx:fleet:requests"
    raw.zadd(index, {OTHER: 0})  # its held set expired
    assert fleet.adopt() == []
    assert raw.zscore(index, OTHER) is None


def test_concurrent_adopters_share_the_orphans(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    holder = fleets()
    origins = [f"https://o{i}.example:443" for i in range(40)]
    for origin in origins:
        holder.hold(origin, b"x", priority=0, since=1.0)
    assert holder.hand_over(origins) == 40
    adopters = [fleets() for _ in range(4)]
    adopted: list[str] = []
    lock = threading.Lock()

    def adopt() -> None:
        fleet = adopters.pop()
        while found := fleet.adopt(limit=3):
            with lock:
                adopted.extend(found)

    run_together(*[adopt] * 4)
    assert sorted(adopted) == sorted(origins)


def test_watching_keeps_an_origin_and_tells_when_it_was_released(
    fleets: Callable[..., RedisFleet],
) -> None:
    waiter, other = fleets(lease=SHORT), fleets(lease=SHORT)
    hold(waiter, ORIGIN + "/a")
    waiter.hold(OTHER, b"y", priority=0, since=1.0)
    for _ in range(6):  # three leases in all
        time.sleep(SHORT / 3)
        assert waiter.watch([ORIGIN, OTHER]) == []
        assert other.adopt() == []
    assert other.release(OTHER, LIST) == (1, 0)  # learned by another worker
    assert waiter.watch([ORIGIN, OTHER, "https://never.example:443"]) == [
        OTHER,
        "https://never.example:443",
    ]
    assert waiter.watch([]) == []


def test_a_stopping_worker_hands_its_origins_over_at_once(
    fleets: Callable[..., RedisFleet],
) -> None:
    """No waiting for a lease: the next adopter takes them at once."""
    stopping, next_run = fleets(lease=10.0), fleets(lease=10.0)
    for i in range(3):
        hold(stopping, f"{ORIGIN}/{i}")
    stopping.hold(OTHER, b"z", priority=0, since=1.0)
    assert next_run.adopt() == []
    assert stopping.hand_over([ORIGIN, OTHER, "https://never.example:443"]) == 4
    assert stopping.hand_over([]) == 0
    assert sorted(next_run.adopt()) == sorted([ORIGIN, OTHER])
    assert next_run.adopt() == []


def test_clear_deletes_every_held_request_of_the_namespace(
    fleets: Callable[..., RedisFleet], raw: redis.Redis, redis_server: RedisServer
) -> None:
    """As scrapy-redis's SCHEDULER_FLUSH_ON_START; another namespace (another
    spider's queue) keeps its own."""
    fleet = fleets()
    store = RedisStore(redis_server.url)
    other_namespace = store.fleet("other:requests")
    hold(fleet, ORIGIN + "/a")
    hold(fleet, ORIGIN + "/b")
    fleet.hold(OTHER, b"c", priority=0, since=1.0)
    other_namespace.hold(ORIGIN, b"kept", priority=0, since=1.0)
    assert fleet.held_origins() == 2
    assert fleet.clear() == 3
    assert fleet.held_origins() == 0
    assert sorted(raw.keys(KEY_PREFIX + "*")) == [
        (KEY_PREFIX + "held:other:requests:" + ORIGIN).encode(),
        (KEY_PREFIX + "heldidx:other:requests").encode(),
    ]
    store.close()


# RESERVE


def test_turns_of_all_workers_are_spaced(fleets: Callable[..., RedisFleet]) -> None:
    """Crawl-delay across workers: 4 workers take 3 turns each at a 0.1 s
    spacing, on the server's clock."""
    workers = [fleets() for _ in range(4)]
    grants: list[float] = []
    lock = threading.Lock()

    def take_turns() -> None:
        fleet = workers.pop()
        for _ in range(3):
            while wait := fleet.reserve(ORIGIN, 0.1):
                assert 0 < wait <= 0.1
                time.sleep(wait)
            with lock:
                grants.append(time.monotonic())

    run_together(*[take_turns] * 4)
    grants.sort()
    gaps = [b - a for a, b in itertools.pairwise(grants)]
    assert len(grants) == 12
    assert min(gaps) > 0.07, gaps  # 0.1 s less the time a reply takes to arrive
    assert grants[-1] - grants[0] > 11 * 0.1 - 0.03


def test_a_forced_turn_is_taken_at_once_and_counts(
    fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    """The robots.txt fetch is a turn too (it already happened)."""
    fleet = fleets()
    key = KEY_PREFIX + "next:" + ORIGIN
    assert fleet.reserve(ORIGIN, 2.0) == 0
    assert 1.9 < fleet.reserve(ORIGIN, 2.0) <= 2.0
    assert fleet.reserve(ORIGIN, 2.0, force=True) == 0
    assert 3.9 < fleet.reserve(ORIGIN, 2.0) <= 4.0
    assert 4900 < raw.pttl(key) <= 5000  # the next turn, and 1 s more
    assert fleet.reserve(OTHER, 2.0) == 0  # per origin


# Every key expires


def test_every_key_written_has_a_ttl(
    redis_server: RedisServer, fleets: Callable[..., RedisFleet], raw: redis.Redis
) -> None:
    store = RedisStore(redis_server.url)
    record = Record(good=True, body=b"", status=200, outcome="ok", fetched_at=1.0, expires_at=2.0)
    try:
        assert store.acquire(ORIGIN, 30)
        assert store.renew(ORIGIN, 30)
        assert store.put(ORIGIN, record)
        store.release(ORIGIN)
        assert store.acquire(OTHER, 30)  # a fetch under way
        fleet = fleets(lease=SHORT)
        hold(fleet, ORIGIN + "/a")
        fleet.hold(OTHER, b"b", priority=0, since=1.0)
        fleet.release(OTHER, LIST)
        fleet.watch([ORIGIN])
        fleet.reserve(ORIGIN, 1.0)
        fleet.reserve(ORIGIN, 1.0, force=True)
        time.sleep(LAPSE)
        assert fleet.adopt() == [ORIGIN]
        assert fleet.probe(raw)
        keys = sorted(raw.scan_iter(match=KEY_PREFIX + "*"))
        kinds = {key.decode().split(":")[2] for key in keys}
        assert kinds == {"fence", "held", "heldidx", "lock", "next", "record"}
        assert {key: raw.pttl(key) > 0 for key in keys} == dict.fromkeys(keys, True)
    finally:
        store.close()


# PROBE


def test_probe_tells_whether_scrapy_redis_uses_the_same_server_and_db(
    redis_server: RedisServer,
    fleets: Callable[..., RedisFleet],
    raw: redis.Redis,
    closed_port: int,
) -> None:
    fleet = fleets()
    base = redis_server.url.rsplit("/", 1)[0]
    same_text = redis.Redis.from_url(base + "/0", decode_responses=True)
    other_db = redis.Redis.from_url(base + "/1")
    nowhere = redis.Redis.from_url(f"redis://127.0.0.1:{closed_port}/0")
    try:
        assert fleet.probe(raw)
        assert fleet.probe(same_text)
        assert not fleet.probe(other_db)
        assert not fleet.probe(nowhere)
        assert not fleet.probe(object())
        assert raw.keys(KEY_PREFIX + "*") == []  # the probe cleans up
    finally:
        for client in (same_text, other_db, nowhere):
            client.close()


# Failures


def test_errors_name_the_store_and_scripts_come_back(own_redis_server: RedisServer) -> None:
    store = RedisStore(own_redis_server.url, lease=SHORT)
    fleet = store.fleet(QUEUE)
    calls: dict[str, Callable[[], object]] = {
        "hold": lambda: hold(fleet, ORIGIN + "/a"),
        "release": lambda: fleet.release(ORIGIN, PRIORITY),
        "peek": lambda: fleet.peek(ORIGIN),
        "adopt": fleet.adopt,
        "watch": lambda: fleet.watch([ORIGIN]),
        "hand_over": lambda: fleet.hand_over([ORIGIN]),
        "held_origins": fleet.held_origins,
        "clear": fleet.clear,
        "reserve": lambda: fleet.reserve(ORIGIN, 1.0),
        "probe": lambda: fleet.probe(object()),
    }
    try:
        with redis.Redis.from_url(own_redis_server.url) as client:
            assert hold(fleet, ORIGIN + "/a") == 1
            client.script_flush()  # NOSCRIPT: redis-py loads them again
            assert hold(fleet, ORIGIN + "/b") == 2
        own_redis_server.stop(kill=True)
        for name, call in calls.items():
            with pytest.raises(StoreError) as info:
                call()
            message = str(info.value)
            assert message.startswith(f"ROBOTSTXT_RFC_STORE ({own_redis_server.url!r}): "), name
            assert "failed: ConnectionError" in message, name
        own_redis_server.start()
        assert hold(fleet, ORIGIN + "/a") == 1
        assert fleet.release(ORIGIN, PRIORITY) == (1, 0)
    finally:
        store.close()
