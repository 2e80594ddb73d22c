"""The waiting room: the origins whose robots.txt is not decided yet, and
the requests that wait for them.

Each origin's life is a :class:`.policy.OriginLife`, a state machine: the
room turns what happens (a request parks, a fetch ends, a timer fires, the
hold reports) into its events with :meth:`WaitingRoom.feed`, and runs the
actions it answers with, each by one runner of :data:`_RUNNERS`: start the
robots.txt load (:class:`.RobotsLoader`), arm and cancel timers, give
requests back to the engine, drop them, and ask the hold
(:mod:`.crawl._holding`) to release what it holds. It never calls back into
the middleware, which built it, nor into the parts that call it: the
parking of requests from the scheduler is :mod:`.crawl._parking`'s, the
wording of its log lines :mod:`.crawl._announce`'s.

While robots.txt is unreachable, the retry timer fetches it again when the
backoff ends (RFC 9309 §2.3.1.4), and the drop timer sends back, to be
dropped, what waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``. The
clocks and ``call_later`` come with the :class:`.Runtime`, so that tests
drive the timers with ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from ..policy import OriginLife, Phase, Standing, life, standing
from ._announce import Outlook, Wait
from ._holding import (
    Adopted,
    ExpiredLeft,
    FoundElsewhere,
    HoldingAgain,
    Released,
)
from ._tickets import dropped, since_set

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy.http import Request

    from .._runtime import Runtime
    from .._timers import Timer
    from ..policy import Entry, LruCache, Origin
    from ..robotstxt import Token
    from ._announce import Announcer
    from ._config import Config
    from ._crawler_names import CrawlerNames
    from ._holding import Hold, HoldEvent
    from ._kept_responses import KeptResponses
    from ._report import Report
    from ._robots_loader import RobotsLoader, Unreachable
    from ._tickets import Ticket

logger = logging.getLogger(__name__)

#: A request in a waiting life: a parked one, or the Deferred of one that
#: waits in place (fired with ``None`` to decide again, or a reason to drop).
Life = OriginLife["Request", "Deferred[str | Later | None]"]


@dataclass(frozen=True, slots=True)
class Dropped:
    """The request may not wait: drop it, for ``reason``."""

    reason: str


@dataclass(frozen=True, slots=True)
class Later:
    """The origin is still undecided after the request's grace in place:
    park it, as a request that began to wait at ``since`` (monotonic) and
    was counted then; ``None``: it has not waited yet."""

    since: float | None


@dataclass(eq=False)
class Waiting:
    """An origin whose robots.txt is being fetched, or is unreachable: what
    its fetch needs and the handles of its timers. Its life, every decision
    on it, is :attr:`life`."""

    #: The request that triggered the current fetch: its proxy and slot are
    #: used, and ``robots_parsed`` receives it.
    trigger: Request
    #: The state machine of the origin's waiting life.
    life: Life
    #: Product tokens the next parse must keep rules for.
    tokens: set[Token] = field(default_factory=set)
    retry_timer: Timer | None = None
    drop_timer: Timer | None = None
    #: When the last fetch began (monotonic): a request's grace in place
    #: counts from it (:meth:`WaitingRoom.wait_in_place`).
    fetch_started: float | None = None
    #: When the retry timer fires (monotonic), while it is armed.
    retry_due: float | None = None


class EngineGate:
    """Gives requests back to the engine (``engine.crawl``): the one way out
    of the room for a request that waited."""

    def __init__(self, runtime: Runtime, crawl: Callable[[Request], object]) -> None:
        self._runtime = runtime
        self._crawl = crawl

    def give_back(self, requests: Iterable[Request]) -> None:
        for request in requests:
            try:
                self._crawl(request)
            except Exception:  # the engine is closing
                logger.error(
                    "Could not send %(request)s back to the engine after it waited for robots.txt",
                    {"request": request},
                    exc_info=True,
                    extra=self._runtime.log,
                )


class WaitingRoom:
    """Every origin whose robots.txt is not decided yet: the registry of
    their lives (:class:`Waiting`) and the runner of the actions they answer
    with. The middleware builds it and gives it what the actions need."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        *,
        cache: LruCache[Origin, Entry],
        loader: RobotsLoader,
        hold: Hold,
        kept: KeptResponses,
        announcer: Announcer,
        engine: EngineGate,
        names: CrawlerNames,
        report: Report,
    ) -> None:
        #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
        self.wait = config.unreachable_wait
        #: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` in seconds (RFC 9309 §2.3.1.4).
        self._allow_after = config.allow_after
        self._runtime = runtime
        self._cache = cache
        self._loader = loader
        self._hold = hold
        self._watches = hold.watches
        self._kept = kept
        self._announcer = announcer
        self._engine = engine
        self._names = names
        self._report = report
        self._origins: dict[Origin, Waiting] = {}
        #: Fires when the requests on their way from memory to the hold
        #: (:class:`.HoldingAgain`) are held, or parked again.
        self._moving: Deferred[None] | None = None

    def __contains__(self, key: object) -> bool:
        return key in self._origins

    def get(self, key: Origin) -> Waiting | None:
        return self._origins.get(key)

    # -- where an origin stands ----------------------------------------------

    async def admit(
        self, key: Origin, request: Request, token: Token, ticket: Ticket | None = None
    ) -> Dropped | Waiting | None:
        """After a miss in the cache: decided by the store after all
        (``None``: the cache has it now; in a fleet, another worker may have
        decided the origin: one store read for an origin nobody here waits
        for), dropped at once (held long enough, or unreachable in its
        backoff while it may not wait: RFC 9309 §2.3.1.4), or waiting, the
        fetch started unless one is under way or the backoff runs."""
        entry = self._cache.get(key)
        # Only a fleet's hold may hold requests (the memory one never does).
        if entry is None and self._watches and self._hold.holding and key not in self._origins:
            loaded = await self._loader.peek(key, request, token, keep=self._origins)
            if loaded is not None:
                self._announce(key, loaded.unreachable)
                entry = loaded.entry
                where = standing(entry, token, self._runtime.clock(), self._allow_after)
                if where is Standing.DECIDED or where is Standing.RETRY_DUE:
                    return None
        if entry is not None:
            if ticket is not None and await self._hold.expired(key, ticket, entry):
                return Dropped(entry.outcome)
            now = self._runtime.clock()
            if standing(entry, token, now, self._allow_after) is Standing.BACKOFF:
                waiting = self._origins.get(key)
                state = OriginLife(self.wait) if waiting is None else waiting.life
                if state.may_not_wait(ticket is not None and ticket.once):
                    return Dropped(entry.outcome)
        return self.need(key, request, token)

    # -- coming in -----------------------------------------------------------

    def need(self, key: Origin, trigger: Request, token: Token) -> Waiting:
        """``trigger`` needs ``key`` decided for ``token``: fetch it, unless
        a fetch is under way or, unreachable, its backoff has not ended (RFC
        9309 §2.3.1.4)."""
        waiting = self._origins.get(key)
        if waiting is None:
            waiting = self._origins[key] = Waiting(trigger, OriginLife(self.wait))
        waiting.tokens.add(token)
        if waiting.life.fetching:
            return waiting
        waiting.trigger = trigger
        entry = self._cache.get(key)
        now = self._runtime.clock()
        if entry is None or entry.unreachable_since is None or entry.due(now):
            event = life.FetchWanted(self._runtime.monotonic())
        else:
            event = life.FetchWanted(self._runtime.monotonic(), entry.retry_at - now, entry.outcome)
        self._feed(key, waiting, event)
        return waiting

    def park(
        self, key: Origin, request: Request, since: float | None = None, *, once: bool = False
    ) -> bool:
        """Park ``request``, which came through the scheduler, while ``key``
        is undecided (``since``: it began to wait before, in place, and was
        counted then); ``False`` when it is not parked after all (decided
        meanwhile, or a no-wait request with no fetch under way): it goes
        on, to be decided again."""
        waiting = self._origins.get(key)
        if waiting is None:
            return False
        now = self._runtime.monotonic()
        event = life.Park(request, now, once, since=since, count=since is None)
        actions = self._feed(key, waiting, event)
        return not any(type(action) is life.SendBack for action in actions)

    def hold_one(self, key: Origin, since: float, *, count: bool = True) -> bool:
        """A request that began to wait at ``since`` (monotonic) is held for
        ``key`` by the hold (``count``: a request that waits, not one moved
        from memory); ``False`` if ``key`` was decided meanwhile (the caller
        asks the hold to release it)."""
        waiting = self._origins.get(key)
        if waiting is None:
            return False
        self._feed(key, waiting, life.HoldOne(since, self._runtime.monotonic(), count=count))
        return True

    def wait_in_place(
        self, key: Origin, grace: float | None = None, since: float | None = None
    ) -> Deferred[str | Later | None]:
        """Wait inside ``process_request`` for ``key`` (:meth:`admit` made
        its life): the Deferred fires with ``None`` once it is decided, or
        with why the request is dropped. With a ``grace``, it fires with
        :class:`Later` when ``grace`` seconds have passed since the fetch
        under way began (at once when none is, or it began longer ago): the
        request leaves its place to be parked. So a request never holds its
        place in the downloader longer than the grace, and behind a slow
        robots.txt only the first ones wait at all. ``since``: the request
        began to wait before (it was given back to be parked, and came back
        without passing the scheduler), and was counted then."""
        d: Deferred[str | Later | None] = Deferred()
        waiting = self._origins.get(key)
        if waiting is None:  # decided meanwhile
            d.callback(None)
            return d
        now = self._runtime.monotonic()
        first = now if since is None else since
        if grace is not None:
            started = waiting.fetch_started if waiting.life.fetching else None
            grace = 0.0 if started is None else grace - (now - started)
            if grace <= 0:  # no wait in place: as it came
                d.callback(Later(since))
                return d
        event = life.WaitInPlace(d, now, since=since, count=since is None)
        self._feed(key, waiting, event)
        if grace is not None:
            timer = self._runtime.call_later(grace, lambda: self._grace_over(key, d, first))

            def stop(result: str | Later | None) -> str | Later | None:
                if not isinstance(result, Later):
                    timer.cancel()
                return result

            d.addCallback(stop)
        return d

    def _grace_over(self, key: Origin, d: Deferred[str | Later | None], since: float) -> None:
        """A request's grace in place is over, its origin still undecided:
        it leaves its place (:class:`.LeaveInPlace`), to be parked."""
        if d.called:
            return
        self.feed(key, life.LeaveInPlace(d, self._runtime.monotonic()))
        d.callback(Later(since))

    def feed(
        self, key: Origin, event: life.Event[Request, Deferred[str | Later | None]]
    ) -> list[life.Action[Any, Any]]:
        """Feed ``event`` to ``key``'s life and run the actions it answers
        with; they are returned for what only the caller does with them (a
        :class:`.PutAside`, a :class:`.SendBack`). Nothing happens when no
        life is kept for ``key``."""
        waiting = self._origins.get(key)
        return [] if waiting is None else self._feed(key, waiting, event)

    def on_hold_event(self, event: HoldEvent) -> None:
        """What the hold reports (:data:`.HoldEvent`), fed to the lives."""
        now = self._runtime.monotonic()
        if type(event) is Released:
            self.feed(event.key, life.Unheld(now, event.count))
        elif type(event) is ExpiredLeft:
            self.feed(event.key, life.HeldLeft(now, event.left, event.oldest))
        elif type(event) is FoundElsewhere:
            self.feed(event.key, life.RetryNow(now))
        elif type(event) is Adopted:
            self._adopt(event)
        elif type(event) is HoldingAgain:
            self._move_to_hold(event.where)

    # -- what waits ----------------------------------------------------------

    def busy(self) -> bool:
        """Whether any request waits, here or held anywhere in the fleet
        (the spider must not close)."""
        return self._hold.busy or self.waiting()

    def waiting(self) -> bool:
        """Whether any request waits for this worker."""
        return any(waiting.life.has_waiters() for waiting in self._origins.values())

    def waiting_requests(self) -> int:
        """How many requests wait for this worker now: parked or in place
        (the ones held in Redis are the fleet's)."""
        return sum(
            len(w.life.parked) + len(w.life.in_place) + len(w.life.no_wait)
            for w in self._origins.values()
        )

    def fetching(self) -> bool:
        """Whether a robots.txt fetch is under way."""
        return any(waiting.life.fetching for waiting in self._origins.values())

    def unreachable_waits(self) -> list[Wait]:
        """What waits now for each unreachable origin (RFC 9309 §2.3.1.4):
        its requests, when it is tried again, when the first is dropped."""
        now = self._runtime.monotonic()
        waits = []
        for key, waiting in self._origins.items():
            state = waiting.life
            if state.unreachable_at is None or not state.has_waiters():
                continue
            count = len(state.parked) + len(state.in_place) + len(state.no_wait) + state.held
            due = None if state.fetching or waiting.retry_due is None else waiting.retry_due - now
            dropped = state.drop_time()
            waits.append(Wait(key, count, due, None if dropped is None else dropped - now))
        return waits

    async def close(self) -> list[Request]:
        """The spider closed: stop every timer, drop the requests waiting in
        place, and hand back the parked ones (the held ones are in Redis),
        once the requests on their way to the hold have arrived."""
        if self._moving is not None and not self._moving.called:
            await maybe_deferred_to_future(self._moving)
        parked: list[Request] = []
        now = self._runtime.monotonic()
        for key, waiting in list(self._origins.items()):
            for action in self._feed(key, waiting, life.SpiderClosed(now)):
                if type(action) is life.PutAside:
                    parked.extend(action.requests)
        self._origins.clear()
        return parked

    # -- the fleet's reports -------------------------------------------------

    def _adopt(self, event: Adopted) -> None:
        """Decide ``event.key``, whose held requests this worker adopted
        from another (:mod:`.fleet`); the trigger stands for them."""
        key, trigger = event.key, event.trigger
        entry = self._cache.get(key)
        if entry is not None and entry.usable(self._runtime.clock(), self._allow_after):
            self._hold.release_soon(key)
            return
        token = self._names.of(trigger)
        waiting = self._origins.get(key)
        if waiting is None:
            waiting = self._origins[key] = Waiting(trigger, OriginLife(self.wait))
        waiting.tokens.add(token)
        since = self._runtime.monotonic_of(event.since)
        self._feed(key, waiting, life.HoldOne(since, self._runtime.monotonic(), count=False))
        self.need(key, trigger, token)

    def _move_to_hold(self, where: str) -> None:
        """The store holds requests again: move there the requests parked in
        memory meanwhile, each back as held, or parked again if it cannot
        be held (the store failed again)."""
        if self._moving is not None and not self._moving.called:
            return
        done: Deferred[None] = Deferred()
        self._moving = done

        async def move() -> None:
            try:
                await self._move(where)
            except Exception:
                logger.error(
                    "Error moving to Redis the requests waiting in memory",
                    exc_info=True,
                    extra=self._runtime.log,
                )
            finally:
                done.callback(None)

        self._runtime.start_soon(move())

    async def _move(self, where: str) -> None:
        runtime, moved = self._runtime, 0
        now = runtime.monotonic()
        taken: list[tuple[Origin, tuple[tuple[Request, float], ...]]] = []
        for key, waiting in list(self._origins.items()):
            for action in self._feed(key, waiting, life.Unpark(now)):
                if type(action) is life.Unparked:
                    taken.append((key, action.requests))
        for key, requests in taken:
            for request, since in requests:
                # Its wait counts from when it first waited, in every worker.
                since_set(request, runtime.wall_of(since))
                if await self._hold.hold(key, request):
                    moved += 1
                    if not self.hold_one(key, since, count=False):
                        self._hold.release_soon(key)  # decided while Redis took it
                elif key in self._origins:
                    self.feed(key, life.Repark(request, since, runtime.monotonic()))
                else:
                    self._engine.give_back([request])
        if moved:
            runtime.stats.inc_value("robotstxt/waiting/moved", moved)
            self._announcer.moved(moved, where)

    # -- running the actions -------------------------------------------------

    def _feed(
        self,
        key: Origin,
        waiting: Waiting,
        event: life.Event[Request, Deferred[str | Later | None]],
    ) -> list[life.Action[Any, Any]]:
        actions: list[life.Action[Any, Any]] = waiting.life.handle(event)
        for action in actions:
            self._RUNNERS[type(action)](self, key, waiting, action)
        if self._watches:
            # A closed life holds nothing any more (released, or left),
            # except when the spider closed: its held requests stay in
            # Redis, for the hand-over.
            state = waiting.life
            gone = state.phase is Phase.CLOSED and type(event) is not life.SpiderClosed
            self._hold.watch(key, 0 if gone else state.held, state.phase is Phase.BACKOFF)
        return actions

    def _start_fetch(self, key: Origin, waiting: Waiting, action: life.StartFetch) -> None:
        waiting.fetch_started = self._runtime.monotonic()
        self._runtime.start_soon(self._load(key, waiting))

    async def _load(self, key: Origin, waiting: Waiting) -> None:
        """Load ``key``'s robots.txt, then tell its life how the fetch
        ended (RFC 9309 §2.3.1). The spider's own requests for this
        robots.txt that wait get the fetch's response
        (:mod:`.crawl._kept_responses`)."""
        # The cache never evicts an origin whose life is kept here, which
        # would reset its backoff and its waits.
        loaded = await self._loader.load(key, waiting.trigger, waiting.tokens, keep=self._origins)
        try:
            self._announce(key, loaded.unreachable)
            entry, now = loaded.entry, self._runtime.clock()
            usable = entry.usable(now, self._allow_after)
            if usable:
                self._kept.keep(key, loaded.fetched, loaded.why)
            since = entry.unreachable_since
            event = life.FetchEnded(
                self._runtime.monotonic(),
                usable,
                None if usable else entry.retry_at - now,
                # Held requests are dropped by the fleet's clock: the record's.
                None if since is None else self._runtime.monotonic_of(since),
            )
            self.feed(key, event)
        except Exception:
            logger.error(
                "Error releasing the requests that waited for %(url)s",
                {"url": key.robots_url},
                exc_info=True,
                extra=self._runtime.log,
            )

    def _arm(self, key: Origin, waiting: Waiting, action: life.ArmTimer) -> None:
        timer = action.timer
        handle = self._runtime.call_later(action.delay, lambda: self._fired(key, timer))
        if timer is life.Timer.RETRY:
            waiting.retry_timer = handle
            waiting.retry_due = self._runtime.monotonic() + action.delay
        else:
            waiting.drop_timer = handle

    def _fired(self, key: Origin, timer: life.Timer) -> None:
        waiting = self._origins.get(key)
        if waiting is None:
            return
        now = self._runtime.monotonic()
        if timer is life.Timer.RETRY:
            waiting.retry_timer = waiting.retry_due = None
            self._feed(key, waiting, life.RetryFired(now))
        else:
            waiting.drop_timer = None
            self._feed(key, waiting, life.DropFired(now))

    def _cancel(self, key: Origin, waiting: Waiting, action: life.CancelTimer) -> None:
        retry = action.timer is life.Timer.RETRY
        armed = waiting.retry_timer if retry else waiting.drop_timer
        if armed is not None:
            armed.cancel()
        if retry:
            waiting.retry_timer = waiting.retry_due = None
        else:
            waiting.drop_timer = None

    def _count_waiting(self, key: Origin, waiting: Waiting, action: life.CountWaiting) -> None:
        stats = self._runtime.stats
        if action.held:
            stats.inc_value("robotstxt/waiting/held")
        stats.inc_value("robotstxt/waiting")
        self._report.row(key).waited += 1

    def _release(self, key: Origin, waiting: Waiting, action: life.Release[Request, Any]) -> None:
        self._engine.give_back(action.requests)
        for d in action.resumed:
            d.callback(None)

    def _drop(self, key: Origin, waiting: Waiting, action: life.Drop[Request, Any]) -> None:
        reason = action.reason if action.reason is not None else self._drop_reason(key)
        for d in action.resumed:
            d.callback(reason)
        for request in action.requests:
            dropped(request, reason)
        if action.requests:
            self._engine.give_back(action.requests)

    def _release_held(self, key: Origin, waiting: Waiting, action: life.ReleaseHeld) -> None:
        self._hold.release_soon(key)

    def _expire_held(self, key: Origin, waiting: Waiting, action: life.ExpireHeld) -> None:
        self._hold.release_expired(key, action.limit)

    def _warn_unreachable(
        self, key: Origin, waiting: Waiting, action: life.WarnUnreachable
    ) -> None:
        self._announcer.unreachable(key, action.outcome, self._outlook(key, action.retry_in))

    def _warn_dropping(self, key: Origin, waiting: Waiting, action: life.WarnDropping) -> None:
        self._announcer.dropping(key, self._drop_reason(key))

    def _forget(self, key: Origin, waiting: Waiting, action: life.Forget) -> None:
        if self._origins.get(key) is waiting:
            del self._origins[key]

    def _nothing(self, key: Origin, waiting: Waiting, action: Any) -> None:
        """PutAside, SendBack, Unparked: the caller reads them."""

    # -- words ------------------------------------------------------------------

    def _drop_reason(self, key: Origin) -> str:
        entry = self._cache.get(key)
        return entry.outcome if entry is not None else "robots.txt not fetched"

    def _outlook(self, key: Origin, retry_in: float) -> Outlook:
        """What happens next to ``key``'s requests, robots.txt being
        unreachable and fetched again in ``retry_in`` seconds."""
        waiting = self._origins.get(key)
        now = self._runtime.monotonic()
        when = None if waiting is None else waiting.life.drop_time(since=now)
        dropped = 0 if waiting is None else len(waiting.life.no_wait)
        return Outlook(retry_in, None if when is None else when - now, self.wait, dropped)

    def _announce(self, key: Origin, unreachable: Unreachable | None) -> None:
        """The line of a failed fetch, or of a stored record that says
        robots.txt is unreachable (HTTP-4 to HTTP-6), if ``unreachable``."""
        if unreachable is not None:
            retry_in = unreachable.retry_at - self._runtime.clock()
            self._announcer.unreachable(
                key,
                unreachable.outcome,
                self._outlook(key, retry_in),
                good=unreachable.good,
                level=unreachable.level,
            )

    #: The runner of each action, by its type: one dict lookup per action.
    _RUNNERS: ClassVar[dict[type, Callable[[WaitingRoom, Origin, Waiting, Any], None]]] = {
        life.StartFetch: _start_fetch,
        life.ArmTimer: _arm,
        life.CancelTimer: _cancel,
        life.CountWaiting: _count_waiting,
        life.Release: _release,
        life.Drop: _drop,
        life.ReleaseHeld: _release_held,
        life.ExpireHeld: _expire_held,
        life.WarnUnreachable: _warn_unreachable,
        life.WarnDropping: _warn_dropping,
        life.Forget: _forget,
        life.PutAside: _nothing,
        life.SendBack: _nothing,
        life.Unparked: _nothing,
    }
