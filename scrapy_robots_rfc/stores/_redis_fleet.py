"""Requests held in Redis while their origin's robots.txt is unknown, and
crawl-delay turns shared by a fleet of workers (issue 13, "Fleets on
scrapy-redis").

A fleet is several Scrapy processes that share one scrapy-redis queue (its
key is the *namespace*, ``"<spider>:requests"`` by default). A request
cannot be checked against rules that are not fetched yet, so a request
whose origin's robots.txt is not known waits for it (RFC 9309 §2.3.1.4: an
unreachable robots.txt disallows everything). In a fleet it waits *in
Redis*, in a held set of its origin, never in one worker's memory alone:

- :meth:`RedisFleet.hold` adds it, and watches the origin for one lease;
- the workers that wait for the origin extend that watch
  (:meth:`RedisFleet.watch`) while they wait;
- once the origin is decided, :meth:`RedisFleet.release` moves the held
  requests straight into the scrapy-redis queue inside the server, exactly
  once whoever calls it, as scrapy-redis's own ``push`` would have written
  them;
- a worker that dies stops watching: after one lease its origins are
  orphans, and :meth:`RedisFleet.adopt` gives each to exactly one survivor;
  a worker that stops on purpose hands its origins over at once
  (:meth:`RedisFleet.hand_over`).

RFC 9309 §2.3.1.4 lets an unreachable origin's requests be dropped after a
while: each held request keeps the wall-clock time it started waiting
(``since``), so :meth:`RedisFleet.release` can move only those that waited
long enough, for whichever worker pops them to drop.

:meth:`RedisFleet.reserve` spaces the requests of all workers to an origin by
its ``Crawl-delay`` on the server's clock (not a rule of RFC 9309: one of the
"other records" of §2.2.4, OTHER-2, which Google ignores).

Synchronous, like the stores: the middleware calls it from the store's
thread pool. Every error of redis-py or of the socket becomes a
:class:`~.stores._base.StoreError` naming the setting and the server.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NoReturn

from . import _redis_lua as redis_lua
from ._base import StoreError
from ._redis_lua import KEY_PREFIX

if TYPE_CHECKING:
    import redis as redis_py

#: Seconds a lease (the fetch lock, the watch of held requests) lasts
#: unless renewed: ``ROBOTSTXT_RFC_LEASE``.
DEFAULT_LEASE = 10.0
#: Seconds a record, a held set and the index live after their last write:
#: ``ROBOTSTXT_RFC_STORE_TTL``'s default, ``ROBOTSTXT_RFC_UNREACHABLE_DAYS``
#: (30, HTTP-7: RFC 9309 §2.3.1.4 "a reasonably long period of time (for
#: example, 30 days)") plus ``ROBOTSTXT_RFC_CACHE_TTL`` (1 day, §2.4).
RECORD_TTL = 31 * 86400.0
#: Held requests moved per RELEASE call: keeps each script short, since
#: Redis serves no other client while one runs.
_BATCH = 500
#: How long the key that :meth:`RedisFleet.probe` writes lives, in seconds.
_PROBE_TTL = 10.0


def store_error(source: str, doing: str, exc: BaseException) -> StoreError:
    """The :class:`~.stores._base.StoreError` for ``exc``, raised while ``doing``
    something with the store ``source`` names."""
    return StoreError(f"{source}: {doing} failed: {type(exc).__name__}: {exc}")


def milliseconds(seconds: float) -> int:
    """``seconds`` as whole milliseconds, at least 1 (PX takes no 0)."""
    return max(1, math.ceil(seconds * 1000))


#: How a scrapy-redis queue lays a request out in its key (the RELEASE
#: script's ``kind``): ``"priority"``, a sorted set scored by minus the
#: request's priority (``ZADD key -priority request``); ``"list"``, a list
#: pushed on the left (``LPUSH key request``), which FifoQueue pops on the
#: right and LifoQueue on the left.
Layout = Literal["priority", "list"]

#: Each scrapy-redis queue class whose layout RELEASE writes, by import path
#: (scrapy-redis is imported only by a crawl that uses it). The only place
#: this package knows how scrapy-redis stores its queue: RELEASE needs it to
#: queue a request in the same atomic step that takes it out of its held set
#: (exactly once). ``tests/fleet/test_redis_fleet.py`` releases into each class
#: and pops with the class's own ``pop``, against what its own ``push``
#: writes, so that a change of layout in scrapy-redis fails there.
QUEUE_LAYOUTS: dict[str, Layout] = {
    "scrapy_redis.queue.PriorityQueue": "priority",
    "scrapy_redis.queue.FifoQueue": "list",
    "scrapy_redis.queue.LifoQueue": "list",
}


@dataclass(frozen=True, slots=True)
class QueueTarget:
    """The scrapy-redis queue that released requests go to.

    ``key`` is the queue object's own ``key`` (``SCHEDULER_QUEUE_KEY`` with
    the spider's name: ``"<spider>:requests"`` by default); ``kind`` is how
    its class lays requests out (:data:`QUEUE_LAYOUTS`)."""

    key: str
    kind: Layout


class RedisFleet:
    """The held requests of one namespace (a scrapy-redis queue key), and
    crawl-delay turns, in the Redis server ``client`` talks to.

    Made by :meth:`.stores._redis.RedisStore.fleet`, which shares its client.
    ``lease`` is how long an origin stays watched after the last
    :meth:`hold` or :meth:`watch` (so a dead worker's origins are adopted
    within about one lease), ``ttl`` how long a held set lives after its
    last hold. Safe to use from several threads.
    """

    def __init__(
        self,
        client: redis_py.Redis,
        namespace: str,
        *,
        source: str,
        lease: float = DEFAULT_LEASE,
        ttl: float = RECORD_TTL,
    ) -> None:
        import redis as redis_py

        self.namespace = namespace
        self.source = source
        self.lease = lease
        self.ttl = ttl
        #: The index: origin -> watch deadline (ms, server clock).
        self.index_key = f"{KEY_PREFIX}heldidx:{namespace}"
        #: The held set of ``<origin>`` is this followed by the origin.
        self.held_prefix = f"{KEY_PREFIX}held:{namespace}:"
        self._client = client
        self._errors: tuple[type[BaseException], ...] = (redis_py.RedisError, OSError)
        # redis-py loads a script again when the server answers NOSCRIPT
        # (after a restart, or SCRIPT FLUSH).
        register = client.register_script
        self._hold = register(redis_lua.HOLD)
        self._release = register(redis_lua.RELEASE)
        self._adopt = register(redis_lua.ADOPT)
        self._watch = register(redis_lua.WATCH)
        self._hand_over = register(redis_lua.HANDOVER)
        self._clear = register(redis_lua.CLEAR)
        self._reserve = register(redis_lua.RESERVE)

    def __repr__(self) -> str:
        return f"RedisFleet({self.source}, {self.namespace!r})"

    def _fail(self, doing: str, exc: BaseException) -> NoReturn:
        raise store_error(self.source, doing, exc) from exc

    def held_key(self, origin: str) -> str:
        """The key of ``origin``'s held set."""
        return self.held_prefix + origin

    def hold(self, origin: str, request: bytes, *, priority: int, since: float) -> int:
        """Hold ``request`` (serialised as scrapy-redis's queue would: the
        scheduler's serializer over ``Request.to_dict``) until
        ``origin``'s robots.txt is known, and watch ``origin`` for at
        least one lease; ``since`` is when it started waiting (seconds since
        the epoch). Returns how many requests ``origin`` holds.

        It returns once Redis has the request: a held request is never only
        in a worker's memory. Identical ``request`` bytes are one member;
        give each hold a random part (the middleware's ``_robotstxt_rfc_hold``
        meta key) to keep them apart."""
        member = b"%d|%s" % (priority, request)
        key = self.held_key(origin)
        since_ms = math.floor(since * 1000)
        args = (member, origin, since_ms, milliseconds(self.lease), milliseconds(self.ttl))
        try:
            count = self._hold(keys=[key, self.index_key], args=args)
        except self._errors as exc:
            self._fail(f"hold in {key}", exc)
        return int(count)

    def release(
        self, origin: str, target: QueueTarget, *, before: float | None = None
    ) -> tuple[int, int]:
        """Move ``origin``'s held requests into the scrapy-redis queue
        ``target``, oldest first: all of them, or with ``before`` (seconds
        since the epoch) only those waiting since then or earlier (RFC 9309
        §2.3.1.4: requests that waited too long for an unreachable
        robots.txt, for the worker that pops them to drop).

        Each request leaves the held set in the same atomic step that
        queues it, so that callers racing on the same origin (the workers
        that all learned its robots.txt) queue each request exactly once
        between them. Returns ``(moved, left)``: how many this call moved,
        and how many ``origin`` still holds (when 0, the origin is no longer
        watched)."""
        key = self.held_key(origin)
        keys = [key, self.index_key, target.key]
        max_score = "+inf" if before is None else str(math.floor(before * 1000))
        moved = 0
        while True:
            try:
                done, left = self._release(keys=keys, args=[origin, max_score, _BATCH, target.kind])
            except self._errors as exc:
                self._fail(f"release of {key} into {target.key}", exc)
            moved += int(done)
            if done < _BATCH:
                return moved, int(left)

    def peek(self, origin: str) -> tuple[bytes, float] | None:
        """The request that has held longest for ``origin`` and since when
        it waits (seconds since the epoch), or ``None`` if none is held. An
        adopter decodes it to have a request that stands for the origin."""
        key = self.held_key(origin)
        try:
            found: Any = self._client.zrange(key, 0, 0, withscores=True)
        except self._errors as exc:
            self._fail(f"ZRANGE {key}", exc)
        if not found:
            return None
        member, score = found[0]
        return bytes(member).partition(b"|")[2], float(score) / 1000

    def adopt(self, limit: int = 16) -> list[str]:
        """Up to ``limit`` orphans: origins with held requests that nobody
        watched for a lease (their worker died) or that were handed over.
        Each orphan goes to one caller only, which watches it from then on
        (:meth:`watch`) and must settle it: learn its robots.txt, then
        :meth:`release`."""
        try:
            found: Any = self._adopt(
                keys=[self.index_key], args=[milliseconds(self.lease), limit, self.held_prefix]
            )
        except self._errors as exc:
            self._fail(f"adopt from {self.index_key}", exc)
        return [bytes(origin).decode() for origin in found]

    def watch(self, origins: Sequence[str]) -> list[str]:
        """Watch ``origins`` one lease more: this worker still waits for
        their robots.txt. Returns those that hold nothing any more (another
        worker released them): stop waiting for them."""
        if not origins:
            return []
        try:
            gone: Any = self._watch(
                keys=[self.index_key], args=[milliseconds(self.lease), *origins]
            )
        except self._errors as exc:
            self._fail(f"watch in {self.index_key}", exc)
        return [bytes(origin).decode() for origin in gone]

    def hand_over(self, origins: Sequence[str]) -> int:
        """Stop watching ``origins`` and make them orphans at once, for the
        next :meth:`adopt` of any worker (this one is stopping: the others,
        or the next run, release them). Returns how many requests they
        hold."""
        if not origins:
            return 0
        try:
            count = self._hand_over(keys=[self.index_key], args=[self.held_prefix, *origins])
        except self._errors as exc:
            self._fail(f"hand-over in {self.index_key}", exc)
        return int(count)

    def held_origins(self) -> int:
        """How many origins hold requests, in the whole fleet: while there
        are any, the crawl is not over."""
        try:
            return int(self._client.zcard(self.index_key))
        except self._errors as exc:
            self._fail(f"ZCARD {self.index_key}", exc)

    def clear(self) -> int:
        """Delete every held request of the namespace and the index, as
        scrapy-redis's ``SCHEDULER_FLUSH_ON_START`` deletes its queue.
        Returns how many requests were held."""
        try:
            count = self._clear(keys=[self.index_key], args=[self.held_prefix])
        except self._errors as exc:
            self._fail(f"clear of {self.index_key}", exc)
        return int(count)

    def reserve(self, origin: str, spacing: float, *, force: bool = False) -> float:
        """Take the next turn to start a request to ``origin``, the turns of
        all workers ``spacing`` seconds apart (``Crawl-delay``) on the
        server's clock. Returns 0.0 when the turn is ours, else the seconds
        to wait before asking again. ``force`` takes a turn now whatever
        the wait (the robots.txt fetch itself, which happened already)."""
        key = f"{KEY_PREFIX}next:{origin}"
        try:
            wait = self._reserve(keys=[key], args=[milliseconds(spacing), "1" if force else "0"])
        except self._errors as exc:
            self._fail(f"reserve in {key}", exc)
        return int(wait) / 1000

    def probe(self, client: Any) -> bool:
        """Whether ``client`` (scrapy-redis's own redis-py client) talks to
        the same server and database as this fleet: only then can
        :meth:`release` move held requests into its queue. A key written
        here (expiring in 10 s) must read the same there. An error of
        ``client`` is ``False``; an error of this store a
        :class:`~.stores._base.StoreError`."""
        nonce = secrets.token_hex(16).encode()
        key = f"{KEY_PREFIX}probe:{nonce.decode()}"
        try:
            self._client.set(key, nonce, px=milliseconds(_PROBE_TTL))
        except self._errors as exc:
            self._fail(f"SET {key}", exc)
        theirs: tuple[type[BaseException], ...] = (*self._errors, TypeError, AttributeError)
        try:
            seen = client.get(key)
        except theirs:
            seen = None
        try:
            self._client.delete(key)
        except self._errors as exc:
            self._fail(f"DEL {key}", exc)
        # decode_responses=True gives str.
        return seen in (nonce, nonce.decode())
