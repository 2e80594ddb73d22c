"""The origin's waiting life (:class:`.policy.OriginLife`) as tables of
(phase, event) -> (phase, actions), on no reactor and no clock: every pair
the machine accepts is a row, every pair it does not raises. The waiters are
strings, since the machine never looks at them; time is what the events
say."""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scrapy_robots_rfc.policy import Entry
from scrapy_robots_rfc.policy._origin_life import (
    TRANSITIONS,
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
    LeaveInPlace,
    OriginLife,
    OriginLifeError,
    Park,
    Phase,
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
    Timer,
    Unheld,
    Unpark,
    Unparked,
    WaitInPlace,
    WarnDropping,
    WarnUnreachable,
    standing,
)

WAIT = 600.0
RETRY, DROP = Timer.RETRY, Timer.DROP
Life = OriginLife[str, str]


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


def step(life: Life, event: Event[str, str]) -> list[Action[str, str]]:
    with no_clock():
        return life.handle(event)


def run(life: Life, event: Event[str, str], expected: list[Action[str, str]]) -> Life:
    assert step(life, event) == expected
    return life


def waiting() -> Life:
    """Request "a" parked at 0; no fetch yet."""
    return run(Life(WAIT), Park("a", 0.0), [CountWaiting()])


def fetching() -> Life:
    return run(waiting(), FetchWanted(0.0), [StartFetch()])


def backoff() -> Life:
    """The fetch found the origin unreachable at 5; retry in 30, drop at 605."""
    return run(fetching(), FetchEnded(5.0, decided=False, retry_in=30.0), [
        ArmTimer(RETRY, 30.0),
        ArmTimer(DROP, 600.0),
    ])  # fmt: skip


def refetching() -> Life:
    return run(backoff(), RetryFired(35.0), [StartFetch()])


def fetching_no_wait() -> Life:
    """Only "n" waits, for the fetch under way only."""
    life = run(Life(WAIT), FetchWanted(0.0), [StartFetch()])
    return run(life, Park("n", 0.0, no_wait=True), [CountWaiting()])


def fetching_in_place() -> Life:
    life = run(Life(WAIT), FetchWanted(0.0), [StartFetch()])
    return run(life, WaitInPlace("d", 0.0), [CountWaiting()])


def backoff_in_place() -> Life:
    life = fetching_in_place()
    return run(life, FetchEnded(5.0, decided=False, retry_in=30.0), [
        ArmTimer(RETRY, 30.0),
        ArmTimer(DROP, 600.0),
    ])  # fmt: skip


def fetching_held() -> Life:
    """One request held in the store since 0, for a fleet."""
    life = run(Life(WAIT), HoldOne(0.0, 0.0), [CountWaiting(held=True)])
    return run(life, FetchWanted(0.0), [StartFetch()])


def backoff_held() -> Life:
    """The stored record says unreachable since 2: the wait counts from it."""
    return run(fetching_held(), FetchEnded(5.0, False, 30.0, unreachable_since=2.0), [
        ArmTimer(RETRY, 30.0),
        ArmTimer(DROP, 597.0),
    ])  # fmt: skip


def refetching_early() -> Life:
    """BACKOFF, then a request found the backoff over and started a fetch
    before the retry timer fired."""
    return run(backoff(), FetchWanted(32.0), [StartFetch()])


def waiting_held() -> Life:
    """Only a request held in the store waits; no fetch under way here."""
    return run(Life(WAIT), HoldOne(0.0, 0.0), [CountWaiting(held=True)])


def backoff_alone() -> Life:
    """Unreachable and in its backoff, nobody waiting yet."""
    return run(Life(WAIT), FetchWanted(0.0, retry_in=30.0, outcome="HTTP 503"), [
        WarnUnreachable("HTTP 503", 30.0),
        ArmTimer(RETRY, 30.0),
    ])  # fmt: skip


def backoff_retry_due() -> Life:
    """The one request there left its wait in place to be parked, and the
    retry timer fired before it was: the retry is due, nothing fetches."""
    life = run(backoff_in_place(), LeaveInPlace("d", 35.0), [])
    return run(life, RetryFired(35.0), [])


def closed() -> Life:
    return run(fetching(), FetchEnded(1.0, decided=True), [Forget(), Release(("a",), ())])


