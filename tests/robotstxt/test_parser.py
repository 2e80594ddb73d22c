"""The lexical and grouping rules, one table per section of docs/spec-ids.md.

Each row states the expected verdict; Google's parser (the spec's
reference) is asked too, so every row is checked against it as well as
against this package in both modes, unless the row says the modes differ.
"""

from __future__ import annotations

import re
import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt._canonical import MODES
from scrapy_robots_rfc.robotstxt._parser import (
    MAX_BYTES,
    MAX_LINE_BYTES,
    NOTE_CODES,
    CrawlDelay,
    Group,
    Note,
    cut_at_limit,
)
from scrapy_robots_rfc.robotstxt._patterns import Rule


def verdicts(body: bytes, agent: str, url: str) -> tuple[bool, bool, bool]:
    """(rfc mode, google mode, Google's parser)."""
    return (
        RobotsTxt.parse(body, "rfc").allowed(url, agent),
        RobotsTxt.parse(body, "google").allowed(url, agent),
        bool(RobotsMatcher().OneAgentAllowedByRobots(body, agent, url)),
    )


def check(body: bytes, agent: str, path: str, allowed: bool) -> None:
    url = "http://example.com" + path
    assert verdicts(body, agent, url) == (allowed, allowed, allowed)


# FMT-3, FMT-4, FMT-6, FMT-7, FMT-14: lines, BOM, comments, whitespace.
LEXICAL = [
    ("LF", b"user-agent: FooBot\ndisallow: /x\n", "/x", False),
    ("CRLF", b"user-agent: FooBot\r\ndisallow: /x\r\n", "/x", False),
    ("CR only", b"user-agent: FooBot\rdisallow: /x\r", "/x", False),
    ("mixed endings", b"user-agent: FooBot\r\n\rdisallow: /a\ndisallow: /x", "/x", False),
    ("no final newline", b"user-agent: FooBot\ndisallow: /x", "/x", False),
    ("full BOM", b"\xef\xbb\xbfuser-agent: FooBot\ndisallow: /x\n", "/x", False),
    ("BOM prefix EF BB", b"\xef\xbbuser-agent: FooBot\ndisallow: /x\n", "/x", False),
    ("BOM prefix EF", b"\xefuser-agent: FooBot\ndisallow: /x\n", "/x", False),
    ("broken BOM spoils line 1", b"\xef\x11\xbfuser-agent: FooBot\ndisallow: /x\n", "/x", True),
    ("BOM mid-file is a key byte", b"user-agent: FooBot\n\xef\xbb\xbfdisallow: /x\n", "/x", True),
    ("comment after value", b"user-agent: FooBot\ndisallow: /x#/y\n", "/x", False),
    ("comment cuts pattern", b"user-agent: FooBot\ndisallow: /a#b\n", "/a", False),
    ("comment line between", b"user-agent: FooBot\n# hi\ndisallow: /x\n", "/x", False),
    ("hash in agent", b"user-agent: FooBot#x\ndisallow: /x\n", "/x", False),
    ("leading and trailing ws", b"  user-agent :\tFooBot \t\n\tdisallow  :  /x  \n", "/x", False),
    ("vertical tab is ws", b"user-agent: FooBot\n\x0bdisallow:\x0b/x\x0b\n", "/x", False),
    ("space kept in pattern", b"user-agent: FooBot\ndisallow: /a b\n", "/a b", False),
    ("NUL ends the line", b"user-agent: FooBot\ndisallow: /x\x00yz\n", "/xq", False),
    ("NUL before key", b"user-agent: FooBot\n\x00disallow: /x\n", "/x", True),
]


@pytest.mark.parametrize(("name", "body", "path", "allowed"), LEXICAL, ids=[r[0] for r in LEXICAL])
def test_lexical(name: str, body: bytes, path: str, allowed: bool) -> None:
    check(body, "FooBot", path, allowed)


