"""The life of an origin's undecided document (:class:`.policy.OriginLife`)
as tables of (phase, event) -> (phase, actions), on no reactor and no clock:
every pair the machine accepts is a row, every pair it does not raises. The
waiters' items are strings, since the machine never looks at them; time is
what the events say. Properties: whatever a caller that keeps the protocol
feeds it, no waiter leaves twice or both released and dropped, and the RETRY
alarm is armed exactly while the life is in BACKOFF."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_robots_rfc.policy import Entry, Standing, standing
from scrapy_robots_rfc.policy._origin_life import (
    TABLE,
    Action,
    Alarm,
    Arm,
    Arrived,
    Came,
    CameOnce,
    Cancel,
    Count,
    Drop,
    DropFired,
    Event,
    ExpireHeld,
    FetchDecided,
    FetchFailed,
    Forget,
    GraceOver,
    HeldLeft,
    InBackoff,
    Leave,
    Need,
    OriginLife,
    OriginLifeError,
    Phase,
    PutAside,
    Release,
    ReleaseHeld,
    RetryFired,
    RetryNow,
    SpiderClosed,
    StartFetch,
    ToFleet,
    Unheld,
    Unpark,
    WarnDropping,
    WarnUnreachable,
)
from scrapy_robots_rfc.policy._waiters import Kind, Waiter

WAIT = 600.0
GRACE = 0.05
RETRY, DROP = Alarm.RETRY, Alarm.DROP
Life = OriginLife[str]
IN_PLACE, TRANSIT, PARKED, MOVING, HELD = (
    Kind.IN_PLACE,
    Kind.TRANSIT,
    Kind.PARKED,
    Kind.MOVING,
    Kind.HELD,
)


@contextmanager
def no_clock() -> Iterator[None]:
    """The machine never reads a clock nor sleeps: time comes with events."""

    def refuse(*args: Any) -> Any:
        raise AssertionError("the origin's life read a clock or slept")

    names = ("time", "monotonic", "sleep", "perf_counter")
    saved = {name: getattr(time, name) for name in names}
    for name in names:
        setattr(time, name, refuse)
    try:
        yield
    finally:
        for name, value in saved.items():
            setattr(time, name, value)


def step(life: Life, event: Event[str]) -> list[Action[str]]:
    with no_clock():
        return life.handle(event)


def run(life: Life, event: Event[str], expected: list[Action[str]]) -> Life:
    assert step(life, event) == expected
    return life


#: The waiters of the setups, by name: a new one for each setup that runs.
_W: dict[str, Waiter[str]] = {}


def w(name: str, since: float = 0.0, kind: Kind = PARKED, **fields: Any) -> Waiter[str]:
    """The waiter ``name`` of the setup that runs (made on first use)."""
    found = _W.get(name)
    if found is None:
        found = _W[name] = Waiter(name, since, kind, **fields)
    return found


def new() -> Life:
    _W.clear()
    return Life(WAIT, GRACE)


def fetching() -> Life:
    """Request "a", parked since 0; the first fetch under way."""
    life = run(new(), Need(0.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, Came(0.0, w("a")), [Count()])


def fetching_in_place() -> Life:
    """ "d" came from the scheduler and waits in place, within its grace."""
    life = run(new(), Need(0.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, Came(0.0, w("d", kind=IN_PLACE)), [Count()])


def fetching_direct() -> Life:
    """ "e" never passed the scheduler (engine.download): it waits in place."""
    life = run(new(), Need(0.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, Came(0.0, w("e", kind=IN_PLACE, scheduled=False)), [Count()])


def fetching_transit() -> Life:
    """ "t" left at once: a copy on its way to the scheduler."""
    life = run(new(), Need(0.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, Came(0.0, w("t", kind=TRANSIT)), [Count()])


def fetching_once() -> Life:
    """Only "n" waits, for the fetch under way only."""
    life = run(new(), Need(0.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, CameOnce(0.0, w("n", kind=TRANSIT, once=True)), [Count()])


def fetching_held() -> Life:
    """One request held in the store since 0, for a fleet."""
    life = fetching_transit()
    return run(life, Arrived(0.0, w("t"), HELD), [Count(held=True, waiting=False)])


def backoff() -> Life:
    """The fetch found the origin unreachable at 5; retry in 30, drop at 605."""
    return run(fetching(), FetchFailed(5.0, 30.0), [Arm(RETRY, 30.0), Arm(DROP, 600.0)])


def backoff_in_place() -> Life:
    life = fetching_direct()
    return run(life, FetchFailed(5.0, 30.0), [Arm(RETRY, 30.0), Arm(DROP, 600.0)])


def backoff_grace() -> Life:
    """The fetch failed within the grace: "d" still waits in place."""
    life = fetching_in_place()
    return run(life, FetchFailed(0.01, 30.0), [Arm(RETRY, 30.0), Arm(DROP, 600.0)])


def backoff_transit() -> Life:
    """The only waiter left in place when the grace ended, and is on its way
    to the scheduler: no drop time until it lands."""
    life = run(backoff_grace(), GraceOver(0.05), [Leave((w("d"),))])
    assert w("d").kind is TRANSIT
    return life


def backoff_held() -> Life:
    """The stored record says unreachable since 2: the wait counts from it."""
    life = fetching_held()
    return run(
        life,
        FetchFailed(5.0, 30.0, unreachable_since=2.0),
        [Arm(RETRY, 30.0), Arm(DROP, 597.0)],
    )


def backoff_alone() -> Life:
    """A new life for an origin known unreachable, before its first waiter."""
    return run(
        new(),
        InBackoff(0.0, 30.0, "HTTP 503"),
        [WarnUnreachable("HTTP 503", 30.0), Arm(RETRY, 30.0)],
    )


def refetching() -> Life:
    return run(backoff(), RetryFired(35.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])


def refetching_early() -> Life:
    """A request found the backoff over before the retry alarm fired."""
    return run(backoff(), Need(32.0), [Cancel(RETRY), StartFetch(), Arm(Alarm.GRACE, GRACE)])


def refetching_once() -> Life:
    """Unreachable, the retry under way; only "n" waits, for it only."""
    life = run(backoff_alone(), RetryFired(30.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    return run(life, CameOnce(31.0, w("n", 31.0, TRANSIT, once=True)), [Count()])


def closed() -> Life:
    return run(fetching(), FetchDecided(1.0), [Release((w("a"),)), Forget()])


SETUPS: dict[str, Callable[[], Life]] = {
    f.__name__: f
    for f in (
        new,
        fetching,
        fetching_in_place,
        fetching_direct,
        fetching_transit,
        fetching_once,
        fetching_held,
        backoff,
        backoff_in_place,
        backoff_grace,
        backoff_transit,
        backoff_held,
        backoff_alone,
        refetching,
        refetching_early,
        refetching_once,
        closed,
    )
}

#: (setup, event, phase after, actions); an event's waiters are the setup's
#: (``w``), made when the row runs.
TABLE_ROWS: list[tuple[str, Callable[[], Event[str]], Phase, Callable[[], list[Action[str]]]]] = [
    # -- NEW: fed Need or InBackoff with its first waiter -----------------------
    ("new", lambda: Need(0.0), Phase.FETCHING, lambda: [StartFetch(), Arm(Alarm.GRACE, GRACE)]),
    (
        "new",
        lambda: InBackoff(0.0, 30.0, "HTTP 503"),
        Phase.BACKOFF,
        lambda: [WarnUnreachable("HTTP 503", 30.0), Arm(RETRY, 30.0)],
    ),
    # -- FETCHING: the first fetch is under way ----------------------------------
    ("fetching", lambda: Need(1.0), Phase.FETCHING, list),
    ("fetching", lambda: InBackoff(1.0, 20.0, "HTTP 503"), Phase.FETCHING, list),
    ("fetching", lambda: Came(1.0, w("b", 1.0)), Phase.FETCHING, lambda: [Count()]),
    # A waiter that waited before (its ticket says since when) is not
    # counted again.
    ("fetching", lambda: Came(1.0, w("b", 0.5, counted=True)), Phase.FETCHING, list),
    (
        "fetching",
        lambda: CameOnce(1.0, w("n", 1.0, TRANSIT, once=True)),
        Phase.FETCHING,
        lambda: [Count()],
    ),
    ("fetching_transit", lambda: Arrived(0.1, w("t"), PARKED), Phase.FETCHING, list),
    (
        "fetching_transit",
        lambda: Arrived(0.1, w("t"), HELD),
        Phase.FETCHING,
        lambda: [Count(held=True, waiting=False)],
    ),
    # Its grace over, a request from the scheduler leaves the downloader...
    (
        "fetching_in_place",
        lambda: GraceOver(GRACE),
        Phase.FETCHING,
        lambda: [Leave((w("d"),))],
    ),
    # ... one that never passed it waits on in place.
    ("fetching_direct", lambda: GraceOver(GRACE), Phase.FETCHING, list),
    # robots.txt has come whole: it waits in place for one more grace.
    (
        "fetching_in_place",
        lambda: GraceOver(GRACE, answered=True),
        Phase.FETCHING,
        lambda: [Arm(Alarm.GRACE, GRACE)],
    ),
    (
        "fetching",
        lambda: FetchDecided(1.0),
        Phase.CLOSED,
        lambda: [Release((w("a"),)), Forget()],
    ),
    (
        "fetching_held",
        lambda: FetchDecided(1.0),
        Phase.CLOSED,
        lambda: [ReleaseHeld(), Forget()],
    ),
    (
        "fetching",
        lambda: FetchFailed(5.0, 30.0),
        Phase.BACKOFF,
        lambda: [Arm(RETRY, 30.0), Arm(DROP, 600.0)],
    ),
    # A request that waited for this fetch only is dropped when it fails...
    (
        "fetching_once",
        lambda: FetchFailed(5.0, 30.0),
        Phase.CLOSED,
        lambda: [Drop((w("n"),)), Forget()],
    ),
    # ... and released when it decides.
    (
        "fetching_once",
        lambda: FetchDecided(5.0),
        Phase.CLOSED,
        lambda: [Release((w("n"),)), Forget()],
    ),
    ("fetching", lambda: RetryNow(1.0), Phase.FETCHING, list),
    ("fetching", lambda: HeldLeft(1.0, None, None), Phase.FETCHING, list),
    # A slow first fetch never drops anything: no drop alarm.
    ("fetching_held", lambda: Unheld(1.0, 1), Phase.FETCHING, list),
    ("fetching", lambda: Unpark(1.0), Phase.FETCHING, lambda: [ToFleet((w("a"),))]),
    (
        "fetching",
        lambda: SpiderClosed(1.0),
        Phase.CLOSED,
        lambda: [PutAside((w("a"),)), Forget()],
    ),
    (
        "fetching_in_place",
        lambda: SpiderClosed(1.0),
        Phase.CLOSED,
        lambda: [Drop((w("d"),), reason="the spider closed"), Forget()],
    ),
    # -- BACKOFF: unreachable, the RETRY alarm runs (RFC 9309 §2.3.1.4) ----------
    (
        "backoff",
        lambda: Need(40.0),
        Phase.REFETCHING,
        lambda: [Cancel(RETRY), StartFetch(), Arm(Alarm.GRACE, GRACE)],
    ),
    ("backoff", lambda: InBackoff(10.0, 25.0, "HTTP 503"), Phase.BACKOFF, list),
    # The request came at 10: its drop time is 605 still (the first one's).
    (
        "backoff",
        lambda: Came(10.0, w("b", 10.0)),
        Phase.BACKOFF,
        lambda: [Count(), Arm(DROP, 595.0)],
    ),
    # One that may not wait for the retry is dropped now, never counted.
    (
        "backoff",
        lambda: CameOnce(10.0, w("n", 10.0, TRANSIT, once=True)),
        Phase.BACKOFF,
        lambda: [Drop((w("n"),))],
    ),
    (
        "backoff_alone",
        lambda: CameOnce(10.0, w("n", 10.0, TRANSIT, once=True)),
        Phase.CLOSED,
        lambda: [Drop((w("n"),)), Forget()],
    ),
    (
        "backoff_transit",
        lambda: Arrived(0.1, w("d"), PARKED),
        Phase.BACKOFF,
        lambda: [Arm(DROP, 599.91)],
    ),
    ("backoff_grace", lambda: GraceOver(GRACE), Phase.BACKOFF, lambda: [Leave((w("d"),))]),
    # No fetch under way: an answer (of a fetch gone by) keeps nobody.
    (
        "backoff_grace",
        lambda: GraceOver(GRACE, answered=True),
        Phase.BACKOFF,
        lambda: [Leave((w("d"),))],
    ),
    (
        "backoff",
        lambda: RetryFired(35.0),
        Phase.REFETCHING,
        lambda: [StartFetch(), Arm(Alarm.GRACE, GRACE)],
    ),
    # The only waiter is in transit when the retry falls due: the retry
    # starts now, not when it lands (a change of issue 42).
    (
        "backoff_transit",
        lambda: RetryFired(30.01),
        Phase.REFETCHING,
        lambda: [StartFetch(), Arm(Alarm.GRACE, GRACE)],
    ),
    (
        "backoff",
        lambda: RetryNow(20.0),
        Phase.REFETCHING,
        lambda: [Cancel(RETRY), StartFetch(), Arm(Alarm.GRACE, GRACE)],
    ),
    # The request came at 0, the origin turned unreachable at 5: dropped at 605.
    (
        "backoff",
        lambda: DropFired(605.0),
        Phase.CLOSED,
        lambda: [Drop((w("a"),)), WarnDropping(), Forget()],
    ),
    ("backoff", lambda: DropFired(300.0), Phase.BACKOFF, lambda: [Arm(DROP, 305.0)]),
    (
        "backoff_in_place",
        lambda: DropFired(605.0),
        Phase.CLOSED,
        lambda: [Drop((w("e"),)), Forget()],
    ),
    # Held requests go back to the store's queue to be dropped; the store
    # says what is left (HeldLeft), looked at again no sooner than in 1 s.
    ("backoff_held", lambda: DropFired(602.0), Phase.BACKOFF, lambda: [ExpireHeld(2.0)]),
    ("backoff_held", lambda: HeldLeft(10.0, 0, None), Phase.CLOSED, lambda: [Forget()]),
    (
        "backoff_held",
        lambda: HeldLeft(10.0, 1, 100.0),
        Phase.BACKOFF,
        lambda: [Arm(DROP, 690.0)],
    ),
    ("backoff_held", lambda: HeldLeft(601.5, 1, 2.0), Phase.BACKOFF, lambda: [Arm(DROP, 1.0)]),
    ("backoff_held", lambda: Unheld(10.0, 1), Phase.CLOSED, lambda: [Forget()]),
    ("backoff", lambda: Unheld(10.0, 1), Phase.BACKOFF, list),
    ("backoff", lambda: Unpark(6.0), Phase.BACKOFF, lambda: [ToFleet((w("a"),))]),
    (
        "backoff",
        lambda: SpiderClosed(10.0),
        Phase.CLOSED,
        lambda: [PutAside((w("a"),)), Forget()],
    ),
    # -- REFETCHING: unreachable, the retry's fetch is under way -----------------
    ("refetching", lambda: Need(40.0), Phase.REFETCHING, list),
    ("refetching", lambda: InBackoff(40.0, 20.0, "HTTP 503"), Phase.REFETCHING, list),
    (
        "refetching",
        lambda: Came(40.0, w("b", 40.0)),
        Phase.REFETCHING,
        lambda: [Count(), Arm(DROP, 565.0)],
    ),
    (
        "refetching",
        lambda: CameOnce(40.0, w("n", 40.0, TRANSIT, once=True)),
        Phase.REFETCHING,
        lambda: [Count()],
    ),
    (
        "refetching",
        lambda: Arrived(40.0, w("t", 40.0, TRANSIT), PARKED),
        Phase.REFETCHING,
        lambda: [Arm(DROP, 565.0)],
    ),
    ("refetching", lambda: GraceOver(35.05), Phase.REFETCHING, list),
    (
        "refetching",
        lambda: FetchDecided(40.0),
        Phase.CLOSED,
        lambda: [Release((w("a"),)), Forget()],
    ),
    (
        "refetching",
        lambda: FetchFailed(40.0, 60.0),
        Phase.BACKOFF,
        lambda: [Arm(RETRY, 60.0), Arm(DROP, 565.0)],
    ),
    (
        "refetching_once",
        lambda: FetchFailed(32.0, 60.0),
        Phase.CLOSED,
        lambda: [Drop((w("n"),)), Forget()],
    ),
    ("refetching", lambda: RetryNow(40.0), Phase.REFETCHING, list),
    (
        "refetching",
        lambda: DropFired(605.0),
        Phase.REFETCHING,
        lambda: [Drop((w("a"),)), WarnDropping()],
    ),
    (
        "refetching",
        lambda: HeldLeft(40.0, None, None),
        Phase.REFETCHING,
        lambda: [Arm(DROP, 565.0)],
    ),
    ("refetching", lambda: Unheld(40.0, 1), Phase.REFETCHING, list),
    ("refetching", lambda: Unpark(36.0), Phase.REFETCHING, lambda: [ToFleet((w("a"),))]),
    (
        "refetching",
        lambda: SpiderClosed(40.0),
        Phase.CLOSED,
        lambda: [PutAside((w("a"),)), Forget()],
    ),
    # The stale RETRY alarm of an early refetch was cancelled: the fetch's
    # own backoff arms the next one.
    (
        "refetching_early",
        lambda: FetchFailed(33.0, 60.0),
        Phase.BACKOFF,
        lambda: [Arm(RETRY, 60.0), Arm(DROP, 572.0)],
    ),
]


@pytest.mark.parametrize(
    ("setup", "event", "after", "actions"),
    TABLE_ROWS,
    ids=[f"{row[0]}-{type(row[1]()).__name__}" for row in TABLE_ROWS],
)
def test_transition(
    setup: str,
    event: Callable[[], Event[str]],
    after: Phase,
    actions: Callable[[], list[Action[str]]],
) -> None:
    life = SETUPS[setup]()
    before = life.phase
    got = step(life, event())
    assert [_rounded(a) for a in got] == [_rounded(a) for a in actions()]
    assert life.phase is after
    row = TABLE[(before, type(event()))]
    assert after in (row.then, row.empty)


def _rounded(action: Action[str]) -> Action[str]:
    """``action``, its delay rounded (the times add up in floats)."""
    if isinstance(action, Arm):
        return Arm(action.alarm, round(action.delay, 6))
    return action


def test_the_table_covers_every_pair_the_machine_accepts() -> None:
    covered = set()
    for setup, event, _, _ in TABLE_ROWS:
        life = SETUPS[setup]()
        covered.add((life.phase, type(event())))
    assert covered == set(TABLE)
    assert len(TABLE) == 42


EVENT_TYPES: list[Callable[[], Event[str]]] = [
    lambda: Need(1.0),
    lambda: InBackoff(1.0, 30.0, "HTTP 503"),
    lambda: Came(1.0, Waiter("z", 1.0, PARKED)),
    lambda: CameOnce(1.0, Waiter("z", 1.0, TRANSIT, once=True)),
    lambda: Arrived(1.0, Waiter("z", 1.0, TRANSIT), PARKED),
    lambda: GraceOver(1.0),
    lambda: FetchDecided(1.0),
    lambda: FetchFailed(1.0, 30.0),
    lambda: RetryFired(1.0),
    lambda: RetryNow(1.0),
    lambda: DropFired(1.0),
    lambda: HeldLeft(1.0, 0, None),
    lambda: Unheld(1.0, 1),
    lambda: Unpark(1.0),
    lambda: SpiderClosed(1.0),
]


@pytest.mark.parametrize("event", EVENT_TYPES, ids=lambda make: type(make()).__name__)
def test_a_closed_life_accepts_nothing(event: Callable[[], Event[str]]) -> None:
    life = closed()
    made = event()
    with pytest.raises(OriginLifeError, match=f"{type(made).__name__} in phase CLOSED"):
        step(life, made)


@pytest.mark.parametrize("setup", ["new", "fetching", "backoff", "refetching"])
@pytest.mark.parametrize("event", EVENT_TYPES, ids=lambda make: type(make()).__name__)
def test_every_pair_works_or_raises(setup: str, event: Callable[[], Event[str]]) -> None:
    """A pair the table lists is accepted; any other raises, naming it."""
    life = SETUPS[setup]()
    made = event()
    if (life.phase, type(made)) in TABLE:
        step(life, made)
    else:
        with pytest.raises(OriginLifeError, match=f"{type(made).__name__} in phase"):
            step(life, made)


def test_every_target_of_the_table_is_reached_by_running_the_machine() -> None:
    """Each row's phase, and its empty cell's, is where the rows above go:
    the table's targets are exactly where the machine goes."""
    reached: dict[tuple[Phase, type], set[Phase]] = {}
    for setup, event, _, _ in TABLE_ROWS:
        life = SETUPS[setup]()
        before = life.phase
        made = event()
        step(life, made)
        reached.setdefault((before, type(made)), set()).add(life.phase)
    for pair, row in TABLE.items():
        assert pair[0] is not Phase.CLOSED, "nothing leaves CLOSED"
        targets = {row.then} | ({row.empty} if row.empty is not None else set())
        assert reached[pair] == targets, pair


