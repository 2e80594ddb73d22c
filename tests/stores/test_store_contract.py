"""The contract every store keeps (``stores._base.Store``), run over each
store as Scrapy's ``StorageTestMixin`` runs the same tests over each HTTP
cache storage: an SQLite file, a real ``redis-server``
(``tests/redis_server.py``: under CI, without it these fail rather than
skip) and a store class as a user writes one (``tests/dict_store.py``).

``"memory"`` is not a store: ``ROBOTSTXT_RFC_STORE = "memory"`` opens none
(``stores._open``), and the crawl keeps its entries in its own LRU
(``policy.LruCache``, ``ROBOTSTXT_RFC_MAX_ORIGINS``), which the crawls of
``tests/crawl/test_middleware.py`` and the waiting room's tests in
``tests/crawl/test_waiting.py`` exercise; nothing of it outlives the crawl,
so there is nothing here to keep.

Each backend makes stores that share one storage: two stores are two
crawlers (or two crawls, one after the other). Stores are used through
their public methods only, opened first when they have an ``open()``.
``plant`` writes raw bytes where the store keeps an origin's record, as
another version of the package, or damage, would.

The lease tests run over the stores that many crawlers share (SQLite,
Redis). The protocol lets a store that one crawler at a time uses grant
every lease (``acquire`` and ``renew`` true, ``put`` always writing), as
the store class does; what a single crawler does with a lease
(:func:`test_a_crawler_alone_takes_renews_and_gives_back_its_lease`) every
store passes.

What is particular to one store stays in its own module: the SQLite URL,
files and corruption, two processes racing (``test_store_sqlite.py``); the
Redis keys, their expiry, the scripts, a server gone or hung, URLs and
passwords (``test_store_redis.py``).
"""

from __future__ import annotations

import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from scrapy.settings import Settings

from scrapy_robots_rfc.stores import _open
from scrapy_robots_rfc.stores._base import FORMAT_VERSION, Record, Store, StoreError
from scrapy_robots_rfc.stores._sqlite import SqliteStore
from tests.dict_store import DictStore
from tests.redis_server import RedisServer, redis_server_fixture

ORIGIN = "https://example.com:443"
OTHER = "http://example.com:80"
#: Seconds a short lease lasts in these tests, and how long to wait for it
#: to lapse.
SHORT, LAPSE = 0.2, 0.35
#: Threads that call the stores at the same time: the middleware's pool.
THREADS = 4

redis_server = redis_server_fixture(scope="module")


def record(body: bytes | None = b"User-agent: *\nDisallow: /x\n", **changes: Any) -> Record:
    fields: dict[str, Any] = {
        "good": True,
        "body": body,
        "status": 200,
        "outcome": "200",
        "fetched_at": 1_700_000_000.25,
        "expires_at": 1_700_086_400.5,
    }
    fields.update(changes)
    return Record(**fields)


def opened(store: Store) -> Store:
    """``store``, opened as the crawl opens it (``open()``, if it has one)."""
    open_now = getattr(_open, "open_now", None)
    if open_now is not None:
        open_now(store)
    else:
        open_ = getattr(store, "open", None)
        if callable(open_):
            open_()
    return store


@dataclass
class Backend:
    name: str
    #: A new store (another crawler) on the shared storage, opened.
    make: Callable[[], Store]
    #: Writes raw bytes as the stored record of an origin.
    plant: Callable[[str, bytes], None]
    #: Every StoreError of the store starts with its ``source``: the
    #: built-in stores name the setting and the file or server.
    names_its_source: bool
    #: The stores made and not closed yet: closed after the test.
    made: list[Store]

    def close(self, store: Store) -> None:
        """Close ``store`` now, once, as the crawl does at its end."""
        self.made.remove(store)
        store.close()


def sqlite_backend(request: pytest.FixtureRequest, tmp_path: Any, made: list[Store]) -> Backend:
    path = str(tmp_path / "robots.db")

    def make() -> Store:
        made.append(SqliteStore(path))
        return opened(made[-1])

    def plant(origin: str, data: bytes) -> None:
        make().put(origin, record())  # the row (and the table) exist
        with sqlite3.connect(path) as connection:
            connection.execute("UPDATE records SET data = ? WHERE origin = ?", (data, origin))
        connection.close()

    return Backend("sqlite", make, plant, names_its_source=True, made=made)