# FMT-8..FMT-11, D-4, D-5: separators, missing colon, key typos and prefixes.
KEYS = [
    ("value with colons", b"user-agent: FooBot\ndisallow: /a:b:c\n", "/a:b:c", False),
    ("missing colon", b"user-agent FooBot\ndisallow /x\n", "/x", False),
    ("missing colon, tab", b"user-agent\tFooBot\ndisallow\t/x\n", "/x", False),
    ("three tokens ignored", b"user-agent: FooBot\ndisallow /x y\n", "/x", True),
    ("empty key ignored", b"user-agent: FooBot\n: /x\n", "/x", True),
    ("upper-case keys", b"USER-AGENT: FooBot\nDISALLOW: /x\n", "/x", False),
    ("typo useragent", b"useragent: FooBot\ndisallow: /x\n", "/x", False),
    ("typo user agent", b"user agent: FooBot\ndisallow: /x\n", "/x", False),
    ("typo dissallow", b"user-agent: FooBot\ndissallow: /x\n", "/x", False),
    ("typo dissalow", b"user-agent: FooBot\ndissalow: /x\n", "/x", False),
    ("typo disalow", b"user-agent: FooBot\ndisalow: /x\n", "/x", False),
    ("typo diasllow", b"user-agent: FooBot\ndiasllow: /x\n", "/x", False),
    ("typo disallaw", b"user-agent: FooBot\ndisallaw: /x\n", "/x", False),
    ("prefix Disallowed", b"user-agent: FooBot\nDisallowed: /x\n", "/x", False),
    ("prefix User-agents", b"User-agents: FooBot\ndisallow: /x\n", "/x", False),
    ("prefix Allowance", b"user-agent: FooBot\ndisallow: /\nAllowance: /x\n", "/x", True),
    ("no typo for allow", b"user-agent: FooBot\ndisallow: /\nalow: /x\n", "/x", False),
    ("unknown key", b"user-agent: FooBot\ndisalloww-not: /x\ndisallow: /y\n", "/y", False),
]


@pytest.mark.parametrize(("name", "body", "path", "allowed"), KEYS, ids=[r[0] for r in KEYS])
def test_keys(name: str, body: bytes, path: str, allowed: bool) -> None:
    check(body, "FooBot", path, allowed)


# GRP-1..GRP-8, UA-1..UA-7, D-7, D-8, D-18..D-20: groups and user agents.
GROUPS = [
    (
        "consecutive agents",
        b"user-agent: BazBot\n\nuser-agent: FooBot\ndisallow: /x\n",
        "/x",
        False,
    ),
    (
        "blank lines keep the group",
        b"user-agent: FooBot\ndisallow: /a\n\n\ndisallow: /x\n",
        "/x",
        False,
    ),
    (
        "unknown line between agents",
        b"user-agent: BazBot\ncrawl-delay: 5\nuser-agent: FooBot\ndisallow: /x\n",
        "/x",
        False,
    ),
    (
        "sitemap between agents",
        b"user-agent: BazBot\nsitemap: https://e.com/s.xml\nuser-agent: FooBot\ndisallow: /x\n",
        "/x",
        False,
    ),
    (
        "rule ends the agent block",
        b"user-agent: FooBot\ndisallow: /a\nuser-agent: BazBot\ndisallow: /x\n",
        "/x",
        True,
    ),
    (
        "empty disallow ends the block",
        b"user-agent: FooBot\ndisallow:\nuser-agent: BazBot\ndisallow: /x\n",
        "/x",
        True,
    ),
    (
        "groups merge",
        b"user-agent: FooBot\ndisallow: /a\nuser-agent: BazBot\ndisallow: /b\n"
        b"user-agent: foobot\ndisallow: /x\n",
        "/x",
        False,
    ),
    (
        "specific beats global",
        b"user-agent: *\ndisallow: /x\nuser-agent: FooBot\nallow: /y\n",
        "/x",
        True,
    ),
    ("global applies", b"user-agent: *\ndisallow: /x\nuser-agent: BazBot\nallow: /\n", "/x", False),
    (
        "empty specific group suppresses global",
        b"user-agent: *\ndisallow: /\nuser-agent: FooBot\n",
        "/x",
        True,
    ),
    ("rules before any agent", b"disallow: /x\nuser-agent: FooBot\nallow: /y\n", "/x", True),
    ("no agent at all", b"disallow: /x\n", "/x", True),
    ("case-insensitive agent", b"user-agent: FOOBOT\ndisallow: /x\n", "/x", False),
    ("agent with version", b"user-agent: FooBot/2.1\ndisallow: /x\n", "/x", False),
    ("agent with star suffix", b"user-agent: FooBot*\ndisallow: /x\n", "/x", False),
    ("agent is not a prefix", b"user-agent: Foo\ndisallow: /x\n", "/x", True),
    ("agent is not longer", b"user-agent: FooBot-Image\ndisallow: /x\n", "/x", True),
    ("first word only", b"user-agent: FooBot Bar\ndisallow: /x\n", "/x", False),
    ("star with words is global", b"user-agent: * FooBar\ndisallow: /x\n", "/x", False),
    ("star with suffix is no agent", b"user-agent: *bot\ndisallow: /x\n", "/x", True),
    (
        "group with star and token is specific",
        b"user-agent: *\nuser-agent: FooBot\ndisallow: /x\nuser-agent: *\nallow: /x\n",
        "/x",
        False,
    ),
    ("empty disallow allows", b"user-agent: FooBot\ndisallow:\n", "/x", True),
    (
        "empty disallow still selects the group",
        b"user-agent: *\ndisallow: /\nuser-agent: FooBot\ndisallow:\n",
        "/x",
        True,
    ),
    (
        "crawl-delay keeps the group",
        b"user-agent: FooBot\ncrawl-delay: 1\ndisallow: /x\n",
        "/x",
        False,
    ),
]


