"""Hypothesis strategies for robots.txt files and URLs.

A file is generated as a list of lines, each a tuple of parts, so that a test
can render it twice: as generated, and with every allow/disallow value
replaced (the rfc-mode differential test canonicalises the values and then
asks Google's parser).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from hypothesis import strategies as st

KEYS = {
    "user-agent": [
        "user-agent",
        "user-agent",
        "User-Agent",
        "USER-AGENT",
        "useragent",
        "user agent",
        "User-agents",
    ],
    "allow": ["allow", "Allow", "ALLOW", "allowance"],
    "disallow": [
        "disallow",
        "Disallow",
        "DISALLOW",
        "dissallow",
        "dissalow",
        "disalow",
        "diasllow",
        "disallaw",
        "Disallowed",
    ],
    "sitemap": ["sitemap", "Sitemap", "site-map", "sitemaps"],
    "other": ["crawl-delay", "Crawl-delay", "host", "noindex", "foo", "request-rate"],
    # Usage preferences (U-1): rules of the group they stand in.
    "usage": [
        "Content-Usage",
        "content-usage",
        "CONTENT-USAGE",
        "Content-Signal",
        "content-signal",
    ],
}
SEPARATORS = [":", ": ", " : ", "\t:\t", ":  ", " "]
AGENTS = [
    "FooBot",
    "FooBot",
    "*",
    "googlebot",
    "FooBot",
    "foobot",
    "FOOBOT",
    "*",
    "* extra",
    "*\tx",
    "Foo Bar",
    "BarBot/1.0",
    "foo*",
    "AB42bot",
    "*bot",
    "googlebot-news",
    "googlebot",
    "Bar_Bot",
    "x",
    "",
]
CRAWLERS = [
    "FooBot",
    "foobot",
    "BarBot",
    "Foo",
    "googlebot",
    "googlebot-news",
    "Bar_Bot",
    "AB",
    "x",
]
PIECES = [
    "/",
    "/",
    "a",
    "b",
    "foo",
    "bar",
    "*",
    "**",
    "$",
    "%2F",
    "%2f",
    "%41",
    "%7e",
    "%7E",
    "%e9",
    "%C3%A9",
    "é",
    "ツ",
    "?",
    ";",
    "=",
    "&",
    "index.html",
    "index.htm",
    ".",
    "~",
    "-",
    "%",
    "%2",
    "%24",
    "%2A",
    "A",
    ":",
    "@",
    "+",
    ",",
    "!",
    "'",
    "(",
    ")",
    "[",
    "]",
]
# Characters that are escaped in rfc mode; lone surrogates stand for single
# raw bytes (0x80-0xFF, not UTF-8) and are rendered with surrogateescape.
RAW_PIECES = ["\x01", "\x7f", " ", '"', "<", "|", "\\", "^", "`", "{", "}"]
RAW_BYTES = ["\udce9", "\udcff", "\udc80", "\udcc3"]
WS = ["", "", "", " ", "\t", "  ", "\v", "\f"]
ENDINGS = ["\n", "\n", "\r\n", "\r"]
BOMS = [b"", b"", b"", b"\xef\xbb\xbf", b"\xef\xbb", b"\xef", b"\xef\x11\xbf"]


#: A usage statement's members: mostly the labels and values of both
#: kinds (so that one of the two kinds reads them), sometimes members from
#: a wider alphabet: an earlier draft's label, Cloudflare's "use", and junk
#: that is not a Structured Fields Dictionary (upper case, a bare path, "=").
USAGE_LABELS = {
    "usage": ["train-ai", "ai-use", "search"],
    "signal": ["ai-train", "search", "ai-input"],
}
USAGE_TOKENS = {"usage": ["=y", "=n"], "signal": ["=yes", "=no"]}
USAGE_KEYS = [
    "train-ai",
    "ai-use",
    "search",
    "ai-train",
    "ai-input",
    "use",
    "tdm",
    "Train-AI",
    "*.pdf",
]
USAGE_VALUES = ["=y", "=n", "=yes", "=no", "=N", "=No", '="n"', "=?1", "=(y)", "", ";q=1", "="]
USAGE_SEPARATORS = [", ", ", ", ",", " , ", "\t,", " "]


def usage_statements(kind: str = "usage") -> st.SearchStrategy[str]:
    """A Content-Usage (``kind`` ``"usage"``) or Content-Signal
    (``"signal"``) statement, valid or not (U-3)."""

    def member(keys: list[str], values: list[str]) -> st.SearchStrategy[str]:
        return st.builds(lambda k, v: k + v, st.sampled_from(keys), st.sampled_from(values))

    good = member(USAGE_LABELS[kind], USAGE_TOKENS[kind])
    return st.builds(
        lambda members, seps: "".join(m + s for m, s in zip(members, seps, strict=False)).rstrip(
            ", \t"
        ),
        st.lists(good | good | member(USAGE_KEYS, USAGE_VALUES), max_size=4),
        st.lists(st.sampled_from(USAGE_SEPARATORS), min_size=4, max_size=4),
    )


def usage_values(kind: str = "usage") -> st.SearchStrategy[str]:
    """A usage line's value: an optional path, then a statement (U-2)."""
    path = (
        st.just("")
        | st.sampled_from(["/", "/a", "/a*", "/ab", "/*.pdf$", "/%41", "/é", "/foo/"])
        | st.builds(lambda v: "/" + v, _value(False))
    )
    return st.builds(
        lambda p, ws, statement: p + ws + statement if p else statement,
        path,
        st.sampled_from([" ", "\t", "  "]),
        usage_statements(kind),
    )


