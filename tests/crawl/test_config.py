"""Settings, read once at start-up: defaults, and one message naming the
setting, the value and what is allowed for each bad value, logged at
CRITICAL before the :class:`ConfigError` that carries it is raised.

``tests/crawl/test_startup.py`` runs ``scrapy crawl`` to check that this message is
the first thing a user sees."""

from __future__ import annotations

import logging
import os
import pickle
import sys
import time
from dataclasses import fields
from pathlib import Path

import pytest
from scrapy.settings import Settings

import scrapy_robots_rfc
from scrapy_robots_rfc._logging import LOGGER_NAME
from scrapy_robots_rfc.crawl._config import RANGES, Config, page_rules_asked, setting_names
from scrapy_robots_rfc.exceptions import ConfigError
from scrapy_robots_rfc.stores._redis_fleet import milliseconds

from ._support import (
    CACHE_BYTES,
    CACHE_TTL,
    DAYS,
    DELAY_MAX,
    LEASE,
    MAX_BYTES_ALLOWED,
    MAXIMA,
    ORIGINS,
    REDIRECTS,
    RETRY,
    STORE_TTL,
    TIMEOUT,
    WAIT,
    next_up,
)

STORES = (
    'It must be "memory", "sqlite:///relative/path.db", "sqlite:////absolute/path.db", '
    '"redis://host:port/db" (also rediss:// and unix://) or the import path of a store '
    'class ("myproject.stores.MyStore").'
)
STORE_CLASS = (
    "It must be a class with the methods of scrapy_robots_rfc.stores.Store: get, put, "
    "acquire, renew, release, ping and close."
)
SQLITE_URLS = (
    'It must be "sqlite:///relative/path.db" (three slashes: relative to the working '
    'directory) or "sqlite:////absolute/path.db" (four slashes: an absolute path).'
)
SQLITE_FILE = "It must be an SQLite file in an existing folder that the crawl can write to."
REDIS_URLS = (
    'It must be "redis://host:port/db" with a number for the port and the db (also '
    "rediss://, and unix:///path/to/socket?db=0)."
)
REPORT_FILE = "It must be a file path in an existing folder that the crawl can write to."
USAGE = 'a list of usage categories: "train-ai", "ai-use", "search" (e.g. ["train-ai"])'
BOOLEAN = (
    "True or False, or what Scrapy reads as one for any boolean setting: an integer "
    "(0 is False) or the strings '0', '1', 'True', 'true', 'False', 'false'"
)


def invalid(name: str, value: object, reason: str | None = None) -> str:
    """How every message starts."""
    why = "" if reason is None else f": {reason}"
    return f"The value of the {name} setting ({value!r}) is invalid{why}."


def error_of(settings: dict[str, object]) -> str:
    with pytest.raises(ConfigError) as info:
        Config.from_settings(Settings(settings))
    return str(info.value)


def test_defaults():
    config = Config.from_settings(Settings())
    assert config == Config(user_agent=config.user_agent)
    assert config.max_redirects == 5
    assert config.max_bytes == 512_000
    assert config.cache_ttl == 86_400
    assert config.cache_bytes == 256 * 1024 * 1024
    assert config.store is None
    assert config.report is None
    assert config.lease == 10
    assert config.store_ttl == 31 * 86_400  # UNREACHABLE_DAYS (30) + CACHE_TTL (1 day)
    assert config.hold == "auto"
    assert config.usage == ()
    assert config.usage_unknown == "allow"
    assert config.fetch_bound == 30 * 6 + 5  # TIMEOUT for the request and 5 redirects


USER_AGENT_ALLOWED = (
    "the crawler's name, or the names of a crawler family, most specific first, as a "
    "string separated by commas ('hedwig-images, hedwig') or a list of strings, none "
    "of them empty"
)


