"""The responses kept for the spider's own robots.txt requests
(:mod:`scrapy_robots_rfc.crawl._kept_responses`), without a crawl: what a request gets, how
many may take one, and how long it is kept, with a fake clock."""

from __future__ import annotations

import logging
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import TextResponse
from scrapy.utils.test import get_crawler
from twisted.internet.task import Clock

from scrapy_robots_rfc._runtime import Runtime
from scrapy_robots_rfc.crawl._fetcher import Fetched
from scrapy_robots_rfc.crawl._kept_responses import KEEP_FOR, SERVED_FLAG, KeptResponses, Share
from scrapy_robots_rfc.crawl._robots_loader import FROM_THE_STORE
from scrapy_robots_rfc.policy._origin import origin
from scrapy_robots_rfc.policy._policy import Answer, State

KEY = origin("http://a.test/")
assert KEY is not None
ROBOTS = "http://a.test/robots.txt"
MOVED = "https://www.a.test/robots.txt"


def fetched(
    status: int = 200, *, url: str = ROBOTS, redirects: int = 0, cut: bool = False
) -> Fetched:
    response = TextResponse(
        url,
        status=status,
        body=b"Sitemap: http://a.test/s.xml\n",
        headers={"Content-Type": "text/plain", "X-Mine": "1"},
        request=Request(url, meta={"dont_obey_robotstxt": True}),
    )
    answer = Answer(State.RULES, "", status, redirects=redirects)
    return Fetched(answer, response.body, response=response, cut=cut)


def kept(clock: Clock, *, follows_redirects: bool = True) -> tuple[KeptResponses, Any]:
    stats = get_crawler().stats
    assert stats is not None
    runtime = Runtime(stats, call_later=clock.callLater)
    responses = KeptResponses(runtime, follows_redirects=follows_redirects)
    return responses, stats


def keep(
    responses: KeptResponses, found: Fetched | str, *takers: str, key: Any = KEY
) -> dict[str, Share]:
    """``takers`` wait for ``key``'s fetch (each a plain GET of its
    robots.txt), which found ``found`` (a string: why there is no fetch to
    take from); their shares, by name."""
    shares = {}
    for name in takers:
        share = responses.wait_for(key, Request(key.robots_url), Share())
        assert share is not None
        assert share.taker is not None
        shares[name] = share
    if isinstance(found, str):
        responses.keep(key, None, found)
    else:
        responses.keep(key, found, "")
    return shares


def test_a_request_that_waited_gets_a_copy_for_itself():
    responses, stats = kept(Clock())
    source = fetched()
    shares = keep(responses, source, "t1")
    request = Request("http://A.test:80/robots.txt", meta={"mine": 1})
    got = responses.serve(KEY, request, shares["t1"])
    assert got is not None
    assert source.response is not None
    assert type(got) is TextResponse
    assert (got.status, got.body) == (200, source.response.body)
    assert got.headers == source.response.headers
    assert got.request is request
    assert got.meta["mine"] == 1
    assert got.url == request.url  # not redirected: the request's own URL
    assert got.flags == [SERVED_FLAG]
    assert stats.get_value("robotstxt/spider_request/served") == 1


def test_after_redirects_the_url_is_the_final_one():
    responses, _ = kept(Clock())
    shares = keep(responses, fetched(url=MOVED, redirects=1), "t1")
    got = responses.serve(KEY, Request(ROBOTS), shares["t1"])
    assert got is not None
    assert got.url == MOVED


@pytest.mark.parametrize(
    ("meta", "follows"),
    [
        ({"dont_redirect": True}, True),
        ({"handle_httpstatus_all": True}, True),
        ({}, False),  # REDIRECT_ENABLED = False
    ],
)
def test_a_request_that_would_not_follow_the_redirects_downloads(meta, follows):
    responses, stats = kept(Clock(), follows_redirects=follows)
    shares = keep(responses, fetched(url=MOVED, redirects=1), "t1")
    assert responses.serve(KEY, Request(ROBOTS, meta=meta), shares["t1"]) is None
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1


def test_the_response_goes_once_every_request_that_waited_took_it():
    responses, stats = kept(Clock())
    shares = keep(responses, fetched(), "t1", "t2")
    assert responses.serve(KEY, Request(ROBOTS), shares["t1"]) is not None
    assert len(responses) == 1
    assert responses.serve(KEY, Request(ROBOTS), shares["t1"]) is None  # its share is taken
    assert responses.serve(KEY, Request(ROBOTS), shares["t2"]) is not None
    assert len(responses) == 0
    assert responses.serve(KEY, Request(ROBOTS), shares["t2"]) is None
    assert stats.get_value("robotstxt/spider_request/served") == 2
    assert stats.get_value("robotstxt/spider_request/downloaded") == 2


def test_the_response_is_let_go_after_keep_for_seconds():
    clock = Clock()
    responses, _ = kept(clock)
    shares = keep(responses, fetched(), "t1", "t2", "t3")
    other = origin("http://b.test/")
    assert other is not None
    clock.advance(KEEP_FOR / 2)
    shares |= keep(responses, fetched(url="http://b.test/robots.txt"), "t4", key=other)
    clock.advance(KEEP_FOR / 2)  # the first is due, the second is not
    assert len(responses) == 1
    assert responses.serve(KEY, Request(ROBOTS), shares["t1"]) is None
    assert responses.serve(other, Request("http://b.test/robots.txt"), shares["t4"]) is not None
    assert clock.getDelayedCalls() == []  # the second's timer went with it


