"""Lines that said too little or the wrong thing (issue 41), as real crawls
against the local server, under both activations: an HTML page served as
robots.txt (a soft 404) was logged nowhere and counted "with rules"; a
redirect loop or chain that ends in "allow all" showed only at DEBUG. Each
test asserts the log line, the stats, the summary and what reached the
spider. (A response whose headers never end is in test_fetch_limits.py,
beside the other download failures.)
"""

from __future__ import annotations

import logging

import pytest
import pytest_twisted

from scrapy_robots_rfc._logging import LOGGER_NAME

from ..crawling import ROBOTS, Stage, crawl, pages, robots_origin, stat
from ..mockserver import MockServer, Origin, Reply

pytestmark = pytest.mark.e2e

#: A server's "not found" page, served with a 200.
SOFT_404 = (
    b"<!DOCTYPE html>\n<html>\n<head><title>Not found</title></head>\n"
    b"<body><p>Sorry, this page does not exist.</p></body>\n</html>\n"
)
#: The crawler's product token (USER_AGENT is TestBot/1.0).
TOKEN = "testbot"


def ours(caplog: pytest.LogCaptureFixture, level: int) -> list[str]:
    """The lines of this package at ``level`` exactly."""
    return [
        r.getMessage()
        for r in caplog.records
        if r.name.startswith(LOGGER_NAME) and r.levelno == level
    ]


def summary(caplog: pytest.LogCaptureFixture) -> str:
    [line] = [m for m in ours(caplog, logging.INFO) if m.startswith("robots.txt: ")]
    return line


# -- an HTML page served as robots.txt ------------------------------------------------


@pytest_twisted.inlineCallbacks
def test_a_soft_404_page_is_said_and_counted_apart(server, activation, caplog):
    origin = robots_origin(server, Reply(body=SOFT_404, html=True))
    urls = pages(origin, "/a", "/private/x")
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)])
    robots = origin.url("/robots.txt")
    assert ours(caplog, logging.WARNING) == [
        f"{robots} looks like an HTML page, not a robots.txt (it starts with '<!DOCTYPE html' "
        f"and it was served as text/html): it has no rule for {TOKEN}, so every request to "
        f"{origin.base} is allowed until robots.txt is fetched again (RFC 9309 §2.3.1.5)"
    ]
    assert sorted(crawler.spider.seen) == sorted(urls)  # no rule: all allowed
    assert server.paths(origin).count("/robots.txt") == 1
    assert stat(crawler, "robotstxt/html_page") == 1
    assert stat(crawler, "robotstxt/rules") is None
    assert stat(crawler, "robotstxt/origins/rules") == 1  # its state: the parse decides
    assert summary(caplog) == (
        "robots.txt: 1 origin checked (1 with an HTML page); 0 requests forbidden, 2 waited, "
        "0 dropped"
    )


@pytest_twisted.inlineCallbacks
def test_the_robots_lines_of_an_html_page_apply_and_it_says_so(server, activation, caplog):
    """The lines that parse are used, the others ignored (RFC 9309
    §2.3.1.5): the line says how many rules apply to the crawler."""
    page = b"<html><body>\nUser-agent: *\nDisallow: /private\n</body></html>\n"
    origin = robots_origin(server, Reply(body=page))  # as text/plain: how it starts tells
    urls = pages(origin, "/a", "/private/x")
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)])
    robots = origin.url("/robots.txt")
    assert ours(caplog, logging.WARNING) == [
        f"{robots} looks like an HTML page, not a robots.txt (it starts with '<html'): its "
        f"lines that parse as robots.txt lines are used and the rest is ignored, and 1 rule of "
        f"them applies to {TOKEN} (RFC 9309 §2.3.1.5)"
    ]
    assert crawler.spider.seen == [origin.url("/a")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/x")]
    assert stat(crawler, "robotstxt/html_page") == 1
    assert stat(crawler, "robotstxt/rules") is None
    assert stat(crawler, "robotstxt/forbidden") == 1
    assert summary(caplog) == (
        "robots.txt: 1 origin checked (1 with an HTML page); 1 request forbidden, 2 waited, "
        "0 dropped"
    )


@pytest_twisted.inlineCallbacks
def test_a_robots_txt_served_as_html_is_a_robots_txt(server, activation, caplog):
    """A wrong Content-Type alone is no sign once a line is read; beside
    it, an HTML page counts apart in the summary."""
    served_as_html = robots_origin(server, Reply(body=ROBOTS, html=True))
    soft_404 = robots_origin(server, Reply(body=SOFT_404, html=True))
    urls = [*pages(served_as_html, "/a", "/private/x"), *pages(soft_404, "/a")]
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)])
    warnings = ours(caplog, logging.WARNING)
    assert [w.split(" ")[0] for w in warnings] == [soft_404.url("/robots.txt")]
    assert sorted(crawler.spider.seen) == sorted([served_as_html.url("/a"), soft_404.url("/a")])
    assert stat(crawler, "robotstxt/rules") == 1
    assert stat(crawler, "robotstxt/html_page") == 1
    assert summary(caplog) == (
        "robots.txt: 2 origins checked (1 with rules, 1 with an HTML page); 1 request "
        "forbidden, 3 waited, 0 dropped"
    )


