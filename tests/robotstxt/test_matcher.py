"""The match string, percent-encoding, ``*``/``$`` and precedence
(docs/spec-ids.md: PATH, URL, ENC)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jwm.robotstxt.googlebot import RobotsMatcher
from w3lib.url import safe_url_string

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt._canonical import (
    URI_ILLEGAL,
    canonical_match_string,
    escape_pattern,
    escaped_path,
    http_path,
    match_string,
    pattern_clean,
)
from scrapy_robots_rfc.robotstxt._matcher import AgentRules
from scrapy_robots_rfc.robotstxt._patterns import Rule
from scrapy_robots_rfc.robotstxt._rule_tree import precedence, precedence_weight

from ..conftest import verdict_both_ways


# URL-1..URL-4: robots_test TestGetPathParamsQuery.
@pytest.mark.parametrize(
    ("url", "path"),
    [
        ("", "/"),
        ("http://www.example.com", "/"),
        ("http://www.example.com/", "/"),
        ("http://www.example.com/a", "/a"),
        ("http://www.example.com/a/", "/a/"),
        ("http://www.example.com/a/b?c=http://d.e/", "/a/b?c=http://d.e/"),
        ("http://www.example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("example.com", "/"),
        ("example.com/", "/"),
        ("example.com/a", "/a"),
        ("example.com/a/", "/a/"),
        ("example.com/a/b?c=d&e=f#fragment", "/a/b?c=d&e=f"),
        ("a", "/"),
        ("a/", "/"),
        ("/a", "/a"),
        ("a/b", "/b"),
        ("example.com?a", "/?a"),
        ("example.com/a;b#c", "/a;b"),
        ("//a/b/c", "/b/c"),
        ("http://e.com#x/y", "/"),
        ("http://e.com?q#f", "/?q"),
        ("http://e.com;p=1", "/;p=1"),
        ("http://user:pw@e.com:8080/p?q", "/p?q"),
    ],
)
def test_match_string(url: str, path: str) -> None:
    assert match_string(url) == path
    assert canonical_match_string(url, "google") == path
    assert canonical_match_string(url, "rfc") == path


# ENC-1: robots_test TestMaybeEscapePattern, and robots.cc's rules.
@pytest.mark.parametrize(
    ("value", "google"),
    [
        (b"http://www.example.com", "http://www.example.com"),
        (b"/a/b/c", "/a/b/c"),
        ("á".encode(), "%C3%A1"),
        (b"%aa", "%AA"),
        (b"/SanJos\xc3\xa9Sellers", "/SanJos%C3%A9Sellers"),
        (b"/\xe9", "/%E9"),  # Latin-1 byte, escaped as is (FMT-2)
        (b"/a b", "/a b"),  # space is not escaped (FMT-7)
        (b"/%7e%2f%", "/%7E%2F%"),
        (b"/%zz", "/%zz"),
    ],
)
def test_google_escape(value: bytes, google: str) -> None:
    assert escape_pattern(value, "google") == google


# ENC-6, D-2, D-3: the rfc canonical form, the same on both sides.
@pytest.mark.parametrize(
    ("raw", "canonical"),
    [
        ("/foo/bar?baz=quz", "/foo/bar?baz=quz"),
        ("/foo/bar/ツ", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%e3%83%84", "/foo/bar/%E3%83%84"),
        ("/foo/bar/%62%61%7A", "/foo/bar/baz"),
        ("/%7e/%7E/~", "/~/~/~"),
        ("/a%2Fb", "/a%2Fb"),  # reserved escapes are kept (ENC-5)
        ("/a%2fb", "/a%2Fb"),
        ("/a b", "/a%20b"),
        ("/a\tb", "/a%09b"),
        ("/a\x7f", "/a%7F"),
        ("/%41%5A%61%7A%30%39%2D%2E%5F", "/AZaz09-._"),
        ("/%25", "/%25"),  # an escaped '%' stays escaped: no double decoding
        ("/%", "/%"),
        ("/%zz", "/%zz"),
        # D-2: the characters a URI never holds raw are %-encoded.
        ('/"<>', "/%22%3C%3E"),
        ("/a|b", "/a%7Cb"),
        ("/a%7cb", "/a%7Cb"),
        ("/{x}^`\\", "/%7Bx%7D%5E%60%5C"),
        ("/[x]", "/[x]"),  # '[' and ']' are reserved: kept
    ],
)
def test_rfc_canonical_form(raw: str, canonical: str) -> None:
    assert escape_pattern(raw.encode(), "rfc") == canonical
    assert canonical_match_string("http://e.com" + raw, "rfc") == canonical


@pytest.mark.parametrize("code", range(0x80))
def test_each_ascii_character_of_a_url_is_kept_or_escaped(code: int) -> None:
    """ENC-6, D-2, D-3: printable ASCII is kept, except what a URI never
    holds raw and a literal '*' or '$'; the rest is %-escaped, on the fast
    path (a clean URL) and the general one (the same URL with an escape)."""
    char = chr(code)
    kept = 0x21 <= code <= 0x7E and char not in URI_ILLEGAL + "*$"
    shown = char if kept else f"%{code:02X}"
    # The fragment is not matched (URL-3).
    expected = ["/a", "/~"] if char == "#" else [f"/a{shown}b", f"/~{shown}b"]
    got = [
        canonical_match_string(f"http://e.com/a{char}b", "rfc"),
        canonical_match_string(f"http://e.com/%7e{char}b", "rfc"),
    ]
    assert got == expected


# D-2, issue 9: rules with URI-illegal characters match the URLs Scrapy
# sends (w3lib's safe_url_string %-encodes them) and the raw forms alike.
URI_ILLEGAL_RULES = [
    ("*|*", "/a|b", "/a%7Cb", "/ab"),
    (
        "/shop/Sort|style=List*",
        "/shop/Sort|style=List&x=1",
        "/shop/Sort%7cstyle=List",
        "/shop/Sort",
    ),
    ("/a^b", "/a^b", "/a%5Eb", "/a%5E"),
    ('/q"x"', '/q"x"', "/q%22x%22", "/q%22"),
    ("/{id}", "/{id}", "/%7Bid%7D", "/id"),
    ("/a%7Cb", "/a|b", "/a%7cb", "/a"),
]


@pytest.mark.parametrize(("pattern", "raw", "encoded", "other"), URI_ILLEGAL_RULES)
def test_uri_illegal_characters_match_raw_and_encoded(
    pattern: str, raw: str, encoded: str, other: str
) -> None:
    robots = RobotsTxt.parse(f"User-agent: *\nDisallow: {pattern}\n".encode())
    base = "https://example.com"
    for path in (raw, encoded, safe_url_string(base + raw)[len(base) :]):
        assert robots.allowed(base + path, "FooBot") is False, path
    assert robots.allowed(base + other, "FooBot") is True


def test_rfc_url_escapes_literal_star_and_dollar() -> None:
    # RFC 9309 §2.2.3: '*' and '$' in a URL are matched by %2A and %24.
    assert canonical_match_string("http://e.com/a*b$", "rfc") == "/a%2Ab%24"
    assert canonical_match_string("http://e.com/a*b$", "google") == "/a*b$"
    assert escape_pattern(b"/a*b$", "rfc") == "/a*b$"
    assert escape_pattern(b"/a%2ab%24", "rfc") == "/a%2Ab%24"
    # A '$' that is not the last character is a literal, like the URL's.
    assert escape_pattern(b"/a$b$", "rfc") == "/a%24b$"
    assert escape_pattern(b"/$$", "rfc") == "/%24$"


def test_url_as_bytes() -> None:
    assert canonical_match_string(b"http://e.com/caf\xc3\xa9", "rfc") == "/caf%C3%A9"
    assert canonical_match_string(b"http://e.com/\xe9", "rfc") == "/%E9"
    assert canonical_match_string(b"http://e.com/a%2f", "google") == "/a%2f"


def test_url_with_lone_surrogate_never_raises() -> None:
    assert canonical_match_string("http://e.com/\ud800", "rfc") == "/%ED%A0%80"


_UNRESERVED = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
_HEX_DIGITS = frozenset("0123456789ABCDEFabcdef")


def _enc6(path: str) -> str:
    """ENC-6 of a match string, written plainly as one left-to-right pass:
    an escape of an unreserved character decoded, any other escape
    upper-cased, printable ASCII kept but for URI_ILLEGAL and a literal '*'
    or '$', anything else %-encoded byte by byte (a surrogate escape as
    its byte). The reference the fast routes of canonical_match_string
    must equal."""
    out = []
    index = 0
    while index < len(path):
        char = path[index]
        digits = path[index + 1 : index + 3]
        if char == "%" and len(digits) == 2 and set(digits) <= _HEX_DIGITS:
            decoded = chr(int(digits, 16))
            out.append(decoded if decoded in _UNRESERVED else "%" + digits.upper())
            index += 3
            continue
        if "!" <= char <= "~" and char not in URI_ILLEGAL + "*$":
            out.append(char)
        else:
            try:
                data = char.encode("utf-8", "surrogateescape")
            except UnicodeEncodeError:
                data = char.encode("utf-8", "surrogatepass")
            out.append("".join(f"%{byte:02X}" for byte in data))
        index += 1
    return "".join(out)


#: Pieces of URL text: escapes (upper- and lower-case, of unreserved
#: characters and others, cut short) and safe ASCII, which keep a URL on
#: the fast route; raw characters that are escaped, non-ASCII, a fragment.
_ESCAPES = st.sampled_from(["%", "%2", "%7e", "%7E", "%41", "%2f", "%C3%A9", "%c3%a9", "%25"])
_SAFE = st.characters(
    min_codepoint=0x21, max_codepoint=0x7E, exclude_characters=URI_ILLEGAL + "*$#"
)
_RAW = st.one_of(
    st.sampled_from([*'#*$ |^`{}<>\\"\x7f\x00']),
    st.characters(codec="utf-8"),
    st.characters(max_codepoint=0x7F),
)
_URL_TEXT = st.one_of(
    st.lists(st.one_of(_ESCAPES, _SAFE), max_size=16),
    st.lists(st.one_of(_ESCAPES, _SAFE, _RAW), max_size=16),
).map("".join)


@settings(max_examples=500)
@given(
    st.sampled_from(["http://e.com", "https://e.com:8080", "HTTP://E.COM", "//e.com", "", "e.com"]),
    _URL_TEXT,
)
def test_rfc_match_string_is_enc6_of_the_google_one(base: str, rest: str) -> None:
    """ENC-6, D-2, D-3: whichever route a URL takes (clean, escapes only,
    raw characters, no scheme), ``rfc`` mode's match string is the
    canonical form of ``google`` mode's (the URL as given, URL-5)."""
    url = base + rest
    assert canonical_match_string(url, "rfc") == _enc6(canonical_match_string(url, "google"))
    data = url.encode("utf-8", "surrogatepass")
    assert canonical_match_string(data, "rfc") == canonical_match_string(
        data.decode("utf-8", "surrogateescape"), "rfc"
    )


