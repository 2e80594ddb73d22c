"""The ``IgnoreRequest`` subclasses the middleware drops requests with, so
that an errback can tell them apart::

    def errback(self, failure):
        if failure.check(ForbiddenByRobotsTxt):
            ...

and :class:`ConfigError`, which stops a crawl at start-up on a setting it
cannot use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from scrapy.exceptions import IgnoreRequest

if TYPE_CHECKING:
    from .robotstxt import Preferences
    from .tdmrep import TdmValue

__all__ = [
    "FORBIDDEN",
    "TDM_RESERVED",
    "TDM_UNKNOWN",
    "UNREACHABLE",
    "USAGE_FORBIDDEN",
    "ConfigError",
    "ForbiddenByRobotsTxt",
    "ForbiddenByUsagePreference",
    "RobotsTxtUnreachable",
    "TdmReserved",
    "TdmUnknown",
    "UsageWhere",
]

#: The message of a request the rules disallow, as Scrapy's built-in says it.
FORBIDDEN = "Forbidden by robots.txt"
#: How the message of a request dropped while robots.txt is unreachable
#: starts (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``); the outcome follows.
UNREACHABLE = "robots.txt unreachable"
#: How the message of a request or response dropped for a usage preference
#: starts (``ROBOTSTXT_RFC_USAGE``); what states it follows.
USAGE_FORBIDDEN = "Forbidden by usage preference"

#: How the message of a request dropped because the TDMRep file reserves
#: its URL (``ROBOTSTXT_RFC_TDM``, T-4) starts; the value follows.
TDM_RESERVED = "TDM rights reserved"

#: How the message of a request dropped after waiting for its origin's
#: TDMRep file, which stayed not known (T-2), starts; the outcome follows.
TDM_UNKNOWN = "TDM reservations not known"

#: What dropped it: robots.txt's rules before download, the Content-Usage
#: header, or a category nothing states (``ROBOTSTXT_RFC_USAGE_UNKNOWN``).
UsageWhere = Literal["robots.txt", "header", "page", "unknown"]


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


class ForbiddenByUsagePreference(IgnoreRequest):
    """A usage preference says ``n`` for a category of ``ROBOTSTXT_RFC_USAGE``
    (U-6), or states nothing for one while
    ``ROBOTSTXT_RFC_USAGE_UNKNOWN`` is "disallow". Never "Forbidden by
    robots.txt": the URL may be crawled, its content not used so.

    ``where`` is "robots.txt" (dropped before download), "header" (the
    response's ``Content-Usage`` or ``Content-Signal`` header,
    draft-ietf-aipref-attach-05 §2; dropped before the spider), "page" (its
    ``noai`` page-level rule, U-8; before the spider) or "unknown" (before
    the spider too).
    """

    def __init__(
        self, categories: tuple[str, ...], preferences: Preferences, where: UsageWhere
    ) -> None:
        if where == "unknown":
            said = f'{", ".join(categories)} unknown, ROBOTSTXT_RFC_USAGE_UNKNOWN = "disallow"'
        else:
            said = preferences.describe(categories)
            if where == "robots.txt":
                said += " in robots.txt"
        super().__init__(f"{USAGE_FORBIDDEN}: {said}")
        #: The categories of ``ROBOTSTXT_RFC_USAGE`` that dropped it.
        self.categories = categories
        #: Every preference of the URL (robots.txt's, with the header's
        #: when dropped after download).
        self.preferences = preferences
        self.where = where

    def __reduce__(
        self,
    ) -> tuple[type[ForbiddenByUsagePreference], tuple[tuple[str, ...], Preferences, UsageWhere]]:
        return type(self), (self.categories, self.preferences, self.where)


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


class TdmReserved(IgnoreRequest):
    """The origin's ``/.well-known/tdmrep.json`` reserves the URL's text and
    data mining rights (W3C TDMRep ``tdm-reservation: 1``; T-4), in a crawl
    that mines (``ROBOTSTXT_RFC_TDM``): it is not downloaded. Never
    "Forbidden by robots.txt": the URL may be crawled, not mined."""

    def __init__(self, value: TdmValue) -> None:
        super().__init__(f"{TDM_RESERVED}: {value}")
        #: The URL's value from the file: its source, rule and policy.
        self.value = value

    def __reduce__(self) -> tuple[type[TdmReserved], tuple[TdmValue]]:
        return type(self), (self.value,)


class TdmUnknown(RobotsTxtUnreachable):
    """The request waited longer than ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` for
    its origin's ``/.well-known/tdmrep.json``, which stayed not known (429,
    5xx, a network error, a file over the size bound; T-2), in a crawl that
    mines (``ROBOTSTXT_RFC_TDM``). A :class:`RobotsTxtUnreachable`, so that
    an errback that handles a document that stayed unreachable handles it
    too; its message says which."""

    def __init__(self, outcome: str) -> None:
        IgnoreRequest.__init__(self, f"{TDM_UNKNOWN}: tdmrep.json {outcome}")
        self.outcome = outcome

    def __reduce__(self) -> tuple[type[TdmUnknown], tuple[str]]:
        return type(self), (self.outcome,)