@dataclass(frozen=True)
class Line:
    kind: str  # user-agent, allow, disallow, sitemap, other, blank, comment, garbage
    lead: str = ""
    key: str = ""
    sep: str = ""
    value: str = ""
    tail: str = ""
    comment: str = ""
    ending: str = "\n"

    def render(self, value: Callable[[Line], str] | None = None) -> bytes:
        text = value(self) if value is not None else self.value
        body = f"{self.lead}{self.key}{self.sep}{text}{self.tail}{self.comment}{self.ending}"
        return body.encode("utf-8", "surrogateescape")


def _value(raw: bool, url: bool = False) -> st.SearchStrategy[str]:
    pieces = PIECES + (RAW_PIECES + ([] if url else RAW_BYTES) if raw else [])
    return st.lists(st.sampled_from(pieces), max_size=6).map("".join)


def pattern_values(raw: bool) -> st.SearchStrategy[str]:
    return st.one_of(
        st.builds(lambda v: "/" + v, _value(raw)),
        _value(raw),
        st.sampled_from(["", "/", "*", "/$", "$", "/*", "/*$"]),
    )


@st.composite
def lines(draw: st.DrawFn, raw: bool, kind: str | None = None) -> Line:
    if kind is None:
        kind = draw(st.sampled_from([*KEYS, "blank", "comment", "garbage"]))
    ending = draw(st.sampled_from(ENDINGS))
    if kind == "blank":
        return Line(kind, lead=draw(st.sampled_from(WS)), ending=ending)
    if kind == "comment":
        return Line(
            kind, lead=draw(st.sampled_from(WS)), comment="# " + draw(_value(False)), ending=ending
        )
    if kind == "garbage":
        # One token without a colon, or three tokens: never a directive.
        words = draw(
            st.sampled_from(["garbage", "<html>", "a b c", "Disallow / x", "user agent x"])
        )
        return Line(kind, value=words, ending=ending)
    key = draw(st.sampled_from(KEYS[kind]))
    if kind == "user-agent":
        value = draw(st.sampled_from(AGENTS))
    elif kind in ("allow", "disallow"):
        value = draw(pattern_values(raw))
    elif kind == "usage":
        value = draw(usage_values("signal" if "signal" in key.lower() else "usage"))
    elif kind == "sitemap":
        value = draw(
            st.sampled_from(["https://example.com/sitemap.xml", "/relative.xml", "http://x/s"])
        )
    else:
        value = draw(st.sampled_from(["5", "1.5", "abc", "example.com", ""]))
    sep = draw(st.sampled_from(SEPARATORS))
    if sep == " " and (not value or " " in value or "\t" in value or " " in key):
        sep = ":"
    return Line(
        kind,
        lead=draw(st.sampled_from(WS)),
        key=key,
        sep=sep,
        value=value,
        tail=draw(st.sampled_from(WS)),
        comment=draw(st.sampled_from(["", "", "#", " # note", "#x:y"])),
        ending=ending,
    )


@st.composite
def _group(draw: st.DrawFn, raw: bool) -> list[Line]:
    """User-agent lines, then rules, with other lines mixed in (GRP-1, GRP-2)."""
    agents = draw(st.lists(lines(raw, "user-agent"), min_size=1, max_size=3))
    rules = draw(st.lists(lines(raw, "allow") | lines(raw, "disallow"), max_size=5))
    body = agents + rules
    for _ in range(draw(st.integers(0, 2))):
        body.insert(draw(st.integers(0, len(body))), draw(lines(raw)))
    return body


@dataclass(frozen=True)
class RobotsFile:
    bom: bytes
    lines: tuple[Line, ...]

    def render(self, value: Callable[[Line], str] | None = None) -> bytes:
        return self.bom + b"".join(line.render(value) for line in self.lines)


def usage_as_rules(robots: RobotsFile) -> RobotsFile:
    """``robots`` with each usage line made an empty ``Disallow:``, a rule
    that matches nothing and ends a user-agent list (D-19): how rfc mode
    groups usage lines (U-1 revised), in a file Google's parser reads so."""
    return RobotsFile(
        robots.bom,
        tuple(
            Line("disallow", key="Disallow", sep=":", value="", ending=line.ending)
            if line.kind == "usage"
            else line
            for line in robots.lines
        ),
    )


