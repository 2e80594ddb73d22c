"""``ROBOTSTXT_RFC_STORE = "sqlite:///path/to/file.db"``: records in an
SQLite file, with no server. For one machine and for ``JOBDIR`` crawls.

Several crawls may share the file: SQLite's own locking serialises writers
(``BEGIN IMMEDIATE`` with a busy timeout), and the fetch lock is a row with
an expiry, so that a crashed crawl cannot hold an origin forever.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
import uuid

from .base import Record, StoreError

__all__ = ["SqliteStore"]

_SCHEMA = """
CREATE TABLE IF NOT EXISTS records (origin TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL
);
"""
#: Seconds a call waits for another process's write to finish before the
#: store counts as failed (and the crawl goes on with memory only).
_BUSY_TIMEOUT = 30.0


class SqliteStore:
    """Records in one SQLite file; safe across threads and processes."""

    def __init__(self, path: str) -> None:
        self.path = path
        self._mutex = threading.Lock()
        self._tokens: dict[str, str] = {}
        directory = os.path.dirname(os.path.abspath(path))
        try:
            os.makedirs(directory, exist_ok=True)
            self._db = sqlite3.connect(
                path, timeout=_BUSY_TIMEOUT, check_same_thread=False, isolation_level=None
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            self._db.execute("SELECT count(*) FROM records").fetchone()
        except (sqlite3.Error, OSError) as exc:
            raise StoreError(f"cannot use the SQLite store {path}: {exc}") from exc

    def _run(self, sql: str, args: tuple[object, ...] = ()) -> list[tuple[object, ...]]:
        with self._mutex:
            try:
                return self._db.execute(sql, args).fetchall()
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc

    def get(self, origin: str) -> Record | None:
        rows = self._run("SELECT data FROM records WHERE origin = ?", (origin,))
        if not rows:
            return None
        data = rows[0][0]
        if not isinstance(data, bytes):
            raise StoreError(f"SQLite store {self.path}: the record of {origin} is not a blob")
        return Record.decode(data)

    def put(self, origin: str, record: Record) -> None:
        self._run(
            "INSERT OR REPLACE INTO records (origin, data) VALUES (?, ?)",
            (origin, record.encode()),
        )

    def acquire(self, origin: str, ttl: float) -> bool:
        token = uuid.uuid4().hex
        now = time.time()
        with self._mutex:
            try:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    row = self._db.execute(
                        "SELECT expires FROM locks WHERE origin = ?", (origin,)
                    ).fetchone()
                    if row is not None and row[0] > now:
                        self._db.execute("COMMIT")
                        return False
                    self._db.execute(
                        "INSERT OR REPLACE INTO locks (origin, token, expires) VALUES (?, ?, ?)",
                        (origin, token, now + ttl),
                    )
                    self._db.execute("COMMIT")
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
            except sqlite3.Error as exc:
                raise StoreError(f"SQLite store {self.path}: {exc}") from exc
        self._tokens[origin] = token
        return True

    def release(self, origin: str) -> None:
        token = self._tokens.pop(origin, None)
        if token is not None:
            self._run("DELETE FROM locks WHERE origin = ? AND token = ?", (origin, token))

    def close(self) -> None:
        with self._mutex:
            self._db.close()
