"""The library's parse is bounded (issue 25): ``RobotsTxt.parse`` reads at
most 500 KiB by default, with the rule the middleware cuts by (RFC 9309
§2.5; HTTP-12, HTTP-13, D-16), and says what it cut; ``max_bytes`` lifts or
lowers the limit. ``check`` and ``lint`` say so on a local file and on
stdin, and a crawl with a larger ``ROBOTSTXT_RFC_MAX_BYTES`` still reads
past 500 KiB, fetched or from the store.
"""

from __future__ import annotations

import gc
import tracemalloc
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt import lint
from scrapy_robots_rfc.robotstxt._canonical import MODES
from scrapy_robots_rfc.robotstxt._parser import MAX_BYTES, Note, cut_at_limit

from ..command_line import run
from ..crawling import Stage, crawl, pages, robots_origin, stat
from ..mockserver import Reply
from ..robots_strategies import CRAWLERS, robots_files, urls

HEAD = b"User-agent: *\nDisallow: /early\n"
URL = "https://e.com"


def padded(size: int, last: bytes) -> bytes:
    """:data:`HEAD`, comment lines, then ``last``: ``size`` bytes in all."""
    filler = size - len(HEAD) - len(last)
    assert filler >= 0
    body = [HEAD]
    while filler:
        part = min(filler, 10_000)
        body.append(b"#" * (part - 1) + b"\n")
        filler -= part
    body.append(last)
    found = b"".join(body)
    assert len(found) == size
    return found


def lines_in(body: bytes) -> int:
    return len(body.splitlines())


def past_limit(line: int, cut: int | None, limit: int = MAX_BYTES) -> Note:
    """The note of a parse that cut ``cut`` bytes (``None``: the caller cut)."""
    rest = "the rest" if cut is None else f"the rest ({cut:,} bytes)"
    size = f"{limit:,} bytes" + (" (500 KiB)" if limit == MAX_BYTES else "")
    return Note(
        line, "past-limit", f"this line and {rest} are past {size} and ignored (RFC 9309 §2.5)"
    )


LATE = b"Disallow: /late\n"

#: (id, body, whether /late is disallowed, bytes cut): around the limit.
AROUND = [
    ("just under", padded(MAX_BYTES - 1, LATE), True, 0),
    ("at", padded(MAX_BYTES, LATE), True, 0),
    # The last line ends one byte past the limit: it is cut, so dropped.
    ("one byte over", padded(MAX_BYTES + 1, LATE), False, len(LATE)),
    # The limit falls on a line end: what follows it is ignored.
    ("over, at a line end", padded(MAX_BYTES, b"Disallow: /x\n") + LATE, False, len(LATE)),
    ("far over", padded(MAX_BYTES, b"Disallow: /x\n") + LATE * 100_000, False, 1_600_000),
]


@pytest.mark.parametrize(
    ("body", "late", "cut"), [row[1:] for row in AROUND], ids=[row[0] for row in AROUND]
)
@pytest.mark.parametrize("mode", MODES)
def test_the_limit_is_500_kib(body: bytes, late: bool, cut: int, mode: Any) -> None:
    robots = RobotsTxt.parse(body, mode)
    assert robots.allowed(f"{URL}/early", "Bot") is False
    assert robots.allowed(f"{URL}/late", "Bot") is not late
    if cut:
        kept = body[: len(body) - cut]
        assert len(kept) <= MAX_BYTES
        assert robots.notes == (past_limit(lines_in(kept) + 1, cut),)
    else:
        assert robots.notes == ()
    # None reads everything: the rule past the limit applies, nothing is said.
    whole = RobotsTxt.parse(body, mode, max_bytes=None)
    assert whole.allowed(f"{URL}/late", "Bot") is False
    assert whole.notes == ()


def test_a_line_cut_across_the_limit_is_dropped() -> None:
    """HTTP-13, D-16: ``Disallow: /private`` cut to ``Disallow: /pr`` would
    disallow /pricing; the line is dropped instead."""
    body = padded(MAX_BYTES + 6, b"Disallow: /private\n")
    assert body[:MAX_BYTES].endswith(b"Disallow: /pr")
    robots = RobotsTxt.parse(body)
    assert robots.allowed(f"{URL}/pricing", "Bot") is True
    assert robots.allowed(f"{URL}/private", "Bot") is True
    assert robots.allowed(f"{URL}/early", "Bot") is False
    assert robots.notes == (past_limit(lines_in(body), len(b"Disallow: /private\n")),)
    assert [len(group.rules) for group in robots.groups] == [1]