SETUPS: dict[str, Callable[[], Life]] = {
    f.__name__: f
    for f in (
        waiting,
        fetching,
        backoff,
        refetching,
        fetching_no_wait,
        fetching_in_place,
        backoff_in_place,
        fetching_held,
        backoff_held,
        refetching_early,
        waiting_held,
        backoff_alone,
        backoff_retry_due,
        closed,
    )
}

CLOSE_ALL = [CancelTimer(RETRY), CancelTimer(DROP), Forget()]

#: (setup, event, phase after, actions).
TABLE: list[tuple[str, Event[str, str], Phase, list[Action[str, str]]]] = [
    # -- WAITING: requests wait, no fetch under way, not known unreachable --
    ("waiting", Park("b", 1.0), Phase.WAITING, [CountWaiting()]),
    ("waiting", Park("n", 1.0, no_wait=True), Phase.WAITING, [SendBack("n")]),
    ("waiting", WaitInPlace("d", 1.0), Phase.WAITING, [CountWaiting()]),
    ("waiting", LeaveInPlace("d", 1.0), Phase.WAITING, []),
    ("waiting", HoldOne(0.5, 1.0), Phase.WAITING, [CountWaiting(held=True)]),
    ("waiting", HoldOne(0.5, 1.0, count=False), Phase.WAITING, []),
    ("waiting", FetchWanted(1.0), Phase.FETCHING, [StartFetch()]),
    (
        "waiting",
        FetchWanted(1.0, retry_in=20.0, outcome="HTTP 503"),
        Phase.BACKOFF,
        [WarnUnreachable("HTTP 503", 20.0), ArmTimer(RETRY, 20.0)],
    ),
    ("waiting", FetchEnded(1.0, decided=True), Phase.CLOSED, [Forget(), Release(("a",), ())]),
    (
        "waiting",
        FetchEnded(1.0, decided=False, retry_in=30.0),
        Phase.BACKOFF,
        [ArmTimer(RETRY, 30.0), ArmTimer(DROP, 600.0)],
    ),
    ("waiting", FetchEnded(1.0, decided=False), Phase.WAITING, []),
    # The last held request went back to the queue: nobody waits here.
    ("waiting_held", HeldLeft(1.0, 0, None), Phase.CLOSED, [Forget()]),
    ("waiting_held", Unheld(1.0, 1), Phase.CLOSED, [Forget()]),
    ("waiting", RetryNow(1.0), Phase.WAITING, []),
    ("waiting", HeldLeft(1.0, 0, None), Phase.WAITING, []),
    ("waiting", Unheld(1.0, 1), Phase.WAITING, []),
    ("waiting", SpiderClosed(1.0), Phase.CLOSED, [Forget(), PutAside(("a",))]),
    # -- FETCHING: the first fetch is under way ---------------------------
    ("fetching", Park("b", 1.0), Phase.FETCHING, [CountWaiting()]),
    ("fetching", Park("n", 1.0, no_wait=True), Phase.FETCHING, [CountWaiting()]),
    ("fetching", WaitInPlace("d", 1.0), Phase.FETCHING, [CountWaiting()]),
    # Its grace over, a request waiting in place leaves to be parked: in
    # line from when it began to wait, counted once.
    ("fetching_in_place", LeaveInPlace("d", 0.2), Phase.FETCHING, []),
    ("fetching", Park("b", 1.0, since=0.5, count=False), Phase.FETCHING, []),
    ("fetching", HoldOne(0.5, 1.0), Phase.FETCHING, [CountWaiting(held=True)]),
    ("fetching", FetchWanted(1.0), Phase.FETCHING, []),
    ("fetching", FetchWanted(1.0, retry_in=20.0, outcome="HTTP 503"), Phase.FETCHING, []),
    ("fetching", FetchEnded(1.0, decided=True), Phase.CLOSED, [Forget(), Release(("a",), ())]),
    (
        "fetching",
        FetchEnded(5.0, decided=False, retry_in=30.0),
        Phase.BACKOFF,
        [ArmTimer(RETRY, 30.0), ArmTimer(DROP, 600.0)],
    ),
    ("fetching", RetryNow(1.0), Phase.FETCHING, []),
    # Undecided with no backoff (nothing says when to try again): it waits.
    ("fetching", FetchEnded(1.0, decided=False), Phase.WAITING, []),
    ("fetching", HeldLeft(1.0, None, None), Phase.FETCHING, []),
    ("fetching", Unheld(1.0, 1), Phase.FETCHING, []),
    ("fetching", SpiderClosed(1.0), Phase.CLOSED, [Forget(), PutAside(("a",))]),
    # A request that waited for this fetch only is dropped when it fails...
    (
        "fetching_no_wait",
        FetchEnded(5.0, decided=False, retry_in=30.0),
        Phase.CLOSED,
        [Drop(("n",)), Forget()],
    ),
    # ... and released when it decides.
    (
        "fetching_no_wait",
        FetchEnded(5.0, decided=True),
        Phase.CLOSED,
        [Forget(), Release(("n",), ())],
    ),
    (
        "fetching_in_place",
        FetchEnded(1.0, decided=True),
        Phase.CLOSED,
        [Forget(), Release((), ("d",))],
    ),
    (
        "fetching_in_place",
        SpiderClosed(1.0),
        Phase.CLOSED,
        [Forget(), Drop(resumed=("d",), reason="the spider closed")],
    ),
    (
        "fetching_held",
        FetchEnded(1.0, decided=True),
        Phase.CLOSED,
        [Forget(), ReleaseHeld(), Release((), ())],
    ),
    # A slow first fetch never drops anything: no drop timer.
    ("fetching_held", Unheld(1.0, 1), Phase.FETCHING, []),
    # -- BACKOFF: unreachable, the retry timer runs (RFC 9309 §2.3.1.4) ----
    ("backoff", Park("b", 10.0), Phase.BACKOFF, [CountWaiting()]),
    ("backoff", Park("n", 10.0, no_wait=True), Phase.BACKOFF, [SendBack("n")]),
    ("backoff", WaitInPlace("d", 10.0), Phase.BACKOFF, [CountWaiting()]),
    ("backoff_in_place", LeaveInPlace("d", 10.0), Phase.BACKOFF, []),
    ("backoff", HoldOne(8.0, 10.0), Phase.BACKOFF, [CountWaiting(held=True)]),
    ("backoff", FetchWanted(10.0, retry_in=25.0, outcome="HTTP 503"), Phase.BACKOFF, []),
    ("backoff", FetchWanted(40.0), Phase.REFETCHING, [StartFetch()]),
    (
        "backoff",
        FetchEnded(10.0, decided=True),
        Phase.CLOSED,
        [*CLOSE_ALL, Release(("a",), ())],
    ),
    (
        "backoff",
        FetchEnded(10.0, decided=False, retry_in=60.0),
        Phase.BACKOFF,
        [CancelTimer(RETRY), ArmTimer(RETRY, 60.0)],
    ),
    ("backoff", RetryFired(35.0), Phase.REFETCHING, [StartFetch()]),
    ("backoff", RetryNow(20.0), Phase.REFETCHING, [CancelTimer(RETRY), StartFetch()]),
    # The request came at 0, the origin turned unreachable at 5: dropped at 605.
    (
        "backoff",
        DropFired(605.0),
        Phase.CLOSED,
        [WarnDropping(), Drop(("a",)), CancelTimer(RETRY), Forget()],
    ),
    ("backoff", DropFired(300.0), Phase.BACKOFF, [ArmTimer(DROP, 305.0)]),
    ("backoff", HeldLeft(10.0, 0, None), Phase.BACKOFF, []),
    ("backoff", Unheld(10.0, 1), Phase.BACKOFF, []),
    ("backoff", SpiderClosed(10.0), Phase.CLOSED, [*CLOSE_ALL, PutAside(("a",))]),
    (
        "backoff_in_place",
        DropFired(605.0),
        Phase.CLOSED,
        [Drop(resumed=("d",)), CancelTimer(RETRY), Forget()],
    ),
    # Held requests go back to the store's queue to be dropped; the store
    # says what is left (HeldLeft), looked at again no sooner than in 1 s.
    ("backoff_held", DropFired(602.0), Phase.BACKOFF, [ExpireHeld(2.0)]),
    ("backoff_held", HeldLeft(10.0, 0, None), Phase.CLOSED, CLOSE_ALL),
    ("backoff_held", Unheld(10.0, 1), Phase.CLOSED, CLOSE_ALL),
    # -- REFETCHING: unreachable, the retry's fetch is under way ------------
    ("refetching", Park("b", 40.0), Phase.REFETCHING, [CountWaiting()]),
    ("refetching", Park("n", 40.0, no_wait=True), Phase.REFETCHING, [CountWaiting()]),
    ("refetching", WaitInPlace("d", 40.0), Phase.REFETCHING, [CountWaiting()]),
    ("refetching", LeaveInPlace("d", 40.0), Phase.REFETCHING, []),
    ("refetching", HoldOne(40.0, 40.0), Phase.REFETCHING, [CountWaiting(held=True)]),
    ("refetching", FetchWanted(40.0), Phase.REFETCHING, []),
    (
        "refetching",
        FetchEnded(40.0, decided=True),
        Phase.CLOSED,
        [CancelTimer(DROP), Forget(), Release(("a",), ())],
    ),
    (
        "refetching",
        FetchEnded(40.0, decided=False, retry_in=60.0),
        Phase.BACKOFF,
        [ArmTimer(RETRY, 60.0)],
    ),
    ("refetching", RetryNow(40.0), Phase.REFETCHING, []),
    # The retry timer that outlived the backoff starts no second fetch.
    ("refetching_early", RetryFired(35.0), Phase.REFETCHING, []),
    # The retry fired while the one request was on its way to be parked:
    # whatever comes to wait next starts the retry that is due.
    (
        "backoff_retry_due",
        Park("d", 35.1, since=0.0, count=False),
        Phase.REFETCHING,
        [
            StartFetch(),
        ],
    ),
    ("backoff_retry_due", Park("b", 36.0), Phase.REFETCHING, [CountWaiting(), StartFetch()]),
    (
        "backoff_retry_due",
        WaitInPlace("e", 36.0),
        Phase.REFETCHING,
        [
            CountWaiting(),
            StartFetch(),
        ],
    ),
    (
        "backoff_retry_due",
        HoldOne(36.0, 36.0),
        Phase.REFETCHING,
        [
            CountWaiting(held=True),
            StartFetch(),
        ],
    ),
    ("backoff_retry_due", Repark("b", 0.5, 36.0), Phase.REFETCHING, [StartFetch()]),
    # Nobody waits when the backoff ends: nothing to fetch for.
    ("backoff_alone", RetryFired(30.0), Phase.BACKOFF, []),
    ("backoff_alone", RetryNow(10.0), Phase.BACKOFF, [CancelTimer(RETRY)]),
    ("refetching", DropFired(605.0), Phase.REFETCHING, [WarnDropping(), Drop(("a",))]),
    ("refetching", HeldLeft(40.0, None, None), Phase.REFETCHING, []),
    ("refetching", Unheld(40.0, 1), Phase.REFETCHING, []),
    (
        "refetching",
        SpiderClosed(40.0),
        Phase.CLOSED,
        [CancelTimer(DROP), Forget(), PutAside(("a",))],
    ),
    # -- the store answers again: parked requests go to be held (issue 25) --
    ("waiting", Unpark(1.0), Phase.WAITING, [Unparked((("a", 0.0),))]),
    ("fetching", Unpark(1.0), Phase.FETCHING, [Unparked((("a", 0.0),))]),
    ("fetching_in_place", Unpark(1.0), Phase.FETCHING, []),
    # The drop timer stays armed: the requests come back held or parked.
    ("backoff", Unpark(6.0), Phase.BACKOFF, [Unparked((("a", 0.0),))]),
    ("refetching", Unpark(36.0), Phase.REFETCHING, [Unparked((("a", 0.0),))]),
    ("waiting", Repark("b", 0.5, 1.0), Phase.WAITING, []),
    ("fetching", Repark("b", 0.5, 1.0), Phase.FETCHING, []),
    ("backoff", Repark("b", 0.5, 6.0), Phase.BACKOFF, []),
    # Nobody waited: the request parked again arms the drop timer from its since.
    ("backoff_alone", Repark("b", 0.5, 1.0), Phase.BACKOFF, [ArmTimer(DROP, 599.5)]),
    ("refetching", Repark("b", 0.5, 36.0), Phase.REFETCHING, []),
]


