"""Building the crawl's parts: :func:`assemble` makes each part once, from
the one :class:`.Config`, and hands each what it needs; the middleware
calls it and keeps what it returns (:class:`Parts`). Only this module knows
the concrete classes, the way Scrapy's ``HttpCacheMiddleware`` loads a
policy and a storage; the parts never call back into it, nor into the
middleware that holds them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import policy
from ..policy import Origin, Origins
from ..stores import SharedStore, store_named
from ._allowance import Allowance
from ._announce import Announcer
from ._crawl_delay import CrawlDelays, Pacer
from ._crawler_names import CrawlerNames
from ._fetcher import Fetcher
from ._holding import HoldEvents, MemoryHold, hold_class
from ._kept_responses import KeptResponses
from ._page_gate import PageGate
from ._parking import Parking
from ._progress import Progress
from ._report import Report
from ._robots_loader import RobotsLoader
from ._usage_gate import UsageGate
from ._verdicts import Verdicts
from ._waiting_room import EngineGate, WaitingRoom

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

    from .._runtime import Runtime
    from ._config import Config


@dataclass(frozen=True, slots=True)
class Parts:
    """Every part of one crawl, as :func:`assemble` wired them."""

    names: CrawlerNames
    report: Report
    cache: policy.LruCache[Origin, policy.Entry]
    origins: Origins
    shared: SharedStore
    usage: UsageGate
    pages: PageGate
    kept: KeptResponses
    delays: CrawlDelays
    hold: MemoryHold
    engine: EngineGate
    room: WaitingRoom
    progress: Progress
    parking: Parking
    verdicts: Verdicts
    allowance: Allowance


def assemble(crawler: Crawler, config: Config, runtime: Runtime) -> Parts:
    """Build every part of the crawl once, each given what it needs."""
    names = CrawlerNames(config, runtime)
    report = Report(config.max_origins, runtime.stats)
    cache: policy.LruCache[Origin, policy.Entry] = policy.LruCache(config.max_origins)
    origins = Origins()
    # Built only: the store is opened when the spider opens, off the reactor.
    store = store_named(
        config.store,
        config.jobdir,
        crawler=crawler,
        lease=config.lease,
        ttl=config.store_ttl,
        fetch_bound=config.fetch_bound,
    )
    shared = SharedStore(store, runtime)
    kept = KeptResponses(runtime, follows_redirects=config.redirect_enabled)

    def downloader() -> Any:
        return crawler.engine.downloader

    pacer = Pacer(runtime, config, shared, downloader=downloader)
    delays = CrawlDelays(
        runtime,
        config,
        pacer,
        downloader=downloader,
        report=report,
        origins=origins,
        token=names.token,
    )
    loader = RobotsLoader(
        runtime,
        crawler,
        config,
        cache,
        report,
        Fetcher(runtime, crawler, config),
        shared,
        delays=delays,
        token=names.token,
    )
    events = HoldEvents()
    #: Where requests from the scheduler wait: in memory, or in Redis.
    hold = hold_class(config, crawler.settings)(runtime, crawler, config, shared, events)
    engine = EngineGate(runtime, lambda request: crawler.engine.crawl(request))
    announcer = Announcer(runtime, config.unreachable_wait)
    room = WaitingRoom(
        runtime,
        config,
        cache=cache,
        loader=loader,
        hold=hold,
        kept=kept,
        announcer=announcer,
        engine=engine,
        names=names,
        report=report,
    )
    events.connect(room.on_hold_event)
    usage = UsageGate(runtime, config, report, origins)
    return Parts(
        names=names,
        report=report,
        cache=cache,
        origins=origins,
        shared=shared,
        usage=usage,
        pages=PageGate(runtime, config, report, origins),
        kept=kept,
        delays=delays,
        hold=hold,
        engine=engine,
        room=room,
        progress=Progress(runtime, room, announcer, config.logstats_interval),
        parking=Parking(crawler.signals, runtime, room, hold, marks=type(hold) is not MemoryHold),
        verdicts=Verdicts(
            runtime,
            config,
            cache=cache,
            origins=origins,
            names=names,
            report=report,
            refresher=room,
        ),
        allowance=Allowance(config, usage, kept, delays),
    )
