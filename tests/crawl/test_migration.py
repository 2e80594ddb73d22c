"""A project that migrates from Scrapy's built-in middleware: the crawler's
name (docs/decisions.md "crawler name", D-21), the start-up warnings, a
robots.txt request refused by another middleware, ``robots_parsed`` and
log levels. Real crawls against the local server, under both activations
unless a test is about one activation.

Each test asserts on what reached the server, what reached the spider, the
log records and the stats.
"""

from __future__ import annotations

import logging
import re
from typing import Any

import pytest
import pytest_twisted
from scrapy import signals
from scrapy.downloadermiddlewares.robotstxt import RobotsTxtMiddleware as BuiltinMiddleware

from ..crawling import (
    BUILTIN,
    ROBOTS,
    FakeClock,
    Recorder,
    Stage,
    crawl,
    make_crawler,
    pages,
    robots_origin,
    stat,
    switchable_origin,
    use_clock,
)
from ..jsonschemas import valid_lines
from ..mockserver import MockServer, Origin, Reply
from ..refuser import CountRequests, SwitchableRefuser

pytestmark = pytest.mark.e2e

#: The parent of the package's loggers (one per module).
LOGGER = "scrapy_robots_rfc"
OURS = "scrapy_robots_rfc.RobotsTxtMiddleware"
REFUSER = "tests.refuser.RefuseRobotsTxt"
DROPPER = "tests.refuser.DropRobotsTxtResponse"
SWITCHABLE = "tests.refuser.SwitchableRefuser"
ON_EXCEPTION = "tests.refuser.IgnoreOnException"
DAY = 24 * 3600.0
COUNTER = "tests.refuser.CountRequests"
LATER = "tests.refuser.RefuseRobotsTxtLater"


def messages(caplog: pytest.LogCaptureFixture, level: int = logging.WARNING) -> list[str]:
    return [r.getMessage() for r in caplog.records if _ours(r) and r.levelno == level]


def with_middlewares(activation: dict[str, Any], extra: dict[str, int]) -> dict[str, Any]:
    """``DOWNLOADER_MIDDLEWARES`` for ``activation`` plus ``extra``."""
    return {**activation.get("DOWNLOADER_MIDDLEWARES", {}), **extra}


def page_paths(server: MockServer, origin: Origin) -> list[str]:
    return sorted(p for p in server.paths(origin) if p != "/robots.txt")


# -- the crawler's name ------------------------------------------------------------

#: Issue 9, item 1: "008" has no letters, so its token is empty.
DIGITS = b"User-agent: 008\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"


@pytest.mark.parametrize("mode", ["rfc", "google"])
@pytest_twisted.inlineCallbacks
def test_a_star_name_takes_the_star_group(server, activation, mode, caplog):
    origin = robots_origin(server, Reply(body=DIGITS))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/public", "/private/a"))],
            ROBOTSTXT_USER_AGENT="*",
            ROBOTSTXT_RFC_MODE=mode,
        )
    assert page_paths(server, origin) == ["/public"]
    assert crawler.spider.seen == [origin.url("/public")]
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/a")]
    assert stat(crawler, "robotstxt/forbidden") == 1
    assert messages(caplog) == [
        "The robots.txt name of this crawler, '*' from ROBOTSTXT_USER_AGENT, names no crawler, "
        "so only the 'User-agent: *' groups apply to it. If that is not what you want, set "
        "ROBOTSTXT_USER_AGENT to the name site owners use for your crawler, e.g. "
        'ROBOTSTXT_USER_AGENT = "MyBot".'
    ]


#: Item 2: Rule1Bot must not take Rule2Bot's group; MJ12bot is not "mj".
NAMED = (
    b"User-agent: Rule2Bot\nAllow: /\n\n"
    b"User-agent: MJ\nDisallow: /mj\n\n"
    b"User-agent: MJ12bot\nDisallow: /mj12\n\n"
    b"User-agent: *\nDisallow: /\n"
)


@pytest.mark.parametrize(
    ("name", "mode", "crawled"),
    [
        ("Rule1Bot", "rfc", []),  # the '*' group: Disallow: /
        ("Rule1Bot", "google", []),
        ("Rule2Bot", "rfc", ["/mj", "/mj12", "/x"]),
        ("MJ12bot", "rfc", ["/mj", "/x"]),  # D-21: the whole product name binds
        ("MJ12bot", "google", []),  # Google's parser: no line token is "mj12bot"
        # "MJ" is the token of both the MJ line and the MJ12bot line (UA-3).
        ("MJ", "rfc", ["/x"]),
        ("MJ", "google", ["/x"]),
    ],
)
@pytest_twisted.inlineCallbacks
def test_names_with_digits_are_not_cut(server, activation, name, mode, crawled):
    origin = robots_origin(server, Reply(body=NAMED))
    urls = pages(origin, "/mj", "/mj12", "/x")
    crawler = yield crawl(
        activation, [Stage(urls)], ROBOTSTXT_USER_AGENT=name, ROBOTSTXT_RFC_MODE=mode
    )
    assert page_paths(server, origin) == crawled
    assert sorted(crawler.spider.seen) == [origin.url(p) for p in crawled]
    assert stat(crawler, "robotstxt/forbidden") == (3 - len(crawled) or None)


