"""Misspelt setting names (README.rst, "Settings"): which names are ours,
which are flagged, and the name suggested for each. The names come from
:class:`~scrapy_robots_rfc.crawl._config.Config`'s fields; these tests keep that
list true to what the package reads.

Crawls with a misspelt name, both activations, are in
``tests/crawl/test_middleware.py``; ``scrapy crawl -s`` with one in
``tests/crawl/test_startup.py``.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from scrapy.settings import Settings, default_settings

from scrapy_robots_rfc.crawl._config import MONITOR_SETTINGS, PREFIX, Config, setting_names
from scrapy_robots_rfc.crawl._misspelt_settings import KNOWN, misspelt, suggestion
from scrapy_robots_rfc.exceptions import ConfigError

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_robots_rfc"
OURS = sorted(name for name in setting_names().values() if name.startswith(PREFIX))


def test_our_names_are_the_config_fields_read_from_settings():
    names = setting_names()
    # The crawler's name comes from Scrapy's settings: not a name of ours.
    assert names["robots_user_agent"] == names["robots_names"] == "ROBOTSTXT_USER_AGENT"
    assert names["user_agent"] == "USER_AGENT"
    assert names["cache_ttl"] == "ROBOTSTXT_RFC_CACHE_TTL"
    assert names["cache_bytes"] == "ROBOTSTXT_RFC_CACHE_BYTES"
    assert "ROBOTSTXT_RFC_ROBOTS_NAMES" not in KNOWN
    assert "ROBOTSTXT_RFC_USER_AGENT" not in KNOWN
    assert len(OURS) == 23


@pytest.mark.parametrize("name", OURS)
def test_every_name_of_ours_is_read_by_config(name):
    """A name in the list that nothing reads would hide a misspelling: each
    one's bad value stops the crawl, naming it."""
    with pytest.raises(ConfigError) as info:
        Config.from_settings(Settings({name: object()}))
    assert info.value.setting == name


def test_every_name_of_ours_the_package_mentions_is_known():
    """A setting read outside Config would be missing from the list
    (_misspelt_settings.py's docstring shows a misspelt one)."""
    mentioned = {
        name
        for path in PACKAGE.rglob("*.py")
        if path.name != "_misspelt_settings.py"
        for name in re.findall(r"\bROBOTSTXT_RFC_[A-Z_]*[A-Z]\b", path.read_text("utf-8"))
    }
    assert sorted(mentioned - KNOWN) == []
    assert sorted(set(OURS) - mentioned) == []


def test_scrapys_robotstxt_names_are_known_and_not_ours():
    scrapys = {name for name in dir(default_settings) if name.startswith("ROBOTSTXT_")}
    assert {"ROBOTSTXT_OBEY", "ROBOTSTXT_USER_AGENT", "ROBOTSTXT_PARSER"} <= scrapys
    # The monitors' thresholds are read by the monitors, not Config.
    assert scrapys | set(OURS) | set(MONITOR_SETTINGS) == KNOWN
    assert not any(name.startswith(PREFIX) for name in scrapys)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # The example: one letter left out.
        ("ROBOTSTXT_RFC_TIMOUT", "ROBOTSTXT_RFC_TIMEOUT"),
        ("ROBOTSTXT_RFC_CACHETTL", "ROBOTSTXT_RFC_CACHE_TTL"),
        ("ROBOTSTXT_RFC_MAX_ORIGIN", "ROBOTSTXT_RFC_MAX_ORIGINS"),
        ("ROBOTSTXT_RFC_STORE_TL", "ROBOTSTXT_RFC_STORE_TTL"),
        ("ROBOTSTXT_RFC_USAGE_UNKNWN", "ROBOTSTXT_RFC_USAGE_UNKNOWN"),
        ("ROBOTSTXT_RFC_CRAWLDELAY_MAX", "ROBOTSTXT_RFC_CRAWL_DELAY_MAX"),
        ("ROBOTSTXT_RFC_DELAY", "ROBOTSTXT_RFC_CRAWL_DELAY"),
        # Scrapy's settings are case-sensitive: the wrong case is a slip.
        ("robotstxt_rfc_timeout", "ROBOTSTXT_RFC_TIMEOUT"),
        # The prefix left out or swapped.
        ("ROBOTSTXT_CRAWL_DELAY", "ROBOTSTXT_RFC_CRAWL_DELAY"),
        ("ROBOTSTXT_RCF_TIMEOUT", "ROBOTSTXT_RFC_TIMEOUT"),
        # Scrapy's own names are suggested too.
        ("ROBOTSTXT_RFC_USER_AGENT", "ROBOTSTXT_USER_AGENT"),
        ("ROBOTSTXT_USERAGENT", "ROBOTSTXT_USER_AGENT"),
        ("ROBOTSTXT_OBAY", "ROBOTSTXT_OBEY"),
        # Nothing close: no suggestion rather than a wild one.
        ("ROBOTSTXT_RFC_FOO", None),
        ("ROBOTSTXT_RFC_", None),
        ("ROBOTSTXT_SITEMAPS", None),
    ],
)
def test_the_closest_known_name_is_suggested(name, expected):
    assert suggestion(name) == expected


def test_a_known_name_suggests_itself():
    assert all(suggestion(name) == name for name in KNOWN)


def test_every_unknown_name_of_ours_is_flagged_and_others_only_when_close():
    names = [
        *KNOWN,
        "ROBOTSTXT_RFC_TIMOUT",
        "ROBOTSTXT_RFC_FOO",
        "robotstxt_rfc_mode",
        "ROBOTSTXT_CRAWL_DELAY",
        # Another package's robots.txt setting, close to nothing of ours.
        "ROBOTSTXT_SITEMAPS",
        "USER_AGENT",
        "DOWNLOAD_DELAY",
    ]
    assert misspelt(names) == [
        ("ROBOTSTXT_CRAWL_DELAY", "ROBOTSTXT_RFC_CRAWL_DELAY"),
        ("ROBOTSTXT_RFC_FOO", None),
        ("ROBOTSTXT_RFC_TIMOUT", "ROBOTSTXT_RFC_TIMEOUT"),
        ("robotstxt_rfc_mode", "ROBOTSTXT_RFC_MODE"),
    ]


def test_scrapys_defaults_hold_nothing_misspelt():
    assert misspelt(Settings()) == []


def test_settings_in_effect_are_ours_with_their_defaults():
    config = Config.from_settings(Settings({"ROBOTSTXT_RFC_CACHE_TTL": "3600"}))
    in_effect = config.in_effect()
    assert sorted(in_effect) == OURS
    assert in_effect["ROBOTSTXT_RFC_CACHE_TTL"] == 3600.0
    assert in_effect["ROBOTSTXT_RFC_MODE"] == "rfc"
    assert in_effect["ROBOTSTXT_RFC_CRAWL_DELAY"] is False
    # The store in force, as the docs name the default (issue 34: not None).
    assert in_effect["ROBOTSTXT_RFC_STORE"] == "memory"
    with_jobdir = Config.from_settings(Settings({"JOBDIR": "job"})).in_effect()
    assert (
        with_jobdir["ROBOTSTXT_RFC_STORE"] == f"sqlite:///{os.path.abspath('job')}/robotstxt_rfc.db"
    )


def test_settings_in_effect_hide_a_redis_password():
    pytest.importorskip("redis")
    url = "redis://user:s3cret@localhost:6379/0"
    config = Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": url}))
    shown = config.in_effect()["ROBOTSTXT_RFC_STORE"]
    assert isinstance(shown, str)
    assert "s3cret" not in shown
    assert "localhost:6379/0" in shown
