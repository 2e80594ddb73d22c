"""Usage preferences in real crawls (U-6): ``Content-Usage`` and
``Content-Signal`` lines in robots.txt and the ``Content-Usage`` and
``Content-Signal`` response headers, against the local server, under both
activations.

Each test asserts what reached the server, what reached the spider (its
responses, their ``robotstxt_usage`` meta, its errbacks) and the stats.

Origin A's robots.txt has a line before the first user-agent line, which
applies to every group and combines with the group's own (U-1); origin B's
has no usage line. A's ``/redir`` redirects to B's ``/plain``, whose meta
must not keep A's preferences.
"""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted

from scrapy_robots_rfc import ForbiddenByUsagePreference, usage_preferences
from scrapy_robots_rfc.robotstxt._usage import (
    CATEGORIES,
    NO_PREFERENCES,
    USAGE_META_KEY,
    Preference,
    Preferences,
    Source,
)

from ..crawling import Stage, crawl, stat
from ..jsonschemas import valid_lines
from ..mockserver import MockServer, Origin, Reply

pytestmark = pytest.mark.e2e

#: The parent of the package's loggers (one per module).
LOGGER = "scrapy_robots_rfc"

ROBOTS_A = (
    b"Content-Usage: train-ai=y\n"
    b"User-agent: *\n"
    b"Disallow: /private/\n"
    b"Content-Usage: /no-train/ train-ai=n\n"
    b"Content-Signal: /signal/ search=yes, ai-train=no, ai-input=no\n"
)
ROBOTS_B = b"User-agent: *\nDisallow: /nothing\n"

LINE_1 = Source("content-usage", 1, "train-ai=y")
LINE_4 = Source("content-usage", 4, "train-ai=n")
LINE_5 = Source("content-signal", 5, "search=yes, ai-train=no, ai-input=no")


def header(text: str) -> Source:
    return Source("header", None, text)


def prefs(*stated: tuple[str, str, tuple[Source, ...]]) -> Preferences:
    """``Preferences`` from ``(category, value, sources)``, in any order."""
    by_category = {category: Preference(value, sources) for category, value, sources in stated}
    return Preferences(tuple((c, by_category[c]) for c in CATEGORIES if c in by_category))


class Site:
    """Origins A and B of the module docstring."""

    def __init__(self, server: MockServer) -> None:
        self.b = server.add_origin(
            {
                "/robots.txt": Reply(body=ROBOTS_B),
                "/hn": Reply(body=b"b hn", headers={"Content-Usage": "train-ai=n"}),
            }
        )
        self.a = server.add_origin(
            {
                "/robots.txt": Reply(body=ROBOTS_A),
                "/header-n": Reply(body=b"n", headers={"Content-Usage": "train-ai=n"}),
                "/header-y": Reply(body=b"y", headers={"Content-Usage": "train-ai=y, search=n"}),
                "/header-bad": Reply(body=b"bad", headers={"Content-Usage": "Train-AI=n"}),
                "/redir": Reply(301, headers={"Location": self.b.url("/plain")}),
            }
        )

    A_PATHS = (
        "/open",
        "/no-train/page",
        "/signal/page",
        "/private/x",
        "/header-n",
        "/header-y",
        "/header-bad",
        "/redir",
    )

    def urls(self) -> list[str]:
        return [*(self.a.url(p) for p in self.A_PATHS), self.b.url("/hn")]


def paths(server: MockServer, origin: Origin) -> list[str]:
    return sorted(server.paths(origin))


def usage_of(spider: Any) -> dict[str, Preferences]:
    """URL -> the usage preferences of each response the spider got, as a
    callback reads them (``usage_preferences(response, crawler)``, U-6)."""
    assert len(spider.seen) == len(set(spider.seen))
    return {
        url: usage_preferences(response, spider.crawler)
        for url, response in zip(spider.seen, spider.responses, strict=True)
    }


def failures(spider: Any) -> dict[str, str]:
    return {url: str(error) for url, error in spider.failures}


def usage_stats(crawler: Any) -> dict[str, Any]:
    return {
        key: value
        for key, value in crawler.stats.get_stats().items()
        if key.startswith("robotstxt/usage/")
    }


def debug_lines(caplog: Any) -> list[str]:
    return sorted(
        r.getMessage()
        for r in caplog.records
        if _ours(r) and r.getMessage().startswith("Forbidden by usage preference")
    )


