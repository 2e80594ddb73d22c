"""The caller's name selects the group (D-7, D-8, D-21, D-22).

``google`` mode does exactly what Google's parser does with the string
(every google row is also asked of ``jwm.robotstxt``). ``rfc`` mode reduces
a name that is not a product token to the crawler's product name, as a
User-Agent header is (``BadBot/1.0`` -> ``BadBot``), never to its letters
(``MJ12bot`` stays whole), also binds a line's whole product name, and
gives ``*`` and ``""`` the global groups only. A list of names is a crawler
family, most specific first (D-22).
"""

from __future__ import annotations

import pytest
from jwm.robotstxt.googlebot import RobotsMatcher

from scrapy_robots_rfc import RobotsTxt, product_token
from scrapy_robots_rfc.robotstxt._names import (
    agent_product,
    ascii_lower,
    crawler_names,
    name_problem,
)

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
    # Item 3: google mode compares the string verbatim; rfc mode reduces a
    # name that is not a product token to its product name (D-21 revised).
    ("Foo Bar", "Foo Bar", "named", "*"),
    ("Foo Bar", "Foo", "named", "named"),
    ("Googlebot", " googlebot", "named", "*"),
    ("Googlebot", "googlebot ", "named", "*"),
    ("Googlebot", "GOOGLEBOT", "named", "named"),
    ("bingbot", "bingbot/2.0", "named", "*"),
    ("bingbot/2.0", "bingbot", "named", "named"),
    ("ExampleBot", "Mozilla/5.0 (compatible; ExampleBot/1.0)", "named", "*"),
    ("Mozilla", "Mozilla/5.0 (compatible; ExampleBot/1.0)", "*", "*"),
    ("Mozilla", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "*", "*"),
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
    ``Foo Bar`` is not in google mode, and is ``Foo`` in rfc mode (D-21)."""
    body = b"User-Agent: *\nDisallow: /\nUser-Agent: Foo Bar\nAllow: /x/\nDisallow: /\n"
    for mode in ("rfc", "google"):
        robots = RobotsTxt.parse(body, mode)  # type: ignore[arg-type]
        assert robots.allowed("http://foo.bar/x/y", "Foo") is True
        assert robots.allowed("http://foo.bar/x/y", "Foo Bar") is (mode == "rfc")


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
    """docs/decisions.md "crawler name": the product that names the crawler,
    never ``Mozilla``, never cut to its letters."""
    assert product_token(header) == token


def test_header_through_product_token() -> None:
    """A whole header names the crawler its product token names: in rfc
    mode as the caller's name too (D-21); google mode takes it verbatim."""
    body = b"User-agent: ExampleBot\nDisallow: /\n\nUser-agent: Mozilla\nDisallow: /m\n"
    header = "Mozilla/5.0 (compatible; ExampleBot/1.0)"
    rfc, google = RobotsTxt.parse(body), RobotsTxt.parse(body, "google")
    assert rfc.allowed("http://e.com/x", header) is False
    assert google.allowed("http://e.com/x", header) is True  # a header is no name
    for robots in (rfc, google):
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
            "is not a product token ([A-Za-z_-]+); its product name 'MyBot' is taken as the "
            "crawler's name (RFC 9309 §2.2.1), so the groups for 'User-agent: MyBot' apply "
            "to it, else the 'User-agent: *' groups",
        ),
        (
            "MJ12bot/v1.4",
            "rfc",
            "is not a product token ([A-Za-z_-]+); its product name 'MJ12bot' is taken as "
            "the crawler's name (RFC 9309 §2.2.1), so the groups for 'User-agent: MJ12bot' "
            "apply to it; 'MJ12bot' is not a product token ([A-Za-z_-]+): only groups whose "
            "user-agent line names exactly 'MJ12bot' apply to it ('User-agent: MJ12bot' or "
            "'MJ12bot/2.0', in any case), never a group named by a part of it such as 'MJ'; "
            "without one, the 'User-agent: *' groups apply",
        ),
        (
            "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0",
            "rfc",
            "is not a product token ([A-Za-z_-]+) and none of its products names a crawler "
            "(browsers' products such as 'Mozilla' never do), so only the 'User-agent: *' "
            "groups apply to it",
        ),
        (
            "MyBot/1.0",
            "google",
            "is not a product token ([A-Za-z_-]+); google mode compares it verbatim with "
            "each user-agent line's token, which never holds other characters, so no group "
            "for a crawler applies to it, not even 'User-agent: MyBot/1.0'; only the "
            "'User-agent: *' groups do",
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


@pytest.mark.parametrize(
    ("name", "mode", "line", "group"),
    [
        ("MJ12bot", "rfc", "MJ12bot", "named"),
        ("MJ12bot", "rfc", "MJ", "*"),  # "never a group named by a part of it"
        ("MyBot/1.0", "rfc", "MyBot", "named"),  # "the groups for 'User-agent: MyBot'"
        ("MyBot/1.0", "rfc", "Other", "*"),  # "else the 'User-agent: *' groups"
        ("MJ12bot/v1.4", "rfc", "MJ12bot", "named"),
        ("MJ12bot/v1.4", "rfc", "MJ", "*"),
        ("Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "rfc", "Mozilla", "*"),
        ("MyBot/1.0", "google", "MyBot", "*"),  # "not even 'User-agent: MyBot/1.0'"
        ("MyBot/1.0", "google", "MyBot/1.0", "*"),
    ],
)
def test_name_problem_tells_the_truth(name: str, mode: str, line: str, group: str) -> None:
    """What the warning says a name matches is what the parser does."""
    assert name_problem(name, mode) is not None  # type: ignore[arg-type]
    assert _group(_body(line), name, mode) == group


#: D-21 (revised), by caller string: the site writes ``User-agent: BadBot``
#: / ``Disallow: /``; which callers get that group. rfc mode reduces a name
#: that is not a product token to the crawler's product name, so a crawler
#: never gets fewer rules than the site wrote for its name; google mode
#: compares the string verbatim, as Google's parser does.
BADBOT = b"User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"
CALLERS = [
    # (caller's name, the name rfc mode takes, rfc obeys BadBot's group)
    ("BadBot", "BadBot", True),
    ("badbot", "badbot", True),
    ("BadBot/1.0", "BadBot", True),
    ("badbot/2", "badbot", True),
    ("BadBot/1.0 (+https://example.com/bot)", "BadBot", True),
    ("Mozilla/5.0 (compatible; BadBot/1.0; +http://x)", "BadBot", True),
    (b"Mozilla/5.0 (compatible; BadBot/1.0; +http://x)", "BadBot", True),
    ("  BadBot  ", "BadBot", True),
    ("BadBot\t2", "BadBot", True),
    ("BadBotX/1.0", "BadBotX", False),  # equality, never a prefix (UA-4)
    ("Bad/1.0", "Bad", False),
    ("Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "*", False),
    ("OtherBot/1.0 (compatible; BadBot/1.0)", "OtherBot", False),  # the first product
    ("MJ12bot", "MJ12bot", False),
    ("*", "*", False),
    ("", "", False),
]


@pytest.mark.parametrize(("caller", "taken", "obeys"), CALLERS)
def test_a_name_is_reduced_to_its_product_name(
    caller: str | bytes, taken: str, obeys: bool
) -> None:
    rfc = RobotsTxt.parse(BADBOT)
    assert rfc.allowed("https://a.com/x", caller) is not obeys
    assert rfc.allowed("https://a.com/private/x", caller) is False  # BadBot's or *'s
    assert rfc.explain("https://a.com/x", caller).user_agent == taken
    assert rfc.explain("https://a.com/x", caller).agents == (("BadBot",) if obeys else ("*",))
    # google mode: Google's parser verbatim, which obeys BadBot's group only
    # for a caller string that is exactly its token.
    text = caller if isinstance(caller, str) else caller.decode()
    google = RobotsTxt.parse(BADBOT, "google")
    expected = bool(RobotsMatcher().OneAgentAllowedByRobots(BADBOT, text, "https://a.com/x"))
    assert google.allowed("https://a.com/x", caller) is expected
    assert expected is not (text.lower() == "badbot")


def test_the_reduced_name_reaches_usage_and_crawl_delay() -> None:
    """Every way into the rules takes the same name (D-21)."""
    body = (
        b"User-agent: BadBot\nCrawl-delay: 7\nContent-Usage: train-ai=n\nDisallow: /x\n\n"
        b"User-agent: *\nDisallow:\n"
    )
    robots = RobotsTxt.parse(body)
    assert robots.crawl_delay("BadBot/1.0") == 7.0
    assert (
        robots.usage("https://a.com/y", "BadBot/1.0").as_dict()["train-ai"]["value"] == "disallow"
    )
    assert (
        robots.usage("https://a.com/y", "OtherBot/1.0").as_dict()["train-ai"]["value"] == "unknown"
    )
    assert robots.for_agent("badbot/2") is robots.for_agent("BadBot")


#: Google's spec, "Order of precedence for user agents", example 1, with a
#: rule per group that tells which group applied.
EXAMPLE_1 = (
    b"user-agent: googlebot-news\ndisallow: /group1\n\n"
    b"user-agent: *\ndisallow: /group2\n\n"
    b"user-agent: googlebot\ndisallow: /group3\n"
)
#: (the seed's crawler, its names most specific first, the group it follows)
FAMILIES = [
    ("Googlebot News", ["googlebot-news"], 1),
    ("Googlebot (web)", ["googlebot"], 3),
    # "There is no specific googlebot-images group, so the more generic
    # group is followed."
    ("Googlebot Images", ["Googlebot-Image", "Googlebot"], 3),
    ("Googlebot News (when crawling images)", ["googlebot-news"], 1),
    ("Otherbot (web)", ["otherbot"], 2),
    # "Even if there is an entry for a related crawler, it is only valid if
    # it is specifically matching."
    ("Otherbot (News)", ["otherbot-news", "otherbot"], 2),
    ("googlebot/1.2 is googlebot", ["googlebot/1.2"], 3),
]


def _followed(robots: RobotsTxt, names: list[str] | tuple[str, ...]) -> list[int]:
    return [n for n in (1, 2, 3) if not robots.allowed(f"http://e.com/group{n}", names)]


@pytest.mark.parametrize(("crawler", "names", "group"), FAMILIES)
@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_a_family_follows_its_most_specific_group(
    crawler: str, names: list[str], group: int, mode: str
) -> None:
    """D-22: the first name that selects a group other than ``*`` decides."""
    robots = RobotsTxt.parse(EXAMPLE_1, mode)  # type: ignore[arg-type]
    if mode == "google" and "/" in names[0]:
        group = 2  # google mode compares the caller's name verbatim (D-21)
    assert _followed(robots, names) == [group], crawler
    assert _followed(robots, tuple(names)) == [group]
    assert _followed(robots, [n.encode() for n in names]) == [group]  # type: ignore[arg-type]
    if mode == "google":
        # Google's parser given the names in order: where only one of them
        # has a group, it follows the same one.
        verdicts = [
            not RobotsMatcher().AllowedByRobots(EXAMPLE_1, names, f"http://e.com/group{n}")
            for n in (1, 2, 3)
        ]
        assert [n for n, blocked in zip((1, 2, 3), verdicts, strict=True) if blocked] == [group]


@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_a_family_never_merges_its_names_groups(mode: str) -> None:
    """Where two names of a family each have a group, the first decides
    alone (D-22, the seed's "only the most specific group is followed");
    Google's library, given both names, merges both groups."""
    names = ["googlebot-news", "googlebot"]
    robots = RobotsTxt.parse(EXAMPLE_1, mode)  # type: ignore[arg-type]
    assert _followed(robots, names) == [1]
    assert robots.explain("http://e.com/group1", names).user_agent == "googlebot-news"
    merged = [
        n
        for n in (1, 2, 3)
        if not RobotsMatcher().AllowedByRobots(EXAMPLE_1, names, f"http://e.com/group{n}")
    ]
    assert merged == [1, 3]


def test_each_name_of_a_family_is_reduced() -> None:
    robots = RobotsTxt.parse(EXAMPLE_1)
    assert _followed(robots, ["Googlebot-Image/1.0", "Googlebot/2.1"]) == [3]
    assert robots.explain(
        "http://e.com/x", ["Googlebot-Image/1.0", "Googlebot/2.1"]
    ).user_agent == ("Googlebot")
    # No name of the family has a group: the global ones, for the first name.
    explained = robots.explain("http://e.com/x", ["hedwig-images", "hedwig"])
    assert (explained.user_agent, explained.agents) == ("hedwig-images", ("*",))
    assert robots.crawl_delay(["hedwig-images", "hedwig"]) is None
    # A one-name family is that name.
    assert robots.for_agent(["googlebot"]) is robots.for_agent("googlebot")


def test_an_empty_family_is_refused() -> None:
    with pytest.raises(ValueError, match="at least one name"):
        RobotsTxt.parse(EXAMPLE_1).allowed("http://e.com/x", [])


@pytest.mark.parametrize(
    ("value", "names"),
    [
        ("hedwig", ("hedwig",)),
        ("hedwig-images, hedwig", ("hedwig-images", "hedwig")),
        ("hedwig-images,hedwig", ("hedwig-images", "hedwig")),
        (" a , b , c ", ("a", "b", "c")),
        ("a,", ("a", "")),
        (
            "Mozilla/5.0 (compatible; Hedwig/1.0, +http://x)",
            ("Mozilla/5.0 (compatible; Hedwig/1.0, +http://x)",),
        ),
        ("x (a, b), y", ("x (a, b)", "y")),
    ],
)
def test_crawler_names(value: str, names: tuple[str, ...]) -> None:
    assert crawler_names(value) == names


# -- one reduction for every script (D-21) -------------------------------------

#: Crawler names written in other scripts than ASCII's: Cyrillic, Greek, CJK
#: (Chinese, Japanese), Latin with diacritics.
SCRIPTS = ["Львів-bot", "Ελληνικό", "百度蜘蛛", "クローラー", "Crawlé", "Ñandú-Bot"]
#: How a crawler writes its name: bare, versioned, and inside a User-Agent
#: header of each shape product_token reads.
WRITTEN = [
    "{name}",
    "{name}/1.1",
    "  {name}/2.0 (+https://example.com/bot)",
    "Mozilla/5.0 (compatible; {name}/1.1)",
    "Mozilla/5.0 (compatible; {name}/1.1; +https://example.com/bot)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; {name}/2.0; "
    "+https://example.com/bot) Chrome/116.0 Safari/537.36",
    "Mozilla/5.0 (Linux x86_64) AppleWebKit/605.1.15 (KHTML, like Gecko) Safari/605.1 "
    "({name}/0.1; +https://example.com/bot)",
]


@pytest.mark.parametrize("written", WRITTEN)
@pytest.mark.parametrize("name", SCRIPTS)
def test_a_name_in_any_script_is_read_as_in_ascii(name: str, written: str) -> None:
    """The same rule reads a bare name, a versioned one and a whole header,
    whatever letters the name is written in: its product name."""
    text = written.format(name=name)
    assert product_token(text) == name
    assert product_token(text.encode()) == name
    # And exactly as the same header with an ASCII name is read.
    assert product_token(written.format(name="ExampleBot")) == "ExampleBot"


@pytest.mark.parametrize("written", WRITTEN)
@pytest.mark.parametrize("name", SCRIPTS)
def test_a_name_in_any_script_gets_its_group(name: str, written: str) -> None:
    """D-21: a crawler never gets fewer rules than the site wrote for its
    name, in any script (rfc mode; google mode compares verbatim)."""
    robots = RobotsTxt.parse(_body(name))
    caller = written.format(name=name)
    assert robots.allowed("http://e.com/named", caller) is False
    assert robots.allowed("http://e.com/global", caller) is True
    assert robots.explain("http://e.com/x", caller).user_agent == name
    # Its crawl-delay too (D-17): the run of its own line.
    delayed = RobotsTxt.parse(f"User-agent: {name}\nCrawl-delay: 3\n\n{STAR}".encode())
    assert delayed.crawl_delay(caller) == 3.0


@pytest.mark.parametrize(
    "header",
    [
        "Mozilla/5.0 (compatible; +https://example.com/Львів-bot/1.1)",  # a URL, not a name
        "Mozilla/5.0 (compatible; _Ελληνικό/1.0)",  # not a letter or digit first
        "Mozilla/5.0 (compatible; 百度蜘蛛)",  # no version: no product in a comment
    ],
)
def test_comments_that_name_no_crawler_stay_so_in_any_script(header: str) -> None:
    assert product_token(header) == "*"
