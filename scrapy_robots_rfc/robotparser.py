"""A ``ROBOTSTXT_PARSER`` for Scrapy's built-in ``RobotsTxtMiddleware``.

``ROBOTSTXT_PARSER = "scrapy_robots_rfc.RobotParser"`` gives the built-in
middleware this package's verdicts. The built-in's fetch policy stays as it
is (it parses error pages, allows all on network errors, never expires its
cache); ``scrapy_robots_rfc.RobotsTxtMiddleware`` replaces that as well.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.robotstxt import RobotParser as _ScrapyRobotParser

from .matcher import MODES, Mode
from .parser import RobotsTxt, cut_at_limit

if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Self

    from scrapy.crawler import Crawler
    from scrapy.settings import BaseSettings

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

    The body is cut at 500 KiB first, dropping a line cut there (RFC 9309
    §2.5), since the built-in middleware reads the whole response.
    """

    def __init__(self, robots: RobotsTxt) -> None:
        self.robots = robots

    @classmethod
    def from_crawler(cls, crawler: Crawler | None, robotstxt_body: bytes) -> Self:
        mode: Mode = "rfc" if crawler is None else mode_from_settings(crawler.settings)
        body, _ = cut_at_limit(robotstxt_body)
        return cls(RobotsTxt.parse(body, mode))

    def allowed(self, url: str | bytes, user_agent: str | bytes) -> bool:
        return self.robots.allowed(url, user_agent)

    def crawl_delay(self, user_agent: str | bytes) -> float | None:
        return self.robots.crawl_delay(user_agent)

    def sitemaps(self) -> Iterable[str]:
        return iter(self.robots.sitemaps)
