"""``scrapy_robots_rfc.RobotParser``: the ``ROBOTSTXT_PARSER`` interface of
Scrapy's built-in middleware."""

from __future__ import annotations

import pytest
from scrapy.robotstxt import RobotParser as ScrapyRobotParser
from scrapy.utils.misc import load_object
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import RobotParser
from scrapy_robots_rfc.parser import MAX_BYTES

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