@pytest.mark.parametrize(("name", "body", "path", "allowed"), GROUPS, ids=[r[0] for r in GROUPS])
def test_groups(name: str, body: bytes, path: str, allowed: bool) -> None:
    check(body, "FooBot", path, allowed)


def test_line_length_cut() -> None:
    # FMT-5, D-9: 16,663 bytes are kept; the cut pattern is shorter and broader.
    head = b"disallow: "
    pattern = b"/" + b"a" * (MAX_LINE_BYTES - len(head) - 1) + b"bbbb"
    body = b"user-agent: FooBot\n" + head + pattern + b"\n"
    cut = "/" + "a" * (MAX_LINE_BYTES - len(head) - 1)
    check(body, "FooBot", cut, False)
    check(body, "FooBot", cut[:-1], True)
    robots = RobotsTxt.parse(body)
    assert robots.notes == (
        Note(
            2,
            "line-cut",
            f"line is {len(head + pattern):,} bytes: only the first {MAX_LINE_BYTES:,} are "
            "read, the rest is dropped, as Google's parser does",
        ),
    )


def test_line_at_the_limit_is_whole() -> None:
    head = b"disallow: "
    pattern = b"/" + b"a" * (MAX_LINE_BYTES - len(head) - 2) + b"b"
    assert len(head + pattern) == MAX_LINE_BYTES
    body = b"user-agent: FooBot\n" + head + pattern + b"\n"
    check(body, "FooBot", pattern.decode(), False)
    check(body, "FooBot", pattern[:-1].decode() + "c", True)


def test_cut_at_limit_drops_the_cut_line() -> None:
    rule = b"disallow: /private-area\n"
    filler = b"user-agent: *\n" + b"# " + b"x" * (MAX_BYTES - 40) + b"\n"
    body = filler + rule
    assert len(body) > MAX_BYTES
    cut, truncated = cut_at_limit(body)
    assert truncated
    assert cut == filler
    robots = RobotsTxt.parse(cut)
    assert robots.allowed("http://e.com/private-area", "FooBot") is True
    # Without dropping it, "disallow: /pri" would have been a broader rule.
    assert cut_at_limit(b"a\nb") == (b"a\nb", False)
    assert cut_at_limit(b"abc\ndef", 5) == (b"abc\n", True)
    assert cut_at_limit(b"abcdef", 3) == (b"", True)


def test_sitemaps() -> None:
    body = (
        b"sitemap: https://e.com/a.xml\n"
        b"user-agent: FooBot\n"
        b"Site-map: https://other.example/b.xml # comment\n"
        b"disallow: /\n"
        b"sitemap: /relative.xml\n"
        b"sitemap: https://e.com/a.xml\n"
        b"SITEMAP: http://e.com/caf\xc3\xa9.xml\n"
        b"sitemap: http://e.com/\xe9.xml\n"
    )
    robots = RobotsTxt.parse(body)
    assert robots.sitemaps == (
        "https://e.com/a.xml",
        "https://other.example/b.xml",
        "http://e.com/café.xml",
        "http://e.com/%E9.xml",
    )
    assert [note[:2] for note in robots.notes] == [
        (3, "typo"),  # site-map (FMT-11)
        (5, "bad-sitemap"),
        (8, "non-utf8"),
    ]
    assert robots.notes[1].text == (
        "sitemap URL is not absolute: the line is ignored (RFC 9309 §2.2.4)"
    )
    # Sitemap lines do not end the group: the disallow still applies.
    assert robots.allowed("http://e.com/x", "FooBot") is False


