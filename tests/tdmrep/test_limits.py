"""What reading a ``tdmrep.json`` costs is bounded by its size (T-2): the
work grows linearly with the body, counted by the function calls it makes
(never by a timer: calls do not depend on the machine's load), and the
memory it takes while parsing and keeps after is a small multiple of the
body, measured with :mod:`tracemalloc`, for the shapes that cost the most
per byte.
"""

from __future__ import annotations

import gc
import json
import sys
import tracemalloc
from collections.abc import Callable
from types import FrameType
from typing import Any

import pytest

from scrapy_robots_rfc.robotstxt import MAX_BYTES
from scrapy_robots_rfc.tdmrep import TdmFile, TdmValue, header_statement, meta_statement


def calls(work: Callable[[], object]) -> int:
    """How many Python and C function calls ``work`` makes.

    The garbage collector is off while it counts: a collection would run
    the finalizers of whatever earlier tests in this process left behind
    (generators' ``finally`` blocks, ``__del__`` methods), and count their
    calls too, more of them in a larger parse, which allocates more: a
    count that depended on the tests run before."""
    count = 0

    def profile(frame: FrameType, event: str, arg: Any) -> None:
        nonlocal count
        if event in ("call", "c_call"):
            count += 1

    gc.collect()
    gc.disable()
    sys.setprofile(profile)
    try:
        work()
    finally:
        sys.setprofile(None)
        gc.enable()
    return count


def array_of(unit: bytes, count: int) -> bytes:
    return b"[" + b",".join([unit] * count) + b"]"


#: Entries that each make the parser work: rules with wildcards, rules
#: skipped with notes, duplicate keys, unknown keys, bad values, non-UTF-8.
UNITS = {
    "rules": b'{"location": "/a*b*c*d$", "tdm-reservation": 1, "tdm-policy": "https://e.com/p"}',
    "no location": b'{"tdm-reservation": 1, "x": 2}',
    "duplicates": b'{"location": "/a", "location": "/b", "tdm-reservation": 1}',
    "bad values": b'{"location": "x", "tdm-reservation": "1", "tdm-policy": 3}',
    "not objects": b'[1, "two", null]',
    "non-UTF-8": b'{"location": "/caf\xe9/\xff", "tdm-reservation": 0}',
    "escapes": b'{"location": "/%7e%2f%24\\u00e9 *$", "tdm-reservation": 1}',
}


@pytest.mark.parametrize("unit", UNITS.values(), ids=UNITS.keys())
def test_parsing_is_linear_in_the_size(unit: bytes) -> None:
    small = calls(lambda: TdmFile.parse(array_of(unit, 200)))
    large = calls(lambda: TdmFile.parse(array_of(unit, 1600)))
    assert small > 200  # the count sees the work
    assert large <= 8 * small * 1.05


def test_a_verdict_costs_at_most_a_pass_over_the_rules() -> None:
    """``rule_for`` tries each rule once, each with no backtracking (the
    robots.txt matcher's PATH-11): a few calls per rule and per ``*`` of
    its location, whatever the URL, and eight times the rules cost at most
    eight times the calls."""
    url = "https://e.com/" + "a" * 2000 + "b" * 5 + "?" + "c" * 50
    counted = []
    for size in (100, 800):
        file = TdmFile.parse(array_of(UNITS["rules"], size))
        assert file.rule_for(url) is None
        counted.append(calls(lambda file=file: file.rule_for(url)))  # type: ignore[misc]
        assert counted[-1] <= size * 4 * 4  # four '*' in "/a*b*c*d$"
    assert counted[1] <= 8 * counted[0] * 1.05


def test_the_response_sources_are_linear_too() -> None:
    def header(count: int) -> Callable[[], object]:
        return lambda: header_statement([b"1, " * count], [b"https://e.com/p"] * count)

    def meta(count: int) -> Callable[[], object]:
        return lambda: meta_statement([("TDM-Reservation", "1"), ("x", "y")] * count)

    for work in (header, meta):
        assert calls(work(1600)) <= 8 * calls(work(200)) * 1.05


def _measured(body: bytes) -> tuple[int, int]:
    """The peak memory of parsing ``body``, and what the parsed file keeps."""
    gc.collect()
    tracemalloc.start()
    try:
        file = TdmFile.parse(body)
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert file.whole
    return peak, kept


#: The shapes that cost the most per byte (measured for the CHANGELOG of
#: issue 44): a container per two or three bytes, and rules with the
#: shortest location that are all kept.
COSTLY = {
    "empty arrays in arrays": b"[[]]",
    "empty objects in arrays": b"[{}]",
    "rules with a location only": b'{"location":"/"}',
    "whole rules": b'{"location":"/","tdm-reservation":1}',
    "unknown keys": b'{"x":0}',
}


@pytest.mark.parametrize("unit", COSTLY.values(), ids=COSTLY.keys())
def test_memory_is_a_small_multiple_of_the_body(unit: bytes) -> None:
    body = array_of(unit, (MAX_BYTES - 2) // (len(unit) + 1))
    assert MAX_BYTES - len(unit) <= len(body) <= MAX_BYTES
    peak, kept = _measured(body)
    # docs/tdmrep.rst states 17 MiB and 4 MiB for a file at the bound.
    assert peak < 34 * len(body) < 17 * 2**20
    assert kept < 8 * len(body) < 4 * 2**20


def test_a_value_keeps_only_its_statements() -> None:
    value = TdmValue()
    for statement in (header_statement([b"1"]), meta_statement([])):
        value = value.superseded(statement)
    assert len(value.statements) == 2
    assert json.dumps([str(s) for s in value.statements])


@pytest.mark.parametrize("count", [10, 1_000, 5_000])
def test_cost_is_what_the_parsed_file_keeps(count: int) -> None:
    """``TdmFile.cost``, what a crawl's cache charges for a file, is what
    ``tracemalloc`` sees the parsed file keep, within 10 %: rules with a
    location, a policy and notes (a value that is not 0 or 1)."""
    rules = [
        {
            "location": f"/dir-{i}/*.jpg$",
            "tdm-reservation": i % 3,
            "tdm-policy": f"https://e.com/p/{i}",
        }
        for i in range(count)
    ]
    body = json.dumps(rules).encode()
    gc.collect()
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        parsed = TdmFile.parse(body, max_bytes=None)
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert len(parsed.rules) == count
    assert 0.9 * kept <= parsed.cost() <= 1.1 * kept
