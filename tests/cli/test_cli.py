"""``python -m scrapy_robots_rfc check|lint``, run as a user runs it: in a
subprocess, from the checkout (scrapy_robots_rfc/cli.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import quote, unquote

import pytest

from scrapy_robots_rfc import schemas
from scrapy_robots_rfc.robotstxt._lint import CODES
from scrapy_robots_rfc.robotstxt._parser import MAX_BYTES, MAX_LINE_BYTES

from ..command_line import run

ROOT = Path(__file__).parents[2]

ROBOTS = b"""\
User-agent: *
Disallow: /private
Allow: /private/public

User-agent: ExampleBot
Disallow: /
Allow: /shop/index.html
"""

#: The example of draft-ietf-aipref-attach-05 §3.4.
USAGE_ROBOTS = b"""\
User-Agent: *
Allow: /
Disallow: /never/
Content-Usage: train-ai=n
Content-Usage: /ai-ok/ train-ai=y

User-Agent: ExampleBot
Allow: /
Content-Usage: train-ai=y
"""

#: A line before the first user-agent line (U-1) and Content-Signal (U-3).
SIGNAL_ROBOTS = b"""\
Content-Signal: ai-train=no
User-agent: *
Disallow: /private/
Content-Usage: /ok/ train-ai=y, search=y
Content-Signal: search=yes, ai-input=yes
"""


@pytest.fixture
def robots_file(tmp_path: Path) -> str:
    path = tmp_path / "robots.txt"
    path.write_bytes(ROBOTS)
    return str(path)


# -- check ----------------------------------------------------------------


def test_check_file_prints_verdict_rule_line_and_group(robots_file: str) -> None:
    status, out, err = run(
        "check",
        robots_file,
        "https://example.com/private/x",
        "https://example.com/private/public/a",
        "https://example.com/about",
        "https://example.com/robots.txt",
    )
    assert out == [
        'https://example.com/private/x: disallowed by "disallow: /private (line 2)" in '
        "the group for '*'",
        'https://example.com/private/public/a: allowed by "allow: /private/public (line 3)" '
        "in the group for '*'",
        "https://example.com/about: allowed: no rule of the group for '*' matches '/about'",
        "https://example.com/robots.txt: allowed: /robots.txt is always allowed (RFC 9309 §2.2.2)",
    ]
    assert (status, err) == (1, "")


def test_check_user_agent_and_derived_index_rule(robots_file: str) -> None:
    status, out, _ = run(
        "check",
        "--user-agent",
        "ExampleBot",
        robots_file,
        "https://example.com/shop/",
        "https://example.com/shop/cart",
    )
    assert out == [
        'https://example.com/shop/: allowed by "allow: /shop/$ (line 7), derived from allow: '
        "/shop/index.html\" in the group for 'ExampleBot'",
        'https://example.com/shop/cart: disallowed by "disallow: / (line 6)" in the group '
        "for 'ExampleBot'",
    ]
    assert status == 1


@pytest.mark.parametrize(
    ("agent", "mode", "warning", "group"),
    [
        (
            "ExampleBot/2.1",
            "rfc",
            "warning: --user-agent 'ExampleBot/2.1' is not a product token ([A-Za-z_-]+); its "
            "product name 'ExampleBot' is taken as the crawler's name (RFC 9309 §2.2.1), so the "
            "groups for 'User-agent: ExampleBot' apply to it, else the 'User-agent: *' groups\n",
            "ExampleBot",
        ),
        (
            "Mozilla/5.0 (compatible; ExampleBot/2.1)",
            "rfc",
            "warning: --user-agent 'Mozilla/5.0 (compatible; ExampleBot/2.1)' is not a product "
            "token ([A-Za-z_-]+); its product name 'ExampleBot' is taken as the crawler's name "
            "(RFC 9309 §2.2.1), so the groups for 'User-agent: ExampleBot' apply to it, else "
            "the 'User-agent: *' groups\n",
            "ExampleBot",
        ),
        # D-22: a crawler family, most specific first.
        ("ExampleBot-News, ExampleBot", "rfc", "", "ExampleBot"),
        ("OtherBot-News,OtherBot", "google", "", "*"),
        ("*", "rfc", "", "*"),
        ("ExampleBot", "google", "", "ExampleBot"),
        (
            "Example2Bot",
            "google",
            "warning: --user-agent 'Example2Bot' is not a product token ([A-Za-z_-]+); google "
            "mode compares it verbatim with each user-agent line's token, which never holds "
            "other characters, so no group for a crawler applies to it, not even "
            "'User-agent: Example2Bot'; only the 'User-agent: *' groups do\n",
            "*",
        ),
    ],
)
def test_check_names(robots_file: str, agent: str, mode: str, warning: str, group: str) -> None:
    """D-21: a --user-agent that is not a product token gets a warning that
    says what it is taken as and what that selects; D-22: a family."""
    status, out, err = run(
        "check", "--mode", mode, "--user-agent", agent, robots_file, "https://example.com/x"
    )
    assert err == warning
    assert f"the group for {group!r}" in out[0]
    # /x: the '*' group allows it, ExampleBot's "Disallow: /" does not.
    assert status == (0 if group == "*" else 1)


def test_check_exit_0_when_all_allowed(robots_file: str) -> None:
    status, out, _ = run("check", robots_file, "https://example.com/", "https://example.com/a")
    assert status == 0
    assert [line.split()[1] for line in out] == ["allowed:", "allowed:"]


def test_check_no_group_applies() -> None:
    status, out, _ = run(
        "check", "--user-agent", "OtherBot", "-", "https://e.com/x", stdin=b"User-agent: a\n"
    )
    assert out == ["https://e.com/x: allowed: no group names 'OtherBot' and there is no '*' group"]
    assert status == 0


def test_check_stdin() -> None:
    status, out, _ = run("check", "-", "https://e.com/a/b", stdin=b"user-agent: *\ndisallow: /a\n")
    assert out == [
        "https://e.com/a/b: disallowed by \"disallow: /a (line 2)\" in the group for '*'"
    ]
    assert status == 1


#: D-17: bingbot 1 s, msnbot 2 s, others none; all share Disallow: /login.
BING_MSN = (
    b"User-agent: bingbot\nCrawl-delay: 1\n\nUser-agent: msnbot\nCrawl-delay: 2\n\n"
    b"User-agent: *\nDisallow: /login\n"
)


@pytest.mark.parametrize(
    ("name", "delay", "note"),
    [
        ("msnbot", 2.0, "note: <stdin>: crawl-delay of 2 s (line 5, for 'msnbot')"),
        ("bingbot/2.0", 1.0, "note: <stdin>: crawl-delay of 1 s (line 2, for 'bingbot')"),
        ("OtherBot", None, None),
    ],
)
def test_check_says_which_line_gives_the_crawl_delay(
    name: str, delay: float | None, note: str | None
) -> None:
    status, out, err = run(
        "check", "--user-agent", name, "-", "https://e.com/login", stdin=BING_MSN
    )
    assert status == 1  # Disallow: /login is everyone's (D-18)
    assert [line for line in err.splitlines() if "crawl-delay" in line] == (
        [] if note is None else [note]
    )
    status, out, _ = run(
        "check", "--json", "--user-agent", name, "-", "https://e.com/", stdin=BING_MSN
    )
    [record] = (json.loads(line) for line in out)  # checked against its schema by run()
    assert record["crawl_delay"] == delay
    assert record["crawl_delay_from"] == (
        None if note is None else {"line": 2 if delay == 1 else 5, "agents": [name.split("/")[0]]}
    )


#: ``"usage"`` in --json when robots.txt states no preference for the URL.
NONE_STATED = {c: {"value": "unknown", "sources": []} for c in ("train-ai", "ai-use", "search")}


def test_check_json_lines(robots_file: str) -> None:
    status, out, err = run(
        "check", "--json", robots_file, "https://example.com/private/x", "https://example.com/"
    )
    first, second = (json.loads(line) for line in out)
    assert first == {
        "schema": "scrapy_robots_rfc/check/1",
        "url": "https://example.com/private/x",
        "mode": "rfc",
        "user_agent": {"names": ["*"], "given": "*", "from": "--user-agent"},
        "robots": {
            "url": None,
            "source": robots_file,
            "status": None,
            "state": "rules",
            "outcome": None,
        },
        "crawl_delay": None,
        "crawl_delay_from": None,
        "verdict": {
            "allowed": False,
            "rule": {"allow": False, "pattern": "/private", "line": 2},
            "group": ["*"],
            "match_string": "/private/x",
            "reason": "disallowed by \"disallow: /private (line 2)\" in the group for '*'",
            "why": "disallow rule '/private' on line 2 is the longest match for "
            "'/private/x' in the group for '*'",
        },
        "usage": NONE_STATED,
    }
    assert second["verdict"] == {
        "allowed": True,
        "rule": None,
        "group": ["*"],
        "match_string": "/",
        "reason": "allowed: no rule of the group for '*' matches '/'",
        "why": "no rule of the group for '*' matches '/'",
    }
    assert (status, err) == (1, "")


@pytest.mark.parametrize(
    ("mode", "names", "status", "group"),
    [
        # D-21: reduced to its product name, ExampleBot's group decides.
        ("rfc", ["ExampleBot", "OtherBot"], 1, ["ExampleBot"]),
        # Verbatim: no group names 'ExampleBot/2.1' nor OtherBot, so '*'.
        ("google", ["ExampleBot/2.1", "OtherBot"], 0, ["*"]),
    ],
)
def test_check_json_names_the_crawler_as_the_groups_were_looked_up_for(
    robots_file: str, mode: str, names: list[str], status: int, group: list[str]
) -> None:
    """``user_agent.names``: the names the groups were looked up for, a
    family's in its order (D-22)."""
    given = "ExampleBot/2.1, OtherBot"
    args = ("--mode", mode, "--user-agent", given, robots_file, "https://example.com/about")
    code, out, _ = run("check", "--json", *args)
    record = json.loads(out[0])
    assert record["user_agent"] == {"names": names, "given": given, "from": "--user-agent"}
    assert (code, record["mode"], record["verdict"]["group"]) == (status, mode, group)