@pytest.mark.parametrize(
    ("setup", "event", "after", "actions"),
    TABLE,
    ids=[f"{row[0]}-{type(row[1]).__name__}" for row in TABLE],
)
def test_transition(
    setup: str, event: Event[str, str], after: Phase, actions: list[Action[str, str]]
) -> None:
    life = SETUPS[setup]()
    assert step(life, event) == actions
    assert life.phase is after
    assert after in TRANSITIONS[(SETUPS[setup]().phase, type(event))].targets


def test_requests_unparked_and_parked_again_keep_their_order_and_their_drop_time() -> None:
    """The store answered, then failed again before it held them: the
    requests wait in memory as before, oldest first, dropped on time."""
    life = run(backoff(), Park("b", 10.0), [CountWaiting()])
    run(life, Unpark(12.0), [Unparked((("a", 0.0), ("b", 10.0)))])
    assert not life.has_waiters()
    run(life, Repark("b", 10.0, 13.0), [])
    run(life, Repark("a", 0.0, 13.0), [])
    assert [request for request, _ in life.parked] == ["a", "b"]
    # Dropped as if they never left: "a" at 605, "b" at 610.
    run(life, DropFired(605.0), [WarnDropping(), Drop(("a",)), ArmTimer(DROP, 5.0)])
    assert [request for request, _ in life.parked] == ["b"]


