"""What is known about one origin's TDMRep file (W3C TDM Reservation
Protocol, "TDM File on the Origin Server"; T-2): the status part is an
:class:`.Entry`, the same as robots.txt's, so that the file goes through
the same lifetimes, backoff and life as robots.txt; beside it, the parsed
file of the last good copy.

Pure: no I/O, the time is passed in.

>>> from scrapy_robots_rfc.policy import Answer, State
>>> from scrapy_robots_rfc.tdmrep import TdmFile
>>> file = TdmFile.parse(b'[{"location": "/a/", "tdm-reservation": 1}]')
>>> found = tdm_entry_for(Answer(State.RULES, "", 200), None, file, now=0.0,
...                       fresh_for=60.0, first_retry=30.0)
>>> found.value("https://e.com/a/b").reserved
True
>>> failed = tdm_entry_for(Answer(State.UNREACHABLE, "HTTP 503", 503), found, None,
...                        now=10.0, fresh_for=60.0, first_retry=30.0)
>>> failed.file is file  # the last good copy stays in force (HTTP-5)
True
>>> none = tdm_entry_for(Answer(State.ALLOW_ALL, "no robots.txt", 404), None, None,
...                      now=0.0, fresh_for=60.0, first_retry=30.0)
>>> none.entry.outcome, none.value("https://e.com/a").reservation
('404: no file: unset', None)
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ..tdmrep import UNSET, TdmValue
from ._policy import Entry, State, entry_for

if TYPE_CHECKING:
    from ..tdmrep import TdmFile
    from ._policy import Answer


@dataclass(frozen=True, slots=True)
class TdmEntry:
    """An origin's TDMRep file as the cache keeps it."""

    #: Its status, lifetime and backoff, as robots.txt's (``rules`` is
    #: always ``None``).
    entry: Entry
    #: The file of the good copy in force; ``None`` when the origin has
    #: none (a 4xx: no file, the protocol is not implemented), or none is
    #: known (unreachable with no good copy).
    file: TdmFile | None

    def value(self, url: str) -> TdmValue:
        """What the file says of ``url`` before it is downloaded: its
        first matching rule (T-3); unset without a file."""
        return UNSET if self.file is None else self.file.value(url)

    def cost(self) -> int:
        """What the entry costs in memory, in bytes: its status part
        (:meth:`.Entry.cost`) and its parsed file (:meth:`.TdmFile.cost`).
        Final once made: the cache weighs it once."""
        file = self.file
        return sys.getsizeof(self) + self.entry.cost() + (0 if file is None else file.cost())


def tdm_charge(key: tuple[object, ...], found: TdmEntry) -> int:
    """What the cache of TDMRep files charges for ``found`` under ``key``
    (an origin), beside its own :data:`.ITEM_BYTES`: :meth:`TdmEntry.cost`
    and the key's."""
    return found.cost() + sys.getsizeof(key) + sum(map(sys.getsizeof, key))


def tdm_settled(found: TdmEntry) -> bool:
    """A TDMRep entry's cost never changes once made (nothing is built on
    use): :class:`.LruCache`'s ``final``."""
    return True


def tdm_entry_for(
    answer: Answer,
    previous: TdmEntry | None,
    file: TdmFile | None,
    *,
    now: float,
    fresh_for: float,
    first_retry: float,
) -> TdmEntry:
    """The entry after ``answer``, as :func:`.entry_for` gives robots.txt's
    (T-2: 2xx parsed, 3xx followed, 4xx no file, 429, 5xx and network
    failures not known, retried with the same backoff); ``file`` is the
    parsed body of a ``RULES`` answer. A failed fetch keeps the good copy in
    force (HTTP-5)."""
    entry = entry_for(
        answer,
        None if previous is None else previous.entry,
        rules=None,
        now=now,
        fresh_for=fresh_for,
        first_retry=first_retry,
    )
    if answer.state is State.RULES:
        return TdmEntry(entry, file)
    if answer.state is State.UNREACHABLE:
        kept = previous.file if entry.good and previous is not None else None
        return TdmEntry(entry, kept)
    # No file (a 4xx, redirects given up on, a local refusal): said in the
    # file's words, not robots.txt's "allow all".
    if answer.state is State.REFUSED:
        outcome = f"tdmrep.json not fetched ({answer.detail}): unset"
    else:
        prefix = "" if answer.status is None else f"{answer.status}: "
        detail = "no file" if answer.detail == "no robots.txt" else answer.detail
        outcome = f"{prefix}{detail}: unset"
    return TdmEntry(replace(entry, outcome=outcome), None)