def test_modes_differ_on_robots_txt_and_escapes() -> None:
    body = b"User-agent: *\nDisallow: /\n"
    url = "https://e.com/robots.txt"
    assert run("check", "-", url, stdin=body)[:2] == (
        0,
        ["https://e.com/robots.txt: allowed: /robots.txt is always allowed (RFC 9309 §2.2.2)"],
    )
    assert run("check", "--mode", "google", "-", url, stdin=body)[:2] == (
        1,
        ["https://e.com/robots.txt: disallowed by \"disallow: / (line 2)\" in the group for '*'"],
    )
    # D-2: rfc decodes %62 ('b', unreserved) in the pattern; google does not.
    body = b"User-agent: *\nDisallow: /a%62\n"
    assert run("check", "-", "https://e.com/ab", stdin=body)[1] == [
        "https://e.com/ab: disallowed by \"disallow: /ab (line 2)\" in the group for '*'"
    ]
    assert run("check", "--mode", "google", "-", "https://e.com/ab", stdin=body)[1] == [
        "https://e.com/ab: allowed: no rule of the group for '*' matches '/ab'"
    ]


def test_check_missing_file_is_an_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "nope.txt")
    status, out, err = run("check", missing, "https://e.com/")
    assert (status, out) == (2, [])
    assert err == (
        f"python -m scrapy_robots_rfc check: error: cannot read {missing}: "
        "No such file or directory\n"
    )


def test_usage_errors_exit_2(robots_file: str) -> None:
    status, _, err = run("check", robots_file)  # no URL
    assert status == 2
    assert "the following arguments are required: URL" in err
    status, _, err = run("check", "ftp://e.com/robots.txt", "https://e.com/")
    assert (status, err) == (
        2,
        "python -m scrapy_robots_rfc check: error: ftp://e.com/robots.txt: "
        "only http and https URLs are fetched\n",
    )


