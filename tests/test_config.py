"""Settings, read once at start-up: defaults, and a message naming the
setting, the value and what is allowed for each bad value."""

from __future__ import annotations

import pytest
from scrapy.settings import Settings

from scrapy_robots_rfc.config import Config


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
        ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", -1, "a number of 0 or more (seconds)"),
        ("ROBOTSTXT_RFC_UNREACHABLE_DAYS", -1, "a number of 0 or more (days)"),
        ("ROBOTSTXT_RFC_MAX_ORIGINS", 1.5, "an integer of 1 or more (origins)"),
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
