"""The undecided origins (:class:`.Lives`) on ``twisted.internet.task.Clock``:
parking, releasing, retrying while robots.txt is unreachable, and dropping
what waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``, with no real
time passing."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

import pytest
from scrapy import Request
from scrapy.exceptions import IgnoreRequest
from scrapy.settings import Settings
from twisted.internet.defer import Deferred
from twisted.internet.task import Clock

from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.crawl._announce import Announcer, Outlook
from scrapy_robots_rfc.crawl._config import Config
from scrapy_robots_rfc.crawl._crawler_names import CrawlerNames
from scrapy_robots_rfc.crawl._engine import EngineGate
from scrapy_robots_rfc.crawl._holding import (
    Adopted,
    ExpiredLeft,
    FoundElsewhere,
    HoldEvents,
    Released,
)
from scrapy_robots_rfc.crawl._kept_responses import KeptResponses
from scrapy_robots_rfc.crawl._lives import Lives
from scrapy_robots_rfc.crawl._outcomes import Away, Dropped
from scrapy_robots_rfc.crawl._outcomes import Released as Decided
from scrapy_robots_rfc.crawl._report import Report
from scrapy_robots_rfc.crawl._robots_loader import Loaded, Unreachable
from scrapy_robots_rfc.crawl._tickets import TICKET_KEY, Ticket, carried
from scrapy_robots_rfc.policy import ROBOTS_TXT, Answer, Entry, LruCache, State, Target, entry_for
from scrapy_robots_rfc.policy._origin import Origin

ORIGIN = Origin("https", "example.com", 443)
TARGET = Target(ORIGIN, ROBOTS_TXT)
WAIT = 600.0
#: The meta of a request that waits for the fetch under way only (scrapy
#: robots without --wait).
NO_WAIT = {TICKET_KEY: Ticket(once=True).to_meta()}


class Stats:
    def __init__(self) -> None:
        self.values: dict[str, int] = {}

    def inc_value(self, key: str, count: int = 1) -> None:
        self.values[key] = self.values.get(key, 0) + count


class Loader:
    """Stands for the robots.txt loader: records each fetch the lives start,
    which ends when the test says how (:meth:`Room.fail_fetch`)."""

    def __init__(self, room: Room) -> None:
        self._room = room
        #: The load under way: what it answers with when the test says.
        self.pending: Deferred[Loaded] | None = None
        #: Whether the load under way has robots.txt's whole answer.
        self.has_answer = False

    def answered(self, key: Origin) -> bool:
        return self.pending is not None and self.has_answer

    async def load(self, key: Origin, trigger: Request, tokens: set[str], *, keep: Any) -> Any:
        self._room.started.append((key, self._room.clock.seconds()))
        self.pending = Deferred()
        return await self.pending


class Signals:
    """Stands for the crawler's signal manager: which handlers are connected."""

    def __init__(self) -> None:
        self.connected: list[Any] = []

    def connect(self, receiver: Any, signal: Any, **kwargs: Any) -> None:
        assert receiver not in self.connected
        self.connected.append(receiver)

    def disconnect(self, receiver: Any, signal: Any, **kwargs: Any) -> None:
        self.connected.remove(receiver)