def test_check_rejects_what_is_not_an_http_url(robots_file: str) -> None:
    """Each URL must be an absolute http(s) URL, a bare path too even with a
    local robots.txt: exit 2, one line per bad URL, no verdict."""
    args = ["notaurl", "/relative/path", "ftp://a/x", "example.com/a", "http:///x"]
    status, out, err = run("check", robots_file, "https://example.com/", *args)
    assert (status, out) == (2, [])
    prefix = "python -m scrapy_robots_rfc check: error: "
    accepted = "check takes absolute http and https URLs"
    assert err.splitlines() == [
        f"{prefix}'notaurl' is not a URL: {accepted}, such as https://example.com/path",
        f"{prefix}'/relative/path' is a path, not a URL: {accepted}, such as "
        "https://example.com/relative/path",
        f"{prefix}'ftp://a/x' is not an http or https URL (its scheme is ftp): {accepted}",
        f"{prefix}'example.com/a' has no scheme: {accepted}, such as https://example.com/a",
        f"{prefix}'http:///x' has no valid host and port: {accepted}, such as "
        "https://example.com/path",
    ]


def test_check_bad_url_with_a_robots_url_is_refused_before_the_fetch(closed_port: int) -> None:
    """The example is the robots.txt's own origin; nothing is fetched (the
    port is closed, so a fetch would exit 3)."""
    origin = f"http://127.0.0.1:{closed_port}"
    assert run("check", f"{origin}/robots.txt", "/private/x") == (
        2,
        [],
        "python -m scrapy_robots_rfc check: error: '/private/x' is a path, not a URL: check "
        f"takes absolute http and https URLs, such as {origin}/private/x\n",
    )


@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_check_default_agent_output_names_only_star(tmp_path: Path, mode: str) -> None:
    """The default --user-agent is '*' and is shown as '*', in text and JSON,
    never as a stand-in crawler name (the 'anybot' of an early version)."""
    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: ExampleBot\nDisallow: /\n")
    status, out, err = run("check", "--mode", mode, str(path), "https://e.com/a")
    assert (status, out, err) == (0, ["https://e.com/a: allowed: there is no '*' group"], "")
    status, out, err = run("check", "--json", "--mode", mode, str(path), "https://e.com/a")
    record = json.loads(out[0])
    assert (record["user_agent"], record["verdict"]["reason"]) == (
        {"names": ["*"], "given": "*", "from": "--user-agent"},
        "allowed: there is no '*' group",
    )
    assert "anybot" not in out[0]


# -- check: usage preferences (U-1 to U-5) ----------------------------------


def _write(tmp_path: Path, body: bytes) -> str:
    path = tmp_path / "robots.txt"
    path.write_bytes(body)
    return str(path)


def test_check_prints_usage_preferences(tmp_path: Path) -> None:
    """The examples of draft-ietf-aipref-attach-05 §3.4: the longest match
    within the group, nothing for a disallowed URL; the exit status is the
    verdicts'."""
    path = _write(tmp_path, USAGE_ROBOTS)
    urls = [f"https://example.com/{p}" for p in ("test", "never/test", "ai-ok/test")]
    assert run("check", path, *urls) == (
        1,
        [
            "https://example.com/test: allowed by \"allow: / (line 2)\" in the group for '*'; "
            "usage: train-ai=n (content-usage line 4)",
            'https://example.com/never/test: disallowed by "disallow: /never/ (line 3)" in the '
            "group for '*'; usage: none (disallowed)",
            'https://example.com/ai-ok/test: allowed by "allow: / (line 2)" in the group for '
            "'*'; usage: train-ai=y (content-usage line 5)",
        ],
        "",
    )
    assert run("check", "--user-agent", "ExampleBot", path, *urls) == (
        0,
        [
            f"{url}: allowed by \"allow: / (line 8)\" in the group for 'ExampleBot'; usage: "
            "train-ai=y (content-usage line 9)"
            for url in urls
        ],
        "",
    )


@pytest.mark.parametrize("mode", ["rfc", "google"])
def test_check_usage_before_any_group_and_content_signal(tmp_path: Path, mode: str) -> None:
    """U-1: the line before any user-agent line and the group's longest
    match combine, and "n" wins: /ok/'s train-ai=y does not undo it."""
    path = _write(tmp_path, SIGNAL_ROBOTS)
    status, out, err = run(
        "check",
        "--mode",
        mode,
        "--user-agent",
        "ExampleBot",
        path,
        "https://e.com/ok/a",
        "https://e.com/x",
        "https://e.com/private/x",
    )
    assert out == [
        "https://e.com/ok/a: allowed: no rule of the group for '*' matches '/ok/a'; usage: "
        "train-ai=n, search=y (content-signal line 1, content-usage line 4)",
        "https://e.com/x: allowed: no rule of the group for '*' matches '/x'; usage: "
        "train-ai=n, ai-use=y, search=y (content-signal line 1, content-signal line 5)",
        'https://e.com/private/x: disallowed by "disallow: /private/ (line 3)" in the group '
        "for '*'; usage: none (disallowed)",
    ]
    assert (status, err) == (1, "")


def test_check_json_usage(tmp_path: Path) -> None:
    path = _write(tmp_path, SIGNAL_ROBOTS)
    status, out, err = run("check", "--json", path, "https://e.com/ok/a", "https://e.com/private/")
    first, second = (json.loads(line) for line in out)
    assert first["usage"] == {
        "train-ai": {
            "value": "disallow",
            "sources": [{"kind": "content-signal", "line": 1, "text": "ai-train=no"}],
        },
        "search": {
            "value": "allow",
            "sources": [{"kind": "content-usage", "line": 4, "text": "train-ai=y, search=y"}],
        },
        "ai-use": {"value": "unknown", "sources": []},
    }
    assert list(first) == [
        *("schema", "url", "mode", "user_agent", "robots"),
        *("crawl_delay", "crawl_delay_from", "verdict", "usage"),
    ]
    assert (second["verdict"]["allowed"], second["usage"]) == (False, NONE_STATED)
    assert (status, err) == (1, "")


