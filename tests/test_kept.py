"""The responses kept for the spider's own robots.txt requests
(:mod:`scrapy_robots_rfc.kept`), without a crawl: what a request gets, how
many may take one, and how long it is kept, with a fake clock."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from scrapy import Request
from scrapy.http import TextResponse
from scrapy.utils.test import get_crawler

from scrapy_robots_rfc.fetcher import Fetched
from scrapy_robots_rfc.kept import KEEP_FOR, SERVED_FLAG, KeptResponses
from scrapy_robots_rfc.origin import origin
from scrapy_robots_rfc.policy import Answer, State

KEY = origin("http://a.test/")
assert KEY is not None
ROBOTS = "http://a.test/robots.txt"
MOVED = "https://www.a.test/robots.txt"


@dataclass
class Clock:
    now: float = 100.0

    def __call__(self) -> float:
        return self.now


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
    responses = KeptResponses(
        stats=stats, monotonic=clock, follows_redirects=follows_redirects, spider=lambda: None
    )
    return responses, stats


def test_a_request_that_waited_gets_a_copy_for_itself():
    responses, stats = kept(Clock())
    source = fetched()
    responses.keep(KEY, source, 1)
    request = Request("http://A.test:80/robots.txt", meta={"mine": 1})
    got = responses.serve(KEY, request)
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
    responses.keep(KEY, fetched(url=MOVED, redirects=1), 1)
    got = responses.serve(KEY, Request(ROBOTS))
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
    responses.keep(KEY, fetched(url=MOVED, redirects=1), 1)
    assert responses.serve(KEY, Request(ROBOTS, meta=meta)) is None
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1


def test_the_response_goes_once_every_request_that_waited_took_it():
    responses, stats = kept(Clock())
    responses.keep(KEY, fetched(), 2)
    assert responses.serve(KEY, Request(ROBOTS)) is not None
    assert len(responses) == 1
    assert responses.serve(KEY, Request(ROBOTS)) is not None
    assert len(responses) == 0
    assert responses.serve(KEY, Request(ROBOTS)) is None
    assert stats.get_value("robotstxt/spider_request/served") == 2
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1


def test_the_response_is_let_go_after_keep_for_seconds():
    clock = Clock()
    responses, _ = kept(clock)
    responses.keep(KEY, fetched(), 3)
    other = origin("http://b.test/")
    assert other is not None
    clock.now += KEEP_FOR / 2
    responses.keep(other, fetched(url="http://b.test/robots.txt"), 1)
    clock.now += KEEP_FOR / 2  # the first is due, the second is not
    assert responses.serve(KEY, Request(ROBOTS)) is None
    assert len(responses) == 1
    assert responses.serve(other, Request("http://b.test/robots.txt")) is not None


@pytest.mark.parametrize(
    "found",
    [
        pytest.param(None, id="read-from-the-store"),
        pytest.param(Fetched(Answer(State.REFUSED, "refused by X")), id="no-response"),
        pytest.param(fetched(cut=True), id="cut-at-the-limit"),
        pytest.param(fetched(301), id="redirect-given-up-on"),
    ],
)
def test_a_fetch_that_has_not_the_whole_answer_leaves_nothing_to_take(found):
    responses, stats = kept(Clock())
    responses.keep(KEY, found, 1)
    assert responses.serve(KEY, Request(ROBOTS)) is None
    assert stats.get_value("robotstxt/spider_request/downloaded") == 1
    assert len(responses) == 0


def test_the_spider_closing_lets_every_response_go():
    responses, _ = kept(Clock())
    responses.keep(KEY, fetched(), 5)
    responses.clear()
    assert len(responses) == 0