@settings(max_examples=500)
@given(
    st.sampled_from(["http://e.com", "https://e.com:8080", "http://", "https://a?b", "http://a;b"]),
    _URL_TEXT,
)
def test_the_compiled_builds_route_is_the_regex_route(base: str, rest: str) -> None:
    """URL-1..4, ENC-6: the compiled build's loop over a http(s) URL
    (http_path, tried here in both builds) gives robots.cc's match
    string, canonical in rfc mode, or leaves the URL to the regexes."""
    url = base + rest
    expected = match_string(url)
    for rfc, wanted in ((False, expected), (True, _enc6(expected))):
        found = http_path(url, rfc)
        assert found is None or found == wanted, (url, rfc)
    assert escaped_path(expected) == _enc6(expected)


@given(_URL_TEXT)
def test_a_clean_pattern_is_printable_ascii_but_uri_illegal_and_percent(value: str) -> None:
    """ENC-6, D-2: the patterns rfc mode keeps as they are (the compiled
    build's loop, tried in both builds)."""
    clean = all("!" <= char <= "~" and char not in URI_ILLEGAL + "%" for char in value)
    assert pattern_clean(value) is clean


@given(
    st.lists(
        st.builds(
            Rule,
            st.booleans(),
            st.text("/a*$", max_size=6),
            st.integers(min_value=1, max_value=2**39),
        ),
        max_size=12,
    )
)
def test_the_precedence_weight_orders_as_the_precedence_key(rules: list[Rule]) -> None:
    """PATH-5, PATH-6: longest first, allow first on a tie, then the
    earliest line, whatever order the rules come in."""
    assert sorted(rules, key=precedence_weight, reverse=True) == sorted(rules, key=precedence)