def test_a_request_that_waited_in_place_parks_in_its_place_and_is_dropped_on_time() -> None:
    """Waiting in place for a grace, then parked: one request counted once,
    in line and dropped from when it first waited, not from its park."""
    life = run(fetching_in_place(), Park("early", 0.1), [CountWaiting()])
    run(life, LeaveInPlace("d", 0.2), [])
    run(life, Park("d-copy", 0.2, since=0.0, count=False), [])
    assert [request for request, _ in life.parked] == ["d-copy", "early"]
    assert life.in_place == deque()
    run(life, FetchEnded(5.0, decided=False, retry_in=900.0), [
        ArmTimer(RETRY, 900.0),
        ArmTimer(DROP, 600.0),
    ])  # fmt: skip
    run(
        life,
        DropFired(605.0),
        [WarnDropping(), Drop(("d-copy", "early")), CancelTimer(RETRY), Forget()],
    )


def test_a_request_held_after_unpark_is_not_counted_twice() -> None:
    life = fetching()
    run(life, Unpark(1.0), [Unparked((("a", 0.0),))])
    run(life, HoldOne(0.0, 1.0, count=False), [])
    assert life.held == 1
    assert run(life, FetchEnded(2.0, decided=True), [Forget(), ReleaseHeld(), Release((), ())])


