"""The response's sources and how the sources add up (T-1): the header
fields and HTML meta tags of the W3C TDM Reservation Protocol (its sections
"TDM Header Field in HTTP Responses" and "TDM Metadata in HTML Content",
with their examples), and "Processing priority": each value found
supersedes the one before, absence never resets, a protocol error is a
source stating nothing, and a policy counts only beside a reservation of 1.
"""

from __future__ import annotations

import pytest

from scrapy_robots_rfc.pagerules import html_head, meta_tags
from scrapy_robots_rfc.tdmrep import (
    KINDS,
    TDM_POLICY,
    TDM_RESERVATION,
    UNSET,
    Source,
    Statement,
    TdmFile,
    TdmValue,
    header_statement,
    meta_statement,
)

POLICY = "https://provider.com/policies/policy.json"
HEADER = Source("header")
META = Source("meta")
FILE = Source("file", 0, "/")


def test_the_names() -> None:
    assert (TDM_RESERVATION, TDM_POLICY) == ("tdm-reservation", "tdm-policy")
    assert KINDS == ("file", "header", "meta")


# -- header fields --------------------------------------------------------------


def test_the_spec_header_examples() -> None:
    """Section "TDM Header Field in HTTP Responses": ``tdm-reservation: 1``
    alone, then with ``tdm-policy``."""
    assert header_statement([b"1"]) == Statement(HEADER, 1, None)
    assert header_statement([b"1"], [POLICY.encode()]) == Statement(HEADER, 1, POLICY)
    value = UNSET.superseded(header_statement([b"1"], [POLICY.encode()]))
    assert (value.reserved, value.policy, value.source, value.policy_source) == (
        True,
        POLICY,
        HEADER,
        HEADER,
    )


@pytest.mark.parametrize(
    ("lines", "reservation", "errors"),
    [
        ([], None, ()),
        ([b"0"], 0, ()),
        (["1"], 1, ()),
        ([b" 1\t"], 1, ()),
        ([b"1, 1"], 1, ()),
        ([b"1", b"1"], 1, ()),
        ([b"1,"], 1, ()),
        ([b"0,,0"], 0, ()),
        ([b"1, 0"], None, ("several tdm-reservation values ('1', '0'): a protocol error",)),
        ([b"1", b"0"], None, ("several tdm-reservation values ('1', '0'): a protocol error",)),
        ([b"yes"], None, ("tdm-reservation 'yes' is neither 0 nor 1: a protocol error",)),
        ([b"true"], None, ("tdm-reservation 'true' is neither 0 nor 1: a protocol error",)),
        ([b"01"], None, ("tdm-reservation '01' is neither 0 nor 1: a protocol error",)),
        ([b"1.0"], None, ("tdm-reservation '1.0' is neither 0 nor 1: a protocol error",)),
        ([b'"1"'], None, ("tdm-reservation '\"1\"' is neither 0 nor 1: a protocol error",)),
        ([b""], None, ("an empty tdm-reservation: a protocol error",)),
        ([b" , "], None, ("an empty tdm-reservation: a protocol error",)),
        ([b"\xff"], None, ("tdm-reservation 'ÿ' is neither 0 nor 1: a protocol error",)),
    ],
)
def test_header_reservations(
    lines: list[bytes | str], reservation: int | None, errors: tuple[str, ...]
) -> None:
    assert header_statement(lines) == Statement(HEADER, reservation, None, errors)


@pytest.mark.parametrize(
    ("lines", "policy", "errors"),
    [
        ([], None, ()),
        ([POLICY], POLICY, ()),
        ([f"  {POLICY} "], POLICY, ()),
        # A URL may hold a comma: a policy line is never split.
        (["https://e.com/p?a=1,2"], "https://e.com/p?a=1,2", ()),
        ([POLICY, POLICY], POLICY, ()),
        ([b""], None, ()),
        (
            ["https://e.com/a", "https://e.com/b"],
            None,
            ("several tdm-policy values (https://e.com/a, https://e.com/b): none is read",),
        ),
    ],
)
def test_header_policies(
    lines: list[bytes | str], policy: str | None, errors: tuple[str, ...]
) -> None:
    assert header_statement([b"1"], lines) == Statement(HEADER, 1, policy, errors)


def test_header_arguments() -> None:
    with pytest.raises(TypeError, match="not one value"):
        header_statement(b"1")
    with pytest.raises(TypeError, match="not one value"):
        header_statement([b"1"], "https://e.com/p")
    with pytest.raises(TypeError, match="bytes or str"):
        header_statement([1])  # type: ignore[list-item]
    # Any iterable of lines, a generator included.
    assert header_statement(line for line in [b"1"]).reservation == 1


