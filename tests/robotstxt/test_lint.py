"""``lint`` as a function (scrapy_robots_rfc/lint.py), and the public matcher
functions it is built on. The command line around it is tested in
test_cli.py."""

from __future__ import annotations

import itertools
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt._canonical import MODES, Mode
from scrapy_robots_rfc.robotstxt._lint import (
    CODES,
    MAX_COMPARISONS,
    NOTE_ONLY,
    Finding,
    HtmlPage,
    html_page,
    lint,
    looks_like_html,
)
from scrapy_robots_rfc.robotstxt._matcher import literal_prefix
from scrapy_robots_rfc.robotstxt._parser import MAX_BYTES, MAX_LINE_BYTES, NOTE_CODES, cut_at_limit
from scrapy_robots_rfc.robotstxt._patterns import pattern_matches

from ..conftest import CORPUS

# -- findings: the parser's notes, then what the rules of a group say -------


def test_every_note_is_a_finding() -> None:
    body = b"Disallow: /a\nuser-agent: *\nDissallow /b\nHost: e.com\n"
    robots = RobotsTxt.parse(body)
    assert lint(body) == sorted(Finding(n.line, n.code, n.text) for n in robots.notes)
    assert [(f.line, f.code) for f in lint(body)] == [
        (1, "before-user-agent"),
        (3, "missing-colon"),
        (3, "typo"),
        (4, "unknown-key"),
    ]


def test_codes() -> None:
    assert list(CODES)[: len(NOTE_CODES)] == list(NOTE_CODES)
    assert list(CODES)[len(NOTE_CODES) :] == [
        "never-matches",
        "shadowed",
        "duplicate",
        "empty-rule",
        "incomplete",
        "usage-syntax",
        "usage-empty",
        "usage-category",
        "usage-value",
        "usage-duplicate",
        "usage-disallowed",
    ]
    assert NOTE_ONLY.issubset(CODES)
    assert all(CODES[code].startswith("note: ") for code in NOTE_ONLY)


def test_truncated_is_a_finding_past_the_last_line() -> None:
    body, truncated = cut_at_limit(b"user-agent: *\n" + b"#" * MAX_BYTES + b"\n")
    assert truncated
    (finding,) = lint(body, truncated=True)
    assert (finding.line, finding.code, finding.is_note) == (2, "past-limit", False)
    assert lint(body) == []


@pytest.mark.parametrize(
    ("rules", "expected"),
    [
        ("Disallow:\n", [(2, "empty-rule", True)]),
        ("Allow: foo\n", [(2, "never-matches", False)]),
        ("Disallow: $\n", [(2, "never-matches", False)]),
        ("Disallow: /a\nAllow: /a\n", [(2, "shadowed", False)]),
        ("Disallow: /a\nDisallow: /a\n", [(3, "duplicate", False)]),
        ("Disallow: /a*\nAllow: /a\n", [(3, "shadowed", False)]),  # longer wins
        ("Allow: /a/*\nDisallow: /a/\n", [(3, "shadowed", False)]),
        ("Disallow: /a$\nAllow: /a*\n", [(2, "shadowed", False)]),  # allow wins a tie
        ("Disallow: /a\nAllow: /a/\n", []),
        # PATH-9: "allow: /d/index.html" is dead only with its derived /d/$ rule.
        ("Allow: /d/index.html\nDisallow: /d/index.html*\n", []),
        (
            "Allow: /d/index.html\nDisallow: /d/index.html*\nDisallow: /d/*$\n",
            [(2, "shadowed", False)],
        ),
    ],
)
def test_group_findings(rules: str, expected: list[tuple[int, str, bool]]) -> None:
    found = lint(b"User-agent: *\n" + rules.encode())
    assert [(f.line, f.code, f.is_note) for f in found] == expected


def test_groups_are_searched_one_by_one() -> None:
    body = b"User-agent: a\nDisallow: /x\n\nUser-agent: b\nAllow: /x\n"
    assert lint(body) == []


def test_shadowed_message() -> None:
    (finding,) = lint(b"User-agent: *\nAllow: /same\nDisallow: /same\n")
    assert finding == Finding(
        3,
        "shadowed",
        "disallow: /same never decides: allow: /same (line 2) matches every URL it matches "
        "and wins (longest match, allow on a tie; RFC 9309 §2.2.2)",
    )