def test_the_handlers_never_set_the_phase() -> None:
    """Only handle() moves the phase, to the row's phase or its empty
    cell's: the data steps and the action builders never touch it."""
    for (phase, _), row in TABLE.items():
        for part in (row.step, *row.acts, *row.empty_acts):
            assert "phase" not in part.__code__.co_names, (phase, part.__name__)


def test_the_phase_is_stored_while_what_waits_changes() -> None:
    life = backoff()
    run(life, Unpark(6.0), [ToFleet((w("a"),))])
    assert life.phase is Phase.BACKOFF
    assert w("a").kind is MOVING
    run(life, Arrived(6.5, w("a"), PARKED), [Arm(DROP, 598.5)])
    run(life, RetryFired(35.0), [StartFetch(), Arm(Alarm.GRACE, GRACE)])
    assert life.phase is Phase.REFETCHING
    assert life.fetching


def test_a_waiter_that_came_back_without_the_scheduler_waits_in_place() -> None:
    """A copy in transit that comes back to process_request without passing
    the scheduler (engine.download_async) waits in place, and never leaves
    again."""
    life = fetching_transit()
    run(life, Arrived(0.02, w("t"), IN_PLACE), [])
    assert (w("t").kind, w("t").scheduled) == (IN_PLACE, False)
    run(life, GraceOver(GRACE), [])


