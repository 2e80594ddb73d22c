"""The status policy, lifetimes, backoff and cache entries
(construction-level; the crawls are in test_middleware.py). Time is always
passed in: no test sleeps."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from scrapy.extensions.httpcache import parse_cachecontrol

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc._logging import duration
from scrapy_robots_rfc.policy import _policy as policy

# -- RFC 9309 §2.3.1: HTTP-1 to HTTP-8 ---------------------------------------------------


@pytest.mark.parametrize(
    ("status", "expected"),
    [
        (200, "parse"),
        (204, "parse"),
        (299, "parse"),
        (301, "redirect"),
        (308, "redirect"),
        (400, "allow_all"),
        (401, "allow_all"),
        (403, "allow_all"),
        (404, "allow_all"),
        (410, "allow_all"),
        (429, "unreachable"),
        (500, "unreachable"),
        (503, "unreachable"),
        (599, "unreachable"),
        (100, "unreachable"),  # HTTP-8: anything else
        (600, "unreachable"),
    ],
)
def test_classify(status, expected):
    assert policy.classify(status) == expected


# -- RFC 9309 §2.4: CACHE-1, CACHE-3 ------------------------------------------------------


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        (b"", 86400),
        (b"max-age=3600", 3600),
        (b"public, max-age=7200", 7200),
        (b"max-age=999999", 86400),  # may only shorten
        (b"max-age=1", policy.MIN_LIFETIME),
        (b"max-age=0", policy.MIN_LIFETIME),
        (b"s-maxage=120, max-age=3600", 120),
        (b"no-cache", 86400),  # "re-fetch when it expires"
        (b"no-store", 86400),
        (b"max-age=abc", 86400),
        (b"max-age", 86400),
    ],
)
def test_lifetime(header, expected):
    assert policy.lifetime(parse_cachecontrol(header), 86400) == expected


def test_lifetime_floor_never_exceeds_a_short_ttl():
    assert policy.lifetime({}, 10) == 10
    assert policy.lifetime(parse_cachecontrol(b"max-age=1"), 10) == 10


def test_retry_after():
    now = 1_700_000_000.0
    date = format_datetime(datetime.fromtimestamp(now + 120, UTC), usegmt=True).encode()
    assert policy.retry_after(b"30", now) == 30
    assert policy.retry_after(b" 7 ", now) == 7
    assert policy.retry_after(date, now) == pytest.approx(120)
    assert policy.retry_after(b"yesterday", now) is None
    assert policy.retry_after(None, now) is None
    past = format_datetime(datetime.fromtimestamp(now - 60, UTC), usegmt=True).encode()
    assert policy.retry_after(past, now) == 0


def test_backoff_doubles_up_to_a_ceiling():
    assert [policy.backoff(n, 30) for n in (1, 2, 3, 4)] == [30, 60, 120, 240]
    assert policy.backoff(50, 30) == policy.MAX_RETRY_DELAY
    assert policy.backoff(1, 30, hint=300) == 300
    assert policy.backoff(1, 30, hint=10**9) == policy.MAX_RETRY_DELAY


@pytest.mark.parametrize("hint", [0, 5, 29.9])
def test_retry_after_never_shortens_the_backoff(hint):
    # A "Retry-After: 0", or a date in the past, must not mean a hot loop.
    assert policy.backoff(1, 30, hint=hint) == 30
    assert policy.backoff(3, 30, hint=hint) == 120


# -- Entry: HTTP-5, HTTP-7 ---------------------------------------------------------------


def rules() -> dict[str, object]:
    return {"bot": RobotsTxt.parse(b"User-agent: *\nDisallow: /x\n").for_agent("bot")}


def test_fresh_entry_is_usable_until_it_expires():
    entry = policy.fetched(rules(), outcome="200", now=100, fresh_for=60)  # type: ignore[arg-type]
    assert entry.usable(159.9)
    assert not entry.due(159.9)
    assert not entry.usable(160)
    assert entry.due(160)


def test_unreachable_without_a_good_copy_disallows_until_30_days():
    entry = policy.unreachable(None, outcome="HTTP 503", now=0, first_retry=30)
    assert not entry.good
    assert not entry.usable(10)
    assert entry.retry_at == 30
    again = policy.unreachable(entry, outcome="HTTP 503", now=30, first_retry=30)
    assert again.unreachable_since == 0
    assert again.retry_at == 30 + 60
    assert not again.usable(policy.UNREACHABLE_ALLOW_AFTER - 1)
    assert again.usable(policy.UNREACHABLE_ALLOW_AFTER)
    assert again.rules is None
    assert again.state(policy.UNREACHABLE_ALLOW_AFTER) is policy.State.ALLOW_ALL


def test_unreachable_keeps_the_last_good_copy_in_force():
    good = policy.fetched(rules(), outcome="200", now=0, fresh_for=86400)  # type: ignore[arg-type]
    entry = policy.unreachable(good, outcome="HTTP 500", now=90_000, first_retry=30, hint=45)
    assert entry.good
    assert entry.rules is good.rules
    assert entry.usable(90_001)
    assert not entry.due(90_044)
    assert entry.due(90_045)


SITEMAPS = ("https://a.test/sitemap.xml", "https://b.test/news.xml")


def test_the_sitemaps_stay_with_the_good_copy():
    """OTHER-1: in file order, through a failed fetch (HTTP-5), and none
    without a good copy."""
    good = policy.fetched(rules(), outcome="200", now=0, fresh_for=60, sitemaps=SITEMAPS)  # type: ignore[arg-type]
    assert good.sitemaps == SITEMAPS
    failed = policy.unreachable(good, outcome="HTTP 500", now=90, first_retry=30)
    assert failed.sitemaps == SITEMAPS
    assert policy.unreachable(None, outcome="HTTP 500", now=0, first_retry=30).sitemaps == ()
    answer = policy.Answer(policy.State.ALLOW_ALL, "no robots.txt", 404)
    missing = policy.entry_for(
        answer, None, rules=None, now=0, fresh_for=60, first_retry=30, sitemaps=SITEMAPS
    )
    assert missing.sitemaps == ()  # a 4xx has no file, so no Sitemap lines


# -- durations in log lines ----------------------------------------------------------


@pytest.mark.parametrize(
    ("seconds", "words"),
    [(0, "0"), (-1, "0"), (0.3, "0.3"), (2.5, "2.5"), (9.96, "10"), (29.9996, "30"), (600, "600")],
)
def test_durations_in_words(seconds: float, words: str):
    """Tenths below 10 s (a 0.3 s retry is not "0 s"), whole seconds above."""
    assert duration(seconds) == words