def test_comparison_budget_is_one_counter_for_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    from scrapy_robots_rfc.robotstxt import _lint as module

    monkeypatch.setattr(module, "MAX_COMPARISONS", 3)
    group = b"User-agent: %s\n" + b"".join(b"Disallow: /%d\n" % i for i in range(4))
    found = lint(group % b"a" + group % b"b")
    incomplete = [(f.line, f.is_note) for f in found if f.code == "incomplete"]
    # Each rule is compared with itself only: three rules of "a", then none.
    assert incomplete == [(5, True), (7, True)]
    assert MAX_COMPARISONS == 5_000_000


# -- "shadowed" and "duplicate" are proofs: such a rule never decides -----

_PATHS = ["/" + "".join(p) for p in itertools.product("/ab", repeat=4)]
_PATHS += ["/", "/a", "/b", "/ab", "/a/", "/ba"]

_pattern = st.builds(
    lambda body, end: "/" + body + end,
    st.text(alphabet="ab/*", max_size=3),
    st.sampled_from(["", "", "$"]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.booleans(), _pattern), min_size=2, max_size=6),
    st.sampled_from(MODES),
)
def test_shadowed_rules_never_decide(rules: list[tuple[bool, str]], mode: Mode) -> None:
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {pattern}\n" for allow, pattern in rules
    )
    found = lint(body.encode(), mode)
    dead = {f.line for f in found if f.code in ("shadowed", "duplicate")}
    agent = RobotsTxt.parse(body, mode).for_agent("bot")
    for path in _PATHS:
        rule = agent.decide(path)
        assert rule is None or rule.line not in dead, (path, rule)


# -- no-token: what lint says is what the parser does (D-21) --------------


@pytest.mark.parametrize(
    ("mode", "message"),
    [
        (
            "rfc",
            "user-agent '42bot' has no product token: its group applies only to a crawler "
            "named exactly '42bot' (RFC 9309 §2.2.1)",
        ),
        (
            "google",
            "user-agent '42bot' has no product token: its group applies to no crawler "
            "(RFC 9309 §2.2.1)",
        ),
    ],
)
def test_lint_no_token_says_who_the_group_is_for(mode: Mode, message: str) -> None:
    body = b"User-agent: 42bot\nDisallow: /x\n"
    found = lint(body, mode)
    assert [(f.line, f.code, f.message) for f in found] == [(1, "no-token", message)]
    # What it says is what the parser does.
    robots = RobotsTxt.parse(body, mode)
    assert robots.allowed("http://e.com/x", "42bot") is (mode == "google")


@pytest.mark.parametrize("mode", MODES)
def test_lint_a_value_without_a_product_name(mode: Mode) -> None:
    """``User-agent: /foo`` has neither a token nor a product name."""
    body = b"User-agent: /foo\nDisallow: /x\n"
    found = lint(body, mode)
    assert [(f.code, f.message) for f in found] == [
        (
            "no-token",
            "user-agent '/foo' has no product token: its group applies to no crawler "
            "(RFC 9309 §2.2.1)",
        )
    ]
    robots = RobotsTxt.parse(body, mode)
    for name in ("", "/foo", "foo", "*"):
        if mode == "google" and name == "":
            continue  # Google's parser gives "" the groups of empty tokens (UA-7)
        assert robots.allowed("http://e.com/x", name) is True, name


# -- partial-token: a name the token stops short of (UA-1, UA-3, D-21) ------


