"""``/.well-known/tdmrep.json``, the pure reader (T-2, T-3): the examples
of the W3C TDM Reservation Protocol (Community Group final report, May
2024; section "TDM File on the Origin Server", its "Use of regular
expressions" and "Examples"), then matching grouped by what it exercises,
then content that is not what the spec asks for: every body gives a defined
result and notes, never an exception.
"""

from __future__ import annotations

import json

import pytest

from scrapy_robots_rfc.robotstxt import MAX_BYTES, canonical_match_string
from scrapy_robots_rfc.tdmrep import (
    MAX_NOTES,
    NOTE_CODES,
    TDMREP_PATH,
    Note,
    Source,
    Statement,
    TdmFile,
    TdmRule,
    TdmValue,
)

ORIGIN = "https://provider.com"

# -- the spec's examples ---------------------------------------------------------

#: Section "Examples", first file: "a rightsholder wants to "opt-out" for
#: every file present on a Web server".
EVERYTHING = b"""[
  {
  "location": "/",
  "tdm-reservation": 1
  }
]"""

#: Section "Examples", second file: PDFs in /directory-a reserved without a
#: policy, HTML pages in /directory-b/html reserved with one, JPEG images
#: in /directory-b/images not reserved.
THREE_GROUPS = b"""[
  {
  "location": "/directory-a/",
  "tdm-reservation": 1
  },
  {
  "location": "/directory-b/html/",
  "tdm-reservation": 1,
  "tdm-policy":"https://provider.com/policies/policy.json"
  },
  {
  "location": "/directory-b/images/*.jpg",
  "tdm-reservation": 0
  }
]"""
POLICY = "https://provider.com/policies/policy.json"


def test_the_well_known_path() -> None:
    assert TDMREP_PATH == "/.well-known/tdmrep.json"


@pytest.mark.parametrize(
    "path",
    ["/", "/index.html", "/directory-a/doc.pdf", "/?q=1", "/.well-known/tdmrep.json"],
)
def test_the_first_example_reserves_everything(path: str) -> None:
    file = TdmFile.parse(EVERYTHING)
    assert file.notes == ()
    assert file.statement(ORIGIN + path) == Statement(Source("file", 0, "/"), 1, None)
    value = file.value(ORIGIN + path)
    assert (value.reservation, value.reserved, value.policy) == (1, True, None)


@pytest.mark.parametrize(
    ("path", "position", "reservation", "policy"),
    [
        ("/directory-a/report.pdf", 0, 1, None),
        ("/directory-a/", 0, 1, None),
        ("/directory-a/sub/deeper.pdf?download=1", 0, 1, None),
        ("/directory-b/html/index.html", 1, 1, POLICY),
        ("/directory-b/images/cat.jpg", 2, 0, None),
        ("/directory-b/images/2024/cat.jpg", 2, 0, None),
        # '*.jpg' is not anchored: a query after it still matches (PATH-2).
        ("/directory-b/images/cat.jpg?size=2", 2, 0, None),
        ("/directory-b/images/cat.jpgx", 2, 0, None),
        # What no rule covers is unset (T-3).
        ("/directory-b/images/cat.png", None, None, None),
        ("/directory-b/other.html", None, None, None),
        ("/directory-a", None, None, None),
        ("/", None, None, None),
    ],
)
def test_the_second_example(
    path: str, position: int | None, reservation: int | None, policy: str | None
) -> None:
    file = TdmFile.parse(THREE_GROUPS)
    assert file.notes == ()
    rule = file.rule_for(ORIGIN + path)
    assert (rule.position if rule else None) == position
    value = file.value(ORIGIN + path)
    assert (value.reservation, value.policy) == (reservation, policy)
    if position is None:
        assert value.source is None
        assert str(file.statement(ORIGIN + path)) == "tdmrep.json: no rule's location matches"
    else:
        assert value.source == Source("file", position, file.rules[position].location)