def test_crawl_delay_never_changes_verdicts() -> None:
    # GRP-7, D-18: Protego ends the group at crawl-delay; we must not
    # (which delay is whose: tests/robotstxt/test_crawl_delay.py).
    body = b"user-agent: FooBot\ncrawl-delay: 1\nuser-agent: BarBot\ndisallow: /x\n"
    check(body, "FooBot", "/x", False)
    check(body, "BarBot", "/x", False)


EXPLAIN_BODY = (
    b"\xef\xbb\xbf# robots\r\n"  # line 1
    b"user-agent: *\r\n"  # 2
    b"disallow: /private\r\n"  # 3
    b"\r\n"  # 4
    b"user-agent: FooBot\r"  # 5
    b"user-agent: BarBot\n"  # 6
    b"disallow: /a\n"  # 7
    b"allow: /a/b\n"  # 8
    b"disallow: /a/b\n"  # 9
    b"allow: /d/index.html\n"  # 10
    b"disallow: /d/\n"  # 11
    b"disallow: /*.gif$\n"  # 12
)


@pytest.mark.parametrize(
    ("agent", "path", "allowed", "line", "agents"),
    [
        ("FooBot", "/a/x", False, 7, ("FooBot", "BarBot")),
        ("FooBot", "/a/b", True, 8, ("FooBot", "BarBot")),
        ("FooBot", "/d/", True, 10, ("FooBot", "BarBot")),
        ("FooBot", "/d/x", False, 11, ("FooBot", "BarBot")),
        ("FooBot", "/x.gif", False, 12, ("FooBot", "BarBot")),
        ("FooBot", "/private", True, None, ("FooBot", "BarBot")),
        ("Other", "/private/x", False, 3, ("*",)),
        ("Other", "/public", True, None, ("*",)),
    ],
)
def test_explain(
    agent: str, path: str, allowed: bool, line: int | None, agents: tuple[str, ...]
) -> None:
    url = "http://example.com" + path
    for mode in ("rfc", "google"):
        explanation = RobotsTxt.parse(EXPLAIN_BODY, mode).explain(url, agent)
        assert explanation.allowed is allowed
        assert explanation.agents == agents
        assert (explanation.rule and explanation.rule.line) == line
        if line is None:
            assert "no rule" in explanation.reason
        else:
            assert f"line {line}" in explanation.reason
    matcher = RobotsMatcher()
    assert matcher.OneAgentAllowedByRobots(EXPLAIN_BODY, agent, url) is allowed
    assert matcher.matching_line() == (line or 0)


def test_explain_derived_index_rule() -> None:
    explanation = RobotsTxt.parse(EXPLAIN_BODY).explain("http://example.com/d/", "FooBot")
    assert explanation.rule is not None
    assert explanation.rule.pattern == "/d/$"
    assert explanation.rule.index_of == "/d/index.html"
    assert "derived from allow: /d/index.html" in explanation.reason


def test_explain_without_any_group() -> None:
    explanation = RobotsTxt.parse(b"user-agent: BarBot\ndisallow: /\n").explain(
        "http://example.com/x", "FooBot"
    )
    assert explanation.allowed is True
    assert explanation.rule is None
    assert explanation.agents == ()
    assert "no group names 'FooBot'" in explanation.reason
    assert str(explanation).startswith("allowed: http://example.com/x for 'FooBot'")


def test_explain_robots_txt_exemption() -> None:
    body = b"user-agent: *\ndisallow: /\n"
    explanation = RobotsTxt.parse(body).explain("http://example.com/robots.txt", "FooBot")
    assert explanation.allowed is True
    assert "RFC 9309" in explanation.reason
    assert RobotsTxt.parse(body, "google").explain("http://e.com/robots.txt", "x").allowed is False


