"""What a robots.txt fetch means, and for how long: the status policy, cache
lifetimes and retry backoff of RFC 9309 §2.3.1 and §2.4, as docs/decisions.md
settles them.

Pure: no I/O, no Scrapy import, and the time is always passed in, so that
tests drive it with a fake clock.
"""

from __future__ import annotations

import re
import sys
from collections import OrderedDict
from collections.abc import Callable, Container
from dataclasses import dataclass, field, replace
from email.utils import parsedate_to_datetime
from enum import Enum
from typing import TYPE_CHECKING, Final, Generic, Literal, TypeVar
from urllib.parse import urljoin, urlsplit

if TYPE_CHECKING:
    from ..robotstxt import AgentRules, Token


class State(Enum):
    """What an origin's robots.txt means for its requests, before any rule
    is looked at: the one outcome vocabulary of the log, ``scrapy robots``
    and every JSON output (``robots.state``, :mod:`.schemas`; docs/how-it-works.rst,
    "Outcomes")."""

    #: A 2xx: the rules decide (RFC 9309 §2.3.1.1).
    RULES = "rules"
    #: No robots.txt: a 4xx, redirects given up on (§2.3.1.2, §2.3.1.3), or
    #: unreachable for ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` (§2.3.1.4).
    ALLOW_ALL = "allow_all"
    #: A local downloader middleware refused the robots.txt request:
    #: nothing was asked of the server; allow all, as Scrapy's built-in.
    REFUSED = "refused"
    #: 429, 5xx or a network error with no good copy: disallow all while
    #: retrying (§2.3.1.4).
    UNREACHABLE = "unreachable"
    #: Unreachable, and the last good copy stays in force (HTTP-5).
    UNREACHABLE_LAST_GOOD = "unreachable_last_good"

    @property
    def label(self) -> str:
        """How the end-of-crawl summary line counts it."""
        return _LABELS[self]

    @property
    def effect(self) -> str:
        """What it does to requests, in words."""
        return _EFFECTS[self]


_LABELS = {
    State.RULES: "rules",
    State.ALLOW_ALL: "allow all",
    State.REFUSED: "refused locally",
    State.UNREACHABLE: "unreachable",
    State.UNREACHABLE_LAST_GOOD: "unreachable with a good copy",
}
_EFFECTS = {
    State.RULES: "rules",
    State.ALLOW_ALL: "allow all",
    State.REFUSED: "refused",
    State.UNREACHABLE: "disallow all",
    State.UNREACHABLE_LAST_GOOD: "last good copy",
}

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
    "never cache" (D-15).

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


@dataclass(frozen=True, slots=True)
class Answer:
    """What one robots.txt fetch found, redirects followed, before parsing:
    the status step of RFC 9309 §2.3.1 (HTTP-1 to HTTP-8), the same for the
    middleware and ``check``.

    >>> Answer(State.ALLOW_ALL, "no robots.txt", 404).outcome
    '404: no robots.txt: allow all'
    >>> Answer(State.UNREACHABLE, "HTTP 503", 503).outcome
    'HTTP 503'
    """

    #: ``RULES`` (parse the body), ``ALLOW_ALL``, ``UNREACHABLE`` or
    #: ``REFUSED``; never ``UNREACHABLE_LAST_GOOD``, which only
    #: :func:`entry_for` can tell.
    state: State
    #: Why, for people: "no robots.txt", "HTTP 503", "redirect loop at X"...
    detail: str
    #: The status of the last response, ``None`` without one.
    status: int | None = None
    #: Where the answer came from when redirects led elsewhere (LOC-9).
    url: str | None = None
    #: Redirects followed.
    redirects: int = 0
    #: ``Retry-After`` of a 429 or 5xx, in seconds.
    retry_hint: float | None = None

    @property
    def outcome(self) -> str:
        """The outcome in the log, the report and ``check``: "200",
        "404: no robots.txt: allow all", "HTTP 503"..."""
        if self.state is State.RULES:
            # One "200" for every cached origin, not a string each.
            return sys.intern(f"{self.status}")
        if self.state is State.ALLOW_ALL:
            prefix = "" if self.status is None else f"{self.status}: "
            return f"{prefix}{self.detail}: allow all"
        if self.state is State.REFUSED:
            return f"robots.txt not fetched ({self.detail})"
        return self.detail


def status_answer(status: int) -> Answer | None:
    """The answer a non-redirect status gives (HTTP-1 to HTTP-8), ``None``
    for a 3xx (:class:`Redirects` follows it)."""
    step = classify(status)
    if step == "parse":
        return Answer(State.RULES, "", status)
    if step == "allow_all":
        return Answer(State.ALLOW_ALL, "no robots.txt", status)
    if step == "unreachable":
        return Answer(State.UNREACHABLE, f"HTTP {status}", status)
    return None


