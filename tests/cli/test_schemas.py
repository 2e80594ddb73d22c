"""The JSON Schemas the package ships (scrapy_robots_rfc/schemas/): each is
a valid draft 2020-12 schema named by the ``schema`` member of its output,
the pieces they share are the same in each, and their enums are the
package's own vocabularies. The outputs themselves are validated where
they are made: test_cli.py (check, lint), test_command.py (scrapy robots),
test_report.py (the report)."""

from __future__ import annotations

import copy
from importlib import resources
from typing import Any

import jsonschema
import pytest

from scrapy_robots_rfc import schemas
from scrapy_robots_rfc.policy._policy import State
from scrapy_robots_rfc.robotstxt._lint import CODES
from scrapy_robots_rfc.robotstxt._usage import CATEGORIES

from ..jsonschemas import valid, validator


@pytest.mark.parametrize("name", list(schemas.IDS))
def test_each_schema_is_valid_and_names_its_output(name: str) -> None:
    schema = schemas.load(name)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["properties"]["schema"] == {"const": schemas.IDS[name]}
    assert schemas.IDS[name] == f"scrapy_robots_rfc/{name}/1"


def test_the_folder_holds_one_file_per_schema_and_nothing_else() -> None:
    folder = resources.files(schemas)
    files = {entry.name for entry in folder.iterdir() if entry.name.endswith(".json")}
    assert files == {f"{name}.json" for name in schemas.IDS}


def test_an_unknown_name_is_refused() -> None:
    with pytest.raises(ValueError, match="no schema named 'checks': the schemas are check, "):
        schemas.load("checks")


def _shared() -> dict[str, list[tuple[str, Any]]]:
    """Each ``$defs`` name -> (schema, definition) for every schema with it."""
    found: dict[str, list[tuple[str, Any]]] = {}
    for name in schemas.IDS:
        for key, definition in schemas.load(name).get("$defs", {}).items():
            found.setdefault(key, []).append((name, definition))
    return found


def test_a_shared_piece_is_the_same_in_every_schema_that_has_it() -> None:
    """Each file is whole on its own; what two outputs share must not drift."""
    shared = _shared()
    assert {
        key: [name for name, _ in where] for key, where in shared.items() if len(where) > 1
    } == {
        "mode": ["check", "lint", "robots"],
        "robots": ["check", "robots", "report"],
        "rule": ["check", "robots"],
        "verdict": ["check", "robots"],
        "user_agent": ["check", "robots"],
        "usage": ["check", "robots"],
        "preference": ["check", "robots"],
        "count": ["robots", "report"],
        "page": ["check", "robots"],
        "crawl_delay_from": ["check", "robots"],
        "tdm": ["check", "robots"],
    }
    for where in shared.values():
        assert all(definition == where[0][1] for _, definition in where)


def test_the_enums_are_the_package_vocabularies() -> None:
    defs = _shared()
    robots = defs["robots"][0][1]
    assert robots["properties"]["state"]["enum"] == [*(s.value for s in State), None]
    assert list(defs["usage"][0][1]["properties"]) == list(CATEGORIES)
    assert schemas.load("lint")["properties"]["code"]["enum"] == list(CODES)
    totals = schemas.load("report")["$defs"]["totals"]
    assert totals["properties"]["states"]["propertyNames"]["enum"] == [
        *(s.value for s in State),
        "undecided",
    ]


def test_robots_object_is_what_the_schemas_describe() -> None:
    fetch = schemas.robots_object(
        url="https://a.test/robots.txt",
        source="https://b.test/robots.txt",
        status=200,
        state=State.RULES,
        outcome="200",
    )
    definition = _shared()["robots"][0][1]
    assert list(fetch) == definition["required"]
    jsonschema.validate(fetch, definition)
    undecided = schemas.robots_object(url=None, source=None, status=None, state=None, outcome="")
    assert undecided == dict.fromkeys(definition["required"])


#: One line of ``check --json`` as it is printed.
CHECK_LINE = {
    "schema": "scrapy_robots_rfc/check/1",
    "url": "https://a.test/private/x",
    "mode": "rfc",
    "user_agent": {"names": ["BadBot"], "given": "BadBot/1.0", "from": "--user-agent"},
    "robots": {
        "url": "https://a.test/robots.txt",
        "source": "https://a.test/robots.txt",
        "status": 200,
        "state": "rules",
        "outcome": "200",
    },
    "crawl_delay": 2.5,
    "crawl_delay_from": {"line": 3, "agents": ["*"]},
    "verdict": {
        "allowed": False,
        "rule": {"allow": False, "pattern": "/private", "line": 2},
        "group": ["*"],
        "match_string": "/private/x",
        "reason": "disallowed by \"disallow: /private (line 2)\" in the group for '*'",
        "why": "...",
    },
    "usage": {c: {"value": "unknown", "sources": []} for c in CATEGORIES},
}