@pytest.mark.parametrize(
    ("name", "value", "allowed"),
    [
        ("ROBOTSTXT_RFC_MODE", "strict", "one of: 'rfc', 'google'"),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", -1, REDIRECTS),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", "five", REDIRECTS),
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", "inf", REDIRECTS),
        ("ROBOTSTXT_RFC_MAX_BYTES", 1000, MAX_BYTES_ALLOWED),
        ("ROBOTSTXT_RFC_CACHE_TTL", "soon", CACHE_TTL),
        ("ROBOTSTXT_RFC_CACHE_TTL", "inf", CACHE_TTL),
        ("ROBOTSTXT_RFC_CACHE_TTL", "nan", CACHE_TTL),
        ("ROBOTSTXT_RFC_MAX_ORIGINS", 0, ORIGINS),
        ("ROBOTSTXT_RFC_MAX_ORIGINS", 1.5, ORIGINS),
        ("ROBOTSTXT_RFC_CACHE_BYTES", 1024 * 1024 - 1, CACHE_BYTES),
        ("ROBOTSTXT_RFC_CACHE_BYTES", 0, CACHE_BYTES),
        ("ROBOTSTXT_RFC_CACHE_BYTES", "256 MiB", CACHE_BYTES),
        ("ROBOTSTXT_RFC_CACHE_BYTES", 2.5e8, CACHE_BYTES),
        ("ROBOTSTXT_RFC_TIMEOUT", 0, TIMEOUT),
        ("ROBOTSTXT_RFC_TIMEOUT", "inf", TIMEOUT),
        ("ROBOTSTXT_RFC_TIMEOUT", float("inf"), TIMEOUT),
        ("ROBOTSTXT_RFC_TIMEOUT", "nan", TIMEOUT),
        ("ROBOTSTXT_RFC_UNREACHABLE_RETRY", True, RETRY),
        ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", -1, WAIT),
        ("ROBOTSTXT_RFC_UNREACHABLE_WAIT", "-inf", WAIT),
        ("ROBOTSTXT_RFC_UNREACHABLE_DAYS", -1, DAYS),
        ("ROBOTSTXT_RFC_UNREACHABLE_DAYS", "inf", DAYS),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", "maybe", BOOLEAN),
        ("ROBOTSTXT_RFC_CRAWL_DELAY_MAX", "x", DELAY_MAX),
        ("ROBOTSTXT_RFC_CRAWL_DELAY_MAX", float("nan"), DELAY_MAX),
        *(
            ("ROBOTSTXT_USER_AGENT", value, USER_AGENT_ALLOWED)
            for value in (42, "a,,b", "a, ", ",", "   ", ["a", ""], ["a", 1], [])
        ),
        ("ROBOTSTXT_RFC_REPORT", "", "a file path"),
        ("ROBOTSTXT_RFC_REPORT", 42, "a file path"),
        ("ROBOTSTXT_RFC_LEASE", 1.4, LEASE),
        ("ROBOTSTXT_RFC_LEASE", "10s", LEASE),
        ("ROBOTSTXT_RFC_LEASE", "inf", LEASE),
        ("ROBOTSTXT_RFC_STORE_TTL", 3600, STORE_TTL),
        ("ROBOTSTXT_RFC_STORE_TTL", "31 days", STORE_TTL),
        ("ROBOTSTXT_RFC_STORE_TTL", "nan", STORE_TTL),
        ("ROBOTSTXT_RFC_HOLD", "redis", '"auto" or "memory"'),
        ("ROBOTSTXT_RFC_HOLD", "Memory", '"auto" or "memory"'),
        ("ROBOTSTXT_RFC_HOLD", False, '"auto" or "memory"'),
        ("ROBOTSTXT_RFC_USAGE", 42, USAGE),
        ("ROBOTSTXT_RFC_USAGE", {"train-ai": True}, USAGE),
        ("ROBOTSTXT_RFC_USAGE", ["train-ai", None], USAGE),
        ("ROBOTSTXT_RFC_USAGE_UNKNOWN", "deny", '"allow" or "disallow"'),
        ("ROBOTSTXT_RFC_USAGE_UNKNOWN", "Disallow", '"allow" or "disallow"'),
        ("ROBOTSTXT_RFC_USAGE_UNKNOWN", False, '"allow" or "disallow"'),
        ("ROBOTSTXT_RFC_NOFOLLOW", "sometimes", BOOLEAN),
        ("ROBOTSTXT_RFC_NOINDEX", "Drop", '"keep" or "drop"'),
        ("ROBOTSTXT_RFC_NOINDEX", True, '"keep" or "drop"'),
    ],
)
def test_invalid_settings_name_the_setting_the_value_and_what_is_allowed(name, value, allowed):
    assert error_of({name: value}) == f"{invalid(name, value)} It must be {allowed}."


