"""The undecided documents of origins, and the requests that wait for them:
one :class:`.policy.OriginLife` per :class:`.Target` (an origin's robots.txt),
fed what happens, and the runner of the actions it answers with (one runner
per action type, :data:`Lives._RUNNERS`): start the load
(:class:`.RobotsLoader`), arm and cancel the alarms, give requests back to
the engine, resume or drop the ones that wait in place, and ask a fleet to
release or expire what it holds (:mod:`.crawl._holding`).

:class:`Lives` is the only owner of the alarms (RETRY, DROP, GRACE: one table,
keyed by target and alarm), and the ``request_scheduled`` hook that takes
the copies in transit out of the scheduler: parked here, or, in a fleet,
held in Redis. It never calls back into the parts that call it: a request
waiting in place is resumed through its Deferred, with how its wait settled
(:data:`.Settled`); the fleet's reports come through the relay the assembly
connected (:meth:`Lives.on_fleet`).

The lives count on the monotonic clock; a time that comes from elsewhere (a
ticket's, a stored record's, the fleet's: seconds since the epoch) is read
on it when it comes in (:meth:`.Runtime.monotonic_of`).
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, ClassVar, Protocol

from scrapy import signals
from scrapy.exceptions import IgnoreRequest
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred, succeed

from ..policy import ROBOTS_TXT, Kind, Target, Waiter, Waiters, life
from ._announce import Outlook, Wait
from ._holding import Adopted, ExpiredLeft, FoundElsewhere, HoldingAgain, Released
from ._outcomes import RELEASED, Away, Dropped
from ._tickets import Ticket, carried, carry, leave

if TYPE_CHECKING:
    from collections.abc import Callable, Container, Mapping

    from scrapy.http import Request
    from scrapy.signalmanager import SignalManager

    from .._runtime import Runtime
    from .._timers import Timer
    from ..policy import Document, Entry, Origin
    from ..robotstxt import Token
    from ._announce import Announcer
    from ._config import Config
    from ._crawler_names import CrawlerNames
    from ._engine import EngineGate
    from ._holding import HoldEvent, Holding
    from ._kept_responses import KeptResponses
    from ._outcomes import Settled
    from ._report import Report
    from ._robots_loader import Loaded, Unreachable

logger = logging.getLogger(__name__)

Life = life.OriginLife["Request"]


@dataclass(eq=False)
class _Undecided:
    """A target being decided: its life, and what its load needs."""

    life: Life
    #: The request that triggered the current fetch: its proxy and slot are
    #: used, and ``robots_parsed`` receives it.
    trigger: Request
    #: Product tokens the next parse must keep rules for.
    tokens: set[Token] = field(default_factory=set)


class _Origins:
    """The origins whose robots.txt is undecided, for the cache: it never
    evicts one (their backoff and their waits would reset)."""

    __slots__ = ("_document", "_lives")

    def __init__(self, lives: dict[Target, _Undecided], document: Document) -> None:
        self._lives = lives
        self._document = document

    def __contains__(self, key: object) -> bool:
        return (key, self._document) in self._lives


class Loader(Protocol):
    """What loads one document of origins (:class:`.RobotsLoader`,
    :class:`.TdmLoader`): fetched or read from the store, cached, and
    answered with a :class:`.Loaded`; never raises."""

    async def load(
        self, key: Origin, trigger: Request, tokens: set[Token], *, keep: Container[Origin]
    ) -> Loaded: ...

    def answered(self, key: Origin) -> bool:
        """Whether the load of ``key`` under way has its document's answer,
        all of it: then its waiters are not parked yet."""
        ...


class Lives:
    """Every undecided target, its waiters and its alarms. The assembly
    builds it and gives it what the actions need: for each document, its
    loader and how to read its cache's entry (``entries``); ``holding`` is
    the fleet, or ``None`` in a crawl that waits in memory only."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        *,
        signals: SignalManager,
        entries: Mapping[Document, Callable[[Origin], Entry | None]],
        loaders: Mapping[Document, Loader],
        kept: KeptResponses,
        announcer: Announcer,
        engine: EngineGate,
        names: CrawlerNames,
        report: Report,
        holding: Holding | None,
    ) -> None:
        #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` and ``ROBOTSTXT_RFC_PARK_AFTER``.
        self._wait = config.unreachable_wait
        self._grace = config.park_after
        #: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` in seconds (RFC 9309 §2.3.1.4).
        self._allow_after = config.allow_after
        self._runtime = runtime
        self._signals = signals
        self._entries = entries
        self._loaders = loaders
        self._kept = kept
        self._announcer = announcer
        self._engine = engine
        self._names = names
        self._report = report
        self._holding = holding
        self._lives: dict[Target, _Undecided] = {}
        #: Every alarm armed, by target: its handle (``None`` for a GRACE
        #: alarm: the graces share one), and when it is due.
        self._alarms: dict[tuple[Target, life.Alarm], tuple[Timer | None, float]] = {}
        #: The GRACE alarms armed, in the order they fall due (every grace is
        #: as long: ``ROBOTSTXT_RFC_PARK_AFTER``), and the one reactor timer
        #: that fires them, armed for the first: a fetch that ends within its
        #: grace, as most do, then costs no timer of its own.
        self._graces: deque[tuple[tuple[Target, life.Alarm], float]] = deque()
        self._grace_timer: Timer | None = None
        #: How many of those are armed still.
        self._graces_armed = 0
        #: While the timer fires the graces due: it is armed again after.
        self._firing_graces = False
        #: The Deferred of each request that waits in place, and what its
        #: copy carries if it leaves: its ticket, and its share's taker.
        self._resumes: dict[
            Waiter[Request], tuple[Deferred[Settled], Ticket | None, str | None]
        ] = {}
        #: Copies returned by ``process_request``, on their way to the
        #: scheduler: the ``request_scheduled`` hook takes them out.
        self._transit: dict[Request, tuple[Target, Waiter[Request]]] = {}
        #: The same, to read: a copy that comes back to ``process_request``
        #: still in transit did not pass the scheduler (:meth:`returned`).
        self.in_transit: Mapping[Request, object] = self._transit
        #: Whether the hook is connected: only while copies are in transit.
        self._listening = False
        #: Parked waiters to move to the fleet's store (:class:`.HoldingAgain`).
        self._to_fleet: list[tuple[Target, Waiter[Request]]] = []
        #: Fires when the requests on their way to the fleet's store are
        #: held, or parked again; and the holds of copies from the hook.
        self._moving: Deferred[None] | None = None
        self._holds = 0
        self._held_all: Deferred[None] | None = None
        #: What the spider's close puts aside (``JOBDIR``, or abandoned).
        self._aside: list[Request] = []
        #: The origins undecided, for each loader's cache (never evicted).
        self._undecided = {document: _Origins(self._lives, document) for document in loaders}
        #: Those of robots.txt.
        self.origins = self._undecided[ROBOTS_TXT]

    # -- coming in ---------------------------------------------------------------

    def come(
        self,
        target: Target,
        request: Request,
        ticket: Ticket | None,
        token: Token,
        taker: str | None = None,
    ) -> Deferred[Settled]:
        """``request`` missed the cache for ``target`` and waits for it: the
        fetch starts, unless one is under way or the backoff runs (RFC 9309
        §2.3.1.4). The Deferred fires with how the wait settles: released
        (decided), dropped, or left (the copy that waits out of the
        downloader, carrying ``taker``, its share of the fetch's response),
        at once for a request from the scheduler that has no grace to wait
        in place, or may not wait."""
        runtime = self._runtime
        self._quiet()
        once = ticket is not None and ticket.once
        may_not_wait = once or self._wait <= 0
        undecided = self._lives.get(target)
        if undecided is None:
            entry = self._in_backoff(target)
            if entry is not None and may_not_wait:
                # Unreachable in its backoff, and it may not wait for the
                # retry: dropped, with no life made for it.
                return succeed(Dropped(entry.outcome, target.document))
            undecided = self._lives[target] = _Undecided(Life(self._wait, self._grace), request)
        self._want(target, undecided, request, token)
        now = runtime.monotonic()
        since = now
        if ticket is not None and ticket.since is not None:
            # A time of the wall clock, read on this run's clock (a restart
            # between: how long ago it is counts, Runtime.monotonic_of).
            since = now - max(0.0, runtime.clock() - ticket.since)
        holding = self._holding
        # A request from the scheduler waits in place for a short grace from
        # the fetch's start (most robots.txt files answer within it), then
        # out of the downloader; in a fleet that holds requests in Redis it
        # leaves at once, so that any worker may decide its origin.
        leaves = (
            once
            or self._grace <= 0
            or not undecided.life.fetching
            or (target, life.Alarm.GRACE) not in self._alarms
            or (holding is not None and holding.holding)
        )
        waiter = Waiter(
            request,
            since,
            Kind.TRANSIT if leaves else Kind.IN_PLACE,
            once=once,
            counted=ticket is not None and ticket.since is not None,
        )
        d: Deferred[Settled] = Deferred()
        self._resumes[waiter] = (d, ticket, taker)
        event = life.CameOnce if may_not_wait else life.Came
        self._feed(target, undecided, event(now, waiter))
        if leaves and not d.called:
            self._leave_now(target, waiter)
        return d

    def need(self, target: Target, trigger: Request, token: Token) -> None:
        """``trigger`` needs ``target`` decided, and does not wait for it (a
        good copy in force whose retry is due, RFC 9309 §2.3.1.4): fetch,
        unless a fetch is under way or the backoff runs."""
        undecided = self._lives.get(target)
        if undecided is None:
            undecided = self._lives[target] = _Undecided(Life(self._wait, self._grace), trigger)
        self._want(target, undecided, trigger, token)

    def _want(self, target: Target, undecided: _Undecided, trigger: Request, token: Token) -> None:
        """``trigger`` needs ``target`` for ``token``: the life is told the
        origin is in its backoff (RFC 9309 §2.3.1.4), or that it is needed."""
        undecided.tokens.add(token)
        if not undecided.life.fetching:
            undecided.trigger = trigger
        now = self._runtime.monotonic()
        entry = self._in_backoff(target)
        if entry is None:
            self._feed(target, undecided, life.Need(now))
        else:
            retry_in = entry.retry_at - self._runtime.clock()
            self._feed(target, undecided, life.InBackoff(now, retry_in, entry.outcome))

    def _in_backoff(self, target: Target) -> Entry | None:
        """The cache's entry of ``target``'s origin if it says robots.txt is
        unreachable and its backoff runs."""
        entry = self._entries[target.document](target.origin)
        if entry is None or entry.unreachable_since is None:
            return None
        return None if entry.due(self._runtime.clock()) else entry

    def returned(self, request: Request, ticket: Ticket) -> Deferred[Settled] | None:
        """``request``, a copy in transit (:attr:`in_transit`), came back to
        ``process_request`` without passing the scheduler
        (``engine.download_async`` downloads what ``process_request``
        returns): it waits in place, its Deferred; ``None`` if its origin
        was decided meanwhile."""
        found = self._transit.pop(request, None)
        if not self._transit:
            self._quiet()  # outside the signal's dispatch
        if found is None:
            return None
        target, waiter = found
        undecided = self._lives.get(target)
        if undecided is None:
            return None
        d: Deferred[Settled] = Deferred()
        self._resumes[waiter] = (d, ticket, ticket.taker)
        self._feed(
            target, undecided, life.Arrived(self._runtime.monotonic(), waiter, Kind.IN_PLACE)
        )
        return d

    def scheduled(self, request: Request, **kwargs: Any) -> None:
        """The ``request_scheduled`` hook, connected while copies are in
        transit: a copy ``process_request`` returned is taken out of the
        scheduler, parked here or, in a fleet, held in Redis
        (``IgnoreRequest``, which the engine does not log). Any other
        request, and a copy whose origin was decided meanwhile, goes into
        the scheduler. ``**kwargs``: PyDispatcher then passes the signal's
        arguments as they are."""
        # Never disconnected here, while the signal is being sent (the
        # dispatcher walks the list of receivers): later (_quiet).
        found = self._transit.pop(request, None)
        if found is None:
            return
        target, waiter = found
        undecided = self._lives.get(target)
        if undecided is None or waiter.kind is not Kind.TRANSIT:
            return  # decided meanwhile: into the scheduler, decided again
        now = self._runtime.monotonic()
        holding = self._holding
        if holding is not None and holding.holding and not waiter.once:
            self._feed(target, undecided, life.Arrived(now, waiter, Kind.MOVING))
            self._runtime.start_soon(self._hold(target, undecided, waiter, request))
        else:
            self._feed(target, undecided, life.Arrived(now, waiter, Kind.PARKED))
        raise IgnoreRequest

    def _leave_now(self, target: Target, waiter: Waiter[Request]) -> None:
        """``waiter`` leaves ``process_request``: its copy, carrying its
        ticket, is in transit to the scheduler."""
        d, ticket, taker = self._resumes.pop(waiter)
        runtime = self._runtime
        since = runtime.clock() - (runtime.monotonic() - waiter.since)  # Runtime.wall_of
        if ticket is None:
            ticket = Ticket(since=since, taker=taker, once=waiter.once)
        else:
            ticket = replace(ticket, since=since, taker=taker, refilter=False, drop=None)
        copy = leave(waiter.item, ticket)
        waiter.item = copy
        self._transit[copy] = (target, waiter)
        if not self._listening:
            self._listen(True)
        holding = self._holding
        if holding is None or not holding.holding:
            self._runtime.stats.inc_value("robotstxt/waiting/parked")
        d.callback(Away(copy))

    def _quiet(self) -> None:
        """Disconnect the hook if no copy is in transit any more: when a
        request comes, an alarm fires or waiters go back to the engine."""
        if self._listening and not self._transit:
            self._listen(False)

    def _listen(self, on: bool) -> None:
        """Connect the hook, held by a strong reference (PyDispatcher calls
        it without the three Python calls of a weak reference to a bound
        method), or disconnect it."""
        how = self._signals.connect if on else self._signals.disconnect
        how(self.scheduled, signal=signals.request_scheduled, weak=False)
        self._listening = on

    async def _hold(
        self, target: Target, undecided: _Undecided, waiter: Waiter[Request], copy: Request
    ) -> bool:
        """Hold ``copy`` in Redis (from the hook, or moved from memory):
        then it waits there; if Redis refuses, in memory. When the origin
        was decided meanwhile, a held copy is released, one that is not
        goes back to the crawl."""
        assert self._holding is not None
        self._holds += 1
        try:
            held = await self._holding.hold(target, copy)
        except Exception:
            logger.error("Error holding %(request)s", {"request": copy}, exc_info=True)
            held = False
        finally:
            self._holds -= 1
        if self._lives.get(target) is undecided and waiter in undecided.life.waiters:
            kind = Kind.HELD if held else Kind.PARKED
            if not held and not waiter.moved:
                self._runtime.stats.inc_value("robotstxt/waiting/parked")
            self._feed(target, undecided, life.Arrived(self._runtime.monotonic(), waiter, kind))
        elif held:
            self._holding.release(target)
        else:
            self._engine.give_back([copy])
        if not self._holds and self._held_all is not None:
            done, self._held_all = self._held_all, None
            done.callback(None)
        return held

    # -- the fleet's reports -------------------------------------------------------

    def on_fleet(self, event: HoldEvent) -> None:
        """What the fleet reports (:data:`.HoldEvent`), fed to the lives."""
        runtime = self._runtime
        now = runtime.monotonic()
        match event:
            case Released(target=target, count=count):
                self._feed_known(target, life.Unheld(now, count))
            case ExpiredLeft(target=target, left=left, oldest=oldest):
                here = None if oldest is None else runtime.monotonic_of(oldest)
                self._feed_known(target, life.HeldLeft(now, left, here))
            case FoundElsewhere(target=target):
                self._feed_known(target, life.RetryNow(now))
            case Adopted():
                self._adopt(event)
            case HoldingAgain(where=where):
                self._to_the_fleet(where)

    def _feed_known(self, target: Target, event: life.Event[Request]) -> None:
        undecided = self._lives.get(target)
        if undecided is not None:  # a fact about an origin no longer kept: nothing
            self._feed(target, undecided, event)

    def _adopt(self, event: Adopted) -> None:
        """Decide ``event.target``, whose held requests this worker adopted
        from another (:mod:`.fleet`); the trigger stands for them, and is
        not counted again."""
        target, trigger = event.target, event.trigger
        entry = self._entries[target.document](target.origin)
        holding = self._holding
        assert holding is not None
        if entry is not None and entry.usable(self._runtime.clock(), self._allow_after):
            holding.release(target)
            return
        self.need(target, trigger, self._names.of(trigger))
        undecided = self._lives[target]
        since = self._runtime.monotonic_of(event.since)
        waiter = Waiter(trigger, since, Kind.HELD, counted=True)
        self._feed(target, undecided, life.Came(self._runtime.monotonic(), waiter))

    def _to_the_fleet(self, where: str) -> None:
        """The store holds requests again: the requests parked in memory
        meanwhile move there, each held or, if the store fails again,
        parked again."""
        if self._moving is not None and not self._moving.called:
            return
        now = self._runtime.monotonic()
        for target, undecided in list(self._lives.items()):
            self._feed(target, undecided, life.Unpark(now))
        moving, self._to_fleet = self._to_fleet, []
        done: Deferred[None] = Deferred()
        self._moving = done

        async def move() -> None:
            try:
                await self._move(where, moving)
            except Exception:
                logger.error(
                    "Error moving to Redis the requests waiting in memory",
                    exc_info=True,
                    extra=self._runtime.log,
                )
            finally:
                done.callback(None)

        self._runtime.start_soon(move())

    async def _move(self, where: str, moving: list[tuple[Target, Waiter[Request]]]) -> None:
        assert self._holding is not None
        moved = 0
        for target, waiter in moving:
            copy = waiter.item
            undecided = self._lives.get(target)
            if undecided is None or waiter not in undecided.life.waiters:
                self._engine.give_back([copy])  # decided meanwhile
                continue
            # Its wait counts from when it first waited, in every worker.
            ticket = carried(copy)
            if ticket.since is None:
                carry(copy, replace(ticket, since=self._runtime.wall_of(waiter.since)))
            if await self._hold(target, undecided, waiter, copy):
                moved += 1
        if moved:
            self._runtime.stats.inc_value("robotstxt/waiting/moved", moved)
            self._announcer.moved(moved, where)

    # -- what waits -----------------------------------------------------------------

    def busy(self) -> bool:
        """Whether any request waits, here or held anywhere in the fleet
        (the spider must not close)."""
        holding = self._holding
        return (holding is not None and holding.busy) or self.waiting()

    def waiting(self) -> bool:
        """Whether any request waits for this worker."""
        return any(undecided.life.waiters for undecided in self._lives.values())

    def waiting_requests(self) -> int:
        """How many requests wait in this worker's memory now: parked or in
        place (the ones held in Redis are the fleet's)."""
        return sum(undecided.life.waiters.here() for undecided in self._lives.values())

    def fetching(self) -> bool:
        """Whether a fetch is under way."""
        return any(undecided.life.fetching for undecided in self._lives.values())

    def __contains__(self, target: object) -> bool:
        """Whether ``target`` is undecided (a life is kept for it)."""
        return target in self._lives

    def undecided(self, document: Document) -> Container[Origin]:
        """The origins whose ``document`` is undecided now."""
        return self._undecided[document]

    def waiters(self, target: Target) -> Waiters[Request] | None:
        """Who waits for ``target`` now, if it is undecided."""
        undecided = self._lives.get(target)
        return None if undecided is None else undecided.life.waiters

    def snapshot(self) -> list[Wait]:
        """What waits now for each unreachable origin (RFC 9309 §2.3.1.4):
        its requests, when it is tried again, when the first is dropped."""
        now = self._runtime.monotonic()
        waits = []
        for target, undecided in self._lives.items():
            state = undecided.life
            waiters = state.waiters
            if state.unreachable_at is None or not waiters:
                continue
            retry = self._alarms.get((target, life.Alarm.RETRY))
            due = None if state.fetching or retry is None else retry[1] - now
            dropped = state.drop_time()
            count = waiters.here() + waiters.held
            waits.append(
                Wait(target.origin, count, due, None if dropped is None else dropped - now)
            )
        return waits

    async def close(self) -> list[Request]:
        """The spider closed: stop every alarm, drop the requests waiting in
        place, and hand back the parked ones (the held ones are in Redis),
        once the requests on their way to the fleet's store are there."""
        if self._moving is not None and not self._moving.called:
            await maybe_deferred_to_future(self._moving)
        if self._holds:
            self._held_all = Deferred()
            await maybe_deferred_to_future(self._held_all)
        now = self._runtime.monotonic()
        for target, undecided in list(self._lives.items()):
            self._feed(target, undecided, life.SpiderClosed(now))
        self._lives.clear()
        self._transit.clear()
        if self._listening:
            self._listen(False)
        aside, self._aside = self._aside, []
        return aside

    # -- running the actions -----------------------------------------------------------

    def _feed(self, target: Target, undecided: _Undecided, event: life.Event[Request]) -> None:
        for action in undecided.life.handle(event):
            self._RUNNERS[type(action)](self, target, undecided, action)

    def _start_fetch(self, target: Target, undecided: _Undecided, action: life.StartFetch) -> None:
        self._runtime.start_soon(self._load(target, undecided))

    async def _load(self, target: Target, undecided: _Undecided) -> None:
        """Load ``target``'s document, then tell its life how the fetch
        ended (RFC 9309 §2.3.1). The spider's own requests for this
        robots.txt that wait get the fetch's response
        (:mod:`.crawl._kept_responses`)."""
        loader = self._loaders[target.document]
        origin = target.origin
        keep = self._undecided[target.document]
        loaded = await loader.load(origin, undecided.trigger, undecided.tokens, keep=keep)
        try:
            self._announce(target, loaded.unreachable)
            entry, wall = loaded.entry, self._runtime.clock()
            usable = entry.usable(wall, self._allow_after)
            if usable and target.document is ROBOTS_TXT:
                self._kept.keep(origin, loaded.fetched, loaded.why)
            if self._lives.get(target) is not undecided:
                return  # the spider closed meanwhile
            now = self._runtime.monotonic()
            if usable:
                event: life.Event[Request] = life.FetchDecided(now)
            else:
                since = entry.unreachable_since
                # Held requests are dropped by the fleet's clock: the record's.
                here = None if since is None else self._runtime.monotonic_of(since)
                event = life.FetchFailed(now, entry.retry_at - wall, here)
            self._feed(target, undecided, event)
        except Exception:
            logger.error(
                "Error releasing the requests that waited for %(url)s",
                {"url": target.url},
                exc_info=True,
                extra=self._runtime.log,
            )

    def _arm(self, target: Target, undecided: _Undecided, action: life.Arm) -> None:
        key = (target, action.alarm)
        if key in self._alarms:  # armed already: it stays as it is
            return
        due = self._runtime.monotonic() + action.delay
        if action.alarm is life.Alarm.GRACE:
            self._alarms[key] = (None, due)
            self._graces.append((key, due))
            self._graces_armed += 1
            if self._grace_timer is None and not self._firing_graces:
                self._grace_timer = self._runtime.call_later(action.delay, self._graces_due)
            return
        handle = self._runtime.call_later(action.delay, lambda: self._fired(key))
        self._alarms[key] = (handle, due)

    def _disarm(self, key: tuple[Target, life.Alarm], fired: bool = False) -> bool:
        """Forget the alarm ``key``, cancelling its timer unless it
        ``fired``; whether it was armed. The graces' timer is cancelled with
        the last grace."""
        armed = self._alarms.pop(key, None)
        if armed is None:
            return False
        handle = armed[0]
        if handle is not None:
            if not fired:
                handle.cancel()
            return True
        self._graces_armed -= 1
        if not self._graces_armed:
            self._graces.clear()
            if self._grace_timer is not None:
                self._grace_timer.cancel()
                self._grace_timer = None
        return True

    def _graces_due(self) -> None:
        """The graces' timer: fire the GRACE alarms due (a disarmed one's
        place is skipped), then arm it for the next."""
        self._grace_timer = None
        self._firing_graces = True
        graces = self._graces
        now = self._runtime.monotonic()
        try:
            while graces:
                key, due = graces[0]
                armed = self._alarms.get(key)
                if armed is None or armed[1] != due:
                    graces.popleft()  # disarmed, or armed again since
                    continue
                if due > now:
                    break
                graces.popleft()
                self._fired(key)  # may arm a grace again: at the end of the line
        finally:
            # Armed for the next even if a grace's actions raised (a bug):
            # the others still fall due.
            self._firing_graces = False
            if graces and self._grace_timer is None:
                delay = max(0.0, graces[0][1] - now)
                self._grace_timer = self._runtime.call_later(delay, self._graces_due)

    def _fired(self, key: tuple[Target, life.Alarm]) -> None:
        self._quiet()
        if not self._disarm(key, fired=True):
            return
        target, alarm = key
        undecided = self._lives.get(target)
        if undecided is None:
            return
        now = self._runtime.monotonic()
        if alarm is life.Alarm.GRACE:
            # Whether robots.txt has come whole: then nothing is parked yet.
            answered = self._loaders[target.document].answered(target.origin)
            self._feed(target, undecided, life.GraceOver(now, answered))
        else:
            self._feed(target, undecided, self._ALARMS[alarm](now))

    def _cancel(self, target: Target, undecided: _Undecided, action: life.Cancel) -> None:
        self._disarm((target, action.alarm))

    def _forget(self, target: Target, undecided: _Undecided, action: life.Forget) -> None:
        for alarm in life.ALARMS:
            self._disarm((target, alarm))
        if self._lives.get(target) is undecided:
            del self._lives[target]

    def _count(self, target: Target, undecided: _Undecided, action: life.Count) -> None:
        stats = self._runtime.stats
        if action.held:
            stats.inc_value("robotstxt/waiting/held")
        if action.waiting:
            stats.inc_value("robotstxt/waiting")
            self._report.row(target.origin).waited += 1

    def _release(
        self, target: Target, undecided: _Undecided, action: life.Release[Request]
    ) -> None:
        back = []
        for waiter in action.waiters:
            resume = self._resumes.pop(waiter, None)
            if resume is not None:  # waiting in place
                resume[0].callback(RELEASED)
            elif waiter.kind is Kind.PARKED:
                back.append(waiter.item)
            elif waiter.kind is Kind.TRANSIT:
                # Into the scheduler when it lands, and decided then.
                self._transit.pop(waiter.item, None)
            # MOVING: its hold, when it ends, finds the origin decided.
        if back:
            self._quiet()  # the hook has nothing to take out of these
            self._engine.give_back(back)

    def _drop(self, target: Target, undecided: _Undecided, action: life.Drop[Request]) -> None:
        reason = action.reason if action.reason is not None else self._drop_reason(target)
        back = []
        for waiter in action.waiters:
            resume = self._resumes.pop(waiter, None)
            if resume is not None:  # waiting in place, or turned away as it came
                resume[0].callback(Dropped(reason, target.document))
                continue
            copy = waiter.item
            drop_for = None if target.document is ROBOTS_TXT else target.document.title
            carry(copy, replace(carried(copy), drop=reason, drop_for=drop_for))
            if waiter.kind is Kind.PARKED:
                back.append(copy)
            else:  # in transit: dropped when it comes back
                self._transit.pop(copy, None)
        if back:
            self._quiet()
            self._engine.give_back(back)

    def _leave(self, target: Target, undecided: _Undecided, action: life.Leave[Request]) -> None:
        for waiter in action.waiters:
            self._leave_now(target, waiter)

    def _release_held(
        self, target: Target, undecided: _Undecided, action: life.ReleaseHeld
    ) -> None:
        assert self._holding is not None
        self._holding.release(target)

    def _expire_held(self, target: Target, undecided: _Undecided, action: life.ExpireHeld) -> None:
        assert self._holding is not None
        self._holding.expire(target, self._runtime.wall_of(action.limit))

    def _move_to_fleet(
        self, target: Target, undecided: _Undecided, action: life.ToFleet[Request]
    ) -> None:
        self._to_fleet.extend((target, waiter) for waiter in action.waiters)

    def _put_aside(
        self, target: Target, undecided: _Undecided, action: life.PutAside[Request]
    ) -> None:
        self._aside.extend(waiter.item for waiter in action.waiters)

    def _warn_unreachable(
        self, target: Target, undecided: _Undecided, action: life.WarnUnreachable
    ) -> None:
        outlook = self._outlook(undecided, action.retry_in)
        self._announcer.unreachable(target.origin, action.outcome, outlook, url=target.url)

    def _warn_dropping(
        self, target: Target, undecided: _Undecided, action: life.WarnDropping
    ) -> None:
        self._announcer.dropping(target.origin, self._drop_reason(target), target.document.title)

    # -- words --------------------------------------------------------------------------

    def _drop_reason(self, target: Target) -> str:
        entry = self._entries[target.document](target.origin)
        return entry.outcome if entry is not None else f"{target.document.title} not fetched"

    def _outlook(self, undecided: _Undecided | None, retry_in: float) -> Outlook:
        """What happens next to the requests of an unreachable origin,
        fetched again in ``retry_in`` seconds."""
        drop_in, once = (
            (None, 0) if undecided is None else undecided.life.outlook(self._runtime.monotonic())
        )
        return Outlook(retry_in, drop_in, self._wait, once)

    def _announce(self, target: Target, unreachable: Unreachable | None) -> None:
        """The line of a failed fetch, or of a stored record that says
        robots.txt is unreachable (HTTP-4 to HTTP-6), if ``unreachable``:
        with the outlook from before the fetch's end drops anything."""
        if unreachable is not None:
            retry_in = unreachable.retry_at - self._runtime.clock()
            self._announcer.unreachable(
                target.origin,
                unreachable.outcome,
                self._outlook(self._lives.get(target), retry_in),
                good=unreachable.good,
                level=unreachable.level,
                url=target.url,
            )

    #: The event of each alarm, when it fires (GRACE's says whether
    #: robots.txt has answered: :meth:`_fired`).
    _ALARMS: ClassVar[dict[life.Alarm, Callable[[float], life.Event[Any]]]] = {
        life.Alarm.RETRY: life.RetryFired,
        life.Alarm.DROP: life.DropFired,
    }

    #: The runner of each action, by its type: one dict lookup per action.
    _RUNNERS: ClassVar[dict[type, Callable[[Lives, Target, _Undecided, Any], None]]] = {
        life.StartFetch: _start_fetch,
        life.Arm: _arm,
        life.Cancel: _cancel,
        life.Forget: _forget,
        life.Count: _count,
        life.Release: _release,
        life.Drop: _drop,
        life.Leave: _leave,
        life.ReleaseHeld: _release_held,
        life.ExpireHeld: _expire_held,
        life.ToFleet: _move_to_fleet,
        life.PutAside: _put_aside,
        life.WarnUnreachable: _warn_unreachable,
        life.WarnDropping: _warn_dropping,
    }
