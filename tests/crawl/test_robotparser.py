"""``scrapy_robots_rfc.RobotParser``: the ``ROBOTSTXT_PARSER`` interface of
Scrapy's built-in middleware."""

from __future__ import annotations

import pytest
from scrapy.robotstxt import RobotParser as ScrapyRobotParser
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import RobotParser
from scrapy_robots_rfc.robotstxt._parser import MAX_BYTES

BODY = (
    b"user-agent: *\ndisallow: /private\ncrawl-delay: 2\n"
    b"user-agent: FooBot\ndisallow: /foo\n"
    b"sitemap: https://example.com/sitemap.xml\n"
)


def test_is_a_scrapy_robot_parser_loadable_by_name() -> None:
    assert load_object("scrapy_robots_rfc.RobotParser") is RobotParser
    assert issubclass(RobotParser, ScrapyRobotParser)


def test_interface() -> None:
    parser = RobotParser.from_crawler(get_crawler(), BODY)
    assert parser.allowed("https://example.com/private/x", "Other") is False
    assert parser.allowed(b"https://example.com/private/x", b"FooBot/1.0") is True
    assert parser.allowed("https://example.com/foo", b"FooBot/1.0") is False
    assert parser.crawl_delay("Other") == 2.0
    assert parser.crawl_delay(b"FooBot") is None
    assert list(parser.sitemaps()) == ["https://example.com/sitemap.xml"]


def test_mode_setting() -> None:
    body = b"user-agent: *\ndisallow: /\n"
    url = "https://example.com/robots.txt"
    assert RobotParser.from_crawler(get_crawler(), body).allowed(url, "x") is True
    crawler = get_crawler(settings_dict={"ROBOTSTXT_RFC_MODE": "google"})
    assert RobotParser.from_crawler(crawler, body).allowed(url, "x") is False


def test_invalid_mode_names_the_setting() -> None:
    crawler = get_crawler(settings_dict={"ROBOTSTXT_RFC_MODE": "strict"})
    with pytest.raises(ValueError, match=r"ROBOTSTXT_RFC_MODE setting \('strict'\) is invalid"):
        RobotParser.from_crawler(crawler, b"")


def test_without_crawler() -> None:
    assert RobotParser.from_crawler(None, BODY).allowed("http://e.com/private", "x") is False


def test_body_is_cut_at_500_kib() -> None:
    head = b"user-agent: *\n# " + b"x" * (MAX_BYTES - 20) + b"\n"
    parser = RobotParser.from_crawler(get_crawler(), head + b"disallow: /\n")
    assert parser.allowed("http://e.com/x", "x") is True
    parser = RobotParser.from_crawler(get_crawler(), b"user-agent: *\ndisallow: /\n" + head)
    assert parser.allowed("http://e.com/x", "x") is False


def test_what_scrapys_parser_interface_expects() -> None:
    """What Scrapy's own tests ask of a ROBOTSTXT_PARSER, in our words:
    empty and garbage bodies allow everything, '*' asks for the global
    group, a non-ASCII crawler name selects its group, and a non-ASCII
    path matches raw and %-encoded."""
    assert RobotParser.from_crawler(None, b"").allowed("https://site.local/x", "*") is True
    garbage = bytes(range(256)) * 4
    assert RobotParser.from_crawler(None, garbage).allowed("https://site.local/x", "*") is True
    body = (
        "User-Agent: *\nDisallow: /admin/\nDisallow: /wiki/Käyttäjä:\n\n"
        "User-Agent: UnicödeBöt\nDisallow: /some/page.html\n"
    ).encode()
    parser = RobotParser.from_crawler(None, body)
    assert parser.allowed("https://site.local/", "*") is True
    assert parser.allowed("https://site.local/admin/", "*") is False
    assert parser.allowed("https://site.local/admin/", "UnicödeBöt") is True
    assert parser.allowed("https://site.local/some/page.html", "UnicödeBöt") is False
    assert parser.allowed("https://site.local/wiki/Käyttäjä:", "*") is False
    assert parser.allowed("https://site.local/wiki/K%C3%A4ytt%C3%A4j%C3%A4:", "*") is False


@pytest.mark.parametrize(
    ("settings", "user_agent", "blocked"),
    [
        # ROBOTSTXT_USER_AGENT is the crawler's name, reduced to its product
        # name when it is not a product token (D-21)...
        ({"ROBOTSTXT_USER_AGENT": "MJ12bot"}, "MJ12bot", "/mj12"),
        ({"ROBOTSTXT_USER_AGENT": "MyBot/1.0"}, "MyBot/1.0", "/mybot"),
        # ... or a crawler family's names, most specific first (D-22)...
        ({"ROBOTSTXT_USER_AGENT": "MyBot-News, MyBot"}, "MyBot-News, MyBot", "/mybot"),
        ({"ROBOTSTXT_USER_AGENT": ["Hedwig", "MJ12bot"]}, ["Hedwig", "MJ12bot"], "/mj12"),
        # ... anything else the built-in passes is a User-Agent header.
        ({}, "MJ12bot/1.4 (+http://mj12bot.com/)", "/mj12"),
        ({}, "Mozilla/5.0 (compatible; MyBot/1.0)", "/mybot"),
        ({}, "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "/star"),
    ],
)
def test_the_name_the_builtin_passes(settings, user_agent, blocked) -> None:
    body = (
        b"User-agent: MJ12bot\nDisallow: /mj12\n\nUser-agent: MyBot\nDisallow: /mybot\n\n"
        b"User-agent: *\nDisallow: /star\n"
    )
    parser = RobotParser.from_crawler(get_crawler(settings_dict=settings), body)
    paths = ("/mj12", "/mybot", "/star")
    assert [p for p in paths if not parser.allowed(f"http://e.com{p}", user_agent)] == [blocked]