def _changed(path: tuple[str, ...], value: Any) -> dict[str, Any]:
    record = copy.deepcopy(CHECK_LINE)
    where = record
    for key in path[:-1]:
        where = where[key]
    if value is KeyError:
        del where[path[-1]]
    else:
        where[path[-1]] = value
    return record


@pytest.mark.parametrize(
    ("path", "value"),
    [
        pytest.param(("schema",), "scrapy_robots_rfc/check/0", id="another-version"),
        pytest.param(("robots", "kind"), "rules", id="an-old-key"),
        pytest.param(("robots", "state"), "allow-all", id="not-a-state"),
        pytest.param(("robots", "status"), "200", id="status-as-text"),
        pytest.param(("verdict", "allowed"), KeyError, id="no-allowed"),
        pytest.param(("verdict", "rule", "line"), 0, id="line-0"),
        pytest.param(("user_agent", "names"), [], id="no-name"),
        pytest.param(("usage", "search"), KeyError, id="a-category-missing"),
        pytest.param(("mode",), "strict", id="not-a-mode"),
        pytest.param(("crawl_delay",), -1, id="negative-delay"),
        pytest.param(("crawl_delay_from", "line"), 0, id="delay-line-0"),
        pytest.param(("crawl_delay_from", "agents"), KeyError, id="delay-without-agents"),
    ],
)
def test_the_check_schema_refuses_what_check_never_prints(
    path: tuple[str, ...], value: Any
) -> None:
    """The schemas can fail: each change of a valid line makes it invalid."""
    valid("check", CHECK_LINE)
    with pytest.raises(jsonschema.ValidationError):
        validator("check").validate(_changed(path, value))


@pytest.mark.parametrize("status", [42, 1000, 200])
def test_a_status_is_any_integer_a_status_line_carries(status: int) -> None:
    """Twisted takes ``HTTP/1.1 1000 X`` and ``HTTP/1.1 42 X``: the status
    is what the server sent, and the line stays valid."""
    assert valid("check", _changed(("robots", "status"), status))


def test_the_robots_schema_wants_a_verdict_or_an_error() -> None:
    alone = {
        "schema": schemas.ROBOTS,
        "url": "https://a.test/x",
        "verdict": None,
        "error": "scrapy_robots_rfc's middleware is not enabled in this crawl",
        "notes": [],
        "exit_status": 2,
    }
    valid("robots", alone)
    for wrong in ({"error": None}, {"verdict": CHECK_LINE["verdict"]}):
        with pytest.raises(jsonschema.ValidationError):
            validator("robots").validate({**alone, **wrong})
    # With the middleware, every member is there.
    with pytest.raises(jsonschema.ValidationError, match="'mode' is a required property"):
        validator("robots").validate({**alone, "robots": CHECK_LINE["robots"]})


def test_the_report_schema_takes_an_origin_row_or_the_totals() -> None:
    counts = {
        "fetches": 1,
        "redirects": 0,
        "forbidden": 2,
        "waited": 3,
        "dropped": 0,
        "usage_forbidden": 0,
        "usage_dropped": 0,
        "usage_categories": None,
        "page_nofollow": 0,
        "page_noindex": 1,
        "tdm": "file (3 rules)",
        "tdm_fetches": 1,
        "tdm_reserved": 2,
        "tdm_pages_reserved": 1,
        "tdm_items_dropped": 1,
    }
    row = {
        "schema": schemas.REPORT,
        "origin": "https://a.test",
        "robots": CHECK_LINE["robots"],
        **counts,
        "crawl_delay_applied": None,
    }
    totals = {"schema": schemas.REPORT, "origin": None, "origins": 4, "states": {"rules": 4}}
    valid("report", row)
    valid("report", {**totals, **counts})
    for wrong in (
        {**row, "origin": None},
        {**totals, **counts, "states": {"kind": 1}},
        {**row, "usage_categories": {"train-genai": 1}},
    ):
        with pytest.raises(jsonschema.ValidationError):
            validator("report").validate(wrong)
