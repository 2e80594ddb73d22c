"""What is particular to the Redis store, against a real ``redis-server``
(issues 4 and 13): its keys and their expiry, the lease scripts and the
locks of an older release, two processes racing, a server gone, hung or
absent, URLs and passwords. What every store does (round trips, versions,
garbage, leases, threads) is in ``test_store_contract.py``."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_robots_rfc.stores import _redis_lua as redis_lua
from scrapy_robots_rfc.stores._base import Record, StoreError
from scrapy_robots_rfc.stores._redis import KEY_PREFIX, RedisStore, redact
from tests.redis_server import RedisServer, redis_server_fixture

redis = pytest.importorskip("redis")

ROOT = Path(__file__).resolve().parents[2]
ORIGIN = "https://example.com:443"

redis_server = redis_server_fixture()


def record(body: bytes | None = b"User-agent: *\nDisallow: /private\n", **kw: object) -> Record:
    fields: dict[str, object] = {
        "good": True,
        "body": body,
        "status": 200,
        "outcome": "ok",
        "fetched_at": 1_700_000_000.25,
        "expires_at": 1_700_086_400.5,
        "url": ORIGIN + "/robots.txt",
    }
    fields.update(kw)
    return Record(**fields)  # type: ignore[arg-type]


@pytest.fixture
def store(redis_server: RedisServer) -> Iterator[RedisStore]:
    s = RedisStore(redis_server.url)
    yield s
    s.close()


@pytest.fixture
def raw(redis_server: RedisServer) -> Iterator[redis.Redis]:
    client = redis.Redis.from_url(redis_server.url)
    yield client
    client.close()


# Keys


def test_key_layout(store: RedisStore, raw: redis.Redis) -> None:
    """Other versions of this package, on other machines, read these keys."""
    store.put(ORIGIN, record())
    assert raw.get(f"robotstxt_rfc:v1:record:{ORIGIN}") == record().encode()
    assert store.acquire(ORIGIN, 30)
    assert raw.exists(f"robotstxt_rfc:v1:lock:{ORIGIN}") == 1
    # The lock holds the fencing token "<n>:<nonce>", n counted in fence:.
    assert re.fullmatch(rb"1:[0-9a-f]{32}", raw.get(f"robotstxt_rfc:v1:lock:{ORIGIN}") or b"")
    assert raw.get(f"robotstxt_rfc:v1:fence:{ORIGIN}") == b"1"
    store.release(ORIGIN)
    assert store.acquire(ORIGIN, 30)
    assert (raw.get(f"robotstxt_rfc:v1:lock:{ORIGIN}") or b"").startswith(b"2:")
    assert raw.get(f"robotstxt_rfc:v1:fence:{ORIGIN}") == b"2"


# Expiry: every key the store writes goes away by itself


def test_records_live_the_store_ttl(redis_server: RedisServer, raw: redis.Redis) -> None:
    """By default 31 days: ROBOTSTXT_RFC_UNREACHABLE_DAYS (30, RFC 9309
    §2.3.1.4) plus ROBOTSTXT_RFC_CACHE_TTL (1 day, §2.4); reset by each
    write."""
    key = KEY_PREFIX + "record:" + ORIGIN
    store = RedisStore(redis_server.url)
    try:
        store.put(ORIGIN, record())
        assert 31 * 86_400_000 - 5000 < raw.pttl(key) <= 31 * 86_400_000
    finally:
        store.close()
    short = RedisStore(redis_server.url, ttl=0.3)
    try:
        short.put(ORIGIN, record())
        assert 0 < raw.pttl(key) <= 300
        time.sleep(0.2)
        short.put(ORIGIN, record(b"again"))
        assert 200 < raw.pttl(key) <= 300
        time.sleep(0.4)
        assert short.get(ORIGIN) is None
        assert raw.exists(key) == 0
    finally:
        short.close()


def test_a_released_lease_leaves_only_the_record(
    redis_server: RedisServer, raw: redis.Redis
) -> None:
    """While the fetch runs the fencing token outlives the longest fetch;
    once released, it stays one lease (refusing a lapsed holder's late
    write), then only the record is left."""
    store = RedisStore(redis_server.url, lease=0.2, fetch_bound=60)
    fence = KEY_PREFIX + "fence:" + ORIGIN
    try:
        assert store.acquire(ORIGIN, 30)
        assert 0 < raw.pttl(KEY_PREFIX + "lock:" + ORIGIN) <= 30_000
        assert 60_000 < raw.pttl(fence) <= 90_000  # fetch bound + the lease
        assert store.renew(ORIGIN, 30)
        assert 60_000 < raw.pttl(fence) <= 90_000
        assert store.put(ORIGIN, record())
        store.release(ORIGIN)
        assert 0 < raw.pttl(fence) <= 200
        time.sleep(0.3)
        assert raw.keys(KEY_PREFIX + "*") == [(KEY_PREFIX + "record:" + ORIGIN).encode()]
    finally:
        store.close()


# Lease scripts


def test_lease_acquire_is_idempotent_for_its_nonce(raw: redis.Redis) -> None:
    """redis-py retries a command once after a lost reply: the retry of an
    acquire that did succeed finds its own nonce and gets the same token."""
    acquire = raw.register_script(redis_lua.LEASE_ACQUIRE)
    keys = ["lock:x", "fence:x"]
    token = acquire(keys=keys, args=[30_000, "a" * 32, 60_000])
    assert token == b"1:" + b"a" * 32
    assert acquire(keys=keys, args=[30_000, "a" * 32, 60_000]) == token
    assert acquire(keys=keys, args=[30_000, "b" * 32, 60_000]) is None
    assert raw.get("fence:x") == b"1"  # the retry granted nothing new


def test_a_lock_of_an_older_release_is_respected(store: RedisStore, raw: redis.Redis) -> None:
    """An older release of this package locks with SET NX and a random
    token of its own, and releases only while the key holds it."""
    key = KEY_PREFIX + "lock:" + ORIGIN
    assert raw.set(key, b"f" * 32, nx=True, px=30_000)
    assert not store.acquire(ORIGIN, 30)
    store.release(ORIGIN)
    assert raw.get(key) == b"f" * 32
    raw.delete(key)  # the older release gives it back
    assert store.acquire(ORIGIN, 30)
    token = raw.get(key)
    # ... and an older crawler's release leaves our token alone.
    assert raw.register_script(redis_lua.LEASE_RELEASE)(keys=[key, "f"], args=[b"f" * 32, 1]) == 0
    assert raw.get(key) == token


def test_a_write_is_refused_while_another_holds_the_lock_even_without_its_fence(
    redis_server: RedisServer, raw: redis.Redis
) -> None:
    """The fencing token expires with the fetch bound; a holder that comes
    back even later is still refused while another crawler holds the lock."""
    stalled, other = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        assert stalled.acquire(ORIGIN, 0.2)
        time.sleep(0.3)
        assert other.acquire(ORIGIN, 30)
        raw.delete(KEY_PREFIX + "fence:" + ORIGIN)
        assert not stalled.put(ORIGIN, record(b"stale"))
        assert other.get(ORIGIN) is None
    finally:
        stalled.close()
        other.close()


# Locks


def test_acquire_release(store: RedisStore, raw: redis.Redis) -> None:
    assert store.acquire(ORIGIN, 30)
    assert not store.acquire(ORIGIN, 30)
    assert store.acquire("https://other.example:443", 30)  # per origin
    assert 0 < raw.pttl(KEY_PREFIX + "lock:" + ORIGIN) <= 30_000  # it expires by itself
    store.release(ORIGIN)
    assert raw.exists(KEY_PREFIX + "lock:" + ORIGIN) == 0
    assert store.acquire(ORIGIN, 30)
    assert not store.acquire("https://other.example:443", 30)


RACER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from scrapy_robots_rfc.stores import RedisStore
    store = RedisStore(sys.argv[2])
    print("ready", flush=True)
    for line in sys.stdin:
        won = store.acquire(line.strip(), 60)
        print(int(won), flush=True)
    store.close()
    """
)