@dataclass(slots=True)
class Redirects:
    """The redirect step of a fetch (RFC 9309 §2.3.1.2; HTTP-2, HTTP-3,
    LOC-9), with no I/O: give it each response's status and ``Location``.

    >>> chain = Redirects("http://a.test/robots.txt", limit=5)
    >>> chain.follow(301, "https://a.test/robots.txt")
    'https://a.test/robots.txt'
    >>> chain.follow(301, "/robots.txt").outcome
    '301: redirect loop at https://a.test/robots.txt: allow all'
    """

    url: str
    limit: int
    #: Applied to each redirect target (the middleware makes it a safe URL
    #: as Scrapy's RedirectMiddleware does).
    clean: Callable[[str], str] | None = None
    hops: int = 0
    seen: set[str] = field(default_factory=set)

    def follow(self, status: int, location: str | None) -> str | Answer:
        """The URL to fetch next for a 3xx, or the :class:`Answer` that ends
        the chain: a non-3xx status, or a redirect given up on (no
        ``Location``, not HTTP, a loop, more than ``limit``), which means
        no robots.txt (allow all, D-14)."""
        answer = status_answer(status)
        if answer is not None:
            return self._at_end(answer)
        self.seen.add(self.url)
        if not location:
            gave_up = "redirect without a Location header"
        else:
            target = urljoin(self.url, location)
            if self.clean is not None:
                target = self.clean(target)
            if urlsplit(target).scheme.lower() not in ("http", "https"):
                gave_up = f"redirect to a non-HTTP URL ({target})"
            elif target in self.seen:
                gave_up = f"redirect loop at {target}"
            elif self.hops >= self.limit:
                gave_up = f"more than {self.limit} redirects"
            else:
                self.hops += 1
                self.url = target
                return target
        return self._at_end(Answer(State.ALLOW_ALL, gave_up, status))

    def ended(self, state: State, detail: str, status: int | None = None) -> Answer:
        """The answer when the chain ends without a usable response (a
        network error, a refusal)."""
        return self._at_end(Answer(state, detail, status))

    def _at_end(self, answer: Answer) -> Answer:
        return replace(answer, url=self.url if self.hops else None, redirects=self.hops)


#: What a float of an entry (its times) costs.
_FLOAT_BYTES: Final = sys.getsizeof(0.0)


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

    rules: dict[Token, AgentRules] | None
    #: ``True`` once a fetch succeeded (2xx or 4xx): ``rules`` is a good copy.
    good: bool
    #: When the copy stops being fresh (fetched + :func:`lifetime`).
    expires: float
    #: What the last fetch found (:attr:`Answer.outcome`): "200",
    #: "404: no robots.txt: allow all", "HTTP 503"...
    outcome: str
    #: When the current run of failed fetches began.
    unreachable_since: float | None = None
    failures: int = 0
    #: When an unreachable robots.txt is fetched again.
    retry_at: float = 0.0
    #: Where the rules came from when redirects led elsewhere (LOC-9).
    url: str | None = None
    #: A downloader middleware refused the robots.txt request, so nothing
    #: was asked of the server (docs/decisions.md "robots.txt request refused
    #: locally"): allow all, and never shared through a store.
    refused: bool = False
    #: :attr:`Answer.detail` of the last fetch; the outcome itself when the
    #: entry was read from a store.
    detail: str = ""
    #: The file's ``Sitemap`` URLs (RFC 9309 §2.2.4, OTHER-1), one per
    #: line: one string costs less than a tuple of them (:attr:`sitemaps`).
    sitemap_lines: str = ""
    #: The HTTP status of the last fetch's last response, ``None`` without
    #: one (a network error, a refused request).
    status: int | None = None

    def settled(self) -> bool:
        """Whether :meth:`cost` is final: no rule set of the entry will
        build an index any more (:attr:`.AgentRules.settled`)."""
        return not self.rules or all(agent.settled for agent in self.rules.values())

    def cost(self) -> int:
        """What the entry costs in memory, in bytes: itself, its strings and
        its rules, each rule set with what its indexes may still take
        before they fill their share (:attr:`.AgentRules.cost`), so that
        what a verdict builds later is paid for: what
        ``ROBOTSTXT_RFC_CACHE_BYTES`` charges for it. Names that share one
        rule set (the same groups apply to them) count it once."""
        total = sys.getsizeof(self) + 3 * _FLOAT_BYTES
        for text in (self.outcome, self.detail, self.url, self.sitemap_lines):
            if text:
                total += sys.getsizeof(text)
        rules = self.rules
        if rules:
            total += sys.getsizeof(rules)
            counted: set[int] = set()
            for agent in rules.values():
                if id(agent.rules) in counted:
                    total += sys.getsizeof(agent)
                else:
                    counted.add(id(agent.rules))
                    total += agent.cost
        return total

    @property
    def sitemaps(self) -> tuple[str, ...]:
        """The ``Sitemap`` URLs of the good copy, in file order; empty
        without one."""
        return tuple(self.sitemap_lines.split("\n")) if self.sitemap_lines else ()

    def usable(self, now: float, allow_after: float = UNREACHABLE_ALLOW_AFTER) -> bool:
        """Whether requests can be decided now without waiting for a fetch.

        A fresh copy is; so is a good copy while robots.txt is unreachable
        (HTTP-5). An expired copy is not: the new rules must apply (CACHE-1).
        """
        if self.unreachable_since is not None:
            return self.good or now - self.unreachable_since >= allow_after
        return now < self.expires

    def state(self, now: float, allow_after: float = UNREACHABLE_ALLOW_AFTER) -> State:
        """What the entry means for requests now (:class:`State`)."""
        if self.refused:
            return State.REFUSED
        if self.unreachable_since is None:
            return State.ALLOW_ALL if self.rules is None else State.RULES
        if self.good:
            return State.UNREACHABLE_LAST_GOOD
        if self.usable(now, allow_after):
            return State.ALLOW_ALL  # RFC 9309 §2.3.1.4: unreachable for too long
        return State.UNREACHABLE

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
    rules: dict[Token, AgentRules] | None,
    *,
    outcome: str,
    now: float,
    fresh_for: float,
    detail: str = "",
    url: str | None = None,
    sitemaps: tuple[str, ...] = (),
    status: int | None = None,
) -> Entry:
    """The entry for a successful fetch (2xx rules, or 4xx allow all)."""
    return Entry(
        rules,
        good=True,
        expires=now + fresh_for,
        outcome=outcome,
        url=url,
        detail=detail,
        sitemap_lines="\n".join(sitemaps),
        status=status,
    )


