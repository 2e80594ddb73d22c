"""The end-of-crawl report: the INFO summary line and the JSON lines file of
``ROBOTSTXT_RFC_REPORT``, from real crawls against the local server."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted

from ..crawling import (
    ROBOTS,
    FakeClock,
    Stage,
    crawl,
    make_crawler,
    pages,
    robots_origin,
    stat,
    use_clock,
)
from ..jsonschemas import valid_lines
from ..mockserver import Reply

pytestmark = pytest.mark.e2e

#: The parent of the package's loggers (one per module).
LOGGER = "scrapy_robots_rfc"
#: Short enough for a quick test; the first fetch of an unreachable origin is
#: retried after 0.3 s, and its requests are dropped 1 s after it failed.
UNREACHABLE = {"ROBOTSTXT_RFC_UNREACHABLE_RETRY": 0.3, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 1.0}
#: A slow robots.txt, so that every request of a stage waits for it.
SLOW = 0.3
#: A row's usage fields when nothing was dropped for usage preferences.
NO_USAGE = {"usage_forbidden": 0, "usage_dropped": 0, "usage_categories": None}
#: A row's page-level counts when the crawl honours no page-level rules.
NO_PAGE = {"page_nofollow": 0, "page_noindex": 0}
#: A crawl that does not mine (ROBOTSTXT_RFC_TDM off): the TDM columns are empty.
NO_TDM = {
    "tdm": None,
    "tdm_fetches": 0,
    "tdm_reserved": 0,
    "tdm_pages_reserved": 0,
    "tdm_items_dropped": 0,
}
#: The ``schema`` member of every line.
SCHEMA = {"schema": "scrapy_robots_rfc/report/1"}


def fetch(url: str, source: str, status: int | None, state: str, outcome: str) -> dict[str, Any]:
    """A row's ``robots`` object, as check and scrapy robots have it."""
    return {"url": url, "source": source, "status": status, "state": state, "outcome": outcome}


def summaries(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if _ours(r) and r.levelno == logging.INFO and r.getMessage().startswith("robots")
    ]


def rows(path: Path) -> dict[str | None, dict[str, Any]]:
    """The report's lines by origin, each valid for the shipped schema."""
    lines = path.read_text(encoding="utf-8").splitlines()
    found = {row["origin"]: row for row in valid_lines("report", lines)}
    assert len(found) == len(lines), "one line per origin"
    return found


@pytest_twisted.inlineCallbacks
def test_summary_and_report_of_four_kinds_of_origin(server, activation, caplog, tmp_path):
    with_rules = robots_origin(server, Reply(body=ROBOTS + b"Crawl-delay: 0.1\n", delay=SLOW))
    missing = robots_origin(server, Reply(status=404, delay=SLOW))
    down = robots_origin(server, Reply(status=503))
    target = server.add_origin({"/robots.txt": Reply(body=b"User-agent: *\nDisallow: /t\n")})
    moved = robots_origin(
        server, Reply(status=301, headers={"Location": target.url("/robots.txt")}, delay=SLOW)
    )
    # localhost: a download slot of its own for the crawl-delay.
    ruled = [with_rules.url(p, host="localhost") for p in ("/public", "/private/a", "/private/b")]
    urls = [
        *ruled,
        *pages(missing, "/a", "/private/x"),
        *pages(down, "/a", "/b"),
        *pages(moved, "/t1", "/u"),
    ]
    report = tmp_path / "reports" / "robots.jsonl"
    report.parent.mkdir()  # never created: checked at start-up
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(urls)],
            ROBOTSTXT_RFC_REPORT=str(report),
            ROBOTSTXT_RFC_CRAWL_DELAY=True,
            **UNREACHABLE,
        )
    assert summaries(caplog) == [
        "robots.txt: 4 origins checked (2 with rules, 1 allow all, 1 unreachable); "
        "3 requests forbidden, 9 waited, 2 dropped"
    ]
    # The summary agrees with the stats.
    assert stat(crawler, "robotstxt/forbidden") == 3
    assert stat(crawler, "robotstxt/waiting") == 9
    assert stat(crawler, "robotstxt/unreachable/dropped") == 2

    found = rows(report)
    assert list(report.parent.iterdir()) == [report], "no temporary file left"
    down_row = found.pop(down.base)
    assert down_row.pop("fetches") >= 2, "retried while its requests waited"
    down_robots = down.url("/robots.txt")
    assert down_row == {
        **SCHEMA,
        "origin": down.base,
        "robots": fetch(down_robots, down_robots, 503, "unreachable", "HTTP 503"),
        "redirects": 0,
        "forbidden": 0,
        "waited": 2,
        "dropped": 2,
        "crawl_delay_applied": None,
        **NO_USAGE,
        **NO_PAGE,
        **NO_TDM,
    }
    common = {
        **SCHEMA,
        "fetches": 1,
        "redirects": 0,
        "forbidden": 0,
        "dropped": 0,
        "crawl_delay_applied": None,
        **NO_USAGE,
        **NO_PAGE,
        **NO_TDM,
    }
    ruled_robots = with_rules.url("/robots.txt", host="localhost")
    missing_robots = missing.url("/robots.txt")
    assert found == {
        with_rules.base.replace("127.0.0.1", "localhost"): {
            **common,
            "origin": with_rules.base.replace("127.0.0.1", "localhost"),
            "robots": fetch(ruled_robots, ruled_robots, 200, "rules", "200"),
            "forbidden": 2,
            "waited": 3,
            "crawl_delay_applied": 0.1,
        },
        missing.base: {
            **common,
            "origin": missing.base,
            "robots": fetch(
                missing_robots, missing_robots, 404, "allow_all", "404: no robots.txt: allow all"
            ),
            "waited": 2,
        },
        moved.base: {
            **common,
            "origin": moved.base,
            # The rules came from the end of the redirect, its status too.
            "robots": fetch(
                moved.url("/robots.txt"), target.url("/robots.txt"), 200, "rules", "200"
            ),
            "redirects": 1,
            "forbidden": 1,
            "waited": 2,
        },
    }


