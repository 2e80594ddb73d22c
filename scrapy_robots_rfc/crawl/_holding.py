"""What a crawl on scrapy-redis may add: requests that wait for robots.txt
held in Redis, where every worker of the fleet reaches them, instead of in
one worker's memory (docs/fleets.rst, "Fleets with scrapy-redis").

This module is the interface between the crawl layer and the optional
:mod:`.fleet`: :class:`Holding`, what the crawl asks of a fleet, and the
events a fleet reports (:data:`HoldEvent`) through :class:`HoldEvents`, a
relay that the assembly wires to :class:`.Lives`. A memory crawl has no
holding at all: ``holding`` is ``None`` in every part that takes one, decided
once when the crawl is wired (:func:`fleet_class`), never by a flag or an
object that does nothing. The middleware never imports the fleet: the
assembly loads it by name, the way Scrapy loads its components from
settings, and only for a crawl whose scheduler is scrapy-redis's and
``ROBOTSTXT_RFC_HOLD`` is not ``"memory"``. Deleting ``fleet/`` leaves every
other crawl as it is.

A held request keeps when it first waited (its :class:`.Ticket`'s
``since``, wall clock), so that the requests of an origin that stays
unreachable are dropped after ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` (RFC 9309
§2.3.1.4) from then on, in any worker; :data:`DROP_TOLERANCE` allows for the
workers' clocks.

Times in the events are seconds since the epoch: the fleet's clock, which
every worker shares.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from scrapy.utils.misc import load_object

if TYPE_CHECKING:
    from collections.abc import Callable, Container

    from scrapy import Request, Spider
    from scrapy.settings import BaseSettings

    from ..policy import Origin, Target
    from ..robotstxt import Token
    from ._config import Config
    from ._outcomes import Dropped
    from ._tickets import Ticket

#: Seconds of clock skew between workers that the drop rule allows for.
DROP_TOLERANCE = 2.0
#: The class that holds requests in Redis for a fleet on scrapy-redis.
FLEET = "scrapy_robots_rfc.fleet.Fleet"


# -- what a fleet reports --------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Adopted:
    """This worker adopted ``target``, whose held requests a worker that
    died left: ``trigger`` stands for them, the oldest of which began to
    wait at ``since``."""

    target: Target
    trigger: Request
    since: float


@dataclass(frozen=True, slots=True)
class Released:
    """``count`` of the requests held for ``target`` are no longer held:
    another worker released them."""

    target: Target
    count: int


@dataclass(frozen=True, slots=True)
class ExpiredLeft:
    """After :meth:`Holding.expire`: ``left`` requests are still held for
    ``target`` (``None``: unknown, the store failed), the oldest since
    ``oldest``."""

    target: Target
    left: int | None
    oldest: float | None


@dataclass(frozen=True, slots=True)
class FoundElsewhere:
    """Another worker reached ``target``'s document while this one waits in
    its backoff: fetch now (the fetch reads the stored record)."""

    target: Target


@dataclass(frozen=True, slots=True)
class HoldingAgain:
    """The store answers again and holds requests for the fleet (``where``:
    the queue's key): the requests parked in memory meanwhile go there."""

    where: str


#: Everything a fleet reports.
HoldEvent = Adopted | Released | ExpiredLeft | FoundElsewhere | HoldingAgain


class HoldEvents:
    """The relay of a fleet's events: the assembly makes it, gives it to the
    fleet, and connects :class:`.Lives` to it; so the fleet reports without
    knowing who listens, and is never the caller of the object that holds
    it. Events before a listener is connected are dropped (nothing waits
    yet)."""

    def __init__(self) -> None:
        self._listener: Callable[[HoldEvent], None] | None = None

    def connect(self, listener: Callable[[HoldEvent], None]) -> None:
        self._listener = listener

    def emit(self, event: HoldEvent) -> None:
        if self._listener is not None:
            self._listener(event)


class Holding(Protocol):
    """What the crawl asks of a fleet that holds requests in Redis; what
    happens besides, the fleet reports as :data:`HoldEvent`."""

    @property
    def holding(self) -> bool:
        """Whether requests are held outside this worker now."""

    @property
    def busy(self) -> bool:
        """Whether other workers' held requests keep the spider open."""

    async def open(self, spider: Spider) -> None:
        """The spider opened: find out whether requests can be held."""

    async def admit(
        self,
        target: Target,
        request: Request,
        ticket: Ticket | None,
        token: Token,
        keep: Container[Origin],
    ) -> Dropped | None:
        """A request missed the cache: what the store knows of ``target`` is
        read into the cache if another worker decided it (one store read,
        shared by the requests that miss it at once, unless this worker
        waits for it already: ``keep``); :class:`.Dropped` if the request
        was held as long as it may wait (RFC 9309 §2.3.1.4)."""

    async def hold(self, target: Target, copy: Request) -> bool:
        """Hold ``copy`` in Redis for ``target``; ``False`` when it cannot
        be (it waits in this worker's memory)."""

    def release(self, target: Target) -> None:
        """``target`` is decided: its held requests go back to the crawl."""

    def expire(self, target: Target, limit: float) -> None:
        """Send back, to be dropped, the requests held for ``target`` since
        ``limit`` or earlier; answered with :class:`ExpiredLeft`."""

    async def close(self, reason: str, parked: list[Request]) -> list[Request]:
        """The spider closed (``reason``) with ``parked`` waiting in memory:
        hold what can be held and hand every origin over to the fleet; what
        could not be held is returned (``JOBDIR``'s, or abandoned)."""


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


def fleet_class(config: Config, settings: BaseSettings) -> type | None:
    """The fleet's class (:data:`FLEET`), loaded by name, for a crawl on
    scrapy-redis that may hold requests in Redis (``ROBOTSTXT_RFC_HOLD``);
    ``None`` for every other crawl. The fleet finds out at spider open
    whether it can hold."""
    if config.hold == "memory" or not on_scrapy_redis(settings):
        return None
    found: type = load_object(FLEET)
    return found