def refused(*, outcome: str, now: float, fresh_for: float, detail: str = "") -> Entry:
    """The entry when a downloader middleware refused the robots.txt
    request (docs/decisions.md "robots.txt request refused locally"): allow all,
    as Scrapy's built-in does, but no good copy: the server never answered,
    so a later failure falls back on nothing (HTTP-5) and no store keeps it.
    """
    return Entry(
        None, good=False, expires=now + fresh_for, outcome=outcome, refused=True, detail=detail
    )


def unreachable(
    previous: Entry | None,
    *,
    outcome: str,
    now: float,
    first_retry: float,
    hint: float | None = None,
    status: int | None = None,
) -> Entry:
    """The entry after a failed fetch (429, 5xx, network error; HTTP-5, HTTP-6).

    A good previous copy is kept in force; backoff grows with each failure in
    a row, and ``hint`` is the server's ``Retry-After``; ``status`` is the
    failed fetch's (``None`` for a network error).
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
            detail=outcome,
            sitemap_lines=previous.sitemap_lines,
            status=status,
        )
    return Entry(
        None,
        good=False,
        expires=now,
        outcome=outcome,
        unreachable_since=now if since is None else since,
        failures=failures,
        retry_at=now + delay,
        detail=outcome,
        status=status,
    )


def entry_for(
    answer: Answer,
    previous: Entry | None,
    *,
    rules: dict[Token, AgentRules] | None,
    now: float,
    fresh_for: float,
    first_retry: float,
    sitemaps: tuple[str, ...] = (),
) -> Entry:
    """The entry after ``answer``: ``rules`` and ``sitemaps`` are the parsed
    groups and ``Sitemap`` URLs of a ``RULES`` answer; ``fresh_for`` is the
    copy's :func:`lifetime`."""
    outcome, status = answer.outcome, answer.status
    if answer.state is State.RULES:
        return fetched(
            rules,
            outcome=outcome,
            now=now,
            fresh_for=fresh_for,
            url=answer.url,
            sitemaps=sitemaps,
            status=status,
        )
    if answer.state is State.ALLOW_ALL:
        return fetched(
            None,
            outcome=outcome,
            now=now,
            fresh_for=fresh_for,
            detail=answer.detail,
            status=status,
        )
    if answer.state is State.REFUSED:
        return refused(outcome=outcome, now=now, fresh_for=fresh_for, detail=answer.detail)
    return unreachable(
        previous,
        outcome=outcome,
        now=now,
        first_retry=first_retry,
        hint=answer.retry_hint,
        status=status,
    )


def charge(key: tuple[object, ...], entry: Entry) -> int:
    """What the cache of entries charges for ``entry`` under ``key`` (an
    origin), beside its own :data:`ITEM_BYTES`: :meth:`Entry.cost` and the
    key's."""
    return entry.cost() + sys.getsizeof(key) + sum(map(sys.getsizeof, key))