@pytest.mark.parametrize(
    ("value", "short", "stop"),
    [
        ("my.crawler", "my", "."),
        ("MJ12bot/1.0", "MJ", "1"),
        ("Perplexity\u2011User", "Perplexity", "\u2011"),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_lint_partial_token_says_who_the_group_is_for(
    mode: Mode, value: str, short: str, stop: str
) -> None:
    """``User-agent: my.crawler`` is for ``my`` in both modes, and for
    ``my.crawler`` too in rfc mode: the message says so, and the parser
    does so."""
    body = f"User-agent: {value}\nDisallow: /x\n".encode()
    name = value.split("/")[0]
    (finding,) = lint(body, mode)
    assert (finding.line, finding.code, finding.is_note) == (1, "partial-token", False)
    assert finding.message == (
        f"user-agent {name!r} is not a product token, which has only letters, '-' and '_' "
        f"(RFC 9309 §2.2.1): its token stops before {stop!r}, so rfc mode applies the group "
        f"to a crawler named {short!r} or {name!r}, google mode (as Google's parser) only to "
        f"one named {short!r}"
    )
    robots = RobotsTxt.parse(body, mode)
    assert robots.allowed("http://e.com/x", short) is False
    assert robots.allowed("http://e.com/x", short.upper()) is False
    assert robots.allowed("http://e.com/x", name) is (mode == "google")
    assert robots.allowed("http://e.com/x", "other") is True


@pytest.mark.parametrize("value", ["Googlebot", "Googlebot/2.1", "Googlebot-News 2.1", "*", "* x"])
def test_lint_token_with_a_version_is_not_partial(value: str) -> None:
    """A version or a comment after the token binds the same name in both
    modes: nothing to say."""
    for mode in MODES:
        assert lint(f"User-agent: {value}\nDisallow: /x\n".encode(), mode) == []


# -- no internal spec IDs in what lint says ------------------------------

#: An internal spec ID (tests/project/test_spec_ids.py): FMT-11, D-4, PATH-5.
_SPEC_ID = re.compile(r"\b(?!UTF-8\b)[A-Z]+-[0-9]+\b")


def test_codes_and_messages_cite_only_what_a_user_can_look_up() -> None:
    body = (
        (
            b"Disallow: /a\nuser-agent: *\nDissallow /b\nDisallowed: /c\nHost: e.com\nDisallow\n"
            b"a b c\n: x\nAllow: foo\nAllow: /s\nDisallow: /s\nDisallow: /d\nDisallow: /d\nAllow:\n"
            b"Sitemap: s.xml\nCrawl-delay: x\nDisallow: /\xe9\nUser-agent: 4\nUser-agent: a.b\n"
            b"Disallow: /\nContent-Usage: Train-AI=n\nContent-Usage: /p/\nContent-Signal: bots=no\n"
            b"Content-Usage: train-ai=N\nContent-Usage: search=y, search=n\n"
        )
        + b"#" * (MAX_LINE_BYTES + 1)
        + b"\n"
    )
    found = [f for mode in MODES for f in lint(body, mode, truncated=True)]
    assert {f.code for f in found} == set(CODES) - {"incomplete"}
    texts = [*CODES.values(), *(f.message for f in found)]
    assert [text for text in texts if _SPEC_ID.search(text)] == []


# -- content-usage and content-signal (U-1 to U-5) -------------------------


@pytest.mark.parametrize("mode", MODES)
def test_usage_lines_are_read_not_unknown_keys(mode: Mode) -> None:
    body = (
        b"Content-Signal: search=yes, ai-train=no, ai-input=no\n"
        b"User-agent: *\n"
        b"Content-Usage: train-ai=n\n"
        b"content-usage: /ok/ train-ai=y, search=y\n"
        b"Content-Usage: /ai/ ai-use=n\n"
        b"CONTENT-SIGNAL:/x/\tai-input=yes;v=1\n"
        b"Allow: /\n"
    )
    assert lint(body, mode) == []
    # Whole keys only: another spelling is still an unknown key.
    assert [(f.line, f.code) for f in lint(b"User-agent: *\nContent-Signals: search=yes\n")] == [
        (2, "unknown-key")
    ]


#: Findings on the usage line (line 3) of "User-agent: *", "Disallow: /private/" and it.
USAGE_FINDINGS = [
    (
        "Content-Usage: Train-AI=n",
        "usage-syntax",
        "content-usage value 'Train-AI=n' is not a Structured Fields Dictionary (Key cannot "
        "begin with an uppercase character at position 0): every category is unknown "
        "(RFC 9651 §4.2)",
    ),
    (
        "Content-Signal: *.pdf ai-train=no",
        "usage-syntax",
        "content-signal value '*.pdf ai-train=no' is not a Structured Fields Dictionary "
        "('*.pdf' should be followed by '=', not 'a' at position 6): every category is unknown "
        "(RFC 9651 §4.2); a path starts with '/'",
    ),
    (
        # vocab-08 §6.5.2 (as -07) writes it with the trailing ';' that RFC 9651 rejects.
        'Content-Usage: train-ai;has;parameters="?";',
        "usage-syntax",
        "content-usage value 'train-ai;has;parameters=\"?\";' is not a Structured Fields "
        "Dictionary (Trailing delimiter at position 28 (in 'train-ai')): every category is "
        "unknown (RFC 9651 §4.2)",
    ),
    ("Content-Usage: /shop/", "usage-empty", "content-usage: '/shop/' states no preference"),
    ("Content-Signal:", "usage-empty", "content-signal: the line states no preference"),
    (
        "Content-Usage: ai-train=n",
        "usage-category",
        "content-usage: 'ai-train' is not a usage category (train-ai, ai-use, search): ignored; "
        "Content-Usage writes it 'train-ai'",
    ),
    (
        "Content-Signal: train-ai=no",
        "usage-category",
        "content-signal: 'train-ai' is not a usage category (search, ai-input, ai-train): "
        "ignored; Content-Signal writes it 'ai-train'",
    ),
    (
        "Content-Usage: ai-input=n",
        "usage-category",
        "content-usage: 'ai-input' is not a usage category (train-ai, ai-use, search): ignored; "
        "Content-Usage writes it 'ai-use'",
    ),
    (
        "Content-Signal: ai-use=no",
        "usage-category",
        "content-signal: 'ai-use' is not a usage category (search, ai-input, ai-train): "
        "ignored; Content-Signal writes it 'ai-input'",
    ),
    (
        "Content-Usage: train-genai=n",
        "usage-category",
        "content-usage: 'train-genai' is not a usage category (train-ai, ai-use, search): "
        "ignored; 'train-genai' is a category of earlier drafts, not of "
        "draft-ietf-aipref-vocab-08",
    ),
    (
        "Content-Signal: use=reference",
        "usage-category",
        "content-signal: 'use' is not a usage category (search, ai-input, ai-train): ignored",
    ),
    (
        "Content-Usage: train-ai=yes",
        "usage-value",
        "content-usage: train-ai=yes: the value is not y or n, so the preference is unknown",
    ),
    (
        "Content-Usage: train-ai=N;q=1",
        "usage-value",
        "content-usage: train-ai=N;q=1: the value is not y or n, so the preference is unknown "
        "(values are case-sensitive)",
    ),
    (
        'Content-Signal: ai-train="no"',
        "usage-value",
        'content-signal: ai-train="no": the value is not yes or no, so the preference is '
        "unknown (a Token, written without quotes)",
    ),
    (
        "Content-Usage: search",
        "usage-value",
        "content-usage: search: the value is not y or n, so the preference is unknown (a key "
        "alone is the Boolean true)",
    ),
    (
        "Content-Signal: ai-train=n",
        "usage-value",
        "content-signal: ai-train=n: the value is not yes or no, so the preference is unknown",
    ),
    (
        "Content-Usage: train-ai=y, search=n, train-ai=n",
        "usage-duplicate",
        "content-usage: 'train-ai' is given more than once: only the last counts (RFC 9651 §3.2)",
    ),
    (
        "Content-Usage: /private/x train-ai=n",
        "usage-disallowed",
        "content-usage: /private/x train-ai=n: every URL it applies to is disallowed by "
        "disallow: /private/ (line 2), so it never applies (draft-ietf-aipref-attach-05 §3.1)",
    ),
]


@pytest.mark.parametrize(("line", "code", "message"), USAGE_FINDINGS)
@pytest.mark.parametrize("mode", MODES)
def test_usage_finding(mode: Mode, line: str, code: str, message: str) -> None:
    body = f"User-agent: *\nDisallow: /private/\n{line}\n".encode()
    assert lint(body, mode) == [Finding(3, code, message)]
    assert not Finding(3, code, message).is_note


def test_usage_findings_of_one_line_in_order() -> None:
    body = b"User-agent: *\nContent-Usage: train-ai=y, foo=n, train-ai=yes, search=n\n"
    assert [(f.line, f.code) for f in lint(body)] == [
        (2, "usage-category"),
        (2, "usage-duplicate"),
        (2, "usage-value"),
    ]


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        # The group disallows everything the line covers.
        (b"User-agent: *\nDisallow: /\nContent-Signal: ai-train=no\n", [3]),
        # An allow at least as long lets some URLs through...
        (b"User-agent: *\nDisallow: /\nAllow: /public/\nContent-Usage: train-ai=n\n", []),
        # ...but not the ones this line is about.
        (b"User-agent: *\nDisallow: /\nAllow: /public/\nContent-Usage: /private/ search=n\n", [4]),
        (b"User-agent: *\nDisallow: /a\nAllow: /a$\nContent-Usage: /a search=n\n", []),
        (b"User-agent: *\nDisallow: /a\nContent-Usage: /a*.pdf$ search=n\n", [3]),
        (b"User-agent: *\nDisallow: /a\nContent-Usage: /b search=n\n", []),
        # A crawler gets every group that names it (RFC 9309 §2.2.1).
        (b"User-agent: a\nDisallow: /\nContent-Usage: search=n\n\nUser-agent: a\nAllow: /x\n", []),
        # rfc mode: "my.crawler" is for "my" too, which also gets "Allow: /".
        (
            b"User-agent: my.crawler\nDisallow: /\nContent-Usage: search=n\n\n"
            b"User-agent: my\nAllow: /\n",
            [],
        ),
        # U-1: a line before any user-agent line applies to every crawler...
        (b"Content-Usage: train-ai=n\nUser-agent: *\nDisallow: /\n", [1]),
        # ...including those no group names, which have no rule without a '*' group,
        (b"Content-Usage: train-ai=n\nUser-agent: a\nDisallow: /\n", []),
        # ...and those of a group that allows.
        (b"Content-Usage: train-ai=n\nUser-agent: *\nDisallow: /\nUser-agent: b\nAllow: /\n", []),
        # A line that states nothing gets only the finding that says so.
        (b"User-agent: *\nDisallow: /\nContent-Usage: /x/\n", []),
    ],
)
@pytest.mark.parametrize("mode", MODES)
def test_usage_disallowed(mode: Mode, body: bytes, flagged: list[int]) -> None:
    found = [f.line for f in lint(body, mode) if f.code == "usage-disallowed"]
    assert found == flagged


