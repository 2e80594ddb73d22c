"""What every part of one crawl shares at run time: its stats, its clocks,
its timers, how work runs in the background, and the spider. One
:class:`Runtime` is made by the middleware and handed to each part, instead
of the same five arguments to each; tests build one with
``twisted.internet.task.Clock`` to drive the timers.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from scrapy.utils.defer import deferred_from_coro

from ._timers import call_later

if TYPE_CHECKING:
    from collections.abc import Callable, Coroutine

    from scrapy import Spider
    from scrapy.statscollectors import StatsCollector

    from ._timers import Timer


@dataclass(eq=False)
class Runtime:
    """The crawl's stats collector, its wall clock (cache lifetimes,
    ``Retry-After`` dates, records shared between crawlers), its monotonic
    clock (how long a request waited), ``call_later`` for timers, and the
    spider once it opened (for the log lines' ``extra``). ``start_soon``
    runs a coroutine in the background, on the reactor (Scrapy's
    ``deferred_from_coro``)."""

    stats: StatsCollector
    clock: Callable[[], float] = time.time
    monotonic: Callable[[], float] = time.monotonic
    call_later: Callable[[float, Callable[[], None]], Timer] = field(default=call_later)
    start_soon: Callable[[Coroutine[Any, Any, Any]], object] = field(default=deferred_from_coro)
    #: ``None`` until the spider opens.
    spider: Spider | None = None

    def monotonic_of(self, wall: float) -> float:
        """``wall`` (seconds since the epoch: a ticket's time, a stored
        record's) on the monotonic clock that times waits: how long ago it
        is counts, so a time saved before a restart reads right; a time
        ahead of the wall clock is now."""
        return self.monotonic() - max(0.0, self.clock() - wall)

    def wall_of(self, monotonic: float) -> float:
        """A time of the monotonic clock in seconds since the epoch, to be
        saved with a request (its ticket) or shared with other workers."""
        return self.clock() - (self.monotonic() - monotonic)

    @property
    def log(self) -> dict[str, Any]:
        """The ``extra`` of a log line: the spider, as Scrapy's own lines
        carry it."""
        return {"spider": self.spider}
