"""``ROBOTSTXT_RFC_STORE = "sqlite:///path/to/file.db"``: records in an
SQLite file, with no server. For one machine and for ``JOBDIR`` crawls.

The URL reads as SQLAlchemy reads it: ``sqlite:///relative/path.db`` (three
slashes) is relative to the working directory, ``sqlite:////absolute/path.db``
(four slashes) is absolute. Folders are never created: a missing one is a
start-up error (:mod:`.crawl._config`), not a new folder where a typo points.

Several crawls may share the file: SQLite's own locking serialises writers
(``BEGIN IMMEDIATE`` with a busy timeout), and the fetch lock is a row with
an expiry, so that a crashed crawl cannot hold an origin forever. The row
keeps its holder's token after it lapses or is released: a crawl whose lock
lapsed and was taken over cannot overwrite the newer crawl's record
(:meth:`SqliteStore.put`), as with Redis's fencing tokens. Records do not
expire.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from typing import TYPE_CHECKING, TypeVar

from ._base import Record, StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

#: How every SQLite store URL starts.
SCHEME = "sqlite://"
#: ``sqlite://`` and the slash that ends its (empty) host part.
_PREFIX = SCHEME + "/"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (origin TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL
);
"""
#: Seconds a call waits for another process's write to finish before the
#: store counts as failed (and the crawl goes on with memory only).
_BUSY_TIMEOUT = 30.0

T = TypeVar("T")


def sqlite_path(url: str) -> str:
    """The file an ``sqlite://`` URL names, as given (relative or absolute);
    ``ValueError`` says what is wrong with a URL that names none."""
    rest = url[len(SCHEME) :] if url.startswith(SCHEME) else None
    if rest is None:
        raise ValueError(f"it does not start with {SCHEME}")
    if rest in ("", "/"):
        raise ValueError("it names no file")
    if not rest.startswith("/"):
        # SQLAlchemy's reading: what follows sqlite:// up to the next slash
        # is a host, and SQLite has none.
        host = rest.partition("/")[0]
        raise ValueError(f"{host!r} is in the host's place, and an SQLite URL has no host")
    path = rest[1:]
    if "?" in path:
        raise ValueError("query options (?...) are not supported")
    return path


def sqlite_url(path: str) -> str:
    """The ``sqlite://`` URL of ``path``: the inverse of :func:`sqlite_path`."""
    return _PREFIX + path


class SqliteStore:
    """Records in one SQLite file; safe across threads and processes. Its
    folder must exist.

    Every :class:`StoreError` starts with ``source``, what the file came
    from: by default ``ROBOTSTXT_RFC_STORE ('sqlite:///<path>')``.
    """

    def __init__(self, path: str, *, source: str | None = None) -> None:
        self.path = path
        self.source = source or f"ROBOTSTXT_RFC_STORE ({sqlite_url(path)!r})"
        self._mutex = threading.Lock()
        self._tokens: dict[str, str] = {}
        try:
            self._db = sqlite3.connect(
                path, timeout=_BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            self._db.execute("SELECT count(*) FROM records").fetchone()
        except (sqlite3.Error, OSError) as exc:
            where = os.path.abspath(path)
            raise StoreError(f"{self.source}: cannot use the SQLite file {where}: {exc}") from exc

    def _run(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        with self._mutex:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"{self.source}: {exc}") from exc

    def get(self, origin: str) -> Record | None:
        rows = self._run("SELECT data FROM records WHERE origin = ?", (origin,))
        if not rows:
            return None
        data = rows[0][0]
        if not isinstance(data, bytes):
            raise StoreError(f"{self.source}: the record of {origin} is not a blob")
        try:
            return Record.decode(data)
        except StoreError as exc:
            raise StoreError(f"{self.source}: {origin}: {exc}") from exc

    def _transaction(self, body: Callable[[sqlite3.Connection], T]) -> T:
        """``body(db)`` in one write transaction: other processes wait."""
        with self._mutex:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    result = body(self._db)
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"{self.source}: {exc}") from exc
        return result

    def put(self, origin: str, record: Record) -> bool:
        """Store ``record``; under our lease, ``False`` (nothing written)
        when it lapsed and another crawl took it since (fencing, as in
        :meth:`.stores._redis.RedisStore.put`)."""
        token = self._tokens.get(origin)

        def write(db: sqlite3.Connection) -> bool:
            if token is not None:
                row = db.execute("SELECT token FROM locks WHERE origin = ?", (origin,)).fetchone()
                if row is not None and row[0] != token:
                    return False
            db.execute(
                "INSERT OR REPLACE INTO records (origin, data) VALUES (?, ?)",
                (origin, record.encode()),
            )
            return True

        return self._transaction(write)

    def acquire(self, origin: str, ttl: float) -> bool:
        token = uuid.uuid4().hex

        def take(db: sqlite3.Connection) -> bool:
            now = time.time()
            row = db.execute("SELECT expires FROM locks WHERE origin = ?", (origin,)).fetchone()
            if row is not None and row[0] > now:
                return False
            db.execute(
                "INSERT OR REPLACE INTO locks (origin, token, expires) VALUES (?, ?, ?)",
                (origin, token, now + ttl),
            )
            return True

        taken = self._transaction(take)
        if taken:
            self._tokens[origin] = token
        return taken

    def renew(self, origin: str, ttl: float) -> bool:
        """Extend our lease: only while it has not lapsed, as in Redis."""
        token = self._tokens.get(origin)
        if token is None:
            return False

        def extend(db: sqlite3.Connection) -> bool:
            now = time.time()
            cursor = db.execute(
                "UPDATE locks SET expires = ? WHERE origin = ? AND token = ? AND expires > ?",
                (now + ttl, origin, token, now),
            )
            return cursor.rowcount == 1

        return self._transaction(extend)

    def release(self, origin: str) -> None:
        token = self._tokens.pop(origin, None)
        if token is not None:
            # The row stays, expired: its token fences out a holder whose
            # lease lapsed before ours and who writes late (put).
            self._run(
                "UPDATE locks SET expires = 0 WHERE origin = ? AND token = ?", (origin, token)
            )

    def ping(self) -> None:
        """Raise :class:`StoreError` unless the file can be read."""
        self._run("SELECT 1 FROM records LIMIT 1")

    def close(self) -> None:
        with self._mutex:
            self._db.close()
