"""A parse lets other threads run (issue 41): the compiled build never runs
the interpreter's switch check, so ``RobotsTxt.parse`` gives the GIL up
itself (``time.sleep(0)``) every 1,024 lines and between the slices of
its split into lines; what it reads is the same as in one piece.

The crawl parses a large robots.txt in a thread (tests/crawl/test_parsing.py);
bench_reactor.py measures how late the reactor runs meanwhile."""

from __future__ import annotations

import threading
import time
from typing import Any

from scrapy_robots_rfc import RobotsTxt

#: The parse's slice of text.
SLICE = 1 << 20
#: The parse gives the GIL up at least once per this many bytes of short
#: lines (1,024 lines of this file's are 17 KiB).
GIVES_WAY_EVERY = 64 * 1024


def numbered(groups: int, *, long_line_at: int = -1, end: bytes = b"\n") -> bytes:
    """``groups`` groups ``User-agent: b<n>`` / ``Disallow: /p<n>``, lines
    ended by ``end``, and a comment line longer than a slice before group
    ``long_line_at``."""
    parts = []
    for number in range(groups):
        if number == long_line_at:
            parts.append(b"#" * (SLICE + 10) + end)
        parts.append(b"User-agent: b%d%sDisallow: /p%d%s" % (number, end, number, end))
    return b"".join(parts)


def test_a_body_of_several_slices_is_read_as_one() -> None:
    """Lines that straddle the slices' edges are read whole, and numbered
    as in one piece: each group as written, at its own lines."""
    for end in (b"\n", b"\r\n", b"\r"):
        groups = 40_000  # 1.3 MiB, and the long line: 3 slices
        robots = RobotsTxt.parse(numbered(groups, long_line_at=20_000, end=end), max_bytes=None)
        found = robots.groups
        assert len(found) == groups
        for number, group in enumerate(found):
            line = 2 * number + 1 + (number >= 20_000)
            assert group.agents == (f"b{number}",)
            assert [(r.pattern, r.line) for r in group.rules] == [(f"/p{number}", line + 1)]


def test_a_parse_in_a_thread_gives_way_to_other_threads(monkeypatch: Any) -> None:
    """A thread's parse gives the GIL up again and again, at least once per
    64 KiB of short lines; at the first time, the main thread runs and
    finds the parse still under way."""
    real_sleep = time.sleep
    turns = 0
    first_turn, main_ran, parsed = threading.Event(), threading.Event(), threading.Event()

    def sleep(seconds: float) -> None:
        nonlocal turns
        if threading.current_thread() is not threading.main_thread() and seconds == 0:
            turns += 1
            if not first_turn.is_set():
                first_turn.set()
                main_ran.wait(60)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", sleep)
    groups = 40_000  # 80,000 lines, 1.3 MiB: two slices
    body = numbered(groups)

    def parse() -> None:
        RobotsTxt.parse(body, max_bytes=None)
        parsed.set()

    thread = threading.Thread(target=parse)
    thread.start()
    assert first_turn.wait(60)
    under_way = not parsed.is_set()
    main_ran.set()
    thread.join(60)
    monkeypatch.undo()
    assert under_way
    assert parsed.is_set()
    assert turns >= len(body) // GIVES_WAY_EVERY
