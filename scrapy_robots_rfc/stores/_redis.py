"""A store in Redis, shared by every crawler that uses the same server.

Only one worker fetches an origin's robots.txt at a time, through a
*lease*: a lock with an expiry that its holder renews while it fetches
(:meth:`RedisStore.renew`), so that a crashed worker cannot block the others
for longer than one lease. Each lease carries a fencing token, a number one
higher than the last one granted for the origin: a holder whose lease
lapsed (a stalled process) and was taken over can no longer write its
record (:meth:`RedisStore.put` returns ``False``), so the newer holder's
copy stands. A worker only ever deletes the lock while it still holds its
own token.

Every key expires: records ``ttl`` seconds after their last write (by
default 31 days: the 30 days of RFC 9309 §2.3.1.4 during which an
unreachable origin stays disallowed, plus the cache lifetime of §2.4), the
lock after one lease. :mod:`.stores._redis_lua` lists the keys and the scripts;
:meth:`RedisStore.fleet` gives the requests held for a fleet of workers
(:mod:`.stores._redis_fleet`).

The ``v1`` in the keys is their layout; the record's own format version is
inside the value, and a record of another version counts as absent.

redis-py is imported when a :class:`RedisStore` is made or a URL checked,
not when this module is: it is an optional dependency (``INSTALL``). Every
error of redis-py or of the socket becomes a :class:`StoreError` naming the
setting and the server (never its password).
"""

from __future__ import annotations

import re
import secrets
import threading
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from . import _redis_lua as redis_lua
from ._base import Record, StoreError
from ._redis_fleet import DEFAULT_LEASE, RECORD_TTL, RedisFleet, milliseconds, store_error
from ._redis_lua import KEY_PREFIX

if TYPE_CHECKING:
    import redis as redis_py
    from redis.commands.core import Script

#: The URL schemes redis-py reads.
SCHEMES = ("redis://", "rediss://", "unix://")
#: How to install redis-py: the distribution's extra, or the package itself.
INSTALL = "pip install 'scrapy-robots-rfc[redis]' (or pip install redis)"

#: Seconds a robots.txt fetch may take at most by default: 30 s
#: (``ROBOTSTXT_RFC_TIMEOUT``) for each of 6 requests (5 redirects, RFC
#: 9309 §2.3.1.2), and 5 s to spare.
DEFAULT_FETCH_BOUND = 30.0 * 6 + 5
#: Milliseconds the key written by :meth:`RedisStore.ping` lives.
_PROBE_MS = 1000


def redact(url: str) -> str:
    """``url`` without its password (in the user info or the query)."""
    try:
        parts = urlsplit(url)
        netloc = parts.netloc
        if parts.password is not None:
            user = parts.username or ""
            netloc = f"{user}:***@{netloc.rpartition('@')[2]}"
        query = parts.query
        if query:
            pairs = parse_qsl(query, keep_blank_values=True)
            query = urlencode(
                [(k, "***" if k.lower() == "password" else v) for k, v in pairs], safe="*"
            )
        # Not urlunsplit: it writes unix:///path as unix:/path.
        return f"{parts.scheme}://{netloc}{parts.path}" + (f"?{query}" if query else "")
    except ValueError:
        # Unparsable (a bad IPv6 host...): hide the whole user info, and the
        # password of the query, by pattern.
        url = re.sub(r"://[^/?#]*@", "://***@", url)
        return re.sub(r"(?i)([?&]password=)[^&#]*", r"\1***", url)


def url_problem(url: str) -> str | None:
    """What is wrong with the Redis URL ``url``, as far as it shows without
    connecting (redis-py's own parsing, then its connection options), or
    ``None``. Raises ``ImportError`` without redis-py."""
    import redis as redis_py

    try:
        # Through redis.connection.parse_url.
        pool = redis_py.ConnectionPool.from_url(url)
    except ValueError as exc:
        return str(exc)
    parts = urlsplit(url)
    if parts.scheme == "unix":
        if not parts.path:
            return "it names no socket path (unix:///path/to/socket)"
    else:
        # redis-py ignores a path that is not a number, and reads /1/2 as
        # database 12.
        path = unquote(parts.path)
        if path not in ("", "/") and not re.fullmatch(r"/[0-9]+", path):
            return f"the database ({path[1:]!r}) is not a number"
    try:
        # Builds a connection object, as the first command would, without
        # connecting it: an option redis-py does not know fails here.
        pool.make_connection()
    except TypeError as exc:
        return f"redis-py does not take an option of it: {exc}"
    except (ValueError, redis_py.RedisError) as exc:
        return str(exc)
    return None