_usage_path = st.one_of(st.just(""), _pattern.map(lambda p: p + " "))


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.tuples(st.sampled_from(["", "*", "a"]), _usage_path), min_size=1, max_size=4),
    st.lists(st.tuples(st.booleans(), _pattern), max_size=4),
    st.lists(st.tuples(st.booleans(), _pattern), max_size=3),
    st.sampled_from(MODES),
)
def test_usage_disallowed_lines_never_apply(
    usage: list[tuple[str, str]],
    star: list[tuple[bool, str]],
    named: list[tuple[bool, str]],
    mode: Mode,
) -> None:
    """A line lint calls usage-disallowed is the source of no preference,
    for any URL and crawler (attach-05 §3.1: none for disallowed URLs)."""

    def lines(where: str) -> str:
        return "".join(f"Content-Usage: {path}search=n\n" for at, path in usage if at == where)

    def rules(group: list[tuple[bool, str]]) -> str:
        return "".join(f"{'Allow' if a else 'Disallow'}: {p}\n" for a, p in group)

    body = f"{lines('')}User-agent: *\n{rules(star)}{lines('*')}User-agent: a\n"
    body += f"{rules(named)}{lines('a')}"
    flagged = {f.line for f in lint(body.encode(), mode) if f.code == "usage-disallowed"}
    robots = RobotsTxt.parse(body, mode)
    for path in _PATHS:
        for name in ("a", "b"):
            sources = robots.usage(f"https://e.com{path}", name).preference("search").sources
            assert not flagged.intersection(s.line for s in sources), (path, name)