def test_the_second_example_reads_back() -> None:
    file = TdmFile.parse(THREE_GROUPS)
    assert file.rules == (
        TdmRule(0, "/directory-a/", "/directory-a/", 1, None),
        TdmRule(1, "/directory-b/html/", "/directory-b/html/", 1, POLICY),
        TdmRule(2, "/directory-b/images/*.jpg", "/directory-b/images/*.jpg", 0, None),
    )
    assert str(file) == (
        "[0] location '/directory-a/': tdm-reservation 1\n"
        f"[1] location '/directory-b/html/': tdm-reservation 1, tdm-policy {POLICY}\n"
        "[2] location '/directory-b/images/*.jpg': tdm-reservation 0"
    )
    assert str(file.value(ORIGIN + "/directory-b/html/a.html")) == (
        "reserved (tdm-reservation 1 from tdmrep.json[1] (location '/directory-b/html/')), "
        f"policy {POLICY} (tdmrep.json[1] (location '/directory-b/html/'))"
    )


# Section "Use of regular expressions": "$" ends the pattern, "*" is any run
# of characters, and a literal special character in the URI is matched as
# its %-encoding: the pattern /path/foo-%24 and the URI
# https://provider.com/path/foo-$ (D-3).
@pytest.mark.parametrize(
    ("location", "url", "matches"),
    [
        ("/path/foo-%24", "https://provider.com/path/foo-$", True),
        ("/path/foo-%24", "https://provider.com/path/foo-%24", True),
        ("/path/foo-%24", "https://provider.com/path/foo-", False),
        ("/path/foo-%2A", "https://provider.com/path/foo-*", True),
        ("/this/path/exactly$", "https://provider.com/this/path/exactly", True),
        ("/this/path/exactly$", "https://provider.com/this/path/exactly/", False),
        ("/this/path/exactly$", "https://provider.com/this/path/exactly?x", False),
        ("/this/*/then", "https://provider.com/this/a/b/then", True),
        ("/this/*/then", "https://provider.com/this//then/more", True),
        ("/this/*/then", "https://provider.com/this/then", False),
    ],
)
def test_the_special_characters(location: str, url: str, matches: bool) -> None:
    file = TdmFile.parse(json.dumps([{"location": location, "tdm-reservation": 1}]))
    assert (file.rule_for(url) is not None) is matches


# -- matching (T-3) ------------------------------------------------------------


def file_of(*rules: dict[str, object]) -> TdmFile:
    return TdmFile.parse(json.dumps(list(rules)))


@pytest.mark.parametrize(
    ("location", "url", "matches"),
    [
        # Case-sensitive ("The matching SHOULD be case sensitive").
        ("/Directory-A/", "https://e.com/directory-a/x", False),
        ("/directory-a/", "https://e.com/Directory-A/x", False),
        ("/directory-a/", "https://E.COM/directory-a/x", True),
        # Escapes of unreserved characters are decoded on both sides (D-2).
        ("/%7Euser/", "https://e.com/~user/page", True),
        ("/~user/", "https://e.com/%7euser/page", True),
        ("/a%2Db/", "https://e.com/a-b/x", True),
        # Reserved escapes are kept: %2F is not '/'.
        ("/a%2Fb", "https://e.com/a/b", False),
        ("/a%2fb", "https://e.com/a%2Fb", True),
        # Non-ASCII is matched as its UTF-8 escapes.
        ("/café/", "https://e.com/caf%C3%A9/menu", True),
        ("/caf%C3%A9/", "https://e.com/café/menu", True),
        # The query counts; the fragment does not (URL-1..4).
        ("/search?q=", "https://e.com/search?q=x", True),
        ("/page$", "https://e.com/page#part", True),
        ("/page$", "https://e.com/page?x=1", False),
        # A location that starts with '*' matches as robots.txt's (D-6).
        ("*.pdf$", "https://e.com/a/b.pdf", True),
        ("*.pdf$", "https://e.com/a/b.pdf?x", False),
        # Not a path: it can never match (D-6).
        ("directory-a/", "https://e.com/directory-a/x", False),
        ("https://e.com/", "https://e.com/", False),
        # A lone '$' anchors an empty path, which no URL has.
        ("$", "https://e.com/", False),
        ("/$", "https://e.com/", True),
        ("/$", "https://e.com", True),
    ],
)
def test_matching(location: str, url: str, matches: bool) -> None:
    file = file_of({"location": location, "tdm-reservation": 1})
    assert len(file.rules) == 1
    assert (file.rule_for(url) is not None) is matches
    assert file.rules[0].matches(canonical_match_string(url, "rfc")) is matches