class Room:
    """The undecided origins on a fake clock, wired as the assembly wires
    them, recording what they start and release. Tests drive them through
    what happens: requests that arrive, park or are held, and the end of a
    fetch (the loader's answer) and the alarms. ``grace``:
    ``ROBOTSTXT_RFC_PARK_AFTER``; 0, a request from the scheduler leaves
    the downloader at once, to be parked."""

    def __init__(self, wait: float = WAIT, hold: Any = None, grace: float = 0.0) -> None:
        self.clock = Clock()
        self.started: list[tuple[Origin, float]] = []
        self.released: list[Request] = []
        self.stats = Stats()
        self.report = Report(10)
        settings = Settings(
            {"ROBOTSTXT_RFC_UNREACHABLE_WAIT": wait, "ROBOTSTXT_RFC_PARK_AFTER": grace}
        )
        self.config = Config.from_settings(settings)
        self.cache: LruCache[Origin, Entry] = LruCache(10)
        self.runtime = runtime = Runtime(
            self.stats,  # type: ignore[arg-type]
            clock=self.clock.seconds,
            monotonic=self.clock.seconds,
            call_later=self.clock.callLater,
            start_soon=Deferred.fromCoroutine,
        )
        self.signals = Signals()
        self.loader = Loader(self)
        self.events = HoldEvents()
        self.hold = None if hold is None else hold(self)
        self.lives = Lives(
            runtime,
            self.config,
            signals=self.signals,  # type: ignore[arg-type]
            entries={ROBOTS_TXT: self.cache.get},
            loaders={ROBOTS_TXT: self.loader},
            kept=KeptResponses(runtime, follows_redirects=True),
            announcer=Announcer(runtime, self.config.unreachable_wait),
            engine=EngineGate(runtime, self.released.append),
            names=CrawlerNames(self.config, runtime),
            report=self.report,
            holding=self.hold,
        )
        self.events.connect(self.lives.on_fleet)

    def arrive(self, url: str, **meta: Any) -> Request:
        """A request for ORIGIN needs it decided (a fetch starts unless one
        is under way or the backoff runs), and does not wait."""
        request = Request(url, meta=meta, dont_filter=True)
        self.lives.need(TARGET, request, "examplebot")
        return request

    def come(self, request: Request) -> Deferred[Any]:
        """``request`` misses the cache and waits: how its wait settles."""
        found = request.meta.pop(TICKET_KEY, None)
        ticket = None if found is None else Ticket.from_meta(found)
        return self.lives.come(TARGET, request, ticket, "examplebot")

    def park(self, url: str, **meta: Any) -> Request:
        """A request from the scheduler, parked: it leaves the downloader at
        once, and its copy is taken out of the scheduler."""
        request = Request(url, meta=meta, dont_filter=True)
        copy = self.leave(request)
        assert copy is request  # dont_filter: no copy needed
        with pytest.raises(IgnoreRequest):
            self.lives.scheduled(copy)
        return request

    def leave(self, request: Request) -> Request:
        """``request`` comes, and leaves the downloader: its copy."""
        settled: list[Any] = []
        self.come(request).addCallback(settled.append)
        [left] = settled
        assert isinstance(left, Away), left
        return left.copy

    def in_place(self, url: str) -> Deferred[Any]:
        """A request that never passed the scheduler waits in place: it left
        as a copy, which came back without the scheduler."""
        copy = self.leave(Request(url, dont_filter=True))
        ticket = Ticket.from_meta(copy.meta.pop(TICKET_KEY))
        d = self.lives.returned(copy, ticket)
        assert d is not None
        return d

    def fetch(self) -> None:
        """A fetch of the origin is under way: a request needed it, or, in
        its backoff, it is fetched again now."""
        if not self.lives.fetching():
            if TARGET in self.lives:
                self.events.emit(FoundElsewhere(TARGET))  # fetched again now
            else:
                self.lives.need(TARGET, Request("https://example.com/"), "examplebot")
        assert self.lives.fetching()

    def timers(self) -> list[float]:
        """When the pending alarms fire, soonest first."""
        return sorted(call.getTime() for call in self.clock.getDelayedCalls())

    def unreachable(self, retry_in: float) -> Entry:
        """The cache says robots.txt is unreachable (HTTP 503), to be
        fetched again in ``retry_in`` seconds, as the loader leaves it."""
        entry = entry_for(
            Answer(State.UNREACHABLE, "HTTP 503", status=503),
            self.cache.get(ORIGIN),
            rules=None,
            now=self.clock.seconds(),
            fresh_for=0,
            first_retry=retry_in,
        )
        self.cache.put(ORIGIN, entry)
        return entry

    def good_copy(self, *, fresh: bool = False) -> None:
        """The cache keeps a good copy of robots.txt, due for a fetch again
        (``fresh``: not due)."""
        entry = entry_for(
            Answer(State.RULES, "200", status=200),
            None,
            rules={},
            now=self.clock.seconds(),
            fresh_for=86400 if fresh else 0,
            first_retry=30,
        )
        self.cache.put(ORIGIN, entry)

    def fail_fetch(
        self, retry_in: float, *, level: int = logging.WARNING, since: float | None = None
    ) -> None:
        """The fetch under way found robots.txt unreachable (HTTP 503): the
        loader answers, and the lives say so and wait for the retry. A good
        copy in the cache stays in force (HTTP-5); ``since``: the stored
        record says unreachable since then."""
        entry = self.unreachable(retry_in)
        # The next try in retry_in seconds, whatever the backoff made of it.
        entry = replace(entry, retry_at=self.clock.seconds() + retry_in)
        if since is not None:
            entry = replace(entry, unreachable_since=since)
        self.cache.put(ORIGIN, entry)
        pending, self.loader.pending = self.loader.pending, None
        assert pending is not None, "no fetch is under way"
        said = Unreachable("HTTP 503", entry.retry_at, good=entry.good, level=level)
        pending.callback(Loaded(entry, None, "", said))

    def decide(self) -> None:
        """The fetch under way decided the origin: allow all (a 404)."""
        entry = entry_for(
            Answer(State.ALLOW_ALL, "404", status=404),
            self.cache.get(ORIGIN),
            rules=None,
            now=self.clock.seconds(),
            fresh_for=86400,
            first_retry=30,
        )
        self.cache.put(ORIGIN, entry)
        pending, self.loader.pending = self.loader.pending, None
        assert pending is not None, "no fetch is under way"
        pending.callback(Loaded(entry, None, "", None))