@pytest_twisted.inlineCallbacks
def test_without_the_setting_every_response_carries_its_preferences(server, activation):
    site = Site(server)
    a, b = site.a, site.b
    crawler = yield crawl(activation, [Stage(site.urls())])
    spider = crawler.spider
    # Nothing is dropped for usage: only robots.txt's Disallow applies.
    assert paths(server, a) == sorted(
        p for p in [*Site.A_PATHS, "/robots.txt"] if p != "/private/x"
    )
    assert paths(server, b) == ["/hn", "/plain", "/robots.txt"]
    assert failures(spider) == {a.url("/private/x"): "Forbidden by robots.txt"}
    assert usage_of(spider) == {
        a.url("/open"): prefs(("train-ai", "allow", (LINE_1,))),
        # U-1: the group's n and the preamble's y combine: n (U-4).
        a.url("/no-train/page"): prefs(("train-ai", "disallow", (LINE_4,))),
        a.url("/signal/page"): prefs(
            ("train-ai", "disallow", (LINE_5,)),
            ("ai-use", "disallow", (LINE_5,)),
            ("search", "allow", (LINE_5,)),
        ),
        a.url("/header-n"): prefs(("train-ai", "disallow", (header("train-ai=n"),))),
        a.url("/header-y"): prefs(
            ("train-ai", "allow", (LINE_1, header("train-ai=y, search=n"))),
            ("search", "disallow", (header("train-ai=y, search=n"),)),
        ),
        # Not a Structured Fields Dictionary: the header states nothing.
        a.url("/header-bad"): prefs(("train-ai", "allow", (LINE_1,))),
        # Redirected from A: B's robots.txt has no usage line, and A's
        # preferences are not carried over.
        b.url("/plain"): NO_PREFERENCES,
        b.url("/hn"): prefs(("train-ai", "disallow", (header("train-ai=n"),))),
    }
    assert str(usage_of(spider)[a.url("/header-y")]) == (
        "train-ai=y, search=n (content-usage line 1, Content-Usage header)"
    )
    assert usage_stats(crawler) == {
        "robotstxt/usage/header": 4,
        "robotstxt/usage/header_invalid": 1,
    }
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest_twisted.inlineCallbacks
def test_train_ai_drops_before_download_and_before_the_spider(server, activation, caplog, tmp_path):
    site = Site(server)
    a, b = site.a, site.b
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(site.urls())],
            ROBOTSTXT_RFC_USAGE=["train-ai"],
            ROBOTSTXT_RFC_REPORT=str(report),
        )
    spider = crawler.spider
    # robots.txt says n: never downloaded.
    assert paths(server, a) == sorted(
        ["/robots.txt", "/open", "/header-n", "/header-y", "/header-bad", "/redir"]
    )
    # The header says n: downloaded, never given to the spider.
    assert paths(server, b) == ["/hn", "/plain", "/robots.txt"]
    assert sorted(spider.seen) == sorted(
        [a.url("/open"), a.url("/header-y"), a.url("/header-bad"), b.url("/plain")]
    )
    assert failures(spider) == {
        a.url("/private/x"): "Forbidden by robots.txt",
        a.url("/no-train/page"): (
            "Forbidden by usage preference: train-ai=n (content-usage line 4) in robots.txt"
        ),
        a.url("/signal/page"): (
            "Forbidden by usage preference: train-ai=n (content-signal line 5) in robots.txt"
        ),
        a.url("/header-n"): "Forbidden by usage preference: train-ai=n (Content-Usage header)",
        b.url("/hn"): "Forbidden by usage preference: train-ai=n (Content-Usage header)",
    }
    dropped = {
        url: (type(error), error.categories, error.where)
        for url, error in spider.failures
        if isinstance(error, ForbiddenByUsagePreference)
    }
    assert dropped == {
        a.url("/no-train/page"): (ForbiddenByUsagePreference, ("train-ai",), "robots.txt"),
        a.url("/signal/page"): (ForbiddenByUsagePreference, ("train-ai",), "robots.txt"),
        a.url("/header-n"): (ForbiddenByUsagePreference, ("train-ai",), "header"),
        b.url("/hn"): (ForbiddenByUsagePreference, ("train-ai",), "header"),
    }
    signal = next(e for u, e in spider.failures if u == a.url("/signal/page"))
    assert signal.preferences == prefs(
        ("train-ai", "disallow", (LINE_5,)),
        ("ai-use", "disallow", (LINE_5,)),
        ("search", "allow", (LINE_5,)),
    )
    assert usage_stats(crawler) == {
        "robotstxt/usage/forbidden": 2,
        "robotstxt/usage/header_forbidden": 2,
        "robotstxt/usage/header": 4,
        "robotstxt/usage/header_invalid": 1,
    }
    assert stat(crawler, "robotstxt/forbidden") == 1, "usage drops are not robots.txt's"
    assert server.paths(a).count("/robots.txt") == 1
    assert server.paths(b).count("/robots.txt") == 1
    assert debug_lines(caplog) == sorted(
        [
            f"Forbidden by usage preference: <GET {a.url('/no-train/page')}>: "
            f"train-ai=n (content-usage line 4) in {a.url('/robots.txt')}",
            f"Forbidden by usage preference: <GET {a.url('/signal/page')}>: "
            f"train-ai=n (content-signal line 5) in {a.url('/robots.txt')}",
            f"Forbidden by usage preference: <200 {a.url('/header-n')}>: "
            "the Content-Usage header 'train-ai=n' disallows train-ai",
            f"Forbidden by usage preference: <200 {b.url('/hn')}>: "
            "the Content-Usage header 'train-ai=n' disallows train-ai",
        ]
    )
    # The crawl report: per origin, and the summary's suffix.
    lines = report.read_text().splitlines()
    rows = {row["origin"]: row for row in valid_lines("report", lines)}
    usage_fields = ("forbidden", "usage_forbidden", "usage_dropped", "usage_categories")
    assert {origin: [row[f] for f in usage_fields] for origin, row in rows.items()} == {
        a.base: [1, 2, 1, {"train-ai": 3}],
        b.base: [0, 0, 1, {"train-ai": 1}],
    }
    waited = stat(crawler, "robotstxt/waiting")
    summaries = [
        r.getMessage()
        for r in caplog.records
        if _ours(r) and r.getMessage().startswith("robots.txt: ")
    ]
    assert summaries == [
        f"robots.txt: 2 origins checked (2 with rules); 1 request forbidden, {waited} waited, "
        "0 dropped; 4 requests dropped for usage preferences (train-ai: 4)"
    ]


