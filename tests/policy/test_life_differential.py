"""The new origin's life (:mod:`.policy._life`, issue 42) against the one it
replaces (:mod:`.policy._origin_life`), while both exist: the same crawls,
drawn by hypothesis, drive each machine as its own caller does (the waiting
room's admission for the old one, ``Lives`` for the new one), on one fake
clock; who is released, dropped or put aside, and when, and when each fetch
starts, must be the same.

A crawl here is what a worker without a fleet meets: requests from the
scheduler that leave at once and are parked (some waiting for one fetch
only, as ``scrapy robots`` without ``--wait``), requests that never passed
the scheduler and wait in place, fetches that decide the origin or find it
unreachable, time passing, and the spider closing."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_rfc.policy import _life as new
from scrapy_robots_rfc.policy import _origin_life as old
from scrapy_robots_rfc.policy._waiters import Kind, Waiter

OUTCOME = "HTTP 503"


class World:
    """The cache's entry of one origin, as the loader leaves it: unknown,
    decided, or unreachable until ``retry_at``."""

    def __init__(self, wait: float) -> None:
        self.wait = wait
        self.now = 0.0
        self.decided = False
        self.retry_at: float | None = None
        #: What happened to each request: ("released" | "dropped" | "aside", when).
        self.fates: dict[str, tuple[str, float]] = {}
        self.fetches: list[float] = []

    def in_backoff(self) -> bool:
        return not self.decided and self.retry_at is not None and self.now < self.retry_at

    def fate(self, request: str, what: str) -> None:
        assert request not in self.fates, f"{request} left twice"
        self.fates[request] = (what, self.now)


class Driver:
    """One machine and its caller; ``alarms`` are the caller's timers."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.alarms: dict[Any, float] = {}
        self.fetching = False

    def due(self) -> float | None:
        return min(self.alarms.values(), default=None)