def test_check_usage_of_a_fetched_robots_txt(robots_server: str) -> None:
    """Fetched, the same; a 404 allows everything and states nothing, even
    if its body has usage lines."""
    page = f"{robots_server}/ai-ok/a"
    assert run("check", f"{robots_server}/usage/robots.txt", page) == (
        0,
        [
            f"{page}: allowed by \"allow: / (line 2)\" in the group for '*'; usage: train-ai=y "
            "(content-usage line 5)"
        ],
        "",
    )
    gone = f"{robots_server}/usage-gone/robots.txt"
    note = f"note: {gone}: 404: no robots.txt: allow all (allow_all)\n"
    assert run("check", gone, page) == (
        0,
        [f"{page}: allowed: robots.txt allows everything"],
        note,
    )
    status, out, err = run("check", "--json", gone, page)
    record = json.loads(out[0])
    assert (status, record["usage"], err) == (0, NONE_STATED, note)
    # The 404 is what the fetch found; every URL is allowed, by no rule.
    assert record["robots"] == {
        "url": gone,
        "source": gone,
        "status": 404,
        "state": "allow_all",
        "outcome": "404: no robots.txt: allow all",
    }
    assert record["verdict"] == {
        "allowed": True,
        "rule": None,
        "group": [],
        "match_string": None,
        "reason": "allowed: robots.txt allows everything",
        "why": "robots.txt allows everything",
    }


# -- lint: usage preferences ------------------------------------------------


def test_lint_usage_lines(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        b"User-agent: *\n"
        b"Disallow: /private/\n"
        b"Content-Usage: Train-AI=n\n"
        b"Content-Usage: ai-train=n, search=y\n"
        b"Content-Signal: /private/x ai-train=no\n"
        b"Content-Usage: /ok/ train-ai=yes\n",
    )
    assert run("lint", path) == (
        1,
        [
            f"{path}:3: usage-syntax: content-usage value 'Train-AI=n' is not a Structured "
            "Fields Dictionary (Key cannot begin with an uppercase character at position 0): "
            "every category is unknown (RFC 9651 §4.2)",
            f"{path}:4: usage-category: content-usage: 'ai-train' is not a usage category "
            "(train-ai, ai-use, search): ignored; Content-Usage writes it 'train-ai'",
            f"{path}:5: usage-disallowed: content-signal: /private/x ai-train=no: every URL it "
            "applies to is disallowed by disallow: /private/ (line 2), so it never applies "
            "(draft-ietf-aipref-attach-05 §3.1)",
            f"{path}:6: usage-value: content-usage: train-ai=yes: the value is not y or n, so "
            "the preference is unknown",
            "4 findings",
        ],
        "",
    )
    status, out, err = run("lint", "--json", path)
    assert json.loads(out[0]) == {
        "schema": "scrapy_robots_rfc/lint/1",
        "source": path,
        "line": 3,
        "code": "usage-syntax",
        "message": "content-usage value 'Train-AI=n' is not a Structured Fields Dictionary (Key "
        "cannot begin with an uppercase character at position 0): every category is unknown "
        "(RFC 9651 §4.2)",
        "note": False,
        "mode": "rfc",
    }
    assert (status, len(out), err) == (1, 4, "4 findings\n")


def test_lint_usage_lines_are_no_unknown_keys() -> None:
    body = b"Content-Signal: ai-train=no\nUser-agent: *\nContent-Usage: /a/ train-ai=y\nAllow: /\n"
    assert run("lint", "-", stdin=body) == (0, ["no findings"], "")
    assert run("lint", "--mode", "google", "-", stdin=body) == (0, ["no findings"], "")


#: An HTML page served as robots.txt: 35 lines, each one a finding.
HTML_PAGE = b"<!DOCTYPE html>\n<html>\n<body>\n" + b"<p>item</p>\n" * 30 + b"</body>\n</html>\n"
#: The findings of HTML_PAGE from line 2 on: one word, no ':'.
HTML_SYNTAX = "syntax: no ':' and not two words: not a 'key: value' line, ignored"

#: path -> (status, headers, body) of the local robots.txt server. A path
#: "/redirect?to=URL" answers 302 to URL.
ROUTES: dict[str, tuple[int, dict[str, str | list[str]], bytes]] = {
    "/ok/robots.txt": (200, {}, ROBOTS),
    "/gone/robots.txt": (404, {}, b"User-agent: *\nDisallow: /\n"),
    "/down/robots.txt": (503, {}, b"User-agent: *\nAllow: /\n"),
    "/busy/robots.txt": (429, {}, b""),
    "/moved/robots.txt": (301, {"Location": "/ok/robots.txt"}, b""),
    "/twice/robots.txt": (302, {"Location": "/moved/robots.txt"}, b""),
    "/loop/robots.txt": (302, {"Location": "/loop/robots.txt"}, b""),
    "/html/robots.txt": (200, {"Content-Type": "text/html; charset=utf-8"}, HTML_PAGE),
    "/error-page/robots.txt": (200, {"Content-Type": "text/html"}, b"Not Found\n"),
    "/typed/robots.txt": (200, {"Content-Type": "text/html"}, ROBOTS),
    "/usage/robots.txt": (200, {}, USAGE_ROBOTS),
    "/usage-gone/robots.txt": (404, {}, USAGE_ROBOTS),
    "/page/tagged": (
        200,
        {"Content-Type": "text/html", "X-Robots-Tag": ["noarchive", "testbot: nofollow"]},
        b'<html><head><meta name="robots" content="noindex"></head><body>x</body></html>',
    ),
    "/page/plain": (200, {"Content-Type": "text/html"}, b"<html><head></head><body></body></html>"),
    "/page/untyped": (
        200,
        {},
        b'<!DOCTYPE html><html><head><meta name="robots" content="noindex">',
    ),
}
#: The paths the server was asked for, in order.
HITS: list[str] = []


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        HITS.append(self.path)
        status, headers, body = ROUTES.get(self.path, (404, {}, b""))
        if self.path.startswith("/redirect?to="):
            status, headers = 302, {"Location": unquote(self.path.partition("=")[2])}
        if self.path == "/slow/robots.txt":
            time.sleep(1.0)  # longer than the client's --timeout
        try:
            self.send_response(status)
            for name, value in headers.items():
                for one in [value] if isinstance(value, str) else value:
                    self.send_header(name, one)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (/slow)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def _serving() -> Iterator[str]:
    """A local robots.txt server on 127.0.0.1 serving ROUTES; its URL."""
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