@pytest_twisted.inlineCallbacks
def test_unknown_disallow_drops_what_nothing_states(server, activation):
    site = Site(server)
    a, b = site.a, site.b
    crawler = yield crawl(
        activation,
        [Stage(site.urls())],
        ROBOTSTXT_RFC_USAGE="search",
        ROBOTSTXT_RFC_USAGE_UNKNOWN="disallow",
    )
    spider = crawler.spider
    # Nothing says search=n in robots.txt: everything allowed is downloaded.
    assert paths(server, a) == sorted(
        p for p in [*Site.A_PATHS, "/robots.txt"] if p != "/private/x"
    )
    assert paths(server, b) == ["/hn", "/plain", "/robots.txt"]
    assert spider.seen == [a.url("/signal/page")]
    unknown = (
        'Forbidden by usage preference: search unknown, ROBOTSTXT_RFC_USAGE_UNKNOWN = "disallow"'
    )
    assert failures(spider) == {
        a.url("/private/x"): "Forbidden by robots.txt",
        a.url("/header-y"): "Forbidden by usage preference: search=n (Content-Usage header)",
        **{
            url: unknown
            for url in [
                a.url("/open"),
                a.url("/no-train/page"),
                a.url("/header-n"),
                a.url("/header-bad"),
                b.url("/plain"),
                b.url("/hn"),
            ]
        },
    }
    assert {type(e) for u, e in spider.failures if u != a.url("/private/x")} == {
        ForbiddenByUsagePreference
    }
    assert usage_stats(crawler) == {
        "robotstxt/usage/header_forbidden": 1,
        "robotstxt/usage/unknown_forbidden": 6,
        "robotstxt/usage/header": 4,
        "robotstxt/usage/header_invalid": 1,
    }
    # The robots.txt responses state nothing, and are never dropped.
    assert stat(crawler, "robotstxt/response_status_count/200") == 2
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest_twisted.inlineCallbacks
def test_a_request_that_does_not_obey_robots_txt_is_never_dropped(server, activation):
    site = Site(server)
    a = site.a
    ignore = {"dont_obey_robotstxt": True}
    stale = prefs(("train-ai", "disallow", (LINE_4,)))
    crawler = yield crawl(
        activation,
        [
            Stage(
                [
                    a.url("/open"),
                    # A value copied from another request is not kept.
                    {"url": a.url("/no-train/page"), "meta": {**ignore, USAGE_META_KEY: stale}},
                    {"url": a.url("/header-n"), "meta": ignore},
                ]
            )
        ],
        ROBOTSTXT_RFC_USAGE=["train-ai"],
        ROBOTSTXT_RFC_USAGE_UNKNOWN="disallow",
    )
    spider = crawler.spider
    assert paths(server, a) == ["/header-n", "/no-train/page", "/open", "/robots.txt"]
    assert failures(spider) == {}
    assert usage_of(spider) == {
        a.url("/open"): prefs(("train-ai", "allow", (LINE_1,))),
        # robots.txt is not obeyed: only the header's part.
        a.url("/no-train/page"): NO_PREFERENCES,
        a.url("/header-n"): prefs(("train-ai", "disallow", (header("train-ai=n"),))),
    }
    assert usage_stats(crawler) == {"robotstxt/usage/header": 1}


