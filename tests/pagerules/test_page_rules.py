"""Page-level rules, the pure reader (P-1..P-3): the ``X-Robots-Tag``
header and the robots meta tags of a document's head, for one crawler.

The tables come from Google's robots meta tag and ``X-Robots-Tag``
documentation (its examples: ``googlebot: nofollow`` / ``otherbot:
noindex, nofollow``, ``unavailable_after: 25 Jun 2010 15:00:00 PST``, the
``googlebot`` / ``googlebot-news`` tags, "the sum of the negative rules"),
Google's spec's "Robots meta tag questions" (only the head counts), and the
cases the crawler's names add (D-21, D-22). Then hypothesis: reading never
raises, and directives only ever add restrictions.
"""

from __future__ import annotations

import subprocess
import sys
import time
from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from parsel import Selector

from scrapy_robots_rfc.pagerules import (
    EVERY_CRAWLER,
    NO_PAGE_RULES,
    PAGE_RULES_META_KEY,
    RESTRICTIONS,
    Directive,
    PageRules,
    html_head,
    parse_date,
    read_page_rules,
)
from scrapy_robots_rfc.robotstxt import ascii_lower

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

PST = timezone(timedelta(hours=-8))
#: Google's example date, ``25 Jun 2010 15:00:00 PST``.
JUNE_25 = datetime(2010, 6, 25, 15, tzinfo=PST)


def _said(rules: PageRules) -> list[str]:
    return [str(directive) for directive in rules.directives]


# -- X-Robots-Tag --------------------------------------------------------------