# -- redirects that end in "allow all" ------------------------------------------------


def loop(server: MockServer) -> tuple[Origin, Origin]:
    """``a``'s robots.txt redirects to ``b``'s, which redirects back."""
    other: dict[str, Origin] = {}
    a = robots_origin(
        server,
        lambda hit, n: Reply(status=301, headers={"Location": other["b"].url("/robots.txt")}),
    )
    other["b"] = server.add_origin(
        {"/robots.txt": Reply(status=307, headers={"Location": a.url("/robots.txt")})}
    )
    return a, other["b"]


@pytest_twisted.inlineCallbacks
def test_a_redirect_loop_that_allows_all_is_said_at_info(server, activation, caplog):
    a, b = loop(server)
    urls = pages(a, "/x", "/private/y")
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)])
    robots_a, robots_b = a.url("/robots.txt"), b.url("/robots.txt")
    said = (
        f"{robots_a}: 307: redirect loop at {robots_a}: allow all (1 redirect followed, the last "
        f"to {robots_b}): every request to {a.base} is allowed until robots.txt is fetched "
        "again (RFC 9309 §2.3.1.2)"
    )
    assert said in ours(caplog, logging.INFO)
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert stat(crawler, "robotstxt/allow_all") == 1
    assert stat(crawler, "robotstxt/redirects") == 1
    assert summary(caplog) == (
        "robots.txt: 1 origin checked (1 allow all); 0 requests forbidden, 2 waited, 0 dropped"
    )


@pytest.mark.parametrize(
    ("final", "outcome", "section"),
    [
        pytest.param(Reply(status=404), "404: no robots.txt: allow all", "§2.3.1.3", id="404"),
        pytest.param(
            Reply(status=302),
            "302: redirect without a Location header: allow all",
            "§2.3.1.2",
            id="no-location",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_redirect_chain_that_allows_all_is_said_at_info(
    server, activation, caplog, final: Reply, outcome: str, section: str
):
    last = server.add_origin({"/robots.txt": final})
    middle = server.add_origin(
        {"/robots.txt": Reply(status=301, headers={"Location": last.url("/robots.txt")})}
    )
    origin = robots_origin(
        server, Reply(status=302, headers={"Location": middle.url("/robots.txt")})
    )
    urls = pages(origin, "/a", "/private/b")
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(urls)])
    assert (
        f"{origin.url('/robots.txt')}: {outcome} (2 redirects followed, the last to "
        f"{last.url('/robots.txt')}): every request to {origin.base} is allowed until "
        f"robots.txt is fetched again (RFC 9309 {section})"
    ) in ours(caplog, logging.INFO)
    assert sorted(crawler.spider.seen) == sorted(urls)
    assert stat(crawler, "robotstxt/allow_all") == 1
    assert stat(crawler, "robotstxt/redirects") == 2


@pytest_twisted.inlineCallbacks
def test_a_404_asked_for_stays_at_debug(server, activation, caplog):
    """The usual way to have no robots.txt: no INFO line of its own."""
    origin = robots_origin(server, Reply(status=404))
    with caplog.at_level(logging.DEBUG):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a"))])
    robots = origin.url("/robots.txt")
    assert f"{robots}: 404: no robots.txt: allow all" in ours(caplog, logging.DEBUG)
    assert not [m for m in ours(caplog, logging.INFO) if m.startswith(robots)]
    assert crawler.spider.seen == pages(origin, "/a")
    assert stat(crawler, "robotstxt/allow_all") == 1


# -- the file's notes, as check and lint say them (issue 43) --------------------

LATIN = b"User-agent: *\nHost: example.com\nDisallow: /caf\xe9/\nDisallow: /private\n"


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_file_notes_of_check_are_in_the_crawl_log_at_debug(
    server: MockServer, activation, caplog
):
    """Bytes that are not UTF-8 and ignored lines, in the words of
    ``check`` (:func:`.robotstxt.file_notes`), at DEBUG: a broad crawl
    meets them in many files (``Host:`` is an unknown key)."""
    from scrapy_robots_rfc.robotstxt import file_notes

    origin = robots_origin(server, Reply(body=LATIN))
    with caplog.at_level(logging.DEBUG, logger=LOGGER_NAME):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a", "/private"))])
    assert crawler.spider.seen == [origin.url("/a")]
    robots = origin.url("/robots.txt")
    expected = [f"{robots}: {note}" for note in file_notes(LATIN)]
    assert len(expected) == 2
    said = [r for r in caplog.records if r.getMessage() in expected]
    assert [(r.levelname, r.getMessage()) for r in said] == [("DEBUG", m) for m in expected]


@pytest.mark.e2e
@pytest_twisted.inlineCallbacks
def test_the_file_notes_are_not_read_without_debug(server: MockServer, activation, caplog):
    origin = robots_origin(server, Reply(body=LATIN))
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME):
        yield crawl(activation, [Stage(pages(origin, "/a"))])
    assert not [r for r in caplog.records if "not UTF-8" in r.getMessage()]