def test_a_lowered_limit() -> None:
    body = b"user-agent: *\ndisallow: /a\ndisallow: /b\n"
    robots = RobotsTxt.parse(body, max_bytes=30)
    assert robots.notes == (past_limit(3, 13, limit=30),)
    assert robots.notes[0].text == (
        "this line and the rest (13 bytes) are past 30 bytes and ignored (RFC 9309 §2.5)"
    )
    assert (robots.allowed(f"{URL}/a", "x"), robots.allowed(f"{URL}/b", "x")) == (False, True)
    assert RobotsTxt.parse(body, max_bytes=len(body)).notes == ()
    assert RobotsTxt.parse(body, max_bytes=0).groups == ()
    assert RobotsTxt.parse(body, max_bytes=0).notes == (past_limit(1, len(body), limit=0),)
    assert RobotsTxt.parse(b"", max_bytes=0).notes == ()


def test_a_raised_limit_reads_past_500_kib() -> None:
    body = padded(MAX_BYTES, b"Disallow: /x\n") + LATE
    robots = RobotsTxt.parse(body, max_bytes=1024 * 1024)
    assert robots.allowed(f"{URL}/late", "Bot") is False
    assert robots.notes == ()


def test_the_note_of_a_body_the_caller_cut() -> None:
    """``truncated=True``: the caller cut, at 500 KiB or at its own
    ``max_bytes``; how much it cut is not known here."""
    body, truncated = cut_at_limit(b"user-agent: *\ndisallow: /a\ndisallow: /b\n", 30)
    assert truncated
    assert RobotsTxt.parse(body, truncated=True).notes == (past_limit(3, None),)
    assert RobotsTxt.parse(body, max_bytes=None, truncated=True).notes == (past_limit(3, None),)
    assert RobotsTxt.parse(body, max_bytes=30, truncated=True).notes == (
        past_limit(3, None, limit=30),
    )
    # Cut again here (a caller with a larger limit): still one note.
    assert RobotsTxt.parse(body, max_bytes=20, truncated=True).notes == (
        past_limit(2, None, limit=20),
    )


def test_the_limit_is_on_the_utf8_bytes_of_a_str() -> None:
    text = "User-agent: *\n# " + "é" * 40 + "\nDisallow: /\n"
    assert len(text) < 100 < len(text.encode())
    robots = RobotsTxt.parse(text, max_bytes=100)
    assert robots.allowed(f"{URL}/x", "Bot") is True
    assert robots.notes == (past_limit(3, 12, limit=100),)
    assert robots.notes == RobotsTxt.parse(text.encode(), max_bytes=100).notes
    assert RobotsTxt.parse(text, max_bytes=len(text.encode())).allowed(f"{URL}/x", "Bot") is False
    for other in (bytearray(text.encode()), memoryview(text.encode())):
        assert RobotsTxt.parse(other, max_bytes=100).notes == robots.notes


@pytest.mark.parametrize(
    ("max_bytes", "error", "message"),
    [
        ("500", TypeError, "max_bytes must be an int or None, not str"),
        (1.5, TypeError, "max_bytes must be an int or None, not float"),
        (True, TypeError, "max_bytes must be an int or None, not bool"),
        (-1, ValueError, "max_bytes must be 0 or more bytes, or None, not -1"),
    ],
)
def test_max_bytes_is_checked(max_bytes: Any, error: type[Exception], message: str) -> None:
    with pytest.raises(error) as info:
        RobotsTxt.parse(b"User-agent: *\n", max_bytes=max_bytes)
    assert str(info.value) == message


