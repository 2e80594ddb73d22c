"""The life of an origin whose robots.txt is not decided yet, as a sans-I/O
state machine: events in, actions out, every transition in this file.

While an origin's robots.txt is being fetched, or is unreachable and in its
backoff (RFC 9309 §2.3.1.4), requests wait for it: *parked* (taken out of
the scheduler), *in place* (inside ``process_request``), *no-wait* (parked,
but waiting for the fetch under way only, as ``scrapy robots`` without
``--wait``), or *held* in a store for a fleet of crawlers. A request still
waiting ``wait`` seconds (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``) after the
origin was found unreachable is dropped, from when it came or from when the
origin turned unreachable, whichever is later; a first fetch that is only
slow never drops anything.

:class:`OriginLife` holds one origin's state and answers each event with a
list of actions, the way h11's ``ConnectionState`` does. It never does
I/O, never reads a clock (``now``, on the monotonic clock, comes in with
each event) and never calls back into its caller: the caller
(:class:`.crawl.WaitingRoom`) runs the actions, which start fetches, arm
and cancel timers, give requests back to the engine and drop them.

The waiters are opaque: ``R`` is what a parked request is (a Scrapy
``Request``), ``D`` what a request waiting in place is resumed through (a
Twisted ``Deferred``); the machine only keeps them in order.

Phases (:class:`Phase`) and the events each accepts (``*``: every live
phase; :data:`TRANSITIONS` is the table the tests check)::

    WAITING   nobody fetches, not known unreachable (just opened, or a
              fetch ended undecided without a backoff)
    FETCHING  a fetch is under way, the origin not known unreachable
    BACKOFF   unreachable, the retry timer runs
    REFETCHING  unreachable, the retry's fetch is under way
    CLOSED    decided, or nobody waits: the caller forgets the origin

A timer event for a timer that is not armed, and any event after CLOSED,
raise :class:`OriginLifeError`.

Before a request waits, :func:`standing` says from the cache's entry where
its origin stands for it (:class:`Standing`): decided, decided with a good
copy whose retry is due, unreachable in its backoff, or undecided.
"""

from __future__ import annotations

import bisect
import enum
from collections import deque
from dataclasses import dataclass
from typing import TYPE_CHECKING, Generic, TypeVar

if TYPE_CHECKING:
    from ..robotstxt import Token
    from ._policy import Entry

R = TypeVar("R")
D = TypeVar("D")


class OriginLifeError(RuntimeError):
    """An event the origin's phase does not accept (a bug in the caller)."""


class Phase(enum.Enum):
    WAITING = "waiting"
    FETCHING = "fetching"
    BACKOFF = "backoff"
    REFETCHING = "refetching"
    CLOSED = "closed"


class Standing(enum.Enum):
    """Where an origin stands for a request that arrives, from the cache's
    entry (:func:`standing`)."""

    #: Fresh (CACHE-1), refused locally, allow-all, or a good copy in force
    #: while unreachable (HTTP-5), with rules kept for the request's name
    #: (or none: allow all): the verdict is now.
    DECIDED = "decided"
    #: As :attr:`DECIDED`, a good copy in force while robots.txt is
    #: unreachable, whose retry is due: the verdict is now, and robots.txt
    #: is fetched again meanwhile (RFC 9309 §2.3.1.4).
    RETRY_DUE = "retry_due"
    #: Unreachable with no copy in force for the name, and the backoff runs
    #: (RFC 9309 §2.3.1.4): the request waits for the retry, or is dropped
    #: if it may not wait (:meth:`OriginLife.may_not_wait`).
    BACKOFF = "backoff"
    #: Unknown, expired, or no rules kept for the name: fetch, and wait.
    UNDECIDED = "undecided"


def standing(entry: Entry | None, token: Token, now: float, allow_after: float) -> Standing:
    """Where ``entry``'s origin stands for a request decided for ``token``
    at ``now`` (wall clock); ``allow_after``: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS``
    in seconds (RFC 9309 §2.3.1.4)."""
    if entry is None:
        return Standing.UNDECIDED
    if entry.unreachable_since is None:
        # The common case, asked for every request: a fetched copy, usable
        # until it is due (CACHE-1); the answer below gives, without its calls.
        rules = entry.rules
        if now < entry.expires and (rules is None or rules.get(token) is not None):
            return Standing.DECIDED
        return Standing.UNDECIDED
    due = entry.due(now)
    if entry.usable(now, allow_after):
        rules = entry.rules
        if rules is None or rules.get(token) is not None:
            return Standing.RETRY_DUE if due else Standing.DECIDED
    if entry.unreachable_since is not None and not due:
        return Standing.BACKOFF
    return Standing.UNDECIDED