def test_notes_list_skipped_lines() -> None:
    body = b"allow: /x\nfoo bar baz\nuser-agent: a\nhost: e.com\ncrawl-delay: x\n"
    assert RobotsTxt.parse(body).notes == (
        Note(
            1,
            "before-user-agent",
            "rule before any user-agent line: the line is ignored (RFC 9309 §2.2.2)",
        ),
        Note(
            2,
            "syntax",
            "no ':' and not two words: not a 'key: value' line, ignored",
        ),
        Note(
            4,
            "unknown-key",
            "unsupported key 'host': the line is ignored (RFC 9309 §2.2.4)",
        ),
        Note(
            5,
            "bad-crawl-delay",
            "crawl-delay is not a number of seconds: the line is ignored",
        ),
    )


# Notes: each code at its line (what ``lint`` prints, scrapy_robots_rfc/lint.py).
NOTES = [
    ("typo", b"user-agent: a\ndissallow: /x\n", 2, "'dissallow' is read as 'disallow': a typo"),
    ("typo", b"user-agent: a\ncrawl_delay: 1\n", 2, "'crawl_delay' is read as"),
    ("typo", b"User Agent: a\n", 1, "'User Agent' is read as 'user-agent': a typo"),
    ("key-prefix", b"user-agent: a\nDisallowed: /x\n", 2, "'Disallowed' is read as 'disallow' "),
    ("key-prefix", b"Sitemaps: https://e.com/s\n", 1, "'Sitemaps' is read as 'sitemap'"),
    ("missing-colon", b"user-agent a\n", 1, "no ':' after 'user-agent': read as key and value"),
    ("missing-value", b"user-agent: a\nDisallow\n", 2, "'Disallow' has no ':' and no value"),
    ("syntax", b"user-agent: a\n : /x\n", 2, "nothing before ':': the line is ignored"),
    ("syntax", b"user-agent: a\ndisallow /a /b\n", 2, "no ':' and not two words"),
    ("syntax", b"user-agent: a\nnoindex\n", 2, "no ':' and not two words"),
    ("unknown-key", b"user-agent: a\nNoindex: /x\n", 2, "unsupported key 'Noindex'"),
    ("before-user-agent", b"\nDisallow: /x\n", 2, "rule before any user-agent line"),
    ("before-user-agent", b"crawl-delay: 1\nuser-agent: a\n", 1, "crawl-delay before any"),
    ("bad-sitemap", b"sitemap: sitemap.xml\n", 1, "sitemap URL is not absolute"),
    ("bad-crawl-delay", b"user-agent: a\ncrawl-delay: -1\n", 2, "crawl-delay is not a number"),
    # 400 digits are inf as a float: no JSON output could carry it.
    (
        "bad-crawl-delay",
        b"user-agent: a\ncrawl-delay: " + b"9" * 400 + b"\n",
        2,
        "crawl-delay is not",
    ),
    ("no-token", b"user-agent: 42bot\n", 1, "user-agent '42bot' has no product token"),
    ("no-token", b"user-agent:\n", 1, "user-agent has no value: its group applies to no crawler"),
    ("partial-token", b"user-agent: my.crawler\n", 1, "user-agent 'my.crawler' is not a product"),
    ("partial-token", b"user-agent: MJ12bot/1.0\n", 1, "user-agent 'MJ12bot' is not a product"),
    (
        "non-utf8",
        b"user-agent: a\r\ndisallow: /caf\xe9\n",
        2,
        "byte 0xe9 at column 15 is not UTF-8",
    ),
    ("non-utf8", b"\xef\xbb\xbf#\xff\n", 1, "byte 0xff at column 2 is not UTF-8"),
    ("line-cut", b"# " + b"x" * MAX_LINE_BYTES, 1, f"line is {MAX_LINE_BYTES + 2:,} bytes"),
]


@pytest.mark.parametrize(("code", "body", "line", "start"), NOTES, ids=[r[0] for r in NOTES])
def test_note_codes(code: str, body: bytes, line: int, start: str) -> None:
    for mode in ("rfc", "google"):
        notes = RobotsTxt.parse(body, mode).notes
        assert [(n.line, n.code) for n in notes] == [(line, code)], mode
        assert notes[0].text.startswith(start)
        assert code in NOTE_CODES


