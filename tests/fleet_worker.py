"""One worker of a fleet on scrapy-redis, for tests/fleet/test_fleet_e2e.py.

``python tests/fleet_worker.py`` crawls what the shared scrapy-redis queue
gives it, with scrapy-redis's scheduler and dupefilter and the add-on, the
way README.rst "Fleets with scrapy-redis" sets a fleet up:

- ``FLEET_SETTINGS``: JSON of settings over :data:`SETTINGS` (``REDIS_URL``
  and ``ROBOTSTXT_RFC_STORE`` at least);
- ``FLEET_NAME``: the worker's name, in its User-Agent, so that the site's
  hit log tells the workers apart;
- ``FLEET_EVENTS``: a file that gets one JSON line per page crawled
  (``{"ev": "page", "url": ...}``) and per request that failed
  (``{"ev": "fail", "url": ..., "why": ...}``).

It prints ``RESULT {json}`` (its ``robotstxt/*`` stats and a few others)
when the crawl ends. Importing it runs nothing: the test uses
:class:`FleetSpider` to seed the queue.
"""

from __future__ import annotations

import json
import os
import sys
from typing import Any
from urllib.parse import urlsplit

from scrapy import Request
from scrapy.utils.httpobj import urlparse_cached
from scrapy_redis.spiders import RedisSpider

#: The settings every worker has; README.rst "Fleets with scrapy-redis".
SETTINGS: dict[str, Any] = {
    "ROBOTSTXT_OBEY": True,
    "ADDONS": {"scrapy_robots_rfc.Addon": 100},
    "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
    "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
    # Without it, each worker that stops empties the shared queue.
    "SCHEDULER_PERSIST": True,
    "DOWNLOADER_MIDDLEWARES": {"tests.fleet_worker.SlotPerOrigin": 50},
    "ROBOTSTXT_RFC_CRAWL_DELAY": True,
    "ROBOTSTXT_RFC_LEASE": 2,
    "ROBOTSTXT_RFC_UNREACHABLE_RETRY": 1,
    # RedisSpider closes a worker idle this long (seconds), once nothing is
    # held in the fleet any more.
    "MAX_IDLE_TIME_BEFORE_CLOSE": 3,
    "CONCURRENT_REQUESTS": 4,
    "RETRY_ENABLED": False,
    "TELNETCONSOLE_ENABLED": False,
    "REMOTE_CONTROL_ENABLED": False,
    "TWISTED_REACTOR": "twisted.internet.asyncioreactor.AsyncioSelectorReactor",
    "LOG_LEVEL": "INFO",
}
#: The stats that RESULT gives, besides every ``robotstxt/*`` one.
STATS = ("finish_reason", "downloader/request_count", "log_count/ERROR")


class SlotPerOrigin:
    """README.rst's recipe: one download slot per ``host:port``, so that
    origins that share a host name (here every origin is 127.0.0.1) keep
    their crawl-delays apart."""

    def process_request(self, request: Request, spider: Any = None) -> None:
        request.meta.setdefault("download_slot", urlparse_cached(request).netloc)


class FleetSpider(RedisSpider):
    """Crawls what the queue gives; each page asks for its origin's ``/p0``
    again, always a duplicate, so that the shared dupefilter is used."""

    name = "fleet"
    #: Nothing is ever pushed here: the test seeds the scheduler's queue.
    redis_key = "fleet:start_urls"

    def __init__(self, *args: Any, events: str | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.events = events

    def record(self, **event: Any) -> None:
        if self.events is not None:
            with open(self.events, "a", encoding="utf-8") as f:
                f.write(json.dumps(event) + "\n")

    def parse(self, response: Any) -> Any:
        self.record(ev="page", url=response.url)
        parts = urlsplit(response.url)
        yield Request(f"{parts.scheme}://{parts.netloc}/p0", errback=self.failed)

    def failed(self, failure: Any) -> None:
        self.record(ev="fail", url=failure.request.url, why=str(failure.value))


def main() -> None:
    from scrapy.crawler import CrawlerProcess

    name = os.environ["FLEET_NAME"]
    settings = {**SETTINGS, "USER_AGENT": f"FleetBot/1.0 ({name})"}
    settings.update(json.loads(os.environ["FLEET_SETTINGS"]))
    process = CrawlerProcess(settings)
    crawler = process.create_crawler(FleetSpider)
    process.crawl(crawler, events=os.environ["FLEET_EVENTS"])
    process.start()
    assert crawler.stats is not None
    stats = crawler.stats.get_stats()
    result = {k: v for k, v in stats.items() if k.startswith("robotstxt/") or k in STATS}
    print("RESULT " + json.dumps(result, default=str), flush=True)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    main()
