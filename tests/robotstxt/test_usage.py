"""Usage preferences (U-1..U-5): Content-Usage and
Content-Signal in robots.txt, the Content-Usage header, and the library's
model of them (:mod:`scrapy_robots_rfc.robotstxt`).

The tables come from the drafts' own examples (draft-ietf-aipref-attach-05
§1.2, §3.4; draft-ietf-aipref-vocab-08 §6, §6.5.1, §6.5.2, the same as
vocab-07's), with the
expected results recomputed for U-1 as docs/decisions.md states it: the lines
before the first user-agent line are a rule set of their own whose longest
match is combined with the group's (U-4), most restrictive first.
"""

from __future__ import annotations

import pickle
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import USAGE_META_KEY, RobotsTxt
from scrapy_robots_rfc import Preferences as TopLevelPreferences
from scrapy_robots_rfc.robotstxt._canonical import MODES
from scrapy_robots_rfc.robotstxt._usage import (
    CATEGORIES,
    LABELS,
    NO_PREFERENCES,
    Preference,
    Preferences,
    Source,
    Statement,
    UsageRule,
    header_preferences,
    header_source,
    parse_statement,
    split_value,
)

from ..conftest import CORPUS, corpus_files, requires_corpus
from ..robots_strategies import (
    KEYS,
    Line,
    RobotsFile,
    lines,
    usage_as_rules,
    usage_cases,
    usage_statements,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
BASE = "https://e.test"


def usage(line: int, text: str, kind: str = "content-usage") -> Source:
    return Source(kind, line, text)  # type: ignore[arg-type]


def signal(line: int, text: str) -> Source:
    return Source("content-signal", line, text)


HEADER = "header"


def prefs(*stated: tuple[str, ...] | tuple[object, ...]) -> Preferences:
    """``prefs(("train-ai", "n", source, ...), ...)``, in CATEGORIES order."""
    values = {"y": "allow", "n": "disallow"}
    return Preferences(
        tuple((c, Preference(values[v], tuple(sources))) for c, v, *sources in stated)  # type: ignore[misc]
    )


# -- draft-ietf-aipref-attach-05 ------------------------------------------

#: attach-05 §3.4, verbatim.
ATTACH_3_4 = (
    b"User-Agent: *\n"
    b"Allow: /\n"
    b"Disallow: /never/\n"
    b"Content-Usage: train-ai=n\n"
    b"Content-Usage: /ai-ok/ train-ai=y\n"
    b"\n"
    b"User-Agent: ExampleBot\n"
    b"Allow: /\n"
    b"Content-Usage: train-ai=y\n"
)


def test_e1_header() -> None:
    """attach-05 §1.2: ``Content-Usage: train-ai=n`` as a header."""
    got = header_preferences([b"train-ai=n"])
    assert got == prefs(("train-ai", "n", Source("header", None, "train-ai=n")))
    assert (got["train-ai"], got["ai-use"], got["search"]) == ("disallow", "unknown", "unknown")
    assert str(got) == "train-ai=n (Content-Usage header)"


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("agent", ["ExampleBot", "*", "Other"])
@pytest.mark.parametrize("path", ["/", "/x/y?z", "/robots.txt"])
def test_e2_whole_site(mode: str, agent: str, path: str) -> None:
    """attach-05 §1.2: a group that allows everything and says train-ai=n."""
    robots = RobotsTxt.parse(b"User-Agent: *\nAllow: /\nContent-Usage: train-ai=n\n", mode)  # type: ignore[arg-type]
    assert robots.usage(BASE + path, agent) == prefs(("train-ai", "n", usage(3, "train-ai=n")))


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("example", "agent", "path", "allowed", "expected"),
    [
        ("E3", "OtherBot", "/test", True, prefs(("train-ai", "n", usage(4, "train-ai=n")))),
        ("E4", "OtherBot", "/never/test", False, NO_PREFERENCES),
        ("E5", "OtherBot", "/ai-ok/test", True, prefs(("train-ai", "y", usage(5, "train-ai=y")))),
        ("E6", "ExampleBot", "/test", True, prefs(("train-ai", "y", usage(9, "train-ai=y")))),
        ("E6", "ExampleBot", "/never/test", True, prefs(("train-ai", "y", usage(9, "train-ai=y")))),
        ("E6", "ExampleBot", "/ai-ok/test", True, prefs(("train-ai", "y", usage(9, "train-ai=y")))),
    ],
)
def test_attach_3_4(
    mode: str, example: str, agent: str, path: str, allowed: bool, expected: Preferences
) -> None:
    """attach-05 §3.4: the longest match within a group; a disallowed path
    has no preferences (U-5)."""
    robots = RobotsTxt.parse(ATTACH_3_4, mode)  # type: ignore[arg-type]
    assert robots.allowed(BASE + path, agent) is allowed
    assert robots.usage(BASE + path, agent) == expected


# -- draft-ietf-aipref-vocab-08 -------------------------------------------