def test_notes_of_a_clean_file() -> None:
    body = (
        b"\xef\xbb\xbfUser-agent: *\nDisallow: /a\nAllow: /caf\xc3\xa9\nSitemap: https://e.com/s\n"
        # A version or a comment after the token is not a partial-token.
        b"User-agent: Googlebot/2.1\nUser-agent: Googlebot-News 2.1 (news)\nDisallow: /b\n"
    )
    for mode in MODES:
        assert RobotsTxt.parse(body, mode).notes == ()


def test_notes_in_line_order_several_per_line() -> None:
    body = b"user-agent: a\nDissallow /caf\xe9\nhost: x\n"
    notes = RobotsTxt.parse(body).notes
    assert [(n.line, n.code) for n in notes] == [
        (2, "typo"),
        (2, "missing-colon"),
        (2, "non-utf8"),
        (3, "unknown-key"),
    ]


@pytest.mark.parametrize(
    ("mode", "text"),
    [
        ("rfc", "its group applies only to a crawler named exactly '12mjbot'"),
        ("google", "its group applies to no crawler"),
    ],
)
def test_no_token_note_says_what_the_mode_binds(mode: str, text: str) -> None:
    """D-21: rfc mode binds the whole product name of a value without token."""
    robots = RobotsTxt.parse(b"user-agent: 12MJbot/1.0\ndisallow: /\n", mode)  # type: ignore[arg-type]
    (note,) = robots.notes
    assert note.text == (f"user-agent '12MJbot/1.0' has no product token: {text} (RFC 9309 §2.2.1)")
    # What it says is what the parser does.
    assert robots.allowed("http://e.com/x", "12MJbot") is (mode == "google")


def test_past_limit_note() -> None:
    body, truncated = cut_at_limit(b"user-agent: *\ndisallow: /a\ndisallow: /b\n", 30)
    assert truncated
    robots = RobotsTxt.parse(body, truncated=truncated)
    assert robots.notes == (
        Note(
            3,
            "past-limit",
            f"this line and the rest are past {MAX_BYTES:,} bytes (500 KiB) and ignored "
            "(RFC 9309 §2.5)",
        ),
    )
    assert RobotsTxt.parse(body).notes == ()


#: An internal spec ID (tests/project/test_spec_ids.py): FMT-11, D-4, UA-3.
_SPEC_ID = re.compile(r"\b(?!UTF-8\b)[A-Z]+-[0-9]+\b")


def test_note_texts_cite_only_what_a_user_can_look_up() -> None:
    """Notes are user-facing (``RobotsTxt.notes``, ``lint``): they cite RFC
    9309 sections or Google's parser, never the spec IDs of the comments."""
    texts = list(NOTE_CODES.values())
    for _, body, _, _ in NOTES:
        texts += [note.text for mode in MODES for note in RobotsTxt.parse(body, mode).notes]
    assert len(texts) > 2 * len(NOTES)
    assert [text for text in texts if _SPEC_ID.search(text)] == []
    assert list(NOTE_CODES)[:3] == ["past-limit", "line-cut", "non-utf8"]
    assert list(NOTE_CODES)[:3] == ["past-limit", "line-cut", "non-utf8"]
    with pytest.raises(TypeError):
        NOTE_CODES["new"] = "read-only"  # type: ignore[index]


def test_groups_view() -> None:
    robots = RobotsTxt.parse(EXPLAIN_BODY)
    assert robots.groups == (
        Group(agents=("*",), rules=(Rule(False, "/private", 3),)),
        Group(
            agents=("FooBot", "BarBot"),
            rules=(
                Rule(False, "/a", 7),
                Rule(True, "/a/b", 8),
                Rule(False, "/a/b", 9),
                Rule(True, "/d/index.html", 10),
                Rule(True, "/d/$", 10, "/d/index.html"),  # PATH-9
                Rule(False, "/d/", 11),
                Rule(False, "/*.gif$", 12),
            ),
        ),
    )


