"""Other projects' own tests, run against this package (tests/conformance,
docs/conformance.rst).

Each case runs in both modes. It passes when our answer is the suite's, or
when it differs exactly as the case's listing says, by a documented
decision. It fails when it differs with no decision, and when a listed
difference has gone (so the listings cannot go stale). A case that awaits
an open issue runs as a strict expected failure.

With ``--conformance-figures=PATH`` the outcomes of the whole run are
written to PATH for the docs (``make docs``), once every case has run.
"""

from __future__ import annotations

import logging
import os
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
import pytest_twisted
from scrapy import Request, signals
from scrapy.exceptions import NotConfigured
from scrapy.utils.misc import build_from_crawler
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc import RobotsTxt, RobotsTxtMiddleware

from ..crawling import Stage, make_crawler
from ..mockserver import MockServer, Reply
from ..refuser import RefuseRobotsTxtOnPorts
from . import (
    MODES,
    OUTCOMES,
    SUITES,
    SWEEP,
    WRONG,
    answer,
    decisions_cited,
    figures,
    load,
    outcome,
    pending_in,
    problem,
)

ROOT = Path(__file__).resolve().parents[2]
DECISIONS_PAGE = ROOT / "docs/decisions.md"

#: The suites whose cases ask the parser or the page-level reader; the
#: middleware suite runs as crawls (below).
MIDDLEWARE = "scrapy_middleware"
PURE = tuple(name for name in SUITES if name != MIDDLEWARE)
LOADED = {name: load(name) for name in SUITES}


def _params() -> list[Any]:
    params = []
    for name in PURE:
        suite = LOADED[name]
        for index, case in enumerate(suite.cases):
            for mode in MODES:
                marks = []
                if pending_in(case, mode):
                    why = case["pending"]
                    marks.append(
                        pytest.mark.xfail(strict=True, reason=f"issue {why['issue']}: {why['why']}")
                    )
                params.append(
                    pytest.param(name, index, mode, marks=marks, id=f"{name}-{index}-{mode}")
                )
    return params


@pytest.mark.parametrize(("name", "index", "mode"), _params())
def test_case(name: str, index: int, mode: str) -> None:
    suite = LOADED[name]
    case = suite.cases[index]
    ours = answer(suite, case, mode)
    OUTCOMES[(name, index, mode)] = outcome(case, mode, ours)
    if pending_in(case, mode):
        # Strict xfail: this fails now, and passing turns into a failure.
        assert ours == case["expected"], f"issue {case['pending']['issue']} is open"
        return
    assert problem(case, mode, ours) is None, problem(case, mode, ours)


@pytest.mark.parametrize("name", SUITES)
def test_every_check_found_is_a_case_or_not_applicable(name: str) -> None:
    """The converter found ``checks_found`` checks: none was dropped."""
    suite = LOADED[name]
    found = suite.data["checks_found"]
    assert len(suite.cases) + len(suite.data["not_applicable"]) == found
    for item in suite.data["not_applicable"]:
        assert item["reason"], item
        assert item["api"], item


#: Protego's real robots.txt files (its tests/test_data folder), read in place
#: when given: they are not part of this project.
PROTEGO_FILES = Path(os.environ.get("PROTEGO_TEST_DATA", "/nonexistent"))


@pytest.mark.skipif(
    not PROTEGO_FILES.is_dir(),
    reason="Protego's real robots.txt files are not here: set PROTEGO_TEST_DATA to the "
    "tests/test_data folder of a Protego checkout to run its sweep",
)
def test_protego_sweep_over_its_real_files() -> None:
    """Protego's tests/test_on_fetched_robotstxt.py: every file it can
    decode as UTF-8 parses without raising. Here every file is parsed, in
    both modes, and asked one verdict (parsing never raises on any bytes)."""
    files = sorted(path for path in PROTEGO_FILES.iterdir() if path.is_file())
    raised = []
    for path in files:
        body = path.read_bytes()
        for mode in MODES:
            try:
                RobotsTxt.parse(body, mode).allowed("https://example.com/", "ExampleBot")
            except Exception as error:  # whatever it is, the sweep reports it
                raised.append(f"{path.name} ({mode}): {error!r}")
    commit = LOADED["protego"].data["commit"]
    SWEEP.update({"files": len(files), "commit": commit, "raised": raised})
    assert files
    assert raised == []


