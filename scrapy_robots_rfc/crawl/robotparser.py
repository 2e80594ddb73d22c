"""A ``ROBOTSTXT_PARSER`` for Scrapy's built-in ``RobotsTxtMiddleware``.

``ROBOTSTXT_PARSER = "scrapy_robots_rfc.RobotParser"`` gives the built-in
middleware this package's verdicts. The built-in's fetch policy stays as it
is (it parses error pages, allows all on network errors, never expires its
cache); ``scrapy_robots_rfc.RobotsTxtMiddleware`` replaces that as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser as _ScrapyRobotParser

from ..robotstxt import (
    MODES,
    Mode,
    Name,
    RobotsTxt,
    caller_name,
    crawler_names,
    product_token,
)

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

__all__ = ["MODE_SETTING", "RobotParser", "mode_from_settings"]

MODE_SETTING = "ROBOTSTXT_RFC_MODE"


def mode_from_settings(settings: BaseSettings) -> Mode:
    """The ``ROBOTSTXT_RFC_MODE`` setting, validated."""
    value = settings.get(MODE_SETTING, "rfc")
    for mode in MODES:
        if value == mode:
            return mode
    raise ValueError(
        f"The value of the {MODE_SETTING} setting ({value!r}) is invalid. "
        f"It must be one of: {', '.join(repr(m) for m in MODES)}."
    )


class RobotParser(_ScrapyRobotParser):
    """Scrapy's ``RobotParser`` interface over :class:`RobotsTxt`.

    The body is cut at 500 KiB, dropping a line cut there (RFC 9309
    §2.5), since the built-in middleware reads the whole response: what
    :meth:`RobotsTxt.parse` reads by default.

    The built-in middleware passes ``ROBOTSTXT_USER_AGENT`` or else a whole
    User-Agent header. The first is the crawler's name, or its family's
    names separated by commas, most specific first (D-22); from a header the
    crawler's product token is taken as
    :func:`~scrapy_robots_rfc.product_token` does (docs/decisions.md "crawler
    name"), so that ``Scrapy/2.19 (+https://scrapy.org)`` is ``Scrapy``. In
    rfc mode a name that is not a product token is reduced to the crawler's
    product name either way (D-21): ``BadBot/1.0`` is ``BadBot``.
    """

    def __init__(self, robots: RobotsTxt, robots_user_agent: str | None = None) -> None:
        self.robots = robots
        #: ``ROBOTSTXT_USER_AGENT``: the one string that is a name already.
        self.robots_user_agent = robots_user_agent

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> Self:
        mode: Mode = "rfc"
        robots_user_agent = None
        if crawler is not None:
            mode = mode_from_settings(crawler.settings)
            robots_user_agent = crawler.settings.get("ROBOTSTXT_USER_AGENT") or None
        return cls(RobotsTxt.parse(robotstxt_body, mode), robots_user_agent)

    def name(self, user_agent: str | bytes) -> Name:
        """The crawler's name, or its family's names, for what the built-in
        passes as ``user_agent`` (a list when ``ROBOTSTXT_USER_AGENT`` is one)."""
        if isinstance(user_agent, (list, tuple)):
            return tuple(caller_name(name) for name in user_agent)
        text = caller_name(user_agent)
        if text == self.robots_user_agent:
            names = crawler_names(text)
            return names[0] if len(names) == 1 else names
        return product_token(text)

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.robots.allowed(url, self.name(user_agent))

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.robots.crawl_delay(self.name(user_agent))

    def sitemaps(self) -> Iterable[str]:
        return iter(self.robots.sitemaps)
