"""The waiting room: requests whose origin's robots.txt is not decided yet.

A request that comes through the scheduler is *parked*: taken out of the
scheduler, so that it holds none of ``CONCURRENT_REQUESTS`` while it waits,
and sent back to the engine when its origin is decided. A request that
never passed the scheduler (``engine.download``) waits *in place*, inside
``process_request``. In a fleet on scrapy-redis, a request from the
scheduler is *held* in Redis instead (:mod:`.fleet`), and the room only
counts and watches it. While robots.txt is unreachable, the retry timer
fetches it again when the backoff ends (RFC 9309 §2.3.1.4), and the drop
timer sends back, to be dropped, what waited longer than
``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.

The clock and ``call_later`` are passed in, so that tests drive the timers
with ``twisted.internet.task.Clock``.
"""

from __future__ import annotations

import logging
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from scrapy.exceptions import IgnoreRequest
from twisted.internet.defer import Deferred

from .._logging import LOGGER_NAME, duration

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable

    from scrapy import Spider
    from scrapy.http import Request
    from scrapy.statscollectors import StatsCollector

    from .._timers import Timer
    from ..policy import Origin
    from ..robotstxt import Token
    from ._report import Report

__all__ = [
    "DROP_KEY",
    "FILTER_KEY",
    "NO_WAIT_KEY",
    "SCHEDULED_KEY",
    "HeldRequests",
    "Outlook",
    "Waiting",
    "WaitingRoom",
]

logger = logging.getLogger(LOGGER_NAME)

#: Set on a request that waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``
#: and was sent back to the engine to be dropped; kept in ``meta`` so that it
#: survives a disk queue.
DROP_KEY = "_robotstxt_rfc_drop"
#: Set by the ``request_scheduled`` handler and taken off again by
#: ``process_request``: the request came through the scheduler, so it can be
#: sent back to it to wait. A ``meta`` key rather than the request's identity,
#: because a ``JOBDIR`` disk queue gives back a new object.
SCHEDULED_KEY = "_robotstxt_rfc_scheduled"
#: On a request that was sent back to the scheduler with ``dont_filter``
#: set only for that; ``process_request`` clears the flag again, so that
#: redirects and offsite filtering treat it as the user made it.
FILTER_KEY = "_robotstxt_rfc_filter"
#: On a request that waits for the robots.txt fetch under way, or started
#: for it, but not for a retry: when the fetch finds robots.txt unreachable,
#: the request is dropped at once (``scrapy robots`` without ``--wait``).
#: Honoured for requests that come through the scheduler.
NO_WAIT_KEY = "_robotstxt_rfc_no_wait"


@dataclass(frozen=True, slots=True)
class Outlook:
    """What happens next to the requests of an unreachable origin: the
    delay of the retry timer (RFC 9309 §2.3.1.4) and when the drop timer
    sends them back (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``).

    >>> print(Outlook(retry_in=30, drop_in=600, wait=600))
    requests to it wait until it answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=3, wait=3))
    requests to it will be dropped in 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=None, wait=600, dropped=1))
    1 request that may not wait for a retry is dropped now; the next try is due in 30 s
    """  # noqa: E501

    #: Seconds until robots.txt is fetched again.
    retry_in: float
    #: Seconds until the longest-waiting request is dropped; ``None`` when
    #: no request waits now (the next one waits ``wait`` at most).
    drop_in: float | None
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    wait: float
    #: Requests that waited for this fetch only (:data:`NO_WAIT_KEY`, as
    #: ``scrapy robots`` without ``--wait``): they are dropped now.
    dropped: int = 0

    def describe(self, subject: str = "requests to it") -> str:
        """The outlook in words, for the WARNING of an unreachable origin:
        what happens to the requests that may not wait, if any, then to
        those that do."""
        if not self.dropped:
            return self._waits(subject)
        count = self.dropped
        gone = (
            f"{count} request{'s' * (count != 1)} that may not wait for a retry "
            f"{'is' if count == 1 else 'are'} dropped now"
        )
        if self.drop_in is None:  # no other request waits: no wait to announce
            return f"{gone}; the next try is due in {duration(self.retry_in)} s"
        return f"{gone}; {self._waits('the others')}"

    def _waits(self, subject: str) -> str:
        """What happens to the requests that wait, ``subject``."""
        retry = duration(self.retry_in)
        if self.wait <= 0:
            return (
                f"{subject} are dropped at once (ROBOTSTXT_RFC_UNREACHABLE_WAIT is 0); "
                f"next try in {retry} s"
            )
        waiting_now = self.drop_in is not None
        limit = self.wait if self.drop_in is None else self.drop_in
        drop = duration(limit)
        if limit <= self.retry_in:  # dropped before the next try can answer
            when = f"will be dropped in {drop} s" if waiting_now else f"are dropped after {drop} s"
            return (
                f"{subject} {when} (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
                f"before the next try in {retry} s"
            )
        more = " more" if waiting_now else ""
        return (
            f"{subject} wait until it answers, at most {drop} s{more} "
            f"(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in {retry} s"
        )

    def __str__(self) -> str:
        return self.describe()