class OldDriver(Driver):
    """The waiting room's admission and runners, around the old machine."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.life: old.OriginLife[str, str] | None = None
        #: Requests sent back into the scheduler, decided again next.
        self.pending: list[str] = []

    def arrive(self, request: str, parked: bool, once: bool) -> None:
        world = self.world
        if world.decided:
            world.fate(request, "released")
            return
        life = self.life
        if world.in_backoff():
            state = old.OriginLife[str, str](world.wait) if life is None else life
            if state.may_not_wait(once):
                world.fate(request, "dropped")
                return
        if life is None:
            life = self.life = old.OriginLife(world.wait)
        if not life.fetching:
            now = world.now
            if world.in_backoff():
                assert world.retry_at is not None
                self.feed(old.FetchWanted(now, world.retry_at - now, OUTCOME))
            else:
                self.feed(old.FetchWanted(now))
        if self.life is None:
            return
        if parked:
            self.feed(old.Park(request, world.now, once))
        else:
            self.feed(old.WaitInPlace(request, world.now))

    def end(self, decided: bool, retry_in: float) -> None:
        self.fetching = False
        self.feed(old.FetchEnded(self.world.now, decided, None if decided else retry_in))

    def fire(self, timer: Any) -> None:
        event = old.RetryFired if timer is old.Timer.RETRY else old.DropFired
        self.feed(event(self.world.now))

    def close(self) -> None:
        if self.life is not None:
            self.feed(old.SpiderClosed(self.world.now))

    def feed(self, event: Any) -> None:
        life = self.life
        assert life is not None
        world = self.world
        for action in life.handle(event):
            if isinstance(action, old.StartFetch):
                self.fetching = True
                world.fetches.append(world.now)
            elif isinstance(action, old.ArmTimer):
                self.alarms[action.timer] = world.now + action.delay
            elif isinstance(action, old.CancelTimer):
                self.alarms.pop(action.timer, None)
            elif isinstance(action, old.Release):
                for request in (*action.requests, *action.resumed):
                    world.fate(request, "released")
            elif isinstance(action, old.Drop):
                for request in (*action.requests, *action.resumed):
                    world.fate(request, "dropped")
            elif isinstance(action, old.PutAside):
                for request in action.requests:
                    world.fate(request, "aside")
            elif isinstance(action, old.SendBack):
                # Into the scheduler, and back: decided again at once.
                self.pending.append(action.request)
        if life.phase is old.Phase.CLOSED:
            self.life = None
            self.alarms.clear()


class NewDriver(Driver):
    """``Lives.come`` and the runners, around the new machine: a request
    from the scheduler leaves at once and lands parked; one that never
    passed it waits in place."""

    def __init__(self, world: World) -> None:
        super().__init__(world)
        self.life: new.OriginLife[str] | None = None

    def arrive(self, request: str, parked: bool, once: bool) -> None:
        world = self.world
        if world.decided:
            world.fate(request, "released")
            return
        may_not_wait = once or world.wait <= 0
        if self.life is None and world.in_backoff() and may_not_wait:
            world.fate(request, "dropped")  # answered without a life
            return
        if self.life is None:
            self.life = new.OriginLife(world.wait)
        now = world.now
        if world.in_backoff():
            assert world.retry_at is not None
            self.feed(new.InBackoff(now, world.retry_at - now, OUTCOME))
        else:
            self.feed(new.Need(now))
        kind = Kind.TRANSIT if parked else Kind.IN_PLACE
        waiter = Waiter(request, now, kind, once=once, scheduled=parked)
        self.feed((new.CameOnce if may_not_wait else new.Came)(now, waiter))
        if parked and self.life is not None and waiter.kind is Kind.TRANSIT:
            self.feed(new.Arrived(now, waiter, Kind.PARKED))

    def end(self, decided: bool, retry_in: float) -> None:
        self.fetching = False
        now = self.world.now
        self.feed(new.FetchDecided(now) if decided else new.FetchFailed(now, retry_in))

    def fire(self, alarm: Any) -> None:
        event = {
            new.Alarm.RETRY: new.RetryFired,
            new.Alarm.DROP: new.DropFired,
            new.Alarm.GRACE: new.GraceOver,
        }[alarm]
        self.feed(event(self.world.now))

    def close(self) -> None:
        self.feed(new.SpiderClosed(self.world.now))

    def feed(self, event: Any) -> None:
        life = self.life
        if life is None:
            return
        world = self.world
        for action in life.handle(event):
            if isinstance(action, new.StartFetch):
                self.fetching = True
                world.fetches.append(world.now)
            elif isinstance(action, new.Arm):
                self.alarms.setdefault(action.alarm, world.now + action.delay)
            elif isinstance(action, new.Cancel):
                self.alarms.pop(action.alarm, None)
            elif isinstance(action, new.Forget):
                self.alarms.clear()
            elif isinstance(action, new.Release):
                for waiter in action.waiters:
                    world.fate(waiter.item, "released")
            elif isinstance(action, new.Drop):
                for waiter in action.waiters:
                    world.fate(waiter.item, "dropped")
            elif isinstance(action, new.PutAside):
                for waiter in action.waiters:
                    world.fate(waiter.item, "aside")
        if life.phase is new.Phase.CLOSED:
            self.life = None


def play(driver_class: type[OldDriver] | type[NewDriver], wait: float, moves: list[Any]) -> World:
    world = World(wait)
    driver = driver_class(world)
    count = 0
    for move in moves:
        name = move[0]
        if name == "arrive":
            count += 1
            driver.arrive(f"r{count}", parked=move[1], once=move[2])
        elif name == "end":
            if driver.fetching:
                decided = move[1]
                if decided:
                    world.decided = True
                else:
                    world.retry_at = world.now + move[2]
                driver.end(decided, move[2])
        elif name == "advance":
            until = world.now + move[1]
            while (due := driver.due()) is not None and due <= until:
                world.now = max(world.now, due)
                alarm = min(driver.alarms, key=lambda a: driver.alarms[a])
                del driver.alarms[alarm]
                driver.fire(alarm)
            world.now = until
        elif name == "close":
            driver.close()
            break
        if isinstance(driver, OldDriver):
            while driver.pending:
                driver.arrive(driver.pending.pop(0), parked=True, once=True)
    return world


_moves = st.lists(
    st.one_of(
        # A request that never passed the scheduler is never one that waits
        # for one fetch only (scrapy robots' request comes from start()).
        st.tuples(st.just("arrive"), st.booleans(), st.booleans()).map(
            lambda move: (move[0], move[1], move[1] and move[2])
        ),
        st.tuples(st.just("end"), st.booleans(), st.sampled_from([0.5, 3.0, 30.0, 900.0])),
        # Binary fractions: the times add up exactly, as on a real clock
        # they move on between two alarms.
        st.tuples(st.just("advance"), st.sampled_from([0.125, 1.0, 4.0, 29.0, 300.0, 700.0])),
    ),
    max_size=30,
).map(lambda moves: [*moves, ("close",)])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from([0.0, 5.0, 600.0]), _moves)
def test_the_new_life_releases_and_drops_what_the_old_one_did_and_when(
    wait: float, moves: list[Any]
) -> None:
    before = play(OldDriver, wait, moves)
    after = play(NewDriver, wait, moves)
    assert after.fetches == before.fetches, "the same fetches, at the same times"
    assert after.fates == before.fates, "the same requests released, dropped or put aside, when"