def test_a_request_not_sent_back_passes_the_hook_untouched():
    room = Room()
    request = Request("https://example.com/a")
    room.lives.scheduled(request)
    assert request.meta == {}
    assert room.stats.values == {}


def test_the_hook_listens_only_while_copies_are_on_their_way_to_be_parked():
    """No hook runs for each request: it is connected while copies are in
    transit, and disconnected outside the signal's dispatch, when the next
    request comes and none is. A copy that comes back without passing the
    scheduler (engine.download_async downloads what process_request
    returns) waits in place."""
    room = Room()
    assert room.signals.connected == []
    parked = room.leave(Request("https://example.com/b", dont_filter=True))
    direct = room.leave(Request("https://example.com/c", dont_filter=True))
    assert room.signals.connected == [room.lives.scheduled]
    with pytest.raises(IgnoreRequest):
        room.lives.scheduled(parked)
    assert room.signals.connected == [room.lives.scheduled], "the direct copy is on its way"
    ticket = Ticket.from_meta(direct.meta.pop(TICKET_KEY))
    results: list[Any] = []
    waiting = room.lives.returned(direct, ticket)
    assert waiting is not None, "it waits in place"
    waiting.addCallback(results.append)
    assert room.signals.connected == [], "disconnected outside the signal's dispatch"
    room.decide()
    assert room.released == [parked]
    assert results == [Decided()]
    assert room.lives.returned(parked, carried(parked)) is None, "back from the engine"
    assert room.signals.connected == []


def test_parked_requests_go_back_when_the_origin_is_decided():
    room = Room()
    first, second = room.park("https://example.com/a"), room.park("https://example.com/b")
    assert room.lives.busy()
    assert room.stats.values == {"robotstxt/waiting": 2, "robotstxt/waiting/parked": 2}
    assert room.report.row(ORIGIN).waited == 2
    assert room.started == [(ORIGIN, 0)], "one fetch for both"
    room.decide()
    assert room.released == [first, second]
    assert not room.lives.busy()
    assert TARGET not in room.lives
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
    room.fetch()
    room.clock.advance(5)
    room.fail_fetch(retry_in=30)
    room.clock.advance(29.9)
    assert room.started == [(ORIGIN, 0)]
    room.clock.advance(0.1)
    assert room.started == [(ORIGIN, 0), (ORIGIN, 35.0)], "fetched again when the backoff ends"
    room.fail_fetch(retry_in=60)
    room.clock.advance(60)
    assert room.started == [(ORIGIN, 0), (ORIGIN, 35.0), (ORIGIN, 95.0)], "the backoff grew"
    # The request came at 0 and the origin turned unreachable at 5: the wait
    # counts from 5.
    room.clock.advance(WAIT + 5 - 95 - 0.1)
    assert room.released == []
    room.clock.advance(0.1)
    assert room.released == [request]
    assert carried(request).drop == "HTTP 503"


def test_a_retry_due_while_the_one_request_moves_to_be_parked_is_fetched_when_it_falls_due():
    """The one request waits in place with a grace of 0.2 s; the fetch
    finds robots.txt unreachable at 0.1 with the next try in 0.1 s. At 0.2
    the grace ends and the retry alarm fires on the same turn, while the
    request is on its way to be parked: the retry starts then, the request
    counted as waiting all along (issue 42: before, it started when the
    request was parked)."""
    room = Room(grace=0.2)
    request = room.arrive("https://example.com/a")
    room.fetch()
    results: list[Any] = []
    room.come(request).addCallback(results.append)
    room.clock.advance(0.1)
    room.fail_fetch(retry_in=0.1)
    room.clock.advance(0.1)  # the grace ends first, then the retry fires
    [left] = results
    assert isinstance(left, Away)
    assert room.started == [(ORIGIN, 0), (ORIGIN, 0.2)], "the retry started when it fell due"
    with pytest.raises(IgnoreRequest):
        room.lives.scheduled(left.copy)
    assert room.started == [(ORIGIN, 0), (ORIGIN, 0.2)]
    room.decide()
    assert room.released == [request]


