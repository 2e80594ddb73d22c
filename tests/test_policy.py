"""The pure parts of the middleware: status policy, lifetimes, backoff,
origins and settings (construction-level; the crawls are in
test_middleware.py). Time is always passed in: no test sleeps."""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import format_datetime

import pytest
from scrapy.extensions.httpcache import parse_cachecontrol
from scrapy.settings import Settings

from scrapy_robots_rfc import RobotsTxt, policy
from scrapy_robots_rfc.addon import BUILTIN, OURS, Addon
from scrapy_robots_rfc.config import Config
from scrapy_robots_rfc.middleware import Origin, origin

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


# -- origins: LOC-1 to LOC-8 --------------------------------------------------------------


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("http://example.com/a", Origin("http", "example.com", 80)),
        ("http://example.com:80/a", Origin("http", "example.com", 80)),
        ("https://example.com/a", Origin("https", "example.com", 443)),
        ("https://example.com:443/", Origin("https", "example.com", 443)),
        ("https://example.com:8443/", Origin("https", "example.com", 8443)),
        ("HTTP://EXAMPLE.com/A", Origin("http", "example.com", 80)),
        ("http://user:pw@example.com/", Origin("http", "example.com", 80)),
        ("http://www.exämple.com/", Origin("http", "www.xn--exmple-cua.com", 80)),
        ("http://[::1]:8080/", Origin("http", "[::1]", 8080)),
        ("http://127.0.0.1:5000/x", Origin("http", "127.0.0.1", 5000)),
        ("ftp://example.com/", None),
        ("data:,hello", None),
        ("file:///etc/passwd", None),
        ("http:///nohost", None),
        ("http://example.com:99999/", None),
        ("http://example.com:abc/", None),
    ],
)
def test_origin(url, expected):
    assert origin(url) == expected


def test_http_and_https_are_different_origins():
    assert origin("http://h/") != origin("https://h/")


def test_robots_url():
    assert Origin("https", "example.com", 443).robots_url == "https://example.com/robots.txt"
    assert Origin("http", "example.com", 8080).robots_url == "http://example.com:8080/robots.txt"


# -- settings ------------------------------------------------------------------------------


def test_defaults():
    config = Config.from_settings(Settings())
    assert config == Config(user_agent=config.user_agent)
    assert config.max_redirects == 5
    assert config.max_bytes == 512_000
    assert config.cache_ttl == 86_400


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("ROBOTSTXT_RFC_MODE", "strict", "It must be one of: 'rfc', 'google'"),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", -1, "an integer of 0 or more"),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", "five", "an integer of 0 or more"),
        ("ROBOTSTXT_RFC_MAX_BYTES", 1000, "an integer of 512000 or more"),
        ("ROBOTSTXT_RFC_CACHE_TTL", "soon", "a number of 1 or more"),
        ("ROBOTSTXT_RFC_CACHE_TTL", float("nan"), "a number of 1 or more"),
        ("ROBOTSTXT_RFC_MAX_ORIGINS", 0, "an integer of 1 or more"),
        ("ROBOTSTXT_RFC_TIMEOUT", 0, "a number of 0.001 or more"),
        ("ROBOTSTXT_RFC_UNREACHABLE_RETRY", True, "a number of 0.001 or more"),
        ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", -1, "a number of 0 or more"),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", "maybe", "True or False"),
        ("ROBOTSTXT_RFC_CRAWL_DELAY_MAX", "x", "a number of 0 or more"),
        ("ROBOTSTXT_USER_AGENT", 42, "a string"),
    ],
)
def test_invalid_settings_name_the_setting_the_value_and_what_is_allowed(name, value, allowed):
    with pytest.raises(ValueError, match="The value of the") as info:
        Config.from_settings(Settings({name: value}))
    message = str(info.value)
    assert f"{name} setting ({value!r}) is invalid" in message
    assert allowed in message


@pytest.mark.parametrize(
    ("name", "value", "attribute", "expected"),
    [
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", "0", "max_redirects", 0),
        ("ROBOTSTXT_RFC_CACHE_TTL", "3600", "cache_ttl", 3600.0),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", "true", "crawl_delay", True),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", 0, "crawl_delay", False),
        ("ROBOTSTXT_RFC_MODE", "google", "mode", "google"),
        ("ROBOTSTXT_USER_AGENT", "MyBot", "robots_user_agent", "MyBot"),
    ],
)
def test_settings_from_the_command_line_are_strings(name, value, attribute, expected):
    assert getattr(Config.from_settings(Settings({name: value})), attribute) == expected


# -- the add-on ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "user",
    [
        {},
        {BUILTIN: 100},
        pytest.param("class", id="class-key"),
    ],
)
def test_addon_switches_the_builtin_off_whatever_key_the_user_used(user):
    from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as Builtin
    from scrapy.utils.conf import build_component_list

    settings = Settings()
    value = {Builtin: 100} if user == "class" else user
    settings.set("DOWNLOADER_MIDDLEWARES", value, priority="spider")  # custom_settings
    Addon().update_settings(settings)
    # What Scrapy's middleware manager reads: 2.15+ merges class and path keys.
    if hasattr(settings, "get_component_priority_dict_with_base"):
        merged = settings.get_component_priority_dict_with_base("DOWNLOADER_MIDDLEWARES")
    else:
        merged = settings.getwithbase("DOWNLOADER_MIDDLEWARES")
    enabled = build_component_list(merged)
    names = [c if isinstance(c, str) else f"{c.__module__}.{c.__qualname__}" for c in enabled]
    assert BUILTIN not in names
    assert Builtin not in enabled
    assert OURS in names