def test_the_first_rule_in_array_order_decides_not_the_longest() -> None:
    file = file_of(
        {"location": "/a/open/", "tdm-reservation": 0},
        {"location": "/a/", "tdm-reservation": 1},
        {"location": "/a/open/closed/", "tdm-reservation": 1},
    )
    assert file.value("https://e.com/a/x").reservation == 1
    assert file.value("https://e.com/a/open/x").reservation == 0
    # The longer rule comes after a shorter one that matches: never reached.
    assert file.value("https://e.com/a/open/closed/x").reservation == 0
    assert file.rule_for("https://e.com/a/open/closed/x") == file.rules[0]


def test_a_matching_rule_with_an_invalid_reservation_decides_unset() -> None:
    """T-3: the first matching rule decides even when its value is a
    protocol error; the rules after it are not tried."""
    file = file_of(
        {"location": "/a/", "tdm-reservation": 2, "tdm-policy": POLICY},
        {"location": "/", "tdm-reservation": 1},
    )
    statement = file.statement("https://e.com/a/x")
    assert statement == Statement(
        Source("file", 0, "/a/"),
        None,
        POLICY,
        ("its tdm-reservation is not 0 or 1: a protocol error",),
    )
    value = file.value("https://e.com/a/x")
    assert (value.reservation, value.source, value.policy) == (None, None, None)
    assert value.errors == (
        "tdmrep.json[0] (location '/a/'): its tdm-reservation is not 0 or 1: a protocol error",
    )
    assert file.value("https://e.com/b").reservation == 1


@pytest.mark.parametrize(
    "entry",
    [
        {"tdm-reservation": 1},
        {"location": None, "tdm-reservation": 1},
        {"location": 5, "tdm-reservation": 1},
        {"location": ["/"], "tdm-reservation": 1},
        {"location": "", "tdm-reservation": 1},
    ],
)
def test_a_rule_without_a_usable_location_is_skipped(entry: dict[str, object]) -> None:
    file = file_of(entry, {"location": "/", "tdm-reservation": 0})
    assert [rule.position for rule in file.rules] == [1]
    assert file.value("https://e.com/x").reservation == 0
    assert file.value("https://e.com/x").source == Source("file", 1, "/")


def test_positions_count_every_entry() -> None:
    file = TdmFile.parse(b'[1, "x", {}, {"location": "/", "tdm-reservation": 1}]')
    assert [rule.position for rule in file.rules] == [3]
    assert [(note.position, note.code) for note in file.notes] == [
        (0, "not-object"),
        (1, "not-object"),
        (2, "no-location"),
    ]
    assert str(file.statement("https://e.com/")) == (
        "tdmrep.json[3] (location '/'): tdm-reservation 1"
    )


def test_bytes_urls_and_non_utf8_locations() -> None:
    """A location with a byte that is not UTF-8 matches that byte in a URL,
    as a robots.txt pattern does (D-2)."""
    file = TdmFile.parse(b'[{"location": "/caf\xe9", "tdm-reservation": 1}]')
    assert [note.code for note in file.notes] == ["non-utf8"]
    assert file.rules[0].pattern == "/caf%E9"
    assert file.rule_for(b"https://e.com/caf\xe9") is not None
    assert file.rule_for("https://e.com/caf%E9") is not None
    assert file.rule_for("https://e.com/café") is None  # %C3%A9