def redis_backend(request: pytest.FixtureRequest, tmp_path: Any, made: list[Store]) -> Backend:
    redis = pytest.importorskip("redis")
    from scrapy_robots_rfc.stores._redis import RedisStore
    from scrapy_robots_rfc.stores._redis_lua import KEY_PREFIX

    server: RedisServer = request.getfixturevalue("redis_server")
    with redis.Redis.from_url(server.url) as client:
        client.flushdb()

    def make() -> Store:
        made.append(RedisStore(server.url))
        return opened(made[-1])

    def plant(origin: str, data: bytes) -> None:
        with redis.Redis.from_url(server.url) as client:
            client.set(KEY_PREFIX + "record:" + origin, data)

    return Backend("redis", make, plant, names_its_source=True, made=made)


def class_backend(request: pytest.FixtureRequest, tmp_path: Any, made: list[Store]) -> Backend:
    DictStore.shelf.clear()
    DictStore.calls.clear()
    DictStore.built.clear()
    request.addfinalizer(DictStore.shelf.clear)
    request.addfinalizer(DictStore.calls.clear)
    request.addfinalizer(DictStore.built.clear)

    def make() -> Store:
        # As the crawl builds a class without from_crawler: cls(settings).
        made.append(DictStore(Settings()))
        return opened(made[-1])

    def plant(origin: str, data: bytes) -> None:
        with DictStore.lock:
            DictStore.shelf[origin] = data

    return Backend("class", make, plant, names_its_source=False, made=made)


BACKENDS = {"sqlite": sqlite_backend, "redis": redis_backend, "class": class_backend}


def _backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    made: list[Store] = []
    yield BACKENDS[request.param](request, tmp_path, made)
    for store in made[:]:
        store.close()


@pytest.fixture(params=["sqlite", "redis", "class"])
def backend(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    """Every store."""
    yield from _backend(request, tmp_path)


@pytest.fixture(params=["sqlite", "redis"])
def shared(request: pytest.FixtureRequest, tmp_path: Any) -> Iterator[Backend]:
    """The stores that many crawlers share, whose leases exclude each other."""
    yield from _backend(request, tmp_path)


# -- records -------------------------------------------------------------------

UNREACHABLE = {"unreachable_since": 1_700_000_100.0, "failures": 3, "retry_at": 1_700_000_500.0}


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(record(), id="text"),
        pytest.param(record(None, status=404, outcome="404: allow all"), id="allow-all"),
        pytest.param(record(b"", **UNREACHABLE), id="empty-body"),
        pytest.param(record(b"\x00\xff\xfe binary \r\n" * 3), id="binary"),
        pytest.param(
            record(b"\x00\xff\xfe\n\r\nDisallow: /\x00\x80\xc3(", **UNREACHABLE), id="not-utf8"
        ),
        pytest.param(record(b"#" * 512_000), id="500KiB-text"),
        pytest.param(record(bytes(range(256)) * 2000, **UNREACHABLE), id="500KiB-bytes"),
        pytest.param(
            record(None, good=False, status=503, unreachable_since=5.0, failures=3, retry_at=9.0),
            id="unreachable-no-copy",
        ),
        pytest.param(
            record(None, good=False, status=None, outcome="unreachable", **UNREACHABLE),
            id="no-status",
        ),
        pytest.param(record(url="https://other.example/robots.txt"), id="redirected"),
    ],
)
def test_round_trip(backend: Backend, value: Record) -> None:
    """Every field comes back equal, the body byte for byte; another store
    on the same storage (another crawler) reads the same."""
    store = backend.make()
    assert store.put(ORIGIN, value) is True
    got = store.get(ORIGIN)
    assert got == value
    assert got is not None
    assert got.body == value.body
    assert type(got.body) is type(value.body)  # b"" stays b"", None stays None
    assert backend.make().get(ORIGIN) == value


def test_an_unknown_origin_is_none(backend: Backend) -> None:
    store = backend.make()
    assert store.get(ORIGIN) is None
    store.put(ORIGIN, record())
    assert store.get("https://example.com:8443") is None  # another port
    assert store.get("http://nowhere.example:80") is None


def test_put_replaces(backend: Backend) -> None:
    store = backend.make()
    assert store.put(ORIGIN, record(b"first"))
    assert store.put(ORIGIN, record(None, good=False, status=None, outcome="unreachable"))
    assert store.get(ORIGIN) == record(None, good=False, status=None, outcome="unreachable")


