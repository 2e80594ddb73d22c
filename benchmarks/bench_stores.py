"""Lookups per second and memory for 100,000 origins in each robots.txt
store: the middleware's in-memory LRU, ``SqliteStore`` and ``RedisStore``.

The data: 100,000 origins (``--quick``: 2,000), ``https://www.site000000.example``
and so on (one in ten ``http://``), each with a realistic :class:`Record`:
status 200, outcome ``"200"``, fetched at a random time in the last 24 hours
and fresh for 24 hours from then, and a body taken from the real corpus
``<shared>/corpus/robots/*.txt`` (``<shared>`` is ``../shared`` next to the
repo root, or ``$ROBOTS_SHARED``; read in place), the files cycled in name
order and cut at ``ROBOTSTXT_RFC_MAX_BYTES`` as the middleware cuts them.
Without the corpus a small generated body is used instead, and the output
says so.

The stores, each used from this one process with sequential calls, as the
middleware uses them (from a thread, one call at a time):

* ``memory``: what the middleware keeps in memory per origin, its
  ``OrderedDict[Origin, policy.Entry]`` LRU. A write is what
  ``RobotsTxtMiddleware._from_record`` does: parse the body (``rfc`` mode),
  keep ``{"scrapy": robots.for_agent("scrapy")}`` in an ``Entry`` (the body
  and the ``RobotsTxt`` are dropped), insert it and mark it most recently
  used. A hit is what ``process_request`` does before deciding: ``get``,
  ``entry.usable(now)``, ``entry.rules["scrapy"]``, ``move_to_end``; a miss
  is a ``get`` that finds nothing. There is no eviction here: the
  middleware's default ``ROBOTSTXT_RFC_MAX_ORIGINS`` is 10,000, so keeping
  100,000 origins needs that setting raised.
* ``sqlite``: a ``SqliteStore`` on a new file in a temporary directory. A
  write is ``put`` (``Record.encode()`` and one ``INSERT OR REPLACE``, its
  own transaction, as the store commits each call), a lookup is ``get``
  (a ``SELECT`` and ``Record.decode()``).
* ``redis``: a ``RedisStore`` against a ``redis-server`` that this script
  starts as the tests do (``tests/redis_server.py``) on a free port of
  127.0.0.1, in a temporary directory, with no persistence (``--save ""
  --appendonly no``), and stops at the end. The row is skipped, with the
  reason, when ``redis-server`` is not on the PATH, or the ``redis`` package
  (or pytest, which the tests' launcher imports) is not installed.

What is measured, per store:

* writes/s: all N origins written once, in order, timed as a whole.
* hits/s: 20,000 lookups of existing origins drawn at random (the same
  list for every store); misses/s: 20,000 lookups of origins never
  written. Each is timed 3 times; the median rate is reported.
  A store hit gives a ``Record``; the middleware then parses its body into
  its LRU, which costs what a ``memory`` write costs.
* memory: for ``memory``, the bytes the LRU holds, traced by
  ``tracemalloc`` (the dict, its keys and every parsed ``Entry``: parsed
  rules only, no bodies), in a second build of the LRU, since tracing slows
  the build; for ``sqlite``, the file on disk plus its ``-wal`` and
  ``-shm`` files, after the writes; for ``redis``, the growth of the
  server's ``INFO memory`` ``used_memory`` over the writes (its
  ``used_memory_rss`` growth too, in the JSON). Each also per origin.
* this process's RSS growth over the writes (Linux only): the parsed LRU
  for ``memory``, the client side for the others.

Run it directly (about 5 minutes, most of it in the traced second build of
the LRU; 1.2 GB of bodies go to SQLite and to Redis, and the LRU takes about
0.9 GB; ``--quick`` takes about 20 seconds)::

    .venv/bin/python benchmarks/bench_stores.py
    .venv/bin/python benchmarks/bench_stores.py --quick    # 2,000 origins
    .venv/bin/python benchmarks/bench_stores.py --json results.json

It is a script, not a test: it asserts nothing about the figures.
"""

from __future__ import annotations

import gc
import os
import platform
import random
import shutil
import sqlite3
import statistics
import tempfile
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

# harness puts the repository root first on sys.path: the working tree is measured.
import harness

from scrapy_robots_rfc import policy
from scrapy_robots_rfc.policy._origin import Origin, origin
from scrapy_robots_rfc.robotstxt._parser import MAX_BYTES, cut_at_limit
from scrapy_robots_rfc.stores import entry_from_record
from scrapy_robots_rfc.stores._base import Record, Store, StoreError
from scrapy_robots_rfc.stores._sqlite import SqliteStore