# PATH-2, PATH-3, PATH-12: the wildcard tables of Google's documentation.
WILDCARDS = [
    (
        "/fish",
        ["/fish", "/fish.html", "/fish/salmon.html", "/fishheads", "/fish.php?id=anything"],
        ["/Fish.asp", "/catfish", "/?id=fish", "/desert/fish"],
    ),
    ("/fish*", ["/fish", "/fish.html", "/fishheads/yummy.html"], ["/Fish.asp", "/catfish"]),
    ("/fish/", ["/fish/", "/fish/?id=anything", "/fish/salmon.htm"], ["/fish", "/fish.html"]),
    (
        "/*.php",
        [
            "/index.php",
            "/filename.php",
            "/folder/filename.php?parameters",
            "/folder/any.php.file.html",
            "/filename.php/",
        ],
        ["/", "/windows.PHP"],
    ),
    (
        "/*.php$",
        ["/filename.php", "/folder/filename.php"],
        ["/filename.php?parameters", "/filename.php/", "/filename.php5", "/windows.PHP"],
    ),
    ("/fish*.php", ["/fish.php", "/fishheads/catfish.php?parameters"], ["/Fish.PHP"]),
    ("/", ["/", "/anything"], []),
    ("/*", ["/", "/anything"], []),
    ("/$", ["/"], ["/page.htm", "/?x"]),
    ("/a$b", ["/a$b", "/a$bc"], ["/a"]),  # '$' not at the end is literal
    ("*.gif$", ["/x.gif", "/a/b.gif"], ["/x.gif?x"]),  # D-6: no leading '/'
    ("foo", [], ["/foo", "foo"]),  # can never match (PATH-10)
    ("/a**b*", ["/ab", "/axxb", "/a/b/c"], ["/a", "/ba"]),
    ("/a*b*$", ["/ab", "/axbyy"], ["/a"]),
]


