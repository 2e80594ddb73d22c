"""``make demo`` stays a working crawl: it runs example_project/demo.py,
which checks its own report against the server's hit log, the package's log
lines and its stats, and exits non-zero if they disagree. Its stats say what
each counts, beside the summary line that counts origins.

The output is read as a terminal shows it (stdout and stderr in one
stream, unbuffered): the list of origins comes before the WARNINGs about the
503 origin. The figures of each section are checked against what the local
site serves (``demo_project.localsite``): the page that says ``nofollow``
and its links, the ``noindex`` page, the ``Content-Usage`` and
``Crawl-delay`` lines of robots.txt and their line numbers.
"""

from __future__ import annotations

import importlib.util
import os
import re
import subprocess
import sys
from itertools import pairwise
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

DEMO = Path(__file__).resolve().parents[2] / "example_project"


def _localsite():
    """The demo's site module, read from its file (the demo project is not
    a package the tests import)."""
    spec = importlib.util.spec_from_file_location(
        "_demo_localsite", DEMO / "demo_project" / "localsite.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


LOCALSITE = _localsite()
SPECS = {spec.name: spec for spec in LOCALSITE.ORIGINS}
CRAWL_DELAY_ROBOTS: bytes = LOCALSITE.CRAWL_DELAY_ROBOTS
USAGE_ROBOTS: bytes = LOCALSITE.USAGE_ROBOTS


@pytest.fixture(scope="module")
def done() -> subprocess.CompletedProcess[str]:
    """One run of the demo, as ``make demo`` runs it in a terminal."""
    return subprocess.run(
        [sys.executable, "demo.py"],
        cwd=DEMO,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.fixture(scope="module")
def lines(done: subprocess.CompletedProcess[str]) -> list[str]:
    assert done.returncode == 0, done.stdout
    assert "Traceback" not in done.stdout
    assert "SELF-CHECK FAILED" not in done.stdout
    return done.stdout.splitlines()


def section(lines: list[str], name: str) -> list[str]:
    """The report's section of the origin ``name``: its header line up to
    the blank line after it."""
    start = next(i for i, line in enumerate(lines) if line.startswith(f"{name}  http://"))
    end = lines.index("", start)
    return lines[start:end]


def rows(lines: list[str], title: str) -> list[tuple[str, str]]:
    """The rows of the table under ``title`` (its first line, whole):
    (path, text)."""
    at = lines.index(title)
    found = []
    for line in lines[at + 1 :]:
        row = re.fullmatch(r"    (\S+) +(.*)", line)
        if row is None:
            break
        found.append((row[1], row[2]))
    return found


def stats(lines: list[str]) -> dict[str, tuple[int, str]]:
    start = lines.index("robotstxt/* stats, counts of fetches and requests:")
    found = {}
    for line in lines[start + 1 :]:
        row = re.fullmatch(r"  (robotstxt/\S+) +(\d+)  (.*)", line)
        if row is None:
            break
        found[row[1]] = (int(row[2]), row[3])
    return found


def intro_urls(lines: list[str]) -> dict[str, str]:
    """Origin name -> URL, from the list before the crawl."""
    at = next(i for i, line in enumerate(lines) if line.startswith("The local site: "))
    urls = {}
    for line in lines[at + 1 :]:
        row = re.fullmatch(r"  (\S+) +(http://127\.0\.0\.1:\d+)  (.*)", line)
        if row is None:
            break
        urls[row[1]] = row[2]
    return urls


def test_demo_crawls_the_local_site_and_reports_per_origin(lines):
    report = "\n".join(lines)
    assert "200: rules for group 'DemoBot'" in report
    assert "404: no robots.txt, allow all" in report
    assert "disallow /*.pdf$" in report
    assert "robotstxt/unreachable/dropped" in report
    assert lines[-1].startswith(
        "29 pages crawled, 7 forbidden (7 logged by the middleware with the same rule), "
        "3 dropped while robots.txt was unreachable, 3 for usage preferences; page-level "
        "rules dropped 3 links and 1 item; finished in "
    )


def test_the_origins_are_introduced_before_the_first_warning(lines):
    """Each origin, its URL and what it will show, one line each, before
    the crawl; then the WARNINGs, each about the origin introduced as the
    one that answers 503; then the report."""
    intro = next(i for i, line in enumerate(lines) if line.startswith("The local site: "))
    assert lines[intro] == (
        "The local site: 9 origins on 127.0.0.1, 8 of them crawled as 'DemoBot' with "
        "scrapy_robots_rfc. What each will show:"
    )
    urls = intro_urls(lines)
    assert list(urls) == list(SPECS)
    unreachable = urls["unreachable"]
    assert lines[intro + 1 + list(SPECS).index("unreachable")] == (
        f"  unreachable   {unreachable}  robots.txt answers 503: its requests wait and are "
        "retried, then dropped"
    )
    crawling = next(i for i, line in enumerate(lines) if line.startswith("Crawling… "))
    assert lines[intro + len(SPECS) + 1] == (
        "The crawl's settings (settings.py and the tour spider's custom_settings):"
    )
    settings = " ".join(lines[intro + len(SPECS) + 2 : crawling])
    for setting in (
        "ROBOTSTXT_RFC_NOFOLLOW = True",
        "ROBOTSTXT_RFC_NOINDEX = 'drop'",
        "ROBOTSTXT_RFC_USAGE = ['train-ai']",
        "ROBOTSTXT_RFC_CRAWL_DELAY = True",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT = 4",
    ):
        assert setting in settings
    assert lines[crawling] == (
        f"Crawling… The WARNINGs logged meanwhile are about the 503 origin ({unreachable}): "
        "its retries, then the drop."
    )
    warnings = [i for i, line in enumerate(lines) if line.startswith("  (log) WARNING ")]
    # ROBOTSTXT_RFC_UNREACHABLE_RETRY = 1, _WAIT = 4: fetched at 0, 1 and 3 s,
    # then its requests are dropped at 4 s.
    assert len(warnings) == 4
    assert warnings == list(range(crawling + 1, crawling + 5))
    for i in warnings:
        assert unreachable in lines[i]
    assert lines[warnings[-1] + 1] == ""
    assert lines[warnings[-1] + 2].startswith("normal  http://")


def test_demo_tells_fetches_from_origins(lines):
    summary = lines.index(
        "The middleware's summary line, one count per origin (by its last outcome):"
    )
    assert lines[summary + 1] == (
        "  robots.txt: 8 origins checked (6 with rules, 1 allow all, 1 unreachable); "
        "7 requests forbidden, 10 waited, 3 dropped; 3 requests dropped for usage "
        "preferences (train-ai: 3)"
    )
    found = stats(lines)
    assert found["robotstxt/unreachable"] == (
        3,
        "fetches that found robots.txt unreachable (429, 5xx, errors)",
    )
    assert found["robotstxt/disallow_all"] == (
        3,
        "unreachable fetches with no good copy: disallow all",
    )
    assert found["robotstxt/response_status_count/503"] == (3, "... with status 503")
    assert found["robotstxt/rules"] == (6, "fetches that found robots.txt (2xx), parsed")
    assert found["robotstxt/allow_all"] == (1, "fetches that found no robots.txt (4xx): allow all")
    start = lines.index("robotstxt/* stats, counts of fetches and requests:")
    assert lines[start + 1 + len(found) : start + 4 + len(found)] == [
        '  (the 503 origin is "1 unreachable" in the summary and 3 in robotstxt/unreachable:',
        "   its robots.txt was fetched 3 times and was unreachable each time. robotstxt/waiting",
        "   counts the first requests of each origin and every request of the 503 origin.)",
    ]


def test_page_level_rules_drop_the_links_of_a_nofollow_page_and_a_noindex_item(lines):
    spec = SPECS["page-rules"]
    assert spec.meta["/links"] == (("DemoBot", "nofollow"),)
    assert spec.headers["/draft"] == (("X-Robots-Tag", "noindex"),)
    links = sorted(spec.pages["/links"])
    assert len(links) == 3
    pages = sorted(set(spec.pages) - set(links))
    report = section(lines, "page-rules")
    assert report[2] == f"  crawled     {len(pages)}: {', '.join(pages)}"
    assert rows(report, "  page rules  for DemoBot, on 2 pages:") == [
        ("/draft", "noindex (X-Robots-Tag header, every crawler)"),
        ("/links", 'nofollow (<meta name="demobot">)'),
    ]
    assert rows(
        report, "  nofollow    3 links dropped (ROBOTSTXT_RFC_NOFOLLOW), never requested:"
    ) == [(link, 'from /links: the page says nofollow (<meta name="demobot">)') for link in links]
    assert rows(
        report,
        '  noindex     1 item dropped (ROBOTSTXT_RFC_NOINDEX = "drop"), never passed to the '
        "pipeline:",
    ) == [("/draft", "its item: the page says noindex (X-Robots-Tag header, every crawler)")]
    assert (
        f"  items       {len(pages) - 1} of {len(pages)} pages crawled reached the item pipeline"
        in report
    )
    assert rows(
        report, "  other bots  a tag that names another crawler changes nothing for DemoBot:"
    ) == [
        (
            "/others",
            '<meta name="OtherBot" content="noindex, nofollow">: 1 of 1 links followed, item kept',
        )
    ]
    assert report[-1] == f"  server never saw: {', '.join(links)}"
    found = stats(lines)
    assert found["robotstxt/page/nofollow"] == (3, "links yielded from a nofollow page, dropped")
    assert found["robotstxt/page/noindex"] == (1, "items yielded from a noindex page, dropped")


def test_a_usage_preference_drops_requests_for_the_crawls_use(lines):
    robots = USAGE_ROBOTS.decode().splitlines()
    assert robots[4:6] == ["Content-Usage: train-ai=y", "Content-Usage: /articles/ train-ai=n"]
    articles = sorted(p for p in SPECS["usage-prefs"].pages if p.startswith("/articles/"))
    assert len(articles) == 2
    report = section(lines, "usage-prefs")
    assert report[2] == "  crawled     2: /, /shop"
    assert rows(report, "  usage       preferences of the pages crawled:") == [
        ("/", "train-ai=y (content-usage line 5)"),
        ("/shop", "train-ai=y (content-usage line 5)"),
    ]
    title = "  dropped     {}, for a usage preference (ROBOTSTXT_RFC_USAGE = ['train-ai']):"
    assert rows(report, title.format(2)) == [
        (
            path,
            "before download: Forbidden by usage preference: train-ai=n (content-usage line 6) "
            "in robots.txt",
        )
        for path in articles
    ]
    assert report[-1] == f"  server never saw: {', '.join(articles)}"
    # The normal origin's page that says noai counts as train-ai=n (U-8):
    # downloaded, then kept from the spider.
    assert SPECS["normal"].meta["/blog/hello-world"] == (("robots", "noai"),)
    assert rows(section(lines, "normal"), title.format(1)) == [
        (
            "/blog/hello-world",
            'downloaded: Forbidden by usage preference: train-ai=n (noai (<meta name="robots">))',
        )
    ]
    found = stats(lines)
    assert found["robotstxt/usage/forbidden"][0] == 2
    assert found["robotstxt/usage/page_forbidden"][0] == 1


def test_the_crawl_delay_line_and_the_spacing_the_server_saw(lines):
    robots = CRAWL_DELAY_ROBOTS.decode().splitlines()
    assert robots[6:8] == ["User-agent: DemoBot", "Crawl-delay: 1"]
    url = intro_urls(lines)["crawl-delay"]
    report = section(lines, "crawl-delay")
    at = report.index("  crawl-delay 1 s in force, as the package's INFO line says:")
    assert report[at + 1] == (
        f"    {url}/robots.txt asks for a Crawl-delay of 1 s (line 8, for 'DemoBot'); 1 s in force"
    )
    requests = rows(report, "  requests    as the server saw them, at least 1 s apart:")
    pages = sorted(SPECS["crawl-delay"].pages)
    assert [path for path, _ in requests[:2]] == ["/robots.txt", "/"]
    assert sorted(path for path, _ in requests[1:]) == pages
    times = [float(re.match(r"at +([\d.]+) s", text)[1]) for _, text in requests]
    gaps = [float(re.search(r"\+([\d.]+) s$", text)[1]) for _, text in requests[1:]]
    assert gaps == pytest.approx([b - a for a, b in pairwise(times)], abs=0.011)
    # At least the crawl-delay between two starts, less the demo's TRIP
    # (0.1 s) for the way to the server.
    assert all(gap >= 0.9 for gap in gaps), requests
    found = stats(lines)
    assert found["robotstxt/crawl_delay/applied"][0] == 1
    assert found["robotstxt/crawl_delay/waited"][0] == len(pages)
