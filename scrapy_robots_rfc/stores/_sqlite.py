"""``ROBOTSTXT_RFC_STORE = "sqlite:///path/to/file.db"``: records in an
SQLite file, with no server. For one machine and for ``JOBDIR`` crawls.

The URL reads as SQLAlchemy reads it: ``sqlite:///relative/path.db`` (three
slashes) is relative to the working directory, ``sqlite:////absolute/path.db``
(four slashes) is absolute. Folders are never created: a missing one is a
start-up error (:mod:`.crawl._config`), not a new folder where a typo points.

Several crawls may share the file: SQLite's own locking serialises writers
(``BEGIN IMMEDIATE``), and the fetch lock is a row with an expiry, so that a
crashed crawl cannot hold an origin forever. The row keeps its holder's
token after it lapses or is released: a crawl whose lock lapsed and was
taken over cannot overwrite the newer crawl's record
(:meth:`SqliteStore.put`), as with Redis's fencing tokens. Records do not
expire.

A call waits at most :data:`BUSY_TIMEOUT` for a lock another connection
holds (another process's transaction), then fails with
:class:`~.stores._base.StoreBusy`: the crawl goes on with memory until the
store answers again (docs/stores.rst, "Stores"). Each call has a
connection of its own, so that no call waits behind another's wait. The
file's set-up (the switch to WAL, the tables) waits within the same bound,
trying again where SQLite itself gives up at once: several processes that
open a new file together each find it set up, or set it up.

The health probe (:meth:`SqliteStore.ping`) proves what the crawl needs:
every page of the file reads back sound, and a write to the records and
locks tables goes through, so that a store whose records table is damaged
in part (the crawl's reads and writes fail while one row still reads) is
never said to answer again.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid
from typing import TYPE_CHECKING, TypeVar

from .._logging import duration
from ._base import Record, StoreBusy, StoreError

if TYPE_CHECKING:
    from collections.abc import Callable

#: How every SQLite store URL starts.
SCHEME = "sqlite://"
#: ``sqlite://`` and the slash that ends its (empty) host part.
_PREFIX = SCHEME + "/"

#: The tables. Each statement is its own transaction, and takes the write
#: lock only when its table is missing: a file whose write lock another
#: process holds still opens, and its reads answer (WAL).
_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (origin TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL
);
"""
#: The origin of the rows the health probe writes and deletes: no origin
#: is empty (``scheme://host:port``).
_PROBE_ORIGIN = ""
#: What the probe writes in the records table and reads back.
_PROBE_DATA = b"robotstxt-rfc probe"
#: Seconds a call waits for a lock that another connection holds before it
#: gives up (:class:`StoreBusy`), and the crawl goes on with memory until the
#: store answers again: a write of ours holds the lock for milliseconds, and
#: every robots.txt behind a longer wait would wait too (SQLite's own
#: default of 5 s in Python, 30 s here before, held the crawl).
BUSY_TIMEOUT = 0.5
#: Seconds between two tries of the file's set-up that SQLite refused at
#: once, doubling up to :data:`_SET_UP_PAUSE_MAX`, within :data:`BUSY_TIMEOUT`
#: in all (SQLite's own busy handler sleeps 1 ms, then 2, 5, 10... likewise).
_SET_UP_PAUSE = 0.001
_SET_UP_PAUSE_MAX = 0.025

T = TypeVar("T")


