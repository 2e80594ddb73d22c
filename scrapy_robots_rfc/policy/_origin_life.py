"""The life of one origin's document while it is undecided, as a sans-I/O
state machine: events in, actions out, everything that affects the machine
in this file (h11's ``_state.py`` is the model).

While an origin's robots.txt is being fetched, or is unreachable and in its
backoff (RFC 9309 §2.3.1.4), requests wait for it (:mod:`._waiters`). A
request still waiting ``wait`` seconds (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``)
after the origin was found unreachable is dropped, from when it came or from
when the origin turned unreachable, whichever is later; a first fetch that is
only slow never drops anything.

The phase is stored (:attr:`OriginLife.phase`) and :data:`TABLE` is the
transition function: the next phase is ``TABLE[(phase, type(event))]`` and
nothing else, and a pair the table does not list is the error
(:class:`OriginLifeError`). A row names the phase it moves to, the data step
the event makes on the waiters (who comes, who leaves), and the actions, by
the builders that make them from the event and what the step took out. Its
one guard is stated in the table, not in code: a row's *empty* cell applies
when no waiter is left after the data step. The phases::

    NEW         just made; it accepts only Need or InBackoff, fed in the
                same call as its first waiter
    FETCHING    the first fetch is under way
    BACKOFF     unreachable; the RETRY alarm is armed (and only here)
    REFETCHING  unreachable; the retry's fetch is under way
    CLOSED      decided, or nobody waits: the caller forgets the life

It never does I/O, never reads a clock (``now``, seconds since the epoch,
comes with each event), and never calls back into its caller: the caller
(:class:`.crawl._lives.Lives`) runs the actions and owns the three alarms
(:class:`Alarm`); every alarm is armed and cancelled by an action.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Generic, NamedTuple, TypeVar

from ._waiters import Kind, Waiter, Waiters

R = TypeVar("R")


class OriginLifeError(RuntimeError):
    """An event the life's phase does not accept (a bug in the caller)."""


class Phase(enum.Enum):
    # Hashed by identity, as the members are singletons: the table's keys
    # and the caller's alarm table hash them without a Python call.
    __hash__ = object.__hash__

    NEW = "new"
    FETCHING = "fetching"
    BACKOFF = "backoff"
    REFETCHING = "refetching"
    CLOSED = "closed"


class Alarm(enum.Enum):
    __hash__ = object.__hash__

    #: Fetch again when the backoff ends (RFC 9309 §2.3.1.4).
    RETRY = "retry"
    #: Drop what waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    DROP = "drop"
    #: The grace a request from the scheduler waits in place for, counted
    #: from the start of a fetch (``ROBOTSTXT_RFC_PARK_AFTER``): then it
    #: leaves the downloader, to wait out of it.
    GRACE = "grace"


#: Every alarm (what :class:`Forget` cancels).
ALARMS = tuple(Alarm)


# -- events ------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Need:
    """A request needs the origin decided: fetch, unless a fetch is under
    way."""

    now: float


@dataclass(frozen=True, slots=True)
class InBackoff:
    """A new life's origin is known unreachable (``outcome``), its backoff
    has ``retry_in`` seconds to run (RFC 9309 §2.3.1.4)."""

    now: float
    retry_in: float
    outcome: str


@dataclass(frozen=True, slots=True)
class Came(Generic[R]):
    """``waiter`` comes to wait."""

    now: float
    waiter: Waiter[R]


@dataclass(frozen=True, slots=True)
class CameOnce(Generic[R]):
    """``waiter`` comes, and may not wait for a retry (it waits for one
    fetch only, or ``wait`` is 0): in the backoff it is dropped now."""

    now: float
    waiter: Waiter[R]


@dataclass(frozen=True, slots=True)
class Arrived(Generic[R]):
    """``waiter`` now waits as ``kind``: a copy parked by the scheduler
    (or come back without it, in place), moving to the store, held there."""

    now: float
    waiter: Waiter[R]
    kind: Kind


@dataclass(frozen=True, slots=True)
class GraceOver:
    """The GRACE alarm fired: the requests from the scheduler that wait in
    place leave the downloader, unless robots.txt has ``answered``: its
    response has come whole, and what is left is the crawler's own work
    (reading it, storing it), which parking would not hasten. Then they
    wait in place for one more grace."""

    now: float
    answered: bool = False


@dataclass(frozen=True, slots=True)
class FetchDecided:
    """The fetch under way decided the origin (a usable cache entry)."""

    now: float