@pytest.fixture
def robots_server() -> Iterator[str]:
    with _serving() as url:
        yield url


@pytest.fixture
def other_server() -> Iterator[str]:
    """A second origin (another port)."""
    with _serving() as url:
        yield url


def _cannot_fetch(url: str, problem: str, origin: str) -> str:
    return (
        f"cannot fetch {url}: {problem}. A crawl would treat {origin} as unreachable and "
        "disallow every URL there while it stays so (RFC 9309 §2.3.1.4)\n"
    )


def test_check_url_follows_the_status_policy(robots_server: str) -> None:
    """The status and redirect steps are the middleware's (policy.Redirects),
    and so are the outcomes, on stderr."""
    page = f"{robots_server}/private/x"
    by_rule = f"{page}: disallowed by \"disallow: /private (line 2)\" in the group for '*'"
    assert run("check", f"{robots_server}/ok/robots.txt", page) == (1, [by_rule], "")
    gone = f"{robots_server}/gone/robots.txt"
    assert run("check", gone, page) == (
        0,
        [f"{page}: allowed: robots.txt allows everything"],
        f"note: {gone}: 404: no robots.txt: allow all (allow_all)\n",
    )
    loop = f"{robots_server}/loop/robots.txt"
    assert run("check", loop, page) == (
        0,
        [f"{page}: allowed: robots.txt allows everything"],
        f"note: {loop}: 302: redirect loop at {loop}: allow all (allow_all)\n",
    )


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("down", "the server answered 503 Service Unavailable"),
        ("busy", "the server answered 429 Too Many Requests"),
    ],
)
def test_check_unreachable_is_exit_3_not_a_verdict(
    robots_server: str, path: str, problem: str
) -> None:
    """429 and 5xx: no verdict is printed, stderr says why and what a crawl
    does (RFC 9309 §2.3.1.4), and the exit status is 3, not 1."""
    source = f"{robots_server}/{path}/robots.txt"
    assert run("check", source, f"{robots_server}/a") == (
        3,
        [],
        _cannot_fetch(source, problem, robots_server),
    )


def test_check_refused_connection_is_exit_3(closed_port: int) -> None:
    origin = f"http://127.0.0.1:{closed_port}"
    robots = f"{origin}/robots.txt"
    expected = _cannot_fetch(robots, "connection refused", origin)
    assert run("check", robots, f"{origin}/a", f"{origin}/b") == (3, [], expected)
    status, out, err = run("check", "--json", robots, f"{origin}/a")
    record = json.loads(out[0])
    assert (status, err, len(out)) == (3, expected, 1)
    assert record["verdict"]["allowed"] is False
    fetch = record["robots"]
    assert (fetch["url"], fetch["source"], fetch["status"], fetch["state"]) == (
        robots,
        robots,
        None,
        "unreachable",
    )
    assert fetch["outcome"].startswith("ConnectionRefusedError: ")
    assert run("lint", robots) == (3, [], expected)


def test_check_timeout_is_exit_3(robots_server: str) -> None:
    source = f"{robots_server}/slow/robots.txt"
    assert run("check", "--timeout", "0.2", source, f"{robots_server}/a") == (
        3,
        [],
        _cannot_fetch(source, "no answer within 0.2 seconds", robots_server),
    )


def test_check_url_json_reports_the_status(robots_server: str) -> None:
    source = f"{robots_server}/down/robots.txt"
    status, out, err = run("check", "--json", source, f"{robots_server}/")
    record = json.loads(out[0])
    assert record["robots"] == {
        "url": source,
        "source": source,
        "status": 503,
        "state": "unreachable",
        "outcome": "HTTP 503",
    }
    assert record["verdict"] == {
        "allowed": False,
        "rule": None,
        "group": [],
        "match_string": None,
        "reason": "disallowed: robots.txt unreachable: HTTP 503",
        "why": "robots.txt unreachable: HTTP 503",
    }
    assert status == 3
    assert err == _cannot_fetch(
        source, "the server answered 503 Service Unavailable", robots_server
    )


def test_check_shows_the_redirects_followed(robots_server: str) -> None:
    page = f"{robots_server}/private/x"
    by_rule = f"{page}: disallowed by \"disallow: /private (line 2)\" in the group for '*'"
    moved, twice, ok = (f"{robots_server}/{p}/robots.txt" for p in ("moved", "twice", "ok"))
    assert run("check", moved, page) == (
        1,
        [by_rule],
        f"note: robots.txt: {moved} -> {ok} (1 redirect)\n",
    )
    assert run("check", twice, page) == (
        1,
        [by_rule],
        f"note: robots.txt: {twice} -> {moved} -> {ok} (2 redirects)\n",
    )


def test_check_redirect_to_another_origin(robots_server: str, other_server: str) -> None:
    """RFC 9309 §2.3.1.2: the rules found at the end of the redirects are
    those of the origin asked for; the note says so."""
    target = f"{other_server}/ok/robots.txt"
    robots = f"{robots_server}/redirect?to={quote(target, safe='')}"
    page = f"{robots_server}/private/x"
    status, out, err = run("check", robots, page)
    assert (status, out) == (
        1,
        [f"{page}: disallowed by \"disallow: /private (line 2)\" in the group for '*'"],
    )
    assert err == (
        f"note: robots.txt: {robots} -> {target} (1 redirect); its rules are those of "
        f"{robots_server} (RFC 9309 §2.3.1.2)\n"
    )