def test_memory_is_bounded_by_the_limit_not_the_input() -> None:
    """A 5 MB body costs what its first 500 KiB cost: what is read is cut
    before it is split into lines (the issue measured 49 MB of peak
    memory for 5 MB parsed whole)."""
    rule = b"Disallow: /shop/*/cart?session=\n"
    body = b"User-agent: *\n" + rule * (5_000_000 // len(rule))
    peaks = []
    for size in (MAX_BYTES, len(body)):
        gc.collect()
        tracemalloc.start()
        try:
            robots = RobotsTxt.parse(body[:size] if size < len(body) else body)
            robots.allowed(f"{URL}/shop/1/cart?session=1", "Bot")
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
        del robots
    small, large = peaks
    # The slice of the first pass is part of its peak; the second has none.
    assert large < small * 1.5
    assert large < 20 * MAX_BYTES


@settings(max_examples=150, deadline=None)
@given(robots_files(), st.data())
def test_parse_with_a_limit_is_parse_of_what_cut_at_limit_leaves(robots: Any, data: Any) -> None:
    body = robots.render()
    limit = data.draw(st.integers(0, len(body) + 2), label="limit")
    kept, cut = cut_at_limit(body, limit)
    asked = data.draw(st.lists(st.tuples(urls(), st.sampled_from(CRAWLERS)), max_size=4))
    for mode in MODES:
        ours = RobotsTxt.parse(body, mode, max_bytes=limit)
        theirs = RobotsTxt.parse(kept, mode, max_bytes=None, truncated=cut)
        assert ours.groups == theirs.groups
        assert ours.sitemaps == theirs.sitemaps
        assert ours.usage_rules == theirs.usage_rules
        assert [note[:2] for note in ours.notes] == [note[:2] for note in theirs.notes]
        past = [note for note in ours.notes if note.code == "past-limit"]
        assert past == (
            [past_limit(lines_in(kept) + 1, len(body) - len(kept), limit)] if cut else []
        )
        for url, agent in asked:
            assert ours.allowed(url, agent) is theirs.allowed(url, agent)


# -- lint and check --------------------------------------------------------------------


def test_lint_lints_what_the_parse_reads() -> None:
    body = padded(MAX_BYTES, b"Disallow: /x\n") + b"Disallow: /x\n"
    (finding,) = lint(body)
    assert (finding.line, finding.code) == (lines_in(body), "past-limit")
    assert finding.message == past_limit(lines_in(body), 13).text
    # The CLI cuts first (it reads no more): the same finding, without the count.
    (cut,) = lint(body[:MAX_BYTES], truncated=True)
    assert (cut.line, cut.code, cut.message) == (
        finding.line,
        finding.code,
        past_limit(cut.line, None).text,
    )
    # Read whole, the repeated rule is the finding instead.
    (finding,) = lint(body, max_bytes=None)
    assert (finding.line, finding.code) == (lines_in(body), "duplicate")


BIG = padded(MAX_BYTES, b"Disallow: /x\n") + LATE


@pytest.fixture(params=["file", "stdin"])
def big_source(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, str, bytes | None]:
    """A robots.txt over 500 KiB as the tools are given it: its argument,
    its name in their output, and what stdin carries."""
    if request.param == "stdin":
        return "-", "<stdin>", BIG
    path = tmp_path / "robots.txt"
    path.write_bytes(BIG)
    return str(path), str(path), None


def test_lint_says_a_local_file_was_cut(big_source: tuple[str, str, bytes | None]) -> None:
    robots, name, stdin = big_source
    status, out, err = run("lint", robots, stdin=stdin)
    assert out == [
        f"{name}:{lines_in(BIG)}: past-limit: this line and the rest are past 512,000 bytes "
        "(500 KiB) and ignored (RFC 9309 §2.5)",
        "1 finding",
    ]
    assert (status, err) == (1, "")


def test_check_says_a_local_file_was_cut(big_source: tuple[str, str, bytes | None]) -> None:
    robots, name, stdin = big_source
    status, out, err = run("check", robots, f"{URL}/late", f"{URL}/x", stdin=stdin)
    assert err == (
        f"note: {name}: it is larger than 512,000 bytes: the rules in its first 512,000 bytes "
        "are used, the rest is ignored (RFC 9309 §2.5)\n"
    )
    assert out[0] == f"{URL}/late: allowed: no rule of the group for '*' matches '/late'"
    assert out[1].startswith(f"{URL}/x: disallowed")
    assert status == 1


# -- the middleware's own limit -----------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_a_larger_robotstxt_rfc_max_bytes_is_read_whole(server, activation, tmp_path):
    """ROBOTSTXT_RFC_MAX_BYTES above 500 KiB: the rule past 500 KiB applies,
    after a fetch and when read from the store by the next crawl."""
    origin = robots_origin(server, Reply(body=BIG))
    settings = {
        "ROBOTSTXT_RFC_MAX_BYTES": 1024 * 1024,
        "ROBOTSTXT_RFC_STORE": f"sqlite:///{tmp_path / 'robots.db'}",
    }
    first = yield crawl(activation, [Stage(pages(origin, "/a", "/late"))], **settings)
    second = yield crawl(activation, [Stage(pages(origin, "/b", "/late"))], **settings)
    assert first.spider.seen == [origin.url("/a")]
    assert second.spider.seen == [origin.url("/b")]
    assert server.paths(origin).count("/robots.txt") == 1
    assert "/late" not in server.paths(origin)
    assert stat(first, "robotstxt/truncated") is None
    assert stat(second, "robotstxt/store/hit") == 1


def _cut_by_the_rule(body: bytes, limit: int) -> tuple[bytes, bool]:
    """HTTP-12, HTTP-13 in the fewest words: the first ``limit`` bytes, up
    to the last CR or LF in them."""
    if len(body) <= limit:
        return body, False
    head = body[:limit]
    return head[: max(head.rfind(b"\n"), head.rfind(b"\r")) + 1], True


@settings(max_examples=300, deadline=None)
@given(
    st.binary(max_size=80) | st.lists(st.sampled_from([b"a", b"\n", b"\r", b"\r\n"])).map(b"".join),
    st.integers(0, 90),
)
def test_cut_at_limit_is_the_rule(body: bytes, limit: int) -> None:
    assert cut_at_limit(body, limit) == _cut_by_the_rule(body, limit)