# -- HTML meta ----------------------------------------------------------------------

#: Section "TDM Metadata in HTML Content", its example.
SPEC_HTML = b"""<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="utf-8">
    <meta name="tdm-reservation" content="1">
    <meta name="tdm-policy" content="https://provider.com/policies/policy.json">
    <title>Document title</title>
  </head>
  <body>
    ...
    <!-- body content -->
    ...
  </body>
</html>
"""


def test_the_spec_html_example() -> None:
    statement = meta_statement(meta_tags(html_head(SPEC_HTML)))
    assert statement == Statement(META, 1, POLICY)
    assert str(statement) == f"HTML meta: tdm-reservation 1, tdm-policy {POLICY}"


def test_only_the_head_counts() -> None:
    """pagerules reads the head's tags (P-1): a tag in the body is not the
    page's metadata."""
    html = b'<html><head><title>t</title></head><body><meta name="tdm-reservation" content="1">'
    assert meta_statement(meta_tags(html_head(html))) == Statement(META)


@pytest.mark.parametrize(
    ("tags", "reservation", "policy", "errors"),
    [
        ([], None, None, ()),
        ([("robots", "noai"), ("description", "x")], None, None, ()),
        ([("TDM-Reservation", "1")], 1, None, ()),
        ([(" tdm-reservation ", " 0 ")], 0, None, ()),
        ([("tdm-reservation", "1"), ("tdm-reservation", "1")], 1, None, ()),
        (
            [("tdm-reservation", "1"), ("tdm-reservation", "0")],
            None,
            None,
            ("several tdm-reservation values ('1', '0'): a protocol error",),
        ),
        (
            [("tdm-reservation", "")],
            None,
            None,
            ("tdm-reservation '' is neither 0 nor 1: a protocol error",),
        ),
        # A meta content is one value, not a list.
        (
            [("tdm-reservation", "1, 1")],
            None,
            None,
            ("tdm-reservation '1, 1' is neither 0 nor 1: a protocol error",),
        ),
        ([("tdm-policy", POLICY)], None, POLICY, ()),
        ([("tdm-reservation", "1"), ("TDM-POLICY", POLICY), ("tdm-policy", "")], 1, POLICY, ()),
        # The EPUB and PDF names are not HTML's (T-5).
        ([("tdm:reservation", "1"), ("tdm:policy", POLICY)], None, None, ()),
    ],
)
def test_meta_tags(
    tags: list[tuple[str, str]],
    reservation: int | None,
    policy: str | None,
    errors: tuple[str, ...],
) -> None:
    assert meta_statement(tags) == Statement(META, reservation, policy, errors)


def test_meta_arguments() -> None:
    with pytest.raises(TypeError, match="not one value"):
        meta_statement("tdm-reservation")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="pair of str"):
        meta_statement([("tdm-reservation", 1)])  # type: ignore[list-item]


# -- adding up (section "Processing priority") ----------------------------------------

F1 = Statement(FILE, 1, None)
F1P = Statement(FILE, 1, "https://e.com/file-policy")
F0 = Statement(FILE, 0, None)
H1 = Statement(HEADER, 1, None)
H1P = Statement(HEADER, 1, "https://e.com/header-policy")
H0P = Statement(HEADER, 0, "https://e.com/header-policy")
H_POLICY = Statement(HEADER, None, "https://e.com/header-policy")
H_BAD = Statement(HEADER, None, None, ("tdm-reservation '2' is neither 0 nor 1: a protocol error",))
H_NONE = Statement(HEADER)
M1 = Statement(META, 1, None)
M0 = Statement(META, 0, None)
M_BAD = Statement(META, None, None, ("bad",))


