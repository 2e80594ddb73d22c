"""The ``IgnoreRequest`` subclasses the middleware drops requests with, so
that an errback can tell them apart::

    def errback(self, failure):
        if failure.check(ForbiddenByRobotsTxt):
            ...
"""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest

__all__ = ["FORBIDDEN", "UNREACHABLE", "ForbiddenByRobotsTxt", "RobotsTxtUnreachable"]

#: The message of a request the rules disallow, as Scrapy's built-in says it.
FORBIDDEN = "Forbidden by robots.txt"
#: How the message of a request dropped while robots.txt is unreachable
#: starts (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``); the outcome follows.
UNREACHABLE = "robots.txt unreachable"


class ForbiddenByRobotsTxt(IgnoreRequest):
    """The robots.txt rules disallow the request (RFC 9309 §2.2.2)."""

    def __init__(self) -> None:
        super().__init__(FORBIDDEN)


class RobotsTxtUnreachable(IgnoreRequest):
    """The request waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` for
    an unreachable robots.txt (RFC 9309 §2.3.1.4: disallow all)."""

    def __init__(self, outcome: str) -> None:
        super().__init__(f"{UNREACHABLE}: {outcome}")
        #: Why robots.txt is unreachable: "HTTP 503", "TimeoutError: ..."
        self.outcome = outcome