def robots_files(raw: bool = True) -> st.SearchStrategy[RobotsFile]:
    """Whole files: groups, agents, typos, wildcards, escapes, odd
    whitespace, CR/LF mixes, BOMs and (with ``raw``) non-UTF-8 bytes."""
    return st.builds(
        lambda bom, prelude, groups: RobotsFile(
            bom, tuple(prelude + [x for g in groups for x in g])
        ),
        st.sampled_from(BOMS),
        st.lists(lines(raw), max_size=2),
        st.lists(_group(raw), max_size=4),
    )


def url_paths(raw: bool = True) -> st.SearchStrategy[str]:
    tail = st.sampled_from(["", "", "#frag", "?q=1", "?a=b#c", ";p", "$", "*", "?"])
    return st.builds(lambda v, t: "/" + v + t, _value(raw, url=True), tail)


def urls(raw: bool = True) -> st.SearchStrategy[str]:
    return st.builds(
        lambda base, path: base + path,
        st.sampled_from(["http://example.com", "https://example.com:8080", "http://a.b"]),
        url_paths(raw),
    )


def _url_from_pattern(pattern: str, fill: str, suffix: str) -> str:
    path = pattern.replace("$", "", 1) if pattern.endswith("$") else pattern
    path = path.replace("*", fill)
    # URLs carry characters, not raw bytes: a raw byte stands for Latin-1.
    path = path.encode("utf-8", "surrogateescape").decode("latin-1")
    if not path.startswith("/"):
        path = "/" + path
    return path + suffix


@st.composite
def cases(draw: st.DrawFn, raw: bool = True) -> tuple[RobotsFile, str, str]:
    """A file, a crawler token and a URL, the URL usually built from one of
    the file's own patterns so that rules match and precedence matters."""
    robots = draw(robots_files(raw))
    # Crawler tokens are [A-Za-z_-]+ (RFC 9309 §2.2.1): the leading run of a
    # user-agent value of the file, so that its group applies.
    named = [
        re.match(r"[A-Za-z_-]*", line.value).group()
        for line in robots.lines  # type: ignore[union-attr]
        if line.kind == "user-agent"
    ]
    named = [n for n in named if n]
    crawler = draw(st.sampled_from(named or CRAWLERS) | st.sampled_from(CRAWLERS))
    patterns = [line.value for line in robots.lines if line.kind in ("allow", "disallow")]
    if patterns and draw(st.booleans() | st.just(True)):
        url = "http://example.com" + _url_from_pattern(
            draw(st.sampled_from(patterns)),
            draw(st.sampled_from(["", "a", "/x/", "foo"])),
            draw(st.sampled_from(["", "", "a", "/", "?q", "#f", ".html"])),
        )
    else:
        url = draw(urls(raw))
    return robots, crawler, url


@st.composite
def usage_cases(draw: st.DrawFn, raw: bool = True) -> tuple[RobotsFile, str, str]:
    """:func:`cases` with one to three usage lines more, each anywhere: in
    the preamble or in any group (U-1)."""
    robots, crawler, url = draw(cases(raw))
    body = list(robots.lines)
    for _ in range(draw(st.integers(1, 3))):
        body.insert(draw(st.integers(0, len(body))), draw(lines(raw, "usage")))
    return RobotsFile(robots.bom, tuple(body)), crawler, url


#: Caller names that are not product tokens: digits, spaces, '*', empty,
#: non-ASCII, versions and whole User-Agent headers (D-21).
ODD_CALLERS = [
    "",
    "*",
    " ",
    "008",
    "8bot",
    "80legs",
    "AB42bot",
    "Foo Bar",
    " googlebot",
    "googlebot ",
    "FooBot/1.0",
    "BarBot/1.0",
    "bingbot/2.0",
    "*bot",
    "foo*",
    "\u212a",  # KELVIN SIGN: lower-cases to "k" outside ASCII only
    "UnicödeBöt",
    "FooBot\x00",
    "Mozilla/5.0 (compatible; FooBot/1.0; +http://example.com/bot)",
    "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
]


@st.composite
def any_caller_cases(draw: st.DrawFn) -> tuple[RobotsFile, str, str]:
    """:func:`cases`, with the caller's name drawn from arbitrary text, the
    odd names above, and the file's own user-agent values verbatim."""
    robots, crawler, url = draw(cases())
    values = [line.value for line in robots.lines if line.kind == "user-agent"]
    text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12)
    caller = draw(
        st.sampled_from(ODD_CALLERS)
        | text
        | st.sampled_from(values or ODD_CALLERS)
        | st.builds(
            lambda v, s: v + s, st.sampled_from(values or ["x"]), st.sampled_from(["2", "/1", " x"])
        )
        | st.just(crawler)
    )
    return robots, caller, url