#: Issue 20: the site writes rules for BadBot; a crawler named with a
#: version, or by a browser-like header, must obey them (D-21 revised).
BADBOT = b"User-agent: BadBot\nDisallow: /\n\nUser-agent: *\nDisallow: /private\n"


@pytest.mark.parametrize(
    ("settings", "obeys", "warned"),
    [
        ({"ROBOTSTXT_USER_AGENT": "BadBot/1.0"}, True, True),
        ({"ROBOTSTXT_USER_AGENT": "badbot/2"}, True, True),
        ({"USER_AGENT": "Mozilla/5.0 (compatible; BadBot/1.0; +http://x)"}, True, False),
        ({"ROBOTSTXT_USER_AGENT": "Mozilla/5.0 (compatible; BadBot/1.0; +http://x)"}, True, True),
        ({"ROBOTSTXT_USER_AGENT": "BadBot-News, BadBot"}, True, False),  # D-22
        ({"ROBOTSTXT_USER_AGENT": "GoodBot/1.0"}, False, True),
        # google mode compares the name verbatim, as Google's parser does.
        ({"ROBOTSTXT_USER_AGENT": "BadBot/1.0", "ROBOTSTXT_RFC_MODE": "google"}, False, True),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_name_with_a_version_obeys_its_group(server, activation, caplog, settings, obeys, warned):
    origin = robots_origin(server, Reply(body=BADBOT))
    urls = pages(origin, "/a", "/private/b")
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(activation, [Stage(urls)], **settings)
    crawled = [] if obeys else ["/a"]
    assert page_paths(server, origin) == crawled
    assert server.paths(origin).count("/robots.txt") == 1
    assert sorted(crawler.spider.seen) == [origin.url(p) for p in crawled]
    assert stat(crawler, "robotstxt/forbidden") == 2 - len(crawled)
    warnings = messages(caplog)
    assert len(warnings) == int(warned)
    if warned and settings.get("ROBOTSTXT_RFC_MODE") != "google":
        taken = "BadBot" if obeys else "GoodBot"
        if settings["ROBOTSTXT_USER_AGENT"].startswith("badbot"):
            taken = "badbot"
        assert f"its product name {taken!r} is taken as the crawler's name" in warnings[0]


@pytest.mark.parametrize(
    ("name", "mode", "warning"),
    [
        (
            "MJ12bot",
            "rfc",
            "The robots.txt name of this crawler, 'MJ12bot' from ROBOTSTXT_USER_AGENT, is not a "
            "product token ([A-Za-z_-]+): only groups whose user-agent line names exactly "
            "'MJ12bot' apply to it ('User-agent: MJ12bot' or 'MJ12bot/2.0', in any case), never "
            "a group named by a part of it such as 'MJ'; without one, the 'User-agent: *' "
            "groups apply. If that is not what you want, set ROBOTSTXT_USER_AGENT to the name "
            'site owners use for your crawler, e.g. ROBOTSTXT_USER_AGENT = "MyBot".',
        ),
        (
            "MJ12bot",
            "google",
            "The robots.txt name of this crawler, 'MJ12bot' from ROBOTSTXT_USER_AGENT, is not a "
            "product token ([A-Za-z_-]+); google mode compares it verbatim with each user-agent "
            "line's token, which never holds other characters, so no group for a crawler "
            "applies to it, not even 'User-agent: MJ12bot'; only the 'User-agent: *' groups do. "
            "If that is not what you want, set ROBOTSTXT_USER_AGENT to the name site owners use "
            'for your crawler, e.g. ROBOTSTXT_USER_AGENT = "MyBot".',
        ),
        (
            "MyBot/1.0",
            "rfc",
            "The robots.txt name of this crawler, 'MyBot/1.0' from ROBOTSTXT_USER_AGENT, is not "
            "a product token ([A-Za-z_-]+); its product name 'MyBot' is taken as the crawler's "
            "name (RFC 9309 §2.2.1), so the groups for 'User-agent: MyBot' apply to it, else "
            "the 'User-agent: *' groups. If that is not what you want, set "
            "ROBOTSTXT_USER_AGENT to the name site owners use for your crawler, e.g. "
            'ROBOTSTXT_USER_AGENT = "MyBot".',
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_name_that_is_no_token_is_warned_about_once_at_start_up(
    server, activation, caplog, name, mode, warning
):
    origin = robots_origin(server, Reply(body=NAMED))
    other = robots_origin(server, Reply(body=NAMED))
    settings = {"ROBOTSTXT_USER_AGENT": name, "ROBOTSTXT_RFC_MODE": mode}
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl(activation, [Stage(pages(origin, "/a", "/b") + pages(other, "/c"))], **settings)
    assert messages(caplog) == [warning]  # once, for three requests and two origins
    caplog.clear()
    # At start-up: a crawl that requests nothing is warned too.
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl(activation, [], **settings)
    assert messages(caplog) == [warning]


@pytest.mark.parametrize(
    ("user_agent", "crawled"),
    [
        # The "compatible; Name/1.0" part names the crawler, never Mozilla.
        ("Mozilla/5.0 (compatible; ExampleBot/1.0; +https://example.com/bot)", ["/all"]),
        ("ExampleBot/2.0 (+https://example.com/bot)", ["/all"]),
        ("OtherBot/1.0", ["/example"]),
    ],
)
@pytest_twisted.inlineCallbacks
def test_the_name_comes_from_user_agent(server, activation, caplog, user_agent, crawled):
    body = b"User-agent: *\nDisallow: /all\n\nUser-agent: ExampleBot\nDisallow: /example\n"
    origin = robots_origin(server, Reply(body=body))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl(activation, [Stage(pages(origin, "/all", "/example"))], USER_AGENT=user_agent)
    assert page_paths(server, origin) == crawled
    assert messages(caplog) == []


# -- start-up warnings ----------------------------------------------------------------

BESIDE = (
    "Scrapy's built-in robots.txt middleware "
    "('scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware') is enabled beside "
    "'scrapy_robots_rfc.RobotsTxtMiddleware': robots.txt is fetched twice per origin, and the "
    "built-in drops requests by its own rules; it writes the same robotstxt/* stats (forbidden, "
    "request_count...), so they count its requests with this package's, and the summary line "
    'says which are its. Add "scrapy.downloadermiddlewares.robotstxt.RobotsTxtMiddleware": '
    'None to DOWNLOADER_MIDDLEWARES, or use ADDONS = {"scrapy_robots_rfc.Addon": 100} instead, '
    "which does that for you."
)


@pytest_twisted.inlineCallbacks
def test_the_builtin_beside_ours_is_warned_about(server, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl({}, [Stage(pages(origin, "/a"))], DOWNLOADER_MIDDLEWARES={OURS: 100})
    assert messages(caplog) == [BESIDE]
    # What the warning is about: both middlewares fetched robots.txt.
    assert server.paths(origin).count("/robots.txt") == 2
    assert crawler.spider.seen == [origin.url("/a")]


# -- the stats and the summary line in every combination (issue 43) ---------------


def _summary(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "scrapy_robots_rfc.crawl._report" and r.getMessage().startswith("robots.txt:")
    ]


SUMMARY = "robots.txt: 1 origin checked (1 with rules); 1 request forbidden, 2 waited, 0 dropped"


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param({"ADDONS": {"scrapy_robots_rfc.Addon": 100}}, id="addon"),
        pytest.param({"DOWNLOADER_MIDDLEWARES": {BUILTIN: None, OURS: 100}}, id="manual"),
        # The add-on switches the built-in off even where the project lists it.
        pytest.param(
            {
                "ADDONS": {"scrapy_robots_rfc.Addon": 100},
                "DOWNLOADER_MIDDLEWARES": {BUILTIN: 100},
            },
            id="addon-and-builtin-listed",
        ),
        pytest.param(
            {
                "ADDONS": {"scrapy_robots_rfc.Addon": 100},
                "DOWNLOADER_MIDDLEWARES": {BuiltinMiddleware: 543},
            },
            id="addon-and-builtin-class-listed",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_ours_alone_the_stats_and_the_summary_agree(server, caplog, settings):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl({}, [Stage(pages(origin, "/a", "/private"))], **settings)
    assert server.paths(origin).count("/robots.txt") == 1
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private")]
    assert _summary(caplog) == [SUMMARY]
    # One request forbidden, one robots.txt request: one fetch.
    assert stat(crawler, "robotstxt/forbidden") == 1
    assert stat(crawler, "robotstxt/request_count") == stat(crawler, "robotstxt/fetches") == 1


BESIDE_SUMMARY = re.compile(
    r"robots\.txt: 1 origin checked \(1 with rules\); (?P<ours>\d+) requests? forbidden, "
    r"\d+ waited, 0 dropped; Scrapy's built-in RobotsTxtMiddleware ran too: (?P<theirs>\d+) "
    r"requests? forbidden by it, not by this package \(robotstxt/forbidden: (?P<total>\d+)\), its "
    r"robots\.txt requests counted in robotstxt/request_count"
)


@pytest_twisted.inlineCallbacks
def test_with_the_builtin_beside_the_summary_says_which_stats_are_its(server, caplog):
    """Both middlewares: the built-in writes the same robotstxt/* stats; the
    summary line says how many of robotstxt/forbidden are its, and that its
    robots.txt requests are in robotstxt/request_count. Both are at
    priority 100: which one forbids /private first is not fixed."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            {}, [Stage(pages(origin, "/a", "/private"))], DOWNLOADER_MIDDLEWARES={OURS: 100}
        )
    assert messages(caplog) == [BESIDE]
    assert server.paths(origin).count("/robots.txt") == 2
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private")]
    [summary] = _summary(caplog)
    said = BESIDE_SUMMARY.fullmatch(summary)
    assert said is not None, summary
    ours, theirs, total = int(said["ours"]), int(said["theirs"]), int(said["total"])
    assert ours + theirs == total == stat(crawler, "robotstxt/forbidden") == 1
    # Two robots.txt requests, one fetch of ours.
    assert stat(crawler, "robotstxt/request_count") == 2
    assert stat(crawler, "robotstxt/fetches") == 1


@pytest_twisted.inlineCallbacks
def test_the_builtin_forbids_what_ours_lets_through_and_the_summary_counts_it(server, caplog):
    """The built-in (Protego) takes a group whose name is part of the
    User-Agent header ("Test" in "TestBot/1.0 ..."); this package, the
    group of the crawler's name, TestBot, exactly (RFC 9309 §2.2.1): none
    here, so /private is allowed by ours and forbidden by the built-in."""
    body = b"User-agent: Test\nDisallow: /private\n"
    origin = robots_origin(server, Reply(body=body))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            {}, [Stage(pages(origin, "/a", "/private"))], DOWNLOADER_MIDDLEWARES={OURS: 100}
        )
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private")]
    assert stat(crawler, "robotstxt/forbidden") == 1
    [summary] = _summary(caplog)
    said = BESIDE_SUMMARY.fullmatch(summary)
    assert said is not None, summary
    assert (int(said["ours"]), int(said["theirs"]), int(said["total"])) == (0, 1, 1)


@pytest_twisted.inlineCallbacks
def test_the_addon_with_ours_switched_off_says_nothing_obeys(server, caplog):
    """``ADDONS`` lists the add-on (which switches the built-in off) and
    ``DOWNLOADER_MIDDLEWARES`` switches this package's middleware off: no
    middleware obeys robots.txt, and a WARNING says so."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            {},
            [Stage(pages(origin, "/a", "/private"))],
            ADDONS={"scrapy_robots_rfc.Addon": 100},
            DOWNLOADER_MIDDLEWARES={OURS: None},
        )
    assert sorted(crawler.spider.seen) == pages(origin, "/a", "/private")
    assert stat(crawler, "robotstxt/forbidden") is None
    assert messages(caplog) == [
        "scrapy_robots_rfc.Addon is in ADDONS, but DOWNLOADER_MIDDLEWARES sets "
        "scrapy_robots_rfc.RobotsTxtMiddleware to None: no middleware obeys robots.txt in this "
        "crawl (the add-on switched Scrapy's built-in off). Remove the None entry, or remove "
        "the add-on to use the built-in."
    ]


@pytest_twisted.inlineCallbacks
def test_the_builtin_alone_writes_its_stats_and_ours_says_nothing(server, caplog):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl({}, [Stage(pages(origin, "/a", "/private"))])
    assert crawler.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private")]
    assert stat(crawler, "robotstxt/forbidden") == stat(crawler, "robotstxt/request_count") == 1
    assert stat(crawler, "robotstxt/fetches") is None
    assert [r.getMessage() for r in caplog.records if _ours(r)] == []


@pytest.mark.parametrize(
    "settings",
    [
        pytest.param({"DOWNLOADER_MIDDLEWARES": {BUILTIN: None, OURS: 100}}, id="manual"),
        pytest.param({"ADDONS": {"scrapy_robots_rfc.Addon": 100}}, id="addon"),
        pytest.param(
            {"ADDONS": {"scrapy_robots_rfc.Addon": 100}, "DOWNLOADER_MIDDLEWARES": {OURS: 100}},
            id="addon-and-manual",
        ),
        # The add-on switches the built-in off whatever its key.
        pytest.param(
            {
                "ADDONS": {"scrapy_robots_rfc.Addon": 100},
                "DOWNLOADER_MIDDLEWARES": {BuiltinMiddleware: None},
            },
            id="addon-class-key-off",
        ),
        pytest.param(
            {
                "ADDONS": {"scrapy_robots_rfc.Addon": 100},
                "DOWNLOADER_MIDDLEWARES": {BuiltinMiddleware: 543},
            },
            id="addon-class-key-on",
        ),
    ],
)
@pytest_twisted.inlineCallbacks
def test_no_warning_when_the_builtin_is_off(server, caplog, settings):
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl({}, [Stage(pages(origin, "/a"))], **settings)
    assert messages(caplog) == []
    assert server.paths(origin) == ["/robots.txt", "/a"]


@pytest.mark.parametrize(
    ("parser", "warned"),
    [
        ("scrapy.robotstxt.ProtegoRobotParser", True),
        ("scrapy.robotstxt.PythonRobotParser", True),
        ("scrapy_robots_rfc.RobotParser", False),
        (None, False),
    ],
)
@pytest_twisted.inlineCallbacks
def test_a_robotstxt_parser_setting_is_warned_about(server, activation, caplog, parser, warned):
    origin = robots_origin(server, Reply(body=ROBOTS))
    settings = {} if parser is None else {"ROBOTSTXT_PARSER": parser}
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(activation, [Stage(pages(origin, "/a", "/private/b"))], **settings)
    expected = [
        f"ROBOTSTXT_PARSER ({parser!r}) is not used by 'scrapy_robots_rfc.RobotsTxtMiddleware', "
        "which parses robots.txt itself as ROBOTSTXT_RFC_MODE ('rfc') says. Remove "
        'ROBOTSTXT_PARSER, or set ROBOTSTXT_RFC_MODE = "google" for the verdicts of Google\'s '
        "parser."
    ]
    assert messages(caplog) == (expected if warned else [])
    # The crawl is this package's either way.
    assert page_paths(server, origin) == ["/a"]
    assert stat(crawler, "robotstxt/forbidden") == 1


@pytest_twisted.inlineCallbacks
def test_a_class_key_is_judged_as_scrapy_judges_it(server, caplog):
    """``{RobotsTxtMiddleware: None}`` with the class as key switches the
    built-in off on Scrapy 2.15+, which merges keys that name one class;
    before, the import path in DOWNLOADER_MIDDLEWARES_BASE stays on. The
    warning says what really runs."""
    from scrapy.settings import BaseSettings

    merges = hasattr(BaseSettings, "get_component_priority_dict_with_base")
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl(
            {},
            [Stage(pages(origin, "/a"))],
            DOWNLOADER_MIDDLEWARES={BuiltinMiddleware: None, OURS: 100},
        )
    assert messages(caplog) == ([] if merges else [BESIDE])
    assert server.paths(origin).count("/robots.txt") == (1 if merges else 2)


# -- robots.txt refused by another middleware ---------------------------------------------


def _refused_warning(origin: Origin) -> str:
    return (
        f"{origin.url('/robots.txt')} was not fetched: {REFUSER} raised "
        "IgnoreRequest('robots.txt requests are not allowed here') for it, so nothing was "
        f"asked of the server and every request to {origin.base} is allowed, as Scrapy's "
        "built-in allows it. Let robots.txt requests through (their meta has "
        "dont_obey_robotstxt) to obey the site's rules."
    )


@pytest_twisted.inlineCallbacks
def test_a_refused_robots_request_allows_all_at_once(server, activation, caplog, tmp_path):
    first = robots_origin(server, Reply(body=ROBOTS))
    second = robots_origin(server, Reply(body=ROBOTS))
    urls = pages(first, "/a", "/private/b", "/private/c") + pages(second, "/private/d")
    report = tmp_path / "report.jsonl"
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(urls), Stage(pages(first, "/private/e"))],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {REFUSER: 50}),
            ROBOTSTXT_RFC_REPORT=str(report),
            # Were it unreachable, the requests would be dropped after this.
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=5,
        )
    # Nothing was asked of the server about robots.txt, and every page came.
    assert "/robots.txt" not in server.paths(first) + server.paths(second)
    assert page_paths(server, first) == ["/a", "/private/b", "/private/c", "/private/e"]
    assert page_paths(server, second) == ["/private/d"]
    assert len(crawler.spider.seen) == 5
    assert crawler.spider.failures == []
    # One fetch per origin, no retry loop, one warning per origin.
    assert stat(crawler, "robotstxt/refused") == 2
    assert stat(crawler, "robotstxt/unreachable") is None
    assert stat(crawler, "robotstxt/unreachable/dropped") is None
    assert messages(caplog) == [_refused_warning(first), _refused_warning(second)]
    assert messages(caplog, logging.ERROR) == []
    [summary] = [m for m in messages(caplog, logging.INFO) if m.startswith("robots.txt:")]
    assert summary.startswith("robots.txt: 2 origins checked (2 refused locally);")
    rows = valid_lines("report", report.read_text().splitlines())
    # Nothing was asked of the server: no status.
    assert [
        (r["robots"]["state"], r["robots"]["outcome"], r["robots"]["status"]) for r in rows
    ] == [("refused", f"robots.txt not fetched (refused by {REFUSER})", None)] * 2


@pytest.mark.parametrize(
    ("refuser", "priority"),
    [
        pytest.param(REFUSER, 150, id="after-ours"),
        pytest.param("tests.refuser.RefuseRobotsTxtAsync", 50, id="coroutine"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_the_refusing_middleware_is_named_wherever_it_is(
    server, activation, caplog, refuser, priority
):
    """Named by the innermost frame of a process_request on the traceback:
    after this middleware in the chain (whose own process_request let the
    robots.txt request through), and from a coroutine that called a helper."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/private/a"))],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {refuser: priority}),
        )
    assert crawler.spider.seen == [origin.url("/private/a")]
    [warning] = messages(caplog)
    assert warning.startswith(f"{origin.url('/robots.txt')} was not fetched: {refuser} raised ")


@pytest.mark.filterwarnings(
    # Scrapy 2.19 deprecates a Deferred from process_request; 2.13 takes it.
    "ignore:tests.refuser.RefuseRobotsTxtLater.process_request returned a Deferred"
)
@pytest_twisted.inlineCallbacks
def test_a_refusal_that_leaves_no_frame_is_said_without_a_name(server, activation, caplog):
    """Scrapy hands the fetch the IgnoreRequest alone; the middleware is
    named by the frame of its process_request on the traceback (above). A
    process_request whose Deferred fails on a later turn leaves none: "a
    downloader middleware", on Scrapy 2.13 and 2.19 alike (make test-oldest)."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.INFO, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/private/a"))],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {LATER: 50}),
            # Were it unreachable instead, the test would not wait long.
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0,
        )
    assert crawler.spider.seen == [origin.url("/private/a")]
    assert "/robots.txt" not in server.paths(origin)
    assert stat(crawler, "robotstxt/refused") == 1
    assert messages(caplog) == [
        f"{origin.url('/robots.txt')} was not fetched: a downloader middleware raised "
        "IgnoreRequest('robots.txt requests are not allowed here, later') for it, so nothing "
        f"was asked of the server and every request to {origin.base} is allowed, as Scrapy's "
        "built-in allows it. Let robots.txt requests through (their meta has "
        "dont_obey_robotstxt) to obey the site's rules."
    ]


@pytest_twisted.inlineCallbacks
def test_a_refused_robots_request_is_not_shared_through_the_store(server, activation, tmp_path):
    """Nothing was asked of the server: another crawler sharing the store
    fetches robots.txt itself and obeys it."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    store = f"sqlite:///{tmp_path / 'robots.db'}"
    refusing = with_middlewares(activation, {REFUSER: 50})
    first = yield crawl(
        activation,
        [Stage(pages(origin, "/private/a"))],
        DOWNLOADER_MIDDLEWARES=refusing,
        ROBOTSTXT_RFC_STORE=store,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=5,  # were it unreachable
    )
    assert first.spider.seen == [origin.url("/private/a")]
    second = yield crawl(
        activation, [Stage(pages(origin, "/private/b"))], ROBOTSTXT_RFC_STORE=store
    )
    assert server.paths(origin) == ["/private/a", "/robots.txt"]
    assert second.spider.failed_with("Forbidden by robots.txt") == [origin.url("/private/b")]


@pytest_twisted.inlineCallbacks
def test_a_refusal_is_no_good_copy_for_a_later_failure(server, activation, tmp_path):
    """Refused, then 25 h later the server answers 503: the origin is
    unreachable with no good copy (disallow all), for this crawler and for
    another one reading the same store."""
    origin, _ = switchable_origin(server, up=False)  # always 503
    clock = FakeClock()
    store = f"sqlite:///{tmp_path / 'robots.db'}"
    SwitchableRefuser.on = True

    def later(spider: Recorder) -> None:
        SwitchableRefuser.on = False
        clock.advance(DAY + 3600)

    try:
        crawler = yield crawl(
            activation,
            [
                Stage(pages(origin, "/private/a"), use_clock(clock)),
                Stage(pages(origin, "/private/b"), later),
            ],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {SWITCHABLE: 50}),
            ROBOTSTXT_RFC_STORE=store,
            ROBOTSTXT_RFC_UNREACHABLE_RETRY=5,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0.3,
        )
    finally:
        SwitchableRefuser.on = True
    assert page_paths(server, origin) == ["/private/a"]
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/private/b")]
    assert stat(crawler, "robotstxt/refused") == 1
    assert stat(crawler, "robotstxt/unreachable/last_good") is None
    assert stat(crawler, "robotstxt/disallow_all") == 1
    other = yield crawl(
        activation,
        [Stage(pages(origin, "/private/c"), use_clock(clock))],  # the store's times
        ROBOTSTXT_RFC_STORE=store,
        ROBOTSTXT_RFC_UNREACHABLE_RETRY=5,
        ROBOTSTXT_RFC_UNREACHABLE_WAIT=0.3,
    )
    assert "/private/c" not in server.paths(origin)
    assert other.spider.failed_with("robots.txt unreachable") == [origin.url("/private/c")]


@pytest_twisted.inlineCallbacks
def test_ignore_request_from_process_exception_is_not_a_refusal(server, activation, caplog):
    """The server was asked (the connection was reset): unreachable."""
    origin = robots_origin(server, Reply(reset=True))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/private/a"))],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {ON_EXCEPTION: 50}),
            ROBOTSTXT_RFC_UNREACHABLE_RETRY=5,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0.3,
        )
    assert set(server.paths(origin)) == {"/robots.txt"}
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/private/a")]
    assert stat(crawler, "robotstxt/refused") is None
    assert not [m for m in messages(caplog) if "was not fetched" in m]


@pytest_twisted.inlineCallbacks
def test_an_ignored_response_is_not_a_refusal(server, activation, caplog):
    """IgnoreRequest from process_response: the server answered, so the
    origin is unreachable (disallow all, retried), not "refused"."""
    origin = robots_origin(server, Reply(body=ROBOTS))
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        crawler = yield crawl(
            activation,
            [Stage(pages(origin, "/a"))],
            DOWNLOADER_MIDDLEWARES=with_middlewares(activation, {DROPPER: 50}),
            ROBOTSTXT_RFC_UNREACHABLE_RETRY=0.1,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=1.0,
        )
    assert set(server.paths(origin)) == {"/robots.txt"}
    assert len(server.paths(origin)) >= 2, "robots.txt was asked for again"
    assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/a")]
    assert stat(crawler, "robotstxt/refused") is None
    assert stat(crawler, "robotstxt/unreachable") >= 2


# -- robots_parsed and log levels ---------------------------------------------------------


@pytest.mark.parametrize(
    ("reply", "parsed"),
    [
        pytest.param(Reply(body=ROBOTS), True, id="200"),
        pytest.param(Reply(status=404), True, id="404"),
        pytest.param(Reply(status=403), True, id="403"),
        pytest.param(Reply(status=503), False, id="503"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_robots_parsed_for_every_outcome_with_a_parser(server, activation, reply, parsed):
    if not hasattr(signals, "robots_parsed"):
        pytest.skip("the robots_parsed signal is Scrapy 2.18+")
    origin = robots_origin(server, reply)
    received: list[tuple[Any, Any]] = []
    crawler = make_crawler(
        activation,
        {"ROBOTSTXT_RFC_UNREACHABLE_RETRY": 0.2, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0.5},
    )
    crawler.signals.connect(
        lambda robotparser, request: received.append((robotparser, request)),
        signal=signals.robots_parsed,
        weak=False,
    )
    yield crawler.crawl(stages=[Stage(pages(origin, "/private/x"))])
    if not parsed:
        assert received == []
        assert crawler.spider.failed_with("robots.txt unreachable") == [origin.url("/private/x")]
        return
    [(parser, request)] = received
    assert request.url == origin.url("/private/x")
    allows_all = reply.status != 200
    assert parser.allowed(origin.url("/private/x"), "TestBot/1.0") is allows_all
    assert list(parser.sitemaps()) == []


@pytest_twisted.inlineCallbacks
def test_robots_parsed_is_not_sent_for_a_503_after_a_404(server, activation):
    """The second fetch fails: no parser for it, although the 404's "allow
    all" stays in force as the last good copy."""
    if not hasattr(signals, "robots_parsed"):
        pytest.skip("the robots_parsed signal is Scrapy 2.18+")
    state = {"status": 404}
    origin = robots_origin(server, lambda hit, n: Reply(status=state["status"]))
    clock = FakeClock()
    received: list[str] = []

    def later(spider: Recorder) -> None:
        state["status"] = 503
        clock.advance(DAY + 3600)

    crawler = make_crawler(
        activation, {"ROBOTSTXT_RFC_UNREACHABLE_RETRY": 5, "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 0.3}
    )
    crawler.signals.connect(
        lambda robotparser, request: received.append(request.url),
        signal=signals.robots_parsed,
        weak=False,
    )
    stages = [Stage(pages(origin, "/a"), use_clock(clock)), Stage(pages(origin, "/b"), later)]
    yield crawler.crawl(stages=stages)
    assert received == [origin.url("/a")]
    # The 404's "allow all" is the last good copy, in force while it fails.
    assert server.paths(origin) == ["/robots.txt", "/a", "/robots.txt", "/b"]
    assert stat(crawler, "robotstxt/unreachable/last_good") == 1


@pytest_twisted.inlineCallbacks
def test_robots_parsed_is_not_sent_when_refused(server, activation):
    if not hasattr(signals, "robots_parsed"):
        pytest.skip("the robots_parsed signal is Scrapy 2.18+")
    origin = robots_origin(server, Reply(body=ROBOTS))
    received: list[Any] = []
    crawler = make_crawler(
        activation,
        {
            "DOWNLOADER_MIDDLEWARES": with_middlewares(activation, {REFUSER: 50}),
            "ROBOTSTXT_RFC_UNREACHABLE_WAIT": 1,  # were it unreachable
        },
    )
    crawler.signals.connect(
        lambda robotparser, request: received.append(request),
        signal=signals.robots_parsed,
        weak=False,
    )
    yield crawler.crawl(stages=[Stage(pages(origin, "/a"))])
    assert received == []  # as the built-in: no parser without a response
    assert crawler.spider.seen == [origin.url("/a")]


@pytest.mark.parametrize(
    ("reply", "level"),
    [
        pytest.param(Reply(reset=True), logging.ERROR, id="reset"),
        pytest.param(Reply(status=503), logging.WARNING, id="503"),
    ],
)
@pytest_twisted.inlineCallbacks
def test_download_errors_log_at_the_builtins_level(server, activation, caplog, reply, level):
    origin = robots_origin(server, reply)
    with caplog.at_level(logging.WARNING, logger=LOGGER):
        yield crawl(
            activation,
            [Stage(pages(origin, "/a"))],
            ROBOTSTXT_RFC_UNREACHABLE_RETRY=5,
            ROBOTSTXT_RFC_UNREACHABLE_WAIT=0.3,
        )
    robots_url = origin.url("/robots.txt")
    found = [
        r.levelno
        for r in caplog.records
        if _ours(r) and r.getMessage().startswith(f"{robots_url} is unreachable")
    ]
    assert found == [level]


# -- what waiting outside the downloader means for other components ----------------------


@pytest_twisted.inlineCallbacks
def test_a_waiting_request_passes_earlier_middlewares_twice(server, activation):
    """README, "Migrating from the built-in": a request that waits for
    robots.txt goes through the middlewares before this one twice, through
    ``request_scheduled`` handlers three times, and is counted twice in
    ``scheduler/enqueued``."""
    origin = robots_origin(server, Reply(body=ROBOTS, delay=0.3))
    CountRequests.seen.clear()
    scheduled: list[str] = []
    crawler = make_crawler(
        activation, {"DOWNLOADER_MIDDLEWARES": with_middlewares(activation, {COUNTER: 50})}
    )
    crawler.signals.connect(
        lambda request, spider=None: scheduled.append(request.url),
        signal=signals.request_scheduled,
        weak=False,
    )
    yield crawler.crawl(stages=[Stage(pages(origin, "/a"))])
    url = origin.url("/a")
    assert crawler.spider.seen == [url]
    assert CountRequests.seen[url] == 2
    assert CountRequests.seen[origin.url("/robots.txt")] == 1
    assert scheduled.count(url) == 3
    assert stat(crawler, "scheduler/enqueued") == 2
    assert stat(crawler, "robotstxt/waiting") == 1


def _ours(record: logging.LogRecord) -> bool:
    """A line of the package's: each module logs below :data:`LOGGER`."""
    return record.name.startswith(f"{LOGGER}.")