@pytest.mark.parametrize("name", SUITES)
def test_every_decision_cited_has_a_section(name: str) -> None:
    anchors = set(re.findall(r'<a id="([^"]+)"></a>', DECISIONS_PAGE.read_text(encoding="utf-8")))
    cited = set(decisions_cited(LOADED[name]))
    assert {decision.lower() for decision in cited} <= anchors, cited


def test_an_unexplained_difference_fails() -> None:
    case = {
        "test": "t",
        "line": 1,
        "expected": True,
        "differs": {"google": {"decision": "D-2", "ours": False}},
    }
    assert outcome(case, "rfc", False) == WRONG
    assert problem(case, "rfc", False) is not None
    # A listed difference that has gone fails too.
    assert outcome(case, "google", True) == WRONG
    assert "remove the listing" in str(problem(case, "google", True))


# -- Scrapy's middleware tests, as real crawls ------------------------------------------
#
# Scrapy's tests drive its middleware with a mocked engine. Here each of its
# tests is an origin of the local server (or, for a DNS failure, a host that
# cannot resolve), serving the robots.txt the test's mock returned, and its
# requests are crawled for real, all in one crawl per mode and activation.
# A case's check is then read from what reached the spider, what the server
# received, the robots_parsed signals and the log.

REFUSER = "tests.refuser.RefuseRobotsTxtOnPorts"


