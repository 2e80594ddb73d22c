"""What is particular to the SQLite store, against real files: the URL
forms, the folder never created, ``JOBDIR``'s file, corruption, and two
processes racing for the same origins. What every store does (round trips,
versions, garbage, leases, threads) is in ``test_store_contract.py``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from scrapy_robots_rfc.stores import open_store
from scrapy_robots_rfc.stores._base import Record, StoreError
from scrapy_robots_rfc.stores._sqlite import SqliteStore, sqlite_path, sqlite_url

ROOT = Path(__file__).resolve().parents[2]


def record(body: bytes | None = b"User-agent: *\nDisallow: /x\n", **changes: object) -> Record:
    fields: dict[str, object] = {
        "good": True,
        "body": body,
        "status": 200,
        "outcome": "200",
        "fetched_at": 1_000.0,
        "expires_at": 87_400.0,
    }
    fields.update(changes)
    return Record(**fields)  # type: ignore[arg-type]


def read_one(path: Path) -> Record | None:
    """Open the file and read a record: the error may come from either."""
    return SqliteStore(str(path)).get("http://h1")


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda p: p.write_bytes(p.read_bytes()[:100]), id="truncated"),
        pytest.param(lambda p: p.write_bytes(b"not a database at all" * 100), id="overwritten"),
    ],
)
def test_a_corrupted_file_is_a_store_error(tmp_path, damage):
    path = tmp_path / "broken.db"
    s = SqliteStore(str(path))
    for i in range(50):
        s.put(f"http://h{i}", record())
    s.close()
    for suffix in ("-wal", "-shm"):
        Path(f"{path}{suffix}").unlink(missing_ok=True)
    damage(path)
    with pytest.raises(StoreError) as info:
        read_one(path)
    assert str(info.value).startswith(f"ROBOTSTXT_RFC_STORE ('sqlite:///{path}'): ")


def test_open_store_falls_back_to_memory_on_a_corrupted_file(tmp_path, caplog):
    path = tmp_path / "broken.db"
    path.write_bytes(b"not a database at all" * 100)
    assert open_store(f"sqlite:///{path}", None) is None
    assert [r.getMessage() for r in caplog.records] == [
        f"The robots.txt store cannot be used (ROBOTSTXT_RFC_STORE ('sqlite:///{path}'): "
        f"cannot use the SQLite file {path}: file is not a database); robots.txt is cached "
        "in memory only for this crawl"
    ]


# -- the URL: sqlite:///relative/path.db, sqlite:////absolute/path.db -----------


@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("sqlite:///robots.db", "robots.db"),
        ("sqlite:///data/robots.db", "data/robots.db"),
        ("sqlite:////var/cache/robots.db", "/var/cache/robots.db"),
    ],
)
def test_the_url_names_a_path_as_sqlalchemy_reads_it(url, path):
    assert sqlite_path(url) == path
    assert sqlite_url(path) == url


def test_three_slashes_open_a_file_relative_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    store = open_store("sqlite:///data/robots.db", None)
    assert isinstance(store, SqliteStore)
    store.put("http://h", record())
    store.close()
    assert SqliteStore(str(tmp_path / "data" / "robots.db")).get("http://h") == record()


def test_four_slashes_open_an_absolute_path(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "elsewhere").mkdir()
    url = f"sqlite:///{tmp_path / 'elsewhere' / 'robots.db'}"
    assert url.startswith("sqlite:////")
    store = open_store(url, None)
    assert isinstance(store, SqliteStore)
    store.put("http://h", record())
    store.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["elsewhere"]
    assert SqliteStore(str(tmp_path / "elsewhere" / "robots.db")).get("http://h") == record()


def test_a_missing_folder_is_never_created(tmp_path, caplog):
    path = tmp_path / "missing" / "robots.db"
    with pytest.raises(StoreError) as info:
        SqliteStore(str(path))
    assert str(info.value) == (
        f"ROBOTSTXT_RFC_STORE ('sqlite:///{path}'): cannot use the SQLite file {path}: "
        "unable to open database file"
    )
    assert list(tmp_path.iterdir()) == []


def test_jobdir_gets_a_store_by_default(tmp_path):
    store = open_store(None, str(tmp_path / "job"))
    assert isinstance(store, SqliteStore)
    path = tmp_path / "job" / "robotstxt_rfc.db"
    assert store.path == str(path)
    assert store.source == f"ROBOTSTXT_RFC_STORE (unset: with JOBDIR, 'sqlite:///{path}')"
    store.close()
    assert open_store(None, None) is None
    assert open_store("memory", str(tmp_path)) is None


def test_a_jobdir_that_cannot_be_created_falls_back_to_memory(tmp_path, caplog):
    (tmp_path / "file").write_text("")
    jobdir = tmp_path / "file" / "job"
    assert open_store(None, str(jobdir)) is None
    source = f"ROBOTSTXT_RFC_STORE (unset: with JOBDIR, 'sqlite:///{jobdir}/robotstxt_rfc.db')"
    assert [r.getMessage() for r in caplog.records] == [
        f"The robots.txt store cannot be used ({source}: cannot create JOBDIR: [Errno 20] "
        f"Not a directory: '{jobdir}'); robots.txt is cached in memory only for this crawl"
    ]


RACER = """
import sys
sys.path.insert(0, {root!r})
from scrapy_robots_rfc.stores._sqlite import SqliteStore
store = SqliteStore({path!r})
won = [i for i in range(50) if store.acquire(f"http://o{{i}}", 600)]
print(" ".join(map(str, won)))
"""


def test_two_processes_racing_for_origins_get_one_winner_each(tmp_path):
    path = str(tmp_path / "race.db")
    SqliteStore(path).close()
    script = RACER.format(root=str(ROOT), path=path)
    racers = [
        subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
        for _ in range(2)
    ]
    wins = [set(map(int, p.communicate(timeout=60)[0].split())) for p in racers]
    assert all(p.returncode == 0 for p in racers)
    assert wins[0] | wins[1] == set(range(50))
    assert not wins[0] & wins[1], "no origin was won twice"