def test_origins_are_separate(backend: Backend) -> None:
    store = backend.make()
    store.put(ORIGIN, record(b"a"))
    store.put(OTHER, record(b"b"))
    assert store.get(ORIGIN) == record(b"a")
    assert store.get(OTHER) == record(b"b")
    assert store.get("https://example.com:8443") is None


def test_stores_on_one_storage_share_records(backend: Backend) -> None:
    one, two = backend.make(), backend.make()
    one.put(ORIGIN, record(b"from one"))
    assert two.get(ORIGIN) == record(b"from one")
    two.put(ORIGIN, record(b"from two"))
    assert one.get(ORIGIN) == record(b"from two")


def test_records_outlive_the_store_that_wrote_them(backend: Backend) -> None:
    """A record outlives the crawl (``Record``): the next crawl's store,
    made after the first one closed, reads it."""
    first = backend.make()
    first.put(ORIGIN, record(b"kept"))
    backend.close(first)
    assert backend.make().get(ORIGIN) == record(b"kept")


@pytest.mark.parametrize("version", [FORMAT_VERSION + 1, FORMAT_VERSION - 1, 10 * FORMAT_VERSION])
def test_a_record_of_another_version_is_absent_not_misread(backend: Backend, version: int) -> None:
    """Crawlers of two versions can share a store (``FORMAT_VERSION``): a
    record of another version reads as none, and is simply replaced."""
    data = record().encode()
    assert data.startswith(b"robotstxt-rfc %d\n" % FORMAT_VERSION)
    backend.plant(ORIGIN, b"robotstxt-rfc %d\n" % version + data.split(b"\n", 1)[1])
    store = backend.make()
    assert store.get(ORIGIN) is None
    assert store.put(ORIGIN, record(b"this version"))
    assert store.get(ORIGIN) == record(b"this version")


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"garbage",
        b"hello",
        b"\x00\xff garbage\n{}\n",
        b"robotstxt-rfc 1\nnot json\n",
        b"robotstxt-rfc one\n{}\n",
        b'robotstxt-rfc 1\n{"good":true}\n',
    ],
)
def test_garbage_is_a_store_error(backend: Backend, garbage: bytes) -> None:
    """What is not a record at all is an error (``Record.decode``), never
    a record nor "absent"; the built-in stores name themselves in it."""
    backend.plant(ORIGIN, garbage)
    store = backend.make()
    with pytest.raises(StoreError, match=r"not a stored robots\.txt record") as info:
        store.get(ORIGIN)
    if backend.names_its_source:
        assert str(info.value).startswith(store.source + ": ")  # type: ignore[attr-defined]
    # Another origin is unharmed, and a put replaces the garbage.
    assert store.get(OTHER) is None
    assert store.put(ORIGIN, record())
    assert store.get(ORIGIN) == record()


# -- the store's health, and its end ---------------------------------------------


def test_a_healthy_store_answers_ping(backend: Backend) -> None:
    store = backend.make()
    assert store.ping() is None
    store.put(ORIGIN, record())
    assert store.ping() is None
    assert store.get(ORIGIN) == record()


def test_close_after_use(backend: Backend) -> None:
    """Closed once, at the end of the crawl (the protocol calls it once),
    after every kind of call, without an error."""
    store = backend.make()
    store.put(ORIGIN, record())
    assert store.acquire(OTHER, 30)
    store.release(OTHER)
    backend.close(store)


# -- leases ----------------------------------------------------------------------


def test_a_crawler_alone_takes_renews_and_gives_back_its_lease(backend: Backend) -> None:
    """What one crawler does around a fetch, which every store grants
    (a store that one crawler uses may grant every lease)."""
    store = backend.make()
    assert store.acquire(ORIGIN, 30)
    assert store.renew(ORIGIN, 30)
    assert store.put(ORIGIN, record(b"fetched"))
    store.release(ORIGIN)
    assert store.get(ORIGIN) == record(b"fetched")
    assert store.acquire(ORIGIN, 30)  # taken again, next time
    store.release(ORIGIN)
    store.release(ORIGIN)  # twice: nothing to give back
    assert store.put(ORIGIN, record(b"without a lease"))
    assert store.get(ORIGIN) == record(b"without a lease")