def test_a_lone_surrogate_escape_is_three_bytes_no_url_has() -> None:
    file = TdmFile.parse(b'[{"location": "/\\ud800", "tdm-reservation": 1}]')
    assert file.rules[0].pattern == "/%ED%A0%80"
    assert file.rule_for("https://e.com/") is None


# -- values (T-2) ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("written", "reservation", "code"),
    [
        ("1", 1, None),
        ("0", 0, None),
        ("1.0", 1, None),
        ("0e0", 0, None),
        ('"1"', None, "bad-reservation"),
        ('"0"', None, "bad-reservation"),
        ("true", None, "bad-reservation"),
        ("false", None, "bad-reservation"),
        ("2", None, "bad-reservation"),
        ("-1", None, "bad-reservation"),
        ("0.5", None, "bad-reservation"),
        ("null", None, "bad-reservation"),
        ("[1]", None, "bad-reservation"),
        ('{"value": 1}', None, "bad-reservation"),
        ("NaN", None, "bad-reservation"),
    ],
)
def test_reservation_values(written: str, reservation: int | None, code: str | None) -> None:
    file = TdmFile.parse(f'[{{"location": "/", "tdm-reservation": {written}}}]')
    assert file.rules[0].reservation == reservation
    assert [note.code for note in file.notes] == ([code] if code else [])


def test_a_missing_reservation_is_a_protocol_error() -> None:
    file = file_of({"location": "/"})
    assert file.rules[0].reservation is None
    assert file.notes == (
        Note(0, "bad-reservation", "no tdm-reservation: a protocol error, unset"),
    )


@pytest.mark.parametrize(
    ("written", "policy", "code"),
    [
        ('"https://e.com/p.json"', "https://e.com/p.json", None),
        ('"  https://e.com/p.json \\n"', "https://e.com/p.json", None),
        ('"/policies/p.json"', "/policies/p.json", None),
        ('""', None, "bad-policy"),
        ('"   "', None, "bad-policy"),
        ('"\\ud800"', None, "bad-policy"),
        ("3", None, "bad-policy"),
        ("null", None, "bad-policy"),
        ('["https://e.com/p.json"]', None, "bad-policy"),
    ],
)
def test_policy_values(written: str, policy: str | None, code: str | None) -> None:
    file = TdmFile.parse(f'[{{"location": "/", "tdm-reservation": 1, "tdm-policy": {written}}}]')
    assert file.rules[0].policy == policy
    assert [note.code for note in file.notes] == ([code] if code else [])
    assert file.value("https://e.com/").policy == policy


def test_a_policy_beside_zero_is_not_read() -> None:
    file = file_of({"location": "/", "tdm-reservation": 0, "tdm-policy": POLICY})
    assert file.rules[0].policy == POLICY
    value = file.value("https://e.com/")
    assert (value.reservation, value.policy, value.policy_source) == (0, None, None)
    assert str(file.statement("https://e.com/")) == (
        f"tdmrep.json[0] (location '/'): tdm-reservation 0, tdm-policy {POLICY} (not read beside 0)"
    )


