"""The waiting room on ``twisted.internet.task.Clock``: parking, releasing,
retrying while robots.txt is unreachable, and dropping what waited longer
than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``, with no real time passing."""

from __future__ import annotations

from typing import Any

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from twisted.internet.task import Clock

from scrapy_robots_rfc.origin import Origin
from scrapy_robots_rfc.report import Report
from scrapy_robots_rfc.waiting import DROP_KEY, SCHEDULED_KEY, Waiting, WaitingRoom

ORIGIN = Origin("https", "example.com", 443)
WAIT = 600.0


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


class Room:
    """A waiting room on a fake clock, recording what it starts and releases."""

    def __init__(self) -> None:
        self.clock = Clock()
        self.started: list[tuple[Origin, float]] = []
        self.released: list[Request] = []
        self.stats = Stats()
        self.report = Report(10)
        self.room = WaitingRoom(
            wait=WAIT,
            monotonic=self.clock.seconds,
            call_later=self.clock.callLater,
            start=self._start,
            release=self.released.extend,
            reason=lambda key: "HTTP 503",
            stats=self.stats,  # type: ignore[arg-type]
            report=self.report,
            spider=lambda: None,
        )

    def _start(self, key: Origin, waiting: Waiting) -> None:
        waiting.fetching = True
        self.started.append((key, self.clock.seconds()))

    def park(self, url: str) -> Request:
        """A request that came through the scheduler, parked."""
        request = Request(url)
        self.room.join(ORIGIN, request, "examplebot")
        self.room.park_when_scheduled(request, ORIGIN)
        with pytest.raises(IgnoreRequest):
            self.room.scheduled(request)
        return request

    def fail_fetch(self, retry_in: float) -> None:
        """The fetch under way found robots.txt unreachable."""
        waiting = self.room.get(ORIGIN)
        assert waiting is not None
        waiting.fetching = False
        self.room.settle(ORIGIN, decided=False, retry_in=retry_in)


def test_a_request_not_sent_back_is_marked_as_scheduled():
    room = Room()
    request = Request("https://example.com/a")
    room.room.scheduled(request)
    assert request.meta[SCHEDULED_KEY] is True
    assert room.stats.values == {}


def test_parked_requests_go_back_when_the_origin_is_decided():
    room = Room()
    first, second = room.park("https://example.com/a"), room.park("https://example.com/b")
    assert room.room.busy()
    assert room.stats.values == {"robotstxt/waiting": 2}
    assert room.report.row(ORIGIN).waited == 2
    room.room.settle(ORIGIN, decided=True, retry_in=None)
    assert room.released == [first, second]
    assert not room.room.busy()
    assert ORIGIN not in room.room
    assert room.clock.getDelayedCalls() == []


def test_a_slow_first_fetch_never_drops_anything():
    """UNREACHABLE_WAIT counts only once the origin is found unreachable."""
    room = Room()
    room.park("https://example.com/a")
    room.clock.advance(WAIT * 10)
    assert room.released == []
    assert room.clock.getDelayedCalls() == []


def test_unreachable_retries_on_the_backoff_and_drops_after_the_wait():
    room = Room()
    request = room.park("https://example.com/a")
    room.room.get(ORIGIN).fetching = True  # type: ignore[union-attr]
    room.clock.advance(5)
    room.fail_fetch(retry_in=30)
    room.clock.advance(29.9)
    assert room.started == []
    room.clock.advance(0.1)
    assert room.started == [(ORIGIN, 35.0)], "fetched again when the backoff ends"
    room.fail_fetch(retry_in=60)
    room.clock.advance(60)
    assert room.started == [(ORIGIN, 35.0), (ORIGIN, 95.0)], "the backoff grew"
    # The request came at 0 and the origin turned unreachable at 5: the wait
    # counts from 5.
    room.clock.advance(WAIT + 5 - 95 - 0.1)
    assert room.released == []
    room.clock.advance(0.1)
    assert room.released == [request]
    assert request.meta[DROP_KEY] == "HTTP 503"


def test_a_request_waiting_in_place_gets_the_drop_reason():
    room = Room()
    waiting = room.room.join(ORIGIN, Request("https://example.com/a"), "examplebot")
    waiting.fetching = True
    results: list[Any] = []
    room.room.wait_in_place(ORIGIN, waiting).addCallback(results.append)
    room.fail_fetch(retry_in=WAIT * 2)
    room.clock.advance(WAIT - 0.1)
    assert results == []
    room.clock.advance(0.1)
    assert results == ["HTTP 503"]
    assert not room.room.busy()
    assert ORIGIN not in room.room, "nobody waits: the next request fetches again"


def test_later_requests_wait_their_own_time():
    room = Room()
    early = room.park("https://example.com/a")
    room.fail_fetch(retry_in=WAIT * 2)
    room.clock.advance(100)
    late = room.park("https://example.com/b")
    room.clock.advance(WAIT - 100)
    assert room.released == [early]
    room.clock.advance(100)
    assert room.released == [early, late]


def test_closing_hands_back_parked_requests_and_stops_the_timers():
    room = Room()
    request = room.park("https://example.com/a")
    room.fail_fetch(retry_in=30)
    assert room.clock.getDelayedCalls() != []
    assert room.room.close() == [request]
    assert room.clock.getDelayedCalls() == []
    room.clock.advance(WAIT * 2)
    assert room.started == []
    assert room.released == []


def test_a_decided_origin_answers_requests_waiting_in_place():
    room = Room()
    waiting = room.room.join(ORIGIN, Request("https://example.com/a"), "examplebot")
    results: list[Any] = []
    room.room.wait_in_place(ORIGIN, waiting).addCallback(results.append)
    room.room.settle(ORIGIN, decided=True, retry_in=None)
    assert results == [None]