@pytest_twisted.inlineCallbacks
def test_a_good_copy_kept_in_force_is_its_own_kind(server, activation, caplog, tmp_path):
    clock = FakeClock()
    origin = robots_origin(
        server, lambda hit, n: Reply(body=ROBOTS) if n == 1 else Reply(status=503)
    )
    stages = [
        Stage(pages(origin, "/a"), hook=use_clock(clock)),
        # Expired: the two wait for a fetch, which fails; the copy stays.
        Stage(pages(origin, "/b", "/private/x"), hook=lambda _: clock.advance(90_000)),
        # Due for a retry: fetched again, but nothing waits.
        Stage(pages(origin, "/c", "/private/y"), hook=lambda _: clock.advance(10)),
    ]
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(activation, stages, ROBOTSTXT_RFC_REPORT=report, **UNREACHABLE)
    assert crawler.spider.seen == pages(origin, "/a", "/b", "/c")
    assert summaries(caplog) == [
        "robots.txt: 1 origin checked (1 unreachable with a good copy); "
        "2 requests forbidden, 3 waited, 0 dropped"
    ]
    robots_url = origin.url("/robots.txt")
    assert rows(report) == {
        origin.base: {
            **SCHEMA,
            "origin": origin.base,
            # The last fetch's outcome and status; the rules in force are
            # the good copy's.
            "robots": fetch(robots_url, robots_url, 503, "unreachable_last_good", "HTTP 503"),
            "fetches": 3,
            "redirects": 0,
            "forbidden": 2,
            "waited": 3,
            "dropped": 0,
            "crawl_delay_applied": None,
            **NO_USAGE,
            **NO_PAGE,
            **NO_TDM,
        }
    }


@pytest_twisted.inlineCallbacks
def test_origins_past_max_origins_are_added_up_in_one_row(server, activation, caplog, tmp_path):
    first = robots_origin(server, Reply(body=ROBOTS))
    second = robots_origin(server, Reply(status=404))
    third = robots_origin(server, Reply(body=ROBOTS, delay=SLOW))
    stages = [
        Stage(pages(first, "/private/1")),
        Stage(pages(second, "/a")),
        Stage(pages(third, "/private/2", "/private/3", "/b")),
    ]
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        yield crawl(
            activation, stages, ROBOTSTXT_RFC_REPORT=str(report), ROBOTSTXT_RFC_MAX_ORIGINS=2
        )
    assert summaries(caplog) == [
        "robots.txt: 3 origins checked (2 with rules, 1 allow all); "
        "3 requests forbidden, 5 waited, 0 dropped"
    ]
    found = rows(report)
    assert set(found) == {first.base, second.base, None}
    assert found[first.base]["forbidden"] == 1
    assert found[second.base]["robots"]["state"] == "allow_all"
    assert found[None] == {
        **SCHEMA,
        "origin": None,
        "origins": 1,
        "states": {"rules": 1},
        "fetches": 1,
        "redirects": 0,
        "forbidden": 2,
        "waited": 3,
        "dropped": 0,
        **NO_USAGE,
        **NO_PAGE,
        **NO_TDM,
    }


@pytest_twisted.inlineCallbacks
def test_a_crawl_with_nothing_checked_says_so(server, activation, caplog, tmp_path):
    origin = robots_origin(server, Reply(body=b"User-agent: *\nDisallow: /\n"))
    request = {"url": origin.url("/a"), "meta": {"dont_obey_robotstxt": True}}
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        yield crawl(activation, [Stage([request])], ROBOTSTXT_RFC_REPORT=str(report))
    assert summaries(caplog) == [
        "robots.txt: 0 origins checked; 0 requests forbidden, 0 waited, 0 dropped"
    ]
    assert report.read_text() == "", "written, and empty"


@pytest.mark.parametrize("value", ["", "   ", 42, ["report.jsonl"]])
@pytest_twisted.inlineCallbacks
def test_an_invalid_report_setting_fails_the_crawl_at_start_up(server, activation, value):
    crawler = make_crawler(activation, {"ROBOTSTXT_RFC_REPORT": value})
    with pytest.raises(ValueError, match="ROBOTSTXT_RFC_REPORT") as info:
        yield crawler.crawl(stages=[])
    assert str(info.value) == (
        f"The value of the ROBOTSTXT_RFC_REPORT setting ({value!r}) is invalid. "
        "It must be a file path."
    )
    assert server.hits == []