def _slug(test: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", test.rsplit("::", 1)[-1].lower()).strip("-")


def _requests(cases: list[dict[str, Any]], base: str) -> tuple[list[Any], list[Any]]:
    """The test's requests: the first stage, and the second (a request made
    once robots.txt is known)."""
    first: list[Any] = []
    later: list[Any] = []
    for case in cases:
        paths = case.get("paths", [case["path"]] if "path" in case else [])
        for path in paths:
            spec = {"url": base + path, "meta": dict(case.get("meta", {}))}
            stage = later if case["check"] == "reaches_spider_later" else first
            if spec not in stage:
                stage.append(spec)
    return first, later


def _observe(
    case: dict[str, Any],
    base: str,
    crawler: Any,
    server: MockServer,
    parsed: list[Any],
    logs: list[logging.LogRecord],
) -> Any:
    """Our answer to a middleware case, read from the crawl."""
    check = case["check"]
    seen = crawler.spider.seen
    if check == "first_request":
        port = int(base.rsplit(":", 1)[1])
        paths = [hit.path for hit in server.hits if hit.port == port]
        return paths[0] if paths else None

    def url(path: str) -> str:
        return str(Request(base + path).url)

    if check in ("reaches_spider", "reaches_spider_later"):
        count = seen.count(url(case["path"]))
        return count >= (2 if check == "reaches_spider_later" else 1)
    if check == "all_reach_spider":
        return all(url(path) in seen for path in case["paths"])
    if check == "robots_response_to_spider":
        return url("/robots.txt") in seen
    mine = [(request, parser) for request, parser in parsed if request.url.startswith(base + "/")]
    if check == "robots_parsed_count":
        return len(mine)
    if check == "robots_parsed_request":
        return mine[0][0].url.removeprefix(base) if mine else None
    if check == "robots_parsed_parser":
        return bool(mine) and mine[0][1] is not None
    host = base.split("//", 1)[1]
    named = [record for record in logs if host in record.getMessage()]
    if check == "download_error_logged":
        return any("DNS lookup failed" in r.getMessage() for r in named)
    if check == "error_logged":
        return any(record.levelno >= logging.ERROR for record in named)
    raise ValueError(f"unknown check {check!r}")


@pytest.mark.e2e
@pytest.mark.parametrize("mode", MODES)
@pytest_twisted.inlineCallbacks
def test_middleware_suite(
    server: MockServer, activation: dict[str, Any], mode: str, caplog: pytest.LogCaptureFixture
) -> Any:
    suite = LOADED[MIDDLEWARE]
    by_test: dict[str, list[int]] = defaultdict(list)
    for index, case in enumerate(suite.cases):
        by_test[case["test"]].append(index)
    bases: dict[str, str] = {}
    first: list[Any] = []
    later: list[Any] = []
    RefuseRobotsTxtOnPorts.ports = set()
    for test, indexes in by_test.items():
        robots = suite.cases[indexes[0]].get("robots")
        if robots is None:
            continue  # a check of construction alone
        if robots.get("failure") == "dns":
            base = f"http://{_slug(test)}.invalid"
        else:
            headers = {"Content-Type": robots["content_type"]} if "content_type" in robots else {}
            body = b"" if robots.get("refused") else suite.named_body(robots["body"])
            origin = server.add_origin({"/robots.txt": Reply(body=body, headers=headers)})
            if robots.get("refused"):
                RefuseRobotsTxtOnPorts.ports.add(origin.port)
            base = origin.base
        bases[test] = base
        one, two = _requests([suite.cases[i] for i in indexes], base)
        first += one
        later += two
    crawler = make_crawler(
        activation,
        {
            "ROBOTSTXT_RFC_MODE": mode,
            # A request for an unreachable origin is dropped at once.
            "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0,
            "DOWNLOADER_MIDDLEWARES": {**activation.get("DOWNLOADER_MIDDLEWARES", {}), REFUSER: 50},
        },
    )
    parsed: list[Any] = []

    def robots_parsed(robotparser: Any, request: Any) -> None:
        parsed.append((request, robotparser))

    # Signals hold their receivers weakly: this one lives as long as the test.
    crawler.signals.connect(robots_parsed, signal=signals.robots_parsed)
    with caplog.at_level(logging.DEBUG):
        yield crawler.crawl(stages=[Stage(first), Stage(later)])
    problems = []
    for test, indexes in by_test.items():
        for index in indexes:
            case = suite.cases[index]
            if case["check"] == "not_configured":
                ours = _not_configured(case, mode)
            else:
                ours = _observe(case, bases[test], crawler, server, parsed, caplog.records)
            OUTCOMES[(MIDDLEWARE, index, mode)] = outcome(case, mode, ours)
            found = problem(case, mode, ours)
            if found is not None:
                problems.append(found)
    assert problems == []


def _not_configured(case: dict[str, Any], mode: str) -> bool:
    """Whether the middleware refuses to be built with ``case``'s settings
    (construction alone: no crawl)."""
    crawler = get_crawler(settings_dict={**case["settings"], "ROBOTSTXT_RFC_MODE": mode})
    try:
        build_from_crawler(RobotsTxtMiddleware, crawler)
    except NotConfigured:
        return True
    return False


def _page_extension() -> Any:
    """docs/_ext/conformance_table.py, the rows of the docs' table (no Sphinx needed)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "conformance_table", ROOT / "docs/_ext/conformance_table.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_page_shows_each_suite_with_its_figures_and_decisions() -> None:
    suites = [LOADED["google"], LOADED["norconex"]]

    def ours(case: dict[str, Any], mode: str) -> Any:
        listed = case.get("differs", {}).get(mode)
        return case["expected"] if listed is None else listed["ours"]

    outcomes = {
        (suite.name, index, mode): outcome(case, mode, ours(case, mode))
        for suite in suites
        for index, case in enumerate(suite.cases)
        for mode in MODES
    }
    # And one difference with no decision, in rfc mode.
    first = suites[0].cases[0]
    assert "differs" not in first
    outcomes[("google", 0, "rfc")] = WRONG
    lines = _page_extension().table_rst(figures(suites, outcomes))
    text = "\n".join(lines)
    assert lines[0] == ".. list-table::"
    assert text.count("   * - `") == 2  # a row per suite
    listed = [
        case["differs"]["rfc"]["decision"]
        for case in suites[0].cases
        if "rfc" in case.get("differs", {})
    ]
    checks = len(suites[0].cases)
    assert f"     - {checks - len(listed) - 1} of {checks}\n" in text
    for decision in listed:
        assert f"<decisions.html#{decision.lower()}>`__" in text
    assert "**1 with no decision**" in text
    assert (
        f"{first['test']} (line {first['line']})" in text.split("Differences with no decision")[1]
    )