class RedisStore:
    """Records and fetch leases in the Redis server at ``url``
    (``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` for TLS,
    ``unix:///path/to/socket?db=0``).

    ``timeout`` bounds connecting and each reply, in seconds; a command is
    tried at most twice, so an unreachable server costs at most about twice
    ``timeout`` (a refused connection, e.g. a stopped server, costs
    milliseconds). ``ttl`` is how long a record lives after it was last
    written (``ROBOTSTXT_RFC_STORE_TTL``), ``lease`` how long held requests
    stay watched (``ROBOTSTXT_RFC_LEASE``) and how long a fencing token
    outlives its lease, ``fetch_bound`` the longest a robots.txt fetch can
    take (all its redirects, each within its timeout), which a fencing
    token outlives too. Safe to use from several threads.

    Every :class:`StoreError` starts with ``source``, what the URL came from:
    by default ``ROBOTSTXT_RFC_STORE ('<url without its password>')``.
    """

    def __init__(
        self,
        url: str,
        *,
        timeout: float = 2.0,
        source: str | None = None,
        ttl: float = RECORD_TTL,
        lease: float = DEFAULT_LEASE,
        fetch_bound: float = DEFAULT_FETCH_BOUND,
    ) -> None:
        self.url = redact(url)
        self.source = source or f"ROBOTSTXT_RFC_STORE ({self.url!r})"
        self.ttl = ttl
        self.lease = lease
        self.fetch_bound = fetch_bound
        try:
            import redis as redis_py
            from redis.backoff import NoBackoff
            from redis.retry import Retry
        except ImportError as exc:
            raise StoreError(f"{self.source}: needs the redis package: {INSTALL}") from exc
        self._errors: tuple[type[BaseException], ...] = (redis_py.RedisError, OSError)
        try:
            # One retry, at once: it replaces a pooled connection that the
            # server closed (restart, idle timeout). redis-py's default (10
            # retries with backoff) would keep a caller waiting for seconds.
            # Every script is safe to run twice (a reply lost after it ran).
            self._client: redis_py.Redis = redis_py.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 1),
            )
        except (ValueError, *self._errors) as exc:
            raise StoreError(f"{self.source}: bad URL: {exc}") from exc
        # redis-py loads a script again when the server answers NOSCRIPT.
        self._acquire: Script = self._client.register_script(redis_lua.LEASE_ACQUIRE)
        self._renew: Script = self._client.register_script(redis_lua.LEASE_RENEW)
        self._release: Script = self._client.register_script(redis_lua.LEASE_RELEASE)
        self._put: Script = self._client.register_script(redis_lua.PUT_FENCED)
        self._tokens: dict[str, bytes] = {}
        self._tokens_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"

    def _fail(self, doing: str, exc: BaseException) -> NoReturn:
        raise store_error(self.source, doing, exc) from exc

    def _token(self, origin: str) -> bytes | None:
        with self._tokens_lock:
            return self._tokens.get(origin)

    def _fence_ttl(self, lease: float) -> int:
        """A fencing token outlives the longest fetch its lease may cover."""
        return milliseconds(self.fetch_bound + max(lease, self.lease))

    def get(self, origin: str) -> Record | None:
        key = KEY_PREFIX + "record:" + origin
        try:
            data: Any = self._client.get(key)
        except self._errors as exc:
            self._fail(f"GET {key}", exc)
        if data is None:
            return None
        try:
            return Record.decode(bytes(data))
        except StoreError as exc:
            raise StoreError(f"{self.source}: {key}: {exc}") from exc

    def put(self, origin: str, record: Record) -> bool:
        """Store ``record``, expiring ``ttl`` seconds from now. Under our
        lease, ``False`` (nothing written) when the lease lapsed and was
        taken over since: the new holder's record is the one to keep."""
        key = KEY_PREFIX + "record:" + origin
        token = self._token(origin) or b""
        keys = [key, KEY_PREFIX + "fence:" + origin, KEY_PREFIX + "lock:" + origin]
        try:
            written = self._put(keys=keys, args=[token, record.encode(), milliseconds(self.ttl)])
        except self._errors as exc:
            self._fail(f"SET {key}", exc)
        return bool(written)

    def acquire(self, origin: str, ttl: float) -> bool:
        """Take the lease on fetching ``origin``'s robots.txt for ``ttl``
        seconds, with the next fencing token; ``False`` if another
        crawler holds it."""
        key = KEY_PREFIX + "lock:" + origin
        keys = [key, KEY_PREFIX + "fence:" + origin]
        nonce = secrets.token_hex(16)
        try:
            token: Any = self._acquire(
                keys=keys, args=[milliseconds(ttl), nonce, self._fence_ttl(ttl)]
            )
        except self._errors as exc:
            self._fail(f"lease of {key}", exc)
        if token is None:
            return False
        with self._tokens_lock:
            self._tokens[origin] = bytes(token)
        return True

    def renew(self, origin: str, ttl: float) -> bool:
        """Extend our lease on ``origin`` to ``ttl`` seconds from now;
        ``False`` if it is not ours (never taken, or lapsed)."""
        token = self._token(origin)
        if token is None:
            return False
        key = KEY_PREFIX + "lock:" + origin
        keys = [key, KEY_PREFIX + "fence:" + origin]
        try:
            renewed = self._renew(keys=keys, args=[token, milliseconds(ttl), self._fence_ttl(ttl)])
        except self._errors as exc:
            self._fail(f"renewal of {key}", exc)
        return bool(renewed)

    def release(self, origin: str) -> None:
        with self._tokens_lock:
            token = self._tokens.pop(origin, None)
        if token is None:
            return  # not ours: never delete another worker's lock
        key = KEY_PREFIX + "lock:" + origin
        keys = [key, KEY_PREFIX + "fence:" + origin]
        try:
            self._release(keys=keys, args=[token, milliseconds(self.lease)])
        except self._errors as exc:
            self._fail(f"release of {key}", exc)

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the server takes a write, as the
        crawl's leases and records need: ``SET`` of a key of its own that
        expires at once. A ``PING`` alone answers on a server that refuses
        writes (a read-only replica, ``maxmemory`` reached, a failed
        save with ``stop-writes-on-bgsave-error``)."""
        key = KEY_PREFIX + "probe"
        try:
            self._client.set(key, b"", px=_PROBE_MS)
        except self._errors as exc:
            self._fail(f"SET {key}", exc)

    def fleet(self, namespace: str) -> RedisFleet:
        """The requests held for the scrapy-redis queue ``namespace``
        (``"<spider>:requests"``), and crawl-delay turns, through this
        store's connections; see :mod:`.stores._redis_fleet`."""
        return RedisFleet(
            self._client, namespace, source=self.source, lease=self.lease, ttl=self.ttl
        )

    def close(self) -> None:
        try:
            self._client.close()
        except self._errors as exc:
            self._fail("close", exc)
