"""The Spidermon monitors (issue 23, docs/monitors.rst), run by Spidermon
itself in real crawls, both activations: each monitor passes, and fails
when the crawl gives it a reason to; the bounded stats they read; and the
package without Spidermon."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from spidermon import Action, MonitorSuite

from scrapy_robots_rfc import monitors
from scrapy_robots_rfc.crawl import MONITOR_SETTINGS
from scrapy_robots_rfc.crawl._misspelt_settings import misspelt
from scrapy_robots_rfc.exceptions import ConfigError
from scrapy_robots_rfc.monitors import CloseMonitorSuite, PeriodicMonitorSuite, threshold
from scrapy_robots_rfc.policy import State
from scrapy_robots_rfc.stores import StoreError

from ..crawling import ROBOTS, Stage, crawl, pages, robots_origin, stat
from ..mockserver import MockServer, Origin, Reply

HERE = __name__

# The monitors are unittest test cases: imported here by name, pytest would
# collect them as tests of this module.

# Spidermon logs through Spider.log(), which Scrapy 2.13 deprecates.
pytestmark = pytest.mark.filterwarnings(
    r"ignore:Spider\.log\(\) is deprecated:scrapy.exceptions.ScrapyDeprecationWarning"
)

#: The monitors' class names -> their methods' outcome ("OK", "FAIL"...),
#: one dict per suite run, by crawler.
RESULTS: dict[int, list[dict[str, str]]] = {}

ALL = (
    monitors.UnreachableOriginsMonitor,
    monitors.UnreachableDroppedMonitor,
    monitors.TdmUnknownDroppedMonitor,
    monitors.StoreErrorsMonitor,
    monitors.WaitingAtCloseMonitor,
    monitors.FetchesPerOriginMonitor,
)


class Record(Action):  # type: ignore[misc]
    """Keeps each monitor's outcome, as Spidermon's result gives it."""

    def run_action(self) -> None:
        outcomes = {
            type(result.item).__name__: result.status for result in self.result.monitor_results
        }
        RESULTS.setdefault(id(self.data.crawler), []).append(outcomes)


class RecordedClose(CloseMonitorSuite):
    monitors_finished_actions = [Record]  # noqa: RUF012


class RecordedPeriodic(PeriodicMonitorSuite):
    monitors_finished_actions = [Record]  # noqa: RUF012


def spidermon(**settings: Any) -> dict[str, Any]:
    return {
        "SPIDERMON_ENABLED": True,
        "EXTENSIONS": {"spidermon.contrib.scrapy.extensions.Spidermon": 500},
        "SPIDERMON_SPIDER_CLOSE_MONITORS": [f"{HERE}.RecordedClose"],
        **settings,
    }


async def monitored(
    activation: dict[str, Any], specs: list[str], **settings: Any
) -> tuple[Any, dict[str, str]]:
    """Crawl ``specs``; the crawler and the close-time suite's outcomes."""
    crawler = await crawl(activation, [Stage(specs)], **spidermon(**settings))
    runs = RESULTS.pop(id(crawler))
    assert len(runs) == 1, runs
    return crawler, runs[0]


def outcome(results: dict[str, str], failing: tuple[type[Any], ...]) -> None:
    """Every monitor of the suite ran; those of ``failing`` failed, the
    others passed."""
    expected = {
        monitor.__name__: "FAIL" if monitor in failing else "OK"
        for monitor in ALL
        if monitor.__name__ in results
    }
    assert results == expected


# -- every monitor passes ---------------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_a_healthy_crawl_passes_every_monitor(server: MockServer, activation: Any) -> None:
    a = robots_origin(server, Reply(body=ROBOTS))
    b = robots_origin(server, Reply(status=404))
    crawler, results = await monitored(activation, [*pages(a, "/1", "/2"), *pages(b, "/1")])
    assert set(results) == {monitor.__name__ for monitor in ALL}
    outcome(results, failing=())
    assert stat(crawler, "robotstxt/origins") == 2
    assert stat(crawler, "robotstxt/origins/rules") == 1
    assert stat(crawler, "robotstxt/origins/allow_all") == 1
    assert stat(crawler, "robotstxt/fetches") == 2
    assert stat(crawler, "robotstxt/response_status_class/2xx") == 1
    assert stat(crawler, "robotstxt/response_status_class/4xx") == 1


