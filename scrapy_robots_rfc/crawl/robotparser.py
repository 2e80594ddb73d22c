"""A ``ROBOTSTXT_PARSER`` for Scrapy's built-in ``RobotsTxtMiddleware``.

``ROBOTSTXT_PARSER = "scrapy_robots_rfc.RobotParser"`` gives the built-in
middleware this package's verdicts. The built-in's fetch policy stays as it
is (it parses error pages, allows all on network errors, never expires its
cache); ``scrapy_robots_rfc.RobotsTxtMiddleware`` replaces that as well.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser as _ScrapyRobotParser

from ..exceptions import ConfigError
from ..robotstxt import Mode, Name, RobotsTxt, caller_name
from ._config import mode_of, robots_names
from ._config_errors import stop_crawl
from ._crawler_names import names_for

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Self

    from scrapy.crawler import Crawler

__all__ = ["RobotParser"]

logger = logging.getLogger(__name__)


class RobotParser(_ScrapyRobotParser):
    """Scrapy's ``RobotParser`` interface over :class:`RobotsTxt`.

    The body is cut at 500 KiB, dropping a line cut there (RFC 9309
    §2.5), since the built-in middleware reads the whole response: what
    :meth:`RobotsTxt.parse` reads by default.

    The built-in middleware passes ``ROBOTSTXT_USER_AGENT`` or else a whole
    User-Agent header: the crawler's names are what the middleware of this
    package takes for either (:func:`.crawl._crawler_names.names_for`): the
    names of ``ROBOTSTXT_USER_AGENT`` (a crawler family's, most specific
    first, D-22), else the product that names the crawler in the header
    (docs/decisions.md "crawler name"), so that ``Scrapy/2.19
    (+https://scrapy.org)`` is ``Scrapy``. In rfc mode a name that is not a
    product token is reduced to the crawler's product name (D-21).
    """

    def __init__(self, robots: RobotsTxt, names: tuple[str, ...] | None = None) -> None:
        self.robots = robots
        #: ``ROBOTSTXT_USER_AGENT``'s names, ``None`` when it is unset.
        self.names = names

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> Self:
        """The parser of ``robotstxt_body`` (bytes, as the built-in fetched
        it), in the crawl's ``ROBOTSTXT_RFC_MODE`` and with its
        ``ROBOTSTXT_USER_AGENT`` names; ``rfc`` mode and no names without a
        crawler."""
        mode: Mode = "rfc"
        names = None
        if crawler is not None:
            # The built-in builds one at start-up, to check the parser:
            # a bad setting stops the crawl there, in one line.
            try:
                mode = mode_of(crawler.settings)
                names = robots_names(crawler.settings)[1]
            except ConfigError as exc:
                stop_crawl(exc, logger)
        return cls(RobotsTxt.parse(robotstxt_body, mode), names)

    def name(self, user_agent: str | bytes) -> Name:
        """The crawler's name, or its family's names, for what the built-in
        passes as ``user_agent``."""
        if isinstance(user_agent, (list, tuple)):  # ROBOTSTXT_USER_AGENT as a list
            return tuple(caller_name(name) for name in user_agent)
        names = names_for(caller_name(user_agent), self.names)
        return names[0] if len(names) == 1 else names

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.robots.allowed(url, self.name(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.robots.crawl_delay(self.name(user_agent))

    def sitemaps(self) -> Iterable[str]:
        return iter(self.robots.sitemaps)
