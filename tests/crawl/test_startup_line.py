"""The package's one INFO line at start-up (issue 43): what the crawl obeys
and how, each feature on or off; real crawls against the local server."""

from __future__ import annotations

import logging
from typing import Any

import pytest
import pytest_twisted

from scrapy_robots_rfc import __version__, build

from ..crawling import ROBOTS, Stage, crawl, pages, robots_origin
from ..mockserver import MockServer, Reply

pytestmark = pytest.mark.e2e

START = f"scrapy_robots_rfc {__version__} ({build()} build) obeys robots.txt: "


def _lines(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage() for r in caplog.records if r.name == "scrapy_robots_rfc.crawl._startup_line"
    ]


@pytest.mark.parametrize(
    ("settings", "line"),
    [
        pytest.param(
            {},
            "mode rfc; crawler name 'TestBot' (from USER_AGENT); store memory; "
            "crawl-delay off; page-level rules off; usage categories off; TDM reservations off",
            id="defaults",
        ),
        pytest.param(
            {
                "ROBOTSTXT_RFC_MODE": "google",
                "ROBOTSTXT_USER_AGENT": "hedwig-images, hedwig",
                "ROBOTSTXT_RFC_CRAWL_DELAY": True,
                "ROBOTSTXT_RFC_CRAWL_DELAY_MAX": 2.5,
                "ROBOTSTXT_RFC_NOFOLLOW": True,
                "ROBOTSTXT_RFC_NOINDEX": "drop",
                "ROBOTSTXT_RFC_USAGE": ["train-ai", "search"],
                "ROBOTSTXT_RFC_USAGE_UNKNOWN": "disallow",
                "ROBOTSTXT_RFC_TDM": True,
            },
            "mode google; crawler names 'hedwig-images', 'hedwig' (from ROBOTSTXT_USER_AGENT); "
            "store memory; crawl-delay on (at most 2.5 s); page-level rules on (nofollow, "
            "noindex); usage categories on (train-ai, search, unknown disallowed); "
            "TDM reservations on",
            id="everything-on",
        ),
        pytest.param(
            {"ROBOTSTXT_RFC_NOINDEX": "drop", "ROBOTSTXT_RFC_USAGE": "train-ai"},
            "mode rfc; crawler name 'TestBot' (from USER_AGENT); store memory; "
            "crawl-delay off; page-level rules on (noindex); usage categories on (train-ai); "
            "TDM reservations off",
            id="some-on",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_one_line_says_what_is_on(server: MockServer, activation: Any, caplog, settings, line):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a"))], **settings)
    assert _lines(caplog) == [START + line]
    assert [r.levelname for r in caplog.records if r.getMessage() == START + line] == ["INFO"]
    # Crawled (dropped after download for an unknown usage category when
    # "unknown disallowed").
    assert [*crawler.spider.seen, *crawler.spider.failed] == [origin.url("/a")]


@pytest_twisted.inlineCallbacks
def test_the_store_in_force_is_named(server: MockServer, activation: Any, caplog, tmp_path):
    """JOBDIR's SQLite file when ROBOTSTXT_RFC_STORE is unset."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        yield crawl(activation, [Stage(pages(origin, "/a"))], JOBDIR=str(tmp_path / "job"))
    [line] = _lines(caplog)
    assert f"; store sqlite:///{tmp_path / 'job' / 'robotstxt_rfc.db'};" in line


@pytest_twisted.inlineCallbacks
def test_no_line_when_robotstxt_is_not_obeyed(server: MockServer, activation: Any, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger="scrapy_robots_rfc"):
        yield crawl(activation, [Stage(pages(origin, "/a"))], ROBOTSTXT_OBEY=False)
    assert _lines(caplog) == []
