"""``scrapy robots URL``, run as a real ``scrapy`` command inside
``example_project`` (its scrapy.cfg and settings apply) against the demo's
local site, which a separate process serves on 127.0.0.1.

The site is the demo's (``demo_project.localsite``) plus one origin whose
robots.txt has sitemaps and a crawl-delay, and a control port that tells
which requests each origin answered, so that the tests can check what the
command fetched, and that it never downloads the URL itself.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any
from urllib.request import urlopen

import pytest

from scrapy_robots_rfc.commands.text import clauses, report_text
from scrapy_robots_rfc.crawl._download_failures import reason
from scrapy_robots_rfc.policy._policy import State
from scrapy_robots_rfc.policy._verdict import Verdict

from ..jsonschemas import valid

PROJECT = Path(__file__).resolve().parents[2] / "example_project"
_SCRAPY = Path(sys.executable).parent / "scrapy"
SCRAPY = [str(_SCRAPY)] if _SCRAPY.exists() else [sys.executable, "-m", "scrapy"]

EXTRAS_ROBOTS = (
    b"User-agent: *\n"
    b"Crawl-delay: 2.5\n"
    b"Disallow: /private/\n"
    b"\n"
    b"Sitemap: http://127.0.0.1/sitemap.xml\n"
    b"Sitemap: http://127.0.0.1/news-sitemap.xml\n"
)

#: Usage preferences (U-1..U-6): a line before the first
#: user-agent line, which applies to every group, and one for a path.
USAGE_ROBOTS = (
    b"Content-Usage: train-ai=y\n"
    b"User-agent: *\n"
    b"Disallow: /private/\n"
    b"Content-Usage: /no-train/ train-ai=n\n"
)

#: The TDMRep file of the "tdm" origin: /a/ reserved, with a policy.
TDM_FILE = (
    b'[{"location": "/a/", "tdm-reservation": 1, "tdm-policy": "https://p.example/a.json"},'
    b' {"location": "/other", "tdm-reservation": 0}]'
)
#: What check, lint and this command say of a file as a whole (issue 43):
#: 2 MB (rules at the start, cut at 500 KiB), an HTML page served as
#: robots.txt, bytes that are not UTF-8 and lines ignored.
#: (The 2 MB body is built by the site's process: an argument holds 128 KiB.)
BIG_CODE = 'b"User-agent: *\\nDisallow: /private/\\n" + (b"#" * 999 + b"\\n") * 2000'
BIG_ROBOTS = b"User-agent: *\nDisallow: /private/\n" + (b"#" * 999 + b"\n") * 2000
HTML_ROBOTS = (
    b"<!DOCTYPE html>\n<html><head><title>Not found</title></head><body>No</body></html>\n"
)
LATIN_ROBOTS = b"User-agent: *\nHost: example.com\nDisallow: /caf\xe9/\nDisallow: /private/\n"
FILE_NOTES = {"big": BIG_ROBOTS, "html": HTML_ROBOTS, "latin": LATIN_ROBOTS}

#: The site's process: prints {origin name: port, "_control": port} once it
#: listens, then serves until it is terminated.
SERVER = f"""
import json
from twisted.internet import reactor
from twisted.web.resource import Resource
from twisted.web.server import Site
from demo_project.localsite import ORIGINS, LocalSite, OriginSpec

extras = OriginSpec(
    "extras", "sitemaps and a crawl-delay", 200, {EXTRAS_ROBOTS!r}, pages={{"/": ()}}
)
usage = OriginSpec(
    "usage", "usage preferences", 200, {USAGE_ROBOTS!r}, pages={{"/": ()}}
)
tdm = OriginSpec(
    "tdm",
    "TDM reservations",
    200,
    b"User-agent: *\\nDisallow: /private/\\n",
    pages={{"/": (), "/a/x": (), "/b": (), "/c": (), "/other": ()}},
    meta={{"/b": (("tdm-reservation", "1"),)}},
    headers={{"/c": (("tdm-reservation", "1"), ("tdm-policy", "https://p.example/c.json"))}},
    tdmrep={TDM_FILE!r},
)
noted = tuple(
    OriginSpec(name, "file notes", 200, body, pages={{"/": ()}})
    for name, body in {{
        "big": {BIG_CODE}, "html": {HTML_ROBOTS!r}, "latin": {LATIN_ROBOTS!r}
    }}.items()
)
site = LocalSite(ORIGINS + (extras, usage, tdm) + noted)
site.start()

class Hits(Resource):
    isLeaf = True

    def render_GET(self, request):
        return json.dumps([[h.origin, h.path, h.status] for h in site.hits]).encode()