class HeldRequests(Protocol):
    """Where the requests held in Redis go (:class:`.fleet.FleetRoom`)."""

    def release_soon(self, key: Origin) -> None:
        """``key`` is decided: send its held requests back to the crawl."""

    def release_expired(self, key: Origin, limit: float) -> None:
        """Send back, to be dropped, those held since ``limit`` (monotonic)
        or earlier; then call :meth:`WaitingRoom.held_left`."""


@dataclass(eq=False)
class Waiting:
    """An origin whose robots.txt is being fetched, or is unreachable, and
    the requests that wait for it."""

    #: The request that triggered the current fetch: its proxy and slot are
    #: used, and ``robots_parsed`` receives it.
    trigger: Request
    fetching: bool = False
    #: Requests taken out of the scheduler, with when they began to wait,
    #: oldest first.
    parked: deque[tuple[Request, float]] = field(default_factory=deque)
    #: Deferreds of requests waiting inside ``process_request``, the same
    #: way; fired with ``None`` to decide again, or a reason to drop.
    in_place: deque[tuple[Deferred[str | None], float]] = field(default_factory=deque)
    #: Parked requests that wait for the fetch under way only
    #: (:data:`NO_WAIT_KEY`).
    no_wait: list[Request] = field(default_factory=list)
    #: Product tokens the next parse must keep rules for.
    tokens: set[Token] = field(default_factory=set)
    #: The taker ids of the spider requests for this robots.txt itself
    #: that wait: the fetch that decides the origin keeps its response for
    #: them (:mod:`.kept`); one that is dropped meanwhile leaves the set.
    asked: set[str] = field(default_factory=set)
    #: When a fetch first found the origin unreachable:
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` counts from here or from when the
    #: request began to wait, whichever is later; a first fetch that is only
    #: slow never drops anything.
    unreachable_at: float | None = None
    retry_timer: Timer | None = None
    drop_timer: Timer | None = None
    #: Requests held in Redis for the origin that this worker watches
    #: (:mod:`.fleet`), as far as it knows.
    held: int = 0
    #: When the longest-held of them began to wait (monotonic clock).
    held_since: float | None = None

    def has_waiters(self) -> bool:
        return bool(self.parked or self.in_place or self.no_wait or self.held)


class WaitingRoom:
    """Every origin's :class:`Waiting`, and the timers that move them on.

    ``start`` begins a fetch of an origin; ``release`` gives requests back to
    the engine; ``reason`` says why an origin's requests are dropped.
    """

    def __init__(
        self,
        *,
        wait: float,
        monotonic: Callable[[], float],
        call_later: Callable[[float, Callable[[], None]], Timer],
        start: Callable[[Origin, Waiting], None],
        release: Callable[[Iterable[Request]], None],
        reason: Callable[[Origin], str],
        stats: StatsCollector,
        report: Report,
        spider: Callable[[], Spider | None],
    ) -> None:
        self.wait = wait
        self._monotonic = monotonic
        self._call_later = call_later
        self._start = start
        self._release = release
        self._reason = reason
        self._stats = stats
        self._report = report
        self._spider = spider
        self._origins: dict[Origin, Waiting] = {}
        #: Copies returned by ``process_request`` that the
        #: ``request_scheduled`` handler is to park.
        self._to_park: dict[Request, Origin] = {}
        #: Copies returned by ``process_request`` once held in Redis: the
        #: ``request_scheduled`` handler keeps them out of the scheduler.
        self._held_copies: set[Request] = set()
        #: Set by :class:`.fleet.FleetRoom` when requests are held in Redis.
        self.fleet: HeldRequests | None = None
        #: Origins already named in a "Dropping requests" warning.
        self._warned: set[Origin] = set()

    def __contains__(self, key: object) -> bool:
        return key in self._origins

    def get(self, key: Origin) -> Waiting | None:
        return self._origins.get(key)

    def join(self, key: Origin, trigger: Request, token: Token) -> Waiting:
        """``key``'s waiting list, opened for ``trigger`` if there is none;
        ``token`` is a name whose rules the next parse must keep."""
        waiting = self._origins.get(key)
        if waiting is None:
            waiting = self._origins[key] = Waiting(trigger)
        waiting.tokens.add(token)
        return waiting

    def busy(self) -> bool:
        """Whether any request waits (the spider must not close)."""
        return any(waiting.has_waiters() for waiting in self._origins.values())

    def fetching(self) -> bool:
        """Whether a robots.txt fetch is under way."""
        return any(waiting.fetching for waiting in self._origins.values())

    def held(self) -> list[tuple[Origin, Waiting]]:
        """The origins for which requests are held in Redis."""
        return [(key, waiting) for key, waiting in self._origins.items() if waiting.held]

    # -- coming in -----------------------------------------------------------

    def park_when_scheduled(self, copy: Request, key: Origin, *, in_store: bool = False) -> None:
        """Park ``copy`` when the scheduler receives it (:meth:`scheduled`);
        if it is held ``in_store``, only keep it out of the scheduler."""
        if in_store:
            self._held_copies.add(copy)
        else:
            self._to_park[copy] = key

    def scheduled(self, request: Request) -> None:
        """The ``request_scheduled`` handler: park a request
        ``process_request`` sent back, or mark one that came through the
        scheduler (:data:`SCHEDULED_KEY`)."""
        if request in self._held_copies:
            self._held_copies.discard(request)
            raise IgnoreRequest  # Redis has it
        key = self._to_park.pop(request, None)
        waiting = None if key is None else self._origins.get(key)
        no_wait = bool(request.meta.get(NO_WAIT_KEY))
        # Decided meanwhile, or (no_wait) the fetch ended: decide it again.
        if key is None or waiting is None or (no_wait and not waiting.fetching):
            request.meta[SCHEDULED_KEY] = True
            return
        if no_wait:
            waiting.no_wait.append(request)
        else:
            waiting.parked.append((request, self._monotonic()))
        self._joined(key, waiting)
        raise IgnoreRequest  # keeps it out of the scheduler; the engine logs nothing

    def wait_in_place(self, key: Origin, waiting: Waiting) -> Deferred[str | None]:
        """Wait inside ``process_request``: the Deferred fires with ``None``
        once ``key`` is decided, or with why the request is dropped."""
        d: Deferred[str | None] = Deferred()
        waiting.in_place.append((d, self._monotonic()))
        self._joined(key, waiting)
        return d

    def _joined(self, key: Origin, waiting: Waiting) -> None:
        self._stats.inc_value("robotstxt/waiting")
        self._report.row(key).waited += 1
        self._arm_drop_timer(key, waiting)

    # -- held in Redis (:mod:`.fleet`) ------------------------------------------

    def held_one(self, key: Origin, since: float) -> bool:
        """A request that began to wait at ``since`` (monotonic) is held in
        Redis for ``key``; ``False`` if ``key`` was decided meanwhile (the
        caller releases it)."""
        waiting = self._origins.get(key)
        if waiting is None:
            return False
        self._stats.inc_value("robotstxt/waiting/held")
        self.adopted(key, waiting, since)
        self._joined(key, waiting)
        return True

    def adopted(self, key: Origin, waiting: Waiting, since: float) -> None:
        """``waiting`` watches one more held request, or an origin adopted
        from another worker, whose oldest request began to wait at
        ``since`` (monotonic)."""
        waiting.held += 1
        if waiting.held_since is None or since < waiting.held_since:
            waiting.held_since = since
        self._arm_drop_timer(key, waiting)

    def unhold(self, key: Origin, count: int) -> None:
        """``count`` of ``key``'s held requests are no longer held (another
        worker released them)."""
        waiting = self._origins.get(key)
        if waiting is None:
            return
        waiting.held = max(0, waiting.held - count)
        if not waiting.held:
            waiting.held_since = None
        if not waiting.has_waiters() and not waiting.fetching:
            self._close(key, waiting)

    def held_left(self, key: Origin, left: int | None, oldest: float | None) -> None:
        """After :meth:`HeldRequests.release_expired`: ``left`` requests are
        still held (``None``: unknown, the store failed), the oldest since
        ``oldest`` (monotonic). The drop timer looks again no sooner than in
        a second, so that workers whose clocks disagree never spin."""
        waiting = self._origins.get(key)
        if waiting is None:
            return
        if left is not None:
            waiting.held = left
        waiting.held_since = oldest if waiting.held else None
        if not waiting.has_waiters() and not waiting.fetching:
            self._close(key, waiting)
        else:
            self._arm_drop_timer(key, waiting, at_least=1.0)

    # -- moving on -----------------------------------------------------------

    def settle(self, key: Origin, *, decided: bool, retry_in: float | None) -> None:
        """After a fetch: release what waits for ``key`` if it is
        ``decided``; otherwise drop the requests that waited for this fetch
        only (:data:`NO_WAIT_KEY`), keep the others waiting, and fetch again
        in ``retry_in`` seconds (RFC 9309 §2.3.1.4)."""
        waiting = self._origins.get(key)
        if waiting is None or waiting.fetching:
            return
        if decided:
            self._close(key, waiting)
            if waiting.held and self.fleet is not None:
                self.fleet.release_soon(key)
            self._release([*(request for request, _ in waiting.parked), *waiting.no_wait])
            for d, _ in waiting.in_place:
                d.callback(None)
            return
        if waiting.no_wait:
            impatient, waiting.no_wait = waiting.no_wait, []
            reason = self._reason(key)
            for request in impatient:
                request.meta[DROP_KEY] = reason
            self._release(impatient)
        if not waiting.has_waiters():
            self._close(key, waiting)
            return
        if retry_in is not None:
            if waiting.unreachable_at is None:
                waiting.unreachable_at = self._monotonic()
            # This fetch's backoff replaces any earlier timer: the next try
            # is the one the WARNING of this fetch announced.
            if waiting.retry_timer is not None:
                waiting.retry_timer.cancel()
                waiting.retry_timer = None
            self._retry_later(key, waiting, retry_in)
            self._arm_drop_timer(key, waiting)

    def backoff(self, key: Origin, waiting: Waiting, retry_in: float, outcome: str) -> None:
        """``key`` is unreachable (``outcome``) and its backoff has
        ``retry_in`` seconds to run: requests wait for the retry (RFC 9309
        §2.3.1.4). The first to wait starts the wait's clock
        (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``) and the WARNING that says so."""
        if waiting.unreachable_at is None:
            waiting.unreachable_at = self._monotonic()
            self.warn_unreachable(key, outcome, retry_in)
        self._retry_later(key, waiting, retry_in)

    def no_time_to_wait(self, key: Origin, request: Request) -> bool:
        """Whether ``request``, for an unreachable origin in its backoff,
        is to be dropped at once rather than wait for the retry: no fetch is
        under way, and it may not wait (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``
        is 0, or :data:`NO_WAIT_KEY`)."""
        waiting = self._origins.get(key)
        if waiting is not None and waiting.fetching:
            return False
        return self.wait <= 0 or bool(request.meta.get(NO_WAIT_KEY))

    def outlook(self, key: Origin, retry_in: float) -> Outlook:
        """What happens next to ``key``'s requests, robots.txt being
        unreachable and fetched again in ``retry_in`` seconds."""
        waiting = self._origins.get(key)
        now = self._monotonic()
        when = None if waiting is None else self._drop_time(waiting, since=now)
        dropped = 0 if waiting is None else len(waiting.no_wait)
        return Outlook(retry_in, None if when is None else when - now, self.wait, dropped)

    def warn_unreachable(
        self,
        key: Origin,
        outcome: str,
        retry_in: float,
        *,
        good: bool = False,
        level: int = logging.WARNING,
    ) -> None:
        """The line of a failed fetch (HTTP-4 to HTTP-6): what is in force,
        and what happens next to the requests that wait (:class:`Outlook`),
        so that no wait is silent."""
        outlook = self.outlook(key, retry_in)
        policy: Outlook | str = outlook  # rendered only if a handler takes the line
        if good and outlook.drop_in is None:
            policy = f"the last good copy stays in force; next try in {duration(retry_in)} s"
        elif good:  # requests for a name the good copy has no group for
            waits = outlook.describe("requests for new names")
            policy = f"the last good copy stays in force; {waits}"
        logger.log(
            level,
            "%(url)s is unreachable (%(outcome)s): %(policy)s",
            {"url": key.robots_url, "outcome": outcome, "policy": policy},
            extra={"spider": self._spider()},
        )

    def _retry_later(self, key: Origin, waiting: Waiting, delay: float) -> None:
        """Fetch ``key`` again in ``delay`` seconds, if requests still wait
        then (the backoff of RFC 9309 §2.3.1.4)."""
        if waiting.retry_timer is None:
            waiting.retry_timer = self._call_later(max(0.0, delay), lambda: self._retry(key))

    def retry_now(self, key: Origin) -> None:
        """Fetch ``key`` now rather than when its backoff ends: another
        worker found robots.txt since (:mod:`.fleet`)."""
        waiting = self._origins.get(key)
        if waiting is not None and waiting.retry_timer is not None:
            waiting.retry_timer.cancel()
            self._retry(key)

    def _retry(self, key: Origin) -> None:
        waiting = self._origins.get(key)
        if waiting is None:
            return
        waiting.retry_timer = None
        if waiting.has_waiters() and not waiting.fetching:
            self._start(key, waiting)

    def _drop_time(self, waiting: Waiting, since: float | None = None) -> float | None:
        """When the longest-waiting request is to be dropped, if the origin
        is unreachable (``since``, when it is not known to be yet)."""
        since = waiting.unreachable_at if waiting.unreachable_at is not None else since
        if since is None:
            return None
        starts = [queue[0][1] for queue in (waiting.parked, waiting.in_place) if queue]
        if waiting.held_since is not None:
            starts.append(waiting.held_since)
        if not starts:
            return None
        return max(min(starts), since) + self.wait

    def _arm_drop_timer(self, key: Origin, waiting: Waiting, at_least: float = 0.0) -> None:
        if waiting.drop_timer is not None:
            return
        when = self._drop_time(waiting)
        if when is not None:
            delay = max(at_least, when - self._monotonic())
            waiting.drop_timer = self._call_later(delay, lambda: self._drop_expired(key))

    def _drop_expired(self, key: Origin) -> None:
        """Send back, to be dropped, the requests that waited too long
        (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``) for an unreachable origin."""
        waiting = self._origins.get(key)
        if waiting is None:
            return
        waiting.drop_timer = None
        if waiting.unreachable_at is None:
            return
        # Requests wait from when they came or from when the origin turned
        # unreachable, whichever is later: the queues are in that order.
        limit = self._monotonic() - self.wait
        if waiting.unreachable_at > limit:
            self._arm_drop_timer(key, waiting)
            return
        reason = self._reason(key)
        expired: list[Request] = []
        while waiting.parked and waiting.parked[0][1] <= limit:
            expired.append(waiting.parked.popleft()[0])
        while waiting.in_place and waiting.in_place[0][1] <= limit:
            waiting.in_place.popleft()[0].callback(reason)
        if waiting.held_since is not None and waiting.held_since <= limit and self.fleet:
            waiting.held_since = None  # until held_left() says what is left
            self.fleet.release_expired(key, limit)
        if expired:
            if key not in self._warned:
                self._warned.add(key)
                logger.warning(
                    "Dropping requests to %(origin)s: its robots.txt has been unreachable "
                    "(%(reason)s) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (%(wait)s s); more "
                    "requests to it will be dropped the same way while it stays unreachable",
                    {"origin": key, "reason": reason, "wait": duration(self.wait)},
                    extra={"spider": self._spider()},
                )
            for request in expired:
                request.meta[DROP_KEY] = reason
            self._release(expired)
        if not waiting.has_waiters() and not waiting.fetching:
            self._close(key, waiting)  # nobody waits: the next request fetches again
            return
        self._arm_drop_timer(key, waiting)

    def _close(self, key: Origin, waiting: Waiting) -> None:
        del self._origins[key]
        _cancel(waiting)

    def close(self) -> list[Request]:
        """The spider closed: stop every timer, drop the requests waiting in
        place, and hand back the parked ones (the held ones are in Redis)."""
        parked: list[Request] = []
        for waiting in self._origins.values():
            _cancel(waiting)
            parked.extend(request for request, _ in waiting.parked)
            parked.extend(waiting.no_wait)
            for d, _ in waiting.in_place:
                d.callback("the spider closed")
        self._origins.clear()
        return parked


def _cancel(waiting: Waiting) -> None:
    for timer in (waiting.retry_timer, waiting.drop_timer):
        if timer is not None:
            timer.cancel()
    waiting.retry_timer = waiting.drop_timer = None
