"""The requests that wait for one undecided document of an origin
(:mod:`._origin_life`), in line by when each began to wait.

A waiter is counted from when it comes to when it leaves the line (released,
dropped, put aside). Where it waits (its :class:`Kind`) changes meanwhile,
in place: a request waiting inside ``process_request`` leaves it as a copy
*in transit* to the scheduler, and is *parked* when the scheduler receives
it (or, in a fleet, *moving* to Redis, and then *held* there); a copy that
comes back without passing the scheduler waits in place again. Held requests
are in the store, where any worker reaches them: only how many there are
and when the oldest began to wait is kept here.

Pure: the waiters' items are opaque (a Scrapy request), and times are what
the caller says (seconds since the epoch).
"""

from __future__ import annotations

import bisect
import enum
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Generic, TypeVar

R = TypeVar("R")


class Kind(enum.Enum):
    """Where a waiter waits."""

    __hash__ = object.__hash__

    #: Inside ``process_request``.
    IN_PLACE = "in place"
    #: A copy between ``process_request``'s return and the scheduler.
    TRANSIT = "in transit"
    #: In this worker's memory, out of the scheduler.
    PARKED = "parked"
    #: On its way to the fleet's store.
    MOVING = "moving"
    #: In the fleet's store: counted, not kept (:attr:`Waiters.held`).
    HELD = "held"


#: The kinds a drop can reach now: the others come back first.
_DROPPABLE = (Kind.IN_PLACE, Kind.PARKED)


@dataclass(eq=False, slots=True)
class Waiter(Generic[R]):
    """One request that waits: ``item`` (the request, or the copy that
    left), since when (``since``), where (``kind``). ``once``: it waits for
    the fetch under way only, never for a retry (RFC 9309 §2.3.1.4:
    ``scrapy robots`` without ``--wait``). ``scheduled``: it came through
    the scheduler, and may leave it to wait. ``counted``: it was counted as
    a waiting request before (it waited already)."""

    item: R
    since: float
    kind: Kind
    once: bool = False
    scheduled: bool = True
    counted: bool = False
    #: It waited in this worker's memory before it moved to the store.
    moved: bool = False


class Waiters(Generic[R]):
    """The line of waiters, oldest first, and the held ones' count."""

    __slots__ = ("_line", "held", "held_since")

    def __init__(self) -> None:
        self._line: list[Waiter[R]] = []
        #: Requests held in the fleet's store, and when the oldest of them
        #: began to wait (``None``: until the store says what is left).
        self.held = 0
        self.held_since: float | None = None

    def __len__(self) -> int:
        return len(self._line) + self.held

    def __bool__(self) -> bool:
        return bool(self._line) or self.held > 0

    def __iter__(self) -> Iterator[Waiter[R]]:
        return iter(self._line)

    def __contains__(self, waiter: object) -> bool:
        return any(w is waiter for w in self._line)

    def add(self, waiter: Waiter[R]) -> None:
        """``waiter`` comes, in line by when it began to wait."""
        line = self._line
        if not line or line[-1].since <= waiter.since:
            line.append(waiter)
        else:
            bisect.insort(line, waiter, key=_since)

    def hold(self, since: float, count: int = 1) -> None:
        """``count`` requests are held in the store, since ``since``."""
        self.held += count
        if self.held_since is None or since < self.held_since:
            self.held_since = since

    def remove(self, waiter: Waiter[R]) -> None:
        self._line.remove(waiter)

    def take(self) -> tuple[Waiter[R], ...]:
        """Every waiter of the line, which is emptied (the held ones stay
        in the store)."""
        line, self._line = self._line, []
        return tuple(line)

    def take_once(self) -> tuple[Waiter[R], ...]:
        """The waiters that wait for the fetch under way only."""
        once = tuple(w for w in self._line if w.once)
        if once:
            self._line = [w for w in self._line if not w.once]
        return once

    def take_expired(self, now: float, wait: float) -> tuple[Waiter[R], ...]:
        """The waiters that a drop reaches now (in place, or parked) and
        have waited ``wait`` seconds at ``now``; the others come back
        first, and are dropped then."""
        expired = tuple(
            w for w in self._line if w.since + wait <= now and w.kind in _DROPPABLE and not w.once
        )
        if expired:
            self._line = [w for w in self._line if w not in expired]
        return expired

    def of_kind(self, kind: Kind) -> tuple[Waiter[R], ...]:
        return tuple(w for w in self._line if w.kind is kind)

    def here(self) -> int:
        """How many wait in this worker's memory (in place, or parked)."""
        return sum(1 for w in self._line if w.kind in _DROPPABLE)

    def once(self) -> int:
        """How many wait for the fetch under way only."""
        return sum(1 for w in self._line if w.once)

    def first(self) -> float | None:
        """When the longest-waiting one that a drop reaches began to wait:
        in place, parked, or held."""
        starts = [w.since for w in self._line if w.kind in _DROPPABLE and not w.once]
        if self.held_since is not None:
            starts.append(self.held_since)
        return min(starts) if starts else None


def _since(waiter: Waiter[R]) -> float:
    return waiter.since
