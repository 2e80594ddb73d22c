"""One request's wait for its origin's robots.txt, to one outcome
(:data:`.Outcome`): :meth:`Waits.wait` is all ``process_request`` awaits on
a miss, and what it answers is all ``process_request`` matches on.

A request that comes back from a wait (it carries a :class:`.Ticket`) is
dropped if it was sent back to be, decided by the cache if it can be, and
waits in place if it is a copy that came back without passing the
scheduler; in a fleet, the store is read once for an origin nobody here
waits for, and a request held long enough is dropped (:meth:`.Holding.admit`).
Otherwise it waits (:meth:`.Lives.come`): in place until its origin is
decided, or, from the scheduler, out of the downloader (a copy, back to the
scheduler: :class:`.Away`). A drop (RFC 9309 §2.3.1.4) is counted here, once,
where it leaves.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Protocol

from scrapy.utils.defer import maybe_deferred_to_future

from ..policy import ROBOTS_TXT, TDMREP_JSON, Target, document_titled
from ..robotstxt import ROBOTS_TXT_PATH
from ._kept_responses import KeptResponses
from ._outcomes import Allowed, Away, Dropped, Released
from ._tickets import Ticket, taken

if TYPE_CHECKING:
    from scrapy.http import Request
    from twisted.internet.defer import Deferred

    from .._runtime import Runtime
    from ..policy import Document, Origin
    from ..robotstxt import Token
    from ._holding import Holding
    from ._lives import Lives
    from ._outcomes import Forbidden, Outcome, Reserved, Settled
    from ._report import Report
    from ._verdicts import Verdicts


class Decider(Protocol):
    """A document's verdicts from the cache (:class:`.Verdicts` for
    robots.txt, :class:`.TdmGate` for the TDMRep file): ``None`` while the
    origin's document is undecided."""

    def decide(
        self, key: Origin, request: Request, token: Token
    ) -> Allowed | Forbidden | Reserved | None: ...


class Waits:
    """The waits of the requests that miss the cache; ``holding``: the
    fleet, or ``None``; ``tdm``: the TDMRep file's verdicts in a crawl that
    mines (``ROBOTSTXT_RFC_TDM``), or ``None``."""

    def __init__(
        self,
        runtime: Runtime,
        *,
        verdicts: Verdicts,
        lives: Lives,
        kept: KeptResponses,
        report: Report,
        holding: Holding | None,
        tdm: Decider | None = None,
    ) -> None:
        self._runtime = runtime
        self._verdicts = verdicts
        #: Each document's verdicts.
        self._deciders: dict[Document, Decider] = {ROBOTS_TXT: verdicts}
        if tdm is not None:
            self._deciders[TDMREP_JSON] = tdm
        self._lives = lives
        self._kept = kept
        self._report = report
        self._holding = holding

    async def wait(
        self,
        key: Origin,
        request: Request,
        token: Token,
        returning: bool = False,
        document: Document = ROBOTS_TXT,
        once: bool = False,
    ) -> Outcome:
        """How ``request``, undecided by the cache for ``key``'s
        ``document`` and its name ``token`` (or ``returning`` from a wait,
        with its ticket), ends: allowed, forbidden (or reserved) once its
        origin's document is decided, dropped, or away as a copy that waits
        out of the downloader. ``once``: it waits for the fetch under way
        only (``scrapy robots`` without ``--wait``), as its ticket said on
        its way through robots.txt's wait."""
        ticket = taken(request.meta) if returning else None
        if once and ticket is None:
            ticket = Ticket(once=True)
        decider = self._deciders[document]
        target = Target(key, document)
        share = None
        if document is ROBOTS_TXT and ROBOTS_TXT_PATH in request.url:
            # The spider's own request for this robots.txt (a SitemapSpider's)
            # carries its share of the fetch's response if it waited for it.
            share = KeptResponses.share_of(request, ticket)
        outcome: Outcome | None = None
        settled: Deferred[Settled] | None = None
        if ticket is not None:
            if ticket.refilter:  # set for the wait only
                request.dont_filter = False
            if ticket.drop is not None:  # sent back to be dropped
                outcome = Dropped(ticket.drop, document_titled(ticket.drop_for))
            elif request in self._lives.in_transit:  # back without the scheduler
                settled = self._lives.returned(request, ticket)
        if outcome is None and settled is None:
            if self._holding is not None:  # a fleet: the store, or held too long
                origins = self._lives.undecided(document)
                outcome = await self._holding.admit(target, request, ticket, token, origins)
            if outcome is None and (ticket is not None or self._holding is not None):
                outcome = decider.decide(key, request, token)  # released, or by the store
        while outcome is None:
            if settled is None:
                taker = None
                if share is not None:  # a new share of the fetch's response
                    share = self._kept.wait_for(key, request, share)
                    taker = None if share is None else share.taker
                settled = self._lives.come(target, request, ticket, token, taker)
            match await maybe_deferred_to_future(settled):
                case Released():
                    # Decided; but ``None`` (the entry was evicted, or keeps
                    # no group for its name) and it waits again.
                    outcome = decider.decide(key, request, token)
                    settled = None
                case Dropped() | Away() as done:
                    outcome = done
        match outcome:
            case Away():
                return outcome  # the copy carries the share
            case Allowed() if share is not None:
                return replace(outcome, extras=True, share=share)
            case Dropped(document=dropped) if dropped is not ROBOTS_TXT:
                self._runtime.stats.inc_value("robotstxt/tdm/unreachable/dropped")
                self._report.row(key).dropped += 1
            case Dropped():
                self._runtime.stats.inc_value("robotstxt/unreachable/dropped")
                self._report.row(key).dropped += 1
        if share is not None and not isinstance(outcome, Allowed):
            self._kept.release(key, share)  # it will not take its share
        return outcome