@pytest.mark.parametrize(("pattern", "matching", "not_matching"), WILDCARDS)
def test_wildcards(pattern: str, matching: list[str], not_matching: list[str]) -> None:
    body = f"user-agent: *\ndisallow: {pattern}\n".encode()
    robots = {mode: RobotsTxt.parse(body, mode) for mode in ("rfc", "google")}  # type: ignore[arg-type]
    for path in matching + not_matching:
        url = "http://example.com" + path
        expected = path not in matching
        google = bool(RobotsMatcher().OneAgentAllowedByRobots(body, "FooBot", url))
        assert (
            verdict_both_ways(robots["rfc"], url, "FooBot"),
            verdict_both_ways(robots["google"], url, "FooBot"),
            google,
        ) == (expected, expected, expected), path


# PATH-5, PATH-6: longest match in octets; allow wins a tie.
PRECEDENCE = [
    ("allow: /p\ndisallow: /\n", "/page", True),
    ("allow: /folder\ndisallow: /folder\n", "/folder/page", True),
    ("allow: /page\ndisallow: /*.htm\n", "/page.htm", False),
    ("allow: /page\ndisallow: /*.ph\n", "/page.php5", True),
    ("allow: /$\ndisallow: /\n", "/", True),
    ("allow: /$\ndisallow: /\n", "/page.htm", False),
    ("disallow: /x\nallow: /*x\n", "/x", True),  # '*' counts
    ("allow: /\xc3\xa9\ndisallow: /\xc3\xa9*\n", "/%C3%A9", False),  # 7 octets < 8
    ("disallow: /\nallow: /d/index.html\n", "/d/", True),  # PATH-9
    ("disallow: /\nallow: /d/index.htm\n", "/d/", True),
    ("disallow: /\nallow: /d/index.html\n", "/d/x", False),
    ("disallow: /\nallow: /d/Index.html\n", "/d/", False),
    ("disallow: /d/\ndisallow: /\nallow: /d/index.html\n", "/d/", True),
]


