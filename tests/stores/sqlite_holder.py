"""Another process that holds an SQLite file's lock (``BEGIN EXCLUSIVE``,
or ``BEGIN IMMEDIATE``: its write lock only) until the test lets go: what a
backup, a ``sqlite3`` shell left open, a stuck crawl or another crawl
setting up the same new file does to a shared store (issues 35, 41)."""

from __future__ import annotations

import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

_HOLDER = """
import sqlite3, sys
db = sqlite3.connect(sys.argv[1], isolation_level=None)
db.execute("BEGIN " + sys.argv[2])
print("held", flush=True)
sys.stdin.read()  # until the test closes our stdin
db.execute("ROLLBACK")
"""

#: The tables of the store, as another crawl would have left them.
SCHEMA = """
CREATE TABLE IF NOT EXISTS records (origin TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS locks (
    origin TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL
);
"""


def make_store_file(path: Path, journal_mode: str) -> None:
    """A store file with its tables, in ``journal_mode`` (``WAL``, or
    ``DELETE`` for a rollback journal)."""
    db = sqlite3.connect(path, isolation_level=None)
    try:
        mode = db.execute(f"PRAGMA journal_mode={journal_mode}").fetchone()[0]
        assert mode.upper() == journal_mode.upper(), mode
        db.executescript(SCHEMA)
    finally:
        db.close()


@contextmanager
def held(path: Path, how: str = "EXCLUSIVE") -> Iterator[subprocess.Popen[str]]:
    """``path`` locked by ``BEGIN <how>`` in another process for the
    ``with`` block: ``EXCLUSIVE`` (readers of a rollback-journal file wait
    too), or ``IMMEDIATE`` (the write lock only, as a writer holds it); a
    file that does not exist is created, empty."""
    assert how in ("EXCLUSIVE", "IMMEDIATE"), how
    holder = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, str(path), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout is not None
        assert holder.stdout.readline().strip() == "held"
        yield holder
    finally:
        holder.communicate(timeout=30)  # closes stdin: the holder lets go
    assert holder.returncode == 0
