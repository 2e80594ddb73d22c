"""Crawl-delay as a floor (``ROBOTSTXT_RFC_CRAWL_DELAY``; docs/fleets.rst, "Fleets
with scrapy-redis"). ``Crawl-delay`` is not in RFC 9309: it is one of the
"other records" of §2.2.4 (OTHER-2), which this package applies when asked.

Two things keep the requests to an origin at least its crawl-delay apart:

- **the download slot**, locally: :func:`floor_slot` makes the crawl-delay
  its delay and turns its jitter off. Scrapy's jitter (``±50 %`` by
  default) would otherwise start a request after half the delay;
- **a turn per request**, for every crawler that shares a Redis store
  (:class:`Pacer`): an allowed request waits in ``process_request`` until
  the origin's next allowed start, which one Redis script reserves on the
  server's clock for all workers at once (``next:<origin>``; the
  ``RESERVE`` script of :mod:`.stores._redis_lua`). Without Redis, or while
  it fails, the turns are kept in memory.

A request waits for its turn before it enters the download slot, so that
other origins and slots go on meanwhile; it holds one of
``CONCURRENT_REQUESTS`` while it waits, as a request waiting in a delayed
slot's queue does. A turn is taken only when the slot would start the
request at once (:func:`slot_lag`): a slot that started it later would
bring it closer to the next worker's turn.
"""

from __future__ import annotations

import inspect
import logging
import time
from collections import deque
from functools import partial
from typing import TYPE_CHECKING, Any

import scrapy.core.downloader as scrapy_downloader
from scrapy.core.downloader import Slot
from scrapy.utils.defer import maybe_deferred_to_future
from twisted.internet.defer import Deferred

from ..policy import LruCache
from ..stores import RedisStore

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from scrapy.core.downloader import Downloader
    from scrapy.http import Request

    from .._runtime import Runtime
    from .._timers import Timer
    from ..policy import Entry, Origin, Origins
    from ..robotstxt import AgentRules, Token
    from ..stores import RedisFleet, SharedStore
    from ._config import Config
    from ._report import Report

logger = logging.getLogger(__name__)

#: Seconds between two looks at a download slot that would not start a
#: request at once (requests queued or transferring in it).
BUSY_POLL = 0.05
#: Origins whose memory turns are kept before the past ones are forgotten.
_MEMORY_TURNS = 1024

#: Scrapy 2.19 gives a slot a ``jitter`` (a magnitude, 0 for none); 2.13 a
#: ``randomize_delay`` flag, deprecated since (setting it warns).
_HAS_JITTER = "jitter" in inspect.signature(Slot.__init__).parameters
#: The clock of ``Slot.lastseen``: ``time.monotonic`` since Scrapy 2.14,
#: ``time.time`` before, as the downloader module imports it.
slot_clock: Callable[[], float] = getattr(scrapy_downloader, "monotonic", time.time)


def floor_slot(downloader: Downloader, slot_key: str, delay: float) -> bool:
    """Make ``delay`` the least delay of the download slot ``slot_key``,
    exactly: its jitter off, so that Scrapy never starts a request after
    less than ``delay`` (``DOWNLOAD_DELAY_JITTER``, ``RANDOMIZE_DOWNLOAD_DELAY``
    would go down to half of it). A longer delay of the slot (AutoThrottle,
    ``DOWNLOAD_DELAY``) is kept. Applies to the live slot and to the slot's
    settings, which a slot made again after Scrapy forgot an idle one reads.
    ``True`` if ``delay`` raised the slot's delay."""
    slot_settings = downloader.per_slot_settings.setdefault(slot_key, {})
    slot = downloader.slots.get(slot_key)
    if slot is not None:
        current = slot.delay
    else:
        current = float(slot_settings.get("delay", downloader.settings.getfloat("DOWNLOAD_DELAY")))
    raised = delay > current
    if raised:
        slot_settings["delay"] = delay
    if _HAS_JITTER:
        slot_settings["jitter"] = 0.0
    else:  # Scrapy 2.13
        slot_settings["randomize_delay"] = False
    if slot is not None:
        if raised:
            slot.delay = delay
        if _HAS_JITTER:
            slot.jitter = 0.0
        else:
            slot.randomize_delay = False
    return raised


