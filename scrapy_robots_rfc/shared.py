"""Access to the robots.txt store shared by crawlers (``ROBOTSTXT_RFC_STORE``):
calls in the store's own threads, one fetch per origin at a time through a
lock, and a fall-back to memory when the store fails (README.rst, "Sharing
robots.txt between crawlers")."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any, TypeVar

from scrapy.utils.defer import maybe_deferred_to_future

from .config import LOGGER_NAME
from .stores import store_close
from .stores.base import Record, Store, StoreError
from .waiting import sleep

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from scrapy import Spider
    from scrapy.statscollectors import StatsCollector
    from twisted.internet.defer import Deferred
    from twisted.python.threadpool import ThreadPool

    from .policy import Entry

__all__ = ["POLL_INTERVAL", "SharedStore"]

logger = logging.getLogger(LOGGER_NAME)

#: Seconds between looks at the store while another crawler fetches.
POLL_INTERVAL = 0.5

T = TypeVar("T")


class SharedStore:
    """The store, called off the reactor. On a :class:`StoreError` the
    error is logged once, the store is set aside (closed with the spider)
    and every later call answers as an empty store: the crawl goes on with
    memory only."""

    def __init__(
        self, store: Store | None, *, stats: StatsCollector, spider: Callable[[], Spider | None]
    ) -> None:
        self.store = store
        self._stats = stats
        self._spider = spider
        self._pool: ThreadPool | None = None
        self._abandoned: list[Store] = []

    async def get(self, name: str) -> Record | None:
        store = self.store
        return None if store is None else await self._call(store, None, store.get, name)

    async def put(self, name: str, record: Record) -> None:
        store = self.store
        if store is not None:
            await self._call(store, None, store.put, name, record)

    async def acquire(self, name: str, ttl: float) -> bool:
        store = self.store
        return False if store is None else await self._call(store, False, store.acquire, name, ttl)

    async def release(self, name: str, store: Store) -> None:
        """Release through ``store``, the one that gave the lock, even if it
        failed since: otherwise the others wait for the lock to expire."""
        await self._call(store, None, store.release, name)

    async def _call(self, store: Store, default: T, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)``, a method of ``store``, in the store's threads;
        ``default`` if the store fails."""
        try:
            return await maybe_deferred_to_future(self._in_thread(func, *args))
        except StoreError as exc:
            if self.store is store:
                self.store = None
                self._abandoned.append(store)
                self._stats.inc_value("robotstxt/store/error")
                logger.error(
                    "The robots.txt store failed (%(error)s); robots.txt is cached in "
                    "memory only for the rest of this crawl",
                    {"error": exc},
                    extra={"spider": self._spider()},
                )
            return default

    def _in_thread(self, func: Callable[..., T], *args: Any) -> Deferred[T]:
        """Run ``func`` in the store's thread pool, not the reactor's, which
        Scrapy's DNS resolver uses: a slow store must not stall name
        lookups."""
        from twisted.internet import reactor
        from twisted.internet.threads import deferToThreadPool
        from twisted.python.threadpool import ThreadPool

        if self._pool is None:
            self._pool = ThreadPool(minthreads=0, maxthreads=4, name="robotstxt_rfc-store")
            self._pool.start()
        return deferToThreadPool(reactor, self._pool, func, *args)

    async def fetch_once(
        self,
        name: str,
        *,
        lock_ttl: float,
        use: Callable[[Record, str], Awaitable[Entry | None]],
        fetch: Callable[[Record | None], Awaitable[tuple[Entry, Record | None]]],
    ) -> Entry:
        """The entry of origin ``name``: from the store when ``use`` finds
        its record fresh (``use`` gets the stat to count, and returns
        ``None`` for a record that is due), else from ``fetch`` (given the
        last record read), which only one crawler at a time runs; what it
        found is stored."""
        store = self.store
        record = await self.get(name)
        stat = "robotstxt/store/hit"
        # The others wait for the record of the crawler that holds the lock,
        # or fetch themselves once its lock has expired.
        give_up = time.monotonic() + lock_ttl
        locked = False
        try:
            while True:
                if record is not None:
                    entry = await use(record, stat)
                    if entry is not None:
                        return entry
                if locked or self.store is None or time.monotonic() >= give_up:
                    break
                stat = "robotstxt/store/shared"
                locked = await self.acquire(name, lock_ttl)
                if not locked:
                    await sleep(POLL_INTERVAL)
                # Read again, lock or not: reading then locking is not
                # atomic, and the crawler that held the lock may have stored
                # its copy.
                record = await self.get(name)
            entry, new = await fetch(record)
            if new is not None and entry.unreachable_since is not None:
                # Never replace a good copy another crawler stored meanwhile
                # with a failure.
                current = await self.get(name)
                if current is not None and current.good and current != record:
                    new = None
            if new is not None:
                await self.put(name, new)
            return entry
        finally:
            if locked and store is not None:
                await self.release(name, store)

    def close(self) -> None:
        for store in [*self._abandoned, self.store]:
            if store is not None:
                store_close(store)
        self.store, self._abandoned = None, []
        if self._pool is not None:
            self._pool.stop()
            self._pool = None
