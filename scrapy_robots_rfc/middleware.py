"""Kept for the settings path ``scrapy_robots_rfc.middleware.RobotsTxtMiddleware``
(``DOWNLOADER_MIDDLEWARES``); the middleware lives in :mod:`.crawl.middleware`."""

from __future__ import annotations

from .crawl.middleware import RobotsTxtMiddleware

__all__ = ["RobotsTxtMiddleware"]
