"""A store of one's own, as a user writes one (``ROBOTSTXT_RFC_STORE`` names
its class): records in a dict, for the tests of a store class and of the
setting."""

from __future__ import annotations

import threading
from typing import Any, ClassVar

from scrapy.crawler import Crawler
from scrapy.settings import BaseSettings

from scrapy_robots_rfc.stores import Record


class DictStore:
    """Records in a dict shared by every instance (so a second crawl reads
    what the first wrote), encoded as a store that keeps bytes would; every
    call is recorded with the thread it came from. Built with
    ``cls(settings)``: it has no ``from_crawler``."""

    shelf: ClassVar[dict[str, bytes]] = {}
    calls: ClassVar[list[tuple[str, str, int]]] = []
    built: ClassVar[list[Any]] = []
    lock = threading.Lock()

    def __init__(self, settings: BaseSettings) -> None:
        self.built.append(settings)
        self.source = "a dict"

    def _call(self, method: str, origin: str = "") -> None:
        with self.lock:
            self.calls.append((method, origin, threading.get_ident()))

    def get(self, origin: str) -> Record | None:
        self._call("get", origin)
        with self.lock:
            data = self.shelf.get(origin)
        return None if data is None else Record.decode(data)

    def put(self, origin: str, record: Record) -> bool:
        self._call("put", origin)
        with self.lock:
            self.shelf[origin] = record.encode()
        return True

    def acquire(self, origin: str, ttl: float) -> bool:
        self._call("acquire", origin)
        return True

    def renew(self, origin: str, ttl: float) -> bool:
        self._call("renew", origin)
        return True

    def release(self, origin: str) -> None:
        self._call("release", origin)

    def ping(self) -> None:
        self._call("ping")

    def close(self) -> None:
        self._call("close")


class CrawlerDictStore(DictStore):
    """The same, built with ``from_crawler(crawler)``."""

    def __init__(self, crawler: Crawler) -> None:
        super().__init__(crawler.settings)
        self.built[-1] = crawler

    @classmethod
    def from_crawler(cls, crawler: Crawler) -> CrawlerDictStore:
        return cls(crawler)
