"""Stores behind the middleware's cache: ``ROBOTSTXT_RFC_STORE``.

- ``"memory"`` (the default): the in-process LRU only; nothing outlives the
  crawl.
- ``"sqlite:///path/to/file.db"``: an SQLite file (``sqlite://relative.db``
  for a path relative to the working directory). With ``JOBDIR`` set and no
  store named, ``JOBDIR/robotstxt_rfc.db``.
- ``"redis://host:port/db"`` (also ``rediss://``, ``unix://``): shared by every
  crawler that points at it.
"""

from __future__ import annotations

import logging
import os

from .base import FORMAT_VERSION, Record, Store, StoreError

logger = logging.getLogger(__name__)

MEMORY = "memory"
SCHEMES = ("memory", "sqlite://", "redis://", "rediss://", "unix://")
_JOBDIR_DB = "robotstxt_rfc.db"

__all__ = [
    "FORMAT_VERSION",
    "MEMORY",
    "SCHEMES",
    "Record",
    "Store",
    "StoreError",
    "open_store",
    "store_close",
    "valid_store",
]


def valid_store(value: str) -> bool:
    """Whether ``value`` names a store this package knows."""
    return value == MEMORY or (value != "sqlite://" and value.startswith(SCHEMES[1:]))


def open_store(value: str | None, jobdir: str | None) -> Store | None:
    """The store ``value`` names (``None`` for memory). A store that cannot
    be opened is logged at ERROR and memory is used instead: a
    crawl never fails for its cache."""
    if value is None:
        if not jobdir:
            return None
        value = "sqlite://" + os.path.abspath(os.path.join(jobdir, _JOBDIR_DB))
    if value == MEMORY:
        return None
    try:
        if value.startswith("sqlite://"):
            from .sqlite import SqliteStore

            return SqliteStore(value[len("sqlite://") :])
        from .redis import RedisStore

        return RedisStore(value)
    except StoreError as exc:
        logger.error(
            "The robots.txt store %(store)s cannot be used (%(error)s); robots.txt is cached in "
            "memory only for this crawl",
            {"store": value, "error": exc},
        )
        return None


def store_close(store: Store) -> None:
    """Close ``store``, whatever state it is in."""
    try:
        store.close()
    except Exception:
        logger.debug("Error closing the robots.txt store", exc_info=True)
