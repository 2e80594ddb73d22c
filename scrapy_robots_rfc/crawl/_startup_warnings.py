"""Start-up warnings for a project migrating from Scrapy's built-in
robots.txt middleware (docs/activation.rst, "Migrating from the built-in")."""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.utils.python import global_object_name

from ._config import TDM_SETTING, tdm_asked
from .addon import OURS, OURS_SPIDER, OURS_TDM_SPIDER, TDM_SPIDER_PRIORITY, component
from .robotparser import RobotParser

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.crawler import Crawler

    from ..robotstxt import Mode
    from ._config import Config

logger = logging.getLogger(__name__)


def warn_about_builtin(crawler: Crawler, spider: Spider) -> bool:
    """Warn when Scrapy's built-in robots.txt middleware runs beside this
    one, and say whether it does. Read off the middlewares the engine
    built, so that it holds whichever way the project named them."""
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as Builtin

    engine = crawler.engine
    if engine is None:
        return False
    for found in engine.downloader.middleware.middlewares:
        if isinstance(found, Builtin):
            path = global_object_name(type(found))
            logger.warning(
                "Scrapy's built-in robots.txt middleware (%(path)r) is enabled beside "
                "%(ours)r: robots.txt is fetched twice per origin, and the built-in drops "
                "requests by its own rules; it writes the same robotstxt/* stats (forbidden, "
                "request_count...), so they count its requests with this package's, and the "
                'summary line says which are its. Add "%(path)s": None to '
                'DOWNLOADER_MIDDLEWARES, or use ADDONS = {"scrapy_robots_rfc.Addon": 100} '
                "instead, which does that for you.",
                {"path": path, "ours": OURS},
                extra={"spider": spider},
            )
            return True
    return False


def warn_about_robotstxt_parser(crawler: Crawler, mode: Mode) -> None:
    """Warn at start-up when the project sets ``ROBOTSTXT_PARSER``, which
    this middleware does not use."""
    from scrapy.settings import SETTINGS_PRIORITIES

    settings = crawler.settings
    parser = settings.get("ROBOTSTXT_PARSER")
    chosen = (settings.getpriority("ROBOTSTXT_PARSER") or 0) > SETTINGS_PRIORITIES["default"]
    if chosen and component(parser) is not RobotParser:
        logger.warning(
            "ROBOTSTXT_PARSER (%(parser)r) is not used by %(ours)r, which parses robots.txt "
            "itself as ROBOTSTXT_RFC_MODE (%(mode)r) says. Remove ROBOTSTXT_PARSER, or set "
            'ROBOTSTXT_RFC_MODE = "google" for the verdicts of Google\'s parser.',
            {"parser": parser, "ours": OURS, "mode": mode},
        )


def warn_about_page_rules(crawler: Crawler, spider: Spider, config: Config) -> None:
    """Warn when the crawl asks for page-level rules to be honoured
    (``ROBOTSTXT_RFC_NOFOLLOW``, ``ROBOTSTXT_RFC_NOINDEX``) but the spider
    middleware that honours them is not enabled (a project that lists the
    middlewares itself instead of using the add-on). It is found by name,
    as Scrapy loads components."""
    if not config.page_rules:
        return
    cls = component(OURS_SPIDER)
    if isinstance(cls, type) and crawler.get_spider_middleware(cls) is not None:
        return
    asked = []
    if config.nofollow:
        asked.append("ROBOTSTXT_RFC_NOFOLLOW")
    if config.noindex == "drop":
        asked.append("ROBOTSTXT_RFC_NOINDEX")
    logger.warning(
        "%(asked)s asks for page-level rules to be honoured, but %(ours)r is not in "
        'SPIDER_MIDDLEWARES: nothing is dropped. Add "%(ours)s": 950 to '
        'SPIDER_MIDDLEWARES, or use ADDONS = {"scrapy_robots_rfc.Addon": 100}.',
        {"asked": " and ".join(asked), "ours": OURS_SPIDER},
        extra={"spider": spider},
    )


def warn_about_tdm_without_obey(crawler: Crawler) -> None:
    """The WARNING of a crawl that says it mines (``ROBOTSTXT_RFC_TDM``)
    with ``ROBOTSTXT_OBEY`` off: the middleware that honours TDM
    reservations is not configured, so none is honoured (T-4). Never
    silently nothing."""
    if not tdm_asked(crawler.settings):
        return
    logger.warning(
        "TDM reservations are not honoured: %(setting)s is on but ROBOTSTXT_OBEY is off, "
        "so %(ours)s, which reads /.well-known/tdmrep.json, is not configured: no URL is "
        "checked and every item reaches the pipeline. Set ROBOTSTXT_OBEY = True to honour "
        "them (docs/tdmrep.rst)",
        {"setting": TDM_SETTING, "ours": OURS},
        extra={"crawler": crawler},
    )


def warn_about_tdm_items(crawler: Crawler, spider: Spider, config: Config) -> None:
    """Warn when the crawl mines (``ROBOTSTXT_RFC_TDM``) but the spider
    middleware that keeps the items of reserved pages from the pipeline is
    not enabled (a project that lists the middlewares itself)."""
    if not config.tdm:
        return
    cls = component(OURS_TDM_SPIDER)
    if isinstance(cls, type) and crawler.get_spider_middleware(cls) is not None:
        return
    logger.warning(
        "%(setting)s is on, but %(ours)r is not in SPIDER_MIDDLEWARES: URLs that "
        "tdmrep.json reserves are not downloaded, but the items of pages whose header or "
        'meta tag reserves them reach the pipeline. Add "%(ours)s": %(priority)d to '
        'SPIDER_MIDDLEWARES, or use ADDONS = {"scrapy_robots_rfc.Addon": 100}.',
        {"setting": TDM_SETTING, "ours": OURS_TDM_SPIDER, "priority": TDM_SPIDER_PRIORITY},
        extra={"spider": spider},
    )