def test_the_table_covers_every_pair_the_machine_accepts() -> None:
    covered = {(SETUPS[setup]().phase, type(event)) for setup, event, _, _ in TABLE}
    assert covered == set(TRANSITIONS)


EVENTS: list[Event[str, str]] = [
    Park("z", 1.0),
    WaitInPlace("dz", 1.0),
    LeaveInPlace("dz", 1.0),
    HoldOne(1.0, 1.0),
    FetchWanted(1.0),
    FetchEnded(1.0, decided=True),
    RetryFired(1.0),
    RetryNow(1.0),
    DropFired(1.0),
    HeldLeft(1.0, 0, None),
    Unheld(1.0, 1),
    Unpark(1.0),
    Repark("z", 1.0, 1.0),
    SpiderClosed(1.0),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda event: type(event).__name__)
def test_a_closed_life_accepts_nothing(event: Event[str, str]) -> None:
    life = closed()
    with pytest.raises(OriginLifeError, match=f"{type(event).__name__} in phase CLOSED"):
        step(life, event)


@pytest.mark.parametrize(
    ("setup", "event", "message"),
    [
        ("waiting", RetryFired(1.0), "RetryFired in phase WAITING"),
        ("waiting", DropFired(1.0), "DropFired in phase WAITING"),
        ("fetching", RetryFired(1.0), "RetryFired in phase FETCHING"),
        ("fetching", DropFired(1.0), "DropFired in phase FETCHING"),
        ("refetching", RetryFired(1.0), "no retry timer armed"),
        ("backoff_alone", DropFired(1.0), "no drop timer armed"),
    ],
)
def test_a_timer_that_is_not_armed_cannot_fire(
    setup: str, event: Event[str, str], message: str
) -> None:
    """The timers run only for an unreachable origin, and fire once."""
    life = SETUPS[setup]()
    with pytest.raises(OriginLifeError, match=message):
        step(life, event)