# -- unreachable origins, requests dropped ------------------------------------------------


def unreachable(server: MockServer) -> Origin:
    return robots_origin(server, Reply(status=503))


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_an_unreachable_origin_fails_the_unreachable_monitors(
    server: MockServer, activation: Any
) -> None:
    good = [robots_origin(server, Reply(body=ROBOTS)) for _ in range(3)]
    bad = unreachable(server)
    specs = [url for origin in good for url in pages(origin, "/")] + pages(bad, "/a", "/b")
    # No wait: the requests to the unreachable origin are dropped at once.
    crawler, results = await monitored(activation, specs, ROBOTSTXT_RFC_UNREACHABLE_WAIT=0)
    assert stat(crawler, "robotstxt/origins") == 4
    assert stat(crawler, "robotstxt/origins/unreachable") == 1
    assert stat(crawler, "robotstxt/unreachable/dropped") == 2
    # 1 of 4 is 25 %, over the default 10 %.
    failing = (monitors.UnreachableOriginsMonitor, monitors.UnreachableDroppedMonitor)
    outcome(results, failing=failing)


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_the_unreachable_thresholds_are_settings(server: MockServer, activation: Any) -> None:
    good = [robots_origin(server, Reply(body=ROBOTS)) for _ in range(3)]
    bad = unreachable(server)
    specs = [url for origin in good for url in pages(origin, "/")] + pages(bad, "/a", "/b")
    _, results = await monitored(
        activation,
        specs,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT=25,
        ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_DROPPED=2,
    )
    outcome(results, failing=())


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_a_network_error_counts_in_the_bounded_exception_total(
    server: MockServer, activation: Any
) -> None:
    origin = robots_origin(server, Reply(reset=True))
    crawler, results = await monitored(
        activation, pages(origin, "/"), ROBOTSTXT_RFC_UNREACHABLE_WAIT=0
    )
    by_class = {
        key: value
        for key, value in crawler.stats.get_stats().items()
        if key.startswith("robotstxt/exception_count/") and key != "robotstxt/exception_count/total"
    }
    assert sum(by_class.values()) == 1
    assert stat(crawler, "robotstxt/exception_count/total") == 1
    assert stat(crawler, "robotstxt/origins/unreachable") == 1
    assert results["UnreachableOriginsMonitor"] == "FAIL"


# -- TDM reservations not known (ROBOTSTXT_RFC_TDM) --------------------------------------


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_a_tdmrep_json_not_known_fails_its_monitor(
    server: MockServer, activation: Any
) -> None:
    origin = server.add_origin(
        {"/robots.txt": Reply(body=ROBOTS), "/.well-known/tdmrep.json": Reply(status=503)}
    )
    specs = pages(origin, "/a", "/b")
    crawler, results = await monitored(
        activation, specs, ROBOTSTXT_RFC_TDM=True, ROBOTSTXT_RFC_UNREACHABLE_WAIT=0
    )
    assert stat(crawler, "robotstxt/tdm/unreachable/dropped") == 2
    assert stat(crawler, "robotstxt/unreachable/dropped") is None
    outcome(results, failing=(monitors.TdmUnknownDroppedMonitor,))
    _, results = await monitored(
        activation,
        specs,
        ROBOTSTXT_RFC_TDM=True,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        ROBOTSTXT_RFC_MONITOR_MAX_TDM_UNKNOWN_DROPPED=2,
    )
    outcome(results, failing=())


# -- a store that fails ---------------------------------------------------------------------


