"""What a request's pass through the middleware ends in, as values: the one
``match`` at the end of ``process_request`` reads them.

- :class:`Allowed`: let it through (RFC 9309 §2.2.2), with what an allowed
  request sets going when ``extras`` says so (:mod:`.crawl._allowance`);
- :class:`Forbidden`: a rule disallows it (:class:`.ForbiddenByRobotsTxt`);
- :class:`Reserved`: the origin's TDMRep file reserves its URL's text and
  data mining rights, in a crawl that mines (:class:`.TdmReserved`, T-4);
- :class:`Dropped`: its robots.txt (or TDMRep file) stayed unreachable for as long as it may
  wait (:class:`.RobotsTxtUnreachable`, RFC 9309 §2.3.1.4);
- :class:`Away`: it waits away from the downloader, as this copy.

A request that waits in place is resumed with how its wait settled
(:data:`Settled`): :class:`Released`, :class:`Dropped`, or :class:`Away` when
it leaves the downloader to wait out of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..policy import ROBOTS_TXT

if TYPE_CHECKING:
    from scrapy.http import Request

    from ..policy import Document, Entry
    from ..robotstxt import AgentRules, Rule
    from ..tdmrep import TdmValue
    from ._kept_responses import Share


@dataclass(frozen=True, slots=True)
class Allowed:
    """Robots.txt allows the request: ``entry`` decided it, with ``agent``,
    its rules for the request's name (``None``: none, allow all).
    ``extras``: something more is set going (its usage preferences, the
    fetch's response for the spider's robots.txt request, its crawl-delay
    turn); ``share``: that request's share of the response."""

    entry: Entry | None = None
    agent: AgentRules | None = None
    extras: bool = False
    share: Share | None = None


#: The verdict of most requests: allowed, and nothing more to do.
ALLOWED = Allowed()


@dataclass(frozen=True, slots=True)
class Forbidden:
    """``rule`` disallows the request (RFC 9309 §2.2.2)."""

    rule: Rule


@dataclass(frozen=True, slots=True)
class Reserved:
    """The TDMRep file reserves the URL (``tdm-reservation`` 1, T-4):
    ``value`` says which rule."""

    value: TdmValue


@dataclass(frozen=True, slots=True)
class Dropped:
    """The request may wait no longer: drop it, for ``reason``; ``document``:
    the one it waited for (robots.txt, or the TDMRep file)."""

    reason: str
    document: Document = ROBOTS_TXT


@dataclass(frozen=True, slots=True)
class Away:
    """The request waits away from the downloader: ``copy`` goes back to
    the scheduler."""

    copy: Request


#: How a request's pass ends.
Outcome = Allowed | Forbidden | Reserved | Dropped | Away


# -- how a waiter's wait settles (the value of its Deferred) ------------------------


@dataclass(frozen=True, slots=True)
class Released:
    """The origin is decided: the request is decided now, by the cache."""


#: How a request's wait in place settles.
Settled = Released | Dropped | Away

RELEASED = Released()
