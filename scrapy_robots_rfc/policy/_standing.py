"""Where an origin stands for a request that arrives, from the cache's entry
(:func:`standing`): decided, decided with a good copy whose retry is due,
unreachable in its backoff (RFC 9309 §2.3.1.4), or undecided. Pure: time is
passed in.
"""

from __future__ import annotations

import enum
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..robotstxt import Token
    from ._policy import Entry


class Standing(enum.Enum):
    """Where an origin stands for a request that arrives, from the cache's
    entry (:func:`standing`)."""

    #: Fresh (CACHE-1), refused locally, allow-all, or a good copy in force
    #: while unreachable (HTTP-5), with rules kept for the request's name
    #: (or none: allow all): the verdict is now.
    DECIDED = "decided"
    #: As :attr:`DECIDED`, a good copy in force while robots.txt is
    #: unreachable, whose retry is due: the verdict is now, and robots.txt
    #: is fetched again meanwhile (RFC 9309 §2.3.1.4).
    RETRY_DUE = "retry_due"
    #: Unreachable with no copy in force for the name, and the backoff runs
    #: (RFC 9309 §2.3.1.4): the request waits for the retry, or is dropped
    #: if it may not wait (:meth:`OriginLife.may_not_wait`).
    BACKOFF = "backoff"
    #: Unknown, expired, or no rules kept for the name: fetch, and wait.
    UNDECIDED = "undecided"


def standing(entry: Entry | None, token: Token, now: float, allow_after: float) -> Standing:
    """Where ``entry``'s origin stands for a request decided for ``token``
    at ``now`` (wall clock); ``allow_after``: ``ROBOTSTXT_RFC_UNREACHABLE_DAYS``
    in seconds (RFC 9309 §2.3.1.4)."""
    if entry is None:
        return Standing.UNDECIDED
    if entry.unreachable_since is None:
        # The common case, asked for every request: a fetched copy, usable
        # until it is due (CACHE-1); the answer below gives, without its calls.
        rules = entry.rules
        if now < entry.expires and (rules is None or rules.get(token) is not None):
            return Standing.DECIDED
        return Standing.UNDECIDED
    due = entry.due(now)
    if entry.usable(now, allow_after):
        rules = entry.rules
        if rules is None or rules.get(token) is not None:
            return Standing.RETRY_DUE if due else Standing.DECIDED
    if entry.unreachable_since is not None and not due:
        return Standing.BACKOFF
    return Standing.UNDECIDED