@pytest_twisted.inlineCallbacks
def test_a_report_path_that_cannot_be_written_fails_the_crawl_at_start_up(
    server, activation, tmp_path
):
    (tmp_path / "file").write_text("")
    for value, reason in [
        (str(tmp_path), f"{tmp_path} is a folder"),
        (
            str(tmp_path / "missing" / "r.jsonl"),
            f"the folder {tmp_path / 'missing'} does not exist",
        ),
        (str(tmp_path / "file" / "r.jsonl"), f"{tmp_path / 'file'} is not a folder"),
    ]:
        crawler = make_crawler(activation, {"ROBOTSTXT_RFC_REPORT": value})
        with pytest.raises(ValueError, match="ROBOTSTXT_RFC_REPORT") as info:
            yield crawler.crawl(stages=[])
        assert str(info.value) == (
            f"The value of the ROBOTSTXT_RFC_REPORT setting ({value!r}) is invalid: {reason}. "
            "It must be a file path in an existing folder that the crawl can write to."
        )
    assert server.hits == []
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"], "no folder is created"


@pytest_twisted.inlineCallbacks
def test_an_unwritable_report_is_logged_and_the_crawl_finishes(
    server, activation, caplog, tmp_path
):
    origin = robots_origin(server, Reply(body=ROBOTS))
    folder = tmp_path / "reports"
    folder.mkdir()
    report = folder / "report.jsonl"

    def replace_the_folder_with_a_file(spider: Any) -> None:
        folder.rmdir()
        folder.write_text("")

    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/a", "/private/b"), hook=replace_the_folder_with_a_file)],
            ROBOTSTXT_RFC_REPORT=str(report),
        )
    assert crawler.spider.seen == [origin.url("/a")]
    assert stat(crawler, "finish_reason") == "finished"
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1, errors
    assert errors[0].startswith(f"Cannot write the robots.txt report to {report}")
    assert len(summaries(caplog)) == 1, "the summary is logged all the same"
    assert list(tmp_path.iterdir()) == [folder]
    assert folder.read_text() == ""


@pytest_twisted.inlineCallbacks
def test_one_of_each_is_counted_in_the_singular(server, activation, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        yield crawl(activation, [Stage(pages(origin, "/private/1"))])
    assert summaries(caplog) == [
        "robots.txt: 1 origin checked (1 with rules); 1 request forbidden, 1 waited, 0 dropped"
    ]


# -- usage preferences (U-6) ----------------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_usage_drops_are_counted_per_origin_category_and_in_the_totals_row(
    server, activation, caplog, tmp_path
):
    both = robots_origin(
        server, Reply(body=b"User-agent: *\nContent-Usage: /both train-ai=n, search=n\n")
    )
    other = server.add_origin(
        {
            "/robots.txt": Reply(body=b"User-agent: *\nAllow: /\n"),
            "/h": Reply(body=b"h", headers={"Content-Usage": "search=n"}),
        }
    )
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(both, "/both", "/open")), Stage(pages(other, "/h"))],
            ROBOTSTXT_RFC_REPORT=str(report),
            ROBOTSTXT_RFC_MAX_ORIGINS=1,
            ROBOTSTXT_RFC_USAGE="train-ai,search",
        )
    assert crawler.spider.seen == pages(both, "/open")
    waited = stat(crawler, "robotstxt/waiting")
    assert summaries(caplog) == [
        f"robots.txt: 2 origins checked (2 with rules); 0 requests forbidden, {waited} waited, "
        "0 dropped; 2 requests dropped for usage preferences (train-ai: 1, search: 2)"
    ]
    found = rows(report)
    usage_fields = ["forbidden", "usage_forbidden", "usage_dropped", "usage_categories"]
    assert {origin: [row[f] for f in usage_fields] for origin, row in found.items()} == {
        both.base: [0, 1, 0, {"train-ai": 1, "search": 1}],
        None: [0, 0, 1, {"search": 1}],
    }


@pytest_twisted.inlineCallbacks
def test_one_usage_drop_is_counted_in_the_singular(server, activation, caplog):
    origin = server.add_origin(
        {
            "/robots.txt": Reply(body=ROBOTS),
            "/n": Reply(body=b"n", headers={"Content-Usage": "train-ai=n"}),
        }
    )
    with caplog.at_level(logging.INFO, logger=LOGGER):
        yield crawl(activation, [Stage(pages(origin, "/n"))], ROBOTSTXT_RFC_USAGE=["train-ai"])
    assert summaries(caplog) == [
        "robots.txt: 1 origin checked (1 with rules); 0 requests forbidden, 1 waited, 0 dropped; "
        "1 request dropped for usage preferences (train-ai: 1)"
    ]


def _ours(record: logging.LogRecord) -> bool:
    """A line of the package's: each module logs below :data:`LOGGER`."""
    return record.name.startswith(f"{LOGGER}.")
