"""A bad setting as a user meets it: ``scrapy crawl`` in a project of its
own, in a subprocess. The crawl stops before anything is fetched, exits
non-zero, and says it in one CRITICAL line that names the setting, the value
and what is allowed: no other ERROR or CRITICAL line, no traceback, the
message once (issue 43), on Scrapy 2.14+ (the crawl an asyncio task) as on
2.13 (a Deferred): ``make test-oldest`` runs these."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

_SCRAPY = Path(sys.executable).parent / "scrapy"
SCRAPY = [str(_SCRAPY)] if _SCRAPY.exists() else [sys.executable, "-m", "scrapy"]

SETTINGS = """
BOT_NAME = "startup"
SPIDER_MODULES = ["startup.spiders"]
ROBOTSTXT_OBEY = True
TELNETCONSOLE_ENABLED = False
LOG_LEVEL = "INFO"
"""
ADDON = 'ADDONS = {"scrapy_robots_rfc.Addon": 100}\n'
MANUAL = (
    "DOWNLOADER_MIDDLEWARES = {\n"
    '    "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": None,\n'
    '    "scrapy_robots_rfc.RobotsTxtMiddleware": 100,\n'
    "}\n"
)
SPIDER = """
import scrapy


class Nothing(scrapy.Spider):
    name = "nothing"
    start_urls = []
"""
#: A log line as Scrapy writes it: "2026-01-01 00:00:00 [logger] LEVEL: message".
LOG_LINE = re.compile(r"^\S+ \S+ \[(?P<logger>[^\]]+)\] (?P<level>[A-Z]+): (?P<message>.*)$")


def project(root: Path, activation: str) -> Path:
    (root / "startup" / "spiders").mkdir(parents=True)
    (root / "scrapy.cfg").write_text("[settings]\ndefault = startup.settings\n")
    (root / "startup" / "__init__.py").write_text("")
    (root / "startup" / "settings.py").write_text(SETTINGS + activation)
    (root / "startup" / "spiders" / "__init__.py").write_text("")
    (root / "startup" / "spiders" / "nothing.py").write_text(SPIDER)
    return root


def crawl(
    root: Path, setting: str, *, pythonpath: str | None = None
) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}
    env.pop("PYTHONPATH", None)
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    return subprocess.run(
        [*SCRAPY, "crawl", "nothing", "-s", setting],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


def assert_stopped_with(
    done: subprocess.CompletedProcess[str],
    message: str,
    logger: str = "scrapy_robots_rfc.crawl._config",
) -> None:
    """Exit status 1, and the message once, in the one ERROR or CRITICAL
    line; no traceback, no second report of the error."""
    assert done.returncode == 1, done.stderr
    lines = [m.groups() for m in map(LOG_LINE.match, done.stderr.splitlines()) if m]
    errors = [line for line in lines if line[1] in ("ERROR", "CRITICAL")]
    assert errors == [(logger, "CRITICAL", message)], done.stderr
    assert "Spider opened" not in done.stderr
    assert "Traceback" not in done.stderr, done.stderr
    assert done.stderr.count(message) == 1, done.stderr
    assert "never retrieved" not in done.stderr
    assert "Unhandled error" not in done.stderr


@pytest.mark.parametrize("activation", [ADDON, MANUAL], ids=["addon", "manual"])
@pytest.mark.parametrize(
    ("setting", "message"),
    [
        (
            "ROBOTSTXT_RFC_TIMEOUT=inf",
            "The value of the ROBOTSTXT_RFC_TIMEOUT setting ('inf') is invalid. "
            "It must be a number from 0.001 to 3600 (seconds; at most an hour).",
        ),
        (
            # Accepted as "a finite number" once, then refused by Redis at
            # every write (issue 35).
            "ROBOTSTXT_RFC_STORE_TTL=1e30",
            "The value of the ROBOTSTXT_RFC_STORE_TTL setting ('1e30') is invalid. It must be "
            "a number from 86400 to 346896000 (seconds; at least ROBOTSTXT_RFC_CACHE_TTL; "
            "at most 4015 days).",
        ),
        (
            "ROBOTSTXT_RFC_NOFOLLOW=yes",
            "The value of the ROBOTSTXT_RFC_NOFOLLOW setting ('yes') is invalid. It must be "
            "True or False, or what Scrapy reads as one for any boolean setting: an integer "
            "(0 is False) or the strings '0', '1', 'True', 'true', 'False', 'false'.",
        ),
        (
            "ROBOTSTXT_RFC_STORE=sqlite://x.db",
            "The value of the ROBOTSTXT_RFC_STORE setting ('sqlite://x.db') is invalid: "
            "'x.db' is in the host's place, and an SQLite URL has no host. It must be "
            '"sqlite:///relative/path.db" (three slashes: relative to the working directory) '
            'or "sqlite:////absolute/path.db" (four slashes: an absolute path).',
        ),
        (
            "ROBOTSTXT_RFC_STORE=redis://localhost:6379/notadb",
            "The value of the ROBOTSTXT_RFC_STORE setting ('redis://localhost:6379/notadb') "
            "is invalid: the database ('notadb') is not a number. It must be "
            '"redis://host:port/db" with a number for the port and the db (also rediss://, '
            "and unix:///path/to/socket?db=0).",
        ),
    ],
)
def test_a_bad_setting_is_the_first_thing_the_user_sees(tmp_path, activation, setting, message):
    done = crawl(project(tmp_path, activation), setting)
    assert_stopped_with(done, message)


HALF_A_STORE = """
class Half:
    def __init__(self, settings):
        pass

    def get(self, origin):
        return None

    def put(self, origin, record):
        return True