def test_held_requests_of_a_moved_waiter_are_not_counted_twice() -> None:
    life = fetching()
    run(life, Unpark(1.0), [ToFleet((w("a"),))])
    run(life, Arrived(1.5, w("a"), HELD), [])
    assert life.waiters.held == 1
    run(life, FetchDecided(2.0), [ReleaseHeld(), Forget()])


# -- properties: any sequence a caller that keeps the protocol feeds ---------------


class Caller:
    """Feeds a life as :class:`.Lives` does: owns its alarms (armed, fired
    once, cancelled), lets a fetch end only while one is under way, moves
    only waiters that exist, and never feeds a closed life."""

    def __init__(self) -> None:
        self.life = Life(WAIT, GRACE)
        self.now = 0.0
        self.alarms: dict[Alarm, float] = {}
        self.count = 0
        self.left: dict[str, str] = {}

    def feed(self, event: Event[str]) -> None:
        for action in step(self.life, event):
            self.run(action)
        retry = Alarm.RETRY in self.alarms
        assert retry is (self.life.phase is Phase.BACKOFF), (
            "RETRY is armed if and only if the life is in BACKOFF"
        )

    def run(self, action: Action[str]) -> None:
        if isinstance(action, Arm):
            self.alarms.setdefault(action.alarm, self.now + action.delay)
        elif isinstance(action, Cancel):
            self.alarms.pop(action.alarm, None)
        elif isinstance(action, Forget):
            self.alarms.clear()
        for kind, attr in ((Release, "released"), (Drop, "dropped"), (PutAside, "aside")):
            if isinstance(action, kind):
                for waiter in action.waiters:
                    assert waiter.item not in self.left, f"{waiter.item} left twice"
                    self.left[waiter.item] = attr

    def waiter(self, kind: Kind, once: bool, scheduled: bool) -> Waiter[str]:
        self.count += 1
        return Waiter(f"r{self.count}", self.now, kind, once=once, scheduled=scheduled)

    def do(self, move: tuple[str, Any]) -> None:
        name, value = move
        life = self.life
        if life.phase is Phase.CLOSED:
            return
        if name == "advance":
            self.now += value
            while self.alarms and min(self.alarms.values()) <= self.now:
                alarm = min(self.alarms, key=lambda a: self.alarms[a])
                at = self.alarms.pop(alarm)
                fired = {
                    Alarm.RETRY: RetryFired,
                    Alarm.DROP: DropFired,
                    Alarm.GRACE: GraceOver,
                }[alarm](at)
                self.feed(fired)
                if self.life.phase is Phase.CLOSED:
                    return
            return
        if life.phase is Phase.NEW:
            self.feed(Need(self.now) if value % 2 else InBackoff(self.now, 30.0, "HTTP 503"))
        if name in ("came", "once"):
            kind = (IN_PLACE, TRANSIT, PARKED)[value % 3]
            waiter = self.waiter(kind, name == "once", value % 5 != 0)
            self.feed((CameOnce if name == "once" else Came)(self.now, waiter))
        elif name == "land":
            moving = [w for w in life.waiters if w.kind in (TRANSIT, MOVING)]
            if moving:
                waiter = moving[value % len(moving)]
                kinds = (PARKED, HELD) if waiter.kind is MOVING else (PARKED, IN_PLACE)
                self.feed(Arrived(self.now, waiter, kinds[value % 2]))
        elif name == "end" and life.fetching:
            self.feed(FetchDecided(self.now) if value % 3 == 0 else FetchFailed(self.now, value))
        elif name == "need":
            self.feed(Need(self.now))
        elif name == "retry_now":
            self.feed(RetryNow(self.now))
        elif name == "unpark":
            self.feed(Unpark(self.now))
        elif name == "held_left":
            self.feed(HeldLeft(self.now, value % 3, self.now if value % 3 else None))
        elif name == "unheld" and life.waiters.held:
            self.feed(Unheld(self.now, 1 + value % 2))
        elif name == "close":
            self.feed(SpiderClosed(self.now))