def test_every_target_of_the_table_is_reached_by_running_the_machine() -> None:
    """The table's targets are exactly where the machine goes: each pair's
    rows, run above (:func:`test_transition`), reach every phase the table
    lists for it, and nothing leaves CLOSED."""
    reached: dict[tuple[Phase, type], set[Phase]] = {}
    for setup, event, _, _ in TABLE:
        life = SETUPS[setup]()
        before = life.phase
        step(life, event)
        reached.setdefault((before, type(event)), set()).add(life.phase)
    for pair, transition in TRANSITIONS.items():
        assert pair[0] is not Phase.CLOSED, "nothing leaves CLOSED"
        assert reached[pair] == set(transition.targets), pair


def test_the_phase_is_stored_and_only_handle_moves_it() -> None:
    """The phase is the machine's state, not derived from its data: what
    waits can change (a request unparked) while the phase stays."""
    life = backoff()
    assert life.phase is Phase.BACKOFF
    run(life, Unpark(6.0), [Unparked((("a", 0.0),))])
    assert life.phase is Phase.BACKOFF
    assert not life.has_waiters()
    assert not life.fetching
    run(life, Repark("a", 0.0, 7.0), [])
    run(life, RetryFired(35.0), [StartFetch()])
    assert life.phase is Phase.REFETCHING
    assert life.fetching


# -- a property: whatever happens, every waiter leaves once, one way ---------

_event = st.one_of(
    st.builds(Park, st.sampled_from(["r1", "r2", "r3"]), st.just(0.0), st.booleans()),
    st.builds(WaitInPlace, st.sampled_from(["d1", "d2"]), st.just(0.0)),
    st.builds(HoldOne, st.floats(0, 10), st.just(0.0), st.booleans()),
    st.builds(FetchWanted, st.just(0.0), st.one_of(st.none(), st.floats(0, 100))),
    st.builds(FetchEnded, st.just(0.0), st.booleans(), st.one_of(st.none(), st.floats(0, 100))),
    st.builds(RetryFired, st.just(0.0)),
    st.builds(RetryNow, st.just(0.0)),
    st.builds(DropFired, st.just(0.0)),
    st.builds(HeldLeft, st.just(0.0), st.one_of(st.none(), st.integers(0, 3)), st.none()),
    st.builds(Unheld, st.just(0.0), st.integers(1, 3)),
    st.builds(Unpark, st.just(0.0)),
    st.builds(SpiderClosed, st.just(0.0)),
)


@given(st.lists(st.tuples(_event, st.floats(0, 1000)), max_size=40))
def test_no_waiter_is_both_released_and_dropped(steps: list[tuple[Any, float]]) -> None:
    """No action list releases and drops the same waiter, and no waiter
    leaves twice over a life: released, dropped, sent back or put aside."""
    life = Life(WAIT)
    now = 0.0
    left: set[str] = set()
    added = 0
    for template, elapsed in steps:
        now += elapsed
        event = _at(template, now, added)
        added += 1
        if life.phase is Phase.CLOSED:
            with pytest.raises(OriginLifeError):
                step(life, event)
            continue
        try:
            actions = step(life, event)
        except OriginLifeError:
            assert isinstance(event, (RetryFired, DropFired))  # not armed
            continue
        released: set[str] = set()
        dropped: set[str] = set()
        for action in actions:
            if isinstance(action, Release):
                released.update(action.requests, action.resumed)
            elif isinstance(action, Drop):
                dropped.update(action.requests, action.resumed)
            elif isinstance(action, (SendBack,)):
                dropped.add(action.request)
            elif isinstance(action, PutAside):
                dropped.update(action.requests)
            elif isinstance(action, Unparked):  # to be held in the store
                dropped.update(request for request, _ in action.requests)
        assert not released & dropped
        gone = released | dropped
        assert not gone & left, "a waiter left twice"
        left |= gone


def _at(template: Any, now: float, n: int) -> Any:
    """``template`` at ``now``, its waiter made unique."""
    fields = {name: getattr(template, name) for name in template.__slots__}
    if "now" in fields:
        fields["now"] = now
    for name in ("request", "resume"):
        if name in fields:
            fields[name] = f"{fields[name]}-{n}"
    if isinstance(template, HoldOne):
        fields["since"] = min(fields["since"], now)
    return type(template)(**fields)


# -- where an origin stands for a request that arrives -----------------------

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