"""


@pytest.mark.parametrize("activation", [ADDON, MANUAL], ids=["addon", "manual"])
def test_a_store_class_is_checked_before_the_crawl_starts(tmp_path, activation):
    root = project(tmp_path, activation)
    (root / "startup" / "stores.py").write_text(HALF_A_STORE)
    ours = os.environ.get("PYTHONPATH")
    done = crawl(root, "ROBOTSTXT_RFC_STORE=startup.stores.Half", pythonpath=ours)
    assert_stopped_with(
        done,
        "The value of the ROBOTSTXT_RFC_STORE setting ('startup.stores.Half') is invalid: "
        "Half has no acquire, renew, release, ping or close method. It must be a class with "
        "the methods of scrapy_robots_rfc.stores.Store: get, put, acquire, renew, release, "
        "ping and close.",
    )
    done = crawl(root, "ROBOTSTXT_RFC_STORE=startup.storez.Half", pythonpath=ours)
    assert_stopped_with(
        done,
        "The value of the ROBOTSTXT_RFC_STORE setting ('startup.storez.Half') is invalid: "
        "it cannot be imported: No module named 'startup.storez'. It must be \"memory\", "
        '"sqlite:///relative/path.db", "sqlite:////absolute/path.db", "redis://host:port/db" '
        "(also rediss:// and unix://) or the import path of a store class "
        '("myproject.stores.MyStore").',
    )


def test_paths_are_checked_and_no_folder_is_created(tmp_path):
    root = project(tmp_path, ADDON)
    before = sorted(root.iterdir())
    done = crawl(root, "ROBOTSTXT_RFC_STORE=sqlite:///missing/robots.db")
    assert_stopped_with(
        done,
        "The value of the ROBOTSTXT_RFC_STORE setting ('sqlite:///missing/robots.db') is "
        f"invalid: the folder {root / 'missing'} does not exist. It must be an SQLite file in "
        "an existing folder that the crawl can write to.",
    )
    done = crawl(root, f"ROBOTSTXT_RFC_REPORT={root}")
    assert_stopped_with(
        done,
        f"The value of the ROBOTSTXT_RFC_REPORT setting ({str(root)!r}) is invalid: {root} is "
        "a folder. It must be a file path in an existing folder that the crawl can write to.",
    )
    assert sorted(root.iterdir()) == before


def test_a_redis_store_without_redis_py_stops_with_the_install_command(tmp_path):
    blocker = tmp_path / "blocker"
    blocker.mkdir()
    # First on the path: ``import redis`` fails as if it were not installed.
    (blocker / "redis.py").write_text("raise ImportError('No module named redis')\n")
    root = project(tmp_path / "project", ADDON)
    done = crawl(
        root, "ROBOTSTXT_RFC_STORE=redis://robot:s3cret@localhost:6379/0", pythonpath=str(blocker)
    )
    assert_stopped_with(
        done,
        "The value of the ROBOTSTXT_RFC_STORE setting ('redis://robot:***@localhost:6379/0') "
        'is invalid: the redis package is not installed. It must be "memory", an SQLite '
        "file, or a Redis URL with redis-py installed: pip install 'scrapy-robots-rfc[redis]' "
        "(or pip install redis).",
    )


def test_good_settings_crawl_and_exit_0(tmp_path):
    root = project(tmp_path, ADDON)
    (root / "data").mkdir()
    done = crawl(root, "ROBOTSTXT_RFC_STORE=sqlite:///data/robots.db")
    assert done.returncode == 0, done.stderr
    assert "CRITICAL" not in done.stderr
    assert "Spider opened" in done.stderr
    assert (root / "data" / "robots.db").is_file()


@pytest.mark.parametrize("activation", [ADDON, MANUAL], ids=["addon", "manual"])
def test_a_misspelt_setting_is_warned_about_and_the_crawl_runs(tmp_path, activation):
    done = crawl(
        project(tmp_path, activation),
        "ROBOTSTXT_RFC_TIMOUT=5",
        pythonpath=os.environ.get("PYTHONPATH"),
    )
    assert done.returncode == 0, done.stderr
    lines = [m.groups() for m in map(LOG_LINE.match, done.stderr.splitlines()) if m]
    warnings = [line for line in lines if line[1] == "WARNING"]
    assert warnings == [
        (
            "scrapy_robots_rfc.crawl._misspelt_settings",
            "WARNING",
            "ROBOTSTXT_RFC_TIMOUT is not a setting of scrapy_robots_rfc and is ignored; "
            "did you mean ROBOTSTXT_RFC_TIMEOUT?",
        )
    ]
    assert "Spider closed (finished)" in done.stderr


@pytest.mark.parametrize(
    "path", ["scrapy_robots_rfc.RobotsTxtMiddleware", "scrapy_robots_rfc.PageRulesMiddleware"]
)
def test_a_middleware_in_addons_names_the_addon(tmp_path, path):
    """The middleware's path in ``ADDONS`` (where the add-on's belongs)
    stops the crawl with a message that names the add-on, not Scrapy's
    "Crawler.stats is not set yet"."""
    done = crawl(project(tmp_path, f'ADDONS = {{"{path}": 100}}\n'), "LOG_LEVEL=INFO")
    message = (
        f"The value of the ADDONS setting ({{'{path}': 100}}) is invalid: {path} is a "
        "middleware, not an add-on. It must be the add-on scrapy_robots_rfc.Addon, which "
        'installs the middleware: ADDONS = {"scrapy_robots_rfc.Addon": 100}.'
    )
    assert_stopped_with(done, message, "scrapy_robots_rfc.crawl.addon")
    assert "Crawler.stats is not set yet" not in done.stderr


@pytest.mark.parametrize("activation", [ADDON, MANUAL], ids=["addon", "manual"])
@pytest.mark.parametrize(
    "setting", ["ROBOTSTXT_OBEY=yes", "ROBOTSTXT_RFC_NOINDEX=yes", "ROBOTSTXT_RFC_CRAWL_DELAY=yes"]
)
def test_a_bad_boolean_is_one_line_too(tmp_path, activation, setting):
    """``ROBOTSTXT_OBEY``, which Scrapy's ``getbool`` would refuse with a
    ``ValueError`` and a traceback, and the settings of the spider
    middleware too."""
    name, value = setting.split("=")
    allowed = (
        '"keep" or "drop"'
        if name == "ROBOTSTXT_RFC_NOINDEX"
        else "True or False, or what Scrapy reads as one for any boolean setting: an "
        "integer (0 is False) or the strings '0', '1', 'True', 'true', 'False', 'false'"
    )
    done = crawl(project(tmp_path, activation), setting)
    assert_stopped_with(
        done, f"The value of the {name} setting ({value!r}) is invalid. It must be {allowed}."
    )


@pytest.mark.parametrize("activation", [ADDON, MANUAL], ids=["addon", "manual"])
def test_robotstxt_obey_off_says_so_once_at_start_up(tmp_path, activation):
    done = crawl(project(tmp_path, activation), "ROBOTSTXT_OBEY=False")
    assert done.returncode == 0, done.stderr
    lines = [m.groups() for m in map(LOG_LINE.match, done.stderr.splitlines()) if m]
    ours = [line for line in lines if line[0].startswith("scrapy_robots_rfc")]
    assert ours == [
        (
            "scrapy_robots_rfc.crawl.middleware",
            "INFO",
            "robots.txt is not obeyed: ROBOTSTXT_OBEY is off, so "
            "scrapy_robots_rfc.RobotsTxtMiddleware does nothing; set ROBOTSTXT_OBEY = True "
            "to obey it",
        )
    ]
    assert "Spider closed (finished)" in done.stderr


def test_the_parser_of_the_builtin_stops_a_bad_mode_in_one_line(tmp_path):
    """``ROBOTSTXT_PARSER = "scrapy_robots_rfc.RobotParser"`` with Scrapy's
    built-in middleware, which builds one parser at start-up to check it."""
    done = crawl(
        project(tmp_path, 'ROBOTSTXT_PARSER = "scrapy_robots_rfc.RobotParser"\n'),
        "ROBOTSTXT_RFC_MODE=strict",
    )
    assert_stopped_with(
        done,
        "The value of the ROBOTSTXT_RFC_MODE setting ('strict') is invalid. It must be one "
        "of: 'rfc', 'google'.",
        "scrapy_robots_rfc.crawl.robotparser",
    )
