"""The log lines of waiting origins, in words: the WARNING of an unreachable
robots.txt with what happens next to the requests that wait for it
(:class:`Outlook`), and the WARNING when they start to be dropped. Nothing
here decides anything: the undecided origins (:mod:`.crawl._lives`) say
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
    this check does not wait for a retry (scrapy robots --wait does); a crawl would fetch it again in 30 s
    """  # noqa: E501

    #: Seconds until robots.txt is fetched again.
    retry_in: float
    #: Seconds until the longest-waiting request is dropped; ``None`` when
    #: no request waits now (the next one waits ``wait`` at most).
    drop_in: float | None
    #: ``ROBOTSTXT_RFC_UNREACHABLE_WAIT``.
    wait: float
    #: Requests that waited for this fetch only (``scrapy robots`` without
    #: ``--wait``, a check of one URL): they are dropped now.
    dropped: int = 0

    def describe(self, subject: str = "requests to it") -> str:
        """The outlook in words, for the WARNING of an unreachable origin:
        what happens to the requests that may not wait, if any, then to
        those that do."""
        if not self.dropped:
            return self._waits(subject)
        retry = duration(self.retry_in)
        if self.drop_in is None:  # a check of one URL, and nothing else waits
            return (
                "this check does not wait for a retry (scrapy robots --wait does); a crawl "
                f"would fetch it again in {retry} s"
            )
        count = self.dropped
        gone = (
            f"{count} request{'s' * (count != 1)} that may not wait for a retry "
            f"{'is' if count == 1 else 'are'} dropped now"
        )
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


@dataclass(frozen=True, slots=True)
class Wait:
    """What waits for one unreachable origin now: how many requests (here,
    and held in Redis for a fleet), in how many seconds robots.txt is
    fetched again (``None``: a fetch is under way), and in how many the
    longest-waiting request is dropped (``ROBOTSTXT_RFC_UNREACHABLE_WAIT``;
    ``None``: not known here)."""

    origin: Origin
    requests: int
    retry_in: float | None
    drop_in: float | None


#: Origins a progress line names at most; it counts the others.
SHOWN_ORIGINS = 3


def waiting_words(waits: list[Wait]) -> str:
    """The progress line of long waits, bounded in length however many
    origins wait.

    >>> from scrapy_robots_rfc.policy import Origin
    >>> a, b = Origin("https", "a.example", 443), Origin("https", "b.example", 443)
    >>> print(waiting_words([Wait(a, 3, 25.0, 540.0), Wait(b, 1, None, 200.0)]))
    4 requests wait for robots.txt of 2 unreachable origins (https://a.example: 3, https://b.example: 1); next try in 25 s (https://a.example), a try is under way for 1; the first drop in 200 s (ROBOTSTXT_RFC_UNREACHABLE_WAIT)
    """  # noqa: E501
    ordered = sorted(waits, key=lambda wait: -wait.requests)
    total = sum(wait.requests for wait in waits)
    named = ", ".join(f"{wait.origin}: {wait.requests}" for wait in ordered[:SHOWN_ORIGINS])
    more = len(ordered) - SHOWN_ORIGINS
    if more > 0:
        named += f" and {more} more"
    origins = f"{len(waits)} unreachable origin{'s' * (len(waits) != 1)}"
    line = f"{total} request{'s' * (total != 1)} {'waits' if total == 1 else 'wait'}"
    line += f" for robots.txt of {origins} ({named})"
    due = [wait for wait in waits if wait.retry_in is not None]
    if due:
        soonest = min(due, key=lambda wait: wait.retry_in or 0.0)
        line += f"; next try in {duration(soonest.retry_in or 0.0)} s ({soonest.origin})"
    fetching = len(waits) - len(due)
    if fetching:
        line += f"{', a' if due else '; a'} try is under way for {fetching}"
    drops = [wait.drop_in for wait in waits if wait.drop_in is not None]
    if drops:
        line += f"; the first drop in {duration(min(drops))} s (ROBOTSTXT_RFC_UNREACHABLE_WAIT)"
    return line


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
        url: str | None = None,
    ) -> None:
        """The line of a failed fetch (HTTP-4 to HTTP-6): what is in force,
        and what happens next to the requests that wait (``outlook``), so
        that no wait is silent. ``url``: the document's, when it is not
        robots.txt (the TDMRep file)."""
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
            {"url": url or key.robots_url, "outcome": outcome, "policy": said},
            extra=self._runtime.log,
        )

    def dropping(self, key: Origin, reason: str, title: str = "robots.txt") -> None:
        """The first drop of ``key``'s requests after
        ``ROBOTSTXT_RFC_UNREACHABLE_WAIT`` for its document ``title``; said
        once per origin."""
        if key in self._warned:
            return
        self._warned.add(key)
        logger.warning(
            "Dropping requests to %(origin)s: its %(title)s has been unreachable "
            "(%(reason)s) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (%(wait)s s); more "
            "requests to it will be dropped the same way while it stays unreachable",
            {"origin": key, "reason": reason, "wait": duration(self._wait), "title": title},
            extra=self._runtime.log,
        )

    def waiting(self, waits: list[Wait]) -> None:
        """The progress line of requests waiting for unreachable robots.txt
        files (:mod:`.crawl._progress`)."""
        logger.info("%(line)s", {"line": waiting_words(waits)}, extra=self._runtime.log)

    def moved(self, count: int, where: str) -> None:
        """``count`` requests that waited in this worker's memory while the
        store failed are held in Redis (``where``) now that it answers."""
        logger.info(
            "Moved %(count)d requests that waited for robots.txt in this worker's memory "
            "to Redis (%(key)s)",
            {"count": count, "key": where},
            extra=self._runtime.log,
        )