@pytest.mark.parametrize(
    ("statements", "reservation", "source", "policy", "policy_source"),
    [
        ((), None, None, None, None),
        ((F1,), 1, FILE, None, None),
        # Absence never resets.
        ((F1, H_NONE), 1, FILE, None, None),
        ((F1, H_NONE, Statement(META)), 1, FILE, None, None),
        # A protocol error is a source stating nothing (T-1).
        ((F1, H_BAD), 1, FILE, None, None),
        ((F0, H_BAD, M_BAD), 0, FILE, None, None),
        ((H_BAD,), None, None, None, None),
        # Each value found supersedes the one before.
        ((F0, H1), 1, HEADER, None, None),
        ((F1, Statement(HEADER, 0)), 0, HEADER, None, None),
        ((F1, H1, M0), 0, META, None, None),
        ((F0, H_NONE, M1), 1, META, None, None),
        ((H1, M0), 0, META, None, None),
        # The policy: superseded on its own, read only beside a reservation
        # that is not 0, shown only when the result is 1.
        ((F1P,), 1, FILE, "https://e.com/file-policy", FILE),
        ((F1P, H1), 1, HEADER, "https://e.com/file-policy", FILE),
        ((F1P, H1P), 1, HEADER, "https://e.com/header-policy", HEADER),
        ((F1, H_POLICY), 1, FILE, "https://e.com/header-policy", HEADER),
        ((F1P, H0P), 0, HEADER, None, None),
        ((F1P, H0P, M1), 1, META, "https://e.com/file-policy", FILE),
        ((F0, H_POLICY), 0, FILE, None, None),
        ((F0, H_POLICY, M1), 1, META, "https://e.com/header-policy", HEADER),
    ],
)
def test_sources_add_up(
    statements: tuple[Statement, ...],
    reservation: int | None,
    source: Source | None,
    policy: str | None,
    policy_source: Source | None,
) -> None:
    value = TdmValue(statements)
    assert (value.reservation, value.source, value.policy, value.policy_source) == (
        reservation,
        source,
        policy,
        policy_source,
    )
    assert value.reserved is (reservation == 1)
    # Step by step, a new value each time: the same result.
    stepped = UNSET
    for statement in statements:
        before = stepped
        stepped = stepped.superseded(statement)
        assert before.statements == stepped.statements[:-1]
    assert stepped == value


def test_errors_keep_their_source() -> None:
    value = TdmValue((F1, H_BAD, M_BAD))
    assert value.errors == (
        "HTTP header: tdm-reservation '2' is neither 0 nor 1: a protocol error",
        "HTML meta: bad",
    )
    assert str(value) == "reserved (tdm-reservation 1 from tdmrep.json[0] (location '/'))"


@pytest.mark.parametrize(
    ("statements", "text"),
    [
        ((), "unset (no source states a valid tdm-reservation)"),
        ((F0,), "not reserved (tdm-reservation 0 from tdmrep.json[0] (location '/'))"),
        (
            (F1P, H1),
            "reserved (tdm-reservation 1 from HTTP header), policy https://e.com/file-policy "
            "(tdmrep.json[0] (location '/'))",
        ),
        ((F1, M0), "not reserved (tdm-reservation 0 from HTML meta)"),
    ],
)
def test_a_value_in_words(statements: tuple[Statement, ...], text: str) -> None:
    assert str(TdmValue(statements)) == text


@pytest.mark.parametrize(
    "statements",
    [
        (H1, F1),
        (M1, H1),
        (F1, F0),
        (H1, H1),
        (F1, M1, H1),
    ],
)
def test_sources_come_once_each_in_order(statements: tuple[Statement, ...]) -> None:
    with pytest.raises(ValueError, match="in the order file, header, meta"):
        TdmValue(statements)
    with pytest.raises(ValueError, match="in the order file, header, meta"):
        TdmValue(statements[:-1]).superseded(statements[-1])


def test_value_arguments() -> None:
    with pytest.raises(TypeError, match="tuple"):
        TdmValue([F1])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="Statement"):
        TdmValue(((FILE, 1, None),))  # type: ignore[arg-type]


def test_a_value_is_frozen_and_compares_by_its_statements() -> None:
    value = TdmValue((F1, H1))
    with pytest.raises(AttributeError):
        value.reservation = 0  # type: ignore[misc]
    assert value == TdmValue((F1, H1))
    assert value != TdmValue((H1,))
    assert hash(value) == hash(TdmValue((F1, H1)))
    assert TdmValue() == UNSET


def test_the_whole_path_of_one_response() -> None:
    """The file before download, then the response's header and head."""
    file = TdmFile.parse(
        b'[{"location": "/a/open/", "tdm-reservation": 0},'
        b' {"location": "/a/", "tdm-reservation": 1, "tdm-policy": "https://e.com/p.json"}]'
    )
    before = file.value("https://e.com/a/open/page.html")
    assert before.reservation == 0
    html = b'<head><meta name="tdm-reservation" content="1"></head><body>...'
    after = before.superseded(header_statement([], [])).superseded(
        meta_statement(meta_tags(html_head(html)))
    )
    assert (after.reservation, after.source, after.policy) == (1, META, None)
    assert [str(statement) for statement in after.statements] == [
        "tdmrep.json[0] (location '/a/open/'): tdm-reservation 0",
        "HTTP header: nothing stated",
        "HTML meta: tdm-reservation 1",
    ]