@pytest.mark.parametrize(
    ("example", "raw", "values", "parses"),
    [
        ("V1 §6", b"train-ai=y, search=n", (("train-ai", True), ("search", False)), True),
        # Boolean and String values are not Tokens: unknown, not an error.
        ("V2 §6.5.1", b'train-ai=y, train-ai, search=n, search="n"', (), True),
        ("V3 §6.5.2", b"train-ai;allow=n, train-ai=y", (("train-ai", True),), True),
        # As printed, the trailing ';' is a parse failure (RFC 9651
        # §4.2.3.2); the outcome, unknown, is the one the draft gives.
        ("V4 §6.5.2", b'train-ai;has;parameters="?";', (), False),
        ("V4 without ';'", b'train-ai;has;parameters="?"', (), True),
        ("V5 §6.5.1", b"Train-AI=n", (), False),
        ("V5", b"train-ai=n, Search=n", (), False),
        ("empty", b"", (), True),
    ],
)
def test_vocab_examples(example: str, raw: bytes, values: tuple[object, ...], parses: bool) -> None:
    statement = parse_statement(raw, "content-usage")
    assert statement.values == values
    assert (statement.error is None) is parses
    got = header_preferences([raw])
    assert all(got[c] == "unknown" for c in CATEGORIES if c not in dict(values))


@pytest.mark.parametrize(
    ("label", "category"),
    # vocab-08 §6.1, Table 1 "Mappings for Categories".
    [("train-ai", "train-ai"), ("ai-use", "ai-use"), ("search", "search")],
)
@pytest.mark.parametrize(("token", "value"), [("y", "allow"), ("n", "disallow")])
def test_vocab_08_labels(label: str, category: str, token: str, value: str) -> None:
    """Each label of Table 1 with each Token of §6.2 states its category
    alone; "These tokens are case sensitive" (§6.1)."""
    got = header_preferences([f"{label}={token}".encode()])
    assert {c: got[c] for c in CATEGORIES} == {
        c: value if c == category else "unknown" for c in CATEGORIES
    }
    assert not header_preferences([f"{label.upper()}={token}".encode()])


def test_parse_failure_text() -> None:
    assert parse_statement(b"Train-AI=n", "content-usage") == Statement(
        error="Key cannot begin with an uppercase character at position 0"
    )


def test_ignored_members() -> None:
    """What lint reports: unknown labels (vocab-08 §6.4), other values
    (§6.5) and duplicate keys (RFC 9651 §3.2), each as written."""
    statement = parse_statement(
        b'train-ai=y, ai-train=n, search="y", train-ai=n, use=reference, search', "content-usage"
    )
    assert statement == Statement(
        values=(("train-ai", False),),
        ignored=(
            ("train-ai", "duplicate", "train-ai"),
            ("search", "duplicate", "search"),
            ("ai-train", "category", "ai-train=n"),
            ("search", "value", "search"),
            ("use", "category", "use=reference"),
        ),
        members=4,
    )


# -- Content-Signal and the two vocabularies (U-3) ------------------------

CONTENT_SIGNAL = [
    # U-3 revised: Content-Signal's ai-input is vocab-08's ai-use (§4.2).
    (b"ai-train=no, search=yes, ai-input=no", {"train-ai": "n", "ai-use": "n", "search": "y"}),
    (b"search=yes,ai-train=no,use=reference", {"train-ai": "n", "search": "y"}),
    (b"ai-train=n", {}),
    (b"ai-train=No", {}),
    (b'ai-train="no"', {}),
    (b"ai-train=?1", {}),
    (b"train-ai=no", {}),  # Content-Usage's label: not Content-Signal's
    (b"ai-train=yes;x=1, ai-input=yes", {"train-ai": "y", "ai-use": "y"}),
    (b"ai-use=no", {}),  # Content-Usage's label: not Content-Signal's
]
CONTENT_USAGE = [
    (b"train-ai=y, search=n", {"train-ai": "y", "search": "n"}),
    (b"ai-use=n, search=y", {"ai-use": "n", "search": "y"}),  # vocab-08 §4.2, §6.1
    (b"ai-input=n", {}),  # Content-Signal's label, not vocab-08's
    (b"ai-train=n", {}),  # Content-Signal's label
    (b"train-ai=yes", {}),
    (b"train-ai=N", {}),
    (b'train-ai="y"', {}),
    (b"train-ai=?1", {}),
    (b"train-ai=(y)", {}),
    (b"train-genai=n, tdm=n", {}),  # earlier drafts' labels
    (b"train-ai=y, train-ai=n", {"train-ai": "n"}),  # the last value counts
]


@pytest.mark.parametrize(
    ("kind", "raw", "expected"),
    [("content-signal", *case) for case in CONTENT_SIGNAL]
    + [("content-usage", *case) for case in CONTENT_USAGE],
)
def test_statement_values(kind: str, raw: bytes, expected: dict[str, str]) -> None:
    key = "Content-Signal" if kind == "content-signal" else "Content-Usage"
    robots = RobotsTxt.parse(b"User-agent: *\n" + key.encode() + b": " + raw + b"\n")
    got = robots.usage(BASE + "/", "bot")
    source = Source(kind, 2, raw.decode())  # type: ignore[arg-type]
    assert got == prefs(*((c, expected[c], source) for c in CATEGORIES if c in expected))