_moves = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.floats(0, 700)),
        st.tuples(
            st.sampled_from(
                [
                    *("came", "once", "land", "end", "need", "retry_now", "unpark"),
                    *("held_left", "unheld", "close"),
                ]
            ),
            st.integers(1, 100),
        ),
    ),
    max_size=40,
)


@given(_moves)
def test_retry_is_armed_if_and_only_if_in_backoff(moves: list[tuple[str, Any]]) -> None:
    """Whatever happens, as a caller that keeps the protocol feeds it: the
    RETRY alarm is armed exactly while the life is in BACKOFF, no waiter
    leaves twice, and none is both released and dropped (the checks are in
    :class:`Caller`)."""
    caller = Caller()
    for move in moves:
        caller.do(move)


# -- where an origin stands for a request that arrives ----------------------------

NOW = 1000.0
ALLOW_AFTER = 30 * 86400.0
RULES: dict[str, Any] = {"examplebot": object()}
OTHER: dict[str, Any] = {"otherbot": object()}


def _entry(rules: dict[str, Any] | None, **fields: Any) -> Entry:
    fields.setdefault("good", True)
    fields.setdefault("expires", NOW + 1000)
    fields.setdefault("outcome", "200")
    return Entry(rules, **fields)  # type: ignore[arg-type]


