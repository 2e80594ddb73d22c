"""Properties of the TDMRep reader, with hypothesis:

* reading never raises on any bytes, any JSON or any array of rule-like
  objects, and a verdict never raises on any URL;
* the first rule in array order whose location matches decides (T-3),
  checked against a reference written here with :mod:`re` on locations and
  paths that canonicalisation leaves as they are;
* a location matches exactly the URLs that a robots.txt ``Disallow`` line
  with the same pattern disallows in ``rfc`` mode (one matcher for both,
  D-2, D-3), on patterns and URLs with escapes, ``*``, ``$`` and non-ASCII;
* header and meta statements add up as T-1 says, against a reference fold.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from scrapy_robots_rfc import RobotsTxt
from scrapy_robots_rfc.robotstxt import canonical_match_string
from scrapy_robots_rfc.tdmrep import (
    KINDS,
    NOTE_CODES,
    Source,
    Statement,
    TdmFile,
    TdmValue,
    header_statement,
    meta_statement,
)

SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])

JSON_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(max_size=20)
    | st.sampled_from(["/", "/a*", "$", "1", "0", ""]),
    lambda inner: (
        st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5)
    ),
    max_leaves=30,
)
KEYS = st.sampled_from(["location", "tdm-reservation", "tdm-policy", "x", "Location"])
RULE_VALUES = st.one_of(
    st.sampled_from([0, 1, 2, "1", True, None, "/", "/a/*", "*.pdf$", "", "https://e.com/p"]),
    JSON_VALUES,
)
ANY_URL = st.one_of(
    st.text(max_size=60),
    st.binary(max_size=60),
    st.builds(lambda path: "https://e.com" + path, st.text(max_size=60)),
)


def check_file(file: TdmFile) -> None:
    """What every parse gives: rules in array order with a location,
    notes with known codes."""
    positions = [rule.position for rule in file.rules]
    assert positions == sorted(set(positions))
    for rule in file.rules:
        assert isinstance(rule.location, str)
        assert rule.location
        assert rule.reservation in (0, 1, None)
        assert rule.policy is None or (isinstance(rule.policy, str) and rule.policy)
    assert all(note.code in NOTE_CODES for note in file.notes)
    assert str(file) is not None


@SETTINGS
@given(st.binary(max_size=400), ANY_URL)
@example(b"[" * 5000, "https://e.com/")
@example(b'\xef\xbb\xbf[{"location":"/\xff","tdm-reservation":1}]', b"https://e.com/\xff")
def test_any_bytes(body: bytes, url: str | bytes) -> None:
    file = TdmFile.parse(body)
    check_file(file)
    value = file.value(url)
    assert value.reservation in (0, 1, None)
    str(value)


@SETTINGS
@given(JSON_VALUES, ANY_URL)
def test_any_json(found: Any, url: str | bytes) -> None:
    file = TdmFile.parse(json.dumps(found))
    check_file(file)
    if not isinstance(found, list):
        assert file.rules == ()
        assert [note.code for note in file.notes] == ["not-array"]
    file.statement(url)


@SETTINGS
@given(
    st.lists(
        st.one_of(st.dictionaries(KEYS, RULE_VALUES, max_size=4), JSON_VALUES),
        max_size=8,
    ),
    ANY_URL,
)
def test_any_array_of_rules(entries: list[Any], url: str | bytes) -> None:
    file = TdmFile.parse(json.dumps(entries))
    check_file(file)
    # A rule is kept exactly when its entry is an object with a non-empty
    # string location.
    assert [rule.position for rule in file.rules] == [
        index
        for index, entry in enumerate(entries)
        if isinstance(entry, dict) and isinstance(entry.get("location"), str) and entry["location"]
    ]
    statement = file.statement(url)
    assert statement.source.kind == "file"


# -- first match, against a reference -------------------------------------------

#: Characters that canonicalisation leaves as they are, in locations and
#: paths alike (unreserved and '/').
PLAIN = "ab/.-"
LOCATIONS = st.builds(
    lambda head, body, anchored: head + body + ("$" if anchored else ""),
    st.sampled_from(["/", "*", "/a", "a"]),
    st.text(PLAIN + "*", max_size=6),
    st.booleans(),
)
PATHS = st.builds(lambda body: "/" + body, st.text(PLAIN, max_size=10))
RESERVATIONS = st.sampled_from([0, 1, 2, "1", None])


def reference_matches(location: str, path: str) -> bool:
    """A location's meaning as the spec's "Use of regular expressions"
    gives it: ``*`` any run of characters, a final ``$`` the end, and
    otherwise a prefix."""
    anchored = location.endswith("$")
    body = location[:-1] if anchored else location
    regex = "".join(".*" if char == "*" else re.escape(char) for char in body)
    return re.fullmatch(regex + ("" if anchored else ".*"), path, re.DOTALL) is not None


@SETTINGS
@given(
    st.lists(
        st.one_of(
            st.tuples(LOCATIONS, RESERVATIONS),
            st.tuples(st.sampled_from([None, ""]), RESERVATIONS),
        ),
        max_size=6,
    ),
    PATHS,
)
def test_the_first_matching_rule_decides(rules: list[tuple[str | None, object]], path: str) -> None:
    entries: list[dict[str, object]] = []
    for location, reservation in rules:
        entry: dict[str, object] = {} if location is None else {"location": location}
        if reservation is not None:
            entry["tdm-reservation"] = reservation
        entries.append(entry)
    expected: tuple[int, object] | None = None
    for index, (location, reservation) in enumerate(rules):
        if location and reference_matches(location, path):
            valid = reservation in (0, 1) and not isinstance(reservation, bool)
            expected = (index, reservation if valid else None)
            break
    file = TdmFile.parse(json.dumps(entries))
    url = "https://e.com" + path
    rule = file.rule_for(url)
    value = file.value(url)
    if expected is None:
        assert rule is None
        assert value.reservation is None
    else:
        assert rule is not None
        assert (rule.position, value.reservation) == expected
        assert value.source in (None, Source("file", rule.position, rule.location))


# -- one matcher with robots.txt ------------------------------------------------------

#: What patterns and paths are made of: one pool, so that they often match,
#: written in the forms canonicalisation brings together or keeps apart
#: (escapes of unreserved and reserved characters in both cases, a literal
#: '*' and '$', non-ASCII raw and escaped, characters a URI never holds
#: raw). No '#' (a robots.txt comment) or white space (robots.txt trims a
#: value): what both files can write the same way.
TOKENS = [
    "a", "b", "%61", "~", "%7E", "%7e", "*", "$", "%24", "%2A", "%2a", "é", "%C3%A9",
    "%c3%a9", "/", "%2F", "%2f", '"', "%22", "<", "%", "ツ", "?", "=", ";",
]  # fmt: skip
PATTERNS = st.builds(
    lambda head, parts: head + "".join(parts),
    st.sampled_from(["/", "/", "/", "*", "/a"]),
    st.lists(st.sampled_from(TOKENS), max_size=6),
)
URL_PATHS = st.builds(
    lambda parts: "/" + "".join(parts), st.lists(st.sampled_from([*TOKENS, "x"]), max_size=8)
)


@SETTINGS
@given(PATTERNS, URL_PATHS)
@example("/path/foo-%24", "/path/foo-$")
@example("/a*$", "/a%2A")
@example("*", "/")
def test_a_location_matches_what_a_robots_txt_disallow_line_does(pattern: str, path: str) -> None:
    url = "https://e.com" + path
    if canonical_match_string(url, "rfc") == "/robots.txt":
        return  # always allowed by robots.txt (D-1), not a pattern question
    robots = RobotsTxt.parse(f"User-agent: *\nDisallow: {pattern}\n".encode(), "rfc")
    file = TdmFile.parse(json.dumps([{"location": pattern, "tdm-reservation": 1}]))
    assert len(file.rules) == 1
    assert (file.rule_for(url) is not None) is (not robots.allowed(url, "bot"))


# -- adding up, against a reference fold ----------------------------------------------

STATEMENT_PARTS = st.tuples(
    st.sampled_from([0, 1, None]),
    st.sampled_from([None, "https://e.com/a", "https://e.com/b"]),
)


@SETTINGS
@given(
    st.lists(st.booleans(), min_size=3, max_size=3),
    st.lists(STATEMENT_PARTS, min_size=3, max_size=3),
)
def test_sources_add_up_as_t1_says(
    present: list[bool], parts: list[tuple[int | None, str | None]]
) -> None:
    statements = [
        Statement(Source(kind), reservation, policy)  # type: ignore[arg-type]
        for kind, keep, (reservation, policy) in zip(KINDS, present, parts, strict=True)
        if keep
    ]
    value = TdmValue(tuple(statements))
    # The reference: the last stated reservation; the last policy stated
    # beside a reservation that is not 0, shown only when the result is 1.
    stated = [s for s in statements if s.reservation is not None]
    reservation = stated[-1].reservation if stated else None
    policies = [s for s in statements if s.policy is not None and s.reservation != 0]
    policy = policies[-1].policy if policies and reservation == 1 else None
    assert value.reservation == reservation
    assert value.source == (stated[-1].source if stated else None)
    assert value.policy == policy


@SETTINGS
@given(
    st.lists(st.one_of(st.text(max_size=8), st.binary(max_size=8)), max_size=4),
    st.lists(st.one_of(st.text(max_size=20), st.binary(max_size=20)), max_size=3),
    st.lists(
        st.tuples(st.sampled_from(["tdm-reservation", "TDM-Policy", "x"]), st.text(max_size=8)),
        max_size=4,
    ),
)
def test_any_header_and_meta_values(
    reservations: list[str | bytes], policies: list[str | bytes], tags: list[tuple[str, str]]
) -> None:
    header = header_statement(reservations, policies)
    meta = meta_statement(tags)
    for statement in (header, meta):
        assert statement.reservation in (0, 1, None)
        str(statement)
    value = TdmValue((header, meta))
    assert value.reservation in (0, 1, None)
    str(value)
