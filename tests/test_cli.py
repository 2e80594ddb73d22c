"""``python -m scrapy_robots_rfc check|lint``, run as a user runs it: in a
subprocess, from the checkout (scrapy_robots_rfc/cli.py)."""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from scrapy_robots_rfc.lint import CODES
from scrapy_robots_rfc.parser import MAX_BYTES, MAX_LINE_BYTES

ROOT = Path(__file__).parents[1]

ROBOTS = b"""\
User-agent: *
Disallow: /private
Allow: /private/public

User-agent: ExampleBot
Disallow: /
Allow: /shop/index.html
"""


def run(*args: str, stdin: bytes | None = None) -> tuple[int, list[str], str]:
    """Exit status, stdout lines and stderr of the command line."""
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONIOENCODING"] = "utf-8"
    done = subprocess.run(
        [sys.executable, "-W", "error", "-m", "scrapy_robots_rfc", *args],
        cwd=ROOT,
        input=stdin,
        capture_output=True,
        env=env,
        timeout=120,
    )
    return done.returncode, done.stdout.decode().splitlines(), done.stderr.decode()


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
            "warning: --user-agent 'ExampleBot/2.1' is not a product token ([A-Za-z_-]+) and "
            "holds a '/', space or tab, which no user-agent line's product name holds, so only "
            "the 'User-agent: *' groups apply to it\n",
            "*",
        ),
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
def test_check_names_as_given(robots_file: str, agent: str, mode: str, warning: str, group: str):
    """D-21: --user-agent is compared as given; a name that is not a product
    token gets a warning that says what it selects."""
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


def test_check_json_lines(robots_file: str) -> None:
    status, out, err = run(
        "check", "--json", robots_file, "https://example.com/private/x", "https://example.com/"
    )
    first, second = (json.loads(line) for line in out)
    assert first == {
        "url": "https://example.com/private/x",
        "verdict": "disallowed",
        "allowed": False,
        "user_agent": "*",
        "token": "*",
        "mode": "rfc",
        "match_string": "/private/x",
        "rule": {"allow": False, "pattern": "/private", "line": 2},
        "group": ["*"],
        "reason": "disallowed by \"disallow: /private (line 2)\" in the group for '*'",
        "why": "disallow rule '/private' on line 2 is the longest match for "
        "'/private/x' in the group for '*'",
        "robots": {"source": robots_file, "status": None, "kind": "rules", "outcome": None},
    }
    assert (second["allowed"], second["rule"], second["match_string"]) == (True, None, "/")
    assert (status, err) == (1, "")


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


#: path -> (status, headers, body) of the local robots.txt server.
ROUTES: dict[str, tuple[int, dict[str, str], bytes]] = {
    "/ok/robots.txt": (200, {}, ROBOTS),
    "/gone/robots.txt": (404, {}, b"User-agent: *\nDisallow: /\n"),
    "/down/robots.txt": (503, {}, b"User-agent: *\nAllow: /\n"),
    "/busy/robots.txt": (429, {}, b""),
    "/moved/robots.txt": (301, {"Location": "/ok/robots.txt"}, b""),
    "/loop/robots.txt": (302, {"Location": "/loop/robots.txt"}, b""),
}


class _Handler(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        status, headers, body = ROUTES.get(self.path, (404, {}, b""))
        self.send_response(status)
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def robots_server() -> Iterator[str]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_port}"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join()


def test_check_url_follows_the_status_policy(robots_server: str) -> None:
    """The status and redirect steps are the middleware's (policy.Redirects),
    and so are the outcomes, on stderr."""
    page = "https://example.com/private/x"
    by_rule = f"{page}: disallowed by \"disallow: /private (line 2)\" in the group for '*'"
    assert run("check", f"{robots_server}/ok/robots.txt", page) == (1, [by_rule], "")
    assert run("check", f"{robots_server}/moved/robots.txt", page) == (1, [by_rule], "")
    gone = f"{robots_server}/gone/robots.txt"
    assert run("check", gone, page) == (
        0,
        [f"{page}: allowed: robots.txt allows everything"],
        f"note: {gone}: 404: no robots.txt: allow all (allow_all)\n",
    )
    for path, status in (("down", 503), ("busy", 429)):
        source = f"{robots_server}/{path}/robots.txt"
        assert run("check", source, page) == (
            1,
            [f"{page}: disallowed: robots.txt unreachable: HTTP {status}"],
            f"note: {source}: HTTP {status} (unreachable)\n",
        )
    loop = f"{robots_server}/loop/robots.txt"
    assert run("check", loop, page) == (
        0,
        [f"{page}: allowed: robots.txt allows everything"],
        f"note: {loop}: 302: redirect loop at {loop}: allow all (allow_all)\n",
    )