#: The findings on the Content-Signal lines of three corpus files (design
#: §7.2): six in groups that disallow everything; 0083's unknown "use".
CORPUS_USAGE = {
    "0002.txt": [(line, "usage-disallowed") for line in (38, 42, 46, 50, 54, 58)],
    "0068.txt": [],
    "0083.txt": [(30, "usage-category")],
}


@pytest.mark.parametrize("name", sorted(CORPUS_USAGE))
@pytest.mark.parametrize("mode", MODES)
def test_corpus_content_signal_lines(name: str, mode: Mode) -> None:
    path = CORPUS / name
    if not path.is_file():
        pytest.skip(f"{path} is not here: the corpus is read in place, never shipped")
    body = path.read_bytes()
    signals = [
        number
        for number, line in enumerate(body.splitlines(), 1)
        if line.lower().startswith(b"content-signal:")
    ]
    robots = RobotsTxt.parse(body, mode)
    assert [rule.line for _, rule in robots.usage_rules] == signals != []
    found = lint(body, mode)
    assert [f for f in found if f.line in signals and f.code == "unknown-key"] == []
    assert [(f.line, f.code) for f in found if f.code.startswith("usage-")] == CORPUS_USAGE[name]
    if name == "0002.txt":
        assert found[1].message == (
            "content-signal: ai-train=no, search=no, ai-input=no: every URL it applies to is "
            "disallowed by disallow: / (line 43), so it never applies "
            "(draft-ietf-aipref-attach-05 §3.1)"
        )


