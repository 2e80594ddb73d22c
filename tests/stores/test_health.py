"""Store errors that heal, on ``twisted.internet.task.Clock``: after an error
the store is asked again 1 s later, then at doubling intervals up to 60 s,
and used again as soon as it answers; each switch is counted and logged
once."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from twisted.internet import defer
from twisted.internet.task import Clock

from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.stores._base import StoreError
from scrapy_robots_rfc.stores._circuit_breaker import StoreHealth

SOURCE = "ROBOTSTXT_RFC_STORE ('redis://127.0.0.1:6379/0')"
ERROR = StoreError(f"{SOURCE}: GET k failed: ConnectionError: refused")
FAILED = (
    f"The robots.txt store failed ({ERROR}); robots.txt is cached in memory until the store "
    "answers again (tried again in 1 s, then at growing intervals of up to 60 s)"
)


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


class Pinged:
    """A store that answers ``ping`` unless ``down``, and records when it
    was asked."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.down = True
        self.pings: list[float] = []

    def ping(self) -> None:
        self.pings.append(self.clock.seconds())
        if self.down:
            raise StoreError(f"{SOURCE}: PING failed: ConnectionError: refused")


class Health:
    def __init__(self) -> None:
        self.clock = Clock()
        self.store = Pinged(self.clock)
        self.stats = Stats()
        self.health = StoreHealth(
            self.store,  # type: ignore[arg-type]
            runtime=Runtime(
                self.stats,  # type: ignore[arg-type]
                monotonic=self.clock.seconds,
                call_later=self.clock.callLater,
            ),
            describe=SOURCE,
            in_thread=lambda func, *args: defer.maybeDeferred(func, *args),
        )

    def run(self, until: float) -> None:
        """Move the clock to ``until``, firing each timer at its time."""
        while True:
            due = [c.getTime() for c in self.clock.getDelayedCalls() if c.getTime() <= until]
            if not due:
                break
            self.clock.advance(min(due) - self.clock.seconds())
        self.clock.advance(until - self.clock.seconds())


def lines(caplog: pytest.LogCaptureFixture) -> list[tuple[str, str]]:
    return [
        (r.levelname, r.getMessage())
        for r in caplog.records
        if r.name.startswith(f"{LOGGER_NAME}.") and r.levelno >= logging.INFO
    ]


def test_probes_back_off_and_the_store_is_used_again_when_it_answers(caplog):
    h = Health()
    recovered: list[float] = []
    h.health.on_up.append(lambda: recovered.append(h.clock.seconds()))
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        h.health.failed(ERROR)
        assert not h.health.up
        h.run(6.9)
        assert h.store.pings == [1.0, 3.0]
        assert not h.health.up
        h.store.down = False
        h.run(7.0)
    assert h.store.pings == [1.0, 3.0, 7.0]
    assert h.health.up
    assert recovered == [7.0]
    assert h.stats.values == {"robotstxt/store/error": 1, "robotstxt/store/recovered": 1}
    assert lines(caplog) == [
        ("ERROR", FAILED),
        (
            "WARNING",
            f"The robots.txt store {SOURCE} answers again after 7 s; robots.txt is shared "
            "through it again",
        ),
    ]
    debug = [r.getMessage() for r in caplog.records if r.levelno == logging.DEBUG]
    assert debug == [
        f"The robots.txt store still fails ({SOURCE}: PING failed: ConnectionError: refused); "
        f"asked again in {delay} s"
        for delay in (2, 4)
    ]
    assert h.clock.getDelayedCalls() == []


def test_the_wait_between_probes_stops_growing_at_a_minute():
    h = Health()
    h.health.failed(ERROR)
    h.run(1000)
    gaps = [b - a for a, b in zip(h.store.pings, h.store.pings[1:], strict=False)]
    assert h.store.pings[0] == 1.0
    assert gaps[:7] == [2, 4, 8, 16, 32, 60, 60]
    assert set(gaps[5:]) == {60}


def test_errors_while_down_are_not_counted_again(caplog):
    h = Health()
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        h.health.failed(ERROR)
        h.health.failed(ERROR)  # a call made before the switch failed too
        h.run(0.5)
        h.health.failed(ERROR)
    assert h.stats.values == {"robotstxt/store/error": 1}
    assert lines(caplog) == [("ERROR", FAILED)]
    assert len(h.clock.getDelayedCalls()) == 1, "one probe pending, not three"


def test_a_later_error_is_a_warning_and_starts_again_from_one_second(caplog):
    h = Health()
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        h.health.failed(ERROR)
        h.run(2.0)  # probed at 1 s: down; next at 3 s
        h.store.down = False
        h.run(3.0)
        assert h.health.up
        h.store.down = True
        h.run(3.0 + StoreHealth.MAX_RETRY)  # up for a minute: not flapping
        h.health.failed(ERROR)
        h.run(h.clock.seconds() + 1)
    assert h.store.pings == [1.0, 3.0, 64.0]
    assert h.stats.values == {"robotstxt/store/error": 2, "robotstxt/store/recovered": 1}
    assert [level for level, _ in lines(caplog)] == ["ERROR", "WARNING", "WARNING"]
    assert lines(caplog)[2] == ("WARNING", FAILED)


def test_a_store_that_keeps_failing_soon_after_it_answers_is_asked_less_often():
    h = Health()
    h.health.failed(ERROR)
    h.store.down = False
    h.run(1.0)  # answers at once
    assert h.health.up
    failures = []
    for _ in range(8):
        h.run(h.clock.seconds() + 5)  # fails again 5 s after each recovery
        failures.append(h.clock.seconds())
        h.health.failed(ERROR)
        while not h.health.up:  # to the probe that finds it answering
            h.run(min(c.getTime() for c in h.clock.getDelayedCalls()))
    # Each time, from the error to the probe that finds it answering.
    waits = [p - e for p, e in zip(h.store.pings[1:], failures, strict=True)]
    assert waits == [2, 4, 8, 16, 32, 60, 60, 60]
    assert h.stats.values == {"robotstxt/store/error": 9, "robotstxt/store/recovered": 9}


def test_closing_stops_the_probes():
    h = Health()
    h.health.failed(ERROR)
    h.health.close()
    assert h.clock.getDelayedCalls() == []
    h.store.down = False
    h.run(100)
    assert h.store.pings == []
    assert not h.health.up
    h.health.failed(ERROR)
    assert h.stats.values == {"robotstxt/store/error": 1}


def test_a_probe_answered_after_closing_changes_nothing():
    h = Health()
    pending: defer.Deferred[Any] = defer.Deferred()
    h.health = StoreHealth(
        h.store,  # type: ignore[arg-type]
        runtime=Runtime(
            h.stats,  # type: ignore[arg-type]
            monotonic=h.clock.seconds,
            call_later=h.clock.callLater,
        ),
        describe=SOURCE,
        in_thread=lambda func, *args: pending,
    )
    h.health.failed(ERROR)
    h.run(1.0)
    h.health.close()
    pending.callback(None)
    assert not h.health.up
    assert h.stats.values == {"robotstxt/store/error": 1}