ORIGINS = 100_000
QUICK_ORIGINS = 2_000
LOOKUPS = 20_000
ROUNDS = 3
#: The middleware's token for Scrapy's default USER_AGENT, lower-cased.
TOKEN = harness.TOKEN
#: The body used when the corpus is absent.
FALLBACK_BODY = b"""User-agent: *
Disallow: /admin/
Disallow: /cart
Disallow: /checkout/
Disallow: /search
Allow: /search/about
Disallow: /*?sessionid=
Disallow: /*.pdf$

User-agent: BadBot
Disallow: /

Sitemap: https://www.example.com/sitemap.xml
"""


@dataclass(frozen=True)
class Data:
    origins: list[Origin]
    records: list[Record]
    hits: list[Origin]  # LOOKUPS existing origins, at random
    misses: list[Origin]  # LOOKUPS origins never written
    source: str
    bodies: int  # distinct bodies
    body_bytes: int  # total over the N records


# --- input ----------------------------------------------------------------


def origin_of(i: int, prefix: str = "site") -> Origin:
    """A fresh key, as the middleware makes one per origin from a URL."""
    scheme = "http" if i % 10 == 9 else "https"
    key = origin(f"{scheme}://www.{prefix}{i:06d}.example/")
    assert key is not None
    return key


def load_bodies() -> tuple[list[bytes], str]:
    files = harness.load_corpus()
    if not files:
        return [FALLBACK_BODY], (
            f"NO CORPUS at {harness.corpus_dir()} (set ROBOTS_SHARED): one generated body of"
            f" {len(FALLBACK_BODY)} bytes for every origin"
        )
    bodies = [cut_at_limit(robots.body, MAX_BYTES)[0] for robots in files]
    return bodies, f"corpus {harness.corpus_dir()}: {len(files)} files, cycled"


def make_data(count: int) -> Data:
    rng = random.Random(harness.SEED)
    bodies, source = load_bodies()
    now = time.time()
    origins = [origin_of(i) for i in range(count)]
    records = []
    for i in range(count):
        fetched_at = now - rng.uniform(0, policy.DEFAULT_TTL)
        records.append(
            Record(
                good=True,
                body=bodies[i % len(bodies)],
                status=200,
                outcome="200",
                fetched_at=fetched_at,
                expires_at=fetched_at + policy.DEFAULT_TTL,
            )
        )
    hits = [origin_of(rng.randrange(count)) for _ in range(LOOKUPS)]
    misses = [origin_of(i, "absent") for i in range(LOOKUPS)]
    body_bytes = sum(len(r.body or b"") for r in records)
    return Data(origins, records, hits, misses, source, len(bodies), body_bytes)


# --- measuring helpers ----------------------------------------------------

T = TypeVar("T")


def timed_writes(write: Callable[[], T]) -> tuple[T, float, int | None]:
    """What ``write()`` returns, the seconds it took, and this process's RSS
    growth over it."""
    before = harness.settled_rss()
    start = time.perf_counter()
    written = write()
    write_s = time.perf_counter() - start
    return written, write_s, harness.growth(before, harness.settled_rss())


def lookup_rate(call: Callable[[Any], object], keys: Sequence[Any]) -> float:
    """Median lookups per second over ``ROUNDS`` passes over ``keys``."""
    rates = []
    for _ in range(ROUNDS):
        gc.collect()
        start = time.perf_counter()
        for key in keys:
            call(key)
        rates.append(len(keys) / (time.perf_counter() - start))
    return statistics.median(rates)


def lookups(
    hit: Callable[[Any], object],
    miss: Callable[[Any], object],
    hits: Sequence[Any],
    misses: Sequence[Any],
) -> tuple[float, float]:
    """Hits/s and misses/s, once every hit is found and no miss is (not timed)."""
    if any(hit(key) is None for key in hits[:1000]):
        raise RuntimeError("a written origin was not found")
    if any(hit(key) is not None for key in misses[:1000]):
        raise RuntimeError("an origin never written was found")
    return lookup_rate(hit, hits), lookup_rate(miss, misses)


def fill(store: Store, data: Data) -> tuple[float, int | None]:
    """``put`` every origin: seconds, and this process's RSS growth."""
    keys = [str(o) for o in data.origins]

    def write() -> None:
        for key, record in zip(keys, data.records, strict=True):
            store.put(key, record)

    _, write_s, rss_growth = timed_writes(write)
    return write_s, rss_growth


