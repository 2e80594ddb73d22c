"""The package's one INFO line at start-up: what the crawl obeys and how,
each feature on or off, so that a log shows it without reading the
settings (``scrapy settings`` shows neither the add-on's work nor the
package's defaults)::

    scrapy_robots_rfc 0.1.0 (pure build) obeys robots.txt: mode rfc; crawler name
    'MyBot' (from ROBOTSTXT_USER_AGENT); store memory; crawl-delay off; page-level
    rules off; usage categories off

Each part is one function of :data:`PARTS` that reads the :class:`.Config`
and the crawler's names; one more feature is one more function there.
"""

from __future__ import annotations

import logging
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

from ..robotstxt import build

if TYPE_CHECKING:
    from collections.abc import Callable

    from scrapy.crawler import Crawler

    from ._config import Config
    from ._crawler_names import CrawlerNames


logger = logging.getLogger(__name__)


def _seconds(value: float) -> str:
    return f"{int(value)} s" if float(value).is_integer() else f"{value:g} s"


def _mode(config: Config, names: CrawlerNames) -> str:
    return f"mode {config.mode}"


def _name(config: Config, names: CrawlerNames) -> str:
    label = "crawler names" if len(names.names) > 1 else "crawler name"
    source = "ROBOTSTXT_USER_AGENT" if config.robots_names is not None else "USER_AGENT"
    # A request with a User-Agent header of its own is decided for that
    # header's crawler name unless ROBOTSTXT_USER_AGENT is set (D-21).
    shown = ", ".join(repr(name) for name in names.names)
    return f"{label} {shown} (from {source})"


def _store(config: Config, names: CrawlerNames) -> str:
    return f"store {config.store_shown}"


def _crawl_delay(config: Config, names: CrawlerNames) -> str:
    if not config.crawl_delay:
        return "crawl-delay off"
    return f"crawl-delay on (at most {_seconds(config.crawl_delay_max)})"


def _page_rules(config: Config, names: CrawlerNames) -> str:
    if not config.page_rules:
        return "page-level rules off"
    honoured = []
    if config.nofollow:
        honoured.append("nofollow")
    if config.noindex == "drop":
        honoured.append("noindex")
    return f"page-level rules on ({', '.join(honoured)})"


def _usage(config: Config, names: CrawlerNames) -> str:
    if not config.usage:
        return "usage categories off"
    unknown = ", unknown disallowed" if config.usage_unknown == "disallow" else ""
    return f"usage categories on ({', '.join(config.usage)}{unknown})"


def _tdm(config: Config, names: CrawlerNames) -> str:
    """TDM reservations (T-4): honoured when the crawl mines."""
    return "TDM reservations on" if config.tdm else "TDM reservations off"


#: The parts of the line, in order: each says one feature, on or off.
PARTS: tuple[Callable[[Config, CrawlerNames], str], ...] = (
    _mode,
    _name,
    _store,
    _crawl_delay,
    _page_rules,
    _usage,
    _tdm,
)


def _version() -> str:
    """The package's version, from its installed metadata: the package root
    (``scrapy_robots_rfc.__version__``, which ``setup.cfg`` reads) imports
    the crawl layer lazily, so importing it here would be a cycle."""
    try:
        return version("scrapy-robots-rfc")
    except PackageNotFoundError:  # run from a copy that is not installed
        return "(version unknown)"


def startup_line(config: Config, names: CrawlerNames) -> str:
    """The start-up line's text."""
    parts = "; ".join(part(config, names) for part in PARTS)
    return f"scrapy_robots_rfc {_version()} ({build()} build) obeys robots.txt: {parts}"


def log_startup_line(crawler: Crawler, config: Config, names: CrawlerNames) -> None:
    """Log :func:`startup_line` at INFO, once per crawl."""
    logger.info("%(line)s", {"line": startup_line(config, names)}, extra={"crawler": crawler})
