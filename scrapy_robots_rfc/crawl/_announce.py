"""The log lines of waiting origins, in words: the WARNING of an unreachable
robots.txt with what happens next to the requests that wait for it
(:class:`Outlook`), and the WARNING when they start to be dropped. Nothing
here decides anything: the waiting room (:mod:`.crawl._waiting_room`) says
what happened and when the timers fire; this module only words it, so that
no wait is silent (RFC 9309 §2.3.1.4: the crawler keeps to a full disallow
while robots.txt is unreachable).
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .._logging import duration

if TYPE_CHECKING:
    from .._runtime import Runtime
    from ..policy import Origin

logger = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Outlook:
    """What happens next to the requests of an unreachable origin: the
    delay of the retry timer (RFC 9309 §2.3.1.4) and when the drop timer
    sends them back (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``).

    >>> print(Outlook(retry_in=30, drop_in=600, wait=600))
    requests to it wait until it answers, at most 600 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=3, wait=3))
    requests to it will be dropped in 3 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 30 s
    >>> print(Outlook(retry_in=30, drop_in=None, wait=600, dropped=1))
    1 request that may not wait for a retry is dropped now; the next try is due in 30 s
    """  # noqa: E501

    #: Seconds until robots.txt is fetched again.
    retry_in: float
    #: Seconds until the longest-waiting request is dropped; ``None`` when
    #: no request waits now (the next one waits ``wait`` at most).
    drop_in: float | None
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    wait: float
    #: Requests that waited for this fetch only (``scrapy robots`` without
    #: ``--wait``): they are dropped now.
    dropped: int = 0

    def describe(self, subject: str = "requests to it") -> str:
        """The outlook in words, for the WARNING of an unreachable origin:
        what happens to the requests that may not wait, if any, then to
        those that do."""
        if not self.dropped:
            return self._waits(subject)
        count = self.dropped
        gone = (
            f"{count} request{'s' * (count != 1)} that may not wait for a retry "
            f"{'is' if count == 1 else 'are'} dropped now"
        )
        if self.drop_in is None:  # no other request waits: no wait to announce
            return f"{gone}; the next try is due in {duration(self.retry_in)} s"
        return f"{gone}; {self._waits('the others')}"

    def _waits(self, subject: str) -> str:
        """What happens to the requests that wait, ``subject``."""
        retry = duration(self.retry_in)
        if self.wait <= 0:
            return (
                f"{subject} are dropped at once (ROBOTSTXT_RFC_UNREACHABLE_WAIT is 0); "
                f"next try in {retry} s"
            )
        waiting_now = self.drop_in is not None
        limit = self.wait if self.drop_in is None else self.drop_in
        drop = duration(limit)
        if limit <= self.retry_in:  # dropped before the next try can answer
            when = f"will be dropped in {drop} s" if waiting_now else f"are dropped after {drop} s"
            return (
                f"{subject} {when} (ROBOTSTXT_RFC_UNREACHABLE_WAIT), "
                f"before the next try in {retry} s"
            )
        more = " more" if waiting_now else ""
        return (
            f"{subject} wait until it answers, at most {drop} s{more} "
            f"(ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try in {retry} s"
        )

    def __str__(self) -> str:
        return self.describe()


class Announcer:
    """Says what happens to waiting origins, at most once where once is
    enough (the first drop of an origin's requests)."""

    def __init__(self, runtime: Runtime, wait: float) -> None:
        self._runtime = runtime
        #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
        self._wait = wait
        #: Origins already named in a "Dropping requests" warning.
        self._warned: set[Origin] = set()

    def unreachable(
        self,
        key: Origin,
        outcome: str,
        outlook: Outlook,
        *,
        good: bool = False,
        level: int = logging.WARNING,
    ) -> None:
        """The line of a failed fetch (HTTP-4 to HTTP-6): what is in force,
        and what happens next to the requests that wait (``outlook``), so
        that no wait is silent."""
        said: Outlook | str = outlook  # worded only if a handler takes the line
        if good and outlook.drop_in is None:
            said = f"the last good copy stays in force; next try in {duration(outlook.retry_in)} s"
        elif good:  # requests for a name the good copy has no group for
            said = (
                f"the last good copy stays in force; {outlook.describe('requests for new names')}"
            )
        logger.log(
            level,
            "%(url)s is unreachable (%(outcome)s): %(policy)s",
            {"url": key.robots_url, "outcome": outcome, "policy": said},
            extra=self._runtime.log,
        )

    def dropping(self, key: Origin, reason: str) -> None:
        """The first drop of ``key``'s requests after
        ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``; said once per origin."""
        if key in self._warned:
            return
        self._warned.add(key)
        logger.warning(
            "Dropping requests to %(origin)s: its robots.txt has been unreachable "
            "(%(reason)s) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (%(wait)s s); more "
            "requests to it will be dropped the same way while it stays unreachable",
            {"origin": key, "reason": reason, "wait": duration(self._wait)},
            extra=self._runtime.log,
        )

    def moved(self, count: int, where: str) -> None:
        """``count`` requests that waited in this worker's memory while the
        store failed are held in Redis (``where``) now that it answers."""
        logger.info(
            "Moved %(count)d requests that waited for robots.txt in this worker's memory "
            "to Redis (%(key)s)",
            {"count": count, "key": where},
            extra=self._runtime.log,
        )
