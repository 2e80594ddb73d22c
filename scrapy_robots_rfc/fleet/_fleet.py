"""Held requests: in a fleet of workers that share a scrapy-redis queue,
the requests that wait for an origin's robots.txt wait in Redis, where every
worker reaches them, never in one worker's memory alone (docs/fleets.rst, "Fleets
with scrapy-redis").

RFC 9309 §2.3.1 asks a crawler to know an origin's rules before it crawls
there. A request that comes through the scheduler while its origin is
undecided is *held*: serialised the way scrapy-redis's queue serialises
requests and put in the origin's held set (:mod:`.stores._redis_fleet`).
Once the origin is decided, by whichever worker, one script moves its held
requests straight back into the scrapy-redis queue. The workers that wait
for an origin watch it; a worker that dies stops watching, and after one
``ROBOTSTXT_RFC_LEASE`` the sweep of another worker adopts the origin,
decides it and releases its requests. A worker that stops on purpose hands
its origins over at once.

A held request keeps when it first waited (its ticket's ``since``, wall clock), so
the requests of an origin that stays unreachable are dropped after
``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` (RFC 9309 §2.3.1.4) once, by whichever
worker pops them (:meth:`Fleet.admit`).

Held only when the store is Redis and the scheduler is scrapy-redis's, on the
same server and database, and ``ROBOTSTXT_RFC_HOLD`` is ``"auto"``;
otherwise requests wait in memory as they always did. Nothing outside this
package imports it: the crawl's assembly loads :class:`Fleet` by name
(:func:`.crawl._holding.fleet_class`), for a crawl on scrapy-redis, and
gives it to the parts that hold requests (:class:`.crawl.Holding`).

The fleet never calls the parts that hold it: it keeps its own count of the
requests it holds per target (what the sweep watches), and what the sweep
finds (a target released by another worker, adopted, found in the store)
and the store's return are reported as events (:data:`.crawl.HoldEvent`)
through the relay the assembly gave it.

scrapy-redis is used through what it offers: the queue object its scheduler
loaded (:func:`scheduler_queue`) gives the key, the serializer and the
client; its settings and defaults build one the same way when the engine
shows no scheduler. Only the release into the queue writes the queue's keys
itself, because it must be atomic with the held set (exactly once); what it
writes comes from one table, :data:`.stores._redis_fleet.QUEUE_LAYOUTS`
(:func:`queue_layout`), which ``tests/fleet/test_redis_fleet.py`` checks against
scrapy-redis's own ``push`` and ``pop``.
"""

from __future__ import annotations

import functools
import importlib
import logging
import secrets
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from scrapy import Request
from scrapy.utils.defer import maybe_deferred_to_future
from scrapy.utils.misc import load_object
from scrapy.utils.python import global_object_name
from scrapy.utils.request import request_from_dict
from twisted.internet.defer import Deferred

from ..crawl import (
    DROP_TOLERANCE,
    Adopted,
    Dropped,
    ExpiredLeft,
    FoundElsewhere,
    HoldingAgain,
    Outlook,
    Released,
    Ticket,
    carried,
    carry,
    on_scrapy_redis,
)
from ..policy import ROBOTS_TXT, Target, origin, target_named
from ..stores import QUEUE_LAYOUTS, Layout, QueueTarget, RedisStore

if TYPE_CHECKING:
    from collections.abc import Container, Coroutine

    from scrapy import Spider
    from scrapy.crawler import Crawler

    from .._runtime import Runtime
    from .._timers import Timer
    from ..crawl import Announcer, Config, HoldEvents, RobotsLoader
    from ..policy import Entry, LruCache, Origin
    from ..robotstxt import Token
    from ..stores import Record, RedisFleet, SharedStore

logger = logging.getLogger(__name__)

#: Origins one sweep adopts at most.
MAX_ADOPT = 16
#: The shortest time between two sweeps, in seconds.
_MIN_SWEEP = 0.5


def _scrapy_redis(module: str) -> Any:
    """scrapy-redis's ``module`` (an optional dependency, without type
    hints), imported only by a crawl whose scheduler is scrapy-redis's: 80
    ms a crawl otherwise."""
    return importlib.import_module(f"scrapy_redis.{module}")