@pytest.mark.parametrize(
    "found",
    [
        pytest.param(FROM_THE_STORE, id="read-from-the-store"),
        pytest.param(Fetched(Answer(State.REFUSED, "refused by X")), id="no-response"),
        pytest.param(fetched(cut=True), id="cut-at-the-limit"),
        pytest.param(fetched(301), id="redirect-given-up-on"),
    ],
)
def test_a_fetch_that_has_not_the_whole_answer_leaves_nothing_to_take(found):
    responses, stats = kept(Clock())
    shares = keep(responses, found, "t1")
    assert responses.serve(KEY, Request(ROBOTS), shares["t1"]) is None
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1
    assert len(responses) == 0


def test_the_spider_closing_lets_every_response_go():
    clock = Clock()
    responses, _ = kept(clock)
    keep(responses, fetched(), "t1", "t2")
    responses.clear()
    assert len(responses) == 0
    assert clock.getDelayedCalls() == []


def test_a_kept_response_is_let_go_on_time_without_another_request():
    """Its timer lets it go KEEP_FOR seconds after the fetch, even if no
    robots.txt request comes again (a taker that never came back)."""
    clock = Clock()
    responses, _ = kept(clock)
    keep(responses, fetched(), "t1")
    clock.advance(KEEP_FOR - 1)
    assert len(responses) == 1
    clock.advance(10_000)
    assert len(responses) == 0


def test_a_taker_that_is_dropped_lets_its_share_go():
    """A request that waited but was dropped (ForbiddenByRobotsTxt, a
    usage preference, unreachable) releases its share: once every taker has
    had or released its share, the body is let go at once."""
    clock = Clock()
    responses, stats = kept(clock)
    shares = keep(responses, fetched(), "t1", "t2")
    responses.release(KEY, shares["t1"])
    responses.release(KEY, shares["t1"])  # twice changes nothing
    assert len(responses) == 1
    assert responses.serve(KEY, Request(ROBOTS), shares["t2"]) is not None
    assert len(responses) == 0
    shares |= keep(responses, fetched(), "t3")
    responses.release(KEY, shares["t3"])
    assert len(responses) == 0
    assert clock.getDelayedCalls() == []
    assert stats.get_value("robotstxt/spider_request/served") == 1


def test_a_request_that_did_not_wait_for_the_fetch_downloads():
    responses, stats = kept(Clock())
    keep(responses, fetched(), "t1")
    assert responses.serve(KEY, Request(ROBOTS), Share()) is None
    assert responses.serve(KEY, Request(ROBOTS), Share("elsewhere")) is None
    assert len(responses) == 1  # still t1's
    assert stats.get_value("robotstxt/spider_request/downloaded") == 2


def test_no_takers_keep_nothing():
    clock = Clock()
    responses, _ = kept(clock)
    keep(responses, fetched())
    assert len(responses) == 0
    assert clock.getDelayedCalls() == []


@pytest.mark.parametrize(
    ("kwargs", "why"),
    [
        ({"method": "HEAD"}, "it is a HEAD request"),
        ({"method": "POST", "body": b"x=1"}, "it is a POST request"),
        ({"body": b"x=1"}, "it has a body"),
        ({"headers": {"Range": "bytes=0-99"}}, "it has a Range header"),
        ({"headers": {"If-None-Match": '"abc"'}}, "it has an If-None-Match header"),
        (
            {"headers": {"If-Modified-Since": "Sat, 1 Jan 2000 00:00:00 GMT"}},
            "it has an If-Modified-Since header",
        ),
    ],
)
def test_only_a_plain_get_gets_the_fetchs_response(kwargs, why, caplog):
    """The fetch is a plain GET: a request that asks the server for
    something else is downloaded, and the DEBUG line says why."""
    responses, stats = kept(Clock())
    shares = keep(responses, fetched(), "t1")
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        assert responses.serve(KEY, Request(ROBOTS, **kwargs), shares["t1"]) is None
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1
    assert stats.get_value("robotstxt/spider_request/served") is None
    [line] = [r.getMessage() for r in caplog.records]
    assert line.endswith(f"robots.txt>: {why}")
    assert len(responses) == 0  # its share is taken all the same


def test_a_plain_get_with_other_headers_is_served():
    responses, _ = kept(Clock())
    shares = keep(responses, fetched(), "t1")
    request = Request(ROBOTS, headers={"Accept": "text/plain", "X-Ifs": "1"})
    assert responses.serve(KEY, request, shares["t1"]) is not None


def test_the_reason_of_an_internal_error_is_the_errors(caplog):
    responses, _ = kept(Clock())
    shares = keep(responses, "an error ended the fetch (RuntimeError: boom)", "t1")
    with caplog.at_level(logging.DEBUG, logger="scrapy_robots_rfc"):
        assert responses.serve(KEY, Request(ROBOTS), shares["t1"]) is None
    [line] = [r.getMessage() for r in caplog.records]
    assert line.endswith("an error ended the fetch (RuntimeError: boom)")
    assert "ROBOTSTXT_RFC_STORE" not in line
