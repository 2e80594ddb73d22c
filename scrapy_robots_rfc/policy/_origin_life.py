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
(:class:`.crawl._waiting_room.WaitingRoom`) runs the actions, which start fetches, arm
and cancel timers, give requests back to the engine and drop them.

The waiters are opaque: ``R`` is what a parked request is (a Scrapy
``Request``), ``D`` what a request waiting in place is resumed through (a
Twisted ``Deferred``); the machine only keeps them in order.

The phase is stored (:attr:`OriginLife.phase`) and :data:`TRANSITIONS` is
the transition function, as in h11's ``_state.py``: ``(phase, event type)``
is looked up, its handler returns the next phase and the actions, and a
pair the table does not list is the error. Everything that affects the
machine lives in this file. The phases (:class:`Phase`)::

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
from typing import TYPE_CHECKING, Any, ClassVar, Generic, NamedTuple, TypeVar

if TYPE_CHECKING:
    from collections.abc import Callable

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
    the fetch under way only. ``since``: it began to wait earlier, in
    place for a grace (:class:`LeaveInPlace`), and keeps its place in line
    and its drop time; it was counted then (``count`` false)."""

    request: R
    now: float
    no_wait: bool = False
    since: float | None = None
    count: bool = True


@dataclass(frozen=True, slots=True)
class WaitInPlace(Generic[D]):
    """A request waits inside ``process_request``, resumed through
    ``resume``: one that never passed the scheduler, or one from it for a
    grace (:class:`LeaveInPlace`). ``since``: it began to wait earlier (a
    copy given back to be parked that came back without passing the
    scheduler) and was counted then (``count`` false)."""

    resume: D
    now: float
    since: float | None = None
    count: bool = True


@dataclass(frozen=True, slots=True)
class LeaveInPlace(Generic[D]):
    """A request waiting in place (:class:`WaitInPlace`, resumed through
    ``resume``) stops waiting there: its grace is over, and it is parked
    next (:class:`Park` with its ``since``)."""

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
    | LeaveInPlace[D]
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


#: What a handler returns: the next phase and the actions.
_Step = tuple[Phase, list[Action[R, D]]]


class Transition(NamedTuple):
    """A row of :data:`TRANSITIONS`: the handler of the event in the phase,
    and the phases it may move to."""

    handler: Callable[[OriginLife[Any, Any], Any], _Step[Any, Any]]
    targets: tuple[Phase, ...]


class OriginLife(Generic[R, D]):
    """One origin's waiting life: its phase, stored, and what waits.
    :meth:`handle` looks the phase and the event's type up in
    :data:`TRANSITIONS`, the transition function (a pair that is not there
    is an error), and runs the handler it names, which returns the next
    phase and the actions. ``wait`` is ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        #: Where the life is (:class:`Phase`); only :meth:`handle` sets it.
        self.phase = Phase.WAITING
        #: Parked requests and in-place waiters, with when they began to
        #: wait, oldest first; no-wait requests.
        self.parked: deque[tuple[R, float]] = deque()
        self.in_place: deque[tuple[D, float]] = deque()
        self.no_wait: list[R] = []
        #: When the origin was first found unreachable: what the wait of
        #: its requests counts from (set on the way into BACKOFF).
        self.unreachable_at: float | None = None
        #: Requests held in the store that this worker watches, and when
        #: the longest-held of them began to wait.
        self.held = 0
        self.held_since: float | None = None
        self.retry_armed = False
        self.drop_armed = False

    # -- queries -----------------------------------------------------------

    @property
    def fetching(self) -> bool:
        """A fetch is under way (FETCHING or REFETCHING)."""
        return self.phase is Phase.FETCHING or self.phase is Phase.REFETCHING

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
        """The actions ``event`` calls for, the phase moved to where the
        table's handler says; :class:`OriginLifeError` for a pair the
        table does not list (an event the phase does not accept)."""
        transition = self.TRANSITIONS.get((self.phase, type(event)))
        if transition is None:
            raise OriginLifeError(f"{type(event).__name__} in phase {self.phase.name}")
        phase, actions = transition.handler(self, event)
        if phase not in transition.targets:  # pragma: no cover - the table is the spec
            raise OriginLifeError(f"{type(event).__name__}: {self.phase.name} -> {phase.name}")
        self.phase = phase
        return actions

    # -- the handlers: each returns the next phase and the actions ------------

    def _on_park(self, event: Park[R]) -> _Step[R, D]:
        if event.no_wait and not self.fetching:  # the fetch ended: decide again
            return self.phase, [SendBack(event.request)]
        if event.no_wait:
            self.no_wait.append(event.request)
        elif event.since is None:
            self.parked.append((event.request, event.now))
        else:  # it waited in place first: its place in line is its own
            bisect.insort(self.parked, (event.request, event.since), key=lambda item: item[1])
        counted: list[Action[R, D]] = [CountWaiting()] if event.count else []
        return self._came([*counted, *self._arm_drop(event.now)])

    def _on_leave_in_place(self, event: LeaveInPlace[D]) -> _Step[R, D]:
        self.in_place = deque(item for item in self.in_place if item[0] is not event.resume)
        return self.phase, []

    def _on_wait_in_place(self, event: WaitInPlace[D]) -> _Step[R, D]:
        if event.since is None:
            self.in_place.append((event.resume, event.now))
        else:  # in line from when it first waited
            bisect.insort(self.in_place, (event.resume, event.since), key=lambda item: item[1])
        counted: list[Action[R, D]] = [CountWaiting()] if event.count else []
        return self._came([*counted, *self._arm_drop(event.now)])

    def _on_hold_one(self, event: HoldOne) -> _Step[R, D]:
        self.held += 1
        if self.held_since is None or event.since < self.held_since:
            self.held_since = event.since
        counted: list[Action[R, D]] = [CountWaiting(held=True)] if event.count else []
        return self._came([*counted, *self._arm_drop(event.now)])

    def _on_fetch_wanted_idle(self, event: FetchWanted) -> _Step[R, D]:
        """WAITING or BACKOFF: fetch now, unless unreachable and in its backoff."""
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
        return Phase.BACKOFF, actions

    def _on_fetch_wanted_busy(self, event: FetchWanted) -> _Step[R, D]:
        """FETCHING or REFETCHING: the fetch under way decides."""
        return self.phase, []

    def _on_fetch_ended(self, event: FetchEnded) -> _Step[R, D]:
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
            return Phase.CLOSED, actions
        actions = []
        if self.no_wait:
            impatient, self.no_wait = tuple(self.no_wait), []
            actions.append(Drop(impatient))
        if not self.has_waiters():
            return Phase.CLOSED, [*actions, *self._forget()]
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
        return self._resting(), actions

    def _on_retry_fired(self, event: RetryFired) -> _Step[R, D]:
        if not self.retry_armed:
            raise OriginLifeError("RetryFired with no retry timer armed")
        self.retry_armed = False
        return self._retry()

    def _on_retry_now(self, event: RetryNow) -> _Step[R, D]:
        if not self.retry_armed:
            return self.phase, []
        self.retry_armed = False
        phase, actions = self._retry()
        return phase, [CancelTimer(Timer.RETRY), *actions]

    def _on_drop_fired(self, event: DropFired) -> _Step[R, D]:
        if not self.drop_armed:
            raise OriginLifeError("DropFired with no drop timer armed")
        self.drop_armed = False
        return self._drop_expired(event.now)

    def _on_held_left(self, event: HeldLeft) -> _Step[R, D]:
        if event.left is not None:
            self.held = event.left
        self.held_since = event.oldest if self.held else None
        if self._idle():
            return Phase.CLOSED, self._forget()
        return self.phase, self._arm_drop(event.now, at_least=1.0)

    def _on_unheld(self, event: Unheld) -> _Step[R, D]:
        self.held = max(0, self.held - event.count)
        if not self.held:
            self.held_since = None
        if self._idle():
            return Phase.CLOSED, self._forget()
        return self.phase, []

    def _on_unpark(self, event: Unpark) -> _Step[R, D]:
        moving = tuple(self.parked)
        self.parked.clear()
        return self.phase, [Unparked(moving)] if moving else []

    def _on_repark(self, event: Repark[R]) -> _Step[R, D]:
        bisect.insort(self.parked, (event.request, event.since), key=lambda item: item[1])
        return self._came(self._arm_drop(event.now))

    def _on_spider_closed(self, event: SpiderClosed) -> _Step[R, D]:
        # The parked requests are put aside (JOBDIR), those in place
        # dropped; the held ones are in the store already.
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
        return Phase.CLOSED, actions

    # -- helpers ---------------------------------------------------------------

    def _resting(self) -> Phase:
        """The phase without a fetch under way: BACKOFF once the origin is
        known unreachable, else WAITING."""
        return Phase.WAITING if self.unreachable_at is None else Phase.BACKOFF

    def _came(self, actions: list[Action[R, D]]) -> _Step[R, D]:
        """A request came to wait (parked, in place, held, or parked
        again). In BACKOFF the retry timer is armed but when it fired while
        nobody waited (the one request there was between its wait in place
        and its park): that retry is due, and this request starts it
        (RFC 9309 §2.3.1.4), instead of waiting to be dropped."""
        if self.phase is Phase.BACKOFF and not self.retry_armed:
            phase, start = self._start()
            return phase, [*actions, *start]
        return self.phase, actions

    def _retry(self) -> _Step[R, D]:
        if self.has_waiters() and not self.fetching:
            return self._start()
        return self.phase, []

    def _start(self) -> _Step[R, D]:
        """A fetch starts: FETCHING, or REFETCHING once known unreachable."""
        phase = Phase.FETCHING if self.unreachable_at is None else Phase.REFETCHING
        return phase, [StartFetch()]

    def _drop_expired(self, now: float) -> _Step[R, D]:
        if self.unreachable_at is None:
            return self.phase, []
        # Requests wait from when they came or from when the origin turned
        # unreachable, whichever is later: the queues are in that order.
        limit = now - self.wait
        if self.unreachable_at > limit:
            return self.phase, self._arm_drop(now)
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
        if self._idle():  # the next request fetches again
            return Phase.CLOSED, [*actions, *self._forget()]
        return self.phase, [*actions, *self._arm_drop(now)]

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
        """The timers stop and the caller forgets the origin (the handler
        returns CLOSED)."""
        armed = ((self.retry_armed, Timer.RETRY), (self.drop_armed, Timer.DROP))
        actions: list[Action[R, D]] = [CancelTimer(timer) for on, timer in armed if on]
        self.retry_armed = self.drop_armed = False
        actions.append(Forget())
        return actions

    #: The transition function: (phase, event type) -> its handler and the
    #: phases it may move to. Everything that affects the machine is here.
    #: A pair not listed raises :class:`OriginLifeError`: any event after
    #: CLOSED, a timer event before the origin is known unreachable (the
    #: timers run only then). Once known unreachable, an origin never goes
    #: back to WAITING; while a fetch is under way it never closes but for
    #: a fetch's end or the spider's.
    TRANSITIONS: ClassVar[dict[tuple[Phase, type], Transition]] = {
        # WAITING: requests wait, no fetch under way, not known unreachable
        (Phase.WAITING, Park): Transition(_on_park, (Phase.WAITING,)),
        (Phase.WAITING, WaitInPlace): Transition(_on_wait_in_place, (Phase.WAITING,)),
        (Phase.WAITING, LeaveInPlace): Transition(_on_leave_in_place, (Phase.WAITING,)),
        (Phase.WAITING, HoldOne): Transition(_on_hold_one, (Phase.WAITING,)),
        (Phase.WAITING, FetchWanted): Transition(
            _on_fetch_wanted_idle,
            (
                Phase.FETCHING,
                Phase.BACKOFF,
            ),
        ),
        (Phase.WAITING, FetchEnded): Transition(
            _on_fetch_ended,
            (
                Phase.WAITING,
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.WAITING, RetryNow): Transition(_on_retry_now, (Phase.WAITING,)),
        (Phase.WAITING, HeldLeft): Transition(
            _on_held_left,
            (
                Phase.WAITING,
                Phase.CLOSED,
            ),
        ),
        (Phase.WAITING, Unheld): Transition(
            _on_unheld,
            (
                Phase.WAITING,
                Phase.CLOSED,
            ),
        ),
        (Phase.WAITING, Unpark): Transition(_on_unpark, (Phase.WAITING,)),
        (Phase.WAITING, Repark): Transition(_on_repark, (Phase.WAITING,)),
        (Phase.WAITING, SpiderClosed): Transition(_on_spider_closed, (Phase.CLOSED,)),
        # FETCHING: the first fetch is under way
        (Phase.FETCHING, Park): Transition(_on_park, (Phase.FETCHING,)),
        (Phase.FETCHING, WaitInPlace): Transition(_on_wait_in_place, (Phase.FETCHING,)),
        (Phase.FETCHING, LeaveInPlace): Transition(_on_leave_in_place, (Phase.FETCHING,)),
        (Phase.FETCHING, HoldOne): Transition(_on_hold_one, (Phase.FETCHING,)),
        (Phase.FETCHING, FetchWanted): Transition(_on_fetch_wanted_busy, (Phase.FETCHING,)),
        (Phase.FETCHING, FetchEnded): Transition(
            _on_fetch_ended,
            (
                Phase.WAITING,
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.FETCHING, RetryNow): Transition(_on_retry_now, (Phase.FETCHING,)),
        (Phase.FETCHING, HeldLeft): Transition(_on_held_left, (Phase.FETCHING,)),
        (Phase.FETCHING, Unheld): Transition(_on_unheld, (Phase.FETCHING,)),
        (Phase.FETCHING, Unpark): Transition(_on_unpark, (Phase.FETCHING,)),
        (Phase.FETCHING, Repark): Transition(_on_repark, (Phase.FETCHING,)),
        (Phase.FETCHING, SpiderClosed): Transition(_on_spider_closed, (Phase.CLOSED,)),
        # BACKOFF: unreachable, the retry timer runs (RFC 9309 §2.3.1.4)
        (Phase.BACKOFF, Park): Transition(
            _on_park,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, WaitInPlace): Transition(
            _on_wait_in_place,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, LeaveInPlace): Transition(_on_leave_in_place, (Phase.BACKOFF,)),
        (Phase.BACKOFF, HoldOne): Transition(
            _on_hold_one,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, FetchWanted): Transition(
            _on_fetch_wanted_idle,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, FetchEnded): Transition(
            _on_fetch_ended,
            (
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.BACKOFF, RetryFired): Transition(
            _on_retry_fired,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, RetryNow): Transition(
            _on_retry_now,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, DropFired): Transition(
            _on_drop_fired,
            (
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.BACKOFF, HeldLeft): Transition(
            _on_held_left,
            (
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.BACKOFF, Unheld): Transition(
            _on_unheld,
            (
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.BACKOFF, Unpark): Transition(_on_unpark, (Phase.BACKOFF,)),
        (Phase.BACKOFF, Repark): Transition(
            _on_repark,
            (
                Phase.BACKOFF,
                Phase.REFETCHING,
            ),
        ),
        (Phase.BACKOFF, SpiderClosed): Transition(_on_spider_closed, (Phase.CLOSED,)),
        # REFETCHING: unreachable, the retry's fetch is under way
        (Phase.REFETCHING, Park): Transition(_on_park, (Phase.REFETCHING,)),
        (Phase.REFETCHING, WaitInPlace): Transition(_on_wait_in_place, (Phase.REFETCHING,)),
        (Phase.REFETCHING, LeaveInPlace): Transition(_on_leave_in_place, (Phase.REFETCHING,)),
        (Phase.REFETCHING, HoldOne): Transition(_on_hold_one, (Phase.REFETCHING,)),
        (Phase.REFETCHING, FetchWanted): Transition(_on_fetch_wanted_busy, (Phase.REFETCHING,)),
        (Phase.REFETCHING, FetchEnded): Transition(
            _on_fetch_ended,
            (
                Phase.BACKOFF,
                Phase.CLOSED,
            ),
        ),
        (Phase.REFETCHING, RetryFired): Transition(_on_retry_fired, (Phase.REFETCHING,)),
        (Phase.REFETCHING, RetryNow): Transition(_on_retry_now, (Phase.REFETCHING,)),
        (Phase.REFETCHING, DropFired): Transition(_on_drop_fired, (Phase.REFETCHING,)),
        (Phase.REFETCHING, HeldLeft): Transition(_on_held_left, (Phase.REFETCHING,)),
        (Phase.REFETCHING, Unheld): Transition(_on_unheld, (Phase.REFETCHING,)),
        (Phase.REFETCHING, Unpark): Transition(_on_unpark, (Phase.REFETCHING,)),
        (Phase.REFETCHING, Repark): Transition(_on_repark, (Phase.REFETCHING,)),
        (Phase.REFETCHING, SpiderClosed): Transition(_on_spider_closed, (Phase.CLOSED,)),
    }


#: The transition function of :class:`OriginLife` (its ``TRANSITIONS``).
TRANSITIONS = OriginLife.TRANSITIONS
