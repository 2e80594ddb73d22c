"""The ``IgnoreRequest`` subclasses the middleware drops requests with, so
that an errback can tell them apart::

    def errback(self, failure):
        if failure.check(ForbiddenByRobotsTxt):
            ...

and :class:`ConfigError`, which stops a crawl at start-up on a setting it
cannot use.
"""

from __future__ import annotations

from scrapy.exceptions import IgnoreRequest

__all__ = [
    "FORBIDDEN",
    "UNREACHABLE",
    "ConfigError",
    "ForbiddenByRobotsTxt",
    "RobotsTxtUnreachable",
]

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


class ConfigError(ValueError):
    """A setting's value cannot be used: the crawl stops at start-up.

    The message names the setting, its value (a Redis password hidden) and
    what the value must be: "The value of the X setting (v) is invalid[:
    why]. It must be ...". A ``ValueError``, so that ``except ValueError``
    written for earlier versions still catches it.
    """

    def __init__(
        self, setting: str, value: object, allowed: str, reason: str | None = None
    ) -> None:
        why = "" if reason is None else f": {reason}"
        super().__init__(
            f"The value of the {setting} setting ({value!r}) is invalid{why}. It must be {allowed}."
        )
        #: The setting's name: ``"ROBOTSTXT_RFC_TIMEOUT"``.
        self.setting = setting
        #: Its value as shown in the message.
        self.value = value
        self.allowed = allowed
        self.reason = reason

    def __reduce__(self) -> tuple[type[ConfigError], tuple[str, object, str, str | None]]:
        return type(self), (self.setting, self.value, self.allowed, self.reason)
