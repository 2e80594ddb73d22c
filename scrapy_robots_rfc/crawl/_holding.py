"""Where a request that comes through the scheduler waits for its origin's
robots.txt: in this worker's memory (:class:`MemoryHold`, every crawl), or
held in Redis by the optional :mod:`.fleet` when the crawl runs on
scrapy-redis (its ``FleetHold`` implements the same :class:`Hold`).

The waiting room (:mod:`.crawl._waiting_room`) asks a hold to keep and give
back requests; the hold never calls the room. What happens in the fleet
meanwhile (another worker released the requests, an orphan origin was
adopted, the store answers again...) the hold reports as a
:data:`HoldEvent` through :class:`HoldEvents`, a relay the middleware
wires to the room, which feeds each to the origin's life
(:class:`.policy.OriginLife`). These two, :class:`Hold` and the events, are
the whole interface between the room and a hold.

The middleware never imports the fleet: :func:`hold_class` loads it by
name, the way Scrapy loads its components from settings, and only for a
crawl whose scheduler is scrapy-redis's and ``ROBOTSTXT_RFC_HOLD`` is not
``"memory"``. Deleting ``fleet/`` leaves every other crawl as it is.

A held request keeps when it first waited (its :class:`.Ticket`'s
``since``, wall clock), so that the requests of an origin that stays
unreachable are dropped after ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` (RFC 9309
§2.3.1.4) from then on, in any worker (:meth:`MemoryHold.expired`).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from scrapy.utils.misc import load_object

from ._tickets import carried

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy import Request, Spider
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

    from .._runtime import Runtime
    from ..policy import Entry, Origin
    from ..stores import Record, SharedStore
    from ._config import Config
    from ._tickets import Ticket

logger = logging.getLogger(__name__)

#: Seconds of clock skew between workers that the drop rule allows for.
DROP_TOLERANCE = 2.0
#: The class that holds requests in Redis for a fleet on scrapy-redis.
FLEET_HOLD = "scrapy_robots_rfc.fleet.FleetHold"


# -- what a hold reports -----------------------------------------------------


@dataclass(frozen=True, slots=True)
class Adopted:
    """This worker adopted ``key``, whose held requests a worker that died
    left: ``trigger`` stands for them, the oldest of which began to wait at
    ``since`` (seconds since the epoch)."""

    key: Origin
    trigger: Request
    since: float


@dataclass(frozen=True, slots=True)
class Released:
    """``count`` of the requests held for ``key`` are no longer held:
    another worker released them."""

    key: Origin
    count: int


@dataclass(frozen=True, slots=True)
class ExpiredLeft:
    """After :meth:`Hold.release_expired`: ``left`` requests are still held
    for ``key`` (``None``: unknown, the store failed), the oldest since
    ``oldest`` (the room's monotonic clock)."""

    key: Origin
    left: int | None
    oldest: float | None


@dataclass(frozen=True, slots=True)
class FoundElsewhere:
    """Another worker reached ``key``'s robots.txt while this one waits in
    its backoff: fetch now (the fetch reads the stored record)."""

    key: Origin


@dataclass(frozen=True, slots=True)
class HoldingAgain:
    """The store answers again and holds requests for the fleet (``where``:
    the queue's key): the requests parked in memory meanwhile go there."""

    where: str


#: Everything a hold reports to the waiting room.
HoldEvent = Adopted | Released | ExpiredLeft | FoundElsewhere | HoldingAgain


class HoldEvents:
    """The relay of a hold's events: the middleware makes it, gives it to
    the hold, and connects the waiting room to it; so the hold reports
    without knowing who listens, and the room is never called by the
    object it holds. Events before a listener is connected are dropped
    (nothing waits yet)."""

    def __init__(self) -> None:
        self._listener: Callable[[HoldEvent], None] | None = None

    def connect(self, listener: Callable[[HoldEvent], None]) -> None:
        self._listener = listener

    def emit(self, event: HoldEvent) -> None:
        if self._listener is not None:
            self._listener(event)


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
    """:class:`MemoryHold`, or the fleet's hold (:data:`FLEET_HOLD`) for a
    crawl on scrapy-redis that may hold requests in Redis
    (``ROBOTSTXT_RFC_HOLD``); it finds out at spider open whether it can."""
    if config.hold == "memory" or not on_scrapy_redis(settings):
        return MemoryHold
    hold: type[MemoryHold] = load_object(FLEET_HOLD)
    return hold


class Hold(Protocol):
    """What the waiting room asks of a hold; what happens besides, the hold
    reports as :data:`HoldEvent`."""

    @property
    def holding(self) -> bool:
        """Whether requests are held outside this worker now."""

    @property
    def busy(self) -> bool:
        """Whether other workers' held requests keep the spider open."""

    @property
    def watches(self) -> bool:
        """Whether the hold wants :meth:`watch` calls (a fleet's does)."""

    async def open(self, spider: Spider) -> None: ...

    async def hold(self, key: Origin, request: Request) -> bool: ...

    def release_soon(self, key: Origin) -> None: ...

    def release_expired(self, key: Origin, limit: float) -> None: ...

    def watch(self, key: Origin, held: int, backoff: bool) -> None: ...

    def waited_since(self, request: Request) -> float: ...

    async def expired(self, key: Origin, ticket: Ticket, entry: Entry) -> bool: ...

    async def close(self, reason: str, parked: list[Request]) -> list[Request]: ...


class MemoryHold:
    """Requests wait in this worker's memory only (the
    :class:`.WaitingRoom`): nothing is held elsewhere, and nothing is
    reported. The fleet's hold extends it.

    The middleware builds the hold and gives it ``events``, the relay its
    reports go through (:class:`HoldEvents`). The runtime's ``clock`` is
    the wall clock of the tickets and the records; its ``monotonic`` the
    waiting room's."""

    def __init__(
        self,
        runtime: Runtime,
        crawler: Crawler,
        config: Config,
        shared: SharedStore,
        events: HoldEvents,
    ) -> None:
        self._runtime = runtime
        self._crawler = crawler
        self._config = config
        self._shared = shared
        self._events = events

    @property
    def holding(self) -> bool:
        """Whether requests are held outside this worker now: never."""
        return False

    @property
    def busy(self) -> bool:
        """Whether other workers' held requests keep the spider open: no."""
        return False

    @property
    def watches(self) -> bool:
        """Whether :meth:`watch` is wanted: not in memory."""
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

    def watch(self, key: Origin, held: int, backoff: bool) -> None:
        """The room holds ``held`` requests for ``key`` (0: none any more),
        in its backoff or not: nothing to watch in memory."""

    def waited_since(self, request: Request) -> float:
        """When held ``request`` first waited (its ticket's, else now), on
        the waiting room's monotonic clock."""
        since = carried(request).since
        runtime = self._runtime
        return runtime.monotonic() if since is None else runtime.monotonic_of(since)

    async def expired(self, key: Origin, ticket: Ticket, entry: Entry) -> bool:
        """Whether ``request``, once held, for ``key`` whose robots.txt is
        unreachable with no good copy (``entry``), has waited
        ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``: from when it first waited, or
        when the origin turned unreachable, whichever is later (RFC 9309
        §2.3.1.4), with :data:`DROP_TOLERANCE` for the clocks of workers."""
        return self._waited(ticket, entry)

    def _waited(self, ticket: Ticket, state: Entry | Record) -> bool:
        since = ticket.since if ticket.held is not None else None
        unreachable_since = state.unreachable_since
        if since is None or state.good or unreachable_since is None:
            return False
        now, config = self._runtime.clock(), self._config
        if now - unreachable_since >= config.allow_after:
            return False  # allowed now (RFC 9309 §2.3.1.4)
        return (
            now - max(float(since), unreachable_since) >= config.unreachable_wait - DROP_TOLERANCE
        )

    async def close(self, reason: str, parked: list[Request]) -> list[Request]:
        """The spider closed (``reason``) with ``parked`` still waiting in
        memory: they stay there, for JOBDIR or to count as abandoned."""
        return parked