def scheduler_queue(crawler: Crawler, spider: Spider) -> tuple[Any, bool] | None:
    """The queue object of the crawl's scrapy-redis scheduler (a
    ``scrapy_redis.scheduler.Scheduler`` or a subclass), and whether its
    Redis client is ours to close; ``None`` when the scheduler is another.

    It is the scheduler's own ``queue``, opened before ``spider_opened``
    (the engine's ``scheduler``, Scrapy 2.19; ``slot.scheduler`` before).
    An engine that shows no scheduler gets one built as scrapy-redis's
    ``Scheduler.open`` builds it: its queue class, key and serializer
    settings, with its own defaults, and a client from its ``REDIS_URL``
    settings (``scrapy_redis.connection``), which the caller closes."""
    settings = crawler.settings
    if not on_scrapy_redis(settings):
        return None
    try:
        scheduler_module = _scrapy_redis("scheduler")
    except ImportError:
        return None
    scheduler_class = load_object(settings.get("SCHEDULER"))
    if not issubclass(scheduler_class, scheduler_module.Scheduler):
        return None
    engine = crawler.engine
    scheduler = getattr(engine, "scheduler", None)
    if scheduler is None:  # not ``or``: a scheduler's truth is its queue's length
        scheduler = getattr(getattr(engine, "slot", None), "scheduler", None)
    queue = getattr(scheduler, "queue", None)
    if queue is not None:
        return queue, False
    defaults = _scrapy_redis("defaults")
    queue_class = load_object(
        settings.get("SCHEDULER_QUEUE_CLASS") or defaults.SCHEDULER_QUEUE_CLASS
    )
    key = settings.get("SCHEDULER_QUEUE_KEY") or defaults.SCHEDULER_QUEUE_KEY
    serializer = settings.get("SCHEDULER_SERIALIZER") or None
    if isinstance(serializer, str):
        serializer = importlib.import_module(serializer)
    server = _scrapy_redis("connection").get_redis_from_settings(settings)
    try:
        queue = queue_class(
            server=server, spider=spider, key=key % {"spider": spider.name}, serializer=serializer
        )
    except Exception:
        _close(server)
        raise
    return queue, True


def queue_layout(queue_class: type) -> Layout | None:
    """How ``queue_class`` lays requests out in Redis
    (:data:`.stores._redis_fleet.QUEUE_LAYOUTS`): that of the scrapy-redis
    queue class it is, or derives from and keeps the ``push`` of; ``None``
    for a class that writes requests its own way."""
    push = getattr(queue_class, "push", None)
    for cls in queue_class.__mro__:
        layout = QUEUE_LAYOUTS.get(f"{cls.__module__}.{cls.__qualname__}")
        if layout is not None:
            return layout if push is getattr(cls, "push", None) else None
    return None


def _close(client: Any) -> None:
    try:
        client.close()
    except Exception:
        logger.debug("Error closing a Redis client of scrapy-redis", exc_info=True)