# -- U-1: where a line applies --------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("body", "agent", "path", "expected"),
    [
        # A preamble line with no group at all applies to any name.
        (
            b"Content-Usage: train-ai=n\n",
            "AnyBot",
            "/x",
            prefs(("train-ai", "n", usage(1, "train-ai=n"))),
        ),
        # ... and to a name no group applies to.
        (
            b"Content-Usage: train-ai=n\nUser-agent: a\nDisallow: /x\n",
            "b",
            "/x",
            prefs(("train-ai", "n", usage(1, "train-ai=n"))),
        ),
        # Preamble y, group n, both "/": n.
        (
            b"Content-Usage: train-ai=y\nUser-agent: *\nContent-Usage: train-ai=n\n",
            "bot",
            "/",
            prefs(("train-ai", "n", usage(3, "train-ai=n"))),
        ),
        # Both y: y from both lines.
        (
            b"Content-Usage: train-ai=y\nUser-agent: *\nContent-Usage: train-ai=y\n",
            "bot",
            "/",
            prefs(("train-ai", "y", usage(1, "train-ai=y"), usage(3, "train-ai=y"))),
        ),
        # The lead's reading of U-1: a group's longer allow does not beat
        # a whole-site n; the n line decides.
        (
            b"Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: /ok/ train-ai=y\n",
            "bot",
            "/ok/page",
            prefs(("train-ai", "n", usage(1, "train-ai=n"))),
        ),
        (
            b"Content-Usage: train-ai=n\nUser-agent: *\nContent-Usage: /ok/ train-ai=y\n",
            "bot",
            "/other",
            prefs(("train-ai", "n", usage(1, "train-ai=n"))),
        ),
        # The preamble's own longest match: its /ok/ y beats its "/" n.
        (
            b"Content-Usage: train-ai=n\nContent-Usage: /ok/ train-ai=y\nUser-agent: *\nAllow: /\n",
            "bot",
            "/ok/page",
            prefs(("train-ai", "y", usage(2, "train-ai=y"))),
        ),
        # Different categories from each set.
        (
            b"Content-Signal: search=yes\nUser-agent: *\nContent-Usage: train-ai=n\n",
            "bot",
            "/",
            prefs(
                ("train-ai", "n", usage(3, "train-ai=n")), ("search", "y", signal(1, "search=yes"))
            ),
        ),
        # a's line is a's in both modes (b's too in google mode only:
        # test_a_usage_line_between_user_agent_lines).
        (
            b"User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nAllow: /\n",
            "a",
            "/",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        (
            b"User-agent: a\nAllow: /\nContent-Usage: train-ai=n\nUser-agent: b\nAllow: /\n",
            "b",
            "/",
            NO_PREFERENCES,
        ),
        (
            b"User-agent: a\nAllow: /\nContent-Usage: train-ai=n\nUser-agent: b\nAllow: /\n",
            "a",
            "/",
            prefs(("train-ai", "n", usage(3, "train-ai=n"))),
        ),
        # Merged groups (RFC 9309 §2.2.1) are one rule set: the longest
        # match of both.
        (
            b"User-agent: a\nContent-Usage: train-ai=n\n\n"
            b"User-agent: a\nContent-Usage: /x train-ai=y\n",
            "a",
            "/x",
            prefs(("train-ai", "y", usage(5, "train-ai=y"))),
        ),
        # A crawler with its own group does not get the '*' group's lines.
        (
            b"User-agent: *\nAllow: /\nContent-Usage: train-ai=n\nUser-agent: a\nAllow: /\n",
            "a",
            "/",
            NO_PREFERENCES,
        ),
    ],
)
def test_where_a_line_applies(
    mode: str, body: bytes, agent: str, path: str, expected: Preferences
) -> None:
    robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
    assert robots.usage(BASE + path, agent) == expected


def test_a_longer_path_hides_a_shorter_one() -> None:
    """attach-05 §3.1: the longest match is the one rule of its set that
    counts, for every category. With U-1's two rule sets, a group's longer
    line that says nothing about ``search`` hides the group's ``search=n``
    there, and the preamble's ``search=y`` is all that is left."""
    body = b"Content-Signal: search=yes\nUser-agent: *\nContent-Usage: search=n\n"
    robots = RobotsTxt.parse(body)
    assert str(robots.usage(BASE + "/x", "bot")) == "search=n (content-usage line 3)"
    robots = RobotsTxt.parse(body + b"Content-Usage: /x train-ai=n\n")
    assert str(robots.usage(BASE + "/x", "bot")) == (
        "train-ai=n, search=y (content-usage line 4, content-signal line 1)"
    )
    assert str(robots.usage(BASE + "/y", "bot")) == "search=n (content-usage line 3)"


#: The issue's example (issue 22): a usage line between two user-agent lines.
BETWEEN = b"User-agent: a\nContent-Usage: train-ai=n\nUser-agent: b\nDisallow: /\n"
a_usage_when_allowed = prefs(("train-ai", "n", usage(2, "train-ai=n")))