def slot_lag(downloader: Downloader, slot_key: str) -> float:
    """Seconds before the download slot ``slot_key`` would start a new
    request; 0 or less when it would start it at once. :data:`BUSY_POLL`
    while requests are queued or every transfer place is taken: look again
    then."""
    slot = downloader.slots.get(slot_key)
    if slot is None:
        return 0.0
    latercall: Any = slot.latercall
    # Scrapy 2.13 keeps a fired DelayedCall (active() is False); later
    # versions set latercall back to None.
    active = getattr(latercall, "active", None)
    pending = latercall is not None and (active is None or bool(active()))
    if slot.queue or pending or slot.free_transfer_slots() <= 0:
        return BUSY_POLL
    return float(slot.delay - (slot_clock() - slot.lastseen))


class Pacer:
    """The turns of the requests to each origin that has a crawl-delay.

    :meth:`turn` is awaited by ``process_request`` once a request is
    allowed; :meth:`seed` counts the robots.txt fetch itself as a turn.
    With a Redis store in use, the turns are the fleet's (server clock);
    otherwise, and while the store fails, this crawler's (``monotonic``).
    Within one crawler, the requests to one origin take their turns one at
    a time, in the order they came: only the first asks Redis.

    ``downloader`` gives Scrapy's downloader; the runtime's ``call_later``
    and ``to_future`` (what awaits a Deferred) are the reactor's by
    default, so that tests can run it on ``twisted.internet.task.Clock``.
    """

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        shared: SharedStore,
        *,
        downloader: Callable[[], Downloader],
        to_future: Callable[[Deferred[Any]], Awaitable[Any]] = maybe_deferred_to_future,
    ) -> None:
        self._runtime = runtime
        self._config = config
        self._shared = shared
        self._downloader = downloader
        self._to_future = to_future
        store = shared.store
        #: The fleet's turns; the namespace is for held requests only.
        self._fleet: RedisFleet | None = store.fleet("") if isinstance(store, RedisStore) else None
        #: Memory turns: origin -> the next allowed start (``monotonic``).
        self._next: dict[Origin, float] = {}
        #: Per origin, the requests waiting for a turn, first in line first.
        self._lines: dict[Origin, deque[Deferred[None]]] = {}

    def delay(self, crawl_delay: float | None) -> float:
        """The delay a group's ``crawl_delay`` asks for, cut to
        ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``; 0 when crawl-delay is not applied
        (``ROBOTSTXT_RFC_CRAWL_DELAY`` off, or the group has none)."""
        if not self._config.crawl_delay or not crawl_delay:
            return 0.0
        return max(0.0, min(crawl_delay, self._config.crawl_delay_max))

    async def turn(self, key: Origin, request: Request, crawl_delay: float | None) -> None:
        """Wait until ``request`` may start: at least the crawl-delay after
        the previous request to ``key`` of any crawler sharing the store,
        and once its download slot would start it at once. Returns at once
        when crawl-delay is not applied."""
        delay = self.delay(crawl_delay)
        if not delay:
            return
        downloader = self._downloader()
        slot_key = downloader.get_slot_key(request)
        floor_slot(downloader, slot_key, delay)
        line = self._lines.setdefault(key, deque())
        mine: Deferred[None] = Deferred()
        line.append(mine)
        waited = line[0] is not mine
        try:
            if waited:
                await self._to_future(mine)
            while True:
                wait = slot_lag(downloader, slot_key)
                if wait <= 0:
                    wait = await self._reserve(key, self._spacing(downloader, slot_key, delay))
                    if wait <= 0:
                        break
                waited = True
                await self._sleep(wait)
        finally:
            first = line[0] is mine
            line.remove(mine)
            if not line:
                del self._lines[key]
            elif first and not line[0].called:  # a cancelled waiter is already called
                line[0].callback(None)
        if waited:
            self._runtime.stats.inc_value("robotstxt/crawl_delay/waited")

    async def seed(self, key: Origin, request: Request, crawl_delay: float | None) -> None:
        """Count the robots.txt fetch of ``key`` that just ended (in the slot
        of ``request``) as a turn, before any request to ``key`` takes one:
        the first page comes no sooner than the crawl-delay after it, from
        whichever crawler."""
        delay = self.delay(crawl_delay)
        if delay:
            downloader = self._downloader()
            spacing = self._spacing(downloader, downloader.get_slot_key(request), delay)
            await self._reserve(key, spacing, force=True)

    def _spacing(self, downloader: Downloader, slot_key: str, delay: float) -> float:
        """The crawl-delay, or the slot's own delay when longer
        (``DOWNLOAD_DELAY``, AutoThrottle)."""
        slot = downloader.slots.get(slot_key)
        return delay if slot is None else max(delay, slot.delay)

    async def _reserve(self, key: Origin, spacing: float, *, force: bool = False) -> float:
        """Take the next turn of ``key`` (0) or say how many seconds to wait
        before asking again: in Redis while the store is in use, else in
        memory."""
        fleet = self._fleet
        if fleet is not None and self._shared.available:
            reserve = partial(fleet.reserve, force=force)
            wait = await self._shared.fleet_call(reserve, str(key), spacing, default=None)
            if wait is not None:
                if wait <= 0:
                    # Kept in memory too: if the store fails, this crawler
                    # goes on from its own last turn.
                    self._remember(key, self._runtime.monotonic() + spacing)
                return wait
        return self._reserve_in_memory(key, spacing, force=force)

    def _reserve_in_memory(self, key: Origin, spacing: float, *, force: bool) -> float:
        now = self._runtime.monotonic()
        next_at = self._next.get(key, 0.0)
        if next_at > now and not force:
            return next_at - now
        self._remember(key, max(next_at, now) + spacing)
        return 0.0

    def _remember(self, key: Origin, next_at: float) -> None:
        if len(self._next) >= _MEMORY_TURNS:
            now = self._runtime.monotonic()
            self._next = {k: t for k, t in self._next.items() if t > now}
        self._next[key] = next_at

    async def _sleep(self, seconds: float) -> None:
        """Wait ``seconds``; a wait cancelled (the crawl stopping) takes its
        timer with it."""
        timers: list[Timer] = []
        d: Deferred[None] = Deferred(lambda _: timers[0].cancel())
        timers.append(self._runtime.call_later(seconds, lambda: d.callback(None)))
        await self._to_future(d)