@pytest.mark.parametrize(
    ("body", "rule", "notes"),
    [
        # The same value twice: read, and said.
        (
            b'[{"location": "/", "tdm-reservation": 1, "tdm-reservation": 1}]',
            TdmRule(0, "/", "/", 1, None),
            [(0, "duplicate-key")],
        ),
        # Two values: a protocol error (T-1), whichever a JSON parser keeps.
        (
            b'[{"location": "/", "tdm-reservation": 1, "tdm-reservation": 0}]',
            TdmRule(0, "/", "/", None, None),
            [(0, "duplicate-key")],
        ),
        (
            b'[{"location": "/", "tdm-reservation": 1, "tdm-policy": "a", "tdm-policy": "b"}]',
            TdmRule(0, "/", "/", 1, None),
            [(0, "duplicate-key")],
        ),
        # Two locations: no location, the rule is skipped.
        (
            b'[{"location": "/a", "location": "/b", "tdm-reservation": 1}]',
            None,
            [(0, "duplicate-key"), (0, "no-location")],
        ),
        # An unknown key given twice is only unknown.
        (
            b'[{"location": "/", "tdm-reservation": 1, "x": 1, "x": 2}]',
            TdmRule(0, "/", "/", 1, None),
            [(0, "unknown-key")],
        ),
    ],
)
def test_duplicate_keys(body: bytes, rule: TdmRule | None, notes: list[tuple[int, str]]) -> None:
    file = TdmFile.parse(body)
    assert file.rules == ((rule,) if rule else ())
    assert [(note.position, note.code) for note in file.notes] == notes


def test_unknown_keys_are_ignored_and_listed_once_per_rule() -> None:
    keys = {f"k{i}": i for i in range(7)}
    file = file_of({"location": "/", "tdm-reservation": 1, "tdm-licence": "x", **keys})
    assert file.rules == (TdmRule(0, "/", "/", 1, None),)
    assert file.notes == (
        Note(0, "unknown-key", "ignored: 'k0', 'k1', 'k2', 'k3', 'k4' and 3 more"),
    )


# -- content that is not what the spec asks for (T-2) ----------------------------------


@pytest.mark.parametrize(
    ("body", "codes"),
    [
        (b"", ["not-json"]),
        (b"   ", ["not-json"]),
        (b"<html><body>Not found</body></html>", ["not-json"]),
        (b'[{"location": "/", "tdm-reservation": 1},]', ["not-json"]),
        (b'[{"location": "/", "tdm-reservation": 1}', ["not-json"]),
        (b"[" * 100_000, ["not-json"]),
        (b"9" * 5000, ["not-json"]),
        (b"\xff\xfe[\x00]\x00", ["non-utf8", "not-json"]),
        (b"{}", ["not-array"]),
        (b'{"location": "/", "tdm-reservation": 1}', ["not-array"]),
        (b'"[]"', ["not-array"]),
        (b"1", ["not-array"]),
        (b"null", ["not-array"]),
        (b"[]", []),
        (b"[[]]", ["not-object"]),
        (b"\xef\xbb\xbf[]", ["bom"]),
        (b"\xef\xbb\xbf\xef\xbb\xbf[]", ["bom", "not-json"]),
    ],
)
def test_content_that_gives_no_rules(body: bytes, codes: list[str]) -> None:
    file = TdmFile.parse(body)
    assert file.rules == ()
    assert file.whole
    assert [note.code for note in file.notes] == codes
    assert all(note.code in NOTE_CODES for note in file.notes)
    assert file.value("https://e.com/").reservation is None
    assert file.statement("https://e.com/") == Statement(Source("file"))


def test_an_object_instead_of_an_array_says_so() -> None:
    """A mistake sites make: the rule alone, without the brackets the spec
    calls mandatory ("they are mandatory even if you express only one
    rule")."""
    file = TdmFile.parse(b'{"location": "/", "tdm-reservation": 1}')
    assert file.notes == (
        Note(
            None,
            "not-array",
            "the JSON text is an object, not an array (a rule must be inside [ ])",
        ),
    )


def test_a_bom_and_a_str_body() -> None:
    body = "\ufeff" + json.dumps([{"location": "/ä", "tdm-reservation": 1}], ensure_ascii=False)
    file = TdmFile.parse(body)
    assert [note.code for note in file.notes] == ["bom"]
    assert file.rules[0].pattern == "/%C3%A4"
    assert file == TdmFile.parse(body.encode("utf-8"))
    assert file == TdmFile.parse(bytearray(body.encode("utf-8")))
    assert file == TdmFile.parse(memoryview(body.encode("utf-8")))


