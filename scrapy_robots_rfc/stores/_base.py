"""What a store keeps per origin, and the interface every store offers.

A :class:`Record` is what outlives a crawl: the raw body of the good copy
(never more than ``ROBOTSTXT_RFC_MAX_BYTES``), the status, the times, and
the backoff state. Parsed rules are never stored; the middleware rebuilds
them from the body into its in-memory LRU (RFC 9309 §2.4 caching,
CACHE-2: "shares the cached copy across its crawlers").

Pure: no Scrapy import. Stores are synchronous; the middleware calls the
ones that do I/O from a thread.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Protocol

#: Bumped whenever the encoding changes; a record of another version is
#: treated as absent, never misread: crawlers of two versions can share a
#: store.
FORMAT_VERSION = 1
_MAGIC = b"robotstxt-rfc"


class StoreError(Exception):
    """A store cannot be used (corrupted file, unreachable server)."""


class StoreBusy(StoreError):
    """A store call gave up waiting for a lock that another holds (an SQLite
    file another process keeps locked): the store is there and may answer
    later. From ``open()`` it sets the store aside until :meth:`Store.ping`
    answers, rather than for the whole crawl."""


@dataclass(frozen=True, slots=True)
class Record:
    """One origin's robots.txt state, as stored.

    ``body`` is the good copy's body, ``None`` when the good copy is "allow
    all" (a 4xx) or when there never was a good copy (``good`` is False).
    ``fetched_at`` is when the good copy was fetched (its "last good time");
    ``expires_at`` when it stops being fresh. ``unreachable_since``,
    ``failures`` and ``retry_at`` are the backoff state of RFC 9309
    §2.3.1.4. Times are seconds since the epoch (wall clock: shared between
    machines).
    """

    good: bool
    body: bytes | None
    status: int | None
    outcome: str
    fetched_at: float
    expires_at: float
    url: str | None = None
    unreachable_since: float | None = None
    failures: int = 0
    retry_at: float = 0.0

    def in_force(self, now: float) -> bool:
        """Whether the record decides its origin at ``now`` without a
        fetch: fresh, or unreachable in its backoff (RFC 9309 §2.3.1.4). The
        same as the cache entry's :meth:`.Entry.due`, negated: the limits
        :func:`.entry_from_record` puts on the times never make an entry
        due sooner."""
        return now < (self.expires_at if self.unreachable_since is None else self.retry_at)

    def encode(self) -> bytes:
        """``robotstxt-rfc <version>\\n<json>\\n<body>``: a header line that
        names the format, the metadata, then the raw body bytes."""
        meta = asdict(self)
        body = meta.pop("body")
        meta["has_body"] = body is not None
        head = json.dumps(meta, separators=(",", ":"), sort_keys=True).encode()
        return b"%s %d\n%s\n%s" % (_MAGIC, FORMAT_VERSION, head, body or b"")

    @classmethod
    def decode(cls, data: bytes) -> Record | None:
        """The record in ``data``, or ``None`` if it is of another format
        version. Raises :class:`StoreError` if it is not a record at all."""
        try:
            first, head, body = data.split(b"\n", 2)
            magic, version = first.split(b" ")
            if magic != _MAGIC:
                raise ValueError("not a robotstxt-rfc record")
            if int(version) != FORMAT_VERSION:
                return None
            meta = json.loads(head)
            has_body = meta.pop("has_body")
            return cls(body=body if has_body else None, **meta)
        except (ValueError, TypeError, KeyError) as exc:
            raise StoreError(f"not a stored robots.txt record: {exc}") from exc


class Store(Protocol):
    """Where records live: what ``ROBOTSTXT_RFC_STORE`` names, a built-in
    store or a class of your own given by its import path (as Scrapy's
    ``HTTPCACHE_STORAGE`` is).

    **Building.** A class with a ``from_crawler(crawler)`` class method is
    built with it (:func:`scrapy.utils.misc.build_from_crawler`); any other
    class with ``cls(settings)``, the crawl's settings, as
    ``HTTPCACHE_STORAGE`` is. The store is built once per crawl, when the
    middleware starts, and :meth:`close` is called once when the spider
    closes. A constructor that raises :class:`StoreError` makes the crawl
    run with memory only, logged at ERROR; any other exception stops the
    crawl. The constructor runs on the reactor's thread: what may block
    (connecting, creating a schema) belongs in an optional ``open()``
    method, which the middleware calls once, in the store's threads, before
    any other method. ``open()`` raising :class:`StoreError` makes the crawl
    run with memory only, logged at ERROR; raising :class:`StoreBusy` (a
    lock held elsewhere) sets the store aside until :meth:`ping` answers.

    **Threads.** The middleware calls every method from a thread pool of
    its own (up to four threads, never the reactor's thread), several at a
    time, and :meth:`close` from a thread of its own: a store must be
    thread-safe. Methods may block (I/O), but not for long: a call that
    waits for a lock should give up within a second or so and raise
    :class:`StoreError` (the built-in stores do), since the calls waiting
    for a thread, and the robots.txt of their origins, wait behind it.

    **Errors.** Every method but :meth:`close` may raise
    :class:`StoreError`: the middleware then sets the store aside, crawls
    on with memory only, and calls :meth:`ping` now and then until it
    answers (``robotstxt/store/*`` stats). Any other exception is taken for
    a bug, not an outage: wrap the errors of your I/O in ``StoreError``.

    **Leases** (:meth:`acquire`, :meth:`renew`, :meth:`release`) make one
    crawler of many fetch an origin's robots.txt (RFC 9309 §2.4, CACHE-2).
    A store that only one crawler at a time uses may grant every lease:
    ``acquire`` and ``renew`` return ``True``, ``release`` does nothing, and
    ``put`` always writes and returns ``True``.

    An optional ``source`` attribute (text) is how log lines name the store;
    by default ``ROBOTSTXT_RFC_STORE``.
    """

    def get(self, origin: str) -> Record | None:
        """The record of ``origin`` (``scheme://host:port``), if any: the
        last one :meth:`put` there, equal to it (:meth:`Record.encode` and
        :meth:`Record.decode` turn it into bytes and back, for a store that
        keeps bytes)."""

    def put(self, origin: str, record: Record) -> bool:
        """Store ``record`` for ``origin``, replacing what was there.
        ``False`` when nothing was written because this crawler's lease on
        ``origin`` (:meth:`acquire`) lapsed and another crawler took it
        since: that crawler's record is the one to keep (fencing)."""

    def acquire(self, origin: str, ttl: float) -> bool:
        """Take the lease on fetching ``origin``'s robots.txt, for ``ttl``
        seconds unless renewed; ``False`` if another crawler holds it. The
        store keeps what proves it is ours (a token) until
        :meth:`release`."""

    def renew(self, origin: str, ttl: float) -> bool:
        """Extend our lease on ``origin`` to ``ttl`` seconds from now, while
        the fetch goes on; ``False`` if it is no longer ours (it lapsed, or
        was never taken)."""

    def release(self, origin: str) -> None:
        """Give the lease back, if it is still ours."""

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the store could serve the crawl
        now, reads and writes of its records included (a store that failed
        is probed with it until it is back): a store whose reads answer
        while its writes wait or fail (a write lock held elsewhere, a
        read-only replica), or whose records read in part (a file damaged
        in places), is not back."""

    def close(self) -> None:
        """Release resources; called once, from a thread of its own (never
        the reactor's), when the spider closes, while calls may still be
        under way (they should then fail or end soon). An exception is
        logged at DEBUG and ignored."""


#: The methods a store class must have (:class:`Store`'s); ``ROBOTSTXT_RFC_STORE``
#: naming a class without one of them is refused at start-up.
METHODS = ("get", "put", "acquire", "renew", "release", "ping", "close")