def test_one_holder_at_a_time(shared: Backend) -> None:
    one, two = shared.make(), shared.make()
    one.ping()  # the store answers
    assert one.acquire(ORIGIN, 30)
    assert not two.acquire(ORIGIN, 30)
    assert not one.acquire(ORIGIN, 30)  # not twice, even by its holder
    one.release(ORIGIN)
    assert two.acquire(ORIGIN, 30)
    assert not one.acquire(ORIGIN, 30)


def test_leases_are_per_origin(shared: Backend) -> None:
    one, two = shared.make(), shared.make()
    assert one.acquire(ORIGIN, 30)
    assert one.acquire(OTHER, 30)  # a second origin, same holder
    assert not two.acquire(OTHER, 30)
    one.release(OTHER)
    assert two.acquire(OTHER, 30)
    assert not two.acquire(ORIGIN, 30)  # the first one is still held


def test_a_release_by_another_crawler_changes_nothing(shared: Backend) -> None:
    """Only the holder gives a lease back: ``release`` by a crawler that
    does not hold it (or never took it) leaves it, and its holder can still
    renew and write under it."""
    holder, other = shared.make(), shared.make()
    other.release(ORIGIN)  # never held, nobody holds it: harmless
    assert holder.acquire(ORIGIN, 30)
    other.release(ORIGIN)  # not other's: the lease stays
    assert not other.acquire(ORIGIN, 30)
    assert holder.renew(ORIGIN, 30)  # the lease is still the holder's own
    assert holder.put(ORIGIN, record(b"holder"))
    holder.release(ORIGIN)
    assert other.acquire(ORIGIN, 30)
    assert not holder.acquire(ORIGIN, 30)


def test_renewal_keeps_the_lease_past_its_first_term(shared: Backend) -> None:
    holder, other = shared.make(), shared.make()
    assert holder.acquire(ORIGIN, SHORT)
    for _ in range(4):  # 0.4 s in all: twice the first term
        time.sleep(SHORT / 2)
        assert holder.renew(ORIGIN, SHORT)
        assert not other.acquire(ORIGIN, SHORT)
    assert holder.put(ORIGIN, record(b"holder"))
    assert other.get(ORIGIN) == record(b"holder")


def test_renew_without_the_lease_is_false(shared: Backend) -> None:
    holder, other = shared.make(), shared.make()
    assert not holder.renew(ORIGIN, 30)  # never taken
    assert holder.acquire(ORIGIN, 30)
    assert not other.renew(ORIGIN, 30)  # another's
    holder.release(ORIGIN)
    assert not holder.renew(ORIGIN, 30)  # given back


def test_a_lapsed_lease_cannot_be_renewed(shared: Backend) -> None:
    holder = shared.make()
    assert holder.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert not holder.renew(ORIGIN, SHORT)


def test_a_lapsed_lease_is_taken_over_and_a_late_release_leaves_the_new_holder(
    shared: Backend,
) -> None:
    """A crashed (or slow) crawler cannot block the origin for longer than
    its lease, and when the slow one finally releases, it does not release
    the lease taken since."""
    slow, other = shared.make(), shared.make()
    assert slow.acquire(ORIGIN, SHORT)
    assert not other.acquire(ORIGIN, 30)
    time.sleep(LAPSE)
    assert other.acquire(ORIGIN, 30)
    slow.release(ORIGIN)
    assert not slow.acquire(ORIGIN, 30)
    assert other.renew(ORIGIN, 30)  # still the new holder's own
    other.release(ORIGIN)
    assert slow.acquire(ORIGIN, 30)


def test_a_lapsed_holder_is_fenced_out_by_the_one_that_took_over(shared: Backend) -> None:
    """The stalled holder comes back after another crawler took the lease:
    its write is refused and the newer record stands; its release leaves the
    new holder's lease alone."""
    stalled, other, third = shared.make(), shared.make(), shared.make()
    assert stalled.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert other.acquire(ORIGIN, 30)
    assert other.put(ORIGIN, record(b"fresh"))
    assert not stalled.put(ORIGIN, record(b"stale"))
    assert third.get(ORIGIN) == record(b"fresh")
    assert not stalled.renew(ORIGIN, 30)
    stalled.release(ORIGIN)
    assert not third.acquire(ORIGIN, 30)
    other.release(ORIGIN)
    # After its release the stalled crawler writes as one without a lease.
    assert stalled.put(ORIGIN, record(b"later"))
    assert third.get(ORIGIN) == record(b"later")


