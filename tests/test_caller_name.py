"""The caller's name selects the group (DECISIONS.md D-7, D-8, D-21).

The name passed to ``allowed`` / ``for_agent`` is compared as given, never
shortened. ``google`` mode does exactly what Google's parser does with the
string (every google row is also asked of ``jwm.robotstxt``); ``rfc`` mode
also binds a line's whole product name, and gives ``*`` and ``""`` the
global groups only.
"""

from __future__ import annotations

import pytest
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt, product_token
from scrapy_robots_rfc.agents import agent_product, ascii_lower, name_problem

#: A named group that disallows /named, and the global one that disallows
#: /global: which of the two paths is blocked tells which group applied.
STAR = "User-agent: *\nDisallow: /global\n"


def _body(agent_line: str) -> bytes:
    return f"User-agent: {agent_line}\nDisallow: /named\n\n{STAR}".encode()


#: (line value, caller's name, group in rfc mode, group in google mode):
#: "named" is the file's named group, "*" the global one.
NAMES = [
    # Issue 9, item 1: "*" and names starting with a digit took the group of
    # a line whose token is empty.
    ("008", "*", "*", "*"),
    ("008", "", "*", "named"),  # google: "" equals the empty run (UA-7)
    ("008", "008", "named", "*"),  # rfc: the whole product name binds
    ("80legs", "8bot", "*", "*"),
    ("360Spider", "360Spider", "named", "*"),
    ("360Spider", "360spider", "named", "*"),
    ("*bot", "", "*", "named"),
    ("*bot", "*", "*", "*"),
    # Item 2: names with digits are not cut to their letters.
    ("Rule2Bot", "Rule1Bot", "*", "*"),
    ("Rule2Bot", "Rule", "named", "named"),  # the line's token is "rule"
    ("MJ12bot", "MJ12bot", "named", "*"),
    ("MJ12bot", "mj12BOT", "named", "*"),
    ("MJ12bot/1.5", "MJ12bot", "named", "*"),
    ("MJ12bot", "MJ", "named", "named"),
    ("MJ12bot", "MJ13bot", "*", "*"),
    ("AB42bot", "AB42bot", "named", "*"),
    ("AB42bot", "AB", "named", "named"),
    # Item 3: the string is compared verbatim.
    ("Foo Bar", "Foo Bar", "*", "*"),
    ("Foo Bar", "Foo", "named", "named"),
    ("Googlebot", " googlebot", "*", "*"),
    ("Googlebot", "googlebot ", "*", "*"),
    ("Googlebot", "GOOGLEBOT", "named", "named"),
    ("bingbot", "bingbot/2.0", "*", "*"),
    ("bingbot/2.0", "bingbot", "named", "named"),
    ("ExampleBot", "Mozilla/5.0 (compatible; ExampleBot/1.0)", "*", "*"),
    ("Mozilla", "Mozilla/5.0 (compatible; ExampleBot/1.0)", "*", "*"),
    # Case-insensitive in ASCII only (UA-2): KELVIN SIGN is not "k".
    ("k", "\u212a", "*", "*"),
    ("k", "K", "named", "named"),
    ("UnicödeBöt", "UnicödeBöt", "named", "*"),  # google: the line's token is "Unic"
    ("UnicödeBöt", "Unic", "named", "named"),
    ("Googlebot-Image", "Googlebot", "*", "*"),  # UA-4: equality, not prefix
    ("foo_bar-baz", "FOO_BAR-BAZ", "named", "named"),
    ("", "", "*", "named"),  # an empty value: its token is empty
]


def _group(body: bytes, name: str, mode: str) -> str:
    rules = RobotsTxt.parse(body, mode).for_agent(name)  # type: ignore[arg-type]
    return "*" if rules.agents == ("*",) else "named"


def _google(body: bytes, name: str) -> str:
    """The group Google's parser applies, read off its verdicts."""
    blocked = not RobotsMatcher().OneAgentAllowedByRobots(body, name, "http://e.com/named")
    return "named" if blocked else "*"


@pytest.mark.parametrize(("line", "name", "rfc", "google"), NAMES)
def test_the_name_selects_the_group(line: str, name: str, rfc: str, google: str) -> None:
    body = _body(line)
    assert _google(body, name) == google  # the table agrees with the reference
    assert _group(body, name, "google") == google
    assert _group(body, name, "rfc") == rfc
    for mode, group in (("rfc", rfc), ("google", google)):
        robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
        assert robots.allowed("http://e.com/named", name) is (group == "*")
        assert robots.allowed("http://e.com/global", name) is (group != "*")