def test_the_message_is_logged_at_critical_before_the_error_is_raised(caplog):
    with (
        caplog.at_level(logging.DEBUG, logger=LOGGER_NAME),
        pytest.raises(ValueError, match="ROBOTSTXT_RFC_TIMEOUT") as info,
    ):
        Config.from_settings(Settings({"ROBOTSTXT_RFC_TIMEOUT": "inf"}))
    error = info.value
    assert isinstance(error, scrapy_robots_rfc.ConfigError)
    assert (error.setting, error.value) == ("ROBOTSTXT_RFC_TIMEOUT", "inf")
    assert [(r.name, r.levelno, r.getMessage()) for r in caplog.records] == [
        ("scrapy_robots_rfc.crawl._config", logging.CRITICAL, str(error))
    ]
    copy = pickle.loads(pickle.dumps(error))
    assert (type(copy), str(copy), copy.setting) == (ConfigError, str(error), error.setting)


def test_good_settings_log_nothing(caplog, tmp_path):
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        Config.from_settings(Settings({"ROBOTSTXT_RFC_REPORT": str(tmp_path / "r.jsonl")}))
    assert caplog.records == []


@pytest.mark.parametrize(
    ("name", "value", "attribute", "expected"),
    [
        ("ROBOTSTXT_RFC_MAX_REDIRECTS", "0", "max_redirects", 0),
        ("ROBOTSTXT_RFC_CACHE_TTL", "3600", "cache_ttl", 3600.0),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", "true", "crawl_delay", True),
        ("ROBOTSTXT_RFC_CRAWL_DELAY", 0, "crawl_delay", False),
        ("ROBOTSTXT_RFC_MODE", "google", "mode", "google"),
        ("ROBOTSTXT_USER_AGENT", "MyBot", "robots_user_agent", "MyBot"),
        ("ROBOTSTXT_RFC_STORE", "memory", "store", "memory"),
        ("ROBOTSTXT_RFC_LEASE", "2.5", "lease", 2.5),
        ("ROBOTSTXT_RFC_STORE_TTL", "172800", "store_ttl", 172_800.0),
        ("ROBOTSTXT_RFC_HOLD", "memory", "hold", "memory"),
        ("ROBOTSTXT_RFC_USAGE", "train-ai", "usage", ("train-ai",)),
        ("ROBOTSTXT_RFC_USAGE", "search, train-ai,search", "usage", ("search", "train-ai")),
        ("ROBOTSTXT_RFC_USAGE", "", "usage", ()),
        ("ROBOTSTXT_RFC_USAGE_UNKNOWN", "disallow", "usage_unknown", "disallow"),
        ("ROBOTSTXT_RFC_NOFOLLOW", "true", "nofollow", True),
        ("ROBOTSTXT_RFC_NOINDEX", "drop", "noindex", "drop"),
    ],
)
def test_settings_from_the_command_line_are_strings(name, value, attribute, expected):
    assert getattr(Config.from_settings(Settings({name: value})), attribute) == expected


# -- ranges: every numeric setting has a largest value ----------------------------
# MAXIMA, the table of the ranges, is in _support.py: test_setting_ranges_e2e.py
# crawls with it too.


def test_every_numeric_setting_has_a_maximum():
    # crawl_delay is a boolean; logstats_interval and download_maxsize are
    # Scrapy's LOGSTATS_INTERVAL and DOWNLOAD_MAXSIZE.
    other = {"crawl_delay", "logstats_interval", "download_maxsize"}
    numeric = {f.name for f in fields(Config) if f.type in ("int", "float") and f.name not in other}
    assert numeric == {attribute for _, attribute, _, _ in MAXIMA}
    assert {name: r.maximum for name, r in RANGES.items()} == {
        attribute: largest for _, attribute, largest, _ in MAXIMA
    }