@pytest.mark.parametrize(
    ("mode", "groups", "a_allowed", "a_usage"),
    [
        # U-1 revised, rfc mode: attach-05 §3 extends RFC 9309 §2.2's grammar
        # with "rule =/ content-usage", so the line ends a's user-agent list
        # as an allow or disallow line would: b's lines are b's alone.
        ("rfc", [("a",), ("b",)], True, prefs(("train-ai", "n", usage(2, "train-ai=n")))),
        # google mode: Google's parser reads an unknown key there and keeps
        # one group; so a gets b's Disallow: / and no usage (U-5).
        ("google", [("a", "b")], False, NO_PREFERENCES),
    ],
)
def test_a_usage_line_between_user_agent_lines(
    mode: str, groups: list[tuple[str, ...]], a_allowed: bool, a_usage: Preferences
) -> None:
    robots = RobotsTxt.parse(BETWEEN, mode)  # type: ignore[arg-type]
    assert [g.agents for g in robots.groups] == groups
    assert robots.allowed(BASE + "/x", "a") is a_allowed
    assert robots.usage(BASE + "/x", "a") == a_usage
    # b is disallowed everything in both readings: no preferences (U-5).
    assert not robots.allowed(BASE + "/x", "b")
    assert robots.usage(BASE + "/x", "b") is NO_PREFERENCES
    assert robots.allowed(BASE + "/x", "c")
    # With b allowed, b gets a's line only where it shares a's group.
    allowed_b = RobotsTxt.parse(BETWEEN.replace(b"Disallow", b"Allow"), mode)  # type: ignore[arg-type]
    b_usage = allowed_b.usage(BASE + "/x", "b")
    assert b_usage == (NO_PREFERENCES if mode == "rfc" else a_usage_when_allowed)


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        # A Content-Signal line is a rule too (U-1).
        (
            b"User-agent: a\nContent-Signal: ai-input=no\nUser-agent: b\nDisallow: /x\n",
            [("a",), ("b",)],
        ),
        # Before any user-agent line it applies to every group and starts none.
        (b"Content-Usage: train-ai=n\nUser-agent: a\nUser-agent: b\nDisallow: /x\n", [("a", "b")]),
        # After a group's rules it changes nothing: the group has ended already.
        (
            b"User-agent: a\nDisallow: /x\nContent-Usage: train-ai=n\nUser-agent: b\nAllow: /\n",
            [("a",), ("b",)],
        ),
        # A user-agent line right after a usage line starts a group even
        # when the group has no allow or disallow line.
        (b"User-agent: a\nContent-Usage: search=y\nUser-agent: b\n", [("a",), ("b",)]),
    ],
)
def test_usage_lines_end_user_agent_lists_in_rfc_mode(
    body: bytes, expected: list[tuple[str, ...]]
) -> None:
    assert [g.agents for g in RobotsTxt.parse(body, "rfc").groups] == expected


def test_usage_rules() -> None:
    body = (
        b"Content-Signal: search=yes  # all\n"
        b"User-agent: a\n"
        b"Content-Usage: /x\ttrain-ai=n\n"
        b"User-agent: b\n"
        b"Disallow: /\n"
        b"User-agent: c\n"
        b"content-usage: /private/\n"
    )
    robots = RobotsTxt.parse(body)
    # Line 3 ends a's user-agent list (U-1 revised): three groups, a, b, c.
    assert robots.usage_rules == (
        (None, UsageRule("content-signal", "/", b"search=yes", 1)),
        (0, UsageRule("content-usage", "/x", b"train-ai=n", 3)),
        (2, UsageRule("content-usage", "/private/", b"", 7)),
    )
    google = RobotsTxt.parse(body, "google")
    assert [index for index, _ in google.usage_rules] == [None, 0, 1]
    assert [str(rule) for _, rule in robots.usage_rules] == [
        "content-signal: search=yes (line 1)",
        "content-usage: /x train-ai=n (line 3)",
        "content-usage: /private/ (line 7)",
    ]
    assert robots.notes == ()


# -- U-2: which rule -------------------------------------------------------