# -- ai-use (draft-ietf-aipref-vocab-08 §4.2) and U-7 ----------------------

#: Origin C: ai-use from a Content-Usage line, from a Content-Signal line
#: (Cloudflare's ai-input, U-3) and from the Content-Signal header.
ROBOTS_C = (
    b"User-agent: *\n"
    b"Content-Usage: /cu/ ai-use=n\n"
    b"Content-Signal: /cs/ search=yes, ai-input=no\n"
    b"Content-Usage: /search-ok/ search=y, train-ai=n, ai-use=n\n"
)
C_LINE_2 = Source("content-usage", 2, "ai-use=n")
C_LINE_3 = Source("content-signal", 3, "search=yes, ai-input=no")
C_LINE_4 = Source("content-usage", 4, "search=y, train-ai=n, ai-use=n")


def signal_header(text: str) -> Source:
    return Source("signal-header", None, text)


def ai_use_site(server: MockServer) -> Origin:
    return server.add_origin(
        {
            "/robots.txt": Reply(body=ROBOTS_C),
            "/sh-no": Reply(body=b"n", headers={"Content-Signal": "ai-input=no"}),
            "/sh-yes": Reply(body=b"y", headers={"Content-Signal": "search=yes, ai-input=yes"}),
            # The two headers combine (U-4): the Content-Signal header's no wins.
            "/both": Reply(
                body=b"b", headers={"Content-Usage": "ai-use=y", "Content-Signal": "ai-input=no"}
            ),
            "/sh-bad": Reply(body=b"bad", headers={"Content-Signal": "AI-Input=no"}),
        }
    )


C_PATHS = (
    "/open",
    "/cu/page",
    "/cs/page",
    "/search-ok/page",
    "/sh-no",
    "/sh-yes",
    "/both",
    "/sh-bad",
)