def test_a_request_stays_in_place_while_its_robots_txt_has_answered():
    """docs/settings.rst, ROBOTSTXT_RFC_PARK_AFTER: when the grace ends and
    robots.txt has come whole (the crawler reads and stores it), the request
    waits one more grace in place instead of being parked, as often as it
    takes; a request that comes meanwhile waits in place too."""
    room = Room(grace=0.05)
    request = room.arrive("https://example.com/a")
    results: list[Any] = []
    room.come(request).addCallback(results.append)
    room.clock.advance(0.04)
    room.loader.has_answer = True
    room.clock.advance(0.01)  # the grace is over: one more
    assert results == []
    assert room.timers() == [pytest.approx(0.1)]
    later: list[Any] = []
    room.come(Request("https://example.com/b", dont_filter=True)).addCallback(later.append)
    room.clock.advance(0.05)  # and one more
    assert results == later == []
    room.decide()
    assert results == later == [Decided()]
    assert "robotstxt/waiting/parked" not in room.stats.values
    assert room.clock.getDelayedCalls() == []


def test_the_graces_of_several_origins_end_each_on_time():
    """The GRACE alarms share one timer, armed for the first to fall due:
    each request still leaves at the end of its own grace."""
    room = Room(grace=0.05)
    other = Target(Origin("https", "example.org", 443), ROBOTS_TXT)
    results: dict[str, list[Any]] = {"com": [], "org": []}
    room.come(room.arrive("https://example.com/a")).addCallback(results["com"].append)
    room.clock.advance(0.02)
    org = Request("https://example.org/a", dont_filter=True)
    room.lives.need(other, org, "examplebot")
    room.lives.come(other, org, None, "examplebot").addCallback(results["org"].append)
    assert len(room.clock.getDelayedCalls()) == 1, "one timer for both graces"
    room.clock.advance(0.03)
    assert [type(r) for r in results["com"]] == [Away]
    assert results["org"] == []
    assert room.timers() == [pytest.approx(0.07)]
    room.clock.advance(0.02)
    assert [type(r) for r in results["org"]] == [Away]
    assert room.clock.getDelayedCalls() == []


def test_a_request_is_parked_at_the_grace_while_robots_txt_has_not_answered():
    room = Room(grace=0.05)
    request = room.arrive("https://example.com/a")
    results: list[Any] = []
    room.come(request).addCallback(results.append)
    room.clock.advance(0.05)
    [left] = results
    assert isinstance(left, Away)
    assert room.stats.values["robotstxt/waiting/parked"] == 1


def test_a_request_waiting_in_place_gets_the_drop_reason():
    room = Room()
    room.arrive("https://example.com/a")
    room.fetch()
    results: list[Any] = []
    room.in_place("https://example.com/b").addCallback(results.append)
    room.fail_fetch(retry_in=WAIT * 2)
    room.clock.advance(WAIT - 0.1)
    assert results == []
    room.clock.advance(0.1)
    assert results == [Dropped("HTTP 503")]
    assert not room.lives.busy()
    assert TARGET not in room.lives, "nobody waits: the next request fetches again"


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
    closed: list[list[Request]] = []
    Deferred.fromCoroutine(room.lives.close()).addCallback(closed.append)
    assert closed == [[request]]
    assert room.clock.getDelayedCalls() == []
    room.clock.advance(WAIT * 2)
    assert room.started == [(ORIGIN, 0)], "no retry after the close"
    assert room.released == []


def test_a_decided_origin_answers_requests_waiting_in_place():
    room = Room()
    room.arrive("https://example.com/a")
    results: list[Any] = []
    room.in_place("https://example.com/b").addCallback(results.append)
    room.decide()
    assert results == [Decided()]


