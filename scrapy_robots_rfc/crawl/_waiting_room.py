"""The waiting room: requests whose origin's robots.txt is not decided yet.

A request that comes through the scheduler is *parked*: taken out of the
scheduler, so that it holds none of ``CONCURRENT_REQUESTS`` while it waits,
and sent back to the engine when its origin is decided. A request that
never passed the scheduler (``engine.download``) waits *in place*, inside
``process_request``. In a fleet on scrapy-redis, a request from the
scheduler is *held* in Redis instead (:mod:`.fleet`), and the room only
counts and watches it. While robots.txt is unreachable, the retry timer
fetches it again when the backoff ends (RFC 9309 §2.3.1.4), and the drop
timer sends back, to be dropped, what waited longer than
``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.

Before a request waits, the room says where its origin stands for it
(:meth:`WaitingRoom.cached`, :meth:`WaitingRoom.shared`,
:meth:`WaitingRoom.may_not_wait`). Each origin's life is a
:class:`.policy.OriginLife`: the room turns what happens into its events
and runs the actions it answers with, itself: it starts the
robots.txt loads (:class:`.RobotsLoader`), gives requests back to the
engine, and holds them through its hold (:mod:`.crawl._holding`). Nothing
here calls back into the middleware.

The clocks and ``call_later`` come with the :class:`.Runtime`, so that
tests drive the timers with ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from twisted.internet.defer import Deferred

from .._logging import duration
from ..policy import (
    Action,
    ArmTimer,
    CancelTimer,
    CountWaiting,
    Drop,
    DropFired,
    Event,
    ExpireHeld,
    FetchEnded,
    FetchWanted,
    Forget,
    HeldLeft,
    HoldOne,
    OriginLife,
    Park,
    PutAside,
    Release,
    ReleaseHeld,
    Repark,
    RetryFired,
    RetryNow,
    SendBack,
    SpiderClosed,
    Standing,
    StartFetch,
    Unheld,
    Unpark,
    Unparked,
    WaitInPlace,
    WarnDropping,
    WarnUnreachable,
    standing,
)
from ..policy import Timer as LifeTimer
from ._fetcher import Fetcher
from ._holding import HOLD_KEY, SINCE_KEY, MemoryHold, hold_class, let_go
from ._kept_responses import TAKER_KEY
from ._robots_loader import RobotsLoader

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy.crawler import Crawler
    from scrapy.http import Request

    from .._runtime import Runtime
    from .._timers import Timer
    from ..policy import Entry, LruCache, Origin, Origins
    from ..robotstxt import AgentRules, Token
    from ..stores import SharedStore
    from ._config import Config
    from ._crawler_names import CrawlerNames
    from ._kept_responses import KeptResponses
    from ._report import Report
    from ._robots_loader import Unreachable

logger = logging.getLogger(__name__)

#: Set on a request that waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``
#: and was sent back to the engine to be dropped; kept in ``meta`` so that it
#: survives a disk queue.
DROP_KEY = "_robotstxt_rfc_drop"
#: In a fleet, set by the ``request_scheduled`` handler (and on a request
#: held in Redis) and taken off again by ``process_request``: the request
#: came through the scheduler, so it can be sent back to it to wait. A
#: ``meta`` key rather than the request's identity, because a queue in Redis
#: or in ``JOBDIR`` gives back a new object (:meth:`WaitingRoom.from_scheduler`).
SCHEDULED_KEY = "_robotstxt_rfc_scheduled"
#: On a request that was sent back to the scheduler with ``dont_filter``
#: set only for that; ``process_request`` clears the flag again, so that
#: redirects and offsite filtering treat it as the user made it.
FILTER_KEY = "_robotstxt_rfc_filter"
#: On a request that waits for the robots.txt fetch under way, or started
#: for it, but not for a retry: when the fetch finds robots.txt unreachable,
#: the request is dropped at once (``scrapy robots`` without ``--wait``).
#: Honoured for requests that come through the scheduler.
NO_WAIT_KEY = "_robotstxt_rfc_no_wait"


@dataclass(frozen=True, slots=True)
class Outlook:
    """What happens next to the requests of an unreachable origin: the
    delay of the retry timer (RFC 9309 §2.3.1.4) and when the drop timer
    sends them back (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``).

    >>> print(Outlook(retry_in=30, drop_in=600, wait=600))
    requests to it wait until it answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=3, wait=3))
    requests to it will be dropped in 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=None, wait=600, dropped=1))
    1 request that may not wait for a retry is dropped now; the next try is due in 30 s
    """  # noqa: E501

    #: Seconds until robots.txt is fetched again.
    retry_in: float
    #: Seconds until the longest-waiting request is dropped; ``None`` when
    #: no request waits now (the next one waits ``wait`` at most).
    drop_in: float | None
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    wait: float
    #: Requests that waited for this fetch only (:data:`NO_WAIT_KEY`, as
    #: ``scrapy robots`` without ``--wait``): they are dropped now.
    dropped: int = 0

    def describe(self, subject: str = "requests to it") -> str:
        """The outlook in words, for the WARNING of an unreachable origin:
        what happens to the requests that may not wait, if any, then to
        those that do."""
        if not self.dropped:
            return self._waits(subject)
        count = self.dropped
        gone = (
            f"{count} request{'s' * (count != 1)} that may not wait for a retry "
            f"{'is' if count == 1 else 'are'} dropped now"
        )
        if self.drop_in is None:  # no other request waits: no wait to announce
            return f"{gone}; the next try is due in {duration(self.retry_in)} s"
        return f"{gone}; {self._waits('the others')}"

    def _waits(self, subject: str) -> str:
        """What happens to the requests that wait, ``subject``."""
        retry = duration(self.retry_in)
        if self.wait <= 0:
            return (
                f"{subject} are dropped at once (ROBOTSTXT_RFC_UNREACHABLE_WAIT is 0); "
                f"next try in {retry} s"
            )
        waiting_now = self.drop_in is not None
        limit = self.wait if self.drop_in is None else self.drop_in
        drop = duration(limit)
        if limit <= self.retry_in:  # dropped before the next try can answer
            when = f"will be dropped in {drop} s" if waiting_now else f"are dropped after {drop} s"
            return (
                f"{subject} {when} (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
                f"before the next try in {retry} s"
            )
        more = " more" if waiting_now else ""
        return (
            f"{subject} wait until it answers, at most {drop} s{more} "
            f"(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in {retry} s"
        )

    def __str__(self) -> str:
        return self.describe()


@dataclass(eq=False)
class Waiting:
    """An origin whose robots.txt is being fetched, or is unreachable, and
    the requests that wait for it: what the fetch needs and the timers'
    handles here; the waiting life itself, every decision on it, in
    :class:`.policy.OriginLife` (the fields below read it)."""

    #: The request that triggered the current fetch: its proxy and slot are
    #: used, and ``robots_parsed`` receives it.
    trigger: Request
    #: Product tokens the next parse must keep rules for.
    tokens: set[Token] = field(default_factory=set)
    #: The taker ids of the spider requests for this robots.txt itself
    #: that wait: the fetch that decides the origin keeps its response for
    #: them (:mod:`.crawl._kept_responses`); one that is dropped meanwhile leaves the set.
    asked: set[str] = field(default_factory=set)
    retry_timer: Timer | None = None
    drop_timer: Timer | None = None
    #: The state machine of the origin's waiting life.
    life: OriginLife[Request, Deferred[str | None]] = field(default_factory=lambda: OriginLife(0.0))

    @property
    def fetching(self) -> bool:
        """A fetch is under way."""
        return self.life.fetching

    @fetching.setter
    def fetching(self, value: bool) -> None:
        self.life.fetching = value

    @property
    def unreachable_at(self) -> float | None:
        """When a fetch first found the origin unreachable (monotonic):
        ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` counts from here or from when the
        request began to wait, whichever is later."""
        return self.life.unreachable_at

    @unreachable_at.setter
    def unreachable_at(self, value: float | None) -> None:
        self.life.unreachable_at = value

    @property
    def parked(self) -> deque[tuple[Request, float]]:
        """Requests taken out of the scheduler, with when they began to
        wait, oldest first."""
        return self.life.parked

    @property
    def in_place(self) -> deque[tuple[Deferred[str | None], float]]:
        """Deferreds of requests waiting inside ``process_request``, fired
        with ``None`` to decide again, or a reason to drop."""
        return self.life.in_place

    @property
    def no_wait(self) -> list[Request]:
        """Parked requests that wait for the fetch under way only
        (:data:`NO_WAIT_KEY`)."""
        return self.life.no_wait

    @property
    def held(self) -> int:
        """Requests held in Redis for the origin that this worker watches
        (:mod:`.fleet`), as far as it knows."""
        return self.life.held

    @property
    def held_since(self) -> float | None:
        """When the longest-held of them began to wait (monotonic clock)."""
        return self.life.held_since

    def has_waiters(self) -> bool:
        return self.life.has_waiters()


class WaitingRoom:
    """Every origin whose robots.txt is not decided yet, and the requests
    that wait for it: turns what happens to an origin into events for its
    :class:`.policy.OriginLife` and runs the actions it answers with. It
    starts the fetches (:class:`.RobotsLoader`), arms the timers, gives
    requests back to the engine, drops them, and holds them in Redis through
    its hold (:class:`.MemoryHold`, or the fleet's room on scrapy-redis).
    """

    def __init__(
        self,
        runtime: Runtime,
        crawler: Crawler,
        config: Config,
        *,
        cache: LruCache[Origin, Entry],
        report: Report,
        shared: SharedStore,
        kept: KeptResponses,
        names: CrawlerNames,
        origins: Origins,
    ) -> None:
        self.wait = config.unreachable_wait
        #: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` in seconds (RFC 9309 §2.3.1.4).
        self._allow_after = config.allow_after
        self._runtime = runtime
        self._crawler = crawler
        self._config = config
        self._cache = cache
        self._report = report
        self._kept = kept
        self._names = names
        self._origins: dict[Origin, Waiting] = {}
        #: Copies returned by ``process_request`` that the
        #: ``request_scheduled`` handler is to park.
        self._to_park: dict[Request, Origin] = {}
        #: Copies returned by ``process_request`` once held in Redis: the
        #: ``request_scheduled`` handler keeps them out of the scheduler.
        self._held_copies: set[Request] = set()
        #: Origins already named in a "Dropping requests" warning.
        self._warned: set[Origin] = set()
        fetcher = Fetcher(runtime, crawler, config)
        #: Loads robots.txt; the cache never evicts an origin that waits.
        self.loader = RobotsLoader(
            runtime,
            crawler,
            config,
            cache,
            report,
            fetcher,
            shared,
            origins,
            token=names.token,
            keep=self._origins,
        )
        #: Where requests from the scheduler wait: in memory, or in Redis.
        self.hold = hold_class(config, crawler.settings)(runtime, crawler, config, shared, self)
        #: Whether every request from the scheduler is marked
        #: (:data:`SCHEDULED_KEY`): in a fleet, whose held requests come back
        #: from Redis; the ``request_scheduled`` handler is then connected
        #: while the spider is open. Otherwise it is connected only while
        #: copies are on their way to be parked (:meth:`from_scheduler`).
        self._marks = type(self.hold) is not MemoryHold
        #: Whether the ``request_scheduled`` handler (:meth:`scheduled`) is
        #: connected.
        self._listening = False

    def __contains__(self, key: object) -> bool:
        return key in self._origins

    def get(self, key: Origin) -> Waiting | None:
        return self._origins.get(key)

    def join(self, key: Origin, trigger: Request, token: Token) -> Waiting:
        """``key``'s waiting list, opened for ``trigger`` if there is none;
        ``token`` is a name whose rules the next parse must keep."""
        waiting = self._origins.get(key)
        if waiting is None:
            waiting = self._origins[key] = Waiting(trigger, life=OriginLife(self.wait))
        waiting.tokens.add(token)
        return waiting

    def busy(self) -> bool:
        """Whether any request waits, here or held anywhere in the fleet
        (the spider must not close)."""
        return self.hold.busy or self.waiting()

    def waiting(self) -> bool:
        """Whether any request waits for this worker."""
        return any(waiting.has_waiters() for waiting in self._origins.values())

    def waiting_requests(self) -> int:
        """How many requests wait for this worker now: parked or in place
        (the ones held in Redis are the fleet's)."""
        return sum(
            len(waiting.parked) + len(waiting.in_place) + len(waiting.no_wait)
            for waiting in self._origins.values()
        )

    def fetching(self) -> bool:
        """Whether a robots.txt fetch is under way."""
        return any(waiting.fetching for waiting in self._origins.values())

    def held(self) -> list[tuple[Origin, Waiting]]:
        """The origins for which requests are held in Redis."""
        return [(key, waiting) for key, waiting in self._origins.items() if waiting.held]

    # -- where an origin stands ------------------------------------------------

    def cached(
        self, key: Origin, request: Request, token: Token
    ) -> tuple[Entry, AgentRules | None] | None:
        """The usable entry of ``key`` in this worker's cache that keeps
        rules for ``token`` (or has none: allow all), and those rules;
        ``None`` on a miss (in a fleet, :meth:`shared` may then find it). A
        good copy in force while robots.txt is unreachable is fetched again
        when its backoff is due (RFC 9309 §2.3.1.4)."""
        return self._decided(key, self._cache.get(key), request, token)

    async def shared(
        self, key: Origin, request: Request, token: Token
    ) -> tuple[Entry, AgentRules | None] | None:
        """As :meth:`cached`, after a miss there, from the store: in a
        fleet, an origin that this worker has no entry for and no one here
        waits for costs one store read (another worker may have decided
        it); ``None`` otherwise."""
        if not self.hold.holding or key in self._origins or self._cache.get(key) is not None:
            return None
        loaded = await self.loader.peek(key, request, token)
        if loaded is None:
            return None
        self._announce(key, loaded.unreachable)
        return self._decided(key, loaded.entry, request, token)

    def _decided(
        self, key: Origin, entry: Entry | None, request: Request, token: Token
    ) -> tuple[Entry, AgentRules | None] | None:
        """``entry`` and its rules for ``token`` if it decides ``request``
        now (:func:`.policy.standing`), with what a hit does: the entry is
        marked as just used, a due retry starts, a request held in Redis is
        let go."""
        if entry is None:
            return None
        where = standing(entry, token, self._runtime.clock(), self._allow_after)
        if where is not Standing.DECIDED and where is not Standing.RETRY_DUE:
            return None
        self._cache.touch(key)
        if where is Standing.RETRY_DUE:  # a good copy in force while unreachable
            self.need(key, request, token)
        meta = request.meta
        if HOLD_KEY in meta or SINCE_KEY in meta:  # it was held in Redis
            let_go(request)
        rules = entry.rules
        return entry, None if rules is None else rules.get(token)

    async def may_not_wait(self, key: Origin, request: Request, token: Token) -> str | None:
        """Why ``request``, for an undecided origin, is dropped at once, or
        ``None`` if it may wait: held in Redis long enough (:mod:`.fleet`),
        or unreachable and in its backoff while it may not wait
        (:meth:`.OriginLife.may_not_wait`)."""
        entry = self._cache.get(key)
        if entry is None:
            return None
        if await self.hold.expired(key, request, entry):
            return entry.outcome
        where = standing(entry, token, self._runtime.clock(), self._allow_after)
        if where is Standing.BACKOFF and self.no_time_to_wait(key, request):
            return entry.outcome
        return None

    # -- coming in -----------------------------------------------------------

    def need(self, key: Origin, trigger: Request, token: Token) -> Waiting:
        """``trigger`` needs ``key`` decided: fetch it, unless a fetch is
        under way or, unreachable, its backoff has not ended (RFC 9309
        §2.3.1.4)."""
        entry = self._cache.get(key)
        now = self._runtime.clock()
        waiting = self.join(key, trigger, token)
        if waiting.fetching:
            return waiting
        waiting.trigger = trigger
        if entry is None or entry.unreachable_since is None or entry.due(now):
            event = FetchWanted(self._runtime.monotonic())
        else:
            event = FetchWanted(self._runtime.monotonic(), entry.retry_at - now, entry.outcome)
        self._handle(key, waiting, event)
        return waiting

    async def park(self, key: Origin, request: Request, taker: str | None) -> Request:
        """The copy of scheduled ``request`` that waits out of the
        downloader, carrying ``taker``: held in Redis in a fleet, else
        parked by the ``request_scheduled`` handler (:meth:`scheduled`).
        ``dont_filter`` lets the copy past the dupefilter, which has seen
        the request once; it is set back on the verdict."""
        copy = request
        if not request.dont_filter:
            copy = request.replace(dont_filter=True)
            copy.meta[FILTER_KEY] = True
        if taker is not None:
            copy.meta[TAKER_KEY] = taker
        if not await self.hold.hold(key, copy):
            self.park_when_scheduled(copy, key)
            return copy
        self.park_when_scheduled(copy, key, in_store=True)
        if not self.held_one(key, self.hold.waited_since(copy)):
            self.hold.release_soon(key)  # decided while Redis took it
        return copy

    def park_when_scheduled(self, copy: Request, key: Origin, *, in_store: bool = False) -> None:
        """Park ``copy`` when the scheduler receives it (:meth:`scheduled`);
        if it is held ``in_store``, only keep it out of the scheduler."""
        self._listen(True)
        if in_store:
            self._held_copies.add(copy)
        else:
            self._to_park[copy] = key

    def from_scheduler(self, request: Request) -> bool:
        """Whether ``request``, in ``process_request``, came through the
        scheduler, so that it can wait out of the downloader (parked)
        rather than in place. In a fleet the ``request_scheduled`` handler
        says so (:data:`SCHEDULED_KEY`). Otherwise every request did,
        except a copy that :meth:`park` gave back and that came back
        without passing the scheduler: ``engine.download_async`` downloads
        what ``process_request`` returns itself. So no handler runs for
        each request: it is connected only while copies are on their way
        to be parked, and disconnected here, outside its signal's dispatch."""
        marked = request.meta.pop(SCHEDULED_KEY, False)
        if self._marks:
            return bool(marked)
        to_park = self._to_park
        if not to_park:
            if self._listening:
                self._listen(False)
            return True
        return to_park.pop(request, None) is None

    def listen(self) -> None:
        """The spider opened: in a fleet, connect the ``request_scheduled``
        handler, held by a strong reference, which PyDispatcher calls
        without the three Python calls of its weak reference to a bound
        method, until :meth:`stop_listening`."""
        if self._marks:
            self._listen(True)

    def stop_listening(self) -> None:
        """The spider closed: disconnect the handler if it is connected."""
        self._listen(False)

    def _listen(self, on: bool) -> None:
        if on != self._listening:
            manager = self._crawler.signals
            how = manager.connect if on else manager.disconnect
            how(self.scheduled, signal=signals.request_scheduled, weak=False)
            self._listening = on

    def scheduled(self, request: Request, **kwargs: Any) -> None:
        """The ``request_scheduled`` handler: park a request
        ``process_request`` sent back, or, in a fleet, mark one that came
        through the scheduler (:data:`SCHEDULED_KEY`). ``**kwargs``:
        PyDispatcher then passes the signal's arguments as they are instead
        of matching them to the parameters, for every request."""
        if request in self._held_copies:
            self._held_copies.discard(request)
            raise IgnoreRequest  # Redis has it
        key = self._to_park.pop(request, None)
        if key is not None and (waiting := self._origins.get(key)) is not None:
            no_wait = bool(request.meta.get(NO_WAIT_KEY))
            actions = self._handle(key, waiting, Park(request, self._runtime.monotonic(), no_wait))
            if not any(isinstance(action, SendBack) for action in actions):
                raise IgnoreRequest  # keeps it out of the scheduler; the engine logs nothing
        # Into the scheduler: not a copy to park, its origin decided meanwhile,
        # or sent back (no fetch under way for a no-wait request): decided again.
        if self._marks:
            request.meta[SCHEDULED_KEY] = True

    def wait_in_place(self, key: Origin, waiting: Waiting) -> Deferred[str | None]:
        """Wait inside ``process_request``: the Deferred fires with ``None``
        once ``key`` is decided, or with why the request is dropped."""
        d: Deferred[str | None] = Deferred()
        self._handle(key, waiting, WaitInPlace(d, self._runtime.monotonic()))
        return d

    def let_taker_go(self, key: Origin, taker: str) -> None:
        """A spider request for ``key``'s robots.txt that waited for a fetch
        as ``taker`` will not take its share: it was dropped."""
        waiting = self._origins.get(key)
        if waiting is not None:
            waiting.asked.discard(taker)
        self._kept.release(key, taker)

    def adopt(self, key: Origin, trigger: Request, since: float) -> None:
        """Decide ``key``, whose held requests this worker adopted from
        another (:mod:`.fleet`); ``trigger`` stands for them, the oldest of
        which began to wait at ``since`` (wall clock)."""
        entry = self._cache.get(key)
        if entry is not None and entry.usable(self._runtime.clock(), self._allow_after):
            self.hold.release_soon(key)
            return
        token = self._names.of(trigger)
        waiting = self.join(key, trigger, token)
        self.adopted(key, waiting, self.hold.to_monotonic(since))
        self.need(key, trigger, token)

    def release(self, requests: Iterable[Request]) -> None:
        """Give ``requests`` back to the engine."""
        engine = self._crawler.engine
        for request in requests:
            try:
                engine.crawl(request)
            except Exception:  # the engine is closing
                logger.error(
                    "Could not send %(request)s back to the engine after it waited for robots.txt",
                    {"request": request},
                    exc_info=True,
                    extra=self._runtime.log,
                )

    # -- held in Redis (:mod:`.fleet`) ------------------------------------------

    def held_one(self, key: Origin, since: float, *, count: bool = True) -> bool:
        """A request that began to wait at ``since`` (monotonic) is held in
        Redis for ``key`` (``count``: a request that waits, not one moved
        from memory, :meth:`unpark`); ``False`` if ``key`` was decided
        meanwhile (the caller releases it)."""
        waiting = self._origins.get(key)
        if waiting is None:
            return False
        self._handle(key, waiting, HoldOne(since, self._runtime.monotonic(), count=count))
        return True

    def unpark(self) -> list[tuple[Origin, tuple[tuple[Request, float], ...]]]:
        """Take every parked request out of memory, with when it began to
        wait (monotonic), to be held in Redis now that the store answers
        again (:mod:`.fleet`). Each comes back through :meth:`held_one`
        (``count=False``) or :meth:`repark`. Requests that wait for one
        fetch only stay."""
        moving = []
        now = self._runtime.monotonic()
        for key, waiting in list(self._origins.items()):
            for action in self._handle(key, waiting, Unpark(now)):
                if isinstance(action, Unparked):
                    moving.append((key, action.requests))
        return moving

    def repark(self, key: Origin, request: Request, since: float) -> None:
        """A request :meth:`unpark` took out could not be held: parked again,
        or back to the engine if ``key`` was decided meanwhile."""
        waiting = self._origins.get(key)
        if waiting is None:
            self.release([request])
        else:
            self._handle(key, waiting, Repark(request, since, self._runtime.monotonic()))

    def adopted(self, key: Origin, waiting: Waiting, since: float) -> None:
        """``waiting`` watches an origin adopted from another worker, whose
        oldest held request began to wait at ``since`` (monotonic)."""
        self._handle(key, waiting, HoldOne(since, self._runtime.monotonic(), count=False))

    def unhold(self, key: Origin, count: int) -> None:
        """``count`` of ``key``'s held requests are no longer held (another
        worker released them)."""
        waiting = self._origins.get(key)
        if waiting is not None:
            self._handle(key, waiting, Unheld(self._runtime.monotonic(), count))

    def held_left(self, key: Origin, left: int | None, oldest: float | None) -> None:
        """After :meth:`.MemoryHold.release_expired`: ``left`` requests are
        still held (``None``: unknown, the store failed), the oldest since
        ``oldest`` (monotonic). The drop timer looks again no sooner than in
        a second, so that workers whose clocks disagree never spin."""
        waiting = self._origins.get(key)
        if waiting is not None:
            self._handle(key, waiting, HeldLeft(self._runtime.monotonic(), left, oldest))

    # -- moving on -----------------------------------------------------------

    async def _load(self, key: Origin, waiting: Waiting) -> None:
        """The :class:`StartFetch` action: load ``key``'s robots.txt, then
        release, keep waiting, or drop what waits for it (:meth:`settle`).
        The spider's own requests for this robots.txt that wait get the
        fetch's response (:mod:`.crawl._kept_responses`)."""
        loaded = await self.loader.load(key, waiting.trigger, waiting.tokens)
        try:
            self._announce(key, loaded.unreachable)
            entry, now = loaded.entry, self._runtime.clock()
            usable = entry.usable(now, self._allow_after)
            if usable and waiting.asked:
                self._kept.keep(key, loaded.fetched, waiting.asked)
                waiting.asked = set()
            since = entry.unreachable_since
            self.settle(
                key,
                decided=usable,
                retry_in=None if usable else entry.retry_at - now,
                # Held requests are dropped by the fleet's clock: the record's.
                unreachable_since=None if since is None else self.hold.to_monotonic(since),
            )
        except Exception:
            logger.error(
                "Error releasing the requests that waited for %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra=self._runtime.log,
            )

    def settle(
        self,
        key: Origin,
        *,
        decided: bool,
        retry_in: float | None,
        unreachable_since: float | None = None,
    ) -> None:
        """After a fetch: release what waits for ``key`` if it is
        ``decided``; otherwise drop the requests that waited for this fetch
        only (:data:`NO_WAIT_KEY`), keep the others waiting, and fetch again
        in ``retry_in`` seconds (RFC 9309 §2.3.1.4). Held requests wait
        from ``unreachable_since`` (monotonic), the stored record's."""
        waiting = self._origins.get(key)
        if waiting is not None:
            event = FetchEnded(self._runtime.monotonic(), decided, retry_in, unreachable_since)
            self._handle(key, waiting, event)

    def no_time_to_wait(self, key: Origin, request: Request) -> bool:
        """Whether ``request``, for an unreachable origin in its backoff,
        is to be dropped at once rather than wait for the retry: no fetch is
        under way, and it may not wait (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``
        is 0, or :data:`NO_WAIT_KEY`)."""
        waiting = self._origins.get(key)
        life: OriginLife[Any, Any] = OriginLife(self.wait) if waiting is None else waiting.life
        return life.may_not_wait(bool(request.meta.get(NO_WAIT_KEY)))

    def outlook(self, key: Origin, retry_in: float) -> Outlook:
        """What happens next to ``key``'s requests, robots.txt being
        unreachable and fetched again in ``retry_in`` seconds."""
        waiting = self._origins.get(key)
        now = self._runtime.monotonic()
        when = None if waiting is None else waiting.life.drop_time(since=now)
        dropped = 0 if waiting is None else len(waiting.no_wait)
        return Outlook(retry_in, None if when is None else when - now, self.wait, dropped)

    def _announce(self, key: Origin, unreachable: Unreachable | None) -> None:
        """The line of a failed fetch, or of a stored record that says
        robots.txt is unreachable (HTTP-4 to HTTP-6), if ``unreachable``."""
        if unreachable is not None:
            self.warn_unreachable(
                key,
                unreachable.outcome,
                unreachable.retry_at - self._runtime.clock(),
                good=unreachable.good,
                level=unreachable.level,
            )

    def warn_unreachable(
        self,
        key: Origin,
        outcome: str,
        retry_in: float,
        *,
        good: bool = False,
        level: int = logging.WARNING,
    ) -> None:
        """The line of a failed fetch (HTTP-4 to HTTP-6): what is in force,
        and what happens next to the requests that wait (:class:`Outlook`),
        so that no wait is silent."""
        outlook = self.outlook(key, retry_in)
        policy: Outlook | str = outlook  # rendered only if a handler takes the line
        if good and outlook.drop_in is None:
            policy = f"the last good copy stays in force; next try in {duration(retry_in)} s"
        elif good:  # requests for a name the good copy has no group for
            waits = outlook.describe("requests for new names")
            policy = f"the last good copy stays in force; {waits}"
        logger.log(
            level,
            "%(url)s is unreachable (%(outcome)s): %(policy)s",
            {"url": key.robots_url, "outcome": outcome, "policy": policy},
            extra=self._runtime.log,
        )

    def retry_now(self, key: Origin) -> None:
        """Fetch ``key`` now rather than when its backoff ends: another
        worker found robots.txt since (:mod:`.fleet`)."""
        waiting = self._origins.get(key)
        if waiting is not None:
            self._handle(key, waiting, RetryNow(self._runtime.monotonic()))

    def _timer_fired(self, key: Origin, timer: LifeTimer) -> None:
        waiting = self._origins.get(key)
        if waiting is None:
            return
        now = self._runtime.monotonic()
        if timer is LifeTimer.RETRY:
            waiting.retry_timer = None
            self._handle(key, waiting, RetryFired(now))
        else:
            waiting.drop_timer = None
            self._handle(key, waiting, DropFired(now))

    def close(self) -> list[Request]:
        """The spider closed: stop every timer, drop the requests waiting in
        place, and hand back the parked ones (the held ones are in Redis)."""
        parked: list[Request] = []
        for key, waiting in list(self._origins.items()):
            for action in self._handle(key, waiting, SpiderClosed(self._runtime.monotonic())):
                if isinstance(action, PutAside):
                    parked.extend(action.requests)
        self._origins.clear()
        return parked

    # -- running the actions -------------------------------------------------

    def _handle(
        self, key: Origin, waiting: Waiting, event: Event[Request, Deferred[str | None]]
    ) -> list[Action[Request, Deferred[str | None]]]:
        """Run the actions ``key``'s life answers ``event`` with, and return
        them for what only the caller does with them."""
        actions = waiting.life.handle(event)
        for action in actions:
            self._run(key, waiting, action)
        return actions

    def _run(
        self, key: Origin, waiting: Waiting, action: Action[Request, Deferred[str | None]]
    ) -> None:
        if isinstance(action, StartFetch):
            self._runtime.start_soon(self._load(key, waiting))
        elif isinstance(action, ArmTimer):
            timer = action.timer
            handle = self._runtime.call_later(action.delay, lambda: self._timer_fired(key, timer))
            if timer is LifeTimer.RETRY:
                waiting.retry_timer = handle
            else:
                waiting.drop_timer = handle
        elif isinstance(action, CancelTimer):
            armed = waiting.retry_timer if action.timer is LifeTimer.RETRY else waiting.drop_timer
            if armed is not None:
                armed.cancel()
            if action.timer is LifeTimer.RETRY:
                waiting.retry_timer = None
            else:
                waiting.drop_timer = None
        elif isinstance(action, CountWaiting):
            if action.held:
                self._runtime.stats.inc_value("robotstxt/waiting/held")
            self._runtime.stats.inc_value("robotstxt/waiting")
            self._report.row(key).waited += 1
        elif isinstance(action, Release):
            self.release(action.requests)
            for d in action.resumed:
                d.callback(None)
        elif isinstance(action, Drop):
            reason = action.reason if action.reason is not None else self._drop_reason(key)
            for d in action.resumed:
                d.callback(reason)
            for request in action.requests:
                request.meta[DROP_KEY] = reason
            if action.requests:
                self.release(action.requests)
        elif isinstance(action, ReleaseHeld):
            self.hold.release_soon(key)
        elif isinstance(action, ExpireHeld):
            self.hold.release_expired(key, action.limit)
        elif isinstance(action, WarnUnreachable):
            self.warn_unreachable(key, action.outcome, action.retry_in)
        elif isinstance(action, WarnDropping):
            self._warn_dropping(key)
        elif isinstance(action, Forget) and self._origins.get(key) is waiting:
            del self._origins[key]
        # PutAside: close() collects them; SendBack: scheduled() lets it
        # into the scheduler.

    def _drop_reason(self, key: Origin) -> str:
        entry = self._cache.get(key)
        return entry.outcome if entry is not None else "robots.txt not fetched"

    def _warn_dropping(self, key: Origin) -> None:
        if key in self._warned:
            return
        self._warned.add(key)
        logger.warning(
            "Dropping requests to %(origin)s: its robots.txt has been unreachable "
            "(%(reason)s) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (%(wait)s s); more "
            "requests to it will be dropped the same way while it stays unreachable",
            {"origin": key, "reason": self._drop_reason(key), "wait": duration(self.wait)},
            extra=self._runtime.log,
        )