class BrokenStore:
    """A store whose every call fails, and which never answers again."""

    source = "a broken store"

    def __init__(self, settings: Any) -> None:
        pass

    def _fail(self, *args: Any, **kwargs: Any) -> Any:
        raise StoreError("the store is down")

    get = put = acquire = renew = release = ping = _fail

    def close(self) -> None:
        pass


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_a_store_that_stays_down_fails_the_store_monitor(
    server: MockServer, activation: Any
) -> None:
    origin = robots_origin(server, Reply(body=ROBOTS))
    crawler, results = await monitored(
        activation, pages(origin, "/"), ROBOTSTXT_RFC_STORE=f"{HERE}.BrokenStore"
    )
    assert stat(crawler, "robotstxt/store/error") == 1
    assert not stat(crawler, "robotstxt/store/recovered")
    outcome(results, failing=(monitors.StoreErrorsMonitor,))
    _, results = await monitored(
        activation,
        pages(origin, "/"),
        ROBOTSTXT_RFC_STORE=f"{HERE}.BrokenStore",
        ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS=1,
    )
    outcome(results, failing=())


# -- requests waiting at close ----------------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_requests_waiting_at_close_fail_the_waiting_monitor(
    server: MockServer, activation: Any
) -> None:
    # robots.txt unreachable, retried in 60 s, requests may wait 10 min: the
    # spider closes (CLOSESPIDER_TIMEOUT) while they wait.
    origin = unreachable(server)
    settings = {
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY": 60,
        "CLOSESPIDER_TIMEOUT": 1,
        "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT": 100,
    }
    crawler, results = await monitored(activation, pages(origin, "/a", "/b", "/c"), **settings)
    assert stat(crawler, "robotstxt/waiting/abandoned") == 3
    outcome(results, failing=(monitors.WaitingAtCloseMonitor,))
    _, results = await monitored(
        activation,
        pages(origin, "/a", "/b", "/c"),
        **settings,
        ROBOTSTXT_RFC_MONITOR_MAX_WAITING_AT_CLOSE=3,
    )
    outcome(results, failing=())


# -- fetches per origin -------------------------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_fetching_an_origin_twice_fails_the_fetches_monitor(
    server: MockServer, activation: Any
) -> None:
    # A 503 first, then the file: the retry is a second fetch of the origin.
    origin = robots_origin(
        server, lambda hit, n: Reply(status=503) if n == 1 else Reply(body=ROBOTS)
    )
    settings = {
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY": 0.2,
        "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT": 100,
    }
    crawler, results = await monitored(activation, pages(origin, "/a"), **settings)
    assert server.paths(origin) == ["/robots.txt", "/robots.txt", "/a"]
    assert stat(crawler, "robotstxt/fetches") == 2
    assert stat(crawler, "robotstxt/origins") == 1
    assert stat(crawler, "robotstxt/origins/rules") == 1
    assert not stat(crawler, "robotstxt/origins/unreachable")
    assert stat(crawler, "robotstxt/response_status_class/5xx") == 1
    assert stat(crawler, "robotstxt/response_status_class/2xx") == 1
    outcome(results, failing=(monitors.FetchesPerOriginMonitor,))
    _, results = await monitored(
        activation,
        pages(origin, "/a"),
        **settings,
        ROBOTSTXT_RFC_MONITOR_MAX_FETCHES_PER_ORIGIN=2,
    )
    outcome(results, failing=())


# -- the periodic suite -----------------------------------------------------------------------


@pytest.mark.e2e
@pytest_twisted.ensureDeferred
async def test_the_periodic_suite_runs_while_the_crawl_does(
    server: MockServer, activation: Any
) -> None:
    # A page that takes a second keeps the crawl going; the other origin's
    # robots.txt is unreachable from the start.
    origin = server.add_origin({"/robots.txt": Reply(body=ROBOTS), "/slow": Reply(delay=1.0)})
    slow = unreachable(server)
    settings = spidermon(
        SPIDERMON_SPIDER_CLOSE_MONITORS=[],
        SPIDERMON_PERIODIC_MONITORS={f"{HERE}.RecordedPeriodic": 0.3},
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
    )
    crawler = await crawl(activation, [Stage([origin.url("/slow"), *pages(slow, "/")])], **settings)
    runs = RESULTS.pop(id(crawler))
    assert runs
    for run in runs:
        assert set(run) == {
            monitor.__name__ for monitor in ALL if monitor is not monitors.WaitingAtCloseMonitor
        }
    # The unreachable origin is decided soon: the later runs see it.
    assert runs[-1]["UnreachableOriginsMonitor"] == "FAIL"
    assert runs[-1]["FetchesPerOriginMonitor"] == "OK"


