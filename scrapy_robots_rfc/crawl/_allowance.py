"""What an allowed request sets going, when its verdict says there is
something (:attr:`.Allowed.extras`): its usage preferences in its meta
(U-6, :mod:`.crawl._usage_gate`), the fetch's response for the spider's own
request for a robots.txt (:mod:`.crawl._kept_responses`), and its
crawl-delay turn (OTHER-2, :mod:`.crawl._crawl_delay`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..robotstxt import ROBOTS_TXT_PATH
from ._kept_responses import KeptResponses

if TYPE_CHECKING:
    from scrapy.http import Request, Response

    from ..policy import Origin
    from ._config import Config
    from ._crawl_delay import CrawlDelays
    from ._outcomes import Allowed
    from ._usage_gate import UsageGate


class Allowance:
    """Sets going what an allowed request comes with."""

    def __init__(
        self, config: Config, usage: UsageGate, kept: KeptResponses, delays: CrawlDelays
    ) -> None:
        self._usage_on = bool(config.usage)
        self._delays_on = config.crawl_delay
        self._usage = usage
        self._kept = kept
        self._delays = delays

    async def grant(self, key: Origin, request: Request, allowed: Allowed) -> Response | None:
        """``None`` to let ``request`` through, once what it comes with is
        set going; or, for the spider's request for ``key``'s robots.txt,
        the fetch's response, if it waited for it (its share)."""
        entry, agent, share = allowed.entry, allowed.agent, allowed.share
        if self._usage_on and entry is not None:  # only a crawl for named categories (U-6)
            self._usage.on_request(request, key, agent, entry.url)
        if share is None and ROBOTS_TXT_PATH in request.url:
            share = KeptResponses.share_of(request, None)
        if share is not None:  # the spider's request for this robots.txt
            served = self._kept.serve(key, request, share)
            if served is not None:
                return served
        if agent is not None and agent.crawl_delay and self._delays_on:
            await self._delays.turn(key, request, agent)  # Crawl-delay, across the fleet
        return None