# -- HTML served as robots.txt ---------------------------------------------


@pytest.mark.parametrize(
    ("body", "content_type", "summary"),
    [
        (
            b"\xef\xbb\xbf\n  <!DOCTYPE HTML>\n<p>x</p>\n",
            "",
            "this looks like an HTML page, not a robots.txt (it starts with '<!DOCTYPE HTML'): "
            "every line is ignored, so a crawler finds no rule in it",
        ),
        (
            b"<html><body>\nUser-agent: *\nDisallow: /a\n",
            "text/html",
            "this looks like an HTML page, not a robots.txt (it starts with '<html' and it was "
            "served as text/html): a crawler reads only the lines that parse as robots.txt "
            "lines and ignores the rest",
        ),
        (
            b"Oops\n",
            "application/xhtml+xml",
            "this looks like an HTML page, not a robots.txt (it was served as "
            "application/xhtml+xml): every line is ignored, so a crawler finds no rule in it",
        ),
        (b"User-agent: *\nDisallow: /a\n", "text/html", None),  # a robots.txt, wrong type
        (b"Sitemap: https://e.com/s.xml\n", "text/html", None),
        (b"<p>x</p>\n", "text/plain", None),
        (b"# <html>\nUser-agent: *\n", "", None),
    ],
)
def test_html_page(body: bytes, content_type: str, summary: str | None) -> None:
    assert html_page(body, content_type) == summary


@pytest.mark.parametrize(
    ("body", "content_type", "found"),
    [
        (
            b"  <!doctype HTML><p>x</p>\n",
            "text/html",
            HtmlPage(starts="<!doctype HTML", served_as="text/html", read=False),
        ),
        (
            b"<html>\nUser-agent: *\nDisallow: /a\n",
            "",
            HtmlPage(starts="<html", served_as=None, read=True),
        ),
        (b"Oops\n", "text/html", HtmlPage(starts=None, served_as="text/html", read=False)),
        (b"User-agent: *\nDisallow: /a\n", "text/html", None),
        # How it starts is looked for in the first 4 KiB: the body is never copied.
        (b" " * 4096 + b"<html>", "", None),
        (b" " * 4000 + b"<html>", "", HtmlPage(starts="<html", served_as=None, read=False)),
    ],
)
def test_looks_like_html_says_why_and_what_is_read(
    body: bytes, content_type: str, found: HtmlPage | None
) -> None:
    """The one detection, for ``lint`` and the crawl; the crawl hands it
    the body it parsed already."""
    assert looks_like_html(body, content_type) == found
    assert looks_like_html(body, content_type, robots=RobotsTxt.parse(body)) == found
    if found is not None:
        assert html_page(body, content_type) == str(found)
        assert found.why in str(found)


# -- the public matcher functions lint uses (PATH-1..PATH-3) ---------------


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("/a", "/a", True),
        ("/a", "/ab", True),
        ("/a", "/", False),
        ("/a$", "/a", True),
        ("/a$", "/ab", False),
        ("/*.gif$", "/x/y.gif", True),
        ("/*.gif$", "/x/y.gif?z", False),
        ("/*a*b", "/xaxb/", True),
        ("/*a*b", "/xbxa", False),
        ("*", "/anything", True),
        ("", "/anything", True),
        ("/a**b$", "/ab", True),
        ("$", "/", False),
    ],
)
def test_pattern_matches(pattern: str, path: str, matches: bool) -> None:
    assert pattern_matches(pattern, path) is matches


@pytest.mark.parametrize(
    ("pattern", "prefix"),
    [("/a/b", "/a/b"), ("/a$", "/a"), ("/a*b$", "/a"), ("*.gif", ""), ("", ""), ("/$*", "/$")],
)
def test_literal_prefix(pattern: str, prefix: str) -> None:
    assert literal_prefix(pattern) == prefix
