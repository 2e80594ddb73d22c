"""The end-of-crawl report: one row per origin, the INFO summary line, and
the JSON lines file of ``ROBOTSTXT_RFC_REPORT`` (README.rst, "The crawl
report")."""

from __future__ import annotations

import contextlib
import json
import logging
import os
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .config import LOGGER_NAME
from .policy import State
from .usage import CATEGORIES

if TYPE_CHECKING:
    from scrapy import Spider

    from .origin import Origin

__all__ = ["Report", "Row", "write_atomically"]

logger = logging.getLogger(LOGGER_NAME)

#: The summary line's words for each state, in its order; ``None`` is an
#: origin no fetch has decided yet.
_LABELS: dict[str | None, str] = {state.value: state.label for state in State}
_LABELS[None] = "undecided"
# The summary counts origins: "1 with rules", never "1 rules".
_LABELS[State.RULES.value] = "with rules"


@dataclass(eq=False, slots=True)
class Row:
    """One origin's line of the report."""

    #: :class:`~.policy.State` value of the last outcome; ``None`` while no
    #: fetch has decided the origin.
    kind: str | None = None
    #: :attr:`.policy.Answer.outcome` of the last fetch: "200", "HTTP 503"...
    outcome: str | None = None
    #: Where the rules came from (LOC-9: the end of the redirects).
    robots_url: str | None = None
    #: robots.txt fetches: a redirect chain is one fetch.
    fetches: int = 0
    redirects: int = 0
    forbidden: int = 0
    waited: int = 0
    dropped: int = 0
    #: The download slot delay set from ``crawl-delay``, if any.
    crawl_delay: float | None = None
    #: Requests dropped before download: robots.txt's usage preference is
    #: ``n`` for a category of ``ROBOTSTXT_RFC_USAGE`` (U-6).
    usage_forbidden: int = 0
    #: Responses dropped before the spider: the Content-Usage header says
    #: ``n``, or a category stays unknown (``ROBOTSTXT_RFC_USAGE_UNKNOWN``).
    usage_dropped: int = 0
    #: Category of ``ROBOTSTXT_RFC_USAGE`` -> the drops it caused (a drop
    #: for two categories counts in both); ``None`` before the first.
    usage_categories: dict[str, int] | None = None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}


class Report:
    """Rows for at most ``max_origins`` origins (the first seen); the others
    are added up in one row of totals. Not the LRU: an evicted origin keeps
    its row."""

    def __init__(self, max_origins: int) -> None:
        self.max_origins = max_origins
        self._rows: dict[Origin, Row] = {}
        self._other = Row()
        self._other_origins = 0
        self._other_kinds: Counter[str | None] = Counter()

    def row(self, key: Origin) -> Row:
        """``key``'s row; past ``max_origins`` rows, the totals of the others."""
        row = self._rows.get(key)
        if row is None:
            if len(self._rows) >= self.max_origins:
                return self._other
            row = self._rows[key] = Row(robots_url=key.robots_url)
        return row

    def outcome(
        self,
        key: Origin,
        state: State,
        outcome: str,
        robots_url: str,
        previous: State | None,
    ) -> None:
        """Once per fetch (or store read): the origin's state and outcome;
        ``previous`` is the state of the entry it replaces, if cached."""
        row = self.row(key)
        if row is self._other:
            # No row to hold the origin's state: count it by its last state,
            # through the cache. An origin the LRU evicted counts again.
            if previous is None:
                self._other_origins += 1
            else:
                self._other_kinds[previous.value] -= 1
            self._other_kinds[state.value] += 1
            return
        row.kind = state.value
        row.outcome = outcome
        row.robots_url = robots_url

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

    def summary(self) -> str:
        """The INFO line."""
        rows = self._rows.values()
        other = self._other
        kinds = Counter(row.kind for row in rows) + self._other_kinds
        origins = len(self._rows) + self._other_origins
        forbidden = sum(row.forbidden for row in rows) + other.forbidden
        waited = sum(row.waited for row in rows) + other.waited
        dropped = sum(row.dropped for row in rows) + other.dropped
        breakdown = ", ".join(
            f"{kinds[kind]} {label}" for kind, label in _LABELS.items() if kinds[kind] > 0
        )
        return (
            f"robots.txt: {origins} {'origin' if origins == 1 else 'origins'} checked"
            f"{f' ({breakdown})' if breakdown else ''}; {forbidden} "
            f"{'request' if forbidden == 1 else 'requests'} forbidden, {waited} waited, "
            f"{dropped} dropped{self._usage_summary()}"
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
        """The JSON lines: one per origin, then the totals of the others."""
        lines = [
            json.dumps({"origin": str(key), **row.as_dict()}, ensure_ascii=False)
            for key, row in sorted(self._rows.items(), key=lambda item: str(item[0]))
        ]
        other = self._other
        if self._other_origins or other.as_dict() != Row().as_dict():
            totals = {
                "origin": None,
                "origins": self._other_origins,
                "kinds": {kind or "undecided": n for kind, n in self._other_kinds.items() if n > 0},
                **other.as_dict(),
            }
            for name in ("kind", "outcome", "robots_url", "crawl_delay"):
                del totals[name]
            lines.append(json.dumps(totals, ensure_ascii=False))
        return lines

    def close(self, spider: Spider, path: str | None) -> None:
        """Log the summary and write the file of ``ROBOTSTXT_RFC_REPORT``."""
        logger.info("%(summary)s", {"summary": self.summary()}, extra={"spider": spider})
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
