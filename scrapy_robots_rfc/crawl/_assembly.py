"""Building the crawl's parts: :func:`assemble` makes each part once, from
the one :class:`.Config`, and hands each what it needs; the middleware
calls it and keeps what it returns (:class:`Parts`). Only this module knows
the concrete classes, the way Scrapy's ``HttpCacheMiddleware`` loads a
policy and a storage; the parts never call back into it, nor into the
middleware that holds them.

A crawl that waits in memory and a fleet differ here only, by composition:
the fleet (:mod:`.fleet`, loaded by name, :func:`.fleet_class`) is given to
the parts that hold requests, or ``None`` is.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from .. import policy
from ..policy import ROBOTS_TXT, TDMREP_JSON, Origin, Origins
from ..stores import SharedStore, store_named
from ._allowance import Allowance
from ._announce import Announcer
from ._crawl_delay import CrawlDelays, Pacer
from ._crawler_names import CrawlerNames
from ._engine import EngineGate
from ._fetcher import Fetcher
from ._holding import HoldEvents, fleet_class
from ._kept_responses import KeptResponses
from ._lives import Lives
from ._page_gate import PageGate
from ._progress import Progress
from ._report import Report
from ._robots_loader import RobotsLoader
from ._tdm_gate import TdmGate
from ._tdm_loader import TDM_MAX_BYTES, TdmLoader
from ._usage_gate import UsageGate
from ._verdicts import Verdicts
from ._waits import Waits

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from .._runtime import Runtime
    from ..policy import Document
    from ._config import Config
    from ._holding import Holding
    from ._lives import Loader


@dataclass(frozen=True, slots=True)
class Parts:
    """Every part of one crawl, as :func:`assemble` wired them."""

    origins: Origins
    names: CrawlerNames
    verdicts: Verdicts
    waits: Waits
    allowance: Allowance
    lives: Lives
    holding: Holding | None
    usage: UsageGate
    pages: PageGate
    #: The TDMRep file's verdicts in a crawl that mines
    #: (``ROBOTSTXT_RFC_TDM``); ``None`` otherwise: nothing built for it.
    tdm: TdmGate | None
    kept: KeptResponses
    shared: SharedStore
    engine: EngineGate
    progress: Progress
    report: Report


def assemble(crawler: Crawler, config: Config, runtime: Runtime) -> Parts:
    """Build every part of the crawl once, each given what it needs."""
    names = CrawlerNames(config, runtime)
    report = Report(config.max_origins, runtime.stats)
    cache: policy.LruCache[Origin, policy.Entry] = policy.LruCache(
        config.max_origins,
        max_bytes=config.cache_bytes,
        weigh=policy.charge,
        final=policy.Entry.settled,
    )
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
    kept = KeptResponses(
        runtime, follows_redirects=config.redirect_enabled, maxsize=config.download_maxsize
    )

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
    announcer = Announcer(runtime, config.unreachable_wait)
    engine = EngineGate(runtime, lambda request: crawler.engine.crawl(request))
    usage = UsageGate(runtime, config, report, origins)
    events = HoldEvents()
    # Requests from the scheduler wait in this worker's memory, or, for a
    # fleet on scrapy-redis, in Redis: the fleet given, or not.
    fleet = fleet_class(config, crawler.settings)
    holding: Holding | None = None
    if fleet is not None:
        holding = fleet(
            runtime,
            crawler,
            config,
            shared,
            events,
            loader=loader,
            cache=cache,
            announcer=announcer,
        )
    loaders: dict[Document, Loader] = {ROBOTS_TXT: loader}
    entries: dict[Document, Callable[[Origin], policy.Entry | None]] = {ROBOTS_TXT: cache.get}
    tdm_cache: policy.LruCache[Origin, policy.TdmEntry] | None = None
    if config.tdm:
        # The second document (T-2): its own fetcher (its stats under
        # robotstxt/tdm/, its fixed size bound) and cache; the same store,
        # leases, status policy and lives as robots.txt.
        tdm_cache = policy.LruCache(
            config.max_origins,
            max_bytes=config.cache_bytes,
            weigh=policy.tdm_charge,
            final=policy.tdm_settled,
        )
        loaders[TDMREP_JSON] = TdmLoader(
            runtime,
            config,
            tdm_cache,
            report,
            Fetcher(runtime, crawler, replace(config, max_bytes=TDM_MAX_BYTES), TDMREP_JSON),
            shared,
        )
        entries[TDMREP_JSON] = _status_of(tdm_cache)
    lives = Lives(
        runtime,
        config,
        signals=crawler.signals,
        entries=entries,
        loaders=loaders,
        kept=kept,
        announcer=announcer,
        engine=engine,
        names=names,
        report=report,
        holding=holding,
    )
    events.connect(lives.on_fleet)
    verdicts = Verdicts(
        runtime,
        config,
        cache=cache,
        origins=origins,
        names=names,
        report=report,
        refresher=lives,
    )
    tdm = None
    if tdm_cache is not None:
        tdm = TdmGate(
            runtime, config, cache=tdm_cache, origins=origins, report=report, refresher=lives
        )
    return Parts(
        origins=origins,
        names=names,
        verdicts=verdicts,
        waits=Waits(
            runtime,
            verdicts=verdicts,
            lives=lives,
            kept=kept,
            report=report,
            holding=holding,
            tdm=tdm,
        ),
        allowance=Allowance(config, usage, kept, delays),
        lives=lives,
        holding=holding,
        usage=usage,
        pages=PageGate(runtime, config, report, origins),
        tdm=tdm,
        kept=kept,
        shared=shared,
        engine=engine,
        progress=Progress(runtime, lives, announcer, config.logstats_interval),
        report=report,
    )


def _status_of(
    cache: policy.LruCache[Origin, policy.TdmEntry],
) -> Callable[[Origin], policy.Entry | None]:
    """How :class:`.Lives` reads the status part of a TDMRep file's entry."""

    def status(key: Origin) -> policy.Entry | None:
        found = cache.get(key)
        return None if found is None else found.entry

    return status