class Timer(enum.Enum):
    #: Fetch again when the backoff ends (RFC 9309 §2.3.1.4).
    RETRY = "retry"
    #: Drop what waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    DROP = "drop"


# -- events ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Park(Generic[R]):
    """A request from the scheduler is to wait, parked; ``no_wait``: for
    the fetch under way only."""

    request: R
    now: float
    no_wait: bool = False


@dataclass(frozen=True, slots=True)
class WaitInPlace(Generic[D]):
    """A request that never passed the scheduler waits inside
    ``process_request``, resumed through ``resume``."""

    resume: D
    now: float


@dataclass(frozen=True, slots=True)
class HoldOne:
    """A request that began to wait at ``since`` is held in the store
    (``count`` it, as a request that waits), or ``count=False``: an origin
    adopted from another worker, whose oldest held request waited since
    ``since``."""

    since: float
    now: float
    count: bool = True


@dataclass(frozen=True, slots=True)
class FetchWanted:
    """A request needs the origin decided: fetch now, unless a fetch is
    under way, or the origin is unreachable (``outcome``) and its backoff
    has ``retry_in`` seconds to run (``None``: no backoff)."""

    now: float
    retry_in: float | None = None
    outcome: str = ""


@dataclass(frozen=True, slots=True)
class FetchEnded:
    """The fetch under way ended: ``decided`` (the origin has a usable
    entry), or not, to be fetched again in ``retry_in`` seconds (``None``:
    no retry). ``unreachable_since``: when the stored record says the origin
    turned unreachable (monotonic), which the wait of held requests counts
    from."""

    now: float
    decided: bool
    retry_in: float | None = None
    unreachable_since: float | None = None


@dataclass(frozen=True, slots=True)
class RetryFired:
    now: float


@dataclass(frozen=True, slots=True)
class RetryNow:
    """Another worker found robots.txt since: fetch now rather than when
    the backoff ends."""

    now: float


@dataclass(frozen=True, slots=True)
class DropFired:
    now: float


@dataclass(frozen=True, slots=True)
class HeldLeft:
    """After :class:`ExpireHeld`: ``left`` requests are still held
    (``None``: unknown), the oldest since ``oldest``."""

    now: float
    left: int | None
    oldest: float | None


@dataclass(frozen=True, slots=True)
class Unheld:
    """``count`` held requests are no longer held (another worker released
    them)."""

    now: float
    count: int


@dataclass(frozen=True, slots=True)
class Unpark:
    """The store answers again, and holds requests for the fleet: the
    parked requests leave memory to be held there (:class:`Unparked`).
    Each comes back as held (:class:`HoldOne` with ``count=False``) or,
    if the store fails again, parked again (:class:`Repark`)."""

    now: float


@dataclass(frozen=True, slots=True)
class Repark(Generic[R]):
    """A request :class:`Unpark` took out could not be held: it is parked
    again, in its place (it waits from ``since``), not counted again."""

    request: R
    since: float
    now: float


@dataclass(frozen=True, slots=True)
class SpiderClosed:
    now: float


Event = (
    Park[R]
    | WaitInPlace[D]
    | HoldOne
    | FetchWanted
    | FetchEnded
    | RetryFired
    | RetryNow
    | DropFired
    | HeldLeft
    | Unheld
    | Unpark
    | Repark[R]
    | SpiderClosed
)


# -- actions -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartFetch:
    """Fetch the origin's robots.txt."""


@dataclass(frozen=True, slots=True)
class ArmTimer:
    timer: Timer
    delay: float


@dataclass(frozen=True, slots=True)
class CancelTimer:
    timer: Timer


@dataclass(frozen=True, slots=True)
class CountWaiting:
    """One more request waits (``robotstxt/waiting``); ``held``: in the
    store (``robotstxt/waiting/held`` too)."""

    held: bool = False


@dataclass(frozen=True, slots=True)
class SendBack(Generic[R]):
    """Not parked after all (decided meanwhile, or no fetch under way for a
    no-wait request): back to ``process_request`` to be decided again."""

    request: R


@dataclass(frozen=True, slots=True)
class Release(Generic[R, D]):
    """The origin is decided: back to the engine, or resumed."""

    requests: tuple[R, ...] = ()
    resumed: tuple[D, ...] = ()