def test_notes_are_bounded() -> None:
    body = json.dumps([{"x": 1}] * (MAX_NOTES + 50) + [{"location": "/", "tdm-reservation": 1}])
    file = TdmFile.parse(body)
    assert len(file.notes) == MAX_NOTES + 1
    # Each {"x": 1} gives two notes: an unknown key, and no location.
    more = f"{2 * (MAX_NOTES + 50) - MAX_NOTES:,} more notes are not kept"
    assert file.notes[-1] == Note(None, "more-notes", more)
    assert [rule.position for rule in file.rules] == [MAX_NOTES + 50]


def test_every_note_code_is_explained() -> None:
    assert set(NOTE_CODES) >= {
        "past-limit",
        "bom",
        "non-utf8",
        "not-json",
        "not-array",
        "not-object",
        "no-location",
        "empty-location",
        "not-a-path",
        "bad-reservation",
        "bad-policy",
        "duplicate-key",
        "unknown-key",
        "more-notes",
    }


# -- the size bound (T-2) -------------------------------------------------------------


def padded(size: int) -> bytes:
    """A file of exactly ``size`` bytes that reserves everything."""
    body = EVERYTHING[:-1] + b" " * (size - len(EVERYTHING)) + b"]"
    assert len(body) == size
    return body


def test_the_bound_is_robots_txts() -> None:
    assert MAX_BYTES == 500 * 1024
    file = TdmFile.parse(padded(MAX_BYTES))
    assert file.whole
    assert len(file.rules) == 1


def test_a_file_past_the_bound_is_not_read_and_not_known() -> None:
    file = TdmFile.parse(padded(MAX_BYTES + 1))
    assert not file.whole
    assert file.rules == ()
    assert file.notes == (
        Note(
            None,
            "past-limit",
            f"the file ({MAX_BYTES + 1:,} bytes) is larger than {MAX_BYTES:,} bytes: "
            "not read, not known",
        ),
    )
    statement = file.statement(ORIGIN + "/")
    assert statement == Statement(Source("file"), errors=("not read whole: not known",))
    assert str(statement) == "tdmrep.json: unset (not read whole: not known)"
    assert file.value(ORIGIN + "/").reservation is None


@pytest.mark.parametrize(
    ("size", "max_bytes", "truncated", "whole"),
    [
        (100, 100, False, True),
        (101, 100, False, False),
        (100, 100, True, False),
        (MAX_BYTES + 10, None, False, True),
        (60, None, True, False),
        (60, 0, False, False),
    ],
)
def test_max_bytes_and_truncated(
    size: int, max_bytes: int | None, truncated: bool, whole: bool
) -> None:
    file = TdmFile.parse(padded(size), max_bytes=max_bytes, truncated=truncated)
    assert file.whole is whole
    assert len(file.rules) == (1 if whole else 0)


@pytest.mark.parametrize(
    ("kwargs", "error"),
    [
        ({"max_bytes": -1}, ValueError),
        ({"max_bytes": "100"}, TypeError),
        ({"max_bytes": True}, TypeError),
        ({"max_bytes": 1.5}, TypeError),
    ],
)
def test_wrong_arguments(kwargs: dict[str, object], error: type[Exception]) -> None:
    with pytest.raises(error, match="max_bytes"):
        TdmFile.parse(b"[]", **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize("body", [None, 1, ["/"], {"location": "/"}])
def test_a_body_of_another_type(body: object) -> None:
    with pytest.raises(TypeError, match="body must be bytes or str"):
        TdmFile.parse(body)


def test_a_file_is_a_frozen_value() -> None:
    file = TdmFile.parse(THREE_GROUPS)
    assert file == TdmFile.parse(THREE_GROUPS)
    assert hash(file) == hash(TdmFile.parse(THREE_GROUPS))
    with pytest.raises(AttributeError):
        file.whole = False  # type: ignore[misc]
    assert isinstance(file.value(ORIGIN + "/"), TdmValue)
