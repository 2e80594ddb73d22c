"""Parking: a request that comes through the scheduler while its origin's
robots.txt is undecided waits out of the downloader, so that it holds none
of ``CONCURRENT_REQUESTS`` while it waits (the built-in keeps it in a
downloader slot).

``process_request`` returns a copy of the request; Scrapy sends what a
downloader middleware returns back to the scheduler, and the
``request_scheduled`` handler here takes the copy out of it again: parked
in the waiting room (:meth:`.WaitingRoom.park`), or, in a fleet on
scrapy-redis, kept out because the hold (:mod:`.crawl._holding`) has it in
Redis. A request that never passed the scheduler (``engine.download``)
cannot be parked: it waits in place, inside ``process_request``.

The copy carries the request's :class:`.Ticket` (:mod:`.crawl._tickets`):
when it began to wait, its share of a robots.txt fetch's response, and that
its ``dont_filter`` is to be set back when it returns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from scrapy import signals
from scrapy.exceptions import IgnoreRequest

from ._tickets import LEGACY_KEYS, TICKET_KEY, Ticket, leave

if TYPE_CHECKING:
    from scrapy.http import Request
    from scrapy.signalmanager import SignalManager

    from .._runtime import Runtime
    from ..policy import Origin
    from ._holding import Hold
    from ._kept_responses import Share
    from ._waiting_room import WaitingRoom

#: In a fleet, set by the ``request_scheduled`` handler (and on a request
#: held in Redis) and taken off again by ``process_request``: the request
#: came through the scheduler, so it can be sent back to it to wait. A
#: ``meta`` key rather than the request's identity, because a queue in Redis
#: or in ``JOBDIR`` gives back a new object (:meth:`Parking.arrived`).
SCHEDULED_KEY = "_robotstxt_rfc_scheduled"
#: The legacy keys but the fleet's mark, which is still written.
_LEGACY = LEGACY_KEYS - {SCHEDULED_KEY}


@dataclass(frozen=True, slots=True)
class Arrival:
    """What :meth:`Parking.arrived` says of a request: whether it came
    through the scheduler (it may be parked), and the ticket it came back
    with, if it waited before."""

    scheduled: bool
    ticket: Ticket | None = None


_SCHEDULED = Arrival(True)
_IN_PLACE = Arrival(False)


class Parking:
    """Takes the copies ``process_request`` returns out of the scheduler
    and into the waiting room or the hold; says of a request that arrives
    whether it came through the scheduler (and so may be parked).

    ``marks``: every request from the scheduler is marked
    (:data:`SCHEDULED_KEY`), as in a fleet, whose held requests come back
    from Redis; the ``request_scheduled`` handler is then connected while
    the spider is open. Otherwise it is connected only while copies are on
    their way to be parked (:meth:`arrived`)."""

    def __init__(
        self,
        signals: SignalManager,
        runtime: Runtime,
        room: WaitingRoom,
        hold: Hold,
        *,
        marks: bool,
    ) -> None:
        self._signals = signals
        self._runtime = runtime
        self._room = room
        self._hold = hold
        self._marks = marks
        #: Copies returned by ``process_request`` that the handler parks,
        #: with when each began to wait if it waited in place first, and
        #: whether it waits for the fetch under way only.
        self._to_park: dict[Request, tuple[Origin, float | None, bool]] = {}
        #: Copies returned by ``process_request`` once held in Redis: the
        #: handler keeps them out of the scheduler.
        self._held_copies: set[Request] = set()
        #: Whether the ``request_scheduled`` handler is connected.
        self._listening = False

    def arrived(self, request: Request) -> Arrival:
        """``request`` is in ``process_request``: set the user's
        ``dont_filter`` back if a park changed it, and say whether it came
        through the scheduler, so that it can wait out of the downloader
        rather than in place.

        In a fleet the ``request_scheduled`` handler says so
        (:data:`SCHEDULED_KEY`). Otherwise every request did, except a copy
        that :meth:`park` gave back and that came back without passing the
        scheduler: ``engine.download_async`` downloads what
        ``process_request`` returns itself. So no handler runs for each
        request: it is connected only while copies are on their way to be
        parked, and disconnected here, outside its signal's dispatch."""
        meta = request.meta
        marked = meta.pop(SCHEDULED_KEY, False)
        found = meta.pop(TICKET_KEY, None)
        ticket = None
        if found is not None:
            ticket = Ticket.from_meta(found)
        elif not _LEGACY.isdisjoint(meta):
            ticket = Ticket.from_legacy(meta)
        if ticket is not None and ticket.refilter:
            request.dont_filter = False
        if self._marks:
            scheduled = bool(marked)
        else:
            to_park = self._to_park
            if not to_park:
                if self._listening:
                    self._listen(False)
                scheduled = True
            else:
                scheduled = to_park.pop(request, None) is None
        if ticket is None:
            return _SCHEDULED if scheduled else _IN_PLACE
        return Arrival(scheduled, ticket)

    async def park(
        self,
        key: Origin,
        request: Request,
        share: Share | None,
        since: float | None = None,
        *,
        once: bool = False,
    ) -> Request:
        """The copy of scheduled ``request`` that waits for ``key`` out of the
        downloader, carrying its ticket (:func:`.leave`): its ``share`` of the
        fetch's response, if any (:mod:`.crawl._kept_responses`), ``since``,
        when it began to wait if it waited in place first (monotonic), and
        ``once``: it waits for the fetch under way only. Held in Redis in a
        fleet, else parked when the scheduler receives it
        (:meth:`scheduled`)."""
        taker = None if share is None else share.taker
        wall = None if since is None else self._runtime.wall_of(since)
        copy = leave(request, Ticket(since=wall, taker=taker, once=once))
        self._listen(True)
        if not await self._hold.hold(key, copy):
            self._to_park[copy] = (key, since, once)
            self._runtime.stats.inc_value("robotstxt/waiting/parked")
            return copy
        self._held_copies.add(copy)
        if not self._room.hold_one(key, self._hold.waited_since(copy)):
            self._hold.release_soon(key)  # decided while Redis took it
        return copy

    def listen(self) -> None:
        """The spider opened: in a fleet, connect the ``request_scheduled``
        handler, held by a strong reference, which PyDispatcher calls
        without the three Python calls of its weak reference to a bound
        method, until :meth:`stop_listening`."""
        if self._marks:
            self._listen(True)

    def stop_listening(self) -> None:
        """The spider closed: disconnect the handler if it is connected."""
        self._listen(False)

    def _listen(self, on: bool) -> None:
        if on != self._listening:
            how = self._signals.connect if on else self._signals.disconnect
            how(self.scheduled, signal=signals.request_scheduled, weak=False)
            self._listening = on

    def scheduled(self, request: Request, **kwargs: Any) -> None:
        """The ``request_scheduled`` handler: park a copy ``process_request``
        returned, or, in a fleet, mark one that came through the scheduler
        (:data:`SCHEDULED_KEY`). ``**kwargs``: PyDispatcher then passes the
        signal's arguments as they are instead of matching them to the
        parameters, for every request."""
        if request in self._held_copies:
            self._held_copies.discard(request)
            raise IgnoreRequest  # Redis has it
        found = self._to_park.pop(request, None)
        if found is not None and self._room.park(found[0], request, found[1], once=found[2]):
            raise IgnoreRequest  # keeps it out of the scheduler; the engine logs nothing
        # Into the scheduler: not a copy to park, its origin decided meanwhile,
        # or sent back (no fetch under way for a no-wait request): decided again.
        if self._marks:
            request.meta[SCHEDULED_KEY] = True