def test_check_warns_about_urls_of_another_origin(robots_server: str, tmp_path: Path) -> None:
    """RFC 9309 §2.3: a robots.txt applies to its scheme, host and port
    only; one warning per other origin, the verdicts as for its own."""
    robots = f"{robots_server}/ok/robots.txt"
    port = robots_server.rsplit(":", 1)[1]
    urls = [
        "https://example.com/private/x",
        f"{robots_server}/private/x",
        "https://example.com/about",
        f"http://localhost:{port}/about",
    ]
    status, out, err = run("check", robots, *urls)
    assert out == [
        'https://example.com/private/x: disallowed by "disallow: /private (line 2)" in the '
        "group for '*'",
        f'{robots_server}/private/x: disallowed by "disallow: /private (line 2)" in the '
        "group for '*'",
        "https://example.com/about: allowed: no rule of the group for '*' matches '/about'",
        f"http://localhost:{port}/about: allowed: no rule of the group for '*' matches '/about'",
    ]
    assert err == "".join(
        f"warning: {robots} applies only to {robots_server} (its scheme, host and port; "
        f"RFC 9309 §2.3): the verdicts for URLs on {other} are those it gives for the same "
        f"paths on {robots_server}; on {other}, {other}/robots.txt decides\n"
        for other in ("https://example.com", f"http://localhost:{port}")
    )
    assert status == 1
    # A file has no origin: nothing to warn about.
    path = tmp_path / "robots.txt"
    path.write_bytes(ROBOTS)
    assert run("check", str(path), *urls)[::2] == (1, "")


# -- lint -----------------------------------------------------------------

LINT_HEAD = b"""\
Disallow: /before
User-agent: *
Dissallow: /typo
Disallowed: /prefix
Disallow /nocolon
Disallow
Host: example.com
this line has five words
Disallow: foo
Allow: /same
Disallow: /same
Disallow: /dir/
Allow: /dir/*
Disallow: /dup
Disallow: /dup
Disallow:
Sitemap: /sitemap.xml
Crawl-delay: soon
Disallow: /caf\xe9
User-agent: 42bot
Disallow: /x
User-agent: my.crawler
"""

#: (line, code) of each finding of the lint file, in output order.
LINT_EXPECTED = [
    (1, "before-user-agent"),
    (3, "typo"),
    (4, "key-prefix"),
    (5, "missing-colon"),
    (6, "missing-value"),
    (7, "unknown-key"),
    (8, "syntax"),
    (9, "never-matches"),
    (11, "shadowed"),
    (12, "shadowed"),
    (15, "duplicate"),
    (16, "empty-rule"),
    (17, "bad-sitemap"),
    (18, "bad-crawl-delay"),
    (19, "non-utf8"),
    (20, "no-token"),
    (22, "partial-token"),
    (23, "line-cut"),
]


def _lint_file(tmp_path: Path) -> tuple[str, int]:
    """A file with every code of finding; the line past the 500 KiB limit."""
    body = LINT_HEAD + b"Disallow: /" + b"x" * MAX_LINE_BYTES + b"\n"  # line 23
    lines = 23
    while len(body) < MAX_BYTES:  # comments up to exactly MAX_BYTES bytes
        size = min(10_000, MAX_BYTES - len(body))
        body += b"#" * (size - 1) + b"\n"
        lines += 1
    assert len(body) == MAX_BYTES
    body += b"Disallow: /past-the-limit\n"
    path = tmp_path / "lint.txt"
    path.write_bytes(body)
    return str(path), lines + 1


_FINDING = re.compile(r"(.*):([0-9]+): ([a-z0-9-]+): (.*)")
#: An internal spec ID (tests/project/test_spec_ids.py): FMT-11, D-4, PATH-5.
_SPEC_ID = re.compile(r"\b(?!UTF-8\b)[A-Z]+-[0-9]+\b")


def test_lint_reports_each_code_with_its_line(tmp_path: Path) -> None:
    path, past = _lint_file(tmp_path)
    status, out, err = run("lint", path)
    parsed = [_FINDING.fullmatch(line) for line in out[:-1]]
    found = [(m.group(1), int(m.group(2)), m.group(3)) for m in parsed if m is not None]
    expected = [*LINT_EXPECTED, (past, "past-limit")]
    assert found == [(path, line, code) for line, code in expected]
    assert out[-1] == f"{len(expected) - 1} findings (1 note)"
    assert (status, err) == (1, "")
    messages = {str(line): m.group(4) for m, (_, line, _) in zip(parsed, found, strict=True) if m}
    assert (
        messages["3"]
        == "'Dissallow' is read as 'disallow': a typo Google's robots.txt parser accepts"
    )
    assert messages["11"] == (
        "disallow: /same never decides: allow: /same (line 10) matches every URL it matches "
        "and wins (longest match, allow on a tie; RFC 9309 §2.2.2)"
    )
    assert messages["12"].startswith("disallow: /dir/ never decides: allow: /dir/* (line 13)")
    assert messages["15"] == "disallow: /dup repeats disallow: /dup (line 14)"
    assert messages["16"].startswith("empty disallow: matches nothing, a no-op (not an error)")
    assert messages["19"].startswith("byte 0xe9 at column 15 is not UTF-8")
    assert messages["22"] == (
        "user-agent 'my.crawler' is not a product token, which has only letters, '-' and '_' "
        "(RFC 9309 §2.2.1): its token stops before '.', so rfc mode applies the group to a "
        "crawler named 'my' or 'my.crawler', google mode (as Google's parser) only to one "
        "named 'my'"
    )
    assert messages["23"].startswith(f"line is {MAX_LINE_BYTES + 11:,} bytes")
    # Messages cite what a user can look up: no internal spec IDs (FMT-11, D-4).
    assert [m for m in messages.values() if _SPEC_ID.search(m)] == []


def test_lint_json(tmp_path: Path) -> None:
    path, past = _lint_file(tmp_path)
    status, out, err = run("lint", "--json", path)
    records = [json.loads(line) for line in out]
    assert [(r["line"], r["code"]) for r in records] == [*LINT_EXPECTED, (past, "past-limit")]
    keys = ["schema", "source", "line", "code", "message", "note", "mode"]
    assert all(list(r) == keys for r in records)
    assert {(r["schema"], r["source"], r["mode"]) for r in records} == {(schemas.LINT, path, "rfc")}
    assert [r["line"] for r in records if r["note"]] == [16]
    google = [json.loads(line) for line in run("lint", "--json", "--mode", "google", path)[1]]
    assert {r["mode"] for r in google} == {"google"}
    assert (status, err) == (1, "18 findings (1 note)\n")


def test_lint_clean_file(robots_file: str) -> None:
    assert run("lint", robots_file) == (0, ["no findings"], "")