def test_a_pause_does_not_count_toward_a_requests_wait():
    """docs/decisions.md, "A pause and the wait": a request saved in JOBDIR
    when the crawl paused comes back, after the pause, with its ticket's
    wall-clock time; when the resumed crawl finds robots.txt unreachable, it
    waits the whole ROBOTSTXT_RFC_UNREACHABLE_WAIT from then, as a request
    that comes then does: the pause is not counted."""
    room = Room()
    request = room.park("https://example.com/a")
    room.clock.advance(10)
    room.fail_fetch(retry_in=WAIT * 2)
    room.clock.advance(100)  # the crawl pauses at 110, 500 s before its drop
    closed: list[list[Request]] = []
    Deferred.fromCoroutine(room.lives.close()).addCallback(closed.append)
    assert closed == [[request]]
    assert carried(request).since == 0.0, "the wall clock's time it began to wait"
    # The crawl resumes 3,000 s later (the wall clock moved on; a new
    # process's monotonic clock starts anew: here the same fake clock).
    room.clock.advance(3000)
    resumed = Room()
    resumed.clock.advance(room.clock.seconds())
    back = Request(request.url, meta=dict(request.meta), dont_filter=True)
    resumed.leave(back)
    with pytest.raises(IgnoreRequest):
        resumed.lives.scheduled(back)
    assert resumed.stats.values == {"robotstxt/waiting/parked": 1}, "counted when it came"
    resumed.clock.advance(5)
    resumed.fail_fetch(retry_in=WAIT * 2)
    assert resumed.timers() == [3115 + WAIT, 3115 + WAIT * 2]
    resumed.clock.advance(WAIT - 0.1)
    assert resumed.released == []
    resumed.clock.advance(0.1)
    assert resumed.released == [back], "the whole wait after the resume"


# -- what the WARNING of an unreachable origin says ---------------------------------


@pytest.mark.parametrize(
    ("outlook", "words"),
    [
        pytest.param(
            Outlook(retry_in=30, drop_in=600, wait=600),
            "requests to it wait until it answers, at most 600 s more "
            "(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s",
            id="default",
        ),
        pytest.param(
            Outlook(retry_in=30, drop_in=3, wait=3),
            "requests to it will be dropped in 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
            "before the next try in 30 s",
            id="dropped-before-the-next-try",
        ),
        pytest.param(
            Outlook(retry_in=30, drop_in=30, wait=600),
            "requests to it will be dropped in 30 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
            "before the next try in 30 s",
            id="dropped-as-the-next-try-starts",
        ),
        pytest.param(
            Outlook(retry_in=30, drop_in=0, wait=0),
            "requests to it are dropped at once (ROBOTSTXT_RFC_UNREACHABLE_WAIT is 0); "
            "next try in 30 s",
            id="wait-0",
        ),
        pytest.param(
            Outlook(retry_in=0.3, drop_in=None, wait=1),
            "requests to it wait until it answers, at most 1 s "
            "(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 0.3 s",
            id="nobody-waits-yet",
        ),
        pytest.param(
            Outlook(retry_in=412.4, drop_in=None, wait=3),
            "requests to it are dropped after 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
            "before the next try in 412 s",
            id="nobody-waits-yet-dropped-before-the-next-try",
        ),
        # NO_WAIT (scrapy robots without --wait): those are dropped now,
        # and no wait is announced for them.
        pytest.param(
            Outlook(retry_in=30, drop_in=None, wait=600, dropped=1),
            "this check does not wait for a retry (scrapy robots --wait does); a crawl would "
            "fetch it again in 30 s",
            id="one-may-not-wait",
        ),
        pytest.param(
            Outlook(retry_in=30, drop_in=600, wait=600, dropped=2),
            "2 requests that may not wait for a retry are dropped now; the others wait until it "
            "answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s",
            id="two-may-not-wait-others-do",
        ),
    ],
)
def test_the_outlook_in_words(outlook: Outlook, words: str):
    assert str(outlook) == words


def warnings(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]


def test_each_failed_fetch_warns_with_the_timers_it_arms(caplog):
    """The "next try" is the retry timer's delay and the deadline is the
    drop timer's, at every failure: no silent wait."""
    room = Room()
    room.park("https://example.com/a")
    room.fetch()
    room.clock.advance(5)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        room.fail_fetch(retry_in=30)
        assert room.timers() == [35, 605], "retry at 5 + 30, drop at 5 + 600"
        room.clock.advance(30)
        assert room.started == [(ORIGIN, 0), (ORIGIN, 35)]
        room.fail_fetch(retry_in=60)
        assert room.timers() == [95, 605]
    assert warnings(caplog) == [
        "https://example.com/robots.txt is unreachable (HTTP 503): requests to it wait until "
        "it answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s",
        "https://example.com/robots.txt is unreachable (HTTP 503): requests to it wait until "
        "it answers, at most 570 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 60 s",
    ]