def test_a_lapsed_holder_is_fenced_out_after_the_new_holder_released(shared: Backend) -> None:
    """The newer holder fetched, stored and released before the stalled
    one woke up: the stalled copy is older and must not replace it."""
    stalled, other = shared.make(), shared.make()
    assert stalled.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert other.acquire(ORIGIN, 30)
    assert other.put(ORIGIN, record(b"fresh"))
    other.release(ORIGIN)
    assert not stalled.put(ORIGIN, record(b"stale"))
    assert other.get(ORIGIN) == record(b"fresh")


def test_a_lapsed_lease_nobody_took_still_writes(shared: Backend) -> None:
    slow, other = shared.make(), shared.make()
    assert slow.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert slow.put(ORIGIN, record(b"slow"))
    assert other.get(ORIGIN) == record(b"slow")


def test_a_write_without_a_lease_always_lands(shared: Backend) -> None:
    holder, writer = shared.make(), shared.make()
    assert holder.acquire(ORIGIN, 30)
    assert writer.put(ORIGIN, record(b"unlocked"))
    assert holder.get(ORIGIN) == record(b"unlocked")


# -- threads ---------------------------------------------------------------------


def run_together(jobs: list[Callable[[], None]]) -> None:
    """Run each job in a thread of its own, all released at once; raise
    the first error any of them raised."""
    barrier = threading.Barrier(len(jobs))
    errors: list[BaseException] = []

    def run(job: Callable[[], None]) -> None:
        barrier.wait(timeout=30)
        try:
            job()
        except BaseException as exc:  # reported below, in the test's thread
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(job,)) for job in jobs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(thread.is_alive() for thread in threads), "a thread hangs"
    if errors:
        raise errors[0]


# Four threads on one SQLite file, each of whose writes waits at most the
# store's 0.5 s for the others' locks: alone, so that threads starved of CPU
# by other tests do not hold a lock past it (tests/alone.py).
@pytest.mark.alone
def test_one_store_called_from_threads_at_once(backend: Backend) -> None:
    """The middleware calls a store from up to four threads at a time: each
    thread writes and reads its own origins and one origin they all share.
    Every write lands, every read is a whole record that some thread
    wrote (never a mix), and each origin ends with its last write."""
    store = backend.make()
    shared_origin = "https://shared.example:443"
    written = {record(b"thread %d round %d" % (t, i)) for t in range(THREADS) for i in range(20)}

    def job(t: int) -> Callable[[], None]:
        def work() -> None:
            for i in range(20):
                mine = f"https://t{t}-{i % 5}.example:443"
                value = record(b"thread %d round %d" % (t, i))
                assert store.put(mine, value)
                assert store.get(mine) == value  # nobody else writes there
                assert store.put(shared_origin, value)
                assert store.get(shared_origin) in written
                assert store.acquire(mine, 30)
                store.release(mine)

        return work

    run_together([job(t) for t in range(THREADS)])
    for t in range(THREADS):
        for i in range(15, 20):
            assert store.get(f"https://t{t}-{i % 5}.example:443") == record(
                b"thread %d round %d" % (t, i)
            )
    assert store.get(shared_origin) in written


@pytest.mark.alone  # as above
def test_crawlers_racing_from_threads_get_one_winner_per_origin(shared: Backend) -> None:
    """Four crawlers, each in a thread, try to take the same 50 origins at
    the same moment, in orders of their own: each origin is won exactly
    once, and its winner (only) writes under its lease."""
    crawlers = [shared.make() for _ in range(THREADS)]
    origins = [f"https://o{i}.example:443" for i in range(50)]
    won: list[list[str]] = [[] for _ in crawlers]

    def job(n: int) -> Callable[[], None]:
        order = origins[:]
        random.Random(n).shuffle(order)

        def work() -> None:
            for origin in order:
                if crawlers[n].acquire(origin, 60):
                    won[n].append(origin)
                    assert crawlers[n].put(origin, record(b"crawler %d" % n))

        return work

    run_together([job(n) for n in range(THREADS)])
    winners = [origin for wins in won for origin in wins]
    assert sorted(winners) == sorted(origins), "every origin won exactly once"
    reader = shared.make()
    for n, wins in enumerate(won):
        for origin in wins:
            assert reader.get(origin) == record(b"crawler %d" % n)
