"""Stores behind the middleware's cache: ``ROBOTSTXT_RFC_STORE``.

- ``"memory"`` (the default): the in-process LRU only; nothing outlives the
  crawl.
- ``"sqlite:///relative/path.db"`` (relative to the working directory) or
  ``"sqlite:////absolute/path.db"``: an SQLite file, in a folder that exists.
  With ``JOBDIR`` set and no store named, ``JOBDIR/robotstxt_rfc.db``.
- ``"redis://host:port/db"`` (also ``rediss://``, ``unix://``): shared by every
  crawler that points at it.

:mod:`..config` checks the value at start-up (:func:`.sqlite.sqlite_path`,
:func:`.redis.url_problem`); :func:`open_store` then opens it.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable

from .base import FORMAT_VERSION, Record, Store, StoreError
from .redis import DEFAULT_FETCH_BOUND, RedisStore
from .redis import SCHEMES as REDIS_SCHEMES
from .redis_fleet import DEFAULT_LEASE, RECORD_TTL
from .sqlite import SCHEME as SQLITE
from .sqlite import SqliteStore, sqlite_path, sqlite_url

logger = logging.getLogger(__name__)

MEMORY = "memory"
SCHEMES = (MEMORY, SQLITE, *REDIS_SCHEMES)
#: The setting every store error names.
SETTING = "ROBOTSTXT_RFC_STORE"
_JOBDIR_DB = "robotstxt_rfc.db"

__all__ = [
    "FORMAT_VERSION",
    "MEMORY",
    "REDIS_SCHEMES",
    "SCHEMES",
    "SETTING",
    "SQLITE",
    "Record",
    "Store",
    "StoreError",
    "open_store",
    "store_close",
]


def open_store(
    value: str | None,
    jobdir: str | None,
    *,
    lease: float = DEFAULT_LEASE,
    ttl: float = RECORD_TTL,
    fetch_bound: float = DEFAULT_FETCH_BOUND,
) -> Store | None:
    """The store ``value`` names (``None`` for memory), a value that
    :meth:`.Config.from_settings` has checked. With no value and a
    ``jobdir``, an SQLite file in it (the folder is created, as Scrapy
    creates ``JOBDIR``). A Redis store gets the crawl's ``lease``, the
    ``ttl`` of its records and the ``fetch_bound`` of a robots.txt fetch
    (``ROBOTSTXT_RFC_LEASE``, ``ROBOTSTXT_RFC_STORE_TTL``, :attr:`.Config.fetch_bound`).

    A store that cannot be opened is logged at ERROR, naming the setting,
    and memory is used instead: a crawl never fails for its cache."""
    if value is None:
        if not jobdir:
            return None
        path = os.path.abspath(os.path.join(jobdir, _JOBDIR_DB))
        source = f"{SETTING} (unset: with JOBDIR, {sqlite_url(path)!r})"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:
            _unusable(StoreError(f"{source}: cannot create JOBDIR: {exc}"))
            return None
        return _open(lambda: SqliteStore(path, source=source))
    if value == MEMORY:
        return None
    if value.startswith(SQLITE):
        return _open(lambda: SqliteStore(sqlite_path(value)))
    return _open(lambda: RedisStore(value, ttl=ttl, lease=lease, fetch_bound=fetch_bound))


def _open(make: Callable[[], Store]) -> Store | None:
    try:
        return make()
    except StoreError as exc:
        _unusable(exc)
        return None


def _unusable(error: StoreError) -> None:
    logger.error(
        "The robots.txt store cannot be used (%(error)s); robots.txt is cached in memory only "
        "for this crawl",
        {"error": error},
    )


def store_close(store: Store) -> None:
    """Close ``store``, whatever state it is in."""
    try:
        store.close()
    except Exception:
        logger.debug("Error closing the robots.txt store", exc_info=True)