@pytest.mark.parametrize(("rules", "path", "allowed"), PRECEDENCE)
def test_precedence(rules: str, path: str, allowed: bool) -> None:
    body = ("user-agent: FooBot\n" + rules).encode("latin-1")
    url = "http://example.com" + path
    google = bool(RobotsMatcher().OneAgentAllowedByRobots(body, "FooBot", url))
    ours = RobotsTxt.parse(body, "google").allowed(url, "FooBot")
    assert (ours, google) == (allowed, allowed)


def test_rule_objects() -> None:
    rule = Rule(False, "/a*b$", 3)
    assert rule.kind == "disallow"
    assert rule.priority == 5
    assert rule.matches("/axxb")
    assert not rule.matches("/axxbc")
    assert str(rule) == "disallow: /a*b$ (line 3)"
    derived = Rule(True, "/d/$", 4, "/d/index.html")
    assert str(derived) == "allow: /d/$ (line 4), derived from allow: /d/index.html"


def test_agent_rules_precedence_order() -> None:
    rules = AgentRules(
        [Rule(False, "/a", 1), Rule(True, "/a", 2), Rule(False, "/abc", 3), Rule(True, "", 4)],
        token="x",
        agents=("x",),
        mode="google",
    )
    assert [r.line for r in rules.rules] == [3, 2, 1]  # the empty pattern never decides
    assert rules.decide("/a") == Rule(True, "/a", 2)
    assert rules.decide("/abcd") == Rule(False, "/abc", 3)
    assert rules.decide("/b") is None
    assert rules.allowed("http://e.com/abc") is False


def test_same_pattern_earliest_line_decides() -> None:
    # robots.cc keeps the first line that reaches a priority.
    body = b"user-agent: *\ndisallow: /a*\ndisallow: /ab\nallow: /a\n"
    explanation = RobotsTxt.parse(body).explain("http://e.com/ab", "x")
    assert explanation.rule == Rule(False, "/a*", 2)
    matcher = RobotsMatcher()
    assert not matcher.OneAgentAllowedByRobots(body, "x", "http://e.com/ab")
    assert matcher.matching_line() == 2


def test_adversarial_patterns_are_exact() -> None:
    # PATH-11: correct answers on inputs that make backtracking matchers
    # explode; their speed is measured by benchmarks/bench_matcher.py.
    stars = "/" + "a*" * 1000 + "b"
    url = "http://e.com/" + "a" * 8192
    body = f"user-agent: *\ndisallow: {stars}\n".encode()
    robots = RobotsTxt.parse(body)
    assert robots.allowed(url, "x") is True
    assert robots.allowed(url + "b", "x") is False
    anchored = "/" + "*a" * 500 + "$"
    body = f"user-agent: *\ndisallow: {anchored}\n".encode()
    robots = RobotsTxt.parse(body)
    assert robots.allowed(url, "x") is False
    assert robots.allowed(url + "b", "x") is True
    assert robots.allowed("http://e.com/" + "a" * 499, "x") is True


def test_deeply_nested_prefixes() -> None:
    # Past _MAX_TREE_DEPTH nested prefixes every rule is tried in one
    # alternation: the same answers, checked against Google's parser.
    lines = [f"{'allow' if i % 2 else 'disallow'}: /{'a' * i}" for i in range(1, 90)]
    lines += ["disallow: /a*b$", "allow: /aaaa*c"]
    body = ("user-agent: *\n" + "\n".join(lines) + "\n").encode()
    robots = RobotsTxt.parse(body, "google")
    for path in ["/", "/a", "/aa", "/aaab", "/aaaac", "/" + "a" * 50, "/" + "a" * 95 + "b", "/b"]:
        url = "http://e.com" + path
        google = bool(RobotsMatcher().OneAgentAllowedByRobots(body, "x", url))
        assert verdict_both_ways(robots, url, "x") is google, path