def test_check_url_json_reports_the_status(robots_server: str) -> None:
    status, out, err = run("check", "--json", f"{robots_server}/down/robots.txt", "https://e/")
    record = json.loads(out[0])
    assert record["robots"] == {
        "source": f"{robots_server}/down/robots.txt",
        "status": 503,
        "kind": "unreachable",
        "outcome": "HTTP 503",
    }
    assert (record["allowed"], record["rule"], status) == (False, None, 1)
    assert err == f"note: {robots_server}/down/robots.txt: HTTP 503 (unreachable)\n"


def test_check_network_error_is_unreachable() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again: nothing listens there
    status, out, _ = run("check", f"http://127.0.0.1:{port}/robots.txt", "https://e.com/a")
    assert status == 1
    assert out[0].startswith(
        "https://e.com/a: disallowed: robots.txt unreachable: ConnectionRefusedError:"
    )


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
    (22, "line-cut"),
]


def _lint_file(tmp_path: Path) -> tuple[str, int]:
    """A file with every code of finding; the line past the 500 KiB limit."""
    body = LINT_HEAD + b"Disallow: /" + b"x" * MAX_LINE_BYTES + b"\n"  # line 22
    lines = 22
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
    assert messages["3"] == (
        "'Dissallow' is read as 'disallow': a typo Google's parser accepts (FMT-11, D-4)"
    )
    assert messages["11"] == (
        "disallow: /same never decides: allow: /same (line 10) matches every URL it matches "
        "and wins (longest match, allow on a tie; PATH-5, PATH-6)"
    )
    assert messages["12"].startswith("disallow: /dir/ never decides: allow: /dir/* (line 13)")
    assert messages["15"] == "disallow: /dup repeats disallow: /dup (line 14)"
    assert messages["16"].startswith("empty disallow: matches nothing, a no-op (not an error)")
    assert messages["19"].startswith("byte 0xe9 at column 15 is not UTF-8")
    assert messages["22"].startswith(f"line is {MAX_LINE_BYTES + 11:,} bytes")


def test_lint_json(tmp_path: Path) -> None:
    path, past = _lint_file(tmp_path)
    status, out, err = run("lint", "--json", path)
    records = [json.loads(line) for line in out]
    assert [(r["line"], r["code"]) for r in records] == [*LINT_EXPECTED, (past, "past-limit")]
    # "kind" is the name of "code" in earlier versions, kept for compatibility.
    assert all(list(r) == ["source", "line", "kind", "code", "message", "note"] for r in records)
    assert all(r["kind"] == r["code"] for r in records)
    assert [r["line"] for r in records if r["note"]] == [16]
    assert {r["source"] for r in records} == {path}
    assert (status, err) == (1, "17 findings (1 note)\n")


def test_lint_clean_file(robots_file: str) -> None:
    assert run("lint", robots_file) == (0, ["no findings"], "")


def test_lint_empty_disallow_is_only_a_note() -> None:
    status, out, _ = run("lint", "-", stdin=b"User-agent: *\nDisallow:\n")
    assert out[-1] == "no findings (1 note)"
    assert out[0].startswith("<stdin>:2: empty-rule: empty disallow: matches nothing")
    assert status == 0


def test_lint_url_without_robots_txt_is_an_error(robots_server: str) -> None:
    status, out, err = run("lint", f"{robots_server}/gone/robots.txt")
    assert (status, out) == (2, [])
    assert err.endswith("404: no robots.txt: allow all (allow_all): nothing to lint\n")


def test_help_has_examples_and_exit_statuses() -> None:
    status, out, _ = run("check", "--help")
    text = "\n".join(out)
    assert status == 0
    assert "exit status: 0 all URLs allowed, 1 some disallowed, 2 error." in text
    assert "  python -m scrapy_robots_rfc check robots.txt https://example.com/private/x" in text
    status, out, _ = run("lint", "--help")
    text = "\n".join(out)
    assert "exit status: 0 no findings (notes allowed), 1 findings, 2 error." in text
    assert all(f"  {code} " in text for code in CODES)


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
def test_the_default_agent_asks_for_the_star_group(tmp_path, agent):
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