@dataclass(frozen=True, slots=True)
class Drop(Generic[R, D]):
    """Back to the engine to be dropped, or resumed to be dropped, with
    ``reason`` (``None``: the origin's outcome, which the caller knows)."""

    requests: tuple[R, ...] = ()
    resumed: tuple[D, ...] = ()
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class ReleaseHeld:
    """The origin is decided: send its held requests back to the crawl."""


@dataclass(frozen=True, slots=True)
class ExpireHeld:
    """Send back, to be dropped, the requests held since ``limit`` or
    earlier; answer with :class:`HeldLeft`."""

    limit: float


@dataclass(frozen=True, slots=True)
class Unparked(Generic[R]):
    """After :class:`Unpark`: the requests that were parked, with when
    each began to wait, oldest first, to be held in the store."""

    requests: tuple[tuple[R, float], ...]


@dataclass(frozen=True, slots=True)
class PutAside(Generic[R]):
    """The spider closed: ``requests`` were still parked (saved in
    ``JOBDIR``, or counted as abandoned)."""

    requests: tuple[R, ...]


@dataclass(frozen=True, slots=True)
class WarnUnreachable:
    """The WARNING of an unreachable origin whose requests now wait for
    the retry in ``retry_in`` seconds."""

    outcome: str
    retry_in: float


@dataclass(frozen=True, slots=True)
class WarnDropping:
    """The WARNING that requests to the origin are being dropped (the
    caller says it once per origin)."""


@dataclass(frozen=True, slots=True)
class Forget:
    """Nobody waits any more, or the origin is decided: stop its timers and
    forget it; the next request starts a new life."""


Action = (
    StartFetch
    | ArmTimer
    | CancelTimer
    | CountWaiting
    | SendBack[R]
    | Release[R, D]
    | Drop[R, D]
    | ReleaseHeld
    | ExpireHeld
    | Unparked[R]
    | PutAside[R]
    | WarnUnreachable
    | WarnDropping
    | Forget
)

#: Every (phase, event) pair the machine accepts, and the phases it may move
#: to. A pair not listed raises :class:`OriginLifeError`.
_LIVE = (Phase.WAITING, Phase.FETCHING, Phase.BACKOFF, Phase.REFETCHING)
TRANSITIONS: dict[tuple[Phase, type], tuple[Phase, ...]] = {
    **{(p, Park): (p, Phase.CLOSED) for p in _LIVE},
    **{(p, WaitInPlace): (p,) for p in _LIVE},
    **{(p, HoldOne): (p,) for p in _LIVE},
    (Phase.WAITING, FetchWanted): (Phase.FETCHING, Phase.BACKOFF),
    (Phase.FETCHING, FetchWanted): (Phase.FETCHING,),
    (Phase.BACKOFF, FetchWanted): (Phase.BACKOFF, Phase.REFETCHING),
    (Phase.REFETCHING, FetchWanted): (Phase.REFETCHING,),
    **{(p, FetchEnded): (Phase.WAITING, Phase.BACKOFF, Phase.CLOSED) for p in _LIVE},
    # The timers run only once the origin is known unreachable.
    (Phase.BACKOFF, RetryFired): (Phase.BACKOFF, Phase.REFETCHING),
    (Phase.REFETCHING, RetryFired): (Phase.REFETCHING,),
    **{(p, RetryNow): (p,) for p in (Phase.WAITING, Phase.FETCHING, Phase.REFETCHING)},
    (Phase.BACKOFF, RetryNow): (Phase.BACKOFF, Phase.REFETCHING),
    (Phase.BACKOFF, DropFired): (Phase.BACKOFF, Phase.CLOSED),
    (Phase.REFETCHING, DropFired): (Phase.REFETCHING, Phase.CLOSED),
    **{(p, HeldLeft): (p, Phase.CLOSED) for p in _LIVE},
    **{(p, Unheld): (p, Phase.CLOSED) for p in _LIVE},
    # The requests on their way to the store keep the origin alive.
    **{(p, Unpark): (p,) for p in _LIVE},
    **{(p, Repark): (p,) for p in _LIVE},
    **{(p, SpiderClosed): (Phase.CLOSED,) for p in _LIVE},
}


