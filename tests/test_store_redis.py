"""The Redis store against a real ``redis-server`` (issue 4)."""

from __future__ import annotations

import socket
import subprocess
import sys
import textwrap
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from scrapy_robots_rfc.stores.base import Record, StoreError
from scrapy_robots_rfc.stores.redis import KEY_PREFIX, RedisStore, redact
from tests.redis_server import RedisServer, free_port, redis_server_fixture

redis = pytest.importorskip("redis")

ROOT = Path(__file__).resolve().parents[1]
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


# Records


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"User-agent: *\nDisallow: /private\n", id="text"),
        pytest.param(None, id="no-body"),
        pytest.param(b"", id="empty-body"),
        pytest.param(b"\x00\xff\xfe\n\r\nDisallow: /\x00\x80\xc3(", id="binary"),
        pytest.param(bytes(range(256)) * 2000, id="512000-bytes"),
    ],
)
def test_put_get_round_trip(store: RedisStore, body: bytes | None) -> None:
    rec = record(body, unreachable_since=1_700_000_100.0, failures=3, retry_at=1_700_000_500.0)
    store.put(ORIGIN, rec)
    got = store.get(ORIGIN)
    assert got == rec
    assert got is not None
    assert got.body == body


def test_put_replaces(store: RedisStore) -> None:
    store.put(ORIGIN, record(b"first"))
    store.put(ORIGIN, record(None, good=False, status=None, outcome="unreachable"))
    assert store.get(ORIGIN) == record(None, good=False, status=None, outcome="unreachable")


def test_origins_are_separate(store: RedisStore) -> None:
    store.put(ORIGIN, record(b"a"))
    store.put("http://example.com:80", record(b"b"))
    assert store.get(ORIGIN) == record(b"a")
    assert store.get("http://example.com:80") == record(b"b")
    assert store.get("https://example.com:8443") is None


def test_key_layout(store: RedisStore, raw: redis.Redis) -> None:
    """Other versions of this package, on other machines, read these keys."""
    store.put(ORIGIN, record())
    assert raw.get(f"robotstxt_rfc:v1:record:{ORIGIN}") == record().encode()
    assert store.acquire(ORIGIN, 30)
    assert raw.exists(f"robotstxt_rfc:v1:lock:{ORIGIN}") == 1


def test_get_missing(store: RedisStore) -> None:
    assert store.get(ORIGIN) is None


def test_other_format_version_is_absent(store: RedisStore, raw: redis.Redis) -> None:
    data = record().encode()
    assert data.startswith(b"robotstxt-rfc 1\n")
    raw.set(KEY_PREFIX + "record:" + ORIGIN, b"robotstxt-rfc 2\n" + data.split(b"\n", 1)[1])
    assert store.get(ORIGIN) is None
    store.put(ORIGIN, record())  # and it is simply replaced
    assert store.get(ORIGIN) == record()


@pytest.mark.parametrize(
    "garbage", [b"", b"hello", b"\x00\xff garbage\n{}\n", b"robotstxt-rfc 1\nnot json\n"]
)
def test_garbage_is_an_error(
    store: RedisStore, raw: redis.Redis, redis_server: RedisServer, garbage: bytes
) -> None:
    raw.set(KEY_PREFIX + "record:" + ORIGIN, garbage)
    with pytest.raises(StoreError, match=r"not a stored robots\.txt record") as info:
        store.get(ORIGIN)
    assert redis_server.url in str(info.value)


def test_two_stores_share_records(redis_server: RedisServer) -> None:
    one, two = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        one.put(ORIGIN, record(b"from one"))
        assert two.get(ORIGIN) == record(b"from one")
        two.put(ORIGIN, record(b"from two"))
        assert one.get(ORIGIN) == record(b"from two")
    finally:
        one.close()
        two.close()


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


def test_release_without_holding_is_harmless(store: RedisStore) -> None:
    store.release(ORIGIN)
    assert store.acquire(ORIGIN, 30)


def test_lock_is_shared_between_stores(redis_server: RedisServer, raw: redis.Redis) -> None:
    one, two = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        assert one.acquire(ORIGIN, 30)
        assert not two.acquire(ORIGIN, 30)
        two.release(ORIGIN)  # two does not hold it: one's lock stays
        assert raw.exists(KEY_PREFIX + "lock:" + ORIGIN) == 1
        assert not two.acquire(ORIGIN, 30)
        one.release(ORIGIN)
        assert two.acquire(ORIGIN, 30)
        assert not one.acquire(ORIGIN, 30)
    finally:
        one.close()
        two.close()


def test_lock_expires_and_late_release_keeps_the_new_holder(
    redis_server: RedisServer, raw: redis.Redis
) -> None:
    """A crashed (or slow) worker cannot block the origin, and when the slow
    one finally releases, it does not release the lock taken since."""
    slow, other = RedisStore(redis_server.url), RedisStore(redis_server.url)
    try:
        assert slow.acquire(ORIGIN, 0.2)
        assert not other.acquire(ORIGIN, 30)
        time.sleep(0.3)
        assert other.acquire(ORIGIN, 30)
        token = raw.get(KEY_PREFIX + "lock:" + ORIGIN)
        slow.release(ORIGIN)
        assert raw.get(KEY_PREFIX + "lock:" + ORIGIN) == token
        assert not slow.acquire(ORIGIN, 30)
        other.release(ORIGIN)
        assert slow.acquire(ORIGIN, 30)
    finally:
        slow.close()
        other.close()


RACER = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    from scrapy_robots_rfc.stores.redis import RedisStore
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
            "release": lambda: store.release(ORIGIN),
        }
        for name, call in calls.items():
            start = time.monotonic()
            with pytest.raises(StoreError) as info:
                call()
            assert time.monotonic() - start < 3, name
            prefix = f"ROBOTSTXT_RFC_STORE ({redis_server.url!r}): "
            assert str(info.value).startswith(prefix), name
        redis_server.start()  # same port, empty (nothing is saved)
        assert store.get(ORIGIN) is None
        store.put(ORIGIN, record())
        assert store.get(ORIGIN) == record()
        assert store.acquire(ORIGIN, 30)
        store.release(ORIGIN)  # the release script is loaded again
        assert store.acquire(ORIGIN, 30)
    finally:
        store.close()


def test_unreachable_url_hides_password() -> None:
    port = free_port()  # nothing listens there
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
    code = "import sys; sys.modules['redis'] = None; import scrapy_robots_rfc.stores.redis"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True)
    monkeypatch.setitem(sys.modules, "redis", None)
    with pytest.raises(StoreError) as info:
        RedisStore("redis://:pw@127.0.0.1:6379/0")
    assert str(info.value) == (
        "ROBOTSTXT_RFC_STORE ('redis://:***@127.0.0.1:6379/0'): needs the redis package: "
        "pip install 'scrapy-robots-rfc[redis]' (or pip install redis)"
    )
