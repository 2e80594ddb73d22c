"""Access to the robots.txt store shared by crawlers (``ROBOTSTXT_RFC_STORE``):
calls in the store's own threads, one fetch per origin at a time through a
lease that follows its holder, and memory while the store fails (docs/stores.rst,
"Stores").

The lease (``ROBOTSTXT_RFC_LEASE``) is renewed every third of its length
while the fetch runs, so it outlives a slow fetch, but not a crawler that
died: the others poll for the holder's record, and the first poll after the
lease lapsed takes it over, one crawler only. A holder whose lease was taken
over meanwhile cannot store its copy (the store's fencing).

Opening and closing never block the reactor: the store is opened (an
SQLite file connected, its tables created) in its threads by the first
call, which the other calls wait for; it is closed, and its threads
stopped, in a thread of their own, which the crawl waits for at most
:data:`CLOSE_WAIT` seconds; what a store that hangs or fails at close did
not write is said in one WARNING (docs/stores.rst, "Stores").

No call waits behind another's: a store call that cannot get a lock gives
up within the store's bound (:data:`.stores._sqlite.BUSY_TIMEOUT`), the
store is set aside, and the calls that were waiting for a thread meanwhile
are answered at once, as every later call is, until the store answers
again.
"""

from __future__ import annotations

import itertools
import logging
import threading
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar, cast

from scrapy.utils.defer import deferred_from_coro, maybe_deferred_to_future
from twisted.internet.defer import Deferred, fail, succeed

from .._logging import duration
from ._base import Record, Store, StoreBusy, StoreError
from ._circuit_breaker import StoreHealth
from ._open import SETTING, open_now, store_close, unusable

if TYPE_CHECKING:
    from collections.abc import Callable

    from twisted.internet.base import ReactorBase
    from twisted.python.failure import Failure
    from twisted.python.threadpool import ThreadPool

    from .._runtime import Runtime
    from .._timers import Timer

logger = logging.getLogger(__name__)

#: Seconds between looks at the store while another crawler fetches.
POLL_INTERVAL = 0.5
#: Seconds the spider's close waits at most for the store to close and its
#: calls under way to end: a Redis command takes at most about twice the
#: store's 2 s timeout (:class:`.RedisStore`), and a second to spare.
CLOSE_WAIT = 5.0

T = TypeVar("T")