def test_lint_empty_disallow_is_only_a_note() -> None:
    status, out, _ = run("lint", "-", stdin=b"User-agent: *\nDisallow:\n")
    assert out[-1] == "no findings (1 note)"
    assert out[0].startswith("<stdin>:2: empty-rule: empty disallow: matches nothing")
    assert status == 0


def test_lint_counts_in_the_singular_and_plural() -> None:
    body = b"User-agent: *\nDisallow:\nAllow:\nNoindex: /a\n"
    assert run("lint", "-", stdin=body) == (
        1,
        [
            "<stdin>:2: empty-rule: empty disallow: matches nothing, a no-op (not an error); it "
            "still ends the user-agent lines of its group, as in Google's parser",
            "<stdin>:3: empty-rule: empty allow: matches nothing, a no-op (not an error); it "
            "still ends the user-agent lines of its group, as in Google's parser",
            "<stdin>:4: unknown-key: unsupported key 'Noindex': the line is ignored "
            "(RFC 9309 §2.2.4)",
            "1 finding (2 notes)",
        ],
        "",
    )


def test_lint_user_agent_that_is_not_a_product_token() -> None:
    """``my.crawler``: the token stops at '.'; the message says which names
    the group is for in each mode (the parser's binding, tests/robotstxt/test_lint.py)."""
    body = b"User-agent: my.crawler\nDisallow: /\n"
    expected = [
        "<stdin>:1: partial-token: user-agent 'my.crawler' is not a product token, which has "
        "only letters, '-' and '_' (RFC 9309 §2.2.1): its token stops before '.', so rfc mode "
        "applies the group to a crawler named 'my' or 'my.crawler', google mode (as Google's "
        "parser) only to one named 'my'",
        "1 finding",
    ]
    assert run("lint", "-", stdin=body) == (1, expected, "")
    assert run("lint", "--mode", "google", "-", stdin=body) == (1, expected, "")


def _html_findings(source: str, first: int, last: int, doctype: str = "<!DOCTYPE") -> list[str]:
    """The findings of HTML_PAGE at lines ``first`` to ``last`` when it
    starts at line ``first``."""
    return [
        f"{source}:{first}: unknown-key: unsupported key {doctype!r}: the line is ignored "
        "(RFC 9309 §2.2.4)",
        *(f"{source}:{line}: {HTML_SYNTAX}" for line in range(first + 1, last + 1)),
    ]


def test_lint_html_page_served_as_robots_txt(robots_server: str) -> None:
    """One line says what it is first; 20 findings, then how many more."""
    source = f"{robots_server}/html/robots.txt"
    summary = (
        f"{source}: this looks like an HTML page, not a robots.txt (it starts with "
        "'<!DOCTYPE html' and it was served as text/html): every line is ignored, so a "
        "crawler finds no rule in it"
    )
    assert run("lint", source) == (
        1,
        [
            summary,
            *_html_findings(source, 1, 20),
            "... and 15 more (--all prints them all)",
            "35 findings",
        ],
        "",
    )
    assert run("lint", "--all", source) == (
        1,
        [summary, *_html_findings(source, 1, 35), "35 findings"],
        "",
    )


def test_lint_html_file_and_json(tmp_path: Path) -> None:
    """A file is recognised by how it starts, after a BOM and white space;
    --json prints every finding and the two summary lines on stderr."""
    path = tmp_path / "robots.txt"
    path.write_bytes(b"\xef\xbb\xbf \n" + HTML_PAGE.replace(b"<!DOCTYPE", b"<!doctype"))
    summary = (
        f"{path}: this looks like an HTML page, not a robots.txt (it starts with "
        "'<!doctype html'): every line is ignored, so a crawler finds no rule in it"
    )
    assert run("lint", str(path)) == (
        1,
        [
            summary,
            *_html_findings(str(path), 2, 21, "<!doctype"),
            "... and 15 more (--all prints them all)",
            "35 findings",
        ],
        "",
    )
    status, out, err = run("lint", "--json", str(path))
    assert [json.loads(line)["line"] for line in out] == list(range(2, 37))
    assert (status, err) == (1, f"{summary}\n35 findings\n")


def test_lint_served_as_text_html(robots_server: str) -> None:
    """text/html with no line read is a page; a robots.txt with the wrong
    Content-Type is linted as usual (crawlers read it, RFC 9309 §2.3.1.1)."""
    source = f"{robots_server}/error-page/robots.txt"
    assert run("lint", source) == (
        1,
        [
            f"{source}: this looks like an HTML page, not a robots.txt (it was served as "
            "text/html): every line is ignored, so a crawler finds no rule in it",
            f"{source}:1: unknown-key: unsupported key 'Not': the line is ignored (RFC 9309 "
            "§2.2.4)",
            "1 finding",
        ],
        "",
    )
    assert run("lint", f"{robots_server}/typed/robots.txt") == (0, ["no findings"], "")


