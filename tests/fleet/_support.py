"""What the fleet tests share: the robots.txt they serve, the settings of a
crawl on scrapy-redis's scheduler, the package's Redis keys, and the skip
of a module whose packages are not installed."""

from __future__ import annotations

import importlib
import os
from typing import Any

import pytest

from scrapy_robots_rfc.stores._redis_lua import KEY_PREFIX

ROBOTS = b"User-agent: *\nDisallow: /private\n"


def need(module: str) -> Any:
    """The module ``module``, imported; without it the test module that asks
    skips, except under CI, where it fails."""
    try:
        return importlib.import_module(module)
    except ImportError:
        message = f"{module} is not installed: the fleet tests need it (the test extra)"
        if os.environ.get("CI"):
            raise ImportError(message + "; under CI they must run, not skip") from None
        pytest.skip(message, allow_module_level=True)


def keys(client: Any, kind: str) -> list[str]:
    return sorted(k.decode() for k in client.scan_iter(f"{KEY_PREFIX}{kind}*"))


#: scrapy-redis 0.9.1 passes ``spider`` to ``StatsCollector.inc_value``,
#: which Scrapy 2.19 deprecates.
scrapy_redis_warnings = pytest.mark.filterwarnings(
    "ignore::scrapy.exceptions.ScrapyDeprecationWarning"
)


def scrapy_redis(url: str, **settings: Any) -> dict[str, Any]:
    """Settings of a crawl on scrapy-redis's scheduler, with the store
    ``url`` (README.rst, "Fleets with scrapy-redis")."""
    return {
        "SCHEDULER": "scrapy_redis.scheduler.Scheduler",
        "DUPEFILTER_CLASS": "scrapy_redis.dupefilter.RFPDupeFilter",
        "REDIS_URL": url,
        "ROBOTSTXT_RFC_STORE": url,
        **settings,
    }