def store_lookups(store: Store, data: Data) -> tuple[float, float]:
    """:func:`lookups` through ``store.get``."""
    hit_keys, miss_keys = [str(o) for o in data.hits], [str(o) for o in data.misses]
    return lookups(store.get, store.get, hit_keys, miss_keys)


def result(
    store: str,
    data: Data,
    write_s: float,
    hits: float,
    misses: float,
    memory: int,
    memory_is: str,
    rss_growth: int | None,
    **detail: Any,
) -> dict[str, Any]:
    count = len(data.origins)
    return {
        "store": store,
        "origins": count,
        "write_s": write_s,
        "writes_per_s": count / write_s,
        "hits_per_s": hits,
        "misses_per_s": misses,
        "memory_bytes": memory,
        "memory_per_origin": memory / count,
        "memory_is": memory_is,
        "rss_growth_bytes": rss_growth,
        "detail": detail,
    }


# --- memory: the middleware's LRU -----------------------------------------


def entry_from(record: Record) -> policy.Entry:
    """``RobotsTxtMiddleware._from_record`` for the default token."""
    rules, sitemaps = None, ()
    if record.body is not None:
        rules, sitemaps = harness.middleware_kept(record.body)
    return entry_from_record(
        record, rules, now=time.time(), ttl=policy.DEFAULT_TTL, sitemaps=sitemaps
    )


def build_lru(records: Sequence[Record]) -> OrderedDict[Origin, policy.Entry]:
    cache: OrderedDict[Origin, policy.Entry] = OrderedDict()
    for i, record in enumerate(records):
        key = origin_of(i)
        cache[key] = entry_from(record)
        cache.move_to_end(key)
    return cache


def traced_lru_bytes(records: Sequence[Record]) -> int:
    """Bytes the LRU holds once built, under tracemalloc (re cache purged,
    as in bench_memory.py, so that it holds no pattern of its own)."""
    with harness.tracing():
        built, _ = harness.kept_bytes(lambda: build_lru(records))
    return built


def bench_memory(data: Data) -> dict[str, Any]:
    for record in data.records[:50]:  # one-time allocations, module caches
        entry_from(record)
    cache, write_s, rss_growth = timed_writes(lambda: build_lru(data.records))
    now = time.time()

    def hit(key: Origin) -> object:
        entry = cache.get(key)
        if entry is not None and entry.usable(now):
            agent = None if entry.rules is None else entry.rules[TOKEN]
            cache.move_to_end(key)
            return agent
        return None

    hits, misses = lookups(hit, cache.get, data.hits, data.misses)
    cache.clear()
    gc.collect()
    start = time.perf_counter()
    traced = traced_lru_bytes(data.records)
    traced_s = time.perf_counter() - start
    return result(
        "memory",
        data,
        write_s,
        hits,
        misses,
        traced,
        "tracemalloc: parsed rules, no bodies",
        rss_growth,
        traced_build_s=traced_s,
    )


# --- sqlite ---------------------------------------------------------------


def bench_sqlite(data: Data, workdir: Path) -> dict[str, Any]:
    path = workdir / "robots.db"
    store = SqliteStore(str(path))
    try:
        write_s, rss_growth = fill(store, data)
        files = {
            suffix or "db": os.path.getsize(str(path) + suffix)
            for suffix in ("", "-wal", "-shm")
            if os.path.exists(str(path) + suffix)
        }
        hits, misses = store_lookups(store, data)
    finally:
        store.close()
    on_disk = sum(files.values())
    return result(
        "sqlite",
        data,
        write_s,
        hits,
        misses,
        on_disk,
        "file + WAL on disk",
        rss_growth,
        files=files,
        db_after_close=os.path.getsize(path),
        directory=str(workdir),
    )


# --- redis ----------------------------------------------------------------


def bench_redis(data: Data, workdir: Path) -> dict[str, Any] | str:
    """The result, or why the row is skipped."""
    executable = harness.redis_executable()
    if executable is None:
        return "redis-server is not on the PATH"
    try:
        import redis as redis_py
    except ImportError:
        return "the redis package is not installed (pip install 'scrapy-robots-rfc[redis]')"
    from scrapy_robots_rfc.stores._redis import RedisStore

    with harness.redis_server(executable, workdir) as url:
        admin = redis_py.Redis.from_url(url)
        store = RedisStore(url)
        try:
            info = admin.info("memory")
            write_s, rss_growth = fill(store, data)
            after = admin.info("memory")
            keys_stored = admin.dbsize()
            hits, misses = store_lookups(store, data)
        finally:
            store.close()
            admin.close()
    used = int(after["used_memory"]) - int(info["used_memory"])
    return result(
        "redis",
        data,
        write_s,
        hits,
        misses,
        used,
        "server used_memory growth",
        rss_growth,
        used_memory_rss_growth=int(after["used_memory_rss"]) - int(info["used_memory_rss"]),
        allocator=str(after.get("mem_allocator", "?")),
        keys=keys_stored,
        redis_server=harness.redis_version(executable),
    )