def test_a_deadline_before_the_next_try_is_said_and_kept(caplog):
    room = Room(wait=3)
    request = room.park("https://example.com/a")
    room.fetch()
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        room.fail_fetch(retry_in=30)
        room.clock.advance(3)
    assert warnings(caplog) == [
        "https://example.com/robots.txt is unreachable (HTTP 503): requests to it will be "
        "dropped in 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 30 s",
        "Dropping requests to https://example.com: its robots.txt has been unreachable "
        "(HTTP 503) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (3 s); more requests to it will be "
        "dropped the same way while it stays unreachable",
    ]
    assert room.released == [request]
    assert room.clock.getDelayedCalls() == [], "nobody waits: no retry"
    assert room.started == [(ORIGIN, 0)]


def test_a_good_copy_in_force_says_so(caplog):
    room = Room()
    room.good_copy()
    room.arrive("https://example.com/a")  # its retry is due: fetched again
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        room.fail_fetch(retry_in=30, level=logging.ERROR)
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.ERROR,
            "https://example.com/robots.txt is unreachable (HTTP 503): the last good copy "
            "stays in force; next try in 30 s",
        )
    ]


def test_a_good_copy_in_force_names_the_requests_that_wait(caplog):
    """A request whose name the good copy has no group for waits for the
    next fetch (README "Product tokens")."""
    room = Room()
    room.good_copy()
    room.park("https://example.com/a")
    room.fetch()
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        room.fail_fetch(retry_in=30)
    assert warnings(caplog) == [
        "https://example.com/robots.txt is unreachable (HTTP 503): the last good copy stays "
        "in force; requests for new names wait until it answers, at most 600 s more "
        "(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s"
    ]


def test_a_request_in_the_backoff_waits_at_most_the_wait_and_is_told(caplog):
    """The origin is known to be unreachable and the retry is 400 s away: a
    new request waits ROBOTSTXT_RFC_UNREACHABLE_WAIT from when it comes,
    not until the retry and that long again, and the WARNING says so."""
    room = Room(wait=60)
    room.unreachable(400)
    with caplog.at_level(logging.WARNING, logger=LOGGER_NAME):
        room.lives.need(TARGET, Request("https://example.com/a"), "examplebot")
    request = room.park("https://example.com/a")
    assert warnings(caplog) == [
        "https://example.com/robots.txt is unreachable (HTTP 503): requests to it are "
        "dropped after 60 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 400 s"
    ]
    assert room.timers() == [60, 400]
    room.clock.advance(60)
    assert room.released == [request]
    assert carried(request).drop == "HTTP 503"
    assert room.clock.getDelayedCalls() == []


def test_the_retry_timer_is_the_one_the_last_fetch_set():
    """A fetch that began while a retry timer ran (a request came just as
    the backoff ended) replaces that timer with its own backoff."""
    room = Room()
    room.unreachable(30)
    room.lives.need(TARGET, Request("https://example.com/a"), "examplebot")
    room.park("https://example.com/a")
    room.clock.advance(29.99)
    room.fetch()
    room.fail_fetch(retry_in=60)
    assert room.timers() == [29.99 + 60, 600]


def test_a_no_wait_request_waits_for_the_fetch_only():
    room = Room()
    patient = room.park("https://example.com/a")
    room.fetch()
    impatient = room.park("https://example.com/b", **NO_WAIT)
    assert room.lives.busy()
    room.fail_fetch(retry_in=30)
    assert room.released == [impatient]
    assert carried(impatient).drop == "HTTP 503"
    assert carried(patient).drop is None
    assert room.stats.values == {"robotstxt/waiting": 2, "robotstxt/waiting/parked": 2}
    room.clock.advance(30)
    assert len(room.started) == 2, "the other request still waits for the retry"


def test_a_no_wait_request_alone_leaves_no_timer():
    room = Room()
    room.arrive("https://example.com/b")
    room.fetch()
    impatient = room.park("https://example.com/b", **NO_WAIT)
    room.fail_fetch(retry_in=30)
    assert room.released == [impatient]
    assert TARGET not in room.lives
    assert room.clock.getDelayedCalls() == []


def test_a_no_wait_request_gets_a_decided_origin():
    room = Room()
    room.arrive("https://example.com/b")
    room.fetch()
    impatient = room.park("https://example.com/b", **NO_WAIT)
    room.decide()
    assert room.released == [impatient]
    assert carried(impatient).drop is None