K = TypeVar("K")
V = TypeVar("V")

#: What the cache keeps for each item beside its key and value, in bytes:
#: the ``OrderedDict``'s entry and link, the weight kept for it in one of
#: two dicts and its place in the set of keys not used yet (measured with
#: ``tracemalloc`` on CPython 3.11: 170 to 255, tests/policy/test_cache.py).
ITEM_BYTES: Final = 264


class LruCache(Generic[K, V]):
    """A bounded map, least recently used first out: at most ``size`` keys
    (the cache of entries: ``ROBOTSTXT_RFC_MAX_ORIGINS``) and, given
    ``weigh``, at most ``max_bytes`` of what the items cost
    (``ROBOTSTXT_RFC_CACHE_BYTES``): ``weigh(key, value)`` and
    :data:`ITEM_BYTES` each.

    An item is weighed when it is put, and again when it is touched until
    ``final(value)`` says its cost will not change any more: a value's cost
    may change while it is cached (an entry's rules build their indexes on
    use, :meth:`Entry.cost`), and weighing costs a few microseconds that a
    request to a settled origin need not pay.

    The items used since they were put (touched) go first, least recently
    used first; those not used yet only when no other is left, the most
    recently put first: an origin's copy is put when its fetch ends, and
    the requests that waited for it come back later, through the
    scheduler, to be decided by it. Evicted before, it is fetched again for
    them; with more origins fetched at once than the cache holds, the
    least recently put would go first, just before its requests come back,
    again and again. The earliest stay instead, their requests are
    decided, and the others' turn comes."""

    __slots__ = (
        *("_final", "_fresh", "_items", "_settled", "_weigh", "_weights"),
        *("max_bytes", "size", "total"),
    )

    def __init__(
        self,
        size: int,
        *,
        max_bytes: int | None = None,
        weigh: Callable[[K, V], int] | None = None,
        final: Callable[[V], bool] | None = None,
    ) -> None:
        if (max_bytes is None) != (weigh is None):
            raise ValueError("max_bytes and weigh go together")
        self._items: OrderedDict[K, V] = OrderedDict()
        #: The weights of the items whose cost may still change, and of
        #: those whose cost is final (weighed no more until put again).
        self._weights: dict[K, int] = {}
        self._settled: dict[K, int] = {}
        #: The keys put and not touched since.
        self._fresh: set[K] = set()
        self._weigh = weigh
        self._final = final
        self.size = size
        self.max_bytes = max_bytes
        #: What the items cost now, in bytes (0 without ``weigh``).
        self.total = 0

    def get(self, key: K) -> V | None:
        return self._items.get(key)

    def touch(self, key: K) -> None:
        """Mark ``key`` as just used, and weigh it again unless its cost is
        final."""
        self._items.move_to_end(key)
        self._fresh.discard(key)
        if key in self._weights:
            self._charge(key, self._items[key])

    def put(self, key: K, value: V, *, keep: Container[K] = ()) -> int:
        """Store ``value`` and evict keys while the cache holds more than
        ``size`` keys or ``max_bytes``, never ``key`` nor one in ``keep``:
        the least recently used of those touched since they were put, then
        the most recently put of the others; the number evicted. A value
        that costs more than ``max_bytes`` alone is kept, and evicts every
        other it can."""
        items = self._items
        items[key] = value
        items.move_to_end(key)
        self._fresh.add(key)
        if self._weigh is not None:
            self._charge(key, value)
        victims: list[K] = []
        excess = len(items) - self.size
        over = 0 if self.max_bytes is None else self.total - self.max_bytes
        for fresh in (False, True):
            if excess <= 0 and over <= 0:
                break
            for old in reversed(items) if fresh else items:
                if old != key and old not in keep and (old in self._fresh) is fresh:
                    victims.append(old)
                    excess -= 1
                    over -= self._weight(old)
                    if excess <= 0 and over <= 0:
                        break
        for old in victims:
            del items[old]
            self.total -= self._weight(old)
            self._weights.pop(old, None)
            self._settled.pop(old, None)
            self._fresh.discard(old)
        return len(victims)

    def _weight(self, key: K) -> int:
        weight = self._weights.get(key)
        return self._settled.get(key, 0) if weight is None else weight

    def _charge(self, key: K, value: V) -> None:
        assert self._weigh is not None
        weight = self._weigh(key, value) + ITEM_BYTES
        self.total += weight - self._weight(key)
        self._weights.pop(key, None)
        self._settled.pop(key, None)
        if self._final is not None and self._final(value):
            self._settled[key] = weight
        else:
            self._weights[key] = weight

    def __len__(self) -> int:
        return len(self._items)