def _busy(exc: sqlite3.Error) -> bool:
    """Whether ``exc`` is a lock that another connection holds
    (``SQLITE_BUSY``, ``SQLITE_LOCKED`` and their extended codes)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code is not None and code & 0xFF in (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


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

    Nothing is read or written until :meth:`open` or the first call, which
    connect, switch the file to WAL and create the tables, in the caller's
    thread (the middleware's are never the reactor's). Every
    :class:`StoreError` starts with ``source``, what the file came from: by
    default ``ROBOTSTXT_RFC_STORE ('sqlite:///<path>')``. ``timeout`` is how
    long a call waits for a lock another connection holds.
    """

    def __init__(
        self, path: str, *, source: str | None = None, timeout: float = BUSY_TIMEOUT
    ) -> None:
        self.path = path
        self.source = source or f"ROBOTSTXT_RFC_STORE ({sqlite_url(path)!r})"
        self.timeout = timeout
        self._tokens: dict[str, str] = {}
        #: Guards the idle connections and the flags below; never held while
        #: SQLite works, so that one call never waits for another.
        self._lock = threading.Lock()
        self._idle: list[sqlite3.Connection] = []
        #: Whether the file is set up (WAL, tables): done once, by the first
        #: connection that gets its lock.
        self._ready = False
        self._closed = False

    def open(self) -> None:
        """Connect, switch the file to WAL and create the tables, unless done
        already. :class:`StoreError` if the file cannot be used (not a
        database, no permission); :class:`StoreBusy` if another connection
        holds its lock for longer than ``timeout`` (the next call tries
        again)."""
        self._call(lambda db: None)

    def _connection(self, *, fresh: bool = False) -> sqlite3.Connection:
        """An idle connection, or a new one (``fresh``: always a new one),
        setting the file up first if no connection did yet."""
        with self._lock:
            if self._closed:
                raise StoreError(f"{self.source}: the store is closed")
            if self._idle and not fresh:
                return self._idle.pop()
        try:
            db = sqlite3.connect(
                self.path, timeout=self.timeout, check_same_thread=False, isolation_level=None
            )
        except sqlite3.Error as exc:
            raise self._error(exc, opening=True) from exc
        try:
            if not self._ready:
                self._set_up(db)
                self._ready = True
            self._sync_at_checkpoints(db)
        except BaseException:
            db.close()
            raise
        return db

    def _sync_at_checkpoints(self, db: sqlite3.Connection) -> None:
        """In WAL mode, let a commit go without waiting for the disk
        (``synchronous = NORMAL``; the WAL is synced at its checkpoints): a
        write holds the file's lock for the time of the write, not of a disk
        sync, which on a busy disk took 0.2 to 0.3 s, most of the 0.5 s that
        other calls wait (:data:`BUSY_TIMEOUT`). The file stays consistent
        whatever happens; a power loss may lose the last records written,
        which a crawl fetches again. A rollback-journal file (WAL refused
        by its file system, or forced by another program) keeps SQLite's
        full sync, without which a power loss may damage it."""
        try:
            if db.execute("PRAGMA journal_mode").fetchone() == ("wal",):
                db.execute("PRAGMA synchronous = NORMAL")
        except sqlite3.Error as exc:
            raise self._error(exc, opening=True) from exc

    def _set_up(self, db: sqlite3.Connection) -> None:
        """Switch the file to WAL and create the tables, waiting at most
        ``timeout`` for the locks this takes, as every call does.

        SQLite waits for a lock another connection holds (its busy handler)
        only when it starts a transaction, not when it must turn a read into
        a write: the switch to WAL does that, and is refused at once while
        another connection writes, as when several processes open a new file
        together (each switches it, and creates the tables). Such a refusal is
        tried again after a pause, each try waiting at most what is left of
        ``timeout``; past it, :class:`StoreBusy` says how long the file's lock
        was held and through how many tries."""
        deadline = time.monotonic() + self.timeout
        pause = _SET_UP_PAUSE
        tries = 0
        try:
            while True:
                tries += 1
                try:
                    db.execute("PRAGMA journal_mode=WAL").fetchone()
                    db.executescript(_SCHEMA)
                    db.execute("SELECT count(*) FROM records").fetchone()
                    break
                except sqlite3.Error as exc:
                    if db.in_transaction:
                        db.execute("ROLLBACK")
                    left = deadline - time.monotonic()
                    if not _busy(exc):
                        raise self._error(exc, opening=True) from exc
                    if left <= 0:
                        raise StoreBusy(
                            f"{self.source}: {exc} while the file was set up (its switch to "
                            f"WAL and its tables): another connection held its lock for more "
                            f"than {duration(self.timeout)} s ({tries} "
                            f"{'try' if tries == 1 else 'tries'})"
                        ) from exc
                time.sleep(min(pause, left))
                pause = min(pause * 2, _SET_UP_PAUSE_MAX)
                # The next try's own wait ends by the deadline too.
                left_ms = max(1, int((deadline - time.monotonic()) * 1000))
                db.execute(f"PRAGMA busy_timeout = {left_ms}")
            if tries > 1:
                db.execute(f"PRAGMA busy_timeout = {int(self.timeout * 1000)}")
        except sqlite3.Error as exc:  # a ROLLBACK or a PRAGMA busy_timeout
            raise self._error(exc, opening=True) from exc

    def _give_back(self, db: sqlite3.Connection) -> None:
        """Keep ``db`` for the next call; close it once the store is closed,
        or if a failure left it inside a transaction."""
        if not db.in_transaction:
            with self._lock:
                if not self._closed:
                    self._idle.append(db)
                    return
        db.close()

    def _error(self, exc: sqlite3.Error, *, opening: bool = False) -> StoreError:
        """The :class:`StoreError` of ``exc``: :class:`StoreBusy` when it is
        a lock that another connection held longer than ``timeout``."""
        if _busy(exc):
            return StoreBusy(
                f"{self.source}: {exc} (another connection held it for more than "
                f"{duration(self.timeout)} s)"
            )
        if opening:
            where = os.path.abspath(self.path)
            return StoreError(f"{self.source}: cannot use the SQLite file {where}: {exc}")
        return StoreError(f"{self.source}: {exc}")

    def _call(self, body: Callable[[sqlite3.Connection], T], *, fresh: bool = False) -> T:
        """``body(db)`` on a connection of this call's own (``fresh``: a new
        one). A connection that met anything but a lock held elsewhere is
        closed, not kept: it may hold pages of a damaged file in its cache."""
        db = self._connection(fresh=fresh)
        keep = False
        try:
            result = body(db)
            keep = True
            return result
        except sqlite3.Error as exc:
            error = self._error(exc)
            keep = isinstance(error, StoreBusy)
            raise error from exc
        finally:
            if keep:
                self._give_back(db)
            else:
                db.close()

    def _run(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        return self._call(lambda db: db.execute(sql, args).fetchall())

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
        """``body(db)`` in one write transaction, committed: other processes
        wait, at most their timeout."""

        def run(db: sqlite3.Connection) -> T:
            db.execute("BEGIN IMMEDIATE")
            try:
                result = body(db)
                db.execute("COMMIT")
            except BaseException:
                if db.in_transaction:
                    db.execute("ROLLBACK")
                raise
            return result

        return self._call(run)

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
        """Raise :class:`StoreError` unless the crawl could use the store
        now, reads and writes of its records included; on a new connection,
        whose cache holds nothing of the file yet.

        First every page of the file is read and checked (``PRAGMA
        quick_check``, which reads the whole file): a records table damaged
        in part fails the crawl's reads and writes of the origins on its
        damaged pages while other rows still read, so reading one row proves
        nothing. Then a row is written to the records table, read back, and
        deleted, and the same in the locks table, in one transaction that
        is committed: a write that cannot go through (a write lock another
        process holds, which a read of a WAL file does not wait for; a full
        disk) fails here. Nothing is left in either table."""

        def check(db: sqlite3.Connection) -> None:
            found = db.execute("PRAGMA quick_check(1)").fetchall()
            if found != [("ok",)]:
                said = "; ".join(
                    line
                    for row in found
                    for line in str(row[0]).splitlines()
                    if not line.startswith("***")
                )
                raise StoreError(f"{self.source}: the file is damaged (PRAGMA quick_check: {said})")

        def write(db: sqlite3.Connection) -> None:
            db.execute(
                "INSERT OR REPLACE INTO records (origin, data) VALUES (?, ?)",
                (_PROBE_ORIGIN, _PROBE_DATA),
            )
            read = db.execute("SELECT data FROM records WHERE origin = ?", (_PROBE_ORIGIN,))
            if read.fetchall() != [(_PROBE_DATA,)]:
                raise StoreError(f"{self.source}: a record written did not read back")
            db.execute("DELETE FROM records WHERE origin = ?", (_PROBE_ORIGIN,))
            db.execute(
                "INSERT OR REPLACE INTO locks (origin, token, expires) VALUES (?, '', 0)",
                (_PROBE_ORIGIN,),
            )
            db.execute("DELETE FROM locks WHERE origin = ?", (_PROBE_ORIGIN,))

        self._call(check, fresh=True)
        self._transaction(write)

    def close(self) -> None:
        """Close the idle connections; those of calls under way are closed
        as the calls end, and later calls fail."""
        with self._lock:
            self._closed = True
            idle, self._idle = self._idle, []
        for db in idle:
            db.close()