@pytest.mark.parametrize(("name", "attribute", "largest", "allowed"), MAXIMA)
def test_the_largest_value_is_taken_and_the_next_one_up_refused(name, attribute, largest, allowed):
    assert getattr(Config.from_settings(Settings({name: largest})), attribute) == largest
    # From the command line, as text.
    assert getattr(Config.from_settings(Settings({name: str(largest)})), attribute) == largest
    for above in (next_up(largest, attribute), 1e30):
        message = error_of({name: above})
        assert message == f"{invalid(name, above)} It must be {allowed}."
        assert f" to {largest} (" in message


#: Redis takes an expiry in whole milliseconds (PX, PEXPIRE) while the
#: server's clock plus it fits a 64-bit signed integer; the Lua scripts add
#: a lease to the clock as a double, exact below 2**53.
_REDIS_MS = 2**63 - 1
_LUA_EXACT = 2**53


def test_the_largest_durations_fit_what_redis_takes():
    """Every duration that reaches Redis, at its largest: the record's and
    the held requests' TTL, the lease, the fence (a fetch's bound plus a
    lease), the spacing of crawl-delay turns (plus its 1 s margin)."""
    largest = {attribute: value for _, attribute, value, _ in MAXIMA}
    config = Config.from_settings(Settings({name: value for name, _, value, _ in MAXIMA}))
    assert config.fetch_bound == 3600 * 21 + 5
    now_ms = int(time.time() * 1000) + 100 * 365 * 86400 * 1000  # a century from now
    for seconds in (
        config.store_ttl,
        config.lease,
        config.fetch_bound + config.lease,
        largest["crawl_delay_max"] + 1,
    ):
        ms = milliseconds(seconds)
        assert now_ms + ms < _REDIS_MS
        assert now_ms + ms < _LUA_EXACT
        assert float(ms).is_integer()


# -- ROBOTSTXT_RFC_MAX_BYTES and DOWNLOAD_MAXSIZE -----------------------------------


def test_max_bytes_and_download_maxsize_are_apart():
    """Any DOWNLOAD_MAXSIZE starts the crawl (issue 43): the robots.txt
    request carries its own limit, ROBOTSTXT_RFC_MAX_BYTES, and pages keep
    the user's."""
    for maxsize in (0, 1, 100_000, 511_999, 1_000_000, 1024**3, None):
        config = Config.from_settings(
            Settings({"DOWNLOAD_MAXSIZE": maxsize, "ROBOTSTXT_RFC_MAX_BYTES": 32 * 1024 * 1024})
        )
        assert config.max_bytes == 32 * 1024 * 1024
        assert config.download_maxsize == (maxsize or 0)
    assert Config.from_settings(Settings({"DOWNLOAD_MAXSIZE": 100_000})).max_bytes == 512_000
    assert error_of({"DOWNLOAD_MAXSIZE": "big"}) == (
        f"{invalid('DOWNLOAD_MAXSIZE', 'big')} It must be an integer of bytes (0: no limit)."
    )


# -- booleans: one rule, Scrapy's getbool -----------------------------------------

BOOLEANS = ["ROBOTSTXT_RFC_CRAWL_DELAY", "ROBOTSTXT_RFC_NOFOLLOW", "ROBOTSTXT_RFC_TDM"]


def test_the_boolean_settings_are_these():
    names = [setting_names()[f.name] for f in fields(Config) if f.type == "bool"]
    # REDIRECT_ENABLED is Scrapy's, read with its getbool too.
    assert [name for name in names if name.startswith("ROBOTSTXT_RFC_")] == BOOLEANS
    assert [name for name in names if not name.startswith("ROBOTSTXT_RFC_")] == ["REDIRECT_ENABLED"]