def test_issue_example() -> None:
    body = b"User-agent: 008\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"
    for mode in ("rfc", "google"):
        robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
        assert robots.allowed("https://example.com/public", "*") is True
        assert robots.allowed("https://example.com/private", "*") is False


def test_google_up_to_first_space() -> None:
    """Google's own unit test GoogleOnly_AcceptUserAgentUpToFirstSpace, in
    our words: the line ``Foo Bar`` is read as ``Foo``; the caller's
    ``Foo Bar`` is not."""
    body = b"User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
    for mode in ("rfc", "google"):
        robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
        assert robots.allowed("http://foo.bar/x/y", "Foo") is True
        assert robots.allowed("http://foo.bar/x/y", "Foo Bar") is False


def test_merged_groups_of_one_name() -> None:
    """GRP-4: every group naming the crawler counts, whichever way it names
    it; a group's ``*`` line does not make it global (GRP-8)."""
    body = (
        b"User-agent: MJ12bot\nDisallow: /a\n\n"
        b"User-agent: mj12bot/1.4\nDisallow: /b\n\n"
        b"User-agent: *\nUser-agent: MJ12bot\nDisallow: /c\n\n"
        b"User-agent: *\nDisallow: /d\n"
    )
    robots = RobotsTxt.parse(body)
    assert [robots.allowed(f"http://e.com/{p}", "MJ12bot") for p in "abcd"] == [
        False,
        False,
        False,
        True,
    ]
    assert robots.for_agent("MJ12bot").agents == ("MJ12bot", "mj12bot/1.4", "*", "MJ12bot")


@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_star_without_a_global_group(mode: str) -> None:
    robots = RobotsTxt.parse(b"User-agent: FooBot\nDisallow: /\n", mode)  # type: ignore[arg-type]
    assert robots.allowed("http://e.com/x", "*") is True
    explained = robots.explain("http://e.com/x", "*")
    assert explained.agents == ()
    assert explained.reason == "there is no '*' group"
    assert robots.explain("http://e.com/x", "Other").reason == (
        "no group names 'Other' and there is no '*' group"
    )


def test_explain_keeps_the_name_as_given() -> None:
    robots = RobotsTxt.parse(b"User-agent: MJ12bot\nDisallow: /\n")
    explained = robots.explain("http://e.com/x", "MJ12Bot")
    assert explained.user_agent == "MJ12Bot"
    assert explained.agents == ("MJ12bot",)
    assert explained.allowed is False


def test_bytes_names_are_utf8() -> None:
    body = "User-agent: UnicödeBöt\nDisallow: /\n".encode()
    robots = RobotsTxt.parse(body)
    assert robots.allowed("http://e.com/x", "UnicödeBöt".encode()) is False
    assert robots.allowed("http://e.com/x", b"MJ12bot") is True


@pytest.mark.parametrize(
    ("header", "token"),
    [
        ("FooBot", "FooBot"),
        ("FooBot/1.2 (+http://example.com/bot)", "FooBot"),
        ("  FooBot/1.2", "FooBot"),
        (b"FooBot/1.0", "FooBot"),
        ("MJ12bot/v1.4.8 (http://mj12bot.com/)", "MJ12bot"),
        ("360Spider", "360Spider"),
        ("Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)", "Googlebot"),
        (
            "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; bingbot/2.0; "
            "+http://www.bing.com/bingbot.htm) Chrome/116.0.1938.76 Safari/537.36",
            "bingbot",
        ),
        ("Mozilla/5.0 (X11; Linux x86_64; rv:128.0) Gecko/20100101 Firefox/128.0", "*"),
        ("mozilla", "*"),
        ("Scrapy/2.19 (+https://scrapy.org)", "Scrapy"),
        ("Foo Bar", "Foo"),
        ("Foo_Bot-x9", "Foo_Bot-x9"),
        ("*", "*"),
        ("", "*"),
        ("   ", "*"),
        ("(compatible)", "*"),
        # Real headers (review of issue 9): the first product unless a
        # browser's, then "compatible; Name/1.0", then a comment's first.
        ("LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://x)", "LinkedInBot"),
        ("Mozilla/5.0 (compatible; Linux x86_64; Mail.RU_Bot/2.0; +http://x/)", "Mail.RU_Bot"),
        ("Mozilla/5.0 (compatible; MSIE 10.0; Windows NT 6.1; Trident/6.0)", "*"),
        ("Mozilla/5.0 (compatible; +http://example.com/bot)", "*"),
        ("Mozilla/5.0 (compatible; Yahoo! Slurp; http://help.yahoo.com/slurp)", "*"),
        (
            "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_5) AppleWebKit/605.1.15 (KHTML, like "
            "Gecko) Version/13.1.1 Safari/605.1.15 (Applebot/0.1; +http://www.apple.com/go/applebot)",
            "Applebot",
        ),
        (
            "Mozilla/5.0 (Linux; Android 6.0.1; Nexus 5X Build/MMB29P) AppleWebKit/537.36 (KHTML, "
            "like Gecko) Chrome/120.0 Mobile Safari/537.36 (compatible; Googlebot/2.1; "
            "+http://www.google.com/bot.html)",
            "Googlebot",
        ),
        (
            "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) "
            "Chrome/120.0.0.0 Safari/537.36",
            "*",
        ),
        ("CCBot/2.0 (https://commoncrawl.org/faq/)", "CCBot"),
        ("Googlebot-Image/1.0", "Googlebot-Image"),
    ],
)
def test_product_token_of_a_header(header: str | bytes, token: str) -> None:
    """DECISIONS.md "crawler name": the product that names the crawler,
    never ``Mozilla``, never cut to its letters."""
    assert product_token(header) == token


