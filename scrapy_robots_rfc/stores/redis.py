"""A store in Redis, shared by every crawler that uses the same server.

Only one worker fetches an origin's robots.txt at a time, through a lock
with an expiry, so that a crashed worker cannot block the others. The lock is
``SET key token NX PX ttl``: the key expires by itself, and a worker only
ever deletes it while it still holds its own random token, so a worker
whose lock has expired never releases the lock another worker took since.

Keys (``<origin>`` is ``scheme://host:port``)::

    robotstxt_rfc:v1:record:<origin>   Record.encode() bytes
    robotstxt_rfc:v1:lock:<origin>     the holder's random token

The ``v1`` is the layout of the keys; the record's own format version is
inside the value, and a record of another version counts as absent.

redis-py is imported when a :class:`RedisStore` is made or a URL checked,
not when this module is: it is an optional dependency (``INSTALL``). Every
error of redis-py or of the socket becomes a :class:`StoreError` naming the
setting and the server (never its password).
"""

from __future__ import annotations

import math
import re
import secrets
import threading
from typing import TYPE_CHECKING, Any, NoReturn
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from .base import Record, StoreError

if TYPE_CHECKING:
    import redis as redis_py
    from redis.commands.core import Script

__all__ = ["INSTALL", "KEY_PREFIX", "SCHEMES", "RedisStore", "redact", "url_problem"]

KEY_PREFIX = "robotstxt_rfc:v1:"
#: The URL schemes redis-py reads.
SCHEMES = ("redis://", "rediss://", "unix://")
#: How to install redis-py: the distribution's extra, or the package itself.
INSTALL = "pip install 'scrapy-robots-rfc[redis]' (or pip install redis)"

#: Deletes the lock only if it still holds our token (KEYS[1], ARGV[1]).
_RELEASE = """
if redis.call("GET", KEYS[1]) == ARGV[1] then
    return redis.call("DEL", KEYS[1])
end
return 0
"""


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
    """Records and fetch locks in the Redis server at ``url``
    (``redis://[[user]:password@]host[:port][/db]``, ``rediss://`` for TLS,
    ``unix:///path/to/socket?db=0``).

    ``timeout`` bounds connecting and each reply, in seconds; a command is
    tried at most twice, so an unreachable server costs at most about twice
    ``timeout`` (a refused connection, e.g. a stopped server, costs
    milliseconds). Safe to use from several threads.

    Every :class:`StoreError` starts with ``source``, what the URL came from:
    by default ``ROBOTSTXT_RFC_STORE ('<url without its password>')``.
    """

    def __init__(self, url: str, *, timeout: float = 2.0, source: str | None = None) -> None:
        self.url = redact(url)
        self.source = source or f"ROBOTSTXT_RFC_STORE ({self.url!r})"
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
            self._client: redis_py.Redis = redis_py.Redis.from_url(
                url,
                socket_timeout=timeout,
                socket_connect_timeout=timeout,
                retry=Retry(NoBackoff(), 1),
            )
        except (ValueError, *self._errors) as exc:
            raise StoreError(f"{self.source}: bad URL: {exc}") from exc
        self._release: Script = self._client.register_script(_RELEASE)
        self._tokens: dict[str, bytes] = {}
        self._tokens_lock = threading.Lock()

    def __repr__(self) -> str:
        return f"RedisStore({self.url!r})"

    def _fail(self, doing: str, exc: BaseException) -> NoReturn:
        raise StoreError(f"{self.source}: {doing} failed: {type(exc).__name__}: {exc}") from exc

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

    def put(self, origin: str, record: Record) -> None:
        key = KEY_PREFIX + "record:" + origin
        try:
            self._client.set(key, record.encode())
        except self._errors as exc:
            self._fail(f"SET {key}", exc)

    def acquire(self, origin: str, ttl: float) -> bool:
        key = KEY_PREFIX + "lock:" + origin
        token = secrets.token_hex(16).encode()
        ttl_ms = max(1, math.ceil(ttl * 1000))
        try:
            taken = self._client.set(key, token, nx=True, px=ttl_ms)
            if not taken:
                # If the reply to a SET that succeeded was lost and the
                # retry found the key taken, the holder is us.
                taken = self._client.get(key) == token
        except self._errors as exc:
            self._fail(f"SET {key} NX", exc)
        if taken:
            with self._tokens_lock:
                self._tokens[origin] = token
        return bool(taken)

    def release(self, origin: str) -> None:
        with self._tokens_lock:
            token = self._tokens.pop(origin, None)
        if token is None:
            return  # not ours: never delete another worker's lock
        key = KEY_PREFIX + "lock:" + origin
        try:
            self._release(keys=[key], args=[token])
        except self._errors as exc:
            self._fail(f"release of {key}", exc)

    def close(self) -> None:
        try:
            self._client.close()
        except self._errors as exc:
            self._fail("close", exc)