def clocked(bench: Callable[..., dict[str, Any] | str], *args: Any) -> Any:
    """``bench(*args)``, with the seconds it took as ``bench_s``."""
    start = time.perf_counter()
    outcome = bench(*args)
    if isinstance(outcome, dict):
        outcome["bench_s"] = time.perf_counter() - start
    return outcome


# --- output ---------------------------------------------------------------


def mib(value: float | None) -> str:
    return "n/a" if value is None else f"{value / 2**20:,.1f} MiB"


def report(rows: Sequence[dict[str, Any]], skipped: dict[str, str]) -> None:
    print(f"\n{rows[0]['origins'] if rows else '?':,} origins; {LOOKUPS:,} lookups per pass")
    headers = ["store", "writes/s", "hits/s", "misses/s", "memory", "per origin", "RSS growth"]
    lines = [
        [
            r["store"],
            f"{r['writes_per_s']:,.0f}",
            f"{r['hits_per_s']:,.0f}",
            f"{r['misses_per_s']:,.0f}",
            mib(r["memory_bytes"]),
            f"{r['memory_per_origin']:,.0f} B",
            mib(r["rss_growth_bytes"]),
        ]
        for r in rows
    ]
    lines += [[name, "skipped", "", "", "", "", ""] for name in skipped]
    print(harness.table(headers, lines))
    print("\nmemory is:")
    for r in rows:
        print(
            f"   {r['store']}: {r['memory_is']}; writes took {r['write_s']:.1f} s,"
            f" the whole row {r['bench_s']:.1f} s"
        )
    for name, reason in skipped.items():
        print(f"   {name}: SKIPPED: {reason}")
    print("RSS growth: this process, over the writes (the client side for sqlite and redis).")


def main(argv: Sequence[str] | None = None) -> None:
    quick = f"{QUICK_ORIGINS:,} origins, not {ORIGINS:,}"
    args = harness.arguments(__doc__, quick).parse_args(argv)
    started = time.perf_counter()
    count = QUICK_ORIGINS if args.quick else ORIGINS

    harness.title("store benchmark", args.quick)
    print(
        f"{harness.python_text()}; {harness.package_text()}; SQLite {sqlite3.sqlite_version};"
        f" redis-py {harness.version('redis')}"
    )
    data = make_data(count)
    print(f"Input: {data.source}")
    print(
        f"{count:,} origins, {data.bodies} distinct bodies, {data.body_bytes:,} body bytes"
        f" ({data.body_bytes / count:,.0f} per origin)"
    )

    rows: list[dict[str, Any]] = []
    skipped: dict[str, str] = {}
    workdir = Path(tempfile.mkdtemp(prefix="bench_stores-"))
    print(f"Temporary directory: {workdir}")
    try:
        # Memory last: the LRU's freed memory would hide the others' RSS growth.
        print("sqlite...", flush=True)
        (workdir / "sqlite").mkdir()
        rows.append(clocked(bench_sqlite, data, workdir / "sqlite"))
        print("redis...", flush=True)
        (workdir / "redis").mkdir()
        try:
            outcome = clocked(bench_redis, data, workdir / "redis")
        except (RuntimeError, StoreError, OSError) as exc:
            outcome = f"{type(exc).__name__}: {exc}"
        if isinstance(outcome, str):
            skipped["redis"] = outcome
            print(f"   redis row SKIPPED: {outcome}")
        else:
            rows.append(outcome)
        print("memory...", flush=True)
        rows.insert(0, clocked(bench_memory, data))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)

    report(rows, skipped)
    results = {
        "quick": args.quick,
        "python": platform.python_version(),
        "sqlite": sqlite3.sqlite_version,
        "redis_py": harness.version("redis"),
        "source": data.source,
        "origins": count,
        "distinct_bodies": data.bodies,
        "body_bytes": data.body_bytes,
        "lookups": LOOKUPS,
        "rounds": ROUNDS,
        "token": TOKEN,
        "results": rows,
        "skipped": skipped,
    }
    harness.finish(args.json, results, started, " (figures are reported, never asserted)")


if __name__ == "__main__":
    main()
