"""While requests wait for an unreachable robots.txt, an INFO line at
Scrapy's log-stats interval (``LOGSTATS_INTERVAL``) says how many wait, for
how many origins, and when the next try and the first drop are due: a wait
of ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` (600 s by default) is never silent
between the WARNINGs of failed fetches (RFC 9309 §2.3.1.4: the crawler keeps
to a full disallow, and tries again). The undecided origins say what waits
(:meth:`.Lives.snapshot`), the announcer words it
(:meth:`.Announcer.waiting`); this part only keeps time.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .._runtime import Runtime
    from .._timers import Timer
    from ._announce import Announcer
    from ._lives import Lives


class Progress:
    """Says, every ``interval`` seconds while the spider is open, what waits
    for an unreachable robots.txt; nothing when nothing does, and nothing
    at all when ``interval`` is 0 (``LOGSTATS_INTERVAL = 0``)."""

    def __init__(
        self, runtime: Runtime, lives: Lives, announcer: Announcer, interval: float
    ) -> None:
        self._runtime = runtime
        self._lives = lives
        self._announcer = announcer
        self._interval = interval
        self._timer: Timer | None = None

    def start(self) -> None:
        if self._interval > 0 and self._timer is None:
            self._timer = self._runtime.call_later(self._interval, self._tick)

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _tick(self) -> None:
        self._timer = None
        waits = self._lives.snapshot()
        if waits:
            self._announcer.waiting(waits)
        self.start()