class OriginLife(Generic[R, D]):
    """One origin's waiting life; :meth:`handle` turns an event into
    actions. ``wait`` is ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        #: A fetch is under way.
        self.fetching = False
        #: Parked requests and in-place waiters, with when they began to
        #: wait, oldest first; no-wait requests.
        self.parked: deque[tuple[R, float]] = deque()
        self.in_place: deque[tuple[D, float]] = deque()
        self.no_wait: list[R] = []
        #: When a fetch first found the origin unreachable.
        self.unreachable_at: float | None = None
        #: Requests held in the store that this worker watches, and when
        #: the longest-held of them began to wait.
        self.held = 0
        self.held_since: float | None = None
        self.retry_armed = False
        self.drop_armed = False
        self.closed = False

    # -- queries -----------------------------------------------------------

    @property
    def phase(self) -> Phase:
        if self.closed:
            return Phase.CLOSED
        unreachable = self.unreachable_at is not None
        if self.fetching:
            return Phase.REFETCHING if unreachable else Phase.FETCHING
        return Phase.BACKOFF if unreachable else Phase.WAITING

    def has_waiters(self) -> bool:
        return bool(self.parked or self.in_place or self.no_wait or self.held)

    def may_not_wait(self, no_wait: bool) -> bool:
        """Whether a request for the origin, unreachable and in its backoff,
        is dropped at once rather than wait for the retry: no fetch is under
        way, and it may not wait (``wait`` is 0, or ``no_wait``)."""
        return not self.fetching and (self.wait <= 0 or no_wait)

    def drop_time(self, since: float | None = None) -> float | None:
        """When the longest-waiting request is to be dropped, if the origin
        is unreachable (``since``, when it is not known to be yet)."""
        since = self.unreachable_at if self.unreachable_at is not None else since
        if since is None:
            return None
        starts = [queue[0][1] for queue in (self.parked, self.in_place) if queue]
        if self.held_since is not None:
            starts.append(self.held_since)
        if not starts:
            return None
        return max(min(starts), since) + self.wait

    # -- the transition function ---------------------------------------------

    def handle(self, event: Event[R, D]) -> list[Action[R, D]]:
        """The actions ``event`` calls for; raises :class:`OriginLifeError`
        for an event the phase does not accept."""
        before = self.phase
        allowed = TRANSITIONS.get((before, type(event)))
        if allowed is None:
            raise OriginLifeError(f"{type(event).__name__} in phase {before.name}")
        actions = self._handle(event)
        after = self.phase
        if after not in allowed:  # pragma: no cover - the table is the spec
            raise OriginLifeError(f"{type(event).__name__}: {before.name} -> {after.name}")
        return actions

    def _handle(self, event: Event[R, D]) -> list[Action[R, D]]:
        if isinstance(event, Park):
            return self._park(event)
        if isinstance(event, WaitInPlace):
            self.in_place.append((event.resume, event.now))
            return [CountWaiting(), *self._arm_drop(event.now)]
        if isinstance(event, HoldOne):
            self.held += 1
            if self.held_since is None or event.since < self.held_since:
                self.held_since = event.since
            if not event.count:
                return self._arm_drop(event.now)
            return [CountWaiting(held=True), *self._arm_drop(event.now)]
        if isinstance(event, FetchWanted):
            return self._fetch_wanted(event)
        if isinstance(event, FetchEnded):
            return self._fetch_ended(event)
        if isinstance(event, RetryFired):
            if not self.retry_armed:
                raise OriginLifeError("RetryFired with no retry timer armed")
            self.retry_armed = False
            return self._retry()
        if isinstance(event, RetryNow):
            if not self.retry_armed:
                return []
            self.retry_armed = False
            return [CancelTimer(Timer.RETRY), *self._retry()]
        if isinstance(event, DropFired):
            if not self.drop_armed:
                raise OriginLifeError("DropFired with no drop timer armed")
            self.drop_armed = False
            return self._drop_expired(event.now)
        if isinstance(event, HeldLeft):
            if event.left is not None:
                self.held = event.left
            self.held_since = event.oldest if self.held else None
            if self._idle():
                return self._forget()
            return self._arm_drop(event.now, at_least=1.0)
        if isinstance(event, Unheld):
            self.held = max(0, self.held - event.count)
            if not self.held:
                self.held_since = None
            return self._forget() if self._idle() else []
        if isinstance(event, Unpark):
            moving = tuple(self.parked)
            self.parked.clear()
            return [Unparked(moving)] if moving else []
        if isinstance(event, Repark):
            bisect.insort(self.parked, (event.request, event.since), key=lambda item: item[1])
            return self._arm_drop(event.now)
        # SpiderClosed: the parked requests are put aside (JOBDIR), those in
        # place dropped; the held ones are in the store already.
        parked = (*(request for request, _ in self.parked), *self.no_wait)
        resumed = tuple(d for d, _ in self.in_place)
        self.parked.clear()
        self.in_place.clear()
        self.no_wait = []
        actions = self._forget()
        if resumed:
            actions.append(Drop(resumed=resumed, reason="the spider closed"))
        if parked:
            actions.append(PutAside(parked))
        return actions

    def _park(self, event: Park[R]) -> list[Action[R, D]]:
        if event.no_wait and not self.fetching:  # the fetch ended: decide again
            return [SendBack(event.request)]
        if event.no_wait:
            self.no_wait.append(event.request)
        else:
            self.parked.append((event.request, event.now))
        return [CountWaiting(), *self._arm_drop(event.now)]

    def _fetch_wanted(self, event: FetchWanted) -> list[Action[R, D]]:
        if self.fetching:
            return []
        if event.retry_in is None:
            return self._start()
        # Unreachable and in its backoff (RFC 9309 §2.3.1.4): the first to
        # wait starts the wait's clock and the WARNING that says so.
        actions: list[Action[R, D]] = []
        if self.unreachable_at is None:
            self.unreachable_at = event.now
            actions.append(WarnUnreachable(event.outcome, event.retry_in))
        if not self.retry_armed:
            self.retry_armed = True
            actions.append(ArmTimer(Timer.RETRY, max(0.0, event.retry_in)))
        return actions

    def _fetch_ended(self, event: FetchEnded) -> list[Action[R, D]]:
        self.fetching = False
        since = event.unreachable_since
        if self.held and self.unreachable_at is None and since is not None:
            # Held requests are dropped by the fleet's clock: the record's.
            self.unreachable_at = since
        if event.decided:
            parked = (*(request for request, _ in self.parked), *self.no_wait)
            resumed = tuple(d for d, _ in self.in_place)
            actions = self._forget()
            if self.held:
                actions.append(ReleaseHeld())
            actions.append(Release(parked, resumed))
            return actions
        actions = []
        if self.no_wait:
            impatient, self.no_wait = tuple(self.no_wait), []
            actions.append(Drop(impatient))
        if not self.has_waiters():
            return [*actions, *self._forget()]
        if event.retry_in is not None:
            if self.unreachable_at is None:
                self.unreachable_at = event.now
            # This fetch's backoff replaces any earlier timer: the next try
            # is the one the WARNING of this fetch announced.
            if self.retry_armed:
                actions.append(CancelTimer(Timer.RETRY))
            self.retry_armed = True
            actions.append(ArmTimer(Timer.RETRY, max(0.0, event.retry_in)))
            actions.extend(self._arm_drop(event.now))
        return actions

    def _retry(self) -> list[Action[R, D]]:
        if self.has_waiters() and not self.fetching:
            return self._start()
        return []

    def _start(self) -> list[Action[R, D]]:
        self.fetching = True
        return [StartFetch()]

    def _drop_expired(self, now: float) -> list[Action[R, D]]:
        if self.unreachable_at is None:
            return []
        # Requests wait from when they came or from when the origin turned
        # unreachable, whichever is later: the queues are in that order.
        limit = now - self.wait
        if self.unreachable_at > limit:
            return self._arm_drop(now)
        actions: list[Action[R, D]] = []
        expired: list[R] = []
        while self.parked and self.parked[0][1] <= limit:
            expired.append(self.parked.popleft()[0])
        resumed: list[D] = []
        while self.in_place and self.in_place[0][1] <= limit:
            resumed.append(self.in_place.popleft()[0])
        if resumed:
            actions.append(Drop(resumed=tuple(resumed)))
        if self.held_since is not None and self.held_since <= limit:
            self.held_since = None  # until HeldLeft says what is left
            actions.append(ExpireHeld(limit))
        if expired:
            actions += [WarnDropping(), Drop(tuple(expired))]
        if self._idle():
            return [*actions, *self._forget()]  # the next request fetches again
        return [*actions, *self._arm_drop(now)]

    def _arm_drop(self, now: float, at_least: float = 0.0) -> list[Action[R, D]]:
        if self.drop_armed:
            return []
        when = self.drop_time()
        if when is None:
            return []
        self.drop_armed = True
        return [ArmTimer(Timer.DROP, max(at_least, when - now))]

    def _idle(self) -> bool:
        return not self.has_waiters() and not self.fetching

    def _forget(self) -> list[Action[R, D]]:
        """Close: the timers stop and the caller forgets the origin."""
        self.closed = True
        armed = ((self.retry_armed, Timer.RETRY), (self.drop_armed, Timer.DROP))
        actions: list[Action[R, D]] = [CancelTimer(timer) for on, timer in armed if on]
        self.retry_armed = self.drop_armed = False
        actions.append(Forget())
        return actions