class CrawlDelays:
    """Crawl-delay from robots.txt to the crawl (OTHER-2, D-17): the delay
    of the crawler's line made the download slot's (:func:`floor_slot`), the
    INFO line that says which line asks for what and what is in force, and
    the turns of the requests (:class:`Pacer`). The loader tells it of each
    robots.txt it adopts; the middleware awaits a turn for each allowed
    request."""

    def __init__(
        self,
        runtime: Runtime,
        config: Config,
        pacer: Pacer,
        *,
        downloader: Callable[[], Downloader],
        report: Report,
        origins: Origins,
        token: Token,
    ) -> None:
        self._runtime = runtime
        #: The crawler's lower-cased name (or family), whose rules are kept.
        self._token = token
        self._config = config
        self._pacer = pacer
        self._downloader = downloader
        self._report = report
        self._origins = origins
        #: Per origin, the crawl-delay its robots.txt asks for and the one in
        #: force, as the INFO line said them; as many origins as the cache.
        self._said: LruCache[Origin, tuple[float, float]] = LruCache(config.max_origins)

    def of(self, agent: AgentRules | None) -> float:
        """The delay in force for the crawler whose rules are ``agent``: its
        crawl-delay cut to ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``, 0 when none
        is applied."""
        return self._pacer.delay(None if agent is None else agent.crawl_delay)

    async def turn(self, key: Origin, request: Request, agent: AgentRules) -> None:
        """Wait for ``request``'s turn at ``key`` (:meth:`Pacer.turn`)."""
        await self._pacer.turn(key, request, agent.crawl_delay)

    async def refetch_turn(self, key: Origin, request: Request, previous: Entry | None) -> bool:
        """Fetching again the robots.txt of an origin with a crawl-delay is
        one of its requests: it takes a turn, by the delay ``previous`` (the
        cache's entry) gives the crawler. Whether it took one."""
        rules = None if previous is None else previous.rules
        agent = None if rules is None else rules.get(self._token)
        if not self.of(agent):
            return False
        assert agent is not None
        await self._pacer.turn(key, request, agent.crawl_delay)
        return True

    async def adopted(
        self, key: Origin, trigger: Request, agent: AgentRules, *, seed: bool = False
    ) -> None:
        """robots.txt of ``key``, fetched or stored, gives the crawler
        ``agent``'s rules: apply its crawl-delay to the download slot, and
        say it. ``seed``: this crawler's first fetch counts as the origin's
        first turn, taken before the record is stored, so that no crawler
        sharing the store sends a page sooner than the crawl-delay after it
        (:meth:`Pacer.seed`)."""
        self._say(key, agent, self._apply(trigger, agent))
        if seed:
            await self._pacer.seed(key, trigger, agent.crawl_delay)

    def _apply(self, trigger: Request, agent: AgentRules) -> bool:
        """With ``ROBOTSTXT_RFC_CRAWL_DELAY``, the crawl-delay becomes the
        download slot's delay, capped by ``ROBOTSTXT_RFC_CRAWL_DELAY_MAX``;
        it never shortens a longer one. The slot's jitter is turned off, so
        that it never starts a request sooner than the delay
        (:func:`floor_slot`). ``True`` if the delay raised the slot's."""
        delay = self.of(agent)
        if not delay:
            return False
        downloader = self._downloader()
        slot_key = downloader.get_slot_key(trigger)
        if not floor_slot(downloader, slot_key, delay):
            return False
        self._runtime.stats.inc_value("robotstxt/crawl_delay/applied")
        site = self._origins(trigger.url)
        if site is not None:
            self._report.row(site).crawl_delay_applied = delay
        logger.debug(
            "Download slot %(slot)r: crawl-delay %(delay)s s from robots.txt",
            {"slot": slot_key, "delay": delay},
            extra=self._runtime.log,
        )
        return True

    def _say(self, key: Origin, agent: AgentRules, raised: bool) -> None:
        """One INFO line for an origin whose robots.txt asks the crawler for
        a crawl-delay, naming the line and the user-agent lines it belongs
        to (D-17): the delay in force (``raised``: it raised the download
        slot's delay; else the slot's own delay is already as long), or the
        setting that keeps the crawl from applying it. Said again only if
        robots.txt, fetched again, asks for another delay."""
        line = agent.delay
        if line is None or not line.seconds:
            return
        asked = line.seconds
        delay = self.of(agent)
        if self._said.get(key) == (asked, delay):
            return
        self._said.put(key, (asked, delay))
        if not delay:
            why = (
                "ROBOTSTXT_RFC_CRAWL_DELAY_MAX is 0"
                if self._config.crawl_delay
                else "ROBOTSTXT_RFC_CRAWL_DELAY is off"
            )
            effect = f"this crawl does not apply it ({why})"
        elif delay < asked:
            effect = f"{delay:g} s in force (ROBOTSTXT_RFC_CRAWL_DELAY_MAX)"
        else:
            effect = f"{delay:g} s in force"
        if delay and not raised:
            effect += "; the download slot's own delay is already as long"
        logger.info(
            "%(url)s asks for a Crawl-delay of %(asked)g s (line %(line)d, for %(agents)s); "
            "%(effect)s",
            {
                "url": key.robots_url,
                "asked": asked,
                "line": line.line,
                "agents": ", ".join(repr(name) for name in line.agents),
                "effect": effect,
            },
            extra=self._runtime.log,
        )
