"""Stores behind the middleware's cache: ``ROBOTSTXT_RFC_STORE``.

- ``"memory"`` (the default): the in-process LRU only; nothing outlives the
  crawl.
- ``"sqlite:///relative/path.db"`` (relative to the working directory) or
  ``"sqlite:////absolute/path.db"``: an SQLite file, in a folder that exists.
  With ``JOBDIR`` set and no store named, ``JOBDIR/robotstxt_rfc.db``.
- ``"redis://host:port/db"`` (also ``rediss://``, ``unix://``): shared by every
  crawler that points at it.
- The import path of a class of your own that implements
  :class:`Store` (``"myproject.stores.MyStore"``), or the class itself,
  as Scrapy's ``HTTPCACHE_STORAGE`` is: built with ``from_crawler(crawler)``
  if it has one, else with ``cls(settings)`` (:func:`._open.build_store`).

The configuration (``crawl``) checks the value at start-up (:func:`sqlite_path`,
:func:`url_problem`, :func:`missing_methods`); :func:`store_named` then
builds it, and :class:`SharedStore` opens it off the reactor (or
:func:`open_store` at once, for tools and tests).
"""

from __future__ import annotations

from ._async import Claim, InForce, Lease, Ours, SharedStore, Unshared
from ._base import METHODS, Record, Store, StoreBusy, StoreError
from ._entries import entry_from_record, record_for
from ._open import (
    MEMORY,
    SETTING,
    is_import_path,
    jobdir_path,
    missing_methods,
    open_store,
    store_named,
)
from ._redis import INSTALL, RedisStore, redact, url_problem
from ._redis import SCHEMES as REDIS_SCHEMES
from ._redis_fleet import QUEUE_LAYOUTS, Layout, QueueTarget, RedisFleet
from ._sqlite import SCHEME as SQLITE
from ._sqlite import sqlite_path, sqlite_url

__all__ = [
    "INSTALL",
    "MEMORY",
    "METHODS",
    "QUEUE_LAYOUTS",
    "REDIS_SCHEMES",
    "SETTING",
    "SQLITE",
    "Claim",
    "InForce",
    "Layout",
    "Lease",
    "Ours",
    "QueueTarget",
    "Record",
    "RedisFleet",
    "RedisStore",
    "SharedStore",
    "Store",
    "StoreBusy",
    "StoreError",
    "Unshared",
    "entry_from_record",
    "is_import_path",
    "jobdir_path",
    "missing_methods",
    "open_store",
    "record_for",
    "redact",
    "sqlite_path",
    "sqlite_url",
    "store_named",
    "url_problem",
]