@dataclass(frozen=True, slots=True)
class FetchFailed:
    """The fetch under way found robots.txt unreachable: fetch again in
    ``retry_in`` seconds. ``unreachable_since``: when the stored record says
    it turned unreachable, which the wait of held requests counts from."""

    now: float
    retry_in: float
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
    parked requests move there (:class:`ToFleet`)."""

    now: float


@dataclass(frozen=True, slots=True)
class SpiderClosed:
    now: float


Event = (
    Need
    | InBackoff
    | Came[R]
    | CameOnce[R]
    | Arrived[R]
    | GraceOver
    | FetchDecided
    | FetchFailed
    | RetryFired
    | RetryNow
    | DropFired
    | HeldLeft
    | Unheld
    | Unpark
    | SpiderClosed
)


# -- actions -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StartFetch:
    """Fetch the document."""


@dataclass(frozen=True, slots=True)
class Arm:
    """Arm ``alarm`` to fire in ``delay`` seconds, unless it is armed."""

    alarm: Alarm
    delay: float


@dataclass(frozen=True, slots=True)
class Cancel:
    alarm: Alarm


@dataclass(frozen=True, slots=True)
class Forget:
    """The life is over: cancel its alarms and forget it; the next request
    starts a new one."""


@dataclass(frozen=True, slots=True)
class Count:
    """One more request waits (``robotstxt/waiting``); ``held``: one is
    held in the store (``robotstxt/waiting/held``), and ``waiting``: it is
    a new one."""

    held: bool = False
    waiting: bool = True


@dataclass(frozen=True, slots=True)
class Release(Generic[R]):
    """The origin is decided: these waiters go on, to be decided."""

    waiters: tuple[Waiter[R], ...]


@dataclass(frozen=True, slots=True)
class Drop(Generic[R]):
    """These waiters are dropped, for ``reason`` (``None``: the origin's
    outcome, which the caller knows)."""

    waiters: tuple[Waiter[R], ...]
    reason: str | None = None


@dataclass(frozen=True, slots=True)
class Leave(Generic[R]):
    """These waiters leave the downloader: each is now in transit."""

    waiters: tuple[Waiter[R], ...]


@dataclass(frozen=True, slots=True)
class ReleaseHeld:
    """The origin is decided: the requests held in the store go back to
    the crawl."""


@dataclass(frozen=True, slots=True)
class ExpireHeld:
    """Send back, to be dropped, the held requests that began to wait at
    ``limit`` or earlier; the store answers with :class:`HeldLeft`."""

    limit: float


@dataclass(frozen=True, slots=True)
class ToFleet(Generic[R]):
    """These parked waiters move to the store, each answered with
    :class:`Arrived` (held, or parked again)."""

    waiters: tuple[Waiter[R], ...]


@dataclass(frozen=True, slots=True)
class PutAside(Generic[R]):
    """The spider closed: these parked waiters are saved in ``JOBDIR``, or
    counted as abandoned."""

    waiters: tuple[Waiter[R], ...]


@dataclass(frozen=True, slots=True)
class WarnUnreachable:
    """The WARNING of an unreachable origin whose requests now wait for the
    retry in ``retry_in`` seconds."""

    outcome: str
    retry_in: float


@dataclass(frozen=True, slots=True)
class WarnDropping:
    """The WARNING that requests to the origin are being dropped (the
    caller says it once per origin)."""


Action = (
    StartFetch
    | Arm
    | Cancel
    | Forget
    | Count
    | Release[R]
    | Drop[R]
    | Leave[R]
    | ReleaseHeld
    | ExpireHeld
    | ToFleet[R]
    | PutAside[R]
    | WarnUnreachable
    | WarnDropping
)


# -- the machine -------------------------------------------------------------

#: What a data step took out of the line, for the action builders.
Gone = tuple[Waiter[Any], ...]
#: A data step: changes the waiters for the event; what left the line.
Step = Callable[["OriginLife[Any]", Any], Gone]
#: An action builder: the action, from the life, the event and what the
#: data step took out; ``None`` when there is nothing to act on.
Builder = Callable[["OriginLife[Any]", Any, Gone], "Action[Any] | None"]


class Row(NamedTuple):
    """A cell of :data:`TABLE`: the phase the event moves the life to, its
    data step, the actions; and, when ``empty`` is set, the phase and
    actions that apply instead if no waiter is left after the step."""

    then: Phase
    step: Step
    acts: tuple[Builder, ...] = ()
    empty: Phase | None = None
    empty_acts: tuple[Builder, ...] = ()


class OriginLife(Generic[R]):
    """One undecided document's life: its phase, stored, and who waits.
    ``wait`` is ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``; ``grace``
    ``ROBOTSTXT_RFC_PARK_AFTER``."""

    __slots__ = ("expired_held", "grace", "phase", "unreachable_at", "wait", "waiters")

    def __init__(self, wait: float, grace: float = 0.0) -> None:
        self.wait = wait
        self.grace = grace
        #: Where the life is; only :meth:`handle` sets it.
        self.phase = Phase.NEW
        self.waiters: Waiters[R] = Waiters()
        #: When the origin was found unreachable: what the wait of its
        #: requests counts from (set on the way into BACKOFF).
        self.unreachable_at: float | None = None
        #: The held requests the last drop sends back (those held since
        #: this time or earlier), if any.
        self.expired_held: float | None = None

    @property
    def fetching(self) -> bool:
        """A fetch is under way (FETCHING or REFETCHING)."""
        return self.phase is Phase.FETCHING or self.phase is Phase.REFETCHING

    def handle(self, event: Event[R]) -> list[Action[R]]:
        """The actions ``event`` calls for, the phase moved to where the
        table says; :class:`OriginLifeError` for a pair the table does not
        list (an event the phase does not accept)."""
        row = TABLE.get((self.phase, type(event)))
        if row is None:  # the missing key is the error
            raise OriginLifeError(f"{type(event).__name__} in phase {self.phase.name}")
        gone = row.step(self, event)
        if row.empty is not None and not self.waiters:
            self.phase, acts = row.empty, row.empty_acts
        else:
            self.phase, acts = row.then, row.acts
        actions = []
        for build in acts:
            action = build(self, event, gone)
            if action is not None:
                actions.append(action)
        return actions

    def drop_time(self, since: float | None = None) -> float | None:
        """When the longest-waiting request a drop reaches is to be
        dropped, if the origin is unreachable (``since``, when it is not
        known to be yet)."""
        since = self.unreachable_at if self.unreachable_at is not None else since
        first = self.waiters.first()
        if since is None or first is None:
            return None
        return max(first, since) + self.wait

    def outlook(self, now: float) -> tuple[float | None, int]:
        """For the WARNING of an unreachable origin: in how many seconds the
        longest-waiting request is dropped (``None``: none waits), counting
        from ``now`` if the origin is not known unreachable yet, and how
        many requests are dropped now instead (they wait for one fetch
        only)."""
        when = self.drop_time(since=now)
        return None if when is None else when - now, self.waiters.once()


# -- the data steps: who comes and who leaves ------------------------------------


def _nothing(life: OriginLife[Any], event: Any) -> Gone:
    return ()


def _unreachable(life: OriginLife[Any], event: InBackoff) -> Gone:
    # Unreachable and in its backoff (RFC 9309 §2.3.1.4): the first to wait
    # starts the wait's clock.
    if life.unreachable_at is None:
        life.unreachable_at = event.now
    return ()


def _comes(life: OriginLife[Any], event: Came[Any] | CameOnce[Any]) -> Gone:
    waiter = event.waiter
    if waiter.kind is Kind.HELD:  # adopted from a worker that died: in the store
        life.waiters.hold(waiter.since)
    else:
        life.waiters.add(waiter)
    return ()


def _turned_away(life: OriginLife[Any], event: CameOnce[Any]) -> Gone:
    """Unreachable, no fetch under way, and the request may not wait for
    the retry (RFC 9309 §2.3.1.4): it leaves at once, never counted."""
    return (event.waiter,)


def _arrives(life: OriginLife[Any], event: Arrived[Any]) -> Gone:
    waiter = event.waiter
    if waiter.kind is Kind.TRANSIT and event.kind is Kind.IN_PLACE:
        waiter.scheduled = False  # it came back without the scheduler
    if event.kind is Kind.HELD:
        life.waiters.remove(waiter)
        life.waiters.hold(waiter.since)
    waiter.kind = event.kind
    return ()


def _leaves(life: OriginLife[Any], event: GraceOver) -> Gone:
    if event.answered and life.fetching:
        return ()  # decided in a moment: parking frees nothing worth its trip
    leaving = tuple(w for w in life.waiters.of_kind(Kind.IN_PLACE) if w.scheduled)
    for waiter in leaving:
        waiter.kind = Kind.TRANSIT
    return leaving


def _all_go(life: OriginLife[Any], event: Any) -> Gone:
    return life.waiters.take()


def _fetch_failed(life: OriginLife[Any], event: FetchFailed) -> Gone:
    since = event.unreachable_since
    if life.waiters.held and life.unreachable_at is None and since is not None:
        # Held requests are dropped by the fleet's clock: the record's.
        life.unreachable_at = since
    if life.unreachable_at is None:
        life.unreachable_at = event.now
    return life.waiters.take_once()


def _expires(life: OriginLife[Any], event: DropFired) -> Gone:
    # Requests wait from when they came or from when the origin turned
    # unreachable, whichever is later: the times compared are drop times,
    # as drop_time() gives them, so that an alarm armed for one finds it due.
    now, wait, since = event.now, life.wait, life.unreachable_at
    life.expired_held = None
    if since is None or since + wait > now:
        return ()
    waiters = life.waiters
    if waiters.held_since is not None and waiters.held_since + wait <= now:
        waiters.held_since = None  # until HeldLeft says what is left
        life.expired_held = now - wait
    return waiters.take_expired(now, wait)


def _held_left(life: OriginLife[Any], event: HeldLeft) -> Gone:
    waiters = life.waiters
    if event.left is not None:
        waiters.held = event.left
    waiters.held_since = event.oldest if waiters.held else None
    return ()


def _unheld(life: OriginLife[Any], event: Unheld) -> Gone:
    waiters = life.waiters
    waiters.held = max(0, waiters.held - event.count)
    if not waiters.held:
        waiters.held_since = None
    return ()


def _unparks(life: OriginLife[Any], event: Unpark) -> Gone:
    moving = life.waiters.of_kind(Kind.PARKED)
    for waiter in moving:
        waiter.kind = Kind.MOVING
        waiter.moved = True
    return moving


# -- the action builders: constant actions are made once -------------------------

_START_FETCH = StartFetch()
_FORGET = Forget()
_WARN_DROPPING = WarnDropping()
_RELEASE_HELD = ReleaseHeld()
_CANCEL_RETRY = Cancel(Alarm.RETRY)
_COUNT = Count()
_COUNT_HELD = Count(held=True, waiting=False)


def start_fetch(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any]:
    return _START_FETCH


def forget(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any]:
    return _FORGET


def cancel_retry(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any]:
    return _CANCEL_RETRY


def arm_grace(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return Arm(Alarm.GRACE, life.grace) if life.grace > 0 else None


def arm_grace_again(life: OriginLife[Any], event: GraceOver, gone: Gone) -> Action[Any] | None:
    """One more grace for the requests that stayed in place, robots.txt
    having answered (:class:`GraceOver`)."""
    if event.answered and life.fetching and life.grace > 0:
        return Arm(Alarm.GRACE, life.grace)
    return None


def arm_retry(life: OriginLife[Any], event: InBackoff | FetchFailed, gone: Gone) -> Action[Any]:
    return Arm(Alarm.RETRY, max(0.0, event.retry_in))


def arm_drop(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    when = life.drop_time()
    return None if when is None else Arm(Alarm.DROP, max(0.0, when - event.now))


def arm_drop_later(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    """:func:`arm_drop`, no sooner than a second from now: what the store
    says is left is looked at again then, not at once."""
    when = life.drop_time()
    return None if when is None else Arm(Alarm.DROP, max(1.0, when - event.now))


def count(
    life: OriginLife[Any], event: Came[Any] | CameOnce[Any], gone: Gone
) -> Action[Any] | None:
    waiter = event.waiter
    if waiter.counted:  # it waited before, and was counted then
        return None
    return Count(held=True) if waiter.kind is Kind.HELD else _COUNT


def count_held(life: OriginLife[Any], event: Arrived[Any], gone: Gone) -> Action[Any] | None:
    """A request held in the store from a wait of its own (one that waited
    in this worker's memory first was counted as held when it moved)."""
    if event.kind is not Kind.HELD or event.waiter.moved:
        return None
    return _COUNT_HELD


def warn_unreachable(life: OriginLife[Any], event: InBackoff, gone: Gone) -> Action[Any]:
    return WarnUnreachable(event.outcome, event.retry_in)


def leave(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return Leave(gone) if gone else None


def release(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return Release(gone) if gone else None


def release_held(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return _RELEASE_HELD if life.waiters.held else None


def drop_gone(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return Drop(gone) if gone else None


def warn_dropping(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    """Said when parked requests are dropped (once per origin, by the
    caller)."""
    if any(w.kind is Kind.PARKED for w in gone):
        return _WARN_DROPPING
    return None


def expire_held(life: OriginLife[Any], event: DropFired, gone: Gone) -> Action[Any] | None:
    limit = life.expired_held
    return None if limit is None else ExpireHeld(limit)


def to_fleet(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    return ToFleet(gone) if gone else None


def drop_in_place(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    waiting = tuple(w for w in gone if w.kind is Kind.IN_PLACE)
    return Drop(waiting, reason="the spider closed") if waiting else None


def put_aside(life: OriginLife[Any], event: Any, gone: Gone) -> Action[Any] | None:
    parked = tuple(w for w in gone if w.kind is Kind.PARKED)
    return PutAside(parked) if parked else None


# -- the transition function -------------------------------------------------------

#: The phases in which a fetch is under way, and those in which requests
#: wait for the origin: rows they share are written once, below.
_FETCHES = (Phase.FETCHING, Phase.REFETCHING)
_WAITS = (Phase.FETCHING, Phase.BACKOFF, Phase.REFETCHING)

#: ``(phase, event type) -> Row``: the next phase, the data step and the
#: actions; a pair that is not here is the error. CLOSED accepts nothing.
TABLE: dict[tuple[Phase, type], Row] = {
    # -- NEW: fed Need or InBackoff, in the same call as its first waiter --
    (Phase.NEW, Need): Row(Phase.FETCHING, _nothing, (start_fetch, arm_grace)),
    (Phase.NEW, InBackoff): Row(Phase.BACKOFF, _unreachable, (warn_unreachable, arm_retry)),
    # -- BACKOFF: unreachable, the RETRY alarm runs (RFC 9309 §2.3.1.4) ----
    (Phase.BACKOFF, Need): Row(Phase.REFETCHING, _nothing, (cancel_retry, start_fetch, arm_grace)),
    (Phase.BACKOFF, InBackoff): Row(Phase.BACKOFF, _nothing),
    (Phase.BACKOFF, Came): Row(Phase.BACKOFF, _comes, (count, arm_drop)),
    (Phase.BACKOFF, CameOnce): Row(
        Phase.BACKOFF, _turned_away, (drop_gone,), Phase.CLOSED, (drop_gone, forget)
    ),
    (Phase.BACKOFF, RetryFired): Row(Phase.REFETCHING, _nothing, (start_fetch, arm_grace)),
    (Phase.BACKOFF, RetryNow): Row(
        Phase.REFETCHING, _nothing, (cancel_retry, start_fetch, arm_grace)
    ),
    (Phase.BACKOFF, DropFired): Row(
        Phase.BACKOFF,
        _expires,
        (drop_gone, warn_dropping, expire_held, arm_drop),
        Phase.CLOSED,
        (drop_gone, warn_dropping, forget),
    ),
    (Phase.BACKOFF, HeldLeft): Row(
        Phase.BACKOFF, _held_left, (arm_drop_later,), Phase.CLOSED, (forget,)
    ),
    (Phase.BACKOFF, Unheld): Row(Phase.BACKOFF, _unheld, (), Phase.CLOSED, (forget,)),
}
for _phase in _FETCHES:
    TABLE.update(
        {
            # The fetch under way decides.
            (_phase, Need): Row(_phase, _nothing),
            (_phase, InBackoff): Row(_phase, _nothing),
            (_phase, Came): Row(
                _phase, _comes, (count,) if _phase is Phase.FETCHING else (count, arm_drop)
            ),
            (_phase, CameOnce): Row(_phase, _comes, (count,)),
            (_phase, FetchDecided): Row(Phase.CLOSED, _all_go, (release, release_held, forget)),
            (_phase, FetchFailed): Row(
                Phase.BACKOFF,
                _fetch_failed,
                (drop_gone, arm_retry, arm_drop),
                Phase.CLOSED,
                (drop_gone, forget),
            ),
            (_phase, RetryNow): Row(_phase, _nothing),
            (_phase, HeldLeft): Row(
                _phase, _held_left, () if _phase is Phase.FETCHING else (arm_drop_later,)
            ),
            (_phase, Unheld): Row(_phase, _unheld),
        }
    )
TABLE[(Phase.REFETCHING, DropFired)] = Row(
    Phase.REFETCHING, _expires, (drop_gone, warn_dropping, expire_held, arm_drop)
)
for _phase in _WAITS:
    TABLE.update(
        {
            (_phase, Arrived): Row(_phase, _arrives, (count_held, arm_drop)),
            (_phase, GraceOver): Row(_phase, _leaves, (leave, arm_grace_again)),
            (_phase, Unpark): Row(_phase, _unparks, (to_fleet,)),
            (_phase, SpiderClosed): Row(Phase.CLOSED, _all_go, (drop_in_place, put_aside, forget)),
        }
    )