@pytest.mark.parametrize("name", BOOLEANS)
@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (True, True),
        (False, False),
        (1, True),
        (0, False),
        (2, True),
        ("1", True),
        ("0", False),
        ("True", True),
        ("true", True),
        ("False", False),
        ("false", False),
        (None, False),  # unset: the default
        ("yes", None),
        ("on", None),
        ("no", None),
        ("off", None),
        ("", None),
        ("TRUE", None),
        ("maybe", None),
        ([], None),
    ],
)
def test_every_boolean_setting_reads_as_scrapys_getbool(name, value, expected):
    """ROBOTSTXT_OBEY and every boolean setting of Scrapy's are read by
    ``getbool``; ours are too, with a ConfigError for what it cannot read."""
    settings = Settings({name: value})
    attribute = {v: k for k, v in setting_names().items()}[name]
    if expected is None:
        with pytest.raises((ValueError, TypeError)):
            settings.getbool(name)
        assert error_of({name: value}) == f"{invalid(name, value)} It must be {BOOLEAN}."
        if name == "ROBOTSTXT_RFC_NOFOLLOW":
            with pytest.raises(ConfigError):
                page_rules_asked(settings)
        return
    assert settings.getbool(name) is expected
    assert getattr(Config.from_settings(settings), attribute) is expected
    if name == "ROBOTSTXT_RFC_NOFOLLOW":
        assert page_rules_asked(settings) is expected


# -- ROBOTSTXT_RFC_USAGE, ROBOTSTXT_RFC_USAGE_UNKNOWN -------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["train-ai"], ("train-ai",)),
        (("ai-use", "search", "train-ai"), ("ai-use", "search", "train-ai")),
        (["search", "train-ai", "search"], ("search", "train-ai")),
        ([], ()),
    ],
)
def test_usage_takes_a_list_or_a_tuple_of_categories_in_order(value, expected):
    config = Config.from_settings(Settings({"ROBOTSTXT_RFC_USAGE": value}))
    assert config.usage == expected


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (["ai-train"], "'ai-train' is Content-Signal's label; the category is \"train-ai\""),
        ("search,ai-train", "'ai-train' is Content-Signal's label; the category is \"train-ai\""),
        (["train-ai", "foo"], "'foo' is not a usage category"),
        # vocab-08 §6.1: the labels are case-sensitive.
        (["Train-AI"], "'Train-AI' is not a usage category"),
        # An earlier draft's category (draft-ietf-aipref-vocab-01 to -03).
        ("train-genai", "'train-genai' is not a usage category"),
    ],
)
def test_an_unknown_usage_category_is_named(value, reason):
    assert error_of({"ROBOTSTXT_RFC_USAGE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_USAGE', value, reason)} It must be {USAGE}."
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (["ai-input"], ("ai-use",)),
        ("train-ai,ai-input", ("train-ai", "ai-use")),
        (["ai-input", "search", "ai-input"], ("ai-use", "search")),
        (["ai-use", "ai-input"], ("ai-use",)),
    ],
)
def test_ai_input_is_read_as_ai_use_with_one_warning(caplog, value, expected):
    """U-3 revised: the category this package called "ai-input" is
    draft-ietf-aipref-vocab-08's "ai-use"; a project that still names it
    keeps working, told once at start-up what to write instead."""
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        config = Config.from_settings(Settings({"ROBOTSTXT_RFC_USAGE": value}))
    assert config.usage == expected
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.WARNING,
            f"ROBOTSTXT_RFC_USAGE ({value!r}) names 'ai-input', which is now the category "
            '"ai-use" (draft-ietf-aipref-vocab-08 §4.2, AI Use; Content-Signal\'s ai-input '
            'is read as it): read as "ai-use"; write "ai-use" instead',
        )
    ]


def test_ai_use_logs_nothing(caplog):
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        config = Config.from_settings(Settings({"ROBOTSTXT_RFC_USAGE": ["ai-use"]}))
    assert config.usage == ("ai-use",)
    assert caplog.records == []


def test_usage_unknown_disallow_without_categories_warns(caplog):
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        config = Config.from_settings(Settings({"ROBOTSTXT_RFC_USAGE_UNKNOWN": "disallow"}))
    assert config.usage_unknown == "disallow"
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.WARNING,
            'ROBOTSTXT_RFC_USAGE_UNKNOWN is "disallow" but ROBOTSTXT_RFC_USAGE names no category: '
            "no request is dropped for usage preferences",
        )
    ]