@pytest.mark.parametrize("command", ["lint", "check"])
def test_output_closed_early_is_quiet(tmp_path: Path, command: str) -> None:
    """``... | head``: no BrokenPipeError traceback, exit status 141 (128 +
    SIGPIPE, as a shell reports a program SIGPIPE ended)."""
    path = tmp_path / "robots.txt"
    if command == "lint":
        path.write_bytes(b"<html>\n" + b"<p>item</p>\n" * 5_000)
        args = ["lint", "--all", str(path)]
    else:  # some 300 KB of verdicts: more than a pipe holds
        path.write_bytes(ROBOTS)
        args = ["check", str(path), *(f"https://example.com/private/{i}" for i in range(4_000))]
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    with subprocess.Popen(
        [sys.executable, "-W", "error", "-m", "scrapy_robots_rfc", *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    ) as process:
        assert process.stdout is not None
        assert process.stderr is not None
        first = process.stdout.readline()
        process.stdout.close()  # what head does after its lines
        err = process.stderr.read()
        status = process.wait(timeout=120)
    assert first.startswith(str(path).encode() if command == "lint" else b"https://example.com/")
    assert (status, err) == (141, b"")


def test_lint_url_without_robots_txt_is_an_error(robots_server: str) -> None:
    status, out, err = run("lint", f"{robots_server}/gone/robots.txt")
    assert (status, out) == (2, [])
    assert err.endswith("404: no robots.txt: allow all (allow_all): nothing to lint\n")


def test_help_has_examples_and_exit_statuses() -> None:
    status, out, _ = run("check", "--help")
    text = "\n".join(out)
    assert status == 0
    assert (
        "exit status: 0 every URL is allowed; 1 the rules disallow one, or with --tdm\n"
        "a TDM reservation reserves one; 2 error (a bad argument or URL, a file that\n"
        "cannot be read); 3 robots.txt could not be fetched (429, 5xx, network error);\n"
        "141 output closed early (as by | head).\n"
    ) in text
    assert "  python -m scrapy_robots_rfc check robots.txt https://example.com/private/x" in text
    assert "  https://example.com/d: allowed ...; usage: train-ai=n (content-usage line 4)" in text
    assert "keys schema (scrapy_robots_rfc/check/1), url, mode, user_agent (names, given," in text
    assert "scrapy_robots_rfc/schemas/check.json." in text
    status, out, _ = run("lint", "--help")
    text = "\n".join(out)
    assert (
        "exit status: 0 no findings (notes allowed); 1 findings; 2 error; 3 robots.txt\n"
        "could not be fetched (429, 5xx, network error); 141 output closed early (as\n"
        "by | head).\n"
    ) in text
    assert all(f"  {code} " in text for code in CODES)
    assert "the keys schema (scrapy_robots_rfc/lint/1), source, line, code, message, note" in text
    assert "  usage-disallowed   a usage preference for URLs robots.txt disallows" in text


def test_cli_does_not_import_scrapy() -> None:
    code = (
        "import scrapy_robots_rfc.cli, scrapy_robots_rfc.__main__, sys\n"
        "assert 'scrapy' not in sys.modules and 'twisted' not in sys.modules\n"
        "print('pure')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout == "pure\n"


@pytest.mark.parametrize("agent", [None, "*"])
def test_the_default_agent_asks_for_the_star_group(tmp_path: Path, agent: str | None) -> None:
    """A group whose user-agent has no token (``*bot``) is not the ``*``
    group: with Google's parser an empty token would select it (UA-7)."""
    path = tmp_path / "robots.txt"
    path.write_bytes(b"User-agent: *bot\nDisallow: /a\n\nUser-agent: *\nDisallow: /b\n")
    extra = () if agent is None else ("--user-agent", agent)
    code, lines, _ = run("check", *extra, str(path), "http://h/a", "http://h/b")
    assert code == 1
    assert lines == [
        "http://h/a: allowed: no rule of the group for '*' matches '/a'",
        "http://h/b: disallowed by \"disallow: /b (line 5)\" in the group for '*'",
    ]


def test_check_refuses_an_empty_name_in_a_family(robots_file: str) -> None:
    status, out, err = run("check", "--user-agent", "a,,b", robots_file, "https://example.com/x")
    assert (status, out) == (2, [])
    assert "--user-agent 'a,,b' has an empty name" in err


def test_check_page_shows_the_page_level_rules_of_each_allowed_url(robots_server: str) -> None:
    """``--page`` fetches each URL robots.txt allows (never one it
    disallows, P-5) and shows its page-level rules for the crawler: the
    robots meta tag, and the X-Robots-Tag headers for every crawler and for
    TestBot by name (P-1, P-2)."""
    HITS.clear()
    tagged, plain, private = (
        f"{robots_server}{p}" for p in ("/page/tagged", "/page/plain", "/private/x")
    )
    robots = f"{robots_server}/ok/robots.txt"
    status, out, err = run(
        "check", "--page", "--user-agent", "TestBot", robots, tagged, plain, private
    )
    assert (status, err) == (1, ""), "one URL is disallowed"
    assert out == [
        f"{tagged}: allowed: no rule of the group for '*' matches '/page/tagged'; page: "
        "noarchive (X-Robots-Tag header, every crawler); nofollow (X-Robots-Tag header, "
        'testbot); noindex (<meta name="robots">)',
        f"{plain}: allowed: no rule of the group for '*' matches '/page/plain'; "
        "page: no page-level rules",
        f"{private}: disallowed by \"disallow: /private (line 2)\" in the group for '*'",
    ]
    assert HITS == ["/ok/robots.txt", "/page/tagged", "/page/plain"]


def test_check_page_json_carries_the_page_object(robots_server: str) -> None:
    tagged = f"{robots_server}/page/tagged"
    status, out, _ = run(
        "check",
        "--json",
        "--page",
        "--user-agent",
        "TestBot",
        f"{robots_server}/ok/robots.txt",
        tagged,
    )
    assert status == 0
    page = json.loads(out[0])["page"]
    assert page["url"] == tagged
    assert page["status"] == 200
    assert page["rules"] == "noindex, nofollow, noarchive"
    assert (page["noindex"], page["nofollow"], page["noarchive"], page["noai"]) == (
        True,
        True,
        True,
        False,
    )
    assert page["directives"][1] == {
        "name": "nofollow",
        "value": None,
        "source": "header",
        "applies_to": "testbot",
    }
    assert page["unavailable_after"] is None


def test_check_page_never_follows_a_redirect(robots_server: str) -> None:
    """A redirect is the page's answer: its target, which robots.txt may
    disallow (here /private/secret), is never fetched (P-5); its own
    headers are read and where it points is said."""
    HITS.clear()
    go = f"{robots_server}/redirect?to=/private/secret"
    status, out, err = run("check", "--page", f"{robots_server}/ok/robots.txt", go)
    assert (status, err) == (0, "")
    assert out == [
        f"{go}: allowed: no rule of the group for '*' matches '/redirect?to=/private/secret'; "
        "page: 302 to /private/secret (not followed), no page-level rules"
    ]
    assert HITS == ["/ok/robots.txt", "/redirect?to=/private/secret"]


def test_check_page_reads_a_page_without_a_content_type_that_looks_like_html(
    robots_server: str,
) -> None:
    untyped = f"{robots_server}/page/untyped"
    status, out, _ = run("check", "--page", f"{robots_server}/ok/robots.txt", untyped)
    assert status == 0
    assert out[0].endswith('; page: noindex (<meta name="robots">)')
