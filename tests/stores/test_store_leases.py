"""The fetch lease every store offers (issue 13), the same for SQLite and
Redis: one holder at a time, renewed while the fetch goes on, taken over
once it lapses, and a lapsed holder's late write refused (fencing) so that
the new holder's record stands. Both stores run against real storage (an
SQLite file, a real ``redis-server``)."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator

import pytest

from scrapy_robots_rfc.stores._base import Record, Store
from scrapy_robots_rfc.stores._sqlite import SqliteStore
from tests.redis_server import RedisServer, redis_server_fixture

ORIGIN = "https://example.com:443"
#: Seconds a short lease lasts in these tests, and how long to wait for it
#: to lapse.
SHORT, LAPSE = 0.2, 0.35

redis_server = redis_server_fixture(scope="module")


def record(body: bytes) -> Record:
    return Record(good=True, body=body, status=200, outcome="ok", fetched_at=1.0, expires_at=2.0)


@pytest.fixture(params=["sqlite", "redis"])
def stores(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Callable[[], Store]]:
    """Makes stores that share one storage: two crawlers."""
    made: list[Store] = []
    if request.param == "sqlite":
        path = str(tmp_path_factory.mktemp("leases") / "robots.db")

        def make() -> Store:
            made.append(SqliteStore(path))
            return made[-1]

    else:
        pytest.importorskip("redis")
        from scrapy_robots_rfc.stores._redis import RedisStore

        server: RedisServer = request.getfixturevalue("redis_server")
        import redis

        with redis.Redis.from_url(server.url) as client:
            client.flushdb()

        def make() -> Store:
            made.append(RedisStore(server.url))
            return made[-1]

    yield make
    for store in made:
        store.close()


def test_one_holder_at_a_time(stores: Callable[[], Store]) -> None:
    one, two = stores(), stores()
    one.ping()  # the store answers
    assert one.acquire(ORIGIN, 30)
    assert not two.acquire(ORIGIN, 30)
    assert not one.acquire(ORIGIN, 30)  # not twice, even by its holder
    one.release(ORIGIN)
    assert two.acquire(ORIGIN, 30)


def test_renewal_keeps_the_lease_past_its_first_term(stores: Callable[[], Store]) -> None:
    holder, other = stores(), stores()
    assert holder.acquire(ORIGIN, SHORT)
    for _ in range(4):  # 0.4 s in all: twice the first term
        time.sleep(SHORT / 2)
        assert holder.renew(ORIGIN, SHORT)
        assert not other.acquire(ORIGIN, SHORT)
    assert holder.put(ORIGIN, record(b"holder"))
    assert other.get(ORIGIN) == record(b"holder")


def test_renew_without_the_lease_is_false(stores: Callable[[], Store]) -> None:
    holder, other = stores(), stores()
    assert not holder.renew(ORIGIN, 30)  # never taken
    assert holder.acquire(ORIGIN, 30)
    assert not other.renew(ORIGIN, 30)  # another's
    holder.release(ORIGIN)
    assert not holder.renew(ORIGIN, 30)  # given back


def test_a_lapsed_lease_cannot_be_renewed(stores: Callable[[], Store]) -> None:
    holder = stores()
    assert holder.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert not holder.renew(ORIGIN, SHORT)


def test_a_lapsed_holder_is_fenced_out_by_the_one_that_took_over(
    stores: Callable[[], Store],
) -> None:
    """The stalled holder comes back after another crawler took the lease:
    its write is refused and the newer record stands; its release leaves the
    new holder's lease alone."""
    stalled, other, third = stores(), stores(), stores()
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


def test_a_lapsed_holder_is_fenced_out_after_the_new_holder_released(
    stores: Callable[[], Store],
) -> None:
    """The newer holder fetched, stored and released before the stalled
    one woke up: the stalled copy is older and must not replace it."""
    stalled, other = stores(), stores()
    assert stalled.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert other.acquire(ORIGIN, 30)
    assert other.put(ORIGIN, record(b"fresh"))
    other.release(ORIGIN)
    assert not stalled.put(ORIGIN, record(b"stale"))
    assert other.get(ORIGIN) == record(b"fresh")


def test_a_lapsed_lease_nobody_took_still_writes(stores: Callable[[], Store]) -> None:
    slow, other = stores(), stores()
    assert slow.acquire(ORIGIN, SHORT)
    time.sleep(LAPSE)
    assert slow.put(ORIGIN, record(b"slow"))
    assert other.get(ORIGIN) == record(b"slow")


def test_a_write_without_a_lease_always_lands(stores: Callable[[], Store]) -> None:
    holder, writer = stores(), stores()
    assert holder.acquire(ORIGIN, 30)
    assert writer.put(ORIGIN, record(b"unlocked"))
    assert holder.get(ORIGIN) == record(b"unlocked")