def test_usage_unknown_disallow_with_categories_logs_nothing(caplog):
    settings = {"ROBOTSTXT_RFC_USAGE": ["search"], "ROBOTSTXT_RFC_USAGE_UNKNOWN": "disallow"}
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        config = Config.from_settings(Settings(settings))
    assert (config.usage, config.usage_unknown) == (("search",), "disallow")
    assert caplog.records == []


# -- ROBOTSTXT_RFC_STORE_TTL ------------------------------------------------------


def test_the_store_ttl_follows_the_unreachable_days_and_the_cache_ttl():
    settings = {"ROBOTSTXT_RFC_UNREACHABLE_DAYS": 2, "ROBOTSTXT_RFC_CACHE_TTL": 3600}
    assert Config.from_settings(Settings(settings)).store_ttl == 2 * 86_400 + 3600


def test_the_store_ttl_is_at_least_the_cache_ttl():
    settings = {"ROBOTSTXT_RFC_CACHE_TTL": 3600, "ROBOTSTXT_RFC_STORE_TTL": 3599}
    assert error_of(settings) == (
        f"{invalid('ROBOTSTXT_RFC_STORE_TTL', 3599)} It must be a number from 3600 to "
        "346896000 (seconds; at least ROBOTSTXT_RFC_CACHE_TTL; at most 4015 days)."
    )
    settings["ROBOTSTXT_RFC_STORE_TTL"] = 3600
    assert Config.from_settings(Settings(settings)).store_ttl == 3600


def test_a_redis_store_ttl_shorter_than_the_unreachable_days_warns(caplog, tmp_path):
    short = {"ROBOTSTXT_RFC_STORE_TTL": 7 * 86_400}
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        config = Config.from_settings(
            Settings({**short, "ROBOTSTXT_RFC_STORE": "redis://127.0.0.1:6379/0"})
        )
    assert config.store_ttl == 7 * 86_400
    assert [(r.levelno, r.getMessage()) for r in caplog.records] == [
        (
            logging.WARNING,
            "ROBOTSTXT_RFC_STORE_TTL (604800 seconds) is shorter than "
            "ROBOTSTXT_RFC_UNREACHABLE_DAYS (30 days): Redis forgets an origin that stays "
            "unreachable before then, and counts its days again from the start (it stays "
            "disallowed)",
        )
    ]
    caplog.clear()
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        # Records in memory or SQLite never expire.
        Config.from_settings(Settings(short))
        Config.from_settings(
            Settings({**short, "ROBOTSTXT_RFC_STORE": f"sqlite:///{tmp_path / 'r.db'}"})
        )
    assert caplog.records == []


# -- ROBOTSTXT_RFC_STORE: SQLite, as SQLAlchemy reads the URL --------------------


def test_three_slashes_is_relative_to_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "data").mkdir()
    monkeypatch.chdir(tmp_path)
    value = "sqlite:///data/robots.db"
    assert Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": value})).store == value


def test_four_slashes_is_absolute(tmp_path):
    value = f"sqlite:///{tmp_path / 'robots.db'}"
    assert value.startswith("sqlite:////")
    assert Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": value})).store == value


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("sqlite://x.db", "'x.db' is in the host's place, and an SQLite URL has no host"),
        (
            "sqlite://data/x.db",
            "'data' is in the host's place, and an SQLite URL has no host",
        ),
        ("sqlite://", "it names no file"),
        ("sqlite:///", "it names no file"),
        ("sqlite:///x.db?mode=ro", "query options (?...) are not supported"),
    ],
)
def test_an_sqlite_url_that_names_no_file_shows_both_forms(value, reason):
    assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_STORE', value, reason)} {SQLITE_URLS}"
    )


def test_a_missing_folder_is_an_error_and_never_created(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for value, folder in [
        ("sqlite:///missing/sub/robots.db", tmp_path / "missing" / "sub"),
        (f"sqlite:///{tmp_path / 'gone' / 'robots.db'}", tmp_path / "gone"),
    ]:
        reason = f"the folder {folder} does not exist"
        assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
            f"{invalid('ROBOTSTXT_RFC_STORE', value, reason)} {SQLITE_FILE}"
        )
    assert list(tmp_path.iterdir()) == []