class SharedStore:
    """The store, called off the reactor. On a :class:`StoreError` the
    store is set aside until it answers again (:class:`.StoreHealth`):
    meanwhile every call answers as an empty store, and the crawl goes on
    with memory only.

    The store is opened in its threads (:func:`.open_now`) from
    :meth:`open`, when the spider opens, or else by the first call: one
    that cannot be used is set aside for the crawl, with one ERROR; one
    that found a lock held elsewhere (:class:`.StoreBusy`), until it
    answers again.

    The runtime's ``call_later`` times the polls, the lease renewals and
    the probes; ``in_thread`` runs a store method off the
    reactor (by default in a pool of the store's own).
    """

    def __init__(
        self,
        store: Store | None,
        runtime: Runtime,
        *,
        in_thread: Callable[..., Deferred[Any]] | None = None,
    ) -> None:
        self.store = store
        #: Set when the crawl ends: nothing is stored any more (a fetch cut
        #: off by the shutdown must not be shared as "unreachable").
        self.closing = False
        self._runtime = runtime
        self._pool: ThreadPool | None = None
        #: The reactor's shutdown trigger that stops :attr:`_pool` if the
        #: store is never closed (a crawl stopped before its spider closed):
        #: the pool's threads are not daemons, and would keep the process.
        self._stop_at_shutdown: Any = None
        self._closed = False
        self._run: Callable[..., Deferred[Any]] = in_thread or self._in_pool
        #: The writes under way, by ticket, and those that failed or were
        #: skipped once the crawl was closing: what the close reports as
        #: not stored.
        self._tickets = itertools.count()
        self._writing: dict[int, str] = {}
        self._not_stored: list[str] = []
        #: Whether the store was opened (or failed to): set by the end of
        #: the first call's :func:`.open_now`, which the others wait for in
        #: :attr:`_opening`.
        self._opened = store is None
        self._opening: list[Deferred[None]] | None = None
        self._describe = str(getattr(store, "source", SETTING))
        #: ``None`` without a store, once it cannot be used, and once closed.
        self.health: StoreHealth | None = None
        #: Fires when the store is used again after an error (:meth:`back_up`).
        self._back: Deferred[bool] | None = None
        if store is not None:
            self.health = StoreHealth(
                store, runtime=runtime, describe=self._describe, in_thread=self._run
            )
            self.health.on_up.append(self._came_back)

    @property
    def available(self) -> bool:
        """Whether the store is in use: there is one, it is not closed, and
        it did not fail since it last answered."""
        return self.health is not None and self.health.up

    async def back_up(self) -> bool:
        """Wait for the store to be used again after an error: ``True`` once
        it is, ``False`` when it is closed first, or cannot be used for the
        crawl (then at once). One Deferred per outage, whoever waits."""
        if self.health is None:
            return False
        if self._back is None:
            self._back = Deferred()
        return await maybe_deferred_to_future(self._back)

    def _came_back(self) -> None:
        """:attr:`.StoreHealth.on_up`: the store is used again."""
        back, self._back = self._back, None
        if back is not None:
            back.callback(True)

    def _gone(self) -> None:
        """The store will not come back (closed, or unusable for the crawl)."""
        back, self._back = self._back, None
        if back is not None:
            back.callback(False)

    async def fleet_call(
        self, func: Callable[..., T], *args: Any, default: T, writes: str | None = None
    ) -> T:
        """``func(*args)``, a method of the store or of an object that uses
        its server, in the store's threads; ``default`` at once while the
        store is not :attr:`available`, or if ``func`` raises
        :class:`StoreError` (the store is then set aside until it answers
        again). ``writes`` says what the call stores, for the close's
        report of what was not stored. It waits for the store's opening."""
        if self.available and not self._opened:
            await maybe_deferred_to_future(self._open())
        if not self.available:
            self._unwritten(writes)
            return default
        ticket = next(self._tickets)
        if writes is not None:
            self._writing[ticket] = writes
        try:
            return await maybe_deferred_to_future(self._run(self._if_up, func, *args))
        except StoreError as exc:
            if self.health is not None:
                self.health.failed(exc)
            self._unwritten(writes)
            return default
        finally:
            self._writing.pop(ticket, None)

    def _if_up(self, func: Callable[..., T], *args: Any) -> T:
        """``func(*args)``, in the store's thread, unless the store was set
        aside while the call waited for a thread: a call queued behind one
        that waited for a lock in vain does not wait for it again. Its
        error is not counted (:meth:`.StoreHealth.failed` counts the switch
        only)."""
        if not self.available:
            raise StoreError(f"{self._describe}: set aside after an error")
        return func(*args)

    def open(self) -> None:
        """The spider opened: start opening the store in its threads, and
        return at once. A crawl's store is then ready, or said to be unusable,
        by its first request, and a crawl that makes no request still
        creates its SQLite file; the first calls wait for the opening."""
        if self.store is not None and not self._opened:
            self._open()

    def _open(self) -> Deferred[None]:
        """Fires once the store is opened, or set aside: the first call
        starts :func:`.open_now` in the store's threads, and the others wait
        for it."""
        waiter: Deferred[None] = Deferred()
        if self._opened:
            waiter.callback(None)
            return waiter
        starting = self._opening is None
        if self._opening is None:
            self._opening = []
        self._opening.append(waiter)
        if starting:
            assert self.store is not None  # _opened is True without one
            self._run(open_now, self.store).addBoth(self._open_ended)
        return waiter

    def _open_ended(self, result: object) -> None:
        from twisted.python.failure import Failure

        self._opened = True
        waiters, self._opening = self._opening or [], None
        if isinstance(result, Failure):
            self._open_failed(result)
        for waiter in waiters:
            if not waiter.called:  # a close that stopped waiting (close())
                waiter.callback(None)

    def _open_failed(self, failure: Failure) -> None:
        """The store's ``open()`` raised: a lock held elsewhere sets it aside
        until it answers again; anything else, for the crawl."""
        health = self.health
        if health is None:  # closed meanwhile
            return
        error = failure.value
        if isinstance(error, StoreBusy):
            health.failed(error)
            return
        if isinstance(error, StoreError):
            unusable(error, self._runtime.log)
        else:  # a bug, ours or the store's
            logger.error(
                "Error opening the robots.txt store %(store)s; robots.txt is cached in memory "
                "only for this crawl",
                {"store": self._describe},
                exc_info=error,
                extra=self._runtime.log,
            )
        health.close()
        self.health = None
        self._gone()

    def _unwritten(self, writes: str | None) -> None:
        if writes is not None and self.closing:
            self._not_stored.append(writes)

    async def get(self, name: str) -> Record | None:
        store = self.store
        return None if store is None else await self.fleet_call(store.get, name, default=None)

    async def put(self, name: str, record: Record) -> bool:
        """Store ``record``; ``False`` only when the store refused it: our
        lease was taken over since (fencing)."""
        store = self.store
        if store is None:
            return True
        return await self.fleet_call(
            store.put, name, record, default=True, writes=f"the robots.txt record of {name}"
        )

    async def acquire(self, name: str, lease: float) -> bool:
        store = self.store
        if store is None:
            return False
        return await self.fleet_call(store.acquire, name, lease, default=False)

    async def renew(self, name: str, lease: float) -> bool:
        """Extend our lease on ``name`` to ``lease`` seconds from now;
        ``False`` when it is no longer ours. While the store fails nobody can
        take the lease over: ``True``."""
        store = self.store
        if store is None:
            return True
        return await self.fleet_call(store.renew, name, lease, default=True)

    async def release(self, name: str) -> None:
        """Give our lease back; while the store fails it lapses by itself."""
        store = self.store
        if store is not None:
            await self.fleet_call(store.release, name, default=None)

    def _in_pool(self, func: Callable[..., T], *args: Any) -> Deferred[T]:
        """Run ``func`` in the store's thread pool, not the reactor's, which
        Scrapy's DNS resolver uses: a slow store must not stall name
        lookups."""
        from twisted.internet import reactor
        from twisted.internet.threads import deferToThreadPool
        from twisted.python.threadpool import ThreadPool

        if self._closed:  # never a new pool once closed
            return fail(StoreError(f"{self._describe}: the store is closed"))
        if self._pool is None:
            self._pool = ThreadPool(minthreads=0, maxthreads=4, name="robotstxt_rfc-store")
            self._pool.start()
            # As the reactor does for its own pool.
            self._stop_at_shutdown = cast("ReactorBase", reactor).addSystemEventTrigger(
                "during", "shutdown", self._pool.stop
            )
        return deferToThreadPool(reactor, self._pool, func, *args)

    async def _sleep(self, seconds: float) -> None:
        d: Deferred[None] = Deferred()
        self._runtime.call_later(seconds, lambda: d.callback(None))
        await maybe_deferred_to_future(d)

    async def claim(self, name: str, *, lease: float) -> Claim:
        """What the store says of origin ``name``'s record, for a crawler
        that needs it decided: :class:`InForce` when its record decides it
        (the caller uses it), :class:`Ours` when this crawler holds the
        lease on fetching it (the caller fetches, then keeps what it found
        with :meth:`Lease.keep`), :class:`Unshared` when the store is away
        (the caller fetches, and nothing is stored).

        The others wait, polling every :data:`POLL_INTERVAL` for the
        holder's record with no time limit: the lease bounds a holder that
        died, and the first poll after it lapsed takes it over, so one
        crawler fetches in its place and the others go on waiting for its
        record."""
        record = await self.get(name)
        waited = False
        while True:
            if record is not None and record.in_force(self._runtime.clock()):
                return InForce(record, waited)
            if not self.available:
                return Unshared(record)
            waited = True
            if await self.acquire(name, lease):
                # Read again: reading then leasing is not atomic, and the
                # holder may have stored its copy meanwhile.
                record = await self.get(name)
                if record is not None and record.in_force(self._runtime.clock()):
                    await self.release(name)
                    return InForce(record, waited)
                return Ours(record, Lease(self, self._runtime, name, lease, record))
            await self._sleep(POLL_INTERVAL)
            record = await self.get(name)

    def close(self) -> Deferred[bool]:
        """The crawl is over: stop probing, then close the store and stop
        its threads, in a thread of their own: the reactor never waits for
        them. The Deferred fires with ``True`` once they are, or with
        ``False`` after :data:`CLOSE_WAIT` seconds (the threads end by
        themselves, within the store's own timeouts). What was not stored,
        if anything, is said in one WARNING.

        An opening under way (the spider's, :meth:`open`) ends first, for
        at most :data:`CLOSE_WAIT` seconds more: what it set up is kept (a
        crawl that made no request still leaves its SQLite file)."""
        self.closing = True
        if self._opening is None:
            return self._close()
        opened: Deferred[None] = Deferred()
        self._opening.append(opened)
        timed_out = False

        def give_up() -> None:
            nonlocal timed_out
            timed_out = True
            if not opened.called:
                opened.callback(None)

        timer = self._runtime.call_later(CLOSE_WAIT, give_up)

        def then(_: None) -> Deferred[bool]:
            if not timed_out:
                timer.cancel()
            return self._close()

        return opened.addCallback(then)

    def _close(self) -> Deferred[bool]:
        self._closed = True
        if self.health is not None:
            self.health.close()
            self.health = None
        self._gone()
        describe = self._describe
        store, self.store = self.store, None
        pool, self._pool = self._pool, None
        if self._stop_at_shutdown is not None:
            from twisted.internet import reactor

            trigger, self._stop_at_shutdown = self._stop_at_shutdown, None
            try:
                cast("ReactorBase", reactor).removeSystemEventTrigger(trigger)
            except ValueError:  # the reactor is shutting down: it stopped the pool
                pool = None
        if store is None and pool is None:
            self._report_unwritten(describe, timed_out=False)
            return succeed(True)
        from twisted.internet import reactor

        done: Deferred[bool] = Deferred()

        def finish(closed: bool) -> None:
            if done.called:
                return
            if closed:
                timer.cancel()
            self._report_unwritten(describe, timed_out=not closed)
            done.callback(closed)

        def stop() -> None:
            try:
                # First: the store lets go of its connections, and the calls
                # under way fail or end soon.
                if store is not None:
                    store_close(store)
                if pool is not None:
                    pool.stop()  # joins its threads: their calls end first
            finally:
                reactor.callFromThread(finish, True)

        timer = self._runtime.call_later(CLOSE_WAIT, lambda: finish(False))
        threading.Thread(target=stop, name="robotstxt_rfc-store-close", daemon=True).start()
        return done

    def _report_unwritten(self, describe: str, *, timed_out: bool) -> None:
        """The one WARNING of a store that hung (``timed_out``) or failed at
        close, with what it did not store."""
        lost = [*self._not_stored, *(self._writing.values() if timed_out else ())]
        self._not_stored = []
        stats = self._runtime.stats
        if timed_out:
            stats.inc_value("robotstxt/store/close_timeout")
        if not lost and not timed_out:
            return
        if lost:
            stats.inc_value("robotstxt/store/not_stored", len(lost))
        counted = Counter(lost)
        what = "; ".join(f"{w} (x{n})" if n > 1 else w for w, n in counted.items()) or "nothing"
        if timed_out:
            line = (
                "The robots.txt store %(store)s did not close within %(wait)s s of the spider "
                "closing; not stored, or not known to be: %(what)s"
            )
        else:
            line = (
                "The robots.txt store %(store)s failed as the spider closed; not stored: %(what)s"
            )
        logger.warning(
            line,
            {"store": describe, "wait": duration(CLOSE_WAIT), "what": what},
            extra=self._runtime.log,
        )


