"""What the crawl layer's tests share: the range of every numeric setting
and how its message says it, for the checks of the settings
(test_config.py) and the crawls at each largest value
(test_setting_ranges_e2e.py)."""

from __future__ import annotations

import math

from scrapy_robots_rfc.crawl._config import RANGES

#: What each range's message says is allowed.
REDIRECTS = "an integer from 0 to 20 (redirect hops)"
MAX_BYTES_ALLOWED = (
    "an integer from 512000 to 33554432 (bytes; RFC 9309 §2.5 requires at least 500 KiB; "
    "at most 32 MiB)"
)
CACHE_TTL = "a number from 1 to 31536000 (seconds; at most 365 days)"
ORIGINS = "an integer from 1 to 10000000 (origins)"
CACHE_BYTES = "an integer from 1048576 to 1099511627776 (bytes; at most 1 TiB)"
TIMEOUT = "a number from 0.001 to 3600 (seconds; at most an hour)"
RETRY = "a number from 0.001 to 86400 (seconds; at most a day)"
WAIT = "a number from 0 to 2592000 (seconds; at most 30 days)"
DELAY_MAX = "a number from 0 to 86400 (seconds; at most a day)"
DAYS = "a number from 0 to 3650 (days; at most 10 years)"
LEASE = "a number from 1.5 to 3600 (seconds; at most an hour)"
PARK_AFTER = "a number from 0 to 60 (seconds; at most a minute)"
STORE_TTL = (
    "a number from 86400 to 346896000 (seconds; at least ROBOTSTXT_RFC_CACHE_TTL; "
    "at most 4015 days)"
)

#: Each numeric setting: its field, its largest value, and the maximum as the
#: message says it. test_config.py checks each message,
#: test_setting_ranges_e2e.py crawls with each.
MAXIMA = [
    ("ROBOTSTXT_RFC_MAX_REDIRECTS", "max_redirects", 20, REDIRECTS),
    ("ROBOTSTXT_RFC_MAX_BYTES", "max_bytes", 32 * 1024 * 1024, MAX_BYTES_ALLOWED),
    ("ROBOTSTXT_RFC_CACHE_TTL", "cache_ttl", 365 * 86400, CACHE_TTL),
    ("ROBOTSTXT_RFC_MAX_ORIGINS", "max_origins", 10_000_000, ORIGINS),
    ("ROBOTSTXT_RFC_CACHE_BYTES", "cache_bytes", 1024**4, CACHE_BYTES),
    ("ROBOTSTXT_RFC_TIMEOUT", "timeout", 3600, TIMEOUT),
    ("ROBOTSTXT_RFC_UNREACHABLE_RETRY", "unreachable_retry", 86400, RETRY),
    ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", "unreachable_wait", 30 * 86400, WAIT),
    ("ROBOTSTXT_RFC_CRAWL_DELAY_MAX", "crawl_delay_max", 86400, DELAY_MAX),
    ("ROBOTSTXT_RFC_UNREACHABLE_DAYS", "unreachable_days", 3650, DAYS),
    ("ROBOTSTXT_RFC_LEASE", "lease", 3600, LEASE),
    ("ROBOTSTXT_RFC_PARK_AFTER", "park_after", 60, PARK_AFTER),
    ("ROBOTSTXT_RFC_STORE_TTL", "store_ttl", 4015 * 86400, STORE_TTL),
]


def next_up(largest: float, attribute: str) -> float:
    """The next value a setting can take above ``largest``: one more for
    an integer, the next float for a number."""
    integer = RANGES[attribute].kind is int
    return largest + 1 if integer else math.nextafter(float(largest), math.inf)