class Fleet:
    """The held requests of this worker's crawl (:class:`.crawl.Holding`):
    admitting, holding, releasing, watching, adopting and handing over.

    Each target this worker adopts is reported (:class:`.crawl.Adopted`),
    with a request that stands for it (the oldest held) and when that
    request began to wait (seconds since the epoch): the crawl decides the
    target, and asks to release the held requests then (:meth:`release`).
    ``loader``, ``cache`` and ``announcer`` are the crawl's: what the store
    knows of a target is read into the cache, and said, as a fetch's
    would be.
    """

    def __init__(
        self,
        runtime: Runtime,
        crawler: Crawler,
        config: Config,
        shared: SharedStore,
        events: HoldEvents,
        *,
        loader: RobotsLoader,
        cache: LruCache[Origin, Entry],
        announcer: Announcer,
    ) -> None:
        self._runtime = runtime
        self._crawler = crawler
        self._config = config
        self._shared = shared
        self._events = events
        self._loader = loader
        self._cache = cache
        self._announcer = announcer
        #: The targets this worker holds requests for, and how many: what
        #: the sweep watches, and hands over at the close.
        self._held: dict[Target, int] = {}
        self._fleet: RedisFleet | None = None
        self._target: QueueTarget | None = None
        self._serializer: Any = None
        self._sweep_timer: Timer | None = None
        #: Set when the spider closes: a sweep under way adopts nothing more.
        self._closing = False
        #: Callbacks already named in an ERROR: their requests cannot be held.
        self._unheld: set[str] = set()
        #: Whether any origin held requests in the whole fleet at the last sweep.
        self._busy = False
        #: Set when the store failed as the spider opened: whether requests
        #: can be held is found out again when it answers.
        self._open_later = False
        #: Moves of held requests back into the queue under way (:meth:`busy`).
        self._moving = 0
        #: Fires when the work of the store's return (:meth:`_resume`) ends.
        self._resuming: Deferred[None] | None = None

    @property
    def holding(self) -> bool:
        """Whether requests are held in Redis now: the crawl's queue is
        scrapy-redis's on the store's server, and the store answers."""
        return self._fleet is not None and self._shared.available

    @property
    def busy(self) -> bool:
        """Whether any origin holds requests in the whole fleet, as the last
        sweep saw: the spider stays open, to adopt them if their worker
        dies. Not while the store fails: nothing could be adopted then.
        And while held requests are being moved back into the queue (in the
        store's threads): the queue is empty until they are there, and a
        spider closed meanwhile would lose them."""
        return (self._busy and self.holding) or self._moving > 0

    @property
    def interval(self) -> float:
        """Seconds between two sweeps: a third of the lease, so that a
        watch is renewed twice before it lapses."""
        return max(_MIN_SWEEP, self._config.lease / 3)

    # -- opening -------------------------------------------------------------

    async def open(self, spider: Spider) -> None:
        """Find out whether requests can be held (the module's docstring);
        if so, sweep at once: a worker that stopped, or died, may have left
        requests for this one."""
        self._soon(self._follow_the_store())
        await self._find_out(spider, late=False)

    async def _find_out(self, spider: Spider, *, late: bool) -> None:
        """Whether requests can be held: at spider open, or ``late``, when
        the store answers after it failed then."""
        try:
            found = scheduler_queue(self._crawler, spider)
        except Exception as exc:  # scrapy-redis's settings are its own to check
            logger.warning(
                "Requests that wait for robots.txt stay in this worker's memory: cannot "
                "build the scrapy-redis queue from the settings (%(error)s)",
                {"error": exc},
                extra={"spider": spider},
            )
            return
        if found is None:
            return
        queue, own_client = found
        try:
            await self._open(spider, queue, late=late)
        finally:
            if own_client:
                _close(queue.server)

    async def _open(self, spider: Spider, queue: Any, *, late: bool) -> None:
        settings = self._crawler.settings
        layout = queue_layout(type(queue))
        if layout is None:
            name = settings.get("SCHEDULER_QUEUE_CLASS") or global_object_name(type(queue))
            logger.warning(
                "Requests that wait for robots.txt stay in this worker's memory: "
                "SCHEDULER_QUEUE_CLASS %(queue)r writes requests its own way, and only "
                "scrapy-redis's PriorityQueue, FifoQueue and LifoQueue are known",
                {"queue": name},
                extra={"spider": spider},
            )
            return
        store = self._shared.store
        if not isinstance(store, RedisStore):
            logger.warning(
                "Requests that wait for robots.txt stay in this worker's memory, and robots.txt "
                "is fetched by each worker: set ROBOTSTXT_RFC_STORE to the Redis server of the "
                "scrapy-redis queue to share both with the other workers",
                extra={"spider": spider},
            )
            return
        target = QueueTarget(str(queue.key), layout)
        fleet = store.fleet(target.key)
        # The queue's own client: a key the store writes must read the same.
        same = await self._shared.fleet_call(fleet.probe, queue.server, default=None)
        if same is None:
            # The store failed, and said so: asked again when it answers.
            self._open_later = True
            return
        if not same:
            logger.warning(
                "Requests that wait for robots.txt stay in this worker's memory: "
                "ROBOTSTXT_RFC_STORE and the scrapy-redis queue (REDIS_URL) are not the "
                "same Redis server and database, so held requests could not go back to it",
                extra={"spider": spider},
            )
            return
        # Held requests are serialised as the queue serialises what it pushes.
        self._fleet, self._target, self._serializer = fleet, target, queue.serializer
        if late:
            # Not flushed now: other workers may have held requests since.
            self._resumed(target.key)
        else:
            if settings.getbool("SCHEDULER_FLUSH_ON_START"):
                # As scrapy-redis flushes its queue: the held requests go too.
                await self._shared.fleet_call(fleet.clear, default=0)
            logger.info(
                "Requests that wait for robots.txt are held in Redis for the scrapy-redis "
                "queue %(key)s",
                {"key": target.key},
                extra={"spider": spider},
            )
        self._sweep()

    # -- the store answers again ---------------------------------------------------

    async def _follow_the_store(self) -> None:
        """Each time the store answers again after an error
        (:meth:`.SharedStore.back_up`), until it closes: :meth:`_store_up`."""
        while await self._shared.back_up():
            self._store_up()

    def _store_up(self) -> None:
        """The store answers again: hold in Redis again, and move there
        the requests parked in memory meanwhile (:meth:`_resume`)."""
        if self._closing or (self._resuming is not None and not self._resuming.called):
            return
        done: Deferred[None] = Deferred()
        self._resuming = done

        async def resume() -> None:
            try:
                await self._resume()
            except Exception:
                self._bug("moving to Redis the requests waiting in memory for", None)
            finally:
                done.callback(None)

        self._soon(resume())

    async def _resume(self) -> None:
        spider = self._runtime.spider
        if self._closing or spider is None:
            return
        if self._fleet is None:
            if not self._open_later:
                return  # requests cannot be held in this crawl
            self._open_later = False
            await self._find_out(spider, late=True)
        elif self._target is not None:
            self._resumed(self._target.key)
        if self._fleet is not None and self.holding and self._target is not None:
            # The requests parked in memory meanwhile go to Redis: the
            # crawl moves them (each through :meth:`hold`).
            self._events.emit(HoldingAgain(self._target.key))

    def _resumed(self, key: str) -> None:
        self._runtime.stats.inc_value("robotstxt/fleet/resumed")
        logger.info(
            "The robots.txt store answers again: requests that wait for robots.txt are held "
            "in Redis for the scrapy-redis queue %(key)s from now on",
            {"key": key},
            extra=self._runtime.log,
        )

    # -- holding and releasing ---------------------------------------------------

    async def hold(self, target: Target, request: Request) -> bool:
        """Hold ``request`` for ``target`` in Redis; it returns once Redis
        has it. ``False`` when it is not held, and must wait in memory: not
        :attr:`holding`, a request that waits for one fetch only (its
        ticket's ``once``), one that cannot be serialised (logged once per
        callback), or a store error. Its ticket says when it first waited."""
        fleet = self._fleet
        ticket = carried(request)
        if fleet is None or not self.holding or ticket.once:
            return False
        since = self._runtime.clock() if ticket.since is None else ticket.since
        carry(request, replace(ticket, since=since, held=secrets.token_hex(8)))
        try:
            blob = self._serializer.dumps(request.to_dict(spider=self._runtime.spider))
        except Exception as exc:  # a user's serializer or meta may raise anything
            self._unholdable(request, ticket, exc)
            return False
        held = await self._shared.fleet_call(
            functools.partial(fleet.hold, priority=request.priority, since=since),
            target.name,
            blob,
            default=None,
            writes=f"a request that waits for {target.origin} (kept by this worker)",
        )
        if held is None:
            carry(request, ticket)
            return False
        self._held[target] = self._held.get(target, 0) + 1
        return True

    def _unholdable(self, request: Request, ticket: Ticket, error: Exception) -> None:
        carry(request, ticket)
        callback = repr(request.callback)
        if callback in self._unheld:
            return
        self._unheld.add(callback)
        logger.error(
            "Cannot hold %(request)s in Redis while it waits for robots.txt (%(error)s): "
            "it waits in this worker's memory, and is lost if the worker dies. A held request "
            "is serialised as the scrapy-redis queue serialises it (SCHEDULER_SERIALIZER); "
            "this is logged once per callback",
            {"request": request, "error": error},
            extra=self._runtime.log,
        )

    def release(self, target: Target) -> None:
        """``target`` is decided: move every request it holds back into the
        queue, in the store's threads."""
        self._held.pop(target, None)
        if self._fleet is not None:
            self._moving += 1
            self._soon(self._moved(self._release(target, None)))

    def expire(self, target: Target, limit: float) -> None:
        """Move back into the queue the requests of unreachable ``target``
        held since ``limit`` (seconds since the epoch) or earlier, for the
        worker that pops them to drop (RFC 9309 §2.3.1.4); then report what
        is left (:class:`.crawl.ExpiredLeft`)."""
        if self._fleet is not None:
            self._moving += 1
            self._soon(self._moved(self._expire(target, limit)))

    def _soon(self, work: Coroutine[Any, Any, Any]) -> None:
        self._runtime.start_soon(work)

    async def _moved(self, work: Coroutine[Any, Any, Any]) -> None:
        """Run ``work``, a move of held requests back into the queue, counted
        in :attr:`busy` until it ends."""
        try:
            await work
        finally:
            self._moving -= 1

    async def _release(self, target: Target, before: float | None) -> int | None:
        """Release ``target``'s held requests (all, or held since ``before``);
        how many it still holds, ``None`` on a store error."""
        fleet, queue = self._fleet, self._target
        if fleet is None or queue is None:
            return None
        try:
            found = await self._shared.fleet_call(
                functools.partial(fleet.release, before=before), target.name, queue, default=None
            )
        except Exception:
            self._bug("releasing the requests held for", target.origin)
            return None
        if found is None:
            return None
        moved, left = found
        if moved:
            self._runtime.stats.inc_value("robotstxt/waiting/released", moved)
        return left

    async def _expire(self, target: Target, before: float) -> None:
        fleet = self._fleet
        left = await self._release(target, before)
        if left is not None:
            if left:
                self._held[target] = left
            else:
                self._held.pop(target, None)
        oldest = None
        if left and fleet is not None:
            oldest = await self._shared.fleet_call(fleet.peek, target.name, default=None)
        # On a store error (left None, or no oldest), look again later.
        since = None if left == 0 else before if oldest is None else oldest[1]
        self._events.emit(ExpiredLeft(target, left, since))

    # -- admitting -------------------------------------------------------------------

    async def admit(
        self,
        target: Target,
        request: Request,
        ticket: Ticket | None,
        token: Token,
        keep: Container[Origin],
    ) -> Dropped | None:
        """A request missed the cache for ``target``: another worker may
        have decided it since, so the store is read (once for the requests
        that miss it at once) for a target nobody here waits for (``keep``),
        and what it knows is cached, and said as a fetch's would be; a
        request that was held for as long as it may wait is dropped (RFC
        9309 §2.3.1.4). A TDMRep file (``ROBOTSTXT_RFC_TDM``) is not
        peeked: its loader reads the store once when its life starts."""
        if target.document is not ROBOTS_TXT:
            return None
        key = target.origin
        entry = self._cache.get(key)
        if entry is None and self.holding and key not in keep:
            loaded = await self._loader.peek(key, request, token, keep=keep)
            if loaded is not None:
                said = loaded.unreachable
                if said is not None:
                    retry_in = said.retry_at - self._runtime.clock()
                    wait = self._config.unreachable_wait
                    self._announcer.unreachable(
                        key,
                        said.outcome,
                        Outlook(retry_in, None, wait),
                        good=said.good,
                        level=said.level,
                    )
                entry = loaded.entry
        if entry is not None and ticket is not None and await self._expired(target, ticket, entry):
            return Dropped(entry.outcome)
        return None

    async def _expired(self, target: Target, ticket: Ticket, entry: Entry) -> bool:
        """Whether a request that was held (``ticket``), for ``target``
        whose robots.txt is unreachable with no good copy (``entry``), has
        waited ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``: from when it first
        waited, or when the origin turned unreachable, whichever is later
        (RFC 9309 §2.3.1.4), with :data:`.DROP_TOLERANCE` for the clocks of
        workers. The stored record has the last word while requests are
        held: another worker may have reached robots.txt since ``entry``."""
        if not self._waited(ticket, entry):
            return False
        if not self.holding:
            return True
        record = await self._shared.get(target.name)
        return record is None or self._waited(ticket, record)

    def _waited(self, ticket: Ticket, state: Entry | Record) -> bool:
        since = ticket.since if ticket.held is not None else None
        unreachable_since = state.unreachable_since
        if since is None or state.good or unreachable_since is None:
            return False
        now, config = self._runtime.clock(), self._config
        if now - unreachable_since >= config.allow_after:
            return False  # allowed now (RFC 9309 §2.3.1.4)
        return now - max(since, unreachable_since) >= config.unreachable_wait - DROP_TOLERANCE

    # -- the sweep -----------------------------------------------------------------

    def _sweep(self) -> None:
        self._sweep_timer = None
        self._soon(self._sweep_once())

    async def _sweep_once(self) -> None:
        """Renew the watch of the origins this worker waits for, adopt
        orphans, and see whether the fleet holds anything."""
        try:
            fleet = self._fleet
            if fleet is not None and self.holding and not self._closing:
                await self._watch(fleet)
                await self._recheck()
                await self._adopt_orphans(fleet)
                count = await self._shared.fleet_call(fleet.held_origins, default=None)
                self._busy = bool(count)
        except Exception:
            self._bug("sweeping the requests held in", None)
        finally:
            if self._fleet is not None and not self._closing:
                self._sweep_timer = self._runtime.call_later(self.interval, self._sweep)

    async def _watch(self, fleet: RedisFleet) -> None:
        watched = {target.name: (target, held) for target, held in self._held.items()}
        if not watched:
            return
        none: list[str] = []
        gone = await self._shared.fleet_call(fleet.watch, list(watched), default=none)
        for name in gone:
            found = watched.get(name)
            if found is not None:
                # Released by another worker: what we counted is gone.
                target, held = found
                self._held.pop(target, None)
                self._events.emit(Released(target, held))

    async def _recheck(self) -> None:
        """A target this worker waits for in its backoff (its origin's cache
        entry says unreachable) may have been fetched by another worker
        since: then fetch now (the fetch reads the stored record), not at
        the end of the backoff (RFC 9309 §2.3.1.4)."""
        for target in list(self._held):
            if target.document is not ROBOTS_TXT:
                continue  # a TDMRep file waits for its own retry
            entry = self._cache.get(target.origin)
            if entry is None or entry.unreachable_since is None:
                continue
            record = await self._shared.get(target.name)
            if record is not None and record.good and record.unreachable_since is None:
                self._events.emit(FoundElsewhere(target))

    async def _adopt_orphans(self, fleet: RedisFleet) -> None:
        none: list[str] = []
        for name in await self._shared.fleet_call(fleet.adopt, MAX_ADOPT, default=none):
            if self._closing:
                # Adopted just as the spider closes: handed back at once.
                await self._shared.fleet_call(fleet.hand_over, [name], default=0)
                continue
            target = target_named(name)
            oldest = await self._shared.fleet_call(fleet.peek, name, default=None)
            if target is None or oldest is None:
                continue  # released meanwhile
            blob, since = oldest
            self._held[target] = max(1, self._held.get(target, 0))
            self._runtime.stats.inc_value("robotstxt/fleet/adopted")
            logger.info(
                "Adopted the requests held for %(origin)s, which another worker left",
                {"origin": name},
                extra=self._runtime.log,
            )
            self._events.emit(Adopted(target, self._trigger(name, blob), since))

    def _trigger(self, name: str, blob: bytes) -> Request:
        """The held request ``blob``, to fetch robots.txt for (its proxy,
        slot, headers); the origin's root if it cannot be read."""
        try:
            request = request_from_dict(self._serializer.loads(blob), spider=self._runtime.spider)
        except Exception:
            logger.debug(
                "Cannot read a request held for %s", name, exc_info=True, extra=self._runtime.log
            )
            return Request(name + "/", dont_filter=True)
        assert isinstance(request, Request)
        return request

    def _bug(self, doing: str, key: Origin | None) -> None:
        logger.error(
            "Error %(doing)s %(what)s",
            {"doing": doing, "what": "Redis" if key is None else key},
            exc_info=True,
            extra=self._runtime.log,
        )

    # -- closing ---------------------------------------------------------------------

    async def close(self, reason: str, parked: list[Request]) -> list[Request]:
        """The spider closed (``reason``) with ``parked`` still waiting in
        memory: hold them, then hand over every origin this worker waited
        for, so that the other workers, or the next run, adopt them at once.
        Returns the parked requests that could not be held (JOBDIR's, or
        abandoned)."""
        self._closing = True
        if self._sweep_timer is not None:
            self._sweep_timer.cancel()
            self._sweep_timer = None
        if self._resuming is not None and not self._resuming.called:
            # Requests on their way from memory to Redis: held, or parked again.
            await maybe_deferred_to_future(self._resuming)
        fleet = self._fleet
        if fleet is None:
            self._held.clear()
            return parked
        kept: list[Request] = []
        for request in parked:
            found = origin(request.url)
            target = None if found is None else Target(found, ROBOTS_TXT)
            if target is not None and await self.hold(target, request):
                self._runtime.stats.inc_value("robotstxt/waiting/held")
            else:
                kept.append(request)
        self._fleet = None
        names = sorted(target.name for target in self._held)
        self._held.clear()
        count = await self._shared.fleet_call(
            fleet.hand_over,
            names,
            default=0,
            writes=(
                f"the hand-over of {len(names)} origins (the other workers adopt them after "
                "ROBOTSTXT_RFC_LEASE)"
            )
            if names
            else None,
        )
        if count:
            self._runtime.stats.set_value("robotstxt/waiting/handed_over", count)
            logger.info(
                "%(count)d requests wait for robots.txt in Redis (%(key)s) after this worker "
                "closed (%(reason)s); the other workers, or the next run, send them back to "
                "the crawl",
                {"count": count, "key": fleet.index_key, "reason": reason},
                extra=self._runtime.log,
            )
        return kept