def _unreachable(
    rules: dict[str, Any] | None, *, good: bool, retry_at: float, since: float = 950.0
) -> Entry:
    return _entry(
        rules,
        good=good,
        expires=0.0,
        outcome="HTTP 503",
        unreachable_since=since,
        retry_at=retry_at,
    )


@pytest.mark.parametrize(
    ("entry", "expected"),
    [
        pytest.param(None, Standing.UNDECIDED, id="unknown"),
        pytest.param(_entry(RULES), Standing.DECIDED, id="fresh rules"),
        pytest.param(_entry(None), Standing.DECIDED, id="fresh allow-all"),
        pytest.param(
            _entry(None, good=False, refused=True, outcome="refused"),
            Standing.DECIDED,
            id="refused locally",
        ),
        pytest.param(_entry(OTHER), Standing.UNDECIDED, id="no rules kept for the name"),
        pytest.param(_entry(RULES, expires=NOW), Standing.UNDECIDED, id="expired"),
        pytest.param(
            _unreachable(None, good=False, retry_at=NOW + 100),
            Standing.BACKOFF,
            id="unreachable in its backoff",
        ),
        pytest.param(
            _unreachable(None, good=False, retry_at=NOW),
            Standing.UNDECIDED,
            id="unreachable, retry due",
        ),
        pytest.param(
            _unreachable(RULES, good=True, retry_at=NOW + 100),
            Standing.DECIDED,
            id="good copy in force",
        ),
        pytest.param(
            _unreachable(RULES, good=True, retry_at=NOW),
            Standing.RETRY_DUE,
            id="good copy in force, retry due",
        ),
        pytest.param(
            _unreachable(OTHER, good=True, retry_at=NOW + 100),
            Standing.BACKOFF,
            id="good copy without the name, in its backoff",
        ),
        pytest.param(
            _unreachable(None, good=False, retry_at=NOW + 100, since=NOW - ALLOW_AFTER),
            Standing.DECIDED,
            id="unreachable for ROBOTSTXT_RFC_UNREACHABLE_DAYS: allow all",
        ),
    ],
)
def test_where_an_origin_stands_for_a_request(entry: Entry | None, expected: Standing) -> None:
    with no_clock():
        assert standing(entry, "examplebot", NOW, ALLOW_AFTER) is expected