def test_groups_view_is_read_only_and_unmerged() -> None:
    body = b"user-agent: a\ncrawl-delay: 2\ndisallow: /x\nuser-agent: b\nuser-agent: a\nallow: /\n"
    robots = RobotsTxt.parse(body)
    first, second = robots.groups
    assert (first.agents, second.agents) == (("a",), ("b", "a"))
    # D-17: the delay is the user-agent lines', not the group's.
    assert robots.crawl_delays == (CrawlDelay(("a",), 2.0, 2),)
    with pytest.raises(AttributeError):
        first.agents = ()  # type: ignore[misc]
    assert robots.groups == (first, second)
    assert RobotsTxt.parse(b"disallow: /\n").groups == ()


@pytest.mark.parametrize("body", [None, 1, ["user-agent: *"], object()])
def test_wrong_type_is_a_type_error(body: object) -> None:
    with pytest.raises(TypeError, match="must be bytes or str"):
        RobotsTxt.parse(body)  # type: ignore[arg-type]


def test_unknown_mode_is_a_value_error() -> None:
    with pytest.raises(ValueError, match="mode must be one of"):
        RobotsTxt.parse(b"", "strict")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "body",
    [
        b"user-agent: *\ndisallow: /\n",
        bytearray(b"user-agent: *\ndisallow: /\n"),
        memoryview(b"user-agent: *\ndisallow: /\n"),
        "user-agent: *\ndisallow: /\n",
    ],
)
def test_body_types(body: bytes | bytearray | memoryview | str) -> None:
    assert RobotsTxt.parse(body).allowed("http://e.com/x", "a") is False


def test_str_body_with_surrogates() -> None:
    # A str decoded with surrogateescape keeps its raw bytes.
    body = b"user-agent: *\ndisallow: /\xe9\n".decode("utf-8", "surrogateescape")
    assert RobotsTxt.parse(body).allowed("http://e.com/%E9", "a") is False
    assert RobotsTxt.parse("user-agent: *\ndisallow: /\ud800\n").allowed("http://e.com/", "a")


def test_empty_and_groupless_files_allow_all() -> None:
    # HTTP-11
    for body in (b"", b"\n\n", b"# only a comment\n", b"<html><body>Not found</body></html>"):
        check(body, "FooBot", "/anything", True)


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=600), st.text(max_size=40), st.text(max_size=12))
def test_never_raises(body: bytes, url: str, agent: str) -> None:
    for mode in ("rfc", "google"):
        robots = RobotsTxt.parse(body, mode)
        assert robots.allowed(url, agent) in (True, False)
        assert robots.explain(url, agent).allowed is robots.allowed(url, agent)
        robots.crawl_delay(agent)
        assert all(isinstance(s, str) for s in robots.sitemaps)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b"user-agent:",
                b"allow:",
                b"disallow:",
                b" *",
                b"$",
                b"/",
                b"a",
                b"\n",
                b"\r",
                b"#",
                b"\x00",
                b"\xef\xbb\xbf",
                b"\xff",
                b"%",
                b"%e9",
                b":",
                b" ",
                b"\t",
                b"FooBot",
            ]
        ),
        max_size=60,
    ).map(b"".join),
    st.sampled_from(["/", "/a", "/a/", "/aa$", "/%e9", "/*", "/robots.txt"]),
)
def test_structured_noise_matches_google(body: bytes, path: str) -> None:
    url = "http://example.com" + path
    google = bool(RobotsMatcher().OneAgentAllowedByRobots(body, "FooBot", url))
    assert RobotsTxt.parse(body, "google").allowed(url, "FooBot") is google


@pytest.mark.parametrize("mode", MODES)
def test_rotating_user_agents_do_not_grow_a_parsed_file(mode: str) -> None:
    """A caller that sends a new User-Agent string each time (a library
    user, google mode keeps names verbatim) gets the same verdicts and the
    object keeps a bounded number of names: 20,000 names cost 6 MB before."""
    robots = RobotsTxt.parse(
        b"User-agent: *\nDisallow: /private\nUser-agent: a\nDisallow: /\n", mode
    )
    robots.allowed("https://a.com/x", "warm")
    tracemalloc.start()
    try:
        verdicts = {
            robots.allowed("https://a.com/private", f"Mozilla/5.0 (compatible; bot{i})")
            for i in range(20_000)
        }
        grown = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert verdicts == {False}
    assert grown < 1_000_000, grown
    assert robots.allowed("https://a.com/x", "a") is False
