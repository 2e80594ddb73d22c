"""A request's own record of its wait for robots.txt: a :class:`Ticket`,
kept in its ``meta`` under one key (:data:`TICKET_KEY`) while it is out of
the middleware's hands (sent back to the scheduler, held in Redis, saved in
``JOBDIR``), and taken off again when it comes back.

The ticket is a frozen value of primitives only (:meth:`Ticket.to_meta`), so
that every queue a request can pass through keeps it: Scrapy's disk queues
(pickle, marshal) and scrapy-redis's serializers (pickle, JSON). Its times
are the wall clock's, seconds since the epoch, which a resumed crawl and
every worker of a fleet read alike; a monotonic clock's time means nothing
after a restart (the ``JOBDIR`` fix of issue 42).

Requests saved by the version before it (in ``JOBDIR``, in Redis) carry the
eight keys the ticket replaced (:data:`LEGACY_KEYS`); :meth:`Ticket.from_legacy`
reads them for one minor version, so that such a crawl or fleet resumes.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from scrapy.http import Request

#: The ``meta`` key of a request's :class:`Ticket` (:meth:`Ticket.to_meta`).
TICKET_KEY = "_robotstxt_rfc_ticket"

#: The keys of the version before, read for one minor version
#: (:meth:`Ticket.from_legacy`): what the ticket says, one key each.
_FILTER = "_robotstxt_rfc_filter"
_WAITED = "_robotstxt_rfc_waited"
_SINCE = "_robotstxt_rfc_since"
_HOLD = "_robotstxt_rfc_hold"
_TAKER = "_robotstxt_rfc_taker"
_DROP = "_robotstxt_rfc_drop"
_NO_WAIT = "_robotstxt_rfc_no_wait"
_SCHEDULED = "_robotstxt_rfc_scheduled"
LEGACY_KEYS = frozenset((_FILTER, _WAITED, _SINCE, _HOLD, _TAKER, _DROP, _NO_WAIT, _SCHEDULED))


@dataclass(frozen=True, slots=True)
class Ticket:
    """What a request that waited for robots.txt carries while it is away."""

    #: When it began to wait (seconds since the epoch); ``None``: not yet.
    since: float | None = None
    #: Its ``dont_filter`` was set only so that the dupefilter lets it in
    #: again: set back to ``False`` when it returns.
    refilter: bool = False
    #: Its share of the fetch's response, a robots.txt request of the
    #: spider's (:mod:`.crawl._kept_responses`).
    taker: str | None = None
    #: While held in Redis for a fleet: a random id, so that two identical
    #: requests are two members of the held set.
    held: str | None = None
    #: It was sent back to be dropped: why (RFC 9309 §2.3.1.4).
    drop: str | None = None
    #: The title of the document whose wait dropped it, when it is not
    #: robots.txt (the TDMRep file, ``ROBOTSTXT_RFC_TDM``).
    drop_for: str | None = None
    #: It waits for the fetch under way only, not for a retry (``scrapy
    #: robots`` without ``--wait``).
    once: bool = False

    def to_meta(self) -> dict[str, Any]:
        """The ticket as ``meta`` keeps it: a dict of primitives (no value
        that is its default)."""
        found: dict[str, Any] = {}
        if self.since is not None:
            found["since"] = self.since
        if self.refilter:
            found["filter"] = True
        if self.taker is not None:
            found["taker"] = self.taker
        if self.held is not None:
            found["hold"] = self.held
        if self.drop is not None:
            found["drop"] = self.drop
        if self.drop_for is not None:
            found["drop_for"] = self.drop_for
        if self.once:
            found["once"] = True
        return found

    @classmethod
    def from_meta(cls, value: object) -> Ticket:
        """The ticket :meth:`to_meta` made; what is not one (another
        program's value, a field of the wrong type) is left out, never an
        error."""
        if not isinstance(value, dict) or not value:
            return _BLANK
        since, taker, held, drop, drop_for = (
            value.get("since"),
            value.get("taker"),
            value.get("hold"),
            value.get("drop"),
            value.get("drop_for"),
        )
        return cls(
            since=float(since) if _number(since) else None,
            refilter=value.get("filter") is True,
            taker=taker if isinstance(taker, str) else None,
            held=held if isinstance(held, str) else None,
            drop=drop if isinstance(drop, str) else None,
            drop_for=drop_for if isinstance(drop_for, str) else None,
            once=value.get("once") is True,
        )

    @classmethod
    def from_legacy(cls, meta: dict[str, Any]) -> Ticket:
        """The ticket of a request the version before saved, its keys taken
        off ``meta``. A monotonic time of another run (``_robotstxt_rfc_waited``)
        means nothing now: the request waits from when it comes back."""
        meta.pop(_WAITED, None)
        meta.pop(_SCHEDULED, None)
        since = meta.pop(_SINCE, None)
        held = meta.pop(_HOLD, None)
        taker = meta.pop(_TAKER, None)
        drop = meta.pop(_DROP, None)
        return cls(
            since=float(since) if _number(since) else None,
            refilter=bool(meta.pop(_FILTER, False)),
            taker=_text(taker),
            held=_text(held),
            drop=_text(drop),
            once=bool(meta.pop(_NO_WAIT, False)),
        )


_BLANK = Ticket()


def _number(value: object) -> TypeGuard[float | int]:
    return isinstance(value, (float, int)) and not isinstance(value, bool)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) else None


def taken(meta: dict[str, Any]) -> Ticket | None:
    """The ticket of a request that comes back, taken off its ``meta``
    (:data:`TICKET_KEY`, or the keys of the version before); ``None`` for
    a request that carries none."""
    found = meta.pop(TICKET_KEY, None)
    if found is not None:
        return Ticket.from_meta(found)
    if LEGACY_KEYS.isdisjoint(meta):
        return None
    return Ticket.from_legacy(meta)


def leave(request: Request, ticket: Ticket) -> Request:
    """``request``, made ready to wait away from the middleware: carrying
    ``ticket``, and with ``dont_filter`` set, which lets it past the
    dupefilter that has seen it once (set back when it returns: the
    ticket's ``refilter``). It goes back itself, not a copy: nothing else
    holds it while it waits."""
    if not request.dont_filter:
        request.dont_filter = True
        ticket = replace(ticket, refilter=True)
    request.meta[TICKET_KEY] = ticket.to_meta()
    return request


def wait_once(meta: dict[str, Any], once: bool = True) -> None:
    """Mark a new request's ``meta`` so that it waits for the robots.txt
    fetch under way only, never for a retry, when ``once``: an unreachable
    robots.txt drops it as soon as that fetch answers (``scrapy robots``
    without ``--wait``)."""
    if once:
        meta[TICKET_KEY] = Ticket(once=True).to_meta()


def carried(request: Request) -> Ticket:
    """The ticket a copy that waits away carries now (a blank one if none)."""
    return Ticket.from_meta(request.meta.get(TICKET_KEY))


def carry(request: Request, ticket: Ticket) -> None:
    """Let a copy that waits away carry ``ticket`` from now on."""
    request.meta[TICKET_KEY] = ticket.to_meta()
