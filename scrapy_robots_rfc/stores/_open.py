"""Opening the store ``ROBOTSTXT_RFC_STORE`` names, and closing it."""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from ._base import METHODS, Store, StoreError
from ._redis import DEFAULT_FETCH_BOUND, RedisStore
from ._redis import SCHEMES as REDIS_SCHEMES
from ._redis_fleet import DEFAULT_LEASE, RECORD_TTL
from ._sqlite import SCHEME as SQLITE
from ._sqlite import SqliteStore, sqlite_path, sqlite_url

if TYPE_CHECKING:
    from scrapy.crawler import Crawler

#: The stores' own logger, named after the package as before it had modules.
logger = logging.getLogger(__package__ or __name__)

MEMORY = "memory"
SCHEMES = (MEMORY, SQLITE, *REDIS_SCHEMES)
#: The setting every store error names.
SETTING = "ROBOTSTXT_RFC_STORE"
_JOBDIR_DB = "robotstxt_rfc.db"


def jobdir_path(jobdir: str) -> str:
    """The SQLite file that holds the records of a crawl with ``JOBDIR`` and
    no ``ROBOTSTXT_RFC_STORE`` (absolute)."""
    return os.path.abspath(os.path.join(jobdir, _JOBDIR_DB))


#: Dotted Python names, at least two: what ``load_object`` can import.
_IMPORT_PATH = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z")


def is_import_path(value: str) -> bool:
    """Whether ``value`` names a class by its import path
    (``"myproject.stores.MyStore"``) rather than a store URL."""
    return _IMPORT_PATH.match(value) is not None


def missing_methods(cls: type[Any]) -> list[str]:
    """The methods of :class:`.stores._base.Store` that ``cls`` lacks, in the
    protocol's order."""
    return [name for name in METHODS if not callable(getattr(cls, name, None))]


def build_store(value: str | type[Any], crawler: Crawler) -> Store:
    """The store of the class ``value`` (its import path or itself),
    loaded with Scrapy's ``load_object`` and built as Scrapy builds a
    component: ``from_crawler(crawler)`` if the class has it
    (``build_from_crawler``), else ``cls(settings)``, as
    ``HTTPCACHE_STORAGE`` is."""
    from scrapy.utils.misc import build_from_crawler, load_object

    cls = load_object(value)
    store: Store
    if hasattr(cls, "from_crawler"):
        store = build_from_crawler(cls, crawler)
    else:
        store = cls(crawler.settings)
    return store


def store_named(
    value: str | type[Any] | None,
    jobdir: str | None,
    *,
    crawler: Crawler | None = None,
    lease: float = DEFAULT_LEASE,
    ttl: float = RECORD_TTL,
    fetch_bound: float = DEFAULT_FETCH_BOUND,
) -> Store | None:
    """The store ``value`` names (``None`` for memory), a value that
    :meth:`.Config.from_settings` has checked, built but not opened: the
    built-in stores touch no file and no server until :func:`open_now` or
    their first call, which the crawl makes off the reactor
    (:class:`.SharedStore`). With no value and a ``jobdir``, an SQLite file
    in it (the folder is created, as Scrapy creates ``JOBDIR``). A Redis
    store gets the crawl's ``lease``, the ``ttl`` of its records and the
    ``fetch_bound`` of a robots.txt fetch (``ROBOTSTXT_RFC_LEASE``,
    ``ROBOTSTXT_RFC_STORE_TTL``, :attr:`.Config.fetch_bound`). A store class
    (:func:`build_store`) is built for ``crawler``.

    A store that cannot be built is logged at ERROR, naming the setting,
    and memory is used instead: a crawl never fails for its cache."""
    if value is None:
        if not jobdir:
            return None
        path = jobdir_path(jobdir)
        source = f"{SETTING} (unset: with JOBDIR, {sqlite_url(path)!r})"
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
        except OSError as exc:
            unusable(StoreError(f"{source}: cannot create JOBDIR: {exc}"))
            return None
        return _build(lambda: SqliteStore(path, source=source))
    if value == MEMORY:
        return None
    if isinstance(value, type) or is_import_path(value):
        if crawler is None:
            raise TypeError(f"{SETTING} names a store class: store_named needs the crawler")
        return _build(lambda: build_store(value, crawler))
    if value.startswith(SQLITE):
        return _build(lambda: SqliteStore(sqlite_path(value)))
    return _build(lambda: RedisStore(value, ttl=ttl, lease=lease, fetch_bound=fetch_bound))


def open_store(
    value: str | type[Any] | None,
    jobdir: str | None,
    *,
    crawler: Crawler | None = None,
    lease: float = DEFAULT_LEASE,
    ttl: float = RECORD_TTL,
    fetch_bound: float = DEFAULT_FETCH_BOUND,
) -> Store | None:
    """:func:`store_named`, opened now, in this thread (for tools and
    tests; a crawl opens its store off the reactor): ``None``, logged at
    ERROR, if it cannot be used."""
    store = store_named(
        value, jobdir, crawler=crawler, lease=lease, ttl=ttl, fetch_bound=fetch_bound
    )
    if store is None:
        return None
    try:
        open_now(store)
    except StoreError as exc:
        unusable(exc)
        store_close(store)
        return None
    return store


def open_now(store: Store) -> None:
    """Call the store's ``open()``, if it has one (:class:`.Store`,
    "Building"): connect, create the schema. Raises :class:`StoreError`,
    or :class:`.StoreBusy` if it gave up waiting for a lock."""
    open_ = getattr(store, "open", None)
    if callable(open_):
        open_()


def _build(make: Callable[[], Store]) -> Store | None:
    try:
        return make()
    except StoreError as exc:
        unusable(exc)
        return None


def unusable(error: StoreError, extra: Mapping[str, Any] | None = None) -> None:
    """Say that the store cannot be used in this crawl, and why."""
    logger.error(
        "The robots.txt store cannot be used (%(error)s); robots.txt is cached in memory only "
        "for this crawl",
        {"error": error},
        extra=extra,
    )


def store_close(store: Store) -> None:
    """Close ``store``, whatever state it is in."""
    try:
        store.close()
    except Exception:
        logger.debug("Error closing the robots.txt store", exc_info=True)