def test_a_no_wait_request_is_not_parked_once_the_fetch_is_over():
    """It comes after the fetch ended, while others wait for the retry: it
    is dropped at once, instead of waiting for the retry (RFC 9309
    §2.3.1.4), and nothing waits for the fetch only."""
    room = Room()
    room.park("https://example.com/a")
    room.fetch()
    room.fail_fetch(retry_in=30)
    late = Request("https://example.com/b", meta=dict(NO_WAIT), dont_filter=True)
    settled: list[Any] = []
    room.come(late).addCallback(settled.append)
    assert settled == [Dropped("HTTP 503")]
    waiters = room.lives.waiters(TARGET)
    assert waiters is not None
    assert (len(waiters), waiters.once()) == (1, 0)


@pytest.mark.parametrize(
    ("wait", "meta", "fetching", "expected"),
    [
        (600, {}, False, False),
        (0, {}, False, True),
        (600, NO_WAIT, False, True),
        (0, {}, True, False),
        (600, NO_WAIT, True, False),
    ],
)
def test_who_has_no_time_to_wait_for_a_retry(wait, meta, fetching, expected):
    """Unreachable and in its backoff: a request is dropped at once, rather
    than wait for the retry, when no fetch is under way and it may not
    wait (RFC 9309 §2.3.1.4)."""
    room = Room(wait=wait)
    room.unreachable(30)
    if fetching:
        room.arrive("https://example.com/other")
        room.fetch()
    request = Request("https://example.com/a", meta=dict(meta))
    settled: list[Any] = []
    room.come(request).addCallback(settled.append)
    answer = settled[0] if settled else None
    assert (type(answer) is Dropped) is expected
    if expected:
        assert answer == Dropped("HTTP 503")


# -- requests held in Redis (a fleet) -------------------------------------------------


class Held:
    """Stands for the fleet (:class:`.Holding`), recording what the lives
    ask of it; ``slow``: its holds wait until the test lets them end."""

    def __init__(self, room: Room, slow: bool = False) -> None:
        self.slow = slow
        self.released: list[Target] = []
        self.expired: list[tuple[Target, float]] = []
        #: What it holds for each target: the fleet keeps its own count.
        self.held: dict[Target, int] = {}
        self.pending: list[Deferred[bool]] = []

    @property
    def holding(self) -> bool:
        return True

    @property
    def busy(self) -> bool:
        return False

    async def hold(self, target: Target, request: Request) -> bool:
        if self.slow:
            d: Deferred[bool] = Deferred()
            self.pending.append(d)
            if not await d:
                return False
        self.held[target] = self.held.get(target, 0) + 1
        return True

    def release(self, target: Target) -> None:
        self.held.pop(target, None)
        self.released.append(target)

    def expire(self, target: Target, limit: float) -> None:
        self.expired.append((target, limit))


def held_room(wait: float = WAIT, *, slow: bool = False) -> tuple[Room, Held]:
    room = Room(wait, hold=lambda room: Held(room, slow))
    assert isinstance(room.hold, Held)
    return room, room.hold


def hold(room: Room, url: str) -> Request:
    """A request from the scheduler, held in Redis for ORIGIN when the
    scheduler receives it."""
    copy = room.leave(Request(url, dont_filter=True))
    with pytest.raises(IgnoreRequest):
        room.lives.scheduled(copy)
    return copy


def test_a_held_request_is_kept_out_of_the_scheduler_and_counted():
    room, held = held_room()
    request = hold(room, "https://example.com/a")
    waiters = room.lives.waiters(TARGET)
    assert waiters is not None
    assert (waiters.held, waiters.here(), waiters.held_since) == (1, 0, 0.0)
    assert carried(request).since == 0.0, "its wait counts from then, in every worker"
    assert room.lives.busy()
    assert held.held == {TARGET: 1}, "the fleet knows what it holds"
    assert room.stats.values == {"robotstxt/waiting": 1, "robotstxt/waiting/held": 1}
    assert room.report.row(ORIGIN).waited == 1


def test_a_decided_origin_releases_its_held_requests():
    room, held = held_room()
    hold(room, "https://example.com/a")
    hold(room, "https://example.com/b")
    room.decide()
    assert held.released == [TARGET]
    assert room.released == [], "nothing in memory"
    assert TARGET not in room.lives
    assert held.held == {}


def test_a_request_held_after_the_origin_was_decided_is_released():
    """Redis took the copy while the origin was decided: it is released at
    once, and not counted."""
    room, held = held_room(slow=True)
    copy = room.leave(Request("https://example.com/a", dont_filter=True))
    with pytest.raises(IgnoreRequest):
        room.lives.scheduled(copy)
    room.decide()
    assert held.released == []
    held.pending.pop().callback(True)
    assert held.released == [TARGET]
    assert room.stats.values == {"robotstxt/waiting": 1}


