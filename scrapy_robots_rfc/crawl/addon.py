"""The add-on: ``ADDONS = {"scrapy_robots_rfc.Addon": 100}``.

It turns Scrapy's built-in ``RobotsTxtMiddleware`` off and puts
:class:`~scrapy_robots_rfc.RobotsTxtMiddleware` in its place, at
the same priority (100). ``ROBOTSTXT_OBEY`` still decides whether robots.txt
is obeyed: with it off, the middleware is not configured. It also enables
the spider middleware :class:`~scrapy_robots_rfc.PageRulesMiddleware` (950),
which is not configured unless the crawl asks for page-level rules to be
honoured (P-4), and :class:`~scrapy_robots_rfc.TdmReservationMiddleware`
(960), not configured unless the crawl mines (``ROBOTSTXT_RFC_TDM``, T-4).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.utils.misc import load_object

from ..exceptions import ConfigError
from ._config_errors import stop_crawl

if TYPE_CHECKING:
    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

__all__ = [
    "ADDON",
    "BUILTIN",
    "OURS",
    "OURS_SPIDER",
    "OURS_TDM_SPIDER",
    "PRIORITY",
    "SPIDER_PRIORITY",
    "TDM_SPIDER_PRIORITY",
    "Addon",
    "component",
    "refuse_as_addon",
]

logger = logging.getLogger(__name__)

#: Where the built-in lives in ``DOWNLOADER_MIDDLEWARES_BASE``.
BUILTIN = "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware"
OURS = "scrapy_robots_rfc.RobotsTxtMiddleware"
PRIORITY = 100
#: The spider middleware of page-level rules, and its place.
OURS_SPIDER = "scrapy_robots_rfc.PageRulesMiddleware"
SPIDER_PRIORITY = 950
#: The spider middleware that keeps the items of TDM-reserved pages from the
#: pipeline, and its place: closer to the spider still, so that no other
#: spider middleware sees them.
OURS_TDM_SPIDER = "scrapy_robots_rfc.TdmReservationMiddleware"
TDM_SPIDER_PRIORITY = 960
#: The add-on's own path, as ``ADDONS`` takes it.
ADDON = "scrapy_robots_rfc.Addon"


def refuse_as_addon(crawler: Crawler, middleware: str) -> None:
    """Stop the crawl with a :class:`~.exceptions.ConfigError` that names
    the add-on when the component ``middleware`` (an import path) is being
    built as an add-on: ``ADDONS`` lists it by mistake. Scrapy builds the
    add-ons while it applies the crawl's settings, and the components only
    after it has frozen them; built too early, the middleware would fail
    on ``Crawler.stats``, which is not set yet, with a message that names
    neither ``ADDONS`` nor the add-on. Logged at CRITICAL first, as
    :meth:`.Config.from_settings` does, so that it is the line a user sees."""
    if crawler.settings.frozen:
        return
    error = ConfigError(
        "ADDONS",
        crawler.settings.getdict("ADDONS"),
        f'the add-on {ADDON}, which installs the middleware: ADDONS = {{"{ADDON}": 100}}',
        f"{middleware} is a middleware, not an add-on",
    )
    stop_crawl(error, logger)


def component(key: object) -> object | None:
    """What a component key (an import path or the object) names, or
    ``None`` when the path does not load."""
    if isinstance(key, str):
        try:
            loaded: object = load_object(key)
        except (ImportError, NameError, ValueError, AttributeError):
            return None
        return loaded
    return key


def _refers_to(key: object, cls: object) -> bool:
    return component(key) is cls


class Addon:
    """Replace the built-in robots.txt middleware with this package's."""

    def update_settings(self, settings: BaseSettings) -> None:
        builtin = load_object(BUILTIN)
        ours = load_object(OURS)
        middlewares = settings["DOWNLOADER_MIDDLEWARES"]
        # Whatever key the project used for the built-in (its import path or
        # the class itself), it is switched off.
        found = False
        for key in list(middlewares):
            if _refers_to(key, builtin):
                # At the priority it was set with (a spider's custom_settings
                # outranks "project"), so that None really replaces it.
                middlewares.set(key, None, priority=middlewares.getpriority(key) or "project")
                found = True
        # Scrapy 2.15+ merges keys that name the same class (and warns about
        # duplicates); before, only the import path overrides the entry in
        # DOWNLOADER_MIDDLEWARES_BASE (docs/dev/scrapy-internals.md §5).
        if not found or not hasattr(settings, "get_component_priority_dict_with_base"):
            middlewares[BUILTIN] = None
        ours_keys = [key for key in middlewares if _refers_to(key, ours)]
        if not ours_keys:
            middlewares[OURS] = PRIORITY
        elif all(middlewares[key] is None for key in ours_keys):
            # The project switched this package's middleware off by hand
            # while listing the add-on, which switched the built-in off.
            logger.warning(
                "%(addon)s is in ADDONS, but DOWNLOADER_MIDDLEWARES sets %(ours)s to None: "
                "no middleware obeys robots.txt in this crawl (the add-on switched Scrapy's "
                "built-in off). Remove the None entry, or remove the add-on to use the "
                "built-in.",
                {"addon": ADDON, "ours": OURS},
            )
        spider_middlewares = settings["SPIDER_MIDDLEWARES"]
        page_rules = load_object(OURS_SPIDER)
        if not any(_refers_to(key, page_rules) for key in spider_middlewares):
            spider_middlewares[OURS_SPIDER] = SPIDER_PRIORITY
        tdm = load_object(OURS_TDM_SPIDER)
        if not any(_refers_to(key, tdm) for key in spider_middlewares):
            spider_middlewares[OURS_TDM_SPIDER] = TDM_SPIDER_PRIORITY