def test_header_through_product_token() -> None:
    body = b"User-agent: ExampleBot\nDisallow: /\n\nUser-agent: Mozilla\nDisallow: /m\n"
    robots = RobotsTxt.parse(body)
    header = "Mozilla/5.0 (compatible; ExampleBot/1.0)"
    assert robots.allowed("http://e.com/x", header) is True  # a header is no name
    assert robots.allowed("http://e.com/x", product_token(header)) is False


@pytest.mark.parametrize(
    ("value", "product"),
    [
        ("MJ12bot/1.0", "mj12bot"),
        ("Foo Bar", "foo"),
        ("Foo\tBar", "foo"),
        ("008", "008"),
        ("Ä/1", "Ä"),
        ("KBot", "kbot"),
    ],
)
def test_agent_product(value: str, product: str) -> None:
    assert agent_product(value) == product


def test_ascii_lower() -> None:
    assert ascii_lower("ÄBC\u212a") == "Äbc\u212a"
    assert ascii_lower("FooBot") == "foobot"


@pytest.mark.parametrize(
    ("name", "mode", "expected"),
    [
        ("FooBot", "rfc", None),
        ("Foo_Bot-x", "google", None),
        ("*", "rfc", "names no crawler, so only the 'User-agent: *' groups apply to it"),
        ("*", "google", "names no crawler, so only the 'User-agent: *' groups apply to it"),
        ("", "rfc", "names no crawler, so only the 'User-agent: *' groups apply to it"),
        (
            "",
            "google",
            "is empty; google mode gives it the groups whose user-agent line has no token "
            "(such as 'User-agent: 008'), as Google's parser does, else the 'User-agent: *' "
            "groups",
        ),
        (
            "MJ12bot",
            "rfc",
            "is not a product token ([A-Za-z_-]+): only groups whose user-agent line names "
            "exactly 'MJ12bot' apply to it ('User-agent: MJ12bot' or 'MJ12bot/2.0', in any "
            "case), never a group named by a part of it such as 'MJ'; without one, the "
            "'User-agent: *' groups apply",
        ),
        (
            "360Spider",
            "rfc",
            "is not a product token ([A-Za-z_-]+): only groups whose user-agent line names "
            "exactly '360Spider' apply to it ('User-agent: 360Spider' or '360Spider/2.0', in "
            "any case); without one, the 'User-agent: *' groups apply",
        ),
        (
            "MyBot/1.0",
            "rfc",
            "is not a product token ([A-Za-z_-]+) and holds a '/', space or tab, which no "
            "user-agent line's product name holds, so only the 'User-agent: *' groups apply "
            "to it",
        ),
        (
            "MJ12bot",
            "google",
            "is not a product token ([A-Za-z_-]+); google mode compares it verbatim with "
            "each user-agent line's token, which never holds other characters, so no group "
            "for a crawler applies to it, not even 'User-agent: MJ12bot'; only the "
            "'User-agent: *' groups do",
        ),
    ],
)
def test_name_problem(name: str, mode: str, expected: str | None) -> None:
    assert name_problem(name, mode) == expected  # type: ignore[arg-type]


@pytest.mark.parametrize(("name", "mode"), [("MJ12bot", "rfc"), ("MyBot/1.0", "rfc")])
def test_name_problem_tells_the_truth(name: str, mode: str) -> None:
    """What the warning says a name matches is what the parser does."""
    body = _body(name)
    expected = "named" if "exactly" in (name_problem(name, mode) or "") else "*"  # type: ignore[arg-type]
    assert _group(body, name, mode) == expected
    prefix = "MJ" if name.startswith("MJ") else "MyBot"
    assert _group(_body(prefix), name, mode) == "*"
