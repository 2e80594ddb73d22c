"""Two figures of the SQLite store (issue 41): what its health probe
costs, and whether processes that open the same new file together all
succeed.

* **The probe** (``SqliteStore.ping``): on a new connection, a check of
  every page of the file (``PRAGMA quick_check``), then a row written to
  the records and locks tables, read back and deleted, committed. Asked
  only while the store is set aside after an error (1 s after it, then at
  doubling intervals of up to 60 s). Timed on files of N records of B bytes
  each (written in one transaction, checkpointed), 3 times each, best and
  worst; the file is in the system's cache, as a store in use is.
* **New files opened together**: P processes each open the same new file
  (``SqliteStore.open()``, then a ``put`` of a record of its own), all at
  the same moment (each waits for a wall-clock start, to the millisecond),
  R times, a new file each time; the failed opens are counted, with their
  messages. SQLite refuses the switch to WAL at once while another
  connection writes; the store tries again within its 0.5 s bound.

Run it directly (about 20 s; ``--quick``: smaller files, 20 rounds)::

    .venv/bin/python benchmarks/bench_sqlite_probe.py
    .venv/bin/python benchmarks/bench_sqlite_probe.py --quick

It is a script, not a test: it asserts nothing about the figures
(tests/stores/test_store_sqlite.py checks the behaviour).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from scrapy_robots_rfc.stores._base import Record  # noqa: E402
from scrapy_robots_rfc.stores._sqlite import SqliteStore  # noqa: E402

_SCHEMA = """
CREATE TABLE records (origin TEXT PRIMARY KEY, data BLOB NOT NULL);
CREATE TABLE locks (origin TEXT PRIMARY KEY, token TEXT NOT NULL, expires REAL NOT NULL);
"""


def probe_cost(folder: Path, records: int, size: int) -> tuple[float, float, float]:
    """The file's size in MB, and the best and worst of 3 probes, in ms."""
    path = folder / f"probe-{records}-{size}.db"
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(_SCHEMA)
    body = (b"User-agent: *\nDisallow: /x\n" * (size // 27 + 1))[:size]
    data = Record(
        good=True, body=body, status=200, outcome="200", fetched_at=1.0, expires_at=2.0
    ).encode()
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO records VALUES (?, ?)",
        ((f"https://o{i}.example:443", data) for i in range(records)),
    )
    db.execute("COMMIT")
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    db.close()
    store = SqliteStore(str(path))
    times = []
    for _ in range(3):
        start = time.perf_counter()
        store.ping()
        times.append((time.perf_counter() - start) * 1000)
    store.close()
    return os.path.getsize(path) / 1e6, min(times), max(times)


_OPENER = """
import sys, time
sys.path.insert(0, {root!r})
from scrapy_robots_rfc.stores._base import Record, StoreError
from scrapy_robots_rfc.stores._sqlite import SqliteStore
record = Record(good=True, body=b"", status=200, outcome="200", fetched_at=1.0, expires_at=2.0)
folder, start, rounds, every, me = sys.argv[1:]
start, every = float(start), float(every)
for n in range(int(rounds)):
    go = start + n * every
    time.sleep(max(0.0, go - time.time() - 0.002))
    while time.time() < go:
        pass
    store = SqliteStore(f"{{folder}}/{{n}}.db")
    try:
        store.open()
        store.put(f"http://{{me}}", record)
    except StoreError as exc:
        print(str(exc).split("): ", 1)[1], flush=True)
    store.close()
"""


def opened_together(folder: Path, processes: int, rounds: int) -> Counter[str]:
    """The failed opens of ``processes`` opening a new file together,
    ``rounds`` times: their messages, counted."""
    every = 0.05
    start = time.time() + 2.0
    argv = [str(folder), str(start), str(rounds), str(every)]
    script = _OPENER.format(root=str(ROOT))
    openers = [
        subprocess.Popen(
            [sys.executable, "-c", script, *argv, str(me)], stdout=subprocess.PIPE, text=True
        )
        for me in range(processes)
    ]
    return Counter(line for p in openers for line in p.communicate()[0].splitlines())


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smaller files, 20 rounds")
    args = parser.parse_args(argv)
    sizes = [(1_000, 5_000), (2_000, 20_000)] if args.quick else [(10_000, 5_000), (2_000, 100_000)]
    rounds = 20 if args.quick else 50
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("SqliteStore.ping (quick_check of the whole file, then a committed write):")
        for records, size in sizes:
            mb, best, worst = probe_cost(folder, records, size)
            print(
                f"  {records:,} records of {size:,} B, a {mb:,.0f} MB file: "
                f"{best:,.0f} ms best, {worst:,.0f} ms worst of 3"
            )
        for processes in (2, 4):
            race = folder / f"race{processes}"
            race.mkdir()
            failed = opened_together(race, processes, rounds)
            total = sum(failed.values())
            print(
                f"{processes} processes opening a new file together, {rounds} times: "
                f"{total} of {processes * rounds} opens failed"
            )
            for message, count in failed.items():
                print(f"  {count} x {message}")


if __name__ == "__main__":
    main()
