"""The end-of-crawl report: one row per origin, the INFO summary line, and
the JSON lines file of ``ROBOTSTXT_RFC_REPORT`` (docs/verdicts.rst, "The crawl
report"), whose shape is the ``report`` schema (:mod:`.schemas`)."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import schemas
from ..policy import State
from ..robotstxt import CATEGORIES

if TYPE_CHECKING:
    from scrapy import Spider
    from scrapy.statscollectors import StatsCollector

    from ..policy import Origin

logger = logging.getLogger(__name__)

#: Origins decided at least once (a fetch or a store read): a bounded stat,
#: beside one per state (``robotstxt/origins/<state>``, :class:`.policy.State`).
ORIGINS = "robotstxt/origins"

#: An origin whose robots.txt in force is an HTML page (:attr:`Row.html_page`):
#: the summary counts it apart from those with rules.
_HTML = "html_page"
#: The summary line's words for each kind of origin, in its order: each
#: state, an HTML page after "with rules", and ``None``, an origin no fetch
#: has decided yet. The summary counts origins: "1 with rules", never
#: "1 rules".
_LABELS: dict[State | str | None, str] = {
    State.RULES: "with rules",
    _HTML: "with an HTML page",
    **{state: state.label for state in State if state is not State.RULES},
    None: "undecided",
}


@dataclass(eq=False, slots=True)
class Row:
    """One origin's line of the report: what its last fetch found (the
    ``robots`` object of every JSON output, :func:`.schemas.robots_object`),
    then what happened to its requests."""

    #: The state of the last outcome; ``None`` while no fetch has decided
    #: the origin.
    state: State | None = None
    #: :attr:`.policy.Answer.outcome` of the last fetch: "200", "HTTP 503"...
    outcome: str | None = None
    #: The HTTP status of the last fetch's last response, if any.
    status: int | None = None
    #: Where the rules came from (LOC-9: the end of the redirects).
    source: str | None = None
    #: robots.txt fetches: a redirect chain is one fetch.
    fetches: int = 0
    redirects: int = 0
    forbidden: int = 0
    waited: int = 0
    dropped: int = 0
    #: The download slot delay set from ``crawl-delay``, if any.
    crawl_delay_applied: float | None = None
    #: Requests dropped before download: robots.txt's usage preference is
    #: ``n`` for a category of ``ROBOTSTXT_RFC_USAGE`` (U-6).
    usage_forbidden: int = 0
    #: Responses dropped before the spider: the Content-Usage header says
    #: ``n``, or a category stays unknown (``ROBOTSTXT_RFC_USAGE_UNKNOWN``).
    usage_dropped: int = 0
    #: Category of ``ROBOTSTXT_RFC_USAGE`` -> the drops it caused (a drop
    #: for two categories counts in both); ``None`` before the first.
    usage_categories: dict[str, int] | None = None
    #: Requests a callback yielded from a ``nofollow`` page, dropped
    #: (``ROBOTSTXT_RFC_NOFOLLOW``, P-4).
    page_nofollow: int = 0
    #: Items a callback yielded from a ``noindex`` page, or one past its
    #: ``unavailable_after``, dropped (``ROBOTSTXT_RFC_NOINDEX``, P-4).
    page_noindex: int = 0
    #: The last 2xx body fetched looks like an HTML page, not a robots.txt
    #: (:func:`.robotstxt.looks_like_html`): the summary counts the origin
    #: apart from those with rules while its state is ``rules``.
    html_page: bool = False
    #: The TDMRep file in a crawl that mines (``ROBOTSTXT_RFC_TDM``): what
    #: its last fetch found ("file (3 rules)", "404: no file: unset", "not
    #: known (HTTP 503)"); ``None`` when it was not fetched.
    tdm: str | None = None
    #: Its fetches: a redirect chain is one.
    tdm_fetches: int = 0
    #: Requests not downloaded: the file reserves their URL (T-4).
    tdm_reserved: int = 0
    #: Pages reserved by their ``tdm-reservation`` header or meta tag.
    tdm_pages_reserved: int = 0
    #: Items from such pages kept from the pipeline.
    tdm_items_dropped: int = 0

    def counts(self) -> dict[str, Any]:
        """What happened to the origin's requests, for JSON: every field
        but those of the ``robots`` object."""
        return {name: getattr(self, name) for name in self.__slots__ if name not in _FETCH}


#: The fields of :class:`Row` that the ``robots`` object says, and one
#: that only the summary line says.
_FETCH = frozenset(("state", "outcome", "status", "source", "html_page"))


class Report:
    """Rows for at most ``max_origins`` origins (the first seen); the others
    are added up in one row of totals. Not the LRU: an evicted origin keeps
    its row.

    With ``stats``, it keeps :data:`ORIGINS` and ``robotstxt/origins/<state>``
    (origins by the state of their last outcome) up to date: a small fixed
    set of keys, read by :mod:`..monitors`."""

    def __init__(self, max_origins: int, stats: StatsCollector | None = None) -> None:
        self.max_origins = max_origins
        self._stats = stats
        self._rows: dict[Origin, Row] = {}
        self._other = Row()
        self._other_origins = 0
        self._other_states: Counter[State | None] = Counter()

    def row(self, key: Origin) -> Row:
        """``key``'s row; past ``max_origins`` rows, the totals of the others."""
        row = self._rows.get(key)
        if row is None:
            if len(self._rows) >= self.max_origins:
                return self._other
            row = self._rows[key] = Row()
        return row

    def outcome(
        self,
        key: Origin,
        state: State,
        outcome: str,
        source: str,
        previous: State | None,
        *,
        status: int | None = None,
    ) -> None:
        """Once per fetch (or store read): the origin's state, outcome and
        status, and where the rules came from (``source``); ``previous`` is
        the state of the entry it replaces, if cached."""
        row = self.row(key)
        if row is self._other:
            # No row to hold the origin's state: count it by its last state,
            # through the cache. An origin the LRU evicted counts again.
            if previous is None:
                self._other_origins += 1
            else:
                self._other_states[previous] -= 1
            self._other_states[state] += 1
            self._count(previous, state)
            return
        self._count(row.state, state)
        row.state, row.outcome, row.status, row.source = state, outcome, status, source

    def _count(self, before: State | None, after: State) -> None:
        """The origin stats: an origin went from ``before`` (``None``: not
        decided yet) to ``after``."""
        stats = self._stats
        if stats is None or before is after:
            return
        if before is None:
            stats.inc_value(ORIGINS)
        else:
            stats.inc_value(f"{ORIGINS}/{before.value}", -1)
        stats.inc_value(f"{ORIGINS}/{after.value}")

    def usage(self, key: Origin, categories: tuple[str, ...], *, downloaded: bool) -> None:
        """One request dropped for a usage preference of ``categories``:
        before download, or (``downloaded``) before the spider."""
        row = self.row(key)
        if downloaded:
            row.usage_dropped += 1
        else:
            row.usage_forbidden += 1
        counts = row.usage_categories
        if counts is None:
            counts = row.usage_categories = {}
        for category in categories:
            counts[category] = counts.get(category, 0) + 1

    def summary(self, *, builtin: bool = False) -> str:
        """The INFO line. ``builtin``: Scrapy's built-in robots.txt
        middleware ran beside this package's; it writes the same
        ``robotstxt/*`` stats, so the line says how much of
        ``robotstxt/forbidden`` is its (:meth:`_builtin_summary`)."""
        rows = self._rows.values()
        other = self._other
        # Past max_origins an origin is counted by its state alone.
        states: Counter[State | str | None] = Counter(
            _HTML if row.html_page and row.state is State.RULES else row.state for row in rows
        )
        states.update(self._other_states)
        origins = len(self._rows) + self._other_origins
        forbidden = sum(row.forbidden for row in rows) + other.forbidden
        waited = sum(row.waited for row in rows) + other.waited
        dropped = sum(row.dropped for row in rows) + other.dropped
        breakdown = ", ".join(
            f"{states[state]} {label}" for state, label in _LABELS.items() if states[state] > 0
        )
        return (
            f"robots.txt: {origins} {'origin' if origins == 1 else 'origins'} checked"
            f"{f' ({breakdown})' if breakdown else ''}; {forbidden} "
            f"{'request' if forbidden == 1 else 'requests'} forbidden, {waited} waited, "
            f"{dropped} dropped{self._usage_summary()}{self._tdm_summary()}"
            f"{self._builtin_summary(forbidden) if builtin else ''}"
        )

    def _builtin_summary(self, forbidden: int) -> str:
        """The summary's suffix when Scrapy's built-in ran beside: the
        requests it forbade, which ``robotstxt/forbidden`` counts with this
        package's ``forbidden``, and the stats its robots.txt requests are
        in."""
        stats = self._stats
        total = forbidden if stats is None else int(stats.get_value("robotstxt/forbidden", 0))
        theirs = total - forbidden
        return (
            f"; Scrapy's built-in RobotsTxtMiddleware ran too: {theirs} "
            f"{'request' if theirs == 1 else 'requests'} forbidden by it, not by this package "
            f"(robotstxt/forbidden: {total}), its robots.txt requests counted in "
            "robotstxt/request_count"
        )

    def _tdm_summary(self) -> str:
        """The summary's suffix in a crawl that fetched TDMRep files: "; TDM:
        2 requests reserved, 1 page reserved (3 items kept from the
        pipeline)"."""
        rows = [*self._rows.values(), self._other]
        if not any(row.tdm_fetches or row.tdm is not None for row in rows):
            return ""
        reserved = sum(row.tdm_reserved for row in rows)
        pages = sum(row.tdm_pages_reserved for row in rows)
        items = sum(row.tdm_items_dropped for row in rows)
        return (
            f"; TDM: {reserved} {'request' if reserved == 1 else 'requests'} reserved, "
            f"{pages} {'page' if pages == 1 else 'pages'} reserved "
            f"({items} {'item' if items == 1 else 'items'} kept from the pipeline)"
        )

    def _usage_summary(self) -> str:
        """The summary's suffix when requests were dropped for usage
        preferences: "; 4 requests dropped for usage preferences (train-ai: 4)"."""
        rows = [*self._rows.values(), self._other]
        usage = sum(row.usage_forbidden + row.usage_dropped for row in rows)
        if not usage:
            return ""
        counts: Counter[str] = Counter()
        for row in rows:
            counts.update(row.usage_categories or {})
        by_category = ", ".join(f"{c}: {counts[c]}" for c in CATEGORIES if counts[c] > 0)
        return (
            f"; {usage} {'request' if usage == 1 else 'requests'} dropped for usage "
            f"preferences ({by_category})"
        )

    def lines(self) -> list[str]:
        """The JSON lines (the ``report`` schema): one per origin, then the
        totals of the others."""
        lines = [
            json.dumps(self._origin_line(key, row), ensure_ascii=False, allow_nan=False)
            for key, row in sorted(self._rows.items(), key=lambda item: str(item[0]))
        ]
        other = self._other
        if self._other_origins or other.counts() != Row().counts():
            totals = {
                "schema": schemas.REPORT,
                "origin": None,
                "origins": self._other_origins,
                "states": {
                    "undecided" if state is None else state.value: n
                    for state, n in self._other_states.items()
                    if n > 0
                },
                **other.counts(),
            }
            del totals["crawl_delay_applied"]
            lines.append(json.dumps(totals, ensure_ascii=False, allow_nan=False))
        return lines

    @staticmethod
    def _origin_line(key: Origin, row: Row) -> dict[str, Any]:
        robots = schemas.robots_object(
            url=key.robots_url,
            source=row.source,
            status=row.status,
            state=row.state,
            outcome=row.outcome,
        )
        return {"schema": schemas.REPORT, "origin": str(key), "robots": robots, **row.counts()}

    def close(self, spider: Spider, path: str | None, *, builtin: bool = False) -> None:
        """Log the summary and write the file of ``ROBOTSTXT_RFC_REPORT``;
        ``builtin``: Scrapy's built-in ran beside (:meth:`summary`)."""
        summary = self.summary(builtin=builtin)
        logger.info("%(summary)s", {"summary": summary}, extra={"spider": spider})
        if path is None:
            return
        try:
            write_atomically(path, "".join(f"{line}\n" for line in self.lines()))
        except OSError as exc:
            logger.error(
                "Cannot write the robots.txt report to %(path)s (ROBOTSTXT_RFC_REPORT): %(error)s",
                {"path": path, "error": exc},
                extra={"spider": spider},
            )


def write_atomically(path: str, text: str) -> None:
    """Write ``text`` to ``path`` through a temporary file beside it, so that
    a reader never sees half a report; parent folders are created."""
    path = os.path.expanduser(path)
    folder = os.path.dirname(path)
    if folder:
        os.makedirs(folder, exist_ok=True)
    partial = f"{path}.{os.getpid()}.partial"
    try:
        with open(partial, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(partial, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(partial)
        raise