def test_two_processes_race(redis_server: RedisServer, raw: redis.Redis) -> None:
    """Two OS processes try each origin at the same moment (each round starts
    when both are waiting); exactly one of them gets it."""
    racers = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(ROOT), redis_server.url],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    wins: Counter[int] = Counter()
    try:
        for racer in racers:
            assert racer.stdout is not None
            assert racer.stdout.readline() == "ready\n"
        for i in range(1, 51):
            origin = f"https://o{i}.example:443"
            order = racers if i % 2 else racers[::-1]  # neither always starts first
            for racer in order:
                assert racer.stdin is not None
                racer.stdin.write(origin + "\n")
                racer.stdin.flush()
            results = [int(racer.stdout.readline()) for racer in racers]  # type: ignore[union-attr]
            assert sorted(results) == [0, 1], (origin, results)
            wins[results.index(1)] += 1
            assert raw.pttl(KEY_PREFIX + "lock:" + origin) > 0
    finally:
        for racer in racers:
            racer.communicate(timeout=30)  # closes stdin: the racer ends
    assert [racer.returncode for racer in racers] == [0, 0]
    assert sum(wins.values()) == 50


# Failures


def test_server_gone_and_back(redis_server: RedisServer) -> None:
    store = RedisStore(redis_server.url)
    try:
        store.put(ORIGIN, record())
        assert store.acquire(ORIGIN, 30)
        redis_server.stop(kill=True)  # a crash: the pooled connection is dead
        calls = {
            "get": lambda: store.get(ORIGIN),
            "put": lambda: store.put(ORIGIN, record()),
            "acquire": lambda: store.acquire("https://other.example:443", 30),
            "renew": lambda: store.renew(ORIGIN, 30),
            "release": lambda: store.release(ORIGIN),
            "ping": store.ping,
        }
        for name, call in calls.items():
            start = time.monotonic()
            with pytest.raises(StoreError) as info:
                call()
            assert time.monotonic() - start < 3, name
            prefix = f"ROBOTSTXT_RFC_STORE ({redis_server.url!r}): "
            assert str(info.value).startswith(prefix), name
        redis_server.start()  # same port, empty (nothing is saved)
        store.ping()
        assert store.get(ORIGIN) is None
        store.put(ORIGIN, record())
        assert store.get(ORIGIN) == record()
        assert store.acquire(ORIGIN, 30)  # the scripts are loaded again
        assert store.renew(ORIGIN, 30)
        store.release(ORIGIN)
        assert store.acquire(ORIGIN, 30)
    finally:
        store.close()