@pytest_twisted.inlineCallbacks
def test_ai_use_from_lines_and_the_content_signal_header(server, activation, caplog):
    c = ai_use_site(server)
    with caplog.at_level(logging.DEBUG, logger=LOGGER):
        crawler = yield crawl(
            activation, [Stage([c.url(p) for p in C_PATHS])], ROBOTSTXT_RFC_USAGE=["ai-use"]
        )
    spider = crawler.spider
    # robots.txt's ai-use=n (either line): never downloaded.
    assert paths(server, c) == sorted(
        ["/robots.txt", "/open", "/sh-no", "/sh-yes", "/both", "/sh-bad"]
    )
    # A response header's no: downloaded, never given to the spider.
    assert sorted(spider.seen) == sorted([c.url("/open"), c.url("/sh-yes"), c.url("/sh-bad")])
    assert usage_of(spider) == {
        c.url("/open"): NO_PREFERENCES,
        c.url("/sh-yes"): prefs(
            ("ai-use", "allow", (signal_header("search=yes, ai-input=yes"),)),
            ("search", "allow", (signal_header("search=yes, ai-input=yes"),)),
        ),
        # Not a Structured Fields Dictionary: the header states nothing.
        c.url("/sh-bad"): NO_PREFERENCES,
    }
    assert failures(spider) == {
        c.url("/cu/page"): (
            "Forbidden by usage preference: ai-use=n (content-usage line 2) in robots.txt"
        ),
        c.url("/cs/page"): (
            "Forbidden by usage preference: ai-use=n (content-signal line 3) in robots.txt"
        ),
        c.url("/search-ok/page"): (
            "Forbidden by usage preference: ai-use=n (content-usage line 4) in robots.txt"
        ),
        c.url("/sh-no"): "Forbidden by usage preference: ai-use=n (Content-Signal header)",
        c.url("/both"): "Forbidden by usage preference: ai-use=n (Content-Signal header)",
    }
    both = next(e for u, e in spider.failures if u == c.url("/both"))
    assert (both.categories, both.where) == (("ai-use",), "header")
    assert both.preferences == prefs(("ai-use", "disallow", (signal_header("ai-input=no"),)))
    assert usage_stats(crawler) == {
        "robotstxt/usage/forbidden": 3,
        "robotstxt/usage/header_forbidden": 2,
        "robotstxt/usage/header": 1,
        "robotstxt/usage/signal_header": 4,
        "robotstxt/usage/signal_header_invalid": 1,
    }
    assert server.paths(c).count("/robots.txt") == 1
    assert [line for line in debug_lines(caplog) if "header" in line] == sorted(
        [
            # Only the header that says n is named.
            f"Forbidden by usage preference: <200 {c.url('/both')}>: "
            "the Content-Signal header 'ai-input=no' disallows ai-use",
            f"Forbidden by usage preference: <200 {c.url('/sh-no')}>: "
            "the Content-Signal header 'ai-input=no' disallows ai-use",
        ]
    )


@pytest_twisted.inlineCallbacks
def test_a_search_crawl_asks_about_search_alone(server, activation):
    """U-7 (vocab-08 §4.3): a crawl for search is governed by the search
    preference alone; ai-use=n and train-ai=n on the same URL drop nothing."""
    c = ai_use_site(server)
    crawler = yield crawl(
        activation, [Stage([c.url(p) for p in C_PATHS])], ROBOTSTXT_RFC_USAGE=["search"]
    )
    spider = crawler.spider
    assert paths(server, c) == sorted(["/robots.txt", *C_PATHS])
    assert failures(spider) == {}
    assert sorted(spider.seen) == sorted(c.url(p) for p in C_PATHS)
    meta = usage_of(spider)
    assert meta[c.url("/search-ok/page")] == prefs(
        ("train-ai", "disallow", (C_LINE_4,)),
        ("ai-use", "disallow", (C_LINE_4,)),
        ("search", "allow", (C_LINE_4,)),
    )
    assert meta[c.url("/cs/page")] == prefs(
        ("ai-use", "disallow", (C_LINE_3,)), ("search", "allow", (C_LINE_3,))
    )
    assert meta[c.url("/cu/page")] == prefs(("ai-use", "disallow", (C_LINE_2,)))
    assert usage_stats(crawler) == {
        "robotstxt/usage/header": 1,
        "robotstxt/usage/signal_header": 4,
        "robotstxt/usage/signal_header_invalid": 1,
    }


@pytest_twisted.inlineCallbacks
def test_the_old_category_name_still_drops(server, activation, caplog):
    """A project that still says "ai-input" gets ai-use, and one warning."""
    c = ai_use_site(server)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage([c.url("/cs/page"), c.url("/open")])],
            ROBOTSTXT_RFC_USAGE=["ai-input"],
        )
    assert paths(server, c) == ["/open", "/robots.txt"]
    assert failures(crawler.spider) == {
        c.url("/cs/page"): (
            "Forbidden by usage preference: ai-use=n (content-signal line 3) in robots.txt"
        )
    }
    warnings = [r.getMessage() for r in caplog.records if _ours(r) and "ai-input" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].startswith("ROBOTSTXT_RFC_USAGE (['ai-input']) names 'ai-input'")


def _ours(record: logging.LogRecord) -> bool:
    """A line of the package's: each module logs below :data:`LOGGER`."""
    return record.name.startswith(f"{LOGGER}.")
