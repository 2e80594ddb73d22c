"""A request's record of its wait (:class:`.Ticket`): primitives only under
one meta key, so that every queue keeps it; robust to what another program
left there; the keys of the version before read for one minor version."""

from __future__ import annotations

import json
import marshal
import pickle
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from scrapy import Request

from scrapy_robots_rfc.crawl import Ticket, wait_once
from scrapy_robots_rfc.crawl._tickets import LEGACY_KEYS, carried, leave, taken

tickets = st.builds(
    Ticket,
    since=st.one_of(st.none(), st.floats(0, 4e9)),
    refilter=st.booleans(),
    taker=st.one_of(st.none(), st.text(max_size=32)),
    held=st.one_of(st.none(), st.text(max_size=16)),
    drop=st.one_of(st.none(), st.text(max_size=40)),
    once=st.booleans(),
)


@given(tickets)
def test_a_ticket_survives_every_queue(ticket: Ticket) -> None:
    """Scrapy's disk queues (pickle, marshal) and scrapy-redis's serializers
    (pickle, JSON) give back the ticket they were given."""
    value = ticket.to_meta()
    assert Ticket.from_meta(value) == ticket
    assert Ticket.from_meta(marshal.loads(marshal.dumps(value))) == ticket
    assert Ticket.from_meta(json.loads(json.dumps(value))) == ticket
    assert Ticket.from_meta(pickle.loads(pickle.dumps(value))) == ticket


def test_a_ticket_keeps_only_what_is_not_its_default() -> None:
    assert Ticket().to_meta() == {}
    assert Ticket(since=12.5, once=True).to_meta() == {"since": 12.5, "once": True}


@pytest.mark.parametrize(
    "value",
    [None, "x", 3, [], {"since": "soon", "filter": 1, "taker": 7, "hold": b"x", "once": "yes"}],
)
def test_what_is_not_a_ticket_reads_as_a_blank_one(value: Any) -> None:
    assert Ticket.from_meta(value) == Ticket()


def test_a_request_that_leaves_carries_its_ticket_and_gets_dont_filter_back() -> None:
    """It goes back itself, with ``dont_filter`` set for the dupefilter that
    has seen it once, and its ticket says to set it back."""
    request = Request("https://example.com/a", meta={"x": 1})
    assert leave(request, Ticket(since=5.0, taker="t")) is request
    assert request.dont_filter
    assert carried(request) == Ticket(since=5.0, taker="t", refilter=True)
    assert taken(request.meta) == Ticket(since=5.0, taker="t", refilter=True)
    assert request.meta == {"x": 1}


def test_a_request_that_filters_nothing_keeps_its_dont_filter() -> None:
    request = Request("https://example.com/a", dont_filter=True)
    assert leave(request, Ticket(since=1.0)) is request
    assert carried(request) == Ticket(since=1.0)


def test_a_request_without_a_ticket_has_none() -> None:
    assert taken({}) is None
    assert taken({"depth": 2}) is None


def test_the_keys_of_the_version_before_are_read_and_taken_off() -> None:
    """A JOBDIR or a Redis held set written by 0.1 resumes: its keys read as
    a ticket, and are gone by the time the request is downloaded. A
    monotonic time of another run (``_robotstxt_rfc_waited``) is dropped."""
    meta = {
        "depth": 1,
        "_robotstxt_rfc_filter": True,
        "_robotstxt_rfc_waited": 812.5,
        "_robotstxt_rfc_since": 1_700_000_000.0,
        "_robotstxt_rfc_hold": "ab12",
        "_robotstxt_rfc_taker": "cafe",
        "_robotstxt_rfc_drop": "HTTP 503",
        "_robotstxt_rfc_no_wait": True,
        "_robotstxt_rfc_scheduled": True,
    }
    assert set(meta) - {"depth"} == LEGACY_KEYS
    assert taken(meta) == Ticket(
        since=1_700_000_000.0, refilter=True, taker="cafe", held="ab12", drop="HTTP 503", once=True
    )
    assert meta == {"depth": 1}


def test_a_check_of_one_url_waits_once() -> None:
    meta: dict[str, Any] = {}
    wait_once(meta, False)
    assert meta == {}
    wait_once(meta)
    assert taken(meta) == Ticket(once=True)