#: (case, header values, the crawler's names, str(rules), the directives kept).
HEADER_CASES = [
    (
        "one_noindex",
        [b"noindex"],
        ["ExampleBot"],
        "noindex",
        ["noindex (X-Robots-Tag header, every crawler)"],
    ),
    (
        "several_headers",
        [b"noarchive", b"unavailable_after: 25 Jun 2010 15:00:00 PST"],
        ["ExampleBot"],
        "noarchive, unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            "noarchive (X-Robots-Tag header, every crawler)",
            "unavailable_after: 25 Jun 2010 15:00:00 PST (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "comma_list",
        [b"noimageindex, unavailable_after: 25 Jun 2010 15:00:00 PST"],
        ["ExampleBot"],
        "noimageindex, unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            "noimageindex (X-Robots-Tag header, every crawler)",
            "unavailable_after: 25 Jun 2010 15:00:00 PST (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "named_googlebot_sees_its_own",
        [b"googlebot: nofollow", b"otherbot: noindex, nofollow"],
        ["Googlebot"],
        "nofollow",
        ["nofollow (X-Robots-Tag header, googlebot)"],
    ),
    (
        "named_otherbot_sees_its_own",
        [b"googlebot: nofollow", b"otherbot: noindex, nofollow"],
        ["otherbot"],
        "noindex, nofollow",
        ["noindex (X-Robots-Tag header, otherbot)", "nofollow (X-Robots-Tag header, otherbot)"],
    ),
    (
        "named_for_others_only",
        [b"googlebot: nofollow", b"otherbot: noindex, nofollow"],
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "what_follows_a_name_is_that_names",
        [b"googlebot: noindex, unavailable_after: 25 Jun 2010 15:00:00 PST"],
        ["googlebot"],
        "noindex, unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            "noindex (X-Robots-Tag header, googlebot)",
            "unavailable_after: 25 Jun 2010 15:00:00 PST (X-Robots-Tag header, googlebot)",
        ],
    ),
    (
        "what_follows_a_name_is_not_others",
        [b"googlebot: noindex, unavailable_after: 25 Jun 2010 15:00:00 PST"],
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "every_crawler_then_a_name",
        [b"noarchive, examplebot: noindex"],
        ["ExampleBot"],
        "noindex, noarchive",
        [
            "noarchive (X-Robots-Tag header, every crawler)",
            "noindex (X-Robots-Tag header, examplebot)",
        ],
    ),
    (
        "every_crawler_then_another_name",
        [b"noarchive, googlebot: noindex"],
        ["ExampleBot"],
        "noarchive",
        ["noarchive (X-Robots-Tag header, every crawler)"],
    ),
    (
        "a_name_ends_with_its_header_value",
        [b"googlebot: noindex", b"nofollow"],
        ["ExampleBot"],
        "nofollow",
        ["nofollow (X-Robots-Tag header, every crawler)"],
    ),
    (
        "a_second_name_takes_over",
        [b"googlebot: noindex, examplebot: nofollow, noarchive"],
        ["ExampleBot"],
        "nofollow, noarchive",
        [
            "nofollow (X-Robots-Tag header, examplebot)",
            "noarchive (X-Robots-Tag header, examplebot)",
        ],
    ),
    (
        "name_without_space",
        [b"ExampleBot:noindex"],
        ["examplebot"],
        "noindex",
        ["noindex (X-Robots-Tag header, examplebot)"],
    ),
    (
        "name_with_a_dated_directive",
        [b"examplebot: unavailable_after: 2010-06-25"],
        ["ExampleBot"],
        "unavailable_after: 2010-06-25T00:00:00+00:00",
        ["unavailable_after: 2010-06-25 (X-Robots-Tag header, examplebot)"],
    ),
    (
        "name_alone_says_nothing",
        [b"examplebot:", b"examplebot: "],
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "rfc_822_date_with_its_comma",
        [b"unavailable_after: Fri, 25 Jun 2010 15:00:00 PST, noindex"],
        ["ExampleBot"],
        "noindex, unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            "unavailable_after: Fri, 25 Jun 2010 15:00:00 PST (X-Robots-Tag header, every crawler)",
            "noindex (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "rfc_850_date_with_its_comma",
        [b"noarchive, unavailable_after: Friday, 25-Jun-10 15:00:00 GMT"],
        ["ExampleBot"],
        "noarchive, unavailable_after: 2010-06-25T15:00:00+00:00",
        [
            "noarchive (X-Robots-Tag header, every crawler)",
            "unavailable_after: Friday, 25-Jun-10 15:00:00 GMT"
            " (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "iso_8601_date_with_its_colons",
        [b"unavailable_after: 2010-06-25T15:00:00Z, nofollow"],
        ["ExampleBot"],
        "nofollow, unavailable_after: 2010-06-25T15:00:00+00:00",
        [
            "unavailable_after: 2010-06-25T15:00:00Z (X-Robots-Tag header, every crawler)",
            "nofollow (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "iso_8601_date_with_an_offset",
        [b"unavailable_after: 2010-06-25T15:00:00-08:00"],
        ["ExampleBot"],
        "unavailable_after: 2010-06-25T15:00:00-08:00",
        ["unavailable_after: 2010-06-25T15:00:00-08:00 (X-Robots-Tag header, every crawler)"],
    ),
    (
        "date_that_does_not_parse_is_kept",
        [b"unavailable_after: when pigs fly, noindex"],
        ["ExampleBot"],
        "noindex",
        [
            "unavailable_after: when pigs fly (X-Robots-Tag header, every crawler)",
            "noindex (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "empty_date_is_kept",
        [b"unavailable_after:"],
        ["ExampleBot"],
        "",
        ["unavailable_after: (X-Robots-Tag header, every crawler)"],
    ),
    (
        "earliest_date_wins",
        [b"unavailable_after: 2030-01-01", b"unavailable_after: 25 Jun 2010 15:00:00 PST"],
        ["ExampleBot"],
        "unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            "unavailable_after: 2030-01-01 (X-Robots-Tag header, every crawler)",
            "unavailable_after: 25 Jun 2010 15:00:00 PST (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "directives_in_any_case",
        [b"NOINDEX, NoFollow, NoArchive"],
        ["ExampleBot"],
        "noindex, nofollow, noarchive",
        [
            "noindex (X-Robots-Tag header, every crawler)",
            "nofollow (X-Robots-Tag header, every crawler)",
            "noarchive (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "names_in_any_case",
        [b"EXAMPLEBOT: noindex", b"ExampleBot: Unavailable_After: 2010-06-25"],
        ["examplebot"],
        "noindex, unavailable_after: 2010-06-25T00:00:00+00:00",
        [
            "noindex (X-Robots-Tag header, examplebot)",
            "unavailable_after: 2010-06-25 (X-Robots-Tag header, examplebot)",
        ],
    ),
    (
        "white_space_around_everything",
        [b"  examplebot  :\t noindex ,\tnofollow  "],
        ["ExampleBot"],
        "noindex, nofollow",
        ["noindex (X-Robots-Tag header, examplebot)", "nofollow (X-Robots-Tag header, examplebot)"],
    ),
    ("empty_values", [b"", b" ", b",", b" , ,"], ["ExampleBot"], "", []),
    (
        "unknown_directives_kept_and_ignored",
        [b"noindex, nocache, indexifembedded, noodp, x-made-up"],
        ["ExampleBot"],
        "noindex",
        [
            "noindex (X-Robots-Tag header, every crawler)",
            "nocache (X-Robots-Tag header, every crawler)",
            "indexifembedded (X-Robots-Tag header, every crawler)",
            "noodp (X-Robots-Tag header, every crawler)",
            "x-made-up (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "valued_directives_are_not_names",
        [b"max-snippet: -1, max-image-preview: large, max-video-preview: 0"],
        ["ExampleBot"],
        "",
        [
            "max-snippet: -1 (X-Robots-Tag header, every crawler)",
            "max-image-preview: large (X-Robots-Tag header, every crawler)",
            "max-video-preview: 0 (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "a_directives_name_before_a_colon_is_a_directive",
        [b"noindex: yes"],
        ["ExampleBot"],
        "noindex",
        ["noindex: yes (X-Robots-Tag header, every crawler)"],
    ),
    (
        "none_is_noindex_nofollow",
        [b"none"],
        ["ExampleBot"],
        "noindex, nofollow",
        ["none (X-Robots-Tag header, every crawler)"],
    ),
    (
        "all_says_nothing",
        [b"all"],
        ["ExampleBot"],
        "",
        ["all (X-Robots-Tag header, every crawler)"],
    ),
    (
        "index_follow_say_nothing",
        [b"index, follow"],
        ["ExampleBot"],
        "",
        [
            "index (X-Robots-Tag header, every crawler)",
            "follow (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "noindex_beats_index",
        [b"index", b"noindex"],
        ["ExampleBot"],
        "noindex",
        [
            "index (X-Robots-Tag header, every crawler)",
            "noindex (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "noindex_beats_all_for_this_crawler",
        [b"all", b"examplebot: noindex"],
        ["ExampleBot"],
        "noindex",
        ["all (X-Robots-Tag header, every crawler)", "noindex (X-Robots-Tag header, examplebot)"],
    ),
    (
        "every_flag",
        [b"noindex, nofollow, noarchive, nosnippet, noimageindex, notranslate, noai, noimageai"],
        ["ExampleBot"],
        "noindex, nofollow, noarchive, nosnippet, noimageindex, notranslate, noai, noimageai",
        [f"{name} (X-Robots-Tag header, every crawler)" for name in RESTRICTIONS],
    ),
    (
        "str_values",
        ["examplebot: noai", "noimageai"],
        ["ExampleBot"],
        "noai, noimageai",
        [
            "noai (X-Robots-Tag header, examplebot)",
            "noimageai (X-Robots-Tag header, every crawler)",
        ],
    ),
    (
        "not_utf_8_is_latin_1",
        [b"noindex, x-caf\xe9"],
        ["ExampleBot"],
        "noindex",
        [
            "noindex (X-Robots-Tag header, every crawler)",
            "x-café (X-Robots-Tag header, every crawler)",
        ],
    ),
    # The crawler's names (D-21, D-22).
    (
        "name_reduced_to_its_product_token",
        [b"badbot: noindex"],
        ["BadBot/1.0"],
        "noindex",
        ["noindex (X-Robots-Tag header, badbot)"],
    ),
    (
        "user_agent_header_reduced_to_its_product_token",
        [b"badbot: noindex"],
        ["Mozilla/5.0 (compatible; BadBot/1.0; +http://x.test/bot)"],
        "noindex",
        ["noindex (X-Robots-Tag header, badbot)"],
    ),
    (
        "name_with_digits_stays_whole",
        [b"mj12bot: noindex", b"mj: nofollow"],
        ["MJ12bot"],
        "noindex",
        ["noindex (X-Robots-Tag header, mj12bot)"],
    ),
    (
        "a_longer_name_is_another_crawler",
        [b"examplebot-images: noindex"],
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "a_family_takes_each_names",
        [b"hedwig: nofollow", b"hedwig-images: noindex", b"owl: noarchive"],
        ["hedwig-images", "hedwig"],
        "noindex, nofollow",
        ["nofollow (X-Robots-Tag header, hedwig)", "noindex (X-Robots-Tag header, hedwig-images)"],
    ),
    (
        "star_names_no_crawler",
        [b"*: noindex", b"nofollow"],
        ["*"],
        "nofollow",
        ["nofollow (X-Robots-Tag header, every crawler)"],
    ),
    (
        "no_names_at_all",
        [b"examplebot: noindex", b"nofollow"],
        [],
        "nofollow",
        ["nofollow (X-Robots-Tag header, every crawler)"],
    ),
]


@pytest.mark.parametrize(
    ("headers", "names", "expected", "directives"),
    [case[1:] for case in HEADER_CASES],
    ids=[case[0] for case in HEADER_CASES],
)
def test_x_robots_tag(headers, names, expected, directives):
    rules = read_page_rules(headers, None, names)
    assert str(rules) == expected
    assert _said(rules) == directives


def test_the_flags_are_the_fields():
    """The table's strings are the flags: every flag of RESTRICTIONS is a
    field, and str() names exactly those set."""
    rules = read_page_rules([b"none, noai"], None, ["ExampleBot"])
    assert (rules.noindex, rules.nofollow, rules.noai) == (True, True, True)
    assert (rules.noarchive, rules.nosnippet, rules.noimageindex) == (False, False, False)
    assert (rules.notranslate, rules.noimageai) == (False, False)
    assert [flag for flag in RESTRICTIONS if getattr(rules, flag)] == [
        "noindex",
        "nofollow",
        "noai",
    ]


def test_google_example_date():
    rules = read_page_rules([b"unavailable_after: 25 Jun 2010 15:00:00 PST"], None, ["x"])
    assert rules.unavailable_after == JUNE_25
    assert rules.unavailable_after.utcoffset() == timedelta(hours=-8)


# -- robots meta tags ------------------------------------------------------------

#: (case, HTML, the crawler's names, str(rules), the directives kept).
META_CASES = [
    (
        "robots_tag",
        b'<html><head><meta name="robots" content="noindex"></head><body>x</body></html>',
        ["ExampleBot"],
        "noindex",
        ['noindex (<meta name="robots">)'],
    ),
    (
        "crawlers_tag",
        b'<html><head><meta name="BadBot" content="nofollow"></head></html>',
        ["BadBot"],
        "nofollow",
        ['nofollow (<meta name="badbot">)'],
    ),
    (
        "another_crawlers_tag",
        b'<html><head><meta name="BadBot" content="nofollow"></head></html>',
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "name_and_content_in_any_case",
        b'<HTML><HEAD><META NAME="ROBOTS" CONTENT="NOINDEX, NoFollow"></HEAD></HTML>',
        ["ExampleBot"],
        "noindex, nofollow",
        ['noindex (<meta name="robots">)', 'nofollow (<meta name="robots">)'],
    ),
    (
        "crawler_name_in_any_case",
        b'<head><meta name="EXAMPLEBOT" content="noarchive"></head>',
        ["examplebot"],
        "noarchive",
        ['noarchive (<meta name="examplebot">)'],
    ),
    (
        "several_tags_add_up",
        b'<head><meta name="robots" content="nofollow"><meta name="googlebot" content="noindex">',
        ["Googlebot"],
        "noindex, nofollow",
        ['nofollow (<meta name="robots">)', 'noindex (<meta name="googlebot">)'],
    ),
    (
        "googlebot_news_has_its_own",
        b'<head><meta name="googlebot" content="notranslate">'
        b'<meta name="googlebot-news" content="nosnippet"></head>',
        ["googlebot-news"],
        "nosnippet",
        ['nosnippet (<meta name="googlebot-news">)'],
    ),
    (
        "googlebot_news_as_a_family",
        b'<head><meta name="googlebot" content="notranslate">'
        b'<meta name="googlebot-news" content="nosnippet"></head>',
        ["googlebot-news", "googlebot"],
        "nosnippet, notranslate",
        ['notranslate (<meta name="googlebot">)', 'nosnippet (<meta name="googlebot-news">)'],
    ),
    (
        "unquoted_attributes_and_no_head_tags",
        b"<!doctype html><title>t</title><meta name=robots content=noindex><p>text",
        ["ExampleBot"],
        "noindex",
        ['noindex (<meta name="robots">)'],
    ),
    (
        "name_with_white_space",
        b'<head><meta name=" robots " content=" noindex , noarchive ">',
        ["ExampleBot"],
        "noindex, noarchive",
        ['noindex (<meta name="robots">)', 'noarchive (<meta name="robots">)'],
    ),
    (
        "entity_encoded_content",
        b'<head><meta name="robots" content="noindex&#x2C;nofollow&#44; n&#111;archive">',
        ["ExampleBot"],
        "noindex, nofollow, noarchive",
        [
            'noindex (<meta name="robots">)',
            'nofollow (<meta name="robots">)',
            'noarchive (<meta name="robots">)',
        ],
    ),
    (
        "dates_in_content",
        b'<head><meta name="robots" content="unavailable_after: Fri, 25 Jun 2010 15:00:00 PST">'
        b'<meta name="robots" content="unavailable_after: 2030-01-01">',
        ["ExampleBot"],
        "unavailable_after: 2010-06-25T15:00:00-08:00",
        [
            'unavailable_after: Fri, 25 Jun 2010 15:00:00 PST (<meta name="robots">)',
            'unavailable_after: 2030-01-01 (<meta name="robots">)',
        ],
    ),
    (
        "valued_directives_in_content",
        b'<head><meta name="robots" content="max-snippet:-1, max-image-preview:large">',
        ["ExampleBot"],
        "",
        [
            'max-snippet: -1 (<meta name="robots">)',
            'max-image-preview: large (<meta name="robots">)',
        ],
    ),
    (
        "none_and_all",
        b'<head><meta name="robots" content="all"><meta name="examplebot" content="none">',
        ["ExampleBot"],
        "noindex, nofollow",
        ['all (<meta name="robots">)', 'none (<meta name="examplebot">)'],
    ),
    (
        "name_reduced_to_its_product_token",
        b'<head><meta name="badbot" content="noai">',
        ["Mozilla/5.0 (compatible; BadBot/1.0)"],
        "noai",
        ['noai (<meta name="badbot">)'],
    ),
    # Only the head (Google's spec, "Robots meta tag questions").
    (
        "in_the_body",
        b'<html><head></head><body><meta name="robots" content="noindex"></body></html>',
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "body_first",
        b'<body><meta name="robots" content="noindex">',
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "after_content_that_opens_the_body",
        b'<title>t</title><p>text</p><meta name="robots" content="noindex">',
        ["ExampleBot"],
        "",
        [],
    ),
    (
        "head_and_body",
        b'<head><meta name="robots" content="noarchive"></head>'
        b'<body><meta name="robots" content="noindex"></body>',
        ["ExampleBot"],
        "noarchive",
        ['noarchive (<meta name="robots">)'],
    ),
    (
        "in_a_comment",
        b'<head><!-- <meta name="robots" content="noindex"> -->'
        b'<meta name="robots" content="nofollow"></head>',
        ["ExampleBot"],
        "nofollow",
        ['nofollow (<meta name="robots">)'],
    ),
    (
        "a_comment_that_says_body",
        b'<head><!-- <body> </head> --><meta name="robots" content="noindex"></head>',
        ["ExampleBot"],
        "noindex",
        ['noindex (<meta name="robots">)'],
    ),
    (
        "a_script_that_writes_body",
        b"<head><script>document.write('</head><body>')</script>"
        b'<meta name="robots" content="noindex"></head>',
        ["ExampleBot"],
        "noindex",
        ['noindex (<meta name="robots">)'],
    ),
    (
        "other_meta_tags",
        b'<head><meta charset="utf-8"><meta name="description" content="noindex">'
        b'<meta property="robots" content="noindex"><meta http-equiv="refresh" content="5">'
        b'<meta name="robots"><meta content="noindex"></head>',
        ["ExampleBot"],
        "",
        [],
    ),
    ("empty_document", b"", ["ExampleBot"], "", []),
    ("not_html_at_all", b"%PDF-1.4 noindex", ["ExampleBot"], "", []),
]


@pytest.mark.parametrize(
    ("html", "names", "expected", "directives"),
    [case[1:] for case in META_CASES],
    ids=[case[0] for case in META_CASES],
)
def test_robots_meta_tags(html, names, expected, directives):
    rules = read_page_rules([], html, names)
    assert str(rules) == expected
    assert _said(rules) == directives


def test_headers_first_then_meta_tags():
    rules = read_page_rules(
        [b"noarchive"],
        b'<head><meta name="robots" content="noindex"><meta name="examplebot" content="noai">',
        ["ExampleBot"],
    )
    assert _said(rules) == [
        "noarchive (X-Robots-Tag header, every crawler)",
        'noindex (<meta name="robots">)',
        'noai (<meta name="examplebot">)',
    ]
    assert str(rules) == "noindex, noarchive, noai"


def test_not_html_reads_headers_only():
    rules = read_page_rules([b"nofollow"], None, ["x"])
    assert rules == PageRules.from_directives(
        [Directive("nofollow", None, "header", EVERY_CRAWLER)]
    )
    assert read_page_rules([], None, ["x"]) is NO_PAGE_RULES


# -- encodings -----------------------------------------------------------------

_ROBOTS_HEAD = '<html><head><title>Café ☕</title><meta name="robots" content="noindex">'

#: (case, the document's bytes, the response's encoding).
ENCODING_CASES = [
    ("utf_8", _ROBOTS_HEAD.encode("utf-8"), "utf-8"),
    ("utf_8_unknown", _ROBOTS_HEAD.encode("utf-8"), None),
    ("utf_8_bom", b"\xef\xbb\xbf" + _ROBOTS_HEAD.encode("utf-8"), None),
    ("utf_8_bom_beats_the_declared_encoding", b"\xef\xbb\xbf" + _ROBOTS_HEAD.encode(), "utf-16"),
    ("utf_16_le_bom", b"\xff\xfe" + _ROBOTS_HEAD.encode("utf-16-le"), None),
    ("utf_16_be_bom", b"\xfe\xff" + _ROBOTS_HEAD.encode("utf-16-be"), "latin-1"),
    ("utf_16_declared", _ROBOTS_HEAD.encode("utf-16-be"), "utf-16-be"),
    ("cp1252", _ROBOTS_HEAD.replace("☕", "€").encode("cp1252"), "cp1252"),
    ("cp1252_unknown", _ROBOTS_HEAD.replace("☕", "€").encode("cp1252"), None),
    ("shift_jis", _ROBOTS_HEAD.replace("Café ☕", "日本").encode("shift_jis"), "shift_jis"),
    ("gb18030", _ROBOTS_HEAD.replace("Café ☕", "中文").encode("gb18030"), "gb18030"),
    ("an_encoding_python_does_not_know", _ROBOTS_HEAD.encode("utf-8"), "x-no-such-encoding"),
    ("a_codec_that_is_no_text_encoding", _ROBOTS_HEAD.encode("utf-8"), "rot13"),
    ("a_codec_without_replace", _ROBOTS_HEAD.encode("utf-8"), "idna"),
    ("a_wrong_encoding", _ROBOTS_HEAD.encode("utf-8"), "ascii"),
]


@pytest.mark.parametrize(
    ("body", "encoding"),
    [case[1:] for case in ENCODING_CASES],
    ids=[case[0] for case in ENCODING_CASES],
)
def test_encodings(body, encoding):
    rules = read_page_rules([], body, ["ExampleBot"], encoding=encoding)
    assert _said(rules) == ['noindex (<meta name="robots">)']


def test_content_in_the_documents_encoding():
    """A date's text comes through in the response's encoding."""
    html = '<head><meta name="robots" content="unavailable_after: 25 juin 2010 – été">'
    rules = read_page_rules([], html.encode("cp1252"), ["x"], encoding="cp1252")
    assert rules.directives[0].value == "25 juin 2010 – été"
    assert rules.unavailable_after is None


# -- the head ------------------------------------------------------------------

#: (case, body, limit, the head html_head gives).
HEAD_CASES = [
    (
        "closing_head",
        b"<html><head><title>t</title></head><body>x",
        1000,
        b"<html><head><title>t</title>",
    ),
    ("body_without_closing_head", b"<title>t</title><body class=x>y", 1000, b"<title>t</title>"),
    ("any_case", b"<HEAD><TITLE>t</TITLE></HeAd><BODY>", 1000, b"<HEAD><TITLE>t</TITLE>"),
    ("body_first", b"<body><meta name=robots content=noindex>", 1000, b""),
    ("header_is_not_head", b"<head></header><meta></head>", 1000, b"<head></header><meta>"),
    ("bodyguard_is_not_body", b"<head><bodyguard></head>", 1000, b"<head><bodyguard>"),
    ("head_at_the_end", b"<head><meta></head", 1000, b"<head><meta>"),
    ("body_at_the_end", b"<head><meta><body", 1000, b"<head><meta>"),
    ("closing_head_with_space", b"<head><meta></head \n>", 1000, b"<head><meta>"),
    (
        "comment",
        b"<head><!-- </head><body> --><meta></head>",
        1000,
        b"<head><!-- </head><body> --><meta>",
    ),
    ("unclosed_comment", b"<head><!-- </head> <body>", 1000, b"<head><!-- </head> <body>"),
    (
        "script",
        b"<script>'</head>'</script><meta></head>",
        1000,
        b"<script>'</head>'</script><meta>",
    ),
    (
        "style",
        b"<STYLE>/* <body> */</STYLE><meta><body>",
        1000,
        b"<STYLE>/* <body> */</STYLE><meta>",
    ),
    ("unclosed_script", b"<head><script>'</head>'", 1000, b"<head><script>'</head>'"),
    ("scripts_attribute", b'<script src="x"></script><body>', 1000, b'<script src="x"></script>'),
    ("no_end", b"<title>t</title><meta>", 1000, b"<title>t</title><meta>"),
    ("limit", b"<head>" + b"x" * 100 + b"</head>", 50, b"<head>" + b"x" * 44),
    ("end_past_the_limit", b"<head><title>t</title></head>", 10, b"<head><tit"),
    ("comment_past_the_limit", b"<head><!-- x --></head>", 10, b"<head><!--"),
    ("zero_limit", b"<head></head>", 0, b""),
    ("negative_limit", b"<head></head>", -5, b""),
    ("empty", b"", 1000, b""),
]


@pytest.mark.parametrize(
    ("body", "limit", "expected"),
    [case[1:] for case in HEAD_CASES],
    ids=[case[0] for case in HEAD_CASES],
)
def test_html_head(body, limit, expected):
    assert html_head(body, limit) == expected


def test_a_big_page_costs_its_head():
    """A 10 MB page costs what its head costs: the search stops at the
    head's end, only the head is parsed, and a page whose head does not end
    is read up to the limit only."""
    head = b'<html><head><meta name="robots" content="nofollow"></head>'
    body = b"<body>" + b"<p>text and <b>markup</b></p>\n" * 400_000
    body += b'<meta name="robots" content="noindex"></body></html>'
    page = head + body
    assert len(page) > 10_000_000
    assert html_head(page) == head[: -len(b"</head>")]
    assert len(html_head(b"<p>" + b"x" * 10_000_000)) == 512 * 1024
    start = time.perf_counter()
    rules = read_page_rules([], page, ["ExampleBot"])
    read = time.perf_counter() - start
    assert str(rules) == "nofollow"
    start = time.perf_counter()
    Selector(body=page, type="html").xpath("//meta")
    parsed = time.perf_counter() - start
    assert read < parsed / 10


# -- the model -----------------------------------------------------------------


def test_meta_key():
    assert PAGE_RULES_META_KEY == "robotstxt_page_rules"


#: (case, the directive, str()).
DIRECTIVE_STRINGS = [
    (
        "header_every_crawler",
        Directive("noindex", None, "header", "*"),
        "noindex (X-Robots-Tag header, every crawler)",
    ),
    (
        "header_one_crawler",
        Directive("nofollow", None, "header", "badbot"),
        "nofollow (X-Robots-Tag header, badbot)",
    ),
    (
        "meta_every_crawler",
        Directive("noindex", None, "meta", "*"),
        'noindex (<meta name="robots">)',
    ),
    (
        "meta_one_crawler",
        Directive("nofollow", None, "meta", "badbot"),
        'nofollow (<meta name="badbot">)',
    ),
    (
        "with_a_value",
        Directive("unavailable_after", "2010-06-25", "header", "*"),
        "unavailable_after: 2010-06-25 (X-Robots-Tag header, every crawler)",
    ),
]


@pytest.mark.parametrize(
    ("directive", "expected"),
    [case[1:] for case in DIRECTIVE_STRINGS],
    ids=[case[0] for case in DIRECTIVE_STRINGS],
)
def test_directive_str(directive, expected):
    assert str(directive) == expected


def test_deciding():
    rules = read_page_rules(
        [b"index, none", b"noindex, unavailable_after: 2030-01-01"],
        b'<head><meta name="robots" content="unavailable_after: 2010-06-25, bogus">',
        ["ExampleBot"],
    )
    none = Directive("none", None, "header", "*")
    assert rules.deciding("noindex") == none
    assert rules.deciding("NoFollow") == none
    assert rules.deciding("unavailable_after") == Directive(
        "unavailable_after", "2010-06-25", "meta", "*"
    )
    assert rules.deciding("noarchive") is None
    assert rules.deciding("bogus") == Directive("bogus", None, "meta", "*")
    assert NO_PAGE_RULES.deciding("noindex") is None
    assert NO_PAGE_RULES.deciding("unavailable_after") is None


def test_deciding_date_skips_those_that_do_not_parse():
    rules = read_page_rules(
        [b"unavailable_after: soon", b"unavailable_after: 2010-06-25"], None, ["x"]
    )
    assert rules.deciding("unavailable_after") == Directive(
        "unavailable_after", "2010-06-25", "header", "*"
    )


def test_expired():
    rules = read_page_rules([b"unavailable_after: 25 Jun 2010 15:00:00 PST"], None, ["x"])
    assert not rules.expired(JUNE_25)
    assert not rules.expired(JUNE_25 - timedelta(seconds=1))
    assert rules.expired(JUNE_25 + timedelta(seconds=1))
    # 23:00 UTC is 15:00 PST; a naive time is UTC.
    assert not rules.expired(datetime(2010, 6, 25, 23))
    assert rules.expired(datetime(2010, 6, 25, 23, 0, 1))
    assert not NO_PAGE_RULES.expired(datetime.now(UTC))
    unparsed = read_page_rules([b"unavailable_after: yesterday"], None, ["x"])
    assert not unparsed.expired(datetime.now(UTC))


def test_no_page_rules():
    assert NO_PAGE_RULES == PageRules() == PageRules.from_directives([])
    assert str(NO_PAGE_RULES) == ""
    assert NO_PAGE_RULES.directives == ()
    assert (
        read_page_rules([b"otherbot: noindex"], b"<head></head>", ["ExampleBot"]) == NO_PAGE_RULES
    )


#: (case, text, the datetime, or None).
DATES = [
    ("rfc_822", "Fri, 25 Jun 2010 15:00:00 PST", JUNE_25),
    ("rfc_822_without_weekday", "25 Jun 2010 15:00:00 PST", JUNE_25),
    ("rfc_822_numeric_zone", "25 Jun 2010 23:00:00 +0000", JUNE_25),
    ("rfc_850", "Friday, 25-Jun-10 23:00:00 GMT", JUNE_25),
    ("rfc_850_without_weekday", "25-Jun-2010 23:00:00 GMT", JUNE_25),
    ("asctime_is_utc", "Fri Jun 25 23:00:00 2010", JUNE_25),
    ("iso_8601", "2010-06-25T15:00:00-08:00", JUNE_25),
    ("iso_8601_z", "2010-06-25T23:00:00Z", JUNE_25),
    ("iso_8601_basic", "20100625T230000Z", JUNE_25),
    ("iso_8601_date_is_utc_midnight", "2010-06-25", datetime(2010, 6, 25, tzinfo=UTC)),
    ("iso_8601_no_zone_is_utc", "2010-06-25T23:00:00", JUNE_25),
    ("white_space", "  2010-06-25T23:00:00Z \t", JUNE_25),
    ("empty", "", None),
    ("words", "when pigs fly", None),
    ("impossible_day", "2010-02-30", None),
    ("impossible_hour", "Fri, 25 Jun 2010 25:00:00 GMT", None),
    ("year_too_big", "25 Jun 99999 15:00:00 GMT", None),
]


@pytest.mark.parametrize(
    ("text", "expected"), [case[1:] for case in DATES], ids=[case[0] for case in DATES]
)
def test_dates(text, expected):
    date = parse_date(text)
    assert date == expected
    if date is not None:
        assert date.tzinfo is not None


# -- wrong types ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("headers", "html", "names"),
    [
        (b"noindex", None, ["x"]),
        ("noindex", None, ["x"]),
        ([b"noindex"], None, "ExampleBot"),
        ([b"noindex"], "<head>", ["x"]),
        ([1], None, ["x"]),
        ([b"noindex"], None, [b"ExampleBot"]),
    ],
    ids=[
        "one_header_bytes",
        "one_header_str",
        "one_name_str",
        "html_str",
        "header_int",
        "name_bytes",
    ],
)
def test_wrong_types_raise_type_error(headers, html, names):
    with pytest.raises(TypeError):
        read_page_rules(headers, html, names)


def test_html_head_wants_bytes():
    with pytest.raises(TypeError):
        html_head("<head></head>")  # type: ignore[arg-type]


def test_reading_headers_never_imports_parsel_or_scrapy():
    """The package is pure (``lint-imports``); parsel is loaded by the first
    document, not by headers alone."""
    code = (
        "import sys\n"
        "from scrapy_robots_rfc.pagerules import read_page_rules\n"
        "print(str(read_page_rules([b'noindex'], None, ['x'])), 'parsel' in sys.modules)\n"
        "print(str(read_page_rules([], b'<meta name=robots content=nofollow>', ['x'])),"
        " 'parsel' in sys.modules)\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('scrapy', 'twisted')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.splitlines() == ["noindex False", "nofollow True", "[]"]


# -- hypothesis ----------------------------------------------------------------

#: Pieces that page-level rules are made of, and bytes that break them.
_HEADER_PIECES = [
    "noindex", "nofollow", "none", "all", "index", "noarchive", "noai", "noimageai",
    "unavailable_after", "max-snippet", ":", ",", " ", "\t", "examplebot", "ExampleBot",
    "otherbot", "*", "25 Jun 2010 15:00:00 PST", "Fri", "Friday", "2010-06-25T15:00:00Z",
    "-1", "é", "\x00", "\r\n",
]  # fmt: skip
_HTML_PIECES = [
    b"<html>", b"<head>", b"</head>", b"<body>", b"</body>", b"<meta", b" name=", b"robots",
    b"examplebot", b" content=", b'"', b"'", b">", b"/>", b"<!--", b"-->", b"<script>",
    b"</script>", b"<style>", b"<p>", b"noindex", b"nofollow", b",", b"&#44;", b"&amp;", b"&",
    b"unavailable_after:", b"Fri, 25 Jun 2010", b"\xef\xbb\xbf", b"\xff\xfe", b"\xfe\xff",
    b"\x00", b"\xe9", b"<?xml version='1.0' encoding='utf-8'?>", b"<!doctype html>",
]  # fmt: skip
header_values = st.one_of(
    st.binary(max_size=40),
    st.text(max_size=40),
    st.lists(st.sampled_from(_HEADER_PIECES), max_size=12).map("".join),
    st.lists(st.sampled_from(_HEADER_PIECES), max_size=12).map(
        lambda p: "".join(p).encode("utf-8")
    ),
)
documents = st.one_of(
    st.none(),
    st.binary(max_size=200),
    st.lists(st.one_of(st.sampled_from(_HTML_PIECES), st.binary(max_size=4)), max_size=30).map(
        b"".join
    ),
)
crawler_names = st.lists(
    st.one_of(
        st.sampled_from(["ExampleBot", "examplebot/1.0", "*", "", "robots"]), st.text(max_size=12)
    ),
    max_size=3,
)
encodings = st.one_of(
    st.none(),
    st.sampled_from(
        [
            "utf-8",
            "utf-16",
            "utf-16-be",
            "latin-1",
            "cp1252",
            "shift_jis",
            "ascii",
            "idna",
            "rot13",
            "",
        ]
    ),
    st.text(max_size=10),
)


@SETTINGS
@given(st.lists(header_values, max_size=4), documents, crawler_names, encodings)
def test_reading_never_raises(headers, html, names, encoding):
    rules = read_page_rules(headers, html, names, encoding=encoding)
    assert isinstance(rules, PageRules)
    assert rules.unavailable_after is None or rules.unavailable_after.tzinfo is not None
    assert all(
        d.source in ("header", "meta") and d.name == d.name.strip() for d in rules.directives
    )
    str(rules)
    rules.expired(datetime.now(UTC))


@SETTINGS
@given(st.binary(max_size=300) | documents.filter(lambda d: d is not None), st.integers(-10, 400))
def test_html_head_is_a_short_prefix(body, limit):
    head = html_head(body, limit)
    assert isinstance(head, bytes)
    assert body.startswith(head)
    assert len(head) <= max(limit, 0)
    assert html_head(head, limit) == head


@SETTINGS
@given(st.text(max_size=40))
def test_dates_never_raise(text):
    date = parse_date(text)
    assert date is None or date.tzinfo is not None


_KNOWN = [*RESTRICTIONS, "none", "all", "index", "follow", "max-snippet: 5", "x-unknown"]


def _flags(rules: PageRules) -> dict[str, bool]:
    return {flag: getattr(rules, flag) for flag in RESTRICTIONS}


@SETTINGS
@given(st.lists(st.sampled_from(_KNOWN), max_size=8), st.integers(0, 8))
def test_directives_only_add_restrictions(directives, split):
    """Most restrictive wins (P-3): the flags of a list are those of its
    directives read one by one, OR-ed; a list read as one header, as
    several headers, or as meta tags says the same."""
    one = read_page_rules([", ".join(directives)], None, ["ExampleBot"])
    alone = [read_page_rules([d], None, ["ExampleBot"]) for d in directives]
    assert _flags(one) == {flag: any(_flags(r)[flag] for r in alone) for flag in RESTRICTIONS}
    several = read_page_rules(
        [", ".join(directives[:split]), ", ".join(directives[split:])], None, ["ExampleBot"]
    )
    assert _flags(several) == _flags(one)
    tags = "".join(f'<meta name="robots" content="{d}">' for d in directives)
    meta = read_page_rules([], f"<head>{tags}</head>".encode(), ["ExampleBot"])
    assert _flags(meta) == _flags(one)
    assert [(d.name, d.value) for d in meta.directives] == [
        (d.name, d.value) for d in one.directives
    ]


@SETTINGS
@given(
    st.lists(st.sampled_from(_KNOWN), min_size=1, max_size=6),
    st.sampled_from(["otherbot", "examplebot-news", "robots-news"]),
)
def test_other_crawlers_directives_never_apply(directives, other):
    """P-2: a header value or a tag for another crawler changes nothing; the
    same for this crawler says what it says for every crawler."""
    listed = ", ".join(directives)
    tag = f'<head><meta name="{other}" content="{listed}">'.encode()
    assert read_page_rules([f"{other}: {listed}"], tag, ["ExampleBot"]) == NO_PAGE_RULES
    ours = read_page_rules([f"ExampleBot: {listed}"], None, ["ExampleBot"])
    everyone = read_page_rules([listed], None, ["ExampleBot"])
    assert _flags(ours) == _flags(everyone)
    assert ours.unavailable_after == everyone.unavailable_after
    assert {d.applies_to for d in ours.directives} == {"examplebot"}


# -- names in any script (D-21, P-2) ------------------------------------------

SCRIPT_NAMES = ["Львів-bot", "Ελληνικό", "百度蜘蛛", "Crawlé"]
WRITTEN_AS = [
    "{name}",
    "{name}/1.1",
    "Mozilla/5.0 (compatible; {name}/1.1; +https://example.com/bot)",
    "Mozilla/5.0 AppleWebKit/537.36 (KHTML, like Gecko; compatible; {name}/2.0) Chrome/116.0",
]


@pytest.mark.parametrize("written", WRITTEN_AS)
@pytest.mark.parametrize("name", SCRIPT_NAMES)
def test_directives_for_a_name_in_any_script_apply_to_it(name: str, written: str) -> None:
    """The header's ``name: ...`` and ``<meta name="...">`` bind the crawler
    that robots.txt would bind: its product name, read by one rule for
    every script, bare, versioned or inside a whole User-Agent header."""
    html = f'<head><meta name="{name}" content="noarchive"></head>'.encode()
    rules = read_page_rules(
        [f"{name}: noindex".encode(), b"otherbot: nofollow"],
        html,
        [written.format(name=name)],
    )
    assert (rules.noindex, rules.noarchive, rules.nofollow) == (True, True, False)
    # Lower-cased as names are compared: ASCII letters only (UA-2).
    assert {directive.applies_to for directive in rules.directives} == {ascii_lower(name)}
    # Another crawler, in the same script or not, is not bound by them.
    other = read_page_rules(
        [f"{name}: noindex".encode()], html, ["Mozilla/5.0 (compatible; Ω/1.0)"]
    )
    assert other is NO_PAGE_RULES
