"""What a robots.txt fetch means, and for how long: the status policy, cache
lifetimes and retry backoff of RFC 9309 §2.3.1 and §2.4, as DECISIONS.md
settles them.

Pure: no I/O, no Scrapy import, and the time is always passed in, so that
tests drive it with a fake clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from .matcher import AgentRules

#: What a fetch outcome allows, before any rule is looked at.
Kind = Literal["rules", "allow_all", "unreachable"]

#: RFC 9309 §2.4: "SHOULD NOT use a cached version for more than 24 hours".
DEFAULT_TTL = 24 * 3600.0
#: An origin's copy is not re-fetched more often than this, whatever
#: ``Cache-Control`` says (``max-age=0`` would otherwise mean one fetch per
#: request). Our decision; CACHE-3 lets max-age shorten the lifetime.
MIN_LIFETIME = 60.0
#: Backoff between fetches of an unreachable robots.txt never grows beyond
#: this; a ``Retry-After`` is cut to the cache lifetime (RFC 9309 §2.4).
MAX_RETRY_DELAY = 3600.0
#: HTTP-5, HTTP-7: after this long unreachable with no good copy ever seen,
#: the origin is treated as having no robots.txt (RFC 9309 §2.3.1.4 "a
#: reasonably long period of time (for example, 30 days)").
UNREACHABLE_ALLOW_AFTER = 30 * 24 * 3600.0

_DELTA_SECONDS = re.compile(rb"\s*([0-9]+)\s*")


def classify(status: int) -> Literal["parse", "redirect", "allow_all", "unreachable"]:
    """The policy for an HTTP status (HTTP-1 to HTTP-8).

    - 2xx: parse the body, whatever its Content-Type (RFC 9309 §2.3.1.1).
    - 3xx: follow the redirect (§2.3.1.2).
    - 4xx but 429, 401 and 403 included: no robots.txt, allow all (§2.3.1.3).
    - 429, 5xx, and anything else (1xx, 600+): unreachable, disallow all
      while retrying (§2.3.1.4; Google handles 429 as a server error; HTTP-8).
    """
    if 200 <= status < 300:
        return "parse"
    if 300 <= status < 400:
        return "redirect"
    if 400 <= status < 500 and status != 429:
        return "allow_all"
    return "unreachable"


def lifetime(cache_control: dict[bytes, bytes | None], ttl: float) -> float:
    """How long a fetched copy stays fresh, in seconds (CACHE-1, CACHE-3).

    ``ttl`` (24 h by default) is the ceiling; ``max-age`` (or ``s-maxage``)
    may only shorten it, down to :data:`MIN_LIFETIME`. ``no-cache`` and
    ``no-store`` change nothing: they mean "re-fetch when this expires", not
    "never cache" (DECISIONS.md, cache lifetime).

    ``cache_control`` is what Scrapy's ``parse_cachecontrol`` returns.
    """
    result = ttl
    for key in (b"s-maxage", b"max-age"):
        value = cache_control.get(key)
        match = _DELTA_SECONDS.fullmatch(value or b"")
        if match is not None:
            result = min(result, float(match.group(1)))
            break
    return max(result, min(MIN_LIFETIME, ttl))


def retry_after(value: bytes | None, now: float) -> float | None:
    """Seconds to wait from a ``Retry-After`` header (RFC 9110 §10.2.3):
    delay-seconds or an HTTP-date. ``None`` when absent or unreadable."""
    if not value:
        return None
    match = _DELTA_SECONDS.fullmatch(value)
    if match is not None:
        return float(match.group(1))
    try:
        when: float = parsedate_to_datetime(value.decode("latin-1")).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    return max(0.0, when - now)


def backoff(failures: int, first: float, hint: float | None = None) -> float:
    """The delay before the next fetch of an unreachable robots.txt.

    Exponential: ``first``, ``2 * first``, ``4 * first``... after the 1st,
    2nd, 3rd... failure in a row, up to :data:`MAX_RETRY_DELAY` (HTTP-5:
    "keep retrying"). A longer ``Retry-After`` ``hint`` replaces it, within
    the same ceiling.
    """
    ceiling = max(MAX_RETRY_DELAY, first)
    delay = min(first * 2.0 ** min(max(failures - 1, 0), 32), ceiling)
    if hint is not None:
        # Never sooner than the server asks, nor than the backoff: a
        # "Retry-After: 0" (or a clock skewed date) must not mean a hot loop.
        return min(max(hint, delay), ceiling)
    return delay


@dataclass(slots=True)
class Entry:
    """What is known about one origin's robots.txt.

    ``rules`` maps product tokens (lower-cased) to the rules of their group;
    only the groups the crawler uses are kept, never the whole file. ``None``
    means allow all (a 4xx, or redirects given up on).

    An unreachable fetch (``unreachable_since`` set) leaves a good copy in
    force (HTTP-5: "use last good cached copy"); without one the origin is
    fully disallowed until a fetch succeeds, or until
    :data:`UNREACHABLE_ALLOW_AFTER` has passed (HTTP-7).
    """

    rules: dict[str, AgentRules] | None
    #: ``True`` once a fetch succeeded (2xx or 4xx): ``rules`` is a good copy.
    good: bool
    #: When the copy stops being fresh (fetched + :func:`lifetime`).
    expires: float
    #: What the last fetch found, for logs: "200", "404: allow all"...
    outcome: str
    #: When the current run of failed fetches began.
    unreachable_since: float | None = None
    failures: int = 0
    #: When an unreachable robots.txt is fetched again.
    retry_at: float = 0.0
    #: Where the rules came from when redirects led elsewhere (LOC-9).
    url: str | None = None
    #: A downloader middleware refused the robots.txt request, so nothing
    #: was asked of the server (DECISIONS.md "robots.txt request refused
    #: locally"): allow all, and never shared through a store.
    refused: bool = False

    def usable(self, now: float, allow_after: float = UNREACHABLE_ALLOW_AFTER) -> bool:
        """Whether requests can be decided now without waiting for a fetch.

        A fresh copy is; so is a good copy while robots.txt is unreachable
        (HTTP-5). An expired copy is not: the new rules must apply (CACHE-1).
        """
        if self.unreachable_since is not None:
            return self.good or now - self.unreachable_since >= allow_after
        return now < self.expires

    def allows_all(self) -> bool:
        """Whether every URL is allowed, once :meth:`usable`."""
        return self.rules is None

    def allows_all_by_answer(self) -> bool:
        """Whether the server's last answer means "no robots.txt": a 4xx or
        redirects given up on (HTTP-2, HTTP-3). Not a failed fetch, and not
        a request that was refused before it reached the server."""
        return self.good and self.rules is None and self.unreachable_since is None

    def due(self, now: float) -> bool:
        """Whether robots.txt should be fetched again."""
        if self.unreachable_since is not None:
            return now >= self.retry_at
        return now >= self.expires


def fetched(
    rules: dict[str, AgentRules] | None, *, outcome: str, now: float, fresh_for: float
) -> Entry:
    """The entry for a successful fetch (2xx rules, or 4xx allow all)."""
    return Entry(rules, good=True, expires=now + fresh_for, outcome=outcome)


def refused(*, outcome: str, now: float, fresh_for: float) -> Entry:
    """The entry when a downloader middleware refused the robots.txt
    request (DECISIONS.md "robots.txt request refused locally"): allow all,
    as Scrapy's built-in does, but no good copy: the server never answered,
    so a later failure falls back on nothing (HTTP-5) and no store keeps it.
    """
    return Entry(None, good=False, expires=now + fresh_for, outcome=outcome, refused=True)


def unreachable(
    previous: Entry | None,
    *,
    outcome: str,
    now: float,
    first_retry: float,
    hint: float | None = None,
) -> Entry:
    """The entry after a failed fetch (429, 5xx, network error; HTTP-5, HTTP-6).

    A good previous copy is kept in force; backoff grows with each failure in
    a row, and ``hint`` is the server's ``Retry-After``.
    """
    failures = (previous.failures if previous is not None else 0) + 1
    since = previous.unreachable_since if previous is not None else None
    delay = backoff(failures, first_retry, hint)
    if previous is not None and previous.good:
        return Entry(
            previous.rules,
            good=True,
            expires=previous.expires,
            outcome=outcome,
            unreachable_since=now if since is None else since,
            failures=failures,
            retry_at=now + delay,
            url=previous.url,
        )
    return Entry(
        None,
        good=False,
        expires=now,
        outcome=outcome,
        unreachable_since=now if since is None else since,
        failures=failures,
        retry_at=now + delay,
    )