class Lease:
    """This crawler's lease on fetching one origin's robots.txt (RFC 9309
    §2.4, CACHE-2: one fetch for every crawler that shares the store),
    renewed every third of its length while the fetch runs, until
    :meth:`keep` or :meth:`drop`. ``read``: the record the claim read, due."""

    def __init__(
        self, shared: SharedStore, runtime: Runtime, name: str, lease: float, read: Record | None
    ) -> None:
        self._shared = shared
        self._runtime = runtime
        self._name = name
        self._lease = lease
        self._read = read
        self._every = lease / 3
        self._stopped = False
        self._timer: Timer | None = runtime.call_later(self._every, self._tick)

    async def keep(self, record: Record | None) -> None:
        """Store ``record``, what the fetch found (``None``: nothing to
        store), then give the lease back. A failure never replaces a good
        copy another crawler stored meanwhile; a lease taken over since
        stores nothing (the store's fencing)."""
        try:
            shared, name = self._shared, self._name
            if record is not None and record.unreachable_since is not None:
                current = await shared.get(name)
                if current is not None and current.good and current != self._read:
                    record = None
            if record is not None and not shared.closing and not await shared.put(name, record):
                self._runtime.stats.inc_value("robotstxt/store/fenced")
                logger.debug(
                    "Another crawler took over fetching the robots.txt of %(origin)s: its "
                    "copy is kept in ROBOTSTXT_RFC_STORE, not this one",
                    {"origin": name},
                    extra=self._runtime.log,
                )
        finally:
            await self.drop()

    async def drop(self) -> None:
        """Give the lease back without storing anything."""
        self._stop()
        await self._shared.release(self._name)

    def _tick(self) -> None:
        self._timer = None
        if not self._stopped:
            deferred_from_coro(self._renew())

    async def _renew(self) -> None:
        renewed = await self._shared.renew(self._name, self._lease)
        if self._stopped:
            return
        if renewed:
            self._timer = self._runtime.call_later(self._every, self._tick)
        else:
            self._stop()
            self._lost()

    def _lost(self) -> None:
        """The lease lapsed before the fetch ended (the crawler stalled, or
        the store was away longer than the lease)."""
        self._runtime.stats.inc_value("robotstxt/lock/lost")
        logger.warning(
            "The lease on fetching the robots.txt of %(origin)s lapsed before the fetch "
            "ended (ROBOTSTXT_RFC_LEASE is %(lease)s s): another crawler may fetch it too, "
            "and then its copy is the one kept",
            {"origin": self._name, "lease": duration(self._lease)},
            extra=self._runtime.log,
        )

    def _stop(self) -> None:
        self._stopped = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


@dataclass(frozen=True, slots=True)
class InForce:
    """The stored record decides the origin: use it. ``waited``: another
    crawler's fetch was waited for (``robotstxt/store/shared``), rather
    than found there at once (``robotstxt/store/hit``)."""

    record: Record
    waited: bool


@dataclass(frozen=True, slots=True)
class Ours:
    """This crawler fetches the origin's robots.txt, holding ``lease``;
    ``record``: the last one read, due (``None``: none)."""

    record: Record | None
    lease: Lease


@dataclass(frozen=True, slots=True)
class Unshared:
    """The store is away: fetch, and store nothing. ``record``: the last
    one read, due (``None``: none)."""

    record: Record | None


#: What :meth:`SharedStore.claim` answers.
Claim = InForce | Ours | Unshared