def test_unreachable_url_hides_password(closed_port: int) -> None:
    port = closed_port
    store = RedisStore(f"redis://robot:s3cret@127.0.0.1:{port}/0?password=s3cret")
    try:
        start = time.monotonic()
        with pytest.raises(StoreError) as info:
            store.get(ORIGIN)
        assert time.monotonic() - start < 3
    finally:
        store.close()
    message = str(info.value)
    shown = f"redis://robot:***@127.0.0.1:{port}/0?password=***"
    assert message.startswith(f"ROBOTSTXT_RFC_STORE ({shown!r}): GET {KEY_PREFIX}record:")
    assert "s3cret" not in message
    assert "s3cret" not in repr(store)


@pytest.mark.alone  # a bound of wall-clock time with 0.5 s to spare (tests/alone.py)
def test_hung_server() -> None:
    """A server that accepts connections but never answers: each command
    waits ``timeout``, and is tried twice."""
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        store = RedisStore(f"redis://127.0.0.1:{listener.getsockname()[1]}/0", timeout=0.5)
        try:
            start = time.monotonic()
            with pytest.raises(StoreError, match="TimeoutError"):
                store.acquire(ORIGIN, 30)
            assert 0.5 <= time.monotonic() - start < 1.5
        finally:
            store.close()


def test_unix_socket_url() -> None:
    store = RedisStore("unix:///nonexistent/redis.sock?db=0")
    try:
        with pytest.raises(StoreError, match=r"unix:///nonexistent/redis\.sock"):
            store.acquire(ORIGIN, 30)
    finally:
        store.close()


def test_bad_url() -> None:
    with pytest.raises(StoreError, match="bad URL"):
        RedisStore("http://127.0.0.1:6379/0")


def test_redact() -> None:
    assert redact("redis://127.0.0.1:6379/0") == "redis://127.0.0.1:6379/0"
    assert redact("redis://:pw@host:1/2") == "redis://:***@host:1/2"
    assert redact("rediss://u:pw@host/0?ssl_cert_reqs=none") == (
        "rediss://u:***@host/0?ssl_cert_reqs=none"
    )
    assert redact("unix:///run/redis.sock?db=1&password=pw") == (
        "unix:///run/redis.sock?db=1&password=***"
    )
    # urlsplit cannot read it: the user info and the password are hidden
    # all the same.
    assert redact("redis://u:pw@[::1/0?db=1&Password=pw") == "redis://***@[::1/0?db=1&Password=***"


def test_without_redis_py(monkeypatch: pytest.MonkeyPatch) -> None:
    """The module imports without redis-py; making a store says what to
    install."""
    code = "import sys; sys.modules['redis'] = None; import scrapy_robots_rfc.stores._redis"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(StoreError) as info:
        RedisStore("redis://:pw@127.0.0.1:6379/0")
    assert str(info.value) == (
        "ROBOTSTXT_RFC_STORE ('redis://:***@127.0.0.1:6379/0'): needs the redis package: "
        "pip install 'scrapy-robots-rfc[redis]' (or pip install redis)"
    )


def test_the_probe_fails_while_the_server_refuses_writes(
    store: RedisStore, raw: redis.Redis
) -> None:
    """A server that answers PING but refuses writes (here: too few
    replicas; also a read-only replica, or maxmemory reached) cannot serve
    the crawl's leases and records: the health probe says so (issue 35)."""
    store.ping()
    assert 0 < raw.pttl(KEY_PREFIX + "probe") <= 1000  # the probe's key goes by itself
    raw.config_set("min-replicas-to-write", 1)
    try:
        assert raw.ping()
        with pytest.raises(StoreError, match="NOREPLICAS"):
            store.acquire(ORIGIN, 30)
        with pytest.raises(StoreError) as info:
            store.ping()
        assert str(info.value).startswith(
            f"ROBOTSTXT_RFC_STORE ({store.url!r}): SET {KEY_PREFIX}probe failed: "
        )
        assert "NOREPLICAS" in str(info.value)
    finally:
        raw.config_set("min-replicas-to-write", 0)
    store.ping()
    assert store.acquire(ORIGIN, 30)