@pytest.mark.parametrize(
    ("mode", "body", "path", "expected"),
    [
        # Patterns of the same length are combined (U-4).
        (
            "rfc",
            b"User-agent: *\nContent-Usage: /a* train-ai=y, search=y\n"
            b"Content-Usage: /ab train-ai=n\n",
            "/abc",
            prefs(
                ("train-ai", "n", usage(3, "train-ai=n")),
                ("search", "y", usage(2, "train-ai=y, search=y")),
            ),
        ),
        # An explicit "/" ties with a line without a path.
        (
            "rfc",
            b"User-agent: *\nContent-Usage: / search=n\nContent-Usage: train-ai=y\n",
            "/q",
            prefs(("train-ai", "y", usage(3, "train-ai=y")), ("search", "n", usage(2, "search=n"))),
        ),
        # The longest match wins, even when it states nothing.
        (
            "rfc",
            b"User-agent: *\nContent-Usage: train-ai=n\nContent-Usage: /open/\n",
            "/open/x",
            NO_PREFERENCES,
        ),
        # Percent-encoding as for allow/disallow (ENC-6).
        (
            "rfc",
            b"User-agent: *\nContent-Usage: /caf%C3%A9 train-ai=n\n",
            "/café",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        (
            "rfc",
            "User-agent: *\nContent-Usage: /café train-ai=n\n".encode(),
            "/caf%c3%a9/menu",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        (
            "google",
            "User-agent: *\nContent-Usage: /café train-ai=n\n".encode(),
            "/café",
            NO_PREFERENCES,
        ),
        (
            "google",
            "User-agent: *\nContent-Usage: /café train-ai=n\n".encode(),
            "/caf%C3%A9",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        # '$' anchors and '*' matches any run.
        ("rfc", b"User-agent: *\nContent-Usage: /a$ train-ai=n\n", "/ab", NO_PREFERENCES),
        (
            "rfc",
            b"User-agent: *\nContent-Usage: /a$ train-ai=n\n",
            "/a",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        (
            "google",
            b"User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n",
            "/docs/x.pdf",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        (
            "google",
            b"User-agent: *\nContent-Usage: /*.pdf$ train-ai=n\n",
            "/x.pdf?v=1",
            NO_PREFERENCES,
        ),
        # A comment ends the value (attach-05 §3.2); a tab separates.
        (
            "rfc",
            b"User-agent: *\nContent-Usage: /x\t train-ai=n # not search=n\n",
            "/x",
            prefs(("train-ai", "n", usage(2, "train-ai=n"))),
        ),
        # A value not starting with '/' is all statement: not a path.
        ("rfc", b"User-agent: *\nContent-Usage: *.pdf train-ai=n\n", "/a.pdf", NO_PREFERENCES),
    ],
)
def test_which_rule(mode: str, body: bytes, path: str, expected: Preferences) -> None:
    robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
    assert robots.usage(BASE + path, "bot") == expected


@pytest.mark.parametrize(
    ("value", "split"),
    [
        (b"train-ai=n", (b"", b"train-ai=n")),
        (b"/a train-ai=n", (b"/a", b"train-ai=n")),
        (b"/a\t \ttrain-ai=n, search=y", (b"/a", b"train-ai=n, search=y")),
        (b"/a", (b"/a", b"")),
        (b"/", (b"/", b"")),
        (b"*.pdf train-ai=n", (b"", b"*.pdf train-ai=n")),
        (b"", (b"", b"")),
    ],
)
def test_split_value(value: bytes, split: tuple[bytes, bytes]) -> None:
    assert split_value(value) == split


# -- The parse loop: keys and notes ----------------------------------------


@pytest.mark.parametrize(
    ("body", "notes", "rules"),
    [
        (b"User-agent: *\nCONTENT-USAGE : train-ai=n\ncontent-signal:search=no\n", [], 2),
        # Google's missing-colon leniency applies, and is noted (FMT-9).
        (
            b"User-agent: *\nContent-Usage train-ai=n\n",
            [
                (
                    2,
                    "missing-colon",
                    "no ':' after 'Content-Usage': read as key and value, as Google's parser does",
                )
            ],
            1,
        ),
        (
            b"User-agent: *\nContent-Usage\n",
            [(2, "missing-value", "'Content-Usage' has no ':' and no value: the line is ignored")],
            0,
        ),
        # Whole keys only: no prefixes and no typos.
        (
            b"User-agent: *\nContent-Signals: search=no\nContent-Usages: train-ai=n\n",
            [
                (
                    2,
                    "unknown-key",
                    "unsupported key 'Content-Signals': the line is ignored (RFC 9309 §2.2.4)",
                ),
                (
                    3,
                    "unknown-key",
                    "unsupported key 'Content-Usages': the line is ignored (RFC 9309 §2.2.4)",
                ),
            ],
            0,
        ),
    ],
)
def test_keys_and_notes(body: bytes, notes: list[tuple[int, str, str]], rules: int) -> None:
    robots = RobotsTxt.parse(body)
    assert [tuple(note) for note in robots.notes] == notes
    assert len(robots.usage_rules) == rules


# -- The model and its rendering -------------------------------------------


def test_rendering() -> None:
    robots = RobotsTxt.parse(
        b"Content-Usage: train-ai=n\nUser-agent: *\n"
        b"Content-Signal: ai-train=no, search=yes, ai-input=no\n"
    )
    got = robots.usage(BASE + "/", "bot").combined(header_preferences([b"search=n"]))
    assert str(got) == (
        "train-ai=n, ai-use=n, search=n (content-usage line 1, content-signal line 3, "
        "Content-Usage header)"
    )
    assert got.describe(["search"]) == "search=n (Content-Usage header)"
    assert got.describe(["ai-use", "train-ai"]) == (
        "ai-use=n, train-ai=n (content-signal line 3, content-usage line 1)"
    )
    assert got.describe(()) == "none stated"
    assert str(NO_PREFERENCES) == "none stated"
    assert got.as_dict() == {
        "train-ai": {
            "value": "disallow",
            "sources": [
                {"kind": "content-usage", "line": 1, "text": "train-ai=n"},
                {
                    "kind": "content-signal",
                    "line": 3,
                    "text": "ai-train=no, search=yes, ai-input=no",
                },
            ],
        },
        "ai-use": {
            "value": "disallow",
            "sources": [
                {
                    "kind": "content-signal",
                    "line": 3,
                    "text": "ai-train=no, search=yes, ai-input=no",
                }
            ],
        },
        "search": {
            "value": "disallow",
            "sources": [{"kind": "header", "line": None, "text": "search=n"}],
        },
    }
    assert NO_PREFERENCES.as_dict() == {c: {"value": "unknown", "sources": []} for c in CATEGORIES}
    sources = (
        usage(4, ""),
        signal(62, ""),
        Source("header", None, ""),
        Source("signal-header", None, ""),
        Source("page", None, "X-Robots-Tag: noai"),
    )
    assert [str(s) for s in sources] == [
        "content-usage line 4",
        "content-signal line 62",
        "Content-Usage header",
        "Content-Signal header",
        "X-Robots-Tag: noai",
    ]


def test_queries() -> None:
    got = header_preferences([b"train-ai=n, search=y"])
    assert got.disallowed() == ("train-ai",)
    assert got.disallowed(["search", "ai-use"]) == ()
    assert got.unknown() == ("ai-use",)
    assert got.unknown(["ai-use", "search"]) == ("ai-use",)
    assert got.preference("search") == Preference(
        "allow", (Source("header", None, "train-ai=n, search=y"),)
    )
    assert got.preference("ai-use") == Preference()
    assert bool(got)
    assert not NO_PREFERENCES
    assert not header_preferences([b"Train-AI=n"])
    with pytest.raises(
        ValueError, match=r"^'ai-train' is not a usage category: train-ai, ai-use, search$"
    ):
        got["ai-train"]
    # The name this package used before vocab-08 is not a category any more.
    with pytest.raises(ValueError, match="'ai-input' is not a usage category"):
        got["ai-input"]
    with pytest.raises(ValueError, match="'tdm' is not a usage category"):
        NO_PREFERENCES.preference("tdm")


def test_combined() -> None:
    """U-4: the most restrictive wins; the deciding sources are merged."""
    header = Source("header", None, "train-ai=y, search=n")
    robots = prefs(("train-ai", "n", usage(1, "train-ai=n")), ("search", "y", usage(1, "x")))
    got = robots.combined(prefs(("train-ai", "y", header), ("search", "n", header)))
    assert got == prefs(("train-ai", "n", usage(1, "train-ai=n")), ("search", "n", header))
    both = prefs(("search", "y", usage(1, "x"))).combined(prefs(("search", "y", header)))
    assert both == prefs(("search", "y", usage(1, "x"), header))
    assert robots.combined() is robots
    assert robots.combined(NO_PREFERENCES) is robots
    assert NO_PREFERENCES.combined(robots) is robots


def test_header() -> None:
    """attach-05 §2: field lines are joined as one Dictionary (RFC 9651
    §4.2); a value that does not parse states nothing (vocab-08 §6.5.1)."""
    source, statement = header_source([b"train-ai=y", b"search=n"])
    assert source == Source("header", None, "train-ai=y, search=n")
    assert statement.values == (("train-ai", True), ("search", False))
    source, statement = header_source([b"Train-AI=n"])
    assert statement.error is not None
    assert header_preferences([b"Train-AI=n"]) == NO_PREFERENCES
    assert header_preferences([]) == NO_PREFERENCES
    # Latin-1: a header's bytes are not UTF-8 text.
    assert header_source([b"x=\xe9"])[0].text == "x=\xe9"


def test_pickling_and_exports() -> None:
    """The meta value survives JOBDIR (pickle); compare with ``==``."""
    got = RobotsTxt.parse(ATTACH_3_4).usage(BASE + "/test", "OtherBot")
    assert pickle.loads(pickle.dumps(got)) == got
    copy = pickle.loads(pickle.dumps(NO_PREFERENCES))
    assert copy == NO_PREFERENCES
    assert TopLevelPreferences is Preferences
    assert USAGE_META_KEY == "robotstxt_usage"
    assert CATEGORIES == ("train-ai", "ai-use", "search")


def test_disallowed_path_is_no_preferences() -> None:
    robots = RobotsTxt.parse(b"User-agent: *\nDisallow: /\nContent-Usage: train-ai=y\n")
    assert robots.usage(BASE + "/x", "bot") is NO_PREFERENCES
    # rfc mode never disallows /robots.txt itself (RFC 9309 §2.2.2).
    assert robots.usage(BASE + "/robots.txt", "bot") == prefs(
        ("train-ai", "y", usage(3, "train-ai=y"))
    )
    google = RobotsTxt.parse(b"User-agent: *\nDisallow: /\nContent-Usage: train-ai=y\n", "google")
    assert google.usage(BASE + "/robots.txt", "bot") is NO_PREFERENCES


# -- The corpus (design §7.2), read in place -------------------------------

L34 = signal(34, "ai-train=no, search=no, ai-input=no")
L62 = signal(62, "ai-train=no, search=yes, ai-input=no")
L6 = signal(6, "ai-train=yes, search=yes, ai-input=yes")
L30 = signal(30, "search=yes,ai-train=no,use=reference")
CORPUS_TABLE = [
    ("0002", "wget", "/wiki/Main", False, NO_PREFERENCES),
    (
        "0002",
        "wget",
        "/index.php",
        True,
        prefs(("train-ai", "n", L34), ("ai-use", "n", L34), ("search", "n", L34)),
    ),
    ("0002", "Fasterfox", "/", False, NO_PREFERENCES),
    ("0002", "AhrefsBot", "/x", False, NO_PREFERENCES),
    *[
        (
            "0002",
            name,
            path,
            True,
            prefs(("train-ai", "n", L62), ("ai-use", "n", L62), ("search", "y", L62)),
        )
        for name, path in [("Scrapy", "/wiki/Main_Page"), ("Googlebot", "/"), ("*", "/robots.txt")]
    ],
    *[
        ("0002", "Scrapy", path, False, NO_PREFERENCES)
        for path in ["/w/index.php", "/downloads/a.zip", "/wiki/Special:Search"]
    ],
    *[
        (
            "0068",
            "ExampleBot",
            path,
            True,
            prefs(("train-ai", "y", L6), ("ai-use", "y", L6), ("search", "y", L6)),
        )
        for path in ["/articles/x", "/a.json?x=1"]
    ],
    *[
        ("0068", "ExampleBot", path, False, NO_PREFERENCES)
        for path in ["/api/x", "/a.json", "/(demo)/x"]
    ],
    ("0068", "Scrapy", "/articles/x", False, NO_PREFERENCES),
    ("0068", "MJ12bot", "/", False, NO_PREFERENCES),
    # Its own group states nothing, and the '*' group's line is not its.
    ("0068", "ia_archiver", "/research-starters/x", True, NO_PREFERENCES),
    ("0068", "ia_archiver", "/other", True, NO_PREFERENCES),
    *[
        ("0083", name, path, True, prefs(("train-ai", "n", L30), ("search", "y", L30)))
        for name, path in [("ExampleBot", "/article/1"), ("Googlebot", "/"), ("Scrapy", "/")]
    ],
    ("0083", "ExampleBot", "/api/v1", False, NO_PREFERENCES),  # the merged '*' groups
    *[
        ("0083", name, "/", False, NO_PREFERENCES)
        for name in ["GPTBot", "ClaudeBot", "anthropic-ai", "Amazonbot"]
    ],
]


def _corpus_file(number: str) -> Path:
    path = CORPUS / f"{number}.txt"
    if not path.is_file():
        pytest.skip(f"{path} is not here: the real-world corpus is read in place, never copied")
    return path


@pytest.mark.parametrize(("number", "agent", "path", "allowed", "expected"), CORPUS_TABLE)
def test_corpus_table(
    number: str, agent: str, path: str, allowed: bool, expected: Preferences
) -> None:
    robots = RobotsTxt.parse(_corpus_file(number).read_bytes())
    assert robots.allowed(BASE + path, agent) is allowed
    assert robots.usage(BASE + path, agent) == expected


def test_corpus_usage_rules() -> None:
    lines = {
        number: [
            (group, rule.kind, rule.line)
            for group, rule in RobotsTxt.parse(_corpus_file(number).read_bytes()).usage_rules
        ]
        for number in ("0002", "0068", "0083")
    }
    assert lines == {
        "0002": [(g, "content-signal", n) for g, n in enumerate([34, 38, 42, 46, 50, 54, 58, 62])],
        "0068": [(0, "content-signal", 6)],
        "0083": [(0, "content-signal", 30)],
    }


# -- Zero cost (design §7.4) -----------------------------------------------

_USAGE_KEY = re.compile(rb"(?im)^[ \t]*content-(?:usage|signal)\b")


@requires_corpus
def test_files_without_usage_lines_cost_nothing() -> None:
    """A file without usage lines keeps no usage rule and answers with
    :data:`NO_PREFERENCES` before matching anything."""
    without = [p for p in corpus_files() if not _USAGE_KEY.search(p.read_bytes())]
    assert len(without) > 250
    for path in without:
        robots = RobotsTxt.parse(path.read_bytes())
        assert robots.usage_rules == (), path.name
        for agent in ("Scrapy", "Googlebot", "*"):
            assert robots.for_agent(agent).usage is None
            assert robots.usage(BASE + "/", agent) is NO_PREFERENCES


def test_agent_rules_keep_one_slot() -> None:
    robots = RobotsTxt.parse(b"User-agent: a\nDisallow: /x\n")
    rules = robots.for_agent("a")
    assert rules.usage is None
    assert robots.for_agent("A").usage is None
    with_usage = RobotsTxt.parse(b"User-agent: a\nContent-Usage: train-ai=n\n")
    assert with_usage.for_agent("a").usage == (
        (UsageRule("content-usage", "/", b"train-ai=n", 2),),
    )
    # A renamed rule set (another name, the same groups) shares them.
    assert with_usage.for_agent("A").usage is with_usage.for_agent("a").usage


# -- Properties (design §7.3) ----------------------------------------------


def _without_usage(robots: RobotsFile) -> RobotsFile:
    """``robots`` with each usage line made a comment: the lines keep their
    numbers, and a broken BOM stays on the same line."""
    return RobotsFile(
        robots.bom,
        tuple(
            Line("comment", comment="#", ending=line.ending) if line.kind == "usage" else line
            for line in robots.lines
        ),
    )


def _names(crawler: str) -> list[str]:
    return [crawler, "*", "OtherBot"]


@SETTINGS
@given(usage_cases(), st.sampled_from(MODES))
def test_a_disallowed_path_has_no_preferences(case: tuple[RobotsFile, str, str], mode: str) -> None:
    """U-5: ``not allowed`` implies :data:`NO_PREFERENCES`, in both modes."""
    robots, crawler, url = case
    parsed = RobotsTxt.parse(robots.render(), mode)  # type: ignore[arg-type]
    for name in _names(crawler):
        got = parsed.usage(url, name)
        if not parsed.allowed(url, name):
            assert got is NO_PREFERENCES
        assert all(got[c] in ("allow", "disallow", "unknown") for c in CATEGORIES)


@st.composite
def _added_no(draw: st.DrawFn) -> tuple[Line, tuple[str, ...]]:
    """A usage line that says n for one or two categories, with or without a path."""
    signal_line = draw(st.booleans())
    labels = ["ai-train", "search", "ai-input"] if signal_line else ["train-ai", "ai-use", "search"]
    keys = draw(st.lists(st.sampled_from(labels), min_size=1, max_size=2, unique=True))
    no = "no" if signal_line else "n"
    path = draw(st.sampled_from(["", "/", "/a", "/a*", "/*.pdf$", "/foo/"]))
    statement = ", ".join(f"{k}={no}" for k in keys)
    value = f"{path} {statement}" if path else statement
    key = "Content-Signal" if signal_line else "Content-Usage"
    categories = tuple(
        LABELS["content-signal" if signal_line else "content-usage"][k] for k in keys
    )
    return Line("usage", key=key, sep=": ", value=value), categories


@SETTINGS
@given(usage_cases(), _added_no(), st.integers(0, 100), st.sampled_from(MODES))
def test_an_added_no_never_allows(
    case: tuple[RobotsFile, str, str], added: tuple[Line, tuple[str, ...]], where: int, mode: str
) -> None:
    """U-4: a statement of ``n`` added anywhere never turns a category it
    states to allow, nor, without a path, any other; a header ``n`` keeps
    its categories from allow.

    With a path it may turn another category to allow: it can be its rule
    set's longest match and so hide that set's statement of ``n`` for the
    other category (attach-05 §3.1), leaving the other set's ``y``
    (:func:`test_a_longer_path_hides_a_shorter_one`)."""
    robots, crawler, url = case
    line, categories = added
    everywhere = not line.value.startswith("/") or line.value.startswith("/ ")
    position = where % (len(robots.lines) + 1)
    # No BOM: a broken one would spoil whichever line comes first.
    robots = RobotsFile(b"", robots.lines)
    more = RobotsFile(b"", (*robots.lines[:position], line, *robots.lines[position:]))
    before = RobotsTxt.parse(robots.render(), mode)  # type: ignore[arg-type]
    after = RobotsTxt.parse(more.render(), mode)  # type: ignore[arg-type]
    header = header_preferences([", ".join(f"{c}=n" for c in categories).encode()])
    for name in _names(crawler):
        was, now = before.usage(url, name), after.usage(url, name)
        for category in CATEGORIES if everywhere else categories:
            if now[category] == "allow":
                assert was[category] == "allow", (category, str(was), str(now))
        for category in categories:
            assert was.combined(header)[category] == "disallow"
            assert header.combined(was)[category] == "disallow"


@SETTINGS
@given(st.binary(max_size=60), st.sampled_from(["content-usage", "content-signal"]))
def test_failures_give_unknown(raw: bytes, kind: str) -> None:
    """vocab-08 §6.5.1: a value that does not parse states nothing; never
    an exception."""
    statement = parse_statement(raw, kind)  # type: ignore[arg-type]
    if statement.error is not None:
        assert statement.values == ()
        assert statement.members == 0
    got = header_preferences([raw])
    assert set(got.as_dict()) == set(CATEGORIES)


@SETTINGS
@given(
    st.lists(st.binary(max_size=30).filter(lambda b: not set(b) & set(b"\r\n#\0")), max_size=4),
    st.sampled_from(["/", "/a", "/%C3%A9"]),
)
def test_robots_usage_never_raises(values: list[bytes], path: str) -> None:
    body = b"Content-Usage: " + (values[0] if values else b"") + b"\nUser-agent: *\n"
    body += b"".join(b"Content-Signal: " + v + b"\nContent-Usage:" + v + b"\n" for v in values)
    robots = RobotsTxt.parse(body)
    got = robots.usage(BASE + path, "bot")
    assert all(got[c] in ("allow", "disallow", "unknown") for c in CATEGORIES)
    assert len(robots.usage_rules) == 1 + 2 * len(values)


@SETTINGS
@given(usage_cases())
def test_usage_lines_never_change_a_verdict_in_google_mode(
    case: tuple[RobotsFile, str, str],
) -> None:
    """U-1, google mode: usage lines are other records, which neither end a
    group nor change a verdict (RFC 9309 §2.2.4), as in Google's parser."""
    robots, crawler, url = case
    with_lines = RobotsTxt.parse(robots.render(), "google")
    without = RobotsTxt.parse(_without_usage(robots).render(), "google")
    for name in _names(crawler):
        assert with_lines.allowed(url, name) == without.allowed(url, name)


@SETTINGS
@given(usage_cases())
def test_usage_lines_group_as_rules_in_rfc_mode(case: tuple[RobotsFile, str, str]) -> None:
    """U-1 revised, rfc mode: a usage line changes a verdict exactly as a
    rule that matches nothing would (attach-05 §3: ``rule =/
    content-usage``): it ends the user-agent list of its group, and before
    any user-agent line it is nobody's rule."""
    robots, crawler, url = case
    with_lines = RobotsTxt.parse(robots.render(), "rfc")
    as_rules = RobotsTxt.parse(usage_as_rules(robots).render(), "rfc")
    assert [g.agents for g in with_lines.groups] == [g.agents for g in as_rules.groups]
    for name in _names(crawler):
        assert with_lines.allowed(url, name) == as_rules.allowed(url, name)


@SETTINGS
@given(usage_cases())
def test_google_mode_with_usage_lines_equals_google(case: tuple[RobotsFile, str, str]) -> None:
    """Google's parser reads both keys as unknown: google mode still gives
    its verdict on files with usage lines."""
    robots, crawler, url = case
    body = robots.render()
    expected = bool(RobotsMatcher().OneAgentAllowedByRobots(body, crawler, url))
    assert RobotsTxt.parse(body, "google").allowed(url, crawler) == expected


@SETTINGS
@given(lines(True, "usage"))
def test_the_strategies_write_usage_lines(line: Line) -> None:
    """The files the property tests draw (here and in test_differential.py)
    have usage lines: the kind is one of the keys ``lines`` samples, and
    each such line is read as one."""
    assert "usage" in KEYS
    assert len(RobotsTxt.parse(line.render()).usage_rules) == 1


_statements = st.builds(
    lambda kind, text, line: Preferences.of(
        [(Source(kind, line, text), parse_statement(text.encode(), kind))]
    ),
    st.sampled_from(["content-usage", "content-signal"]),
    usage_statements("usage") | usage_statements("signal"),
    st.integers(1, 5),
) | st.just(NO_PREFERENCES)


def _values(p: Preferences) -> tuple[str, ...]:
    return tuple(p[c] for c in CATEGORIES)


@SETTINGS
@given(_statements, _statements, _statements)
def test_combination_laws(a: Preferences, b: Preferences, c: Preferences) -> None:
    """U-4 is commutative and associative on values; no preferences is its identity."""
    assert _values(a.combined(b)) == _values(b.combined(a))
    assert _values(a.combined(b).combined(c)) == _values(a.combined(b.combined(c)))
    assert _values(a.combined(b, c)) == _values(a.combined(b).combined(c))
    assert a.combined(NO_PREFERENCES) == a == NO_PREFERENCES.combined(a)