def test_a_folder_or_a_file_for_a_folder_is_an_error(tmp_path):
    (tmp_path / "file").write_text("")
    for value, reason in [
        (f"sqlite:///{tmp_path}", f"{tmp_path} is a folder"),
        (f"sqlite:///{tmp_path}/", f"{tmp_path} is a folder"),
        (f"sqlite:///{tmp_path / 'file' / 'robots.db'}", f"{tmp_path / 'file'} is not a folder"),
    ]:
        assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
            f"{invalid('ROBOTSTXT_RFC_STORE', value, reason)} {SQLITE_FILE}"
        )


@pytest.mark.skipif(os.geteuid() == 0, reason="root writes to read-only folders")
def test_a_read_only_folder_is_an_error(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir(mode=0o500)
    value = f"sqlite:///{folder / 'robots.db'}"
    assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_STORE', value, f'the folder {folder} is not writable')} "
        f"{SQLITE_FILE}"
    )


# -- ROBOTSTXT_RFC_STORE: Redis, checked without connecting -------------------------


@pytest.mark.parametrize(
    "value",
    [
        "redis://127.0.0.1:1/0",  # nothing listens there: not checked at start-up
        "redis://localhost",
        "redis://user:secret@localhost:6379/15",
        "rediss://localhost:6380/2?socket_timeout=5",
        "unix:///run/redis.sock?db=1",
    ],
)
def test_a_well_formed_redis_url_is_accepted_without_connecting(value):
    assert Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": value})).store == value


@pytest.mark.parametrize(
    ("value", "shown", "reason"),
    [
        ("redis://localhost/notadb", None, "the database ('notadb') is not a number"),
        ("redis://localhost:6379/1/2", None, "the database ('1/2') is not a number"),
        ("redis://localhost:6379/-1", None, "the database ('-1') is not a number"),
        (
            "redis://localhost:port/0",
            None,
            "Port could not be cast to integer value as 'port'",
        ),
        ("redis://localhost:99999/0", None, "Port out of range 0-65535"),
        ("redis://localhost:6379/0?db=x", None, "Invalid value for 'db' in connection URL."),
        (
            "redis://localhost:6379/0?colour=blue",
            None,
            "redis-py does not take an option of it: AbstractConnection.__init__() got an "
            "unexpected keyword argument 'colour'",
        ),
        ("unix://", None, "it names no socket path (unix:///path/to/socket)"),
        (
            "redis://robot:s3cret@localhost:port/0?password=s3cret",
            "redis://robot:***@localhost:port/0?password=***",
            "Port could not be cast to integer value as 'port'",
        ),
    ],
)
def test_a_malformed_redis_url_is_an_error_without_its_password(value, shown, reason):
    shown = shown or value
    message = error_of({"ROBOTSTXT_RFC_STORE": value})
    assert message == f"{invalid('ROBOTSTXT_RFC_STORE', shown, reason)} {REDIS_URLS}"
    assert "s3cret" not in message


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        ("Memory", "Memory"),
        ("sqlite:/x.db", "sqlite:/x.db"),
        ("postgresql://user:pw@host/db", "postgresql://user:***@host/db"),
        (42, 42),
    ],
)
def test_an_unknown_store_lists_what_is_allowed(value, shown):
    assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_STORE', shown)} {STORES}"
    )


# -- ROBOTSTXT_RFC_STORE: a class of one's own, as HTTPCACHE_STORAGE -------------


class NoLeases:
    """A store without the lease methods."""

    def get(self, origin: str) -> None: ...
    def put(self, origin: str, record: object) -> bool: ...
    def ping(self) -> None: ...
    def close(self) -> None: ...


NOT_A_CLASS = object()


@pytest.mark.parametrize(
    "value",
    ["tests.dict_store.DictStore", "tests.dict_store.CrawlerDictStore"],
)
def test_a_store_class_by_import_path_is_kept_as_given(value):
    config = Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": value}))
    assert config.store == value
    assert config.in_effect()["ROBOTSTXT_RFC_STORE"] == value


