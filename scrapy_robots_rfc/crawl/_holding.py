"""Where a request that comes through the scheduler waits for its origin's
robots.txt: in this worker's memory (:class:`MemoryHold`, every crawl), or
held in Redis by the optional :mod:`.fleet` when the crawl runs on
scrapy-redis (its ``FleetRoom`` implements the same methods).

The middleware never imports the fleet: :func:`hold_class` loads it by
name, the way Scrapy loads its components from settings, and only for a
crawl whose scheduler is scrapy-redis's and ``ROBOTSTXT_RFC_HOLD`` is not
``"memory"``. Deleting ``fleet/`` leaves every other crawl as it is.

A held request keeps when it first waited (:data:`SINCE_KEY`, wall clock),
so that the requests of an origin that stays unreachable are dropped after
``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` (RFC 9309 §2.3.1.4) from then on, in any
worker (:meth:`MemoryHold.expired`).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Protocol

from scrapy.utils.misc import load_object

if TYPE_CHECKING:
    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from .._runtime import Runtime
    from ..policy import Entry, Origin
    from ..stores import Record, SharedStore
    from ._config import Config

logger = logging.getLogger(__name__)

#: A random value, new at each hold, so that two identical requests are two
#: members of the held set.
HOLD_KEY = "_robotstxt_rfc_hold"
#: When the request first waited for robots.txt (seconds since the epoch):
#: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` counts from here in every worker.
SINCE_KEY = "_robotstxt_rfc_since"
#: Seconds of clock skew between workers that the drop rule allows for.
DROP_TOLERANCE = 2.0
#: The class that holds requests in Redis for a fleet on scrapy-redis.
FLEET_ROOM = "scrapy_robots_rfc.fleet.FleetRoom"


def let_go(request: Request) -> None:
    """Take the hold's keys off ``request``, which leaves the waiting for
    good: crawled, forbidden or dropped."""
    meta = request.meta
    meta.pop(HOLD_KEY, None)
    meta.pop(SINCE_KEY, None)


def on_scrapy_redis(settings: BaseSettings) -> bool:
    """Whether the crawl's ``SCHEDULER`` is scrapy-redis's (or a subclass).
    Scrapy has imported the scheduler already, so this imports nothing new:
    scrapy-redis only when it is the scheduler's."""
    scheduler_class = settings.get("SCHEDULER")
    try:
        if isinstance(scheduler_class, str):
            scheduler_class = load_object(scheduler_class)
    except (ImportError, AttributeError, ValueError, NameError):
        return False
    return isinstance(scheduler_class, type) and any(
        cls.__module__.partition(".")[0] == "scrapy_redis" for cls in scheduler_class.__mro__
    )


def hold_class(config: Config, settings: BaseSettings) -> type[MemoryHold]:
    """:class:`MemoryHold`, or the fleet's room (:data:`FLEET_ROOM`) for a
    crawl on scrapy-redis that may hold requests in Redis
    (``ROBOTSTXT_RFC_HOLD``); the room finds out at spider open whether it
    can."""
    if config.hold == "memory" or not on_scrapy_redis(settings):
        return MemoryHold
    room: type[MemoryHold] = load_object(FLEET_ROOM)
    return room


class Room(Protocol):
    """What a hold asks of the waiting room that made it (the fleet's asks
    more of :class:`.WaitingRoom`)."""

    def close(self) -> list[Request]:
        """The spider closed: the requests still parked in memory."""


class MemoryHold:
    """Requests wait in this worker's memory only (the
    :class:`.WaitingRoom`): nothing is held elsewhere. The fleet's room
    extends it; the waiting room calls the same methods on either.

    The waiting room makes its hold and passes itself as ``room``: a
    fleet's hold watches the room's origins and gives it the origins it
    adopts from other workers (:meth:`.WaitingRoom.adopt`). The runtime's
    ``clock`` is the wall clock of :data:`SINCE_KEY`; its ``monotonic`` the
    waiting room's."""

    def __init__(
        self,
        runtime: Runtime,
        crawler: Crawler,
        config: Config,
        shared: SharedStore,
        room: Room,
    ) -> None:
        self._runtime = runtime
        self._crawler = crawler
        self._config = config
        self._shared = shared
        self._room = room

    @property
    def holding(self) -> bool:
        """Whether requests are held outside this worker now: never."""
        return False

    @property
    def busy(self) -> bool:
        """Whether other workers' held requests keep the spider open: no."""
        return False

    async def open(self, spider: Spider) -> None:
        """The spider opened."""

    async def hold(self, key: Origin, request: Request) -> bool:
        """Hold ``request`` for ``key`` outside this worker; ``False``: it
        waits in memory."""
        return False

    def release_soon(self, key: Origin) -> None:
        """``key`` is decided: nothing is held to release."""

    def release_expired(self, key: Origin, limit: float) -> None:
        """Nothing is held to drop."""

    def to_monotonic(self, wall: float) -> float:
        """The time ``wall`` (seconds since the epoch, the clock of
        :data:`SINCE_KEY` and of records) on the waiting room's clock."""
        return self._runtime.monotonic() - max(0.0, self._runtime.clock() - wall)

    def waited_since(self, request: Request) -> float:
        """When held ``request`` first waited, on the waiting room's clock."""
        return self.to_monotonic(float(request.meta.get(SINCE_KEY, self._runtime.clock())))

    async def expired(self, key: Origin, request: Request, entry: Entry) -> bool:
        """Whether ``request``, once held, for ``key`` whose robots.txt is
        unreachable with no good copy (``entry``), has waited
        ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``: from when it first waited, or
        when the origin turned unreachable, whichever is later (RFC 9309
        §2.3.1.4), with :data:`DROP_TOLERANCE` for the clocks of workers."""
        return self._waited(request, entry)

    def _waited(self, request: Request, state: Entry | Record) -> bool:
        since = request.meta.get(SINCE_KEY)
        unreachable_since = state.unreachable_since
        if since is None or state.good or unreachable_since is None:
            return False
        now, config = self._runtime.clock(), self._config
        if now - unreachable_since >= config.allow_after:
            return False  # allowed now (RFC 9309 §2.3.1.4)
        return (
            now - max(float(since), unreachable_since) >= config.unreachable_wait - DROP_TOLERANCE
        )

    async def close(self, reason: str) -> list[Request]:
        """The spider closed (``reason``): the requests still parked in
        memory, for JOBDIR or to count as abandoned."""
        return self._room.close()