def test_a_request_redis_refuses_waits_in_memory():
    room, held = held_room(slow=True)
    copy = room.leave(Request("https://example.com/a", dont_filter=True))
    with pytest.raises(IgnoreRequest):
        room.lives.scheduled(copy)
    held.pending.pop().callback(False)
    waiters = room.lives.waiters(TARGET)
    assert waiters is not None
    assert (waiters.held, waiters.here()) == (0, 1)
    assert room.stats.values == {"robotstxt/waiting": 1, "robotstxt/waiting/parked": 1}
    room.decide()
    assert room.released == [copy]


def test_requests_released_by_another_worker_close_the_origin():
    room, held = held_room()
    hold(room, "https://example.com/a")
    room.fail_fetch(retry_in=30)
    room.events.emit(Released(TARGET, 1))
    assert TARGET not in room.lives
    assert room.clock.getDelayedCalls() == []
    room.clock.advance(WAIT * 2)
    assert room.started == [(ORIGIN, 0)], "no retry"
    assert held.expired == []


def test_held_requests_of_an_unreachable_origin_go_back_to_be_dropped():
    """After ROBOTSTXT_RFC_UNREACHABLE_WAIT, the held requests go back to the
    queue (the worker that pops them drops them); the drop timer then looks
    again at what is left, never sooner than a second later."""
    room, held = held_room()
    hold(room, "https://example.com/a")
    room.fetch()
    room.fail_fetch(retry_in=WAIT * 2)
    room.clock.advance(100)
    hold(room, "https://example.com/b")
    room.clock.advance(WAIT - 100 - 0.1)
    assert held.expired == []
    room.clock.advance(0.1)
    assert held.expired == [(TARGET, 0.0)], "held since 0 or earlier"
    assert room.released == []
    # One request is left, held since 100: its turn comes at 700.
    room.events.emit(ExpiredLeft(TARGET, 1, 100.0))
    assert room.timers() == [700, WAIT * 2]
    room.clock.advance(100)
    assert held.expired == [(TARGET, 0.0), (TARGET, 100.0)]
    # A worker whose clock is late held it again: look again in 1 s.
    room.events.emit(ExpiredLeft(TARGET, 1, 100.0))
    assert room.timers() == [701, WAIT * 2]
    room.events.emit(ExpiredLeft(TARGET, 0, None))
    assert TARGET not in room.lives
    assert room.clock.getDelayedCalls() == []


def test_an_origin_another_worker_fetched_is_fetched_again_at_once():
    room, _ = held_room()
    hold(room, "https://example.com/a")
    room.fetch()
    room.clock.advance(5)
    room.fail_fetch(retry_in=300)
    entry = room.cache.get(ORIGIN)
    assert entry is not None
    assert entry.unreachable_since is not None, "in its backoff: the sweep rechecks it"
    room.events.emit(FoundElsewhere(TARGET))
    assert room.started == [(ORIGIN, 0), (ORIGIN, 5)]
    assert room.timers() == [605], "only the drop timer is left"
    room.events.emit(FoundElsewhere(TARGET))
    assert len(room.started) == 2, "a fetch is under way"


def test_an_adopted_origin_waits_from_its_oldest_held_request():
    """An origin adopted from a worker that died: its requests have waited
    since 40, and the stored record says unreachable since 40: they go back
    to be dropped at 640, not 600 s after the adoption."""
    room, held = held_room()
    room.clock.advance(100)
    room.events.emit(Adopted(TARGET, Request("https://example.com/a"), 40.0))
    waiters = room.lives.waiters(TARGET)
    assert waiters is not None
    assert (waiters.held, waiters.held_since) == (1, 40.0)
    assert room.started == [(ORIGIN, 100)], "the adopter decides it"
    room.fail_fetch(retry_in=WAIT * 2, since=40.0)
    assert room.timers() == [640, 1300]
    room.clock.advance(540)
    assert held.expired == [(TARGET, 40.0)]
    # The store failed: the same requests are tried again a second later.
    room.events.emit(ExpiredLeft(TARGET, None, 40.0))
    assert room.timers() == [641, 1300]


def test_an_adopted_origin_already_decided_is_released_at_once():
    room, held = held_room()
    room.good_copy(fresh=True)
    room.events.emit(Adopted(TARGET, Request("https://example.com/a"), 40.0))
    assert held.released == [TARGET]
    assert TARGET not in room.lives
    assert room.started == []