def test_a_store_class_itself_is_kept_and_shown_by_its_path():
    from ..dict_store import DictStore

    config = Config.from_settings(Settings({"ROBOTSTXT_RFC_STORE": DictStore}))
    assert config.store is DictStore
    assert config.in_effect()["ROBOTSTXT_RFC_STORE"] == "tests.dict_store.DictStore"


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        ("myproject.nowhere.Store", "No module named 'myproject'"),
        ("tests.nowhere.Store", "No module named 'tests.nowhere'"),
        (
            "tests.dict_store.Nothing",
            "Module 'tests.dict_store' doesn't define any object named 'Nothing'",
        ),
    ],
)
def test_a_store_path_that_cannot_be_imported_is_an_error(value, reason, caplog):
    with caplog.at_level(logging.CRITICAL, logger=LOGGER_NAME):
        message = error_of({"ROBOTSTXT_RFC_STORE": value})
    assert message == (
        f"{invalid('ROBOTSTXT_RFC_STORE', value, f'it cannot be imported: {reason}')} {STORES}"
    )
    assert [r.getMessage() for r in caplog.records] == [message]


@pytest.mark.parametrize(
    ("value", "reason"),
    [
        (f"{__name__}.NoLeases", "NoLeases has no acquire, renew or release method"),
        (
            "scrapy_robots_rfc.stores.Record",
            "Record has no get, put, acquire, renew, release, ping or close method",
        ),
        (NoLeases, "NoLeases has no acquire, renew or release method"),
        ("os.path.join", "it is a function, not a class"),
        (f"{__name__}.NOT_A_CLASS", "it is an object, not a class"),
    ],
)
def test_a_store_class_without_the_store_methods_is_an_error(value, reason):
    assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_STORE', value, reason)} {STORE_CLASS}"
    )


def test_a_redis_store_without_redis_py_says_how_to_install_it(monkeypatch):
    # An import of a module set to None in sys.modules raises ImportError,
    # as it does when redis-py is not installed (also run for real by
    # tests/crawl/test_startup.py).
    monkeypatch.setitem(sys.modules, "redis", None)
    value = "redis://robot:s3cret@localhost:6379/0"
    shown = "redis://robot:***@localhost:6379/0"
    assert error_of({"ROBOTSTXT_RFC_STORE": value}) == (
        f"{invalid('ROBOTSTXT_RFC_STORE', shown, 'the redis package is not installed')} "
        'It must be "memory", an SQLite file, or a Redis URL with redis-py installed: '
        "pip install 'scrapy-robots-rfc[redis]' (or pip install redis)."
    )


# -- ROBOTSTXT_RFC_REPORT ------------------------------------------------------


def test_a_report_in_an_existing_folder_is_accepted(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for value in ["report.jsonl", str(tmp_path / "report.jsonl"), tmp_path / "r.jsonl"]:
        expected = os.fspath(value)
        assert Config.from_settings(Settings({"ROBOTSTXT_RFC_REPORT": value})).report == expected
    assert list(tmp_path.iterdir()) == [], "nothing is written at start-up"


def test_a_report_path_is_checked_at_start_up(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "file").write_text("")
    for value, reason in [
        (str(tmp_path), f"{tmp_path} is a folder"),
        ("missing/report.jsonl", f"the folder {tmp_path / 'missing'} does not exist"),
        ("file/report.jsonl", f"{tmp_path / 'file'} is not a folder"),
    ]:
        assert error_of({"ROBOTSTXT_RFC_REPORT": value}) == (
            f"{invalid('ROBOTSTXT_RFC_REPORT', value, reason)} {REPORT_FILE}"
        )
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_a_report_path_starting_with_a_tilde_is_in_the_home_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    value = "~/nowhere/report.jsonl"
    reason = f"the folder {Path(tmp_path) / 'nowhere'} does not exist"
    assert error_of({"ROBOTSTXT_RFC_REPORT": value}) == (
        f"{invalid('ROBOTSTXT_RFC_REPORT', value, reason)} {REPORT_FILE}"
    )
    settings = Settings({"ROBOTSTXT_RFC_REPORT": "~/report.jsonl"})
    assert Config.from_settings(settings).report == "~/report.jsonl"