# -- settings -----------------------------------------------------------------------------------


def test_the_monitor_settings_are_known_names() -> None:
    assert misspelt(MONITOR_SETTINGS) == []
    assert misspelt(["ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCNT"]) == [
        (
            "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCNT",
            "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT",
        )
    ]


@pytest.mark.parametrize(
    ("value", "expected"),
    [(None, 10.0), (5, 5.0), ("2.5", 2.5), (0, 0.0)],
)
def test_a_threshold_is_a_number(value: Any, expected: float) -> None:
    from scrapy.settings import Settings

    name = "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT"
    settings = Settings({} if value is None else {name: value})
    assert threshold(settings, name) == expected


@pytest.mark.parametrize("value", [-1, "many", True, float("nan"), float("inf")])
def test_a_threshold_that_is_not_a_number_is_refused(value: Any) -> None:
    from scrapy.settings import Settings

    name = "ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS"
    with pytest.raises(ConfigError, match=name):
        threshold(Settings({name: value}), name)


#: The stats this part added, each a fixed key (or a fixed set of them).
BOUNDED = (
    "robotstxt/fetches",
    "robotstxt/origins",
    "robotstxt/origins/<state>",
    "robotstxt/response_status_class/<class>",
    "robotstxt/exception_count/total",
)


def test_the_docs_page_lists_every_setting_and_bounded_stat() -> None:
    page = (Path(__file__).parents[2] / "docs/monitors.rst").read_text(encoding="utf-8")
    for name in [*MONITOR_SETTINGS, *BOUNDED]:
        assert f"``{name}``" in page, name
    for state in State:
        assert f"``{state.value}``" in page, state
    for monitor in ALL:
        assert f"``{monitor.__name__}``" in page, monitor
    for name, default in MONITOR_SETTINGS.items():
        # A list-table row: the setting, then its default in the next cell.
        assert re.search(rf"\* - ``{name}``\n +- {default:g}\n", page), name


def test_the_suites_are_spidermon_suites() -> None:
    assert issubclass(CloseMonitorSuite, MonitorSuite)
    assert CloseMonitorSuite().number_of_monitors == 6
    assert PeriodicMonitorSuite().number_of_monitors == 5


# -- without Spidermon ----------------------------------------------------------------------------

#: Run in a subprocess with ``spidermon`` made unimportable: the package
#: imports, a crawl runs with the middleware, and only the monitors need it.
WITHOUT_SPIDERMON = textwrap.dedent(
    """
    import importlib.abc, sys, threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class NoSpidermon(importlib.abc.MetaPathFinder):
        def find_spec(self, name, path, target=None):
            if name == "spidermon" or name.startswith("spidermon."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, NoSpidermon())

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            body = b"User-agent: *\\nDisallow: /no\\n" if self.path == "/robots.txt" else b"ok"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{httpd.server_port}"

    import scrapy
    import scrapy_robots_rfc
    from scrapy.crawler import CrawlerProcess

    seen = []

    class S(scrapy.Spider):
        name = "s"
        start_urls = [base + "/yes", base + "/no"]

        def parse(self, response):
            seen.append(response.url)

    process = CrawlerProcess({
        "ROBOTSTXT_OBEY": True,
        "ADDONS": {"scrapy_robots_rfc.Addon": 100},
        "LOG_LEVEL": "ERROR",
        "TELNETCONSOLE_ENABLED": False,
    })
    crawler = process.create_crawler(S)
    process.crawl(crawler)
    process.start()
    assert seen == [base + "/yes"], seen
    assert crawler.stats.get_value("robotstxt/origins/rules") == 1
    assert not any(name.startswith("spidermon") for name in sys.modules)
    try:
        import scrapy_robots_rfc.monitors
    except ImportError as exc:
        print("monitors:", exc)
    else:
        raise AssertionError("the monitors imported without spidermon")
    """
)


@pytest.mark.e2e
def test_the_package_crawls_without_spidermon() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", WITHOUT_SPIDERMON],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "monitors: " in done.stdout
    assert "scrapy-robots-rfc[monitoring]" in done.stdout