control = reactor.listenTCP(0, Site(Hits()), interface="127.0.0.1")
print(json.dumps({{**site.ports, "_control": control.getHost().port}}), flush=True)
reactor.run()
"""


class DemoSite:
    def __init__(self, ports: dict[str, int]) -> None:
        self.ports = ports

    def url(self, origin: str, path: str = "/") -> str:
        return f"http://127.0.0.1:{self.ports[origin]}{path}"

    def hits(self, origin: str) -> list[tuple[str, int]]:
        """(path, status) of every request ``origin`` answered so far."""
        with urlopen(f"http://127.0.0.1:{self.ports['_control']}/", timeout=10) as answer:
            hits = json.load(answer)
        return [(path, status) for name, path, status in hits if name == origin]


@pytest.fixture(scope="module")
def site() -> Any:
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER],
        cwd=PROJECT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None
    assert server.stderr is not None
    try:
        line = server.stdout.readline()
        if not line:
            pytest.fail(f"the demo site did not start: {server.stderr.read()}")
        yield DemoSite(json.loads(line))
    finally:
        server.terminate()
        server.wait(timeout=10)
        server.stdout.close()
        server.stderr.close()


def robots(
    *args: str,
    timeout: float = 60,
    pythonpath: str | None = None,
    command: str = "robots",
    cwd: Path = PROJECT,
) -> subprocess.CompletedProcess[str]:
    """Run ``scrapy robots ARGS`` (or another ``command``) in the example
    project (or ``cwd``); ``pythonpath`` lets the project load a middleware
    of the tests. ``--json`` output is first checked against its shipped
    schema (robots.json)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SCRAPY_")}
    if pythonpath is not None:
        env["PYTHONPATH"] = pythonpath
    done = subprocess.run(
        [*SCRAPY, command, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )
    assert "Traceback" not in done.stderr, done.stderr
    if command == "robots" and "--json" in args:
        valid("robots", json.loads(done.stdout))
    return done


def field(output: str, label: str) -> str:
    """The value on the report line that starts with ``label``."""
    for line in output.splitlines():
        if line.startswith(f"{label} "):
            return line[len(label) :].strip()
    raise AssertionError(f"no {label!r} line in:\n{output}")


@pytest.mark.e2e
def test_the_command_is_listed_in_the_project():
    done = subprocess.run(
        SCRAPY, cwd=PROJECT, capture_output=True, text=True, timeout=60, check=False
    )
    assert "robots        Show what robots.txt says about a URL" in done.stdout


@pytest.mark.e2e
def test_disallowed_url_exits_1_with_the_rule_and_its_line(site: DemoSite):
    before = site.hits("normal")
    done = robots(site.url("normal", "/private/x"))
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    assert field(out, "robots.txt") == (
        f"{site.url('normal', '/robots.txt')} → 200: rules (redirects followed: 0)"
    )
    assert field(out, "URL") == site.url("normal", "/private/x")
    assert field(out, "user agent") == "DemoBot (from ROBOTSTXT_USER_AGENT 'DemoBot')"
    assert "note" not in [line.split(" ", 1)[0] for line in out.splitlines()]
    assert field(out, "verdict") == (
        "disallowed by \"disallow: /private/ (line 7)\" in the group for 'DemoBot'"
    )
    # robots.txt was fetched once, and the page never.
    assert site.hits("normal")[len(before) :] == [("/robots.txt", 200)]


@pytest.mark.e2e
def test_allowed_url_exits_0_and_is_not_downloaded(site: DemoSite):
    before = site.hits("normal")
    done = robots(site.url("normal", "/private/press/launch"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert field(done.stdout, "verdict") == (
        "allowed by \"allow: /private/press/ (line 8)\" in the group for 'DemoBot'"
    )
    assert field(done.stdout, "usage") == "none stated"
    assert site.hits("normal")[len(before) :] == [("/robots.txt", 200)]


@pytest.mark.e2e
def test_404_origin_allows_all(site: DemoSite):
    done = robots(site.url("no-robots", "/private/diary"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert field(done.stdout, "robots.txt") == (
        f"{site.url('no-robots', '/robots.txt')} → 404: allow all "
        "(no robots.txt; redirects followed: 0)"
    )
    assert field(done.stdout, "verdict") == "allowed: robots.txt allows everything"


@pytest.mark.e2e
def test_a_refused_robots_request_is_its_own_outcome(site: DemoSite):
    """Another downloader middleware refused the robots.txt request: nothing
    was asked of the server, and everything is allowed."""
    before = site.hits("normal")
    done = robots(
        site.url("normal", "/private/x"),
        "-s",
        'DOWNLOADER_MIDDLEWARES={"tests.refuser.RefuseRobotsTxt": 50}',
        pythonpath=str(PROJECT.parent),
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert field(done.stdout, "robots.txt") == (
        f"{site.url('normal', '/robots.txt')}: refused (robots.txt not fetched (refused by "
        "tests.refuser.RefuseRobotsTxt): allow all, as Scrapy's built-in; redirects followed: 0)"
    )
    assert field(done.stdout, "verdict") == "allowed: robots.txt allows everything"
    assert site.hits("normal")[len(before) :] == []


#: The package's log lines, as Scrapy's log formatter writes them: each
#: module logs under its own name below ``scrapy_robots_rfc``.
LOG_LINE = re.compile(r"\[scrapy_robots_rfc(?:\.[\w.]+)?\] (?P<level>[A-Z]+): (?P<message>.*)$")


def logged(stderr: str, level: str = "WARNING") -> list[str]:
    """The messages of the package's log lines at ``level``."""
    found = (LOG_LINE.search(line) for line in stderr.splitlines())
    return [match["message"] for match in found if match and match["level"] == level]


@pytest.mark.e2e
@pytest.mark.parametrize("option", [[], ["--no-wait"]], ids=["default", "no-wait"])
def test_503_origin_is_disallowed_at_once_with_when_it_is_retried(site: DemoSite, option):
    before = site.hits("unreachable")
    started = time.monotonic()
    done = robots(
        site.url("unreachable", "/news"),
        *option,
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY=30",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=600",
    )
    took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr  # disallowed
    assert took < 15, "not the 30 s of the retry, nor the 600 s of the wait"
    assert site.hits("unreachable")[len(before) :] == [("/robots.txt", 503)]
    robots_txt = site.url("unreachable", "/robots.txt")
    assert field(done.stdout, "robots.txt") == (
        f"{robots_txt} → 503: disallow all (unreachable: HTTP 503; redirects followed: 0)"
    )
    assert field(done.stdout, "verdict") == (
        "disallowed: robots.txt unreachable: HTTP 503 (disallowed while unreachable; a crawl "
        "would fetch it again in 30 s, its requests waiting up to 600 s "
        "(ROBOTSTXT_RFC_UNREACHABLE_WAIT); --wait waits the same way)"
    )
    # The middleware's warning says what happens to the request, which does
    # not wait (--wait below: it does); nothing says JOBDIR.
    assert logged(done.stderr) == [
        f"{robots_txt} is unreachable (HTTP 503): this check does not wait for a retry "
        "(scrapy robots --wait does); a crawl would fetch it again in 30 s"
    ]
    assert "JOBDIR" not in done.stderr


@pytest.mark.e2e
def test_wait_waits_for_an_unreachable_robots_txt_as_a_crawl_does(site: DemoSite):
    before = site.hits("unreachable")
    started = time.monotonic()
    done = robots(
        site.url("unreachable", "/news"),
        "--wait",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=1",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.3",
    )
    took = time.monotonic() - started
    assert done.returncode == 1, done.stdout + done.stderr
    out = done.stdout
    fetched = site.hits("unreachable")[len(before) :]
    # Fetched again after 0.3 s and 0.6 s more, as the crawl would, until
    # the request had waited 1 s.
    assert len(fetched) >= 2
    assert set(fetched) == {("/robots.txt", 503)}
    assert field(out, "robots.txt") == (
        f"{site.url('unreachable', '/robots.txt')} → 503: disallow all "
        f"(unreachable: HTTP 503; redirects followed: 0; fetched {len(fetched)} times)"
    )
    assert field(out, "verdict") == (
        "disallowed: robots.txt unreachable: HTTP 503 "
        "(dropped after ROBOTSTXT_RFC_UNREACHABLE_WAIT = 1 s)"
    )
    assert 1 <= took < 30
    assert logged(done.stderr)[0] == (
        f"{site.url('unreachable', '/robots.txt')} is unreachable (HTTP 503): requests to it "
        "wait until it answers, at most 1 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try "
        "in 0.3 s"
    )


@pytest.mark.e2e
def test_an_interrupted_wait_gives_no_jobdir_advice(site: DemoSite):
    """scrapy robots is one request: there is no next run to keep it for."""
    done = robots(
        site.url("unreachable", "/news"),
        "--wait",
        "-s",
        "CLOSESPIDER_TIMEOUT=1",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=60",
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert field(done.stdout, "verdict") == "error: the request got no verdict"
    assert logged(done.stderr)[-1] == (
        "1 request was still waiting for robots.txt when the spider closed (closespider_timeout)"
    )
    assert "JOBDIR" not in done.stderr


@pytest.mark.e2e
@pytest.mark.parametrize("command", ["fetch", "shell"])
def test_fetch_and_shell_warn_with_the_deadline_when_the_wait_begins(site: DemoSite, command):
    url = site.url("unreachable", "/news")
    code = ["-c", "response"] if command == "shell" else []
    started = time.monotonic()
    done = robots(
        *code,
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=1",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY=30",
        url,
        command=command,
    )
    assert time.monotonic() - started < 20
    robots_txt = site.url("unreachable", "/robots.txt")
    port = site.ports["unreachable"]
    assert logged(done.stderr) == [
        f"{robots_txt} is unreachable (HTTP 503): requests to it will be dropped in 1 s "
        "(ROBOTSTXT_RFC_UNREACHABLE_WAIT), before the next try in 30 s",
        f"Dropping requests to http://127.0.0.1:{port}: its robots.txt has been unreachable "
        "(HTTP 503) for ROBOTSTXT_RFC_UNREACHABLE_WAIT (1 s); more requests to it will be "
        "dropped the same way while it stays unreachable",
    ]


@pytest.mark.e2e
def test_fetch_stopped_while_waiting_gives_no_jobdir_advice(site: DemoSite):
    done = robots(
        "-s",
        "CLOSESPIDER_TIMEOUT=1",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=60",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY=30",
        site.url("unreachable", "/news"),
        command="fetch",
    )
    assert logged(done.stderr) == [
        f"{site.url('unreachable', '/robots.txt')} is unreachable (HTTP 503): requests to it "
        "wait until it answers, at most 60 s more (ROBOTSTXT_RFC_UNREACHABLE_WAIT); next try "
        "in 30 s",
        "1 request was still waiting for robots.txt when the spider closed (closespider_timeout)",
    ]
    assert "JOBDIR" not in done.stderr


@pytest.mark.e2e
def test_redirect_is_followed_and_its_rules_apply_to_the_origin(site: DemoSite):
    target = site.url("moved-target", "/robots.txt")
    done = robots(site.url("moved", "/old/archive"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert field(done.stdout, "robots.txt") == (
        f"{site.url('moved', '/robots.txt')} → 301 → {target} → 200: rules of {target} "
        "(redirects followed: 1)"
    )
    assert field(done.stdout, "verdict") == (
        "disallowed by \"disallow: /old/ (line 3)\" in the group for '*'"
    )
    kept = robots(site.url("moved", "/old/kept"))
    assert kept.returncode == 0, kept.stdout + kept.stderr
    assert field(kept.stdout, "verdict") == (
        "allowed by \"allow: /old/kept (line 4)\" in the group for '*'"
    )


@pytest.mark.e2e
def test_user_agent_option_changes_the_group(site: DemoSite):
    url = site.url("normal", "/beta/x")
    demobot = robots(url)
    assert demobot.returncode == 0, demobot.stdout + demobot.stderr
    assert field(demobot.stdout, "verdict") == (
        "allowed: no rule of the group for 'DemoBot' matches '/beta/x'"
    )
    other = robots(url, "--user-agent", "OtherBot/2.0")
    assert other.returncode == 1, other.stdout + other.stderr
    # D-21: a name that is no product token is reduced to its product name.
    assert field(other.stdout, "user agent") == "OtherBot (from --user-agent 'OtherBot/2.0')"
    assert field(other.stdout, "verdict") == (
        "disallowed by \"disallow: /beta/ (line 4)\" in the group for '*'"
    )
    assert field(other.stdout, "note") == (
        "the name 'OtherBot/2.0' is not a product token ([A-Za-z_-]+); its product name "
        "'OtherBot' is taken as the crawler's name (RFC 9309 §2.2.1), so the groups for "
        "'User-agent: OtherBot' apply to it, else the 'User-agent: *' groups"
    )
    # The case: a whole User-Agent header as --user-agent names the
    # crawler its product token names, as it does from USER_AGENT.
    demo = robots(url, "--user-agent", "Mozilla/5.0 (compatible; DemoBot/1.0; +http://x)")
    assert demo.returncode == 0, demo.stdout + demo.stderr
    assert field(demo.stdout, "user agent").startswith("DemoBot (from --user-agent ")
    assert field(demo.stdout, "verdict") == field(demobot.stdout, "verdict")
    # D-22: a crawler family, most specific first.
    family = robots(url, "--user-agent", "DemoBot-News, DemoBot")
    assert family.returncode == 0, family.stdout + family.stderr
    assert field(family.stdout, "user agent") == (
        "DemoBot-News, DemoBot (from --user-agent 'DemoBot-News, DemoBot')"
    )
    assert field(family.stdout, "verdict") == (
        "allowed: no rule of the group for 'DemoBot' matches '/beta/x'"
    )


@pytest.mark.e2e
def test_sitemaps_and_crawl_delay_are_shown(site: DemoSite):
    done = robots(site.url("extras", "/page"))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("sitemaps "))
    assert lines[at].split() == ["sitemaps", "http://127.0.0.1/sitemap.xml"]
    assert lines[at + 1].split() == ["http://127.0.0.1/news-sitemap.xml"]
    assert field(done.stdout, "crawl-delay") == (
        "2.5 s (line 2, for '*'; not applied: ROBOTSTXT_RFC_CRAWL_DELAY is off)"
    )
    applied = robots(site.url("extras", "/page"), "-s", "ROBOTSTXT_RFC_CRAWL_DELAY=True")
    assert field(applied.stdout, "crawl-delay") == (
        "2.5 s (line 2, for '*'; applied to the download slot)"
    )
    capped = robots(
        site.url("extras", "/page"),
        *("-s", "ROBOTSTXT_RFC_CRAWL_DELAY=True", "-s", "ROBOTSTXT_RFC_CRAWL_DELAY_MAX=0"),
    )
    assert field(capped.stdout, "crawl-delay") == (
        "2.5 s (line 2, for '*'; not applied: ROBOTSTXT_RFC_CRAWL_DELAY_MAX is 0)"
    )
    slower = robots(
        site.url("extras", "/page"),
        "-s",
        "ROBOTSTXT_RFC_CRAWL_DELAY=True",
        "-s",
        "DOWNLOAD_DELAY=3",
    )
    assert field(slower.stdout, "crawl-delay") == (
        "2.5 s (line 2, for '*'; not applied: the download slot's delay is already as long)"
    )


@pytest.mark.e2e
def test_json_report(site: DemoSite):
    done = robots(site.url("extras", "/private/a"), "--json")
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    robots_txt = site.url("extras", "/robots.txt")
    # The fetch it made: its URL and status, as check --json says them.
    assert report["robots"] == {
        "url": robots_txt,
        "source": robots_txt,
        "status": 200,
        "state": "rules",
        "outcome": "200",
    }
    assert (report["fetches"], report["redirects"], report["from_store"]) == (1, 0, False)
    assert report["chain"] == [{"url": robots_txt, "status": 200, "location": None}]
    assert report["user_agent"] == {
        "names": ["DemoBot"],
        "given": "DemoBot",
        "from": "ROBOTSTXT_USER_AGENT",
    }
    assert report["verdict"] == {
        "allowed": False,
        "rule": {"allow": False, "pattern": "/private/", "line": 3},
        "group": ["*"],
        "match_string": "/private/a",
        "reason": "disallowed by \"disallow: /private/ (line 3)\" in the group for '*'",
        "why": "disallow rule '/private/' on line 3 is the longest match for '/private/a' in "
        "the group for '*'",
    }
    assert report["error"] is None
    assert report["sitemaps"] == [
        "http://127.0.0.1/sitemap.xml",
        "http://127.0.0.1/news-sitemap.xml",
    ]
    assert (report["crawl_delay"], report["crawl_delay_applied"]) == (2.5, None)
    assert report["crawl_delay_from"] == {"line": 2, "agents": ["*"]}
    assert report["exit_status"] == 1
    applied = json.loads(
        robots(site.url("extras", "/a"), "--json", "-s", "ROBOTSTXT_RFC_CRAWL_DELAY=True").stdout
    )
    assert (applied["crawl_delay"], applied["crawl_delay_applied"]) == (2.5, 2.5)
    assert applied["crawl_delay_note"] == "applied to the download slot"


def _fetch(url: str, source: str | None, status: int | None, state: str, outcome: str) -> Any:
    return {"url": url, "source": source, "status": status, "state": state, "outcome": outcome}


@pytest.mark.e2e
def test_json_reports_the_fetch_of_every_outcome(site: DemoSite, closed_port: int):
    """The ``robots`` object, as check --json and the crawl report have it:
    404, 503, a redirect, a refused connection, a request refused locally."""
    robots_txt = {name: site.url(name, "/robots.txt") for name in site.ports}
    cases = {
        "no-robots": _fetch(
            robots_txt["no-robots"],
            robots_txt["no-robots"],
            404,
            "allow_all",
            "404: no robots.txt: allow all",
        ),
        "unreachable": _fetch(
            robots_txt["unreachable"], robots_txt["unreachable"], 503, "unreachable", "HTTP 503"
        ),
        # The rules came from the end of the redirect, and so did the 200.
        "moved": _fetch(robots_txt["moved"], robots_txt["moved-target"], 200, "rules", "200"),
    }
    reports = {name: json.loads(robots(site.url(name, "/x"), "--json").stdout) for name in cases}
    for name, expected in cases.items():
        assert reports[name]["robots"] == expected, name
    moved = reports["moved"]
    assert (moved["fetches"], moved["redirects"], len(moved["chain"])) == (1, 1, 2)

    closed = f"http://127.0.0.1:{closed_port}"
    report = json.loads(robots(f"{closed}/x", "--json").stdout)
    fetch = report["robots"]
    assert (fetch["status"], fetch["state"], report["chain"]) == (
        None,
        "unreachable",
        [{"url": f"{closed}/robots.txt", "status": None, "location": None}],
    )
    assert fetch["outcome"] == "connection refused"
    assert (report["verdict"]["allowed"], report["exit_status"]) == (False, 1)

    refused = robots(
        site.url("normal", "/x"),
        "--json",
        "-s",
        'DOWNLOADER_MIDDLEWARES={"tests.refuser.RefuseRobotsTxt": 50}',
        pythonpath=str(PROJECT.parent),
    )
    assert json.loads(refused.stdout)["robots"] == _fetch(
        robots_txt["normal"],
        robots_txt["normal"],
        None,
        "refused",
        "robots.txt not fetched (refused by tests.refuser.RefuseRobotsTxt)",
    )


@pytest.mark.e2e
def test_json_without_a_verdict_says_why(site: DemoSite):
    done = robots(
        site.url("unreachable", "/news"),
        "--json",
        "--wait",
        "-s",
        "CLOSESPIDER_TIMEOUT=1",
        "-s",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT=60",
    )
    assert done.returncode == 2, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert (report["verdict"], report["error"]) == (None, "the request got no verdict")
    assert (report["usage"], report["usage_text"], report["exit_status"]) == (None, None, 2)


@pytest.mark.e2e
def test_a_project_without_the_package_gets_the_addon_for_the_run(site: DemoSite):
    done = robots(
        site.url("normal", "/drafts/next-post"), "-s", "ADDONS={}", "-s", "ROBOTSTXT_OBEY=False"
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert field(done.stdout, "verdict") == (
        "disallowed by \"disallow: /drafts/ (line 9)\" in the group for 'DemoBot'"
    )
    notes = [line for line in done.stdout.splitlines() if line.startswith("note ")]
    assert len(notes) == 2
    assert "ROBOTSTXT_OBEY is off" in notes[0]
    assert "adds scrapy_robots_rfc.Addon to ADDONS" in notes[1]


@pytest.mark.e2e
def test_a_url_robots_txt_does_not_apply_to_is_a_usage_error():
    done = robots("ftp://127.0.0.1/file")
    assert done.returncode == 2
    assert "is not an http or https URL" in done.stderr


@pytest.mark.e2e
def test_a_project_spider_can_be_named_and_robots_txt_is_always_allowed(site: DemoSite):
    done = robots(site.url("normal", "/robots.txt"), "--spider", "tour")
    assert done.returncode == 0, done.stdout + done.stderr
    assert field(done.stdout, "verdict") == (
        "allowed: /robots.txt is always allowed (RFC 9309 §2.2.2)"
    )


@pytest.mark.e2e
def test_an_unknown_spider_is_a_usage_error():
    done = robots("http://127.0.0.1:1/", "--spider", "nope")
    assert done.returncode == 2
    assert "Spider not found: nope" in done.stderr


# -- usage preferences (U-6) ----------------------------------------------------------


@pytest.mark.e2e
def test_usage_preferences_are_shown_after_the_verdict(site: DemoSite):
    before = site.hits("usage")
    done = robots(site.url("usage", "/no-train/page"))
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("verdict "))
    assert lines[at : at + 2] == [
        "verdict      allowed: no rule of the group for '*' matches '/no-train/page'",
        # U-1: the group's n and the whole site's y combine to n (U-4).
        "usage        train-ai=n (content-usage line 4)",
    ]
    assert field(robots(site.url("usage", "/open")).stdout, "usage") == (
        "train-ai=y (content-usage line 1)"
    )
    disallowed = robots(site.url("usage", "/private/x"))
    assert disallowed.returncode == 1
    assert field(disallowed.stdout, "usage") == "none: robots.txt disallows the URL"
    assert site.hits("usage")[len(before) :] == [("/robots.txt", 200)] * 3, "no page"


@pytest.mark.e2e
def test_a_url_the_usage_setting_drops_exits_1(site: DemoSite):
    url = site.url("usage", "/no-train/page")
    done = robots(url, "-s", "ROBOTSTXT_RFC_USAGE=train-ai")
    assert done.returncode == 1, done.stdout + done.stderr
    assert field(done.stdout, "verdict") == (
        "allowed: no rule of the group for '*' matches '/no-train/page'"
    )
    assert field(done.stdout, "usage") == (
        "train-ai=n (content-usage line 4); a crawl drops it: Forbidden by usage preference: "
        "train-ai=n (content-usage line 4) in robots.txt"
    )
    as_json = robots(url, "--json", "-s", "ROBOTSTXT_RFC_USAGE=train-ai")
    assert as_json.returncode == 1, as_json.stdout + as_json.stderr
    report = json.loads(as_json.stdout)
    assert (report["verdict"]["allowed"], report["exit_status"]) == (True, 1)
    assert report["usage"] == {
        "train-ai": {
            "value": "disallow",
            "sources": [{"kind": "content-usage", "line": 4, "text": "train-ai=n"}],
        },
        "search": {"value": "unknown", "sources": []},
        "ai-use": {"value": "unknown", "sources": []},
    }
    assert report["usage_drop"] == (
        "Forbidden by usage preference: train-ai=n (content-usage line 4) in robots.txt"
    )
    assert report["usage_enforced"] == ["train-ai"]
    assert report["usage_text"] == field(done.stdout, "usage")


@pytest.mark.e2e
def test_an_unknown_category_drops_unless_the_page_states_it(site: DemoSite):
    done = robots(
        site.url("usage", "/open"),
        "-s",
        "ROBOTSTXT_RFC_USAGE=search",
        "-s",
        "ROBOTSTXT_RFC_USAGE_UNKNOWN=disallow",
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert field(done.stdout, "usage") == (
        "train-ai=y (content-usage line 1); a crawl drops it unless its Content-Usage header "
        "states search: Forbidden by usage preference: search unknown, "
        'ROBOTSTXT_RFC_USAGE_UNKNOWN = "disallow"'
    )


# -- scrapy robots -h, the log level, outside a project ---------------------------------


def _help(columns: int) -> str:
    """``scrapy robots -h`` at a terminal width, the parser built as
    ``scrapy.cmdline.execute`` builds it."""
    from scrapy.cmdline import ScrapyArgumentParser
    from scrapy.commands import ScrapyHelpFormatter
    from scrapy.settings import Settings

    from scrapy_robots_rfc.commands.robots import Command

    command = Command()
    parser = ScrapyArgumentParser(
        formatter_class=lambda prog: ScrapyHelpFormatter(prog, width=columns - 2),
        usage=f"scrapy robots {command.syntax()}",
        conflict_handler="resolve",
        description=command.long_desc(),
    )
    settings = Settings()
    settings.setdict(command.default_settings, priority="command")
    command.settings = settings
    command.add_options(parser)
    return parser.format_help()


def _headings(text: str) -> list[str]:
    """The lines Scrapy's help formatter made headings: underlined."""
    lines = text.splitlines()
    return [above.strip() for above, line in pairwise(lines) if re.fullmatch(r"[=-]+", line)]


def test_help_has_no_heading_but_its_sections_at_any_width():
    """Scrapy's formatter turns any wrapped help line that ends with ":"
    into an underlined, title-cased heading ("Print The Report As Json (Its
    Schema" over "====" at 80 columns): the command's own text (usage,
    description, options) has none at any width. Scrapy's global options
    are Scrapy's: its ``-L`` help does it below 54 columns."""
    for columns in range(30, 201):
        text = _help(columns)
        ours, _, _ = text.partition("\nGlobal Options\n")
        assert _headings(ours) == ["Usage", "Options"], (columns, text)
        # as written, in lower case (a narrow help column cuts long words)
        letters = "".join(ours.split())
        assert "printthereportasJSON,intheschemaofscrapy_robots_rfc/schemas/robots.json" in letters
        assert "(withoutit,theverdictafterthefirstfetch)" in letters


@pytest.mark.e2e
def test_help_at_80_columns_states_one_log_level_and_the_json_option_as_written(monkeypatch):
    """-L's own help and the description agree: WARNING, whatever the
    project's LOG_LEVEL (INFO in the example project). At 80 columns (a
    terminal's width, and what a help without a terminal gets) no line of
    the command's own is made a heading."""
    monkeypatch.setenv("COLUMNS", "80")
    done = robots("-h")
    assert done.returncode == 0, done.stderr
    text = " ".join(done.stdout.split())
    assert "-L LEVEL, --loglevel LEVEL log level (default: WARNING)" in text
    assert "Logs go to stderr at WARNING, the default of -L for this command." in text
    assert _headings(done.stdout) == ["Usage", "Options", "Global Options"]
    assert "Print The Report" not in done.stdout
    json_help = done.stdout[done.stdout.index("  --json") : done.stdout.index("  --page")]
    assert " ".join(json_help.split()) == (
        "--json print the report as JSON, in the schema of scrapy_robots_rfc/schemas/robots.json"
    )


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("options", "infos"),
    [([], False), (["-L", "INFO"], True), (["-s", "LOG_LEVEL=INFO"], True)],
    ids=["default", "-L", "-s"],
)
def test_the_log_level_is_warning_unless_asked(site: DemoSite, options: list[str], infos: bool):
    done = robots(site.url("normal", "/x"), *options)
    assert done.returncode == 0, done.stdout + done.stderr
    summary = "robots.txt: 1 origin checked"
    assert any(line.startswith(summary) for line in logged(done.stderr, "INFO")) is infos, (
        done.stderr
    )


@pytest.mark.e2e
def test_outside_a_project_the_note_says_so(site: DemoSite, tmp_path: Path):
    done = robots(site.url("normal", "/private/x"), cwd=tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr
    notes = [line for line in done.stdout.splitlines() if line.startswith("note ")]
    assert [note.split(None, 1)[1] for note in notes] == [
        "not in a Scrapy project: this run uses Scrapy's default settings and the -s options, "
        "with ROBOTSTXT_OBEY on and scrapy_robots_rfc.Addon added to ADDONS"
    ]
    # Scrapy's default User-Agent names the crawler Scrapy: the '*' group.
    assert field(done.stdout, "user agent").startswith("Scrapy (from USER_AGENT 'Scrapy/")
    obeying = robots(site.url("normal", "/x"), "-s", "ROBOTSTXT_OBEY=True", cwd=tmp_path)
    assert field(obeying.stdout, "note") == (
        "not in a Scrapy project: this run uses Scrapy's default settings and the -s options, "
        "with scrapy_robots_rfc.Addon added to ADDONS"
    )


@pytest.mark.e2e
def test_a_refused_connection_is_said_without_doubled_punctuation(closed_port: int):
    closed = f"http://127.0.0.1:{closed_port}"
    done = robots(f"{closed}/x")
    assert done.returncode == 1, done.stdout + done.stderr
    line = field(done.stdout, "robots.txt")
    assert line.startswith(f"{closed}/robots.txt → no response: disallow all (unreachable: ")
    assert line.endswith("(unreachable: connection refused; redirects followed: 0)"), line


def _download_errors() -> list[BaseException]:
    """An instance of each network error a robots.txt fetch can end with, as
    Scrapy and Twisted word them; most end with a full stop."""
    import scrapy.exceptions
    from twisted.internet import error
    from twisted.web.client import ResponseNeverReceived

    classes = [
        error.ConnectionRefusedError,
        error.DNSLookupError,
        error.TimeoutError,
        error.TCPTimedOutError,
        error.ConnectionLost,
        error.ConnectionDone,
        error.ConnectError,
    ]
    errors: list[BaseException] = [cls() for cls in classes]
    errors.append(error.DNSLookupError("example.invalid"))
    errors.append(ResponseNeverReceived([]))
    # Scrapy 2.19's own download errors (absent from older versions).
    for name in (
        "DownloadConnectionRefusedError",
        "DownloadTimeoutError",
        "CannotResolveHostError",
    ):
        cls = getattr(scrapy.exceptions, name, None)
        if cls is not None:
            errors.append(cls("Connection was refused by other side: 111: Connection refused."))
    return errors


@pytest.mark.parametrize("exc", _download_errors(), ids=lambda exc: type(exc).__name__)
def test_no_reason_doubles_its_punctuation(exc: BaseException):
    """Each outcome, as the fetcher words it, on the robots.txt line and
    the verdict line of the text report."""
    outcome = reason(exc, 30.0)
    verdict = Verdict.of_state("http://h/x", "Bot", State.UNREACHABLE, outcome, note="a note")
    report = {
        "robots": _fetch("http://h/robots.txt", None, None, "unreachable", outcome),
        "chain": [{"url": "http://h/robots.txt", "status": None, "location": None}],
        "from_store": False,
        "fetches": 1,
        "url": "http://h/x",
        "verdict": verdict.as_dict(),
    }
    text = report_text(report, f"unreachable: {outcome}")
    assert re.search(r"[.;:,]\s*[.;,]", text.replace("...", "")) is None, text


@pytest.mark.parametrize(
    ("parts", "joined"),
    [
        (
            ("unreachable: Connection refused.", "redirects followed: 0"),
            "unreachable: Connection refused; redirects followed: 0",
        ),
        (("", "redirects followed: 1", ""), "redirects followed: 1"),
        (
            ("no robots.txt", "redirects followed: 0", "fetched 3 times"),
            "no robots.txt; redirects followed: 0; fetched 3 times",
        ),
        (("it stopped...", "b."), "it stopped...; b"),
    ],
)
def test_clauses_are_joined_without_their_full_stops(parts: tuple[str, ...], joined: str):
    assert clauses(*parts) == joined


@pytest.mark.e2e
def test_page_downloads_an_allowed_page_and_shows_its_page_level_rules(site: DemoSite):
    """``--page`` downloads the page when robots.txt allows it and shows
    its page-level rules for the crawler (P-1 to P-3); a page robots.txt
    disallows is never downloaded (P-5)."""
    before = site.hits("normal")
    done = robots(site.url("normal", "/about"), "--page")
    assert done.returncode == 0, done.stdout + done.stderr
    assert field(done.stdout, "page") == f"{site.url('normal', '/about')} → 200"
    lines = done.stdout.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("page rules"))
    assert [
        line.split(maxsplit=2)[-1] if i == 0 else line.strip()
        for i, line in enumerate(lines[start : start + 2])
    ] == [
        'noarchive (<meta name="robots">)',
        'nosnippet (<meta name="robots">)',
    ]
    assert site.hits("normal")[len(before) :] == [("/robots.txt", 200), ("/about", 200)]

    plain = json.loads(robots(site.url("normal", "/"), "--page", "--json").stdout)
    assert plain["page_downloaded"] is True
    assert (plain["page"]["rules"], plain["page"]["directives"]) == ("", [])

    before = site.hits("normal")
    disallowed = json.loads(
        robots(site.url("normal", "/private/accounts"), "--page", "--json").stdout
    )
    assert disallowed["exit_status"] == 1
    assert (disallowed["page_downloaded"], disallowed["page"]) == (False, None)
    assert ("/private/accounts", 200) not in site.hits("normal")[len(before) :]


@pytest.mark.e2e
def test_without_page_the_page_is_not_downloaded(site: DemoSite):
    before = site.hits("normal")
    report = json.loads(robots(site.url("normal", "/about"), "--json").stdout)
    assert (report["page_downloaded"], report["page"]) == (False, None)
    assert ("/about", 200) not in site.hits("normal")[len(before) :]


@pytest.mark.e2e
def test_page_dropped_for_its_noai_shows_the_page_rules_that_dropped_it(site: DemoSite):
    """U-8: a crawl for ai-use drops a page whose robots meta tag says noai,
    after it was downloaded; the report shows the page's rules."""
    url = site.url("normal", "/blog/hello-world")
    done = robots(url, "--page", "--json", "-s", "ROBOTSTXT_RFC_USAGE=ai-use")
    report = json.loads(done.stdout)
    assert report["exit_status"] == 1, done.stdout + done.stderr
    assert report["usage_drop"] == (
        'Forbidden by usage preference: ai-use=n (noai (<meta name="robots">))'
    )
    assert report["page_downloaded"] is True
    assert (report["page"]["url"], report["page"]["noai"]) == (url, True)


# -- TDM reservations (W3C TDMRep; T-1 to T-4) ------------------------------------


@pytest.mark.e2e
def test_tdm_shows_the_files_rule_for_a_url_it_reserves(site: DemoSite):
    before = site.hits("tdm")
    done = robots(site.url("tdm", "/a/x"), "--tdm")
    assert done.returncode == 1, done.stdout + done.stderr
    assert field(done.stdout, "verdict").startswith("allowed")
    assert field(done.stdout, "tdm") == (
        "reserved (tdm-reservation 1 from tdmrep.json[0] (location '/a/')), policy "
        "https://p.example/a.json (tdmrep.json[0] (location '/a/')) (tdmrep.json: 200); a "
        "crawl that mines does not download it"
    )
    assert site.hits("tdm")[len(before) :] == [
        ("/robots.txt", 200),
        ("/.well-known/tdmrep.json", 200),
    ]
    report = json.loads(robots(site.url("tdm", "/a/x"), "--tdm", "--json").stdout)
    assert report["tdm"] == {
        "reservation": 1,
        "reserved": True,
        "policy": "https://p.example/a.json",
        "source": "tdmrep.json[0] (location '/a/')",
        "rule": 0,
        "location": "/a/",
        "errors": [],
        "text": report["tdm"]["text"],
        "file": "200",
    }
    assert report["exit_status"] == 1
    # The chain is robots.txt's alone.
    assert [hop["url"] for hop in report["chain"]] == [site.url("tdm", "/robots.txt")]


@pytest.mark.e2e
def test_tdm_with_page_shows_the_header_or_meta_that_reserves_it(site: DemoSite):
    meta = json.loads(robots(site.url("tdm", "/b"), "--tdm", "--page", "--json").stdout)
    assert (meta["tdm"]["reservation"], meta["tdm"]["source"]) == (1, "HTML meta")
    assert meta["exit_status"] == 0, "downloaded: its items are kept from the pipeline"
    header = robots(site.url("tdm", "/c"), "--tdm", "--page")
    assert field(header.stdout, "tdm") == (
        "reserved (tdm-reservation 1 from HTTP header), policy https://p.example/c.json "
        "(HTTP header) (tdmrep.json: 200); a crawl that mines keeps its items from the pipeline"
    )
    free = robots(site.url("tdm", "/other"), "--tdm")
    assert free.returncode == 0
    assert field(free.stdout, "tdm").startswith(
        "not reserved (tdm-reservation 0 from tdmrep.json[1] (location '/other'))"
    )


@pytest.mark.e2e
def test_without_tdm_the_file_is_not_fetched(site: DemoSite):
    before = site.hits("tdm")
    report = json.loads(robots(site.url("tdm", "/a/x"), "--json").stdout)
    assert "tdm" not in report
    assert report["exit_status"] == 0
    assert ("/.well-known/tdmrep.json", 200) not in site.hits("tdm")[len(before) :]


@pytest.mark.e2e
def test_check_tdm_reads_the_file_and_with_page_the_page(site: DemoSite):
    """``check --tdm`` gives each allowed URL's value from the file given,
    and with ``--page`` the page's header and meta on top (T-1)."""
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "scrapy_robots_rfc",
            "check",
            site.url("tdm", "/robots.txt"),
            site.url("tdm", "/a/x"),
            site.url("tdm", "/b"),
            site.url("tdm", "/private/y"),
            "--tdm",
            site.url("tdm", "/.well-known/tdmrep.json"),
            "--page",
            "--json",
        ],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    lines = [valid("check", json.loads(line)) for line in done.stdout.splitlines()]
    by_url = {line["url"]: line for line in lines}
    reserved = by_url[site.url("tdm", "/a/x")]["tdm"]
    assert (reserved["reservation"], reserved["rule"], reserved["file"]) == (1, 0, "200")
    meta = by_url[site.url("tdm", "/b")]["tdm"]
    assert (meta["reservation"], meta["source"]) == (1, "HTML meta")
    assert "tdm" not in by_url[site.url("tdm", "/private/y")], "disallowed: no value"


# -- the file's notes, as check and lint say them (issue 43) --------------------


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("origin", "codes"),
    [
        ("big", ["size-cut"]),
        ("html", ["html-page"]),
        ("latin", ["non-utf8", "ignored-lines"]),
    ],
)
def test_the_file_notes_are_those_of_check(site: DemoSite, origin: str, codes: list[str]):
    """``scrapy robots`` (text and ``--json``) and ``check`` say the same
    notes of the file, in the same words (:func:`.robotstxt.file_notes`):
    a 2 MB robots.txt is cut (the command said only "200: rules"), an HTML
    page is one, non-UTF-8 bytes and ignored lines are said."""
    from scrapy_robots_rfc.robotstxt import file_notes

    expected = file_notes(FILE_NOTES[origin], "text/plain", truncated=origin == "big")
    assert [note.code for note in expected] == codes
    url = site.url(origin, "/a")
    text = robots(url)
    notes = [line.removeprefix("note").strip() for line in text.stdout.splitlines()]
    for note in expected:
        assert f"robots.txt: {note}" in notes, text.stdout
    report = json.loads(robots(url, "--json").stdout)
    assert report["file_notes"] == [note.as_dict() for note in expected]
    assert [n for n in report["notes"] if n.startswith("robots.txt: ")] == [
        f"robots.txt: {note}" for note in expected
    ]
    robots_url = site.url(origin, "/robots.txt")
    checked = subprocess.run(
        [sys.executable, "-m", "scrapy_robots_rfc", "check", robots_url, url],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    for note in expected:
        assert f"note: {robots_url}: {note}" in checked.stderr.splitlines(), checked.stderr


@pytest.mark.e2e
def test_a_file_without_notes_has_none(site: DemoSite):
    report = json.loads(robots(site.url("extras", "/a"), "--json").stdout)
    assert report["file_notes"] == []
    assert not [n for n in report["notes"] if n.startswith("robots.txt: ")]
