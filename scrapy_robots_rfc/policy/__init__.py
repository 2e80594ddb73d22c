"""What a robots.txt fetch means and for how long, pure and sans-I/O: the
status policy, lifetimes and backoff of RFC 9309 §2.3.1 and §2.4, the cache
entries, origins (§2.3: one robots.txt per scheme, host and port) and
verdicts. Imports only :mod:`..robotstxt`; never Scrapy, Twisted or a store;
time is always passed in.
"""

from __future__ import annotations

from ._origin import Origin, Origins, origin
from ._policy import (
    DEFAULT_TTL,
    MAX_RETRY_DELAY,
    Answer,
    Entry,
    LruCache,
    Redirects,
    State,
    classify,
    entry_for,
    lifetime,
    retry_after,
)
from ._verdict import Verdict

__all__ = [
    "DEFAULT_TTL",
    "MAX_RETRY_DELAY",
    "Answer",
    "Entry",
    "LruCache",
    "Origin",
    "Origins",
    "Redirects",
    "State",
    "Verdict",
    "classify",
    "entry_for",
    "lifetime",
    "origin",
    "retry_after",
]