@settings(max_examples=500, deadline=None)
@given(
    st.text(alphabet="ab*$/", max_size=10).map(lambda s: "/" + s),
    st.text(alphabet="ab$/", max_size=14).map(lambda s: "/" + s),
)
def test_wildcard_matcher_equals_google(pattern: str, path: str) -> None:
    # The segment matcher against robots.cc's position-set algorithm.
    body = f"user-agent: *\ndisallow: {pattern}\n".encode()
    url = "http://e.com" + path
    google = bool(RobotsMatcher().OneAgentAllowedByRobots(body, "x", url))
    assert verdict_both_ways(RobotsTxt.parse(body, "google"), url, "x") is google
    assert Rule(False, pattern, 1).matches(path) is (not google)


_LITERALS = ["a", "ab", "abc", "b", "bc", ".html", ".htm", "x.html", "?q", "=", "/"]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["allow", "disallow"]),
            st.lists(st.sampled_from([*_LITERALS, "*"]), min_size=1, max_size=4).map("".join),
            st.sampled_from(["", "$"]),
        ),
        min_size=14,
        max_size=40,
    ),
    st.lists(st.sampled_from(_LITERALS), max_size=6).map(lambda parts: "/" + "".join(parts)),
)
def test_many_wildcard_rules_match_google(rules: list[tuple[str, str, str]], path: str) -> None:
    # Many '/*literal' rules: the scan indexes them by their literal's first
    # characters, and, compiled, a node looks for each rule's required
    # literal first; neither may change the verdict or the deciding line.
    lines = "".join(f"{kind}: /*{body}{end}\n" for kind, body, end in rules)
    body = ("user-agent: *\n" + lines).encode()
    url = "http://e.com" + path
    matcher = RobotsMatcher()
    google = bool(matcher.OneAgentAllowedByRobots(body, "x", url))
    robots = RobotsTxt.parse(body, "google")
    explanation = robots.explain(url, "x")
    assert explanation.allowed is google
    if explanation.rule is not None:
        assert explanation.rule.line == matcher.matching_line()
    assert verdict_both_ways(robots, url, "x") is google


_PIECES = ["", "/", "a", "ab", "abc", ".php", "x/y", "?", "=", "*", "**", "$", "%7E", "é"]


@settings(max_examples=400, deadline=None)
@given(
    st.lists(
        st.tuples(st.booleans(), st.lists(st.sampled_from(_PIECES), max_size=5).map("".join)),
        max_size=40,
    ),
    st.lists(st.sampled_from(_PIECES), max_size=8).map(lambda parts: "/" + "".join(parts)),
    st.sampled_from(["rfc", "google"]),
)
def test_the_scan_finds_the_first_matching_rule_in_precedence_order(
    rules: list[tuple[bool, str]], path: str, mode: str
) -> None:
    """PATH-5, PATH-6: chunks, required segments and the index of '/*'
    rules are shortcuts; the answer is the first rule, in precedence order,
    whose pattern matches (:func:`pattern_matches`, the plain reading)."""
    body = "User-agent: *\n" + "".join(
        f"{'Allow' if allow else 'Disallow'}: {value}\n" for allow, value in rules
    )
    agent = RobotsTxt.parse(body, mode).for_agent("x")  # type: ignore[arg-type]
    match = canonical_match_string("http://e.com" + path, mode)  # type: ignore[arg-type]
    expected = next((rule for rule in agent.rules if rule.matches(match)), None)
    assert agent.scan(match) == expected
    assert agent.scan(match + match) == next(
        (rule for rule in agent.rules if rule.matches(match + match)), None
    )


def test_names_that_select_the_same_groups_share_one_rule_set() -> None:
    robots = RobotsTxt.parse(b"User-agent: *\nDisallow: /private\n\nUser-agent: a\nDisallow: /\n")
    first, second, named = (robots.for_agent(name) for name in ("b", "c", "a"))
    assert (first.token, second.token, named.token) == ("b", "c", "a")
    assert second.rules is first.rules
    assert named.rules is not first.rules
    assert [r.allowed("http://e.com/private/x") for r in (first, second, named)] == [
        False,
        False,
        False,
    ]
    assert [r.allowed("http://e.com/public") for r in (first, second, named)] == [
        True,
        True,
        False,
    ]
    second.compile()
    assert first.decide("/private") == Rule(False, "/private", 2)
    assert robots.explain("http://e.com/x", "c").user_agent == "c"
