"""Per-origin documents and their targets (:mod:`.policy._document`): the
key of every per-origin structure of the crawl layer, so that a second
document (the TDMRep file, issue 44) goes through the same life, store and
lease as robots.txt without a copy of any of them."""

from __future__ import annotations

import pytest

from scrapy_robots_rfc.policy import ROBOTS_TXT, Document, Origin, Target, target_named

ORIGIN = Origin("https", "example.com", 443)
#: A second document, as issue 44 adds one: its records are named by its URL.
TDMREP = Document("TDMRep", "/.well-known/tdmrep.json", suffix="/.well-known/tdmrep.json")


def test_robots_txt_is_named_by_its_origin_alone() -> None:
    """A store shared with 0.1's crawlers names a record by its origin."""
    target = Target(ORIGIN, ROBOTS_TXT)
    assert (target.url, target.name, str(target)) == (
        "https://example.com/robots.txt",
        "https://example.com",
        "https://example.com",
    )
    assert target_named(target.name) == target


def test_another_document_is_another_target_of_the_same_origin() -> None:
    robots, tdmrep = Target(ORIGIN, ROBOTS_TXT), Target(ORIGIN, TDMREP)
    assert robots != tdmrep
    assert len({robots, tdmrep}) == 2, "two keys of every per-origin structure"
    assert tdmrep.url == tdmrep.name == "https://example.com/.well-known/tdmrep.json"


def test_documents_are_singletons() -> None:
    same = Document("robots.txt", "/robots.txt")
    assert same != ROBOTS_TXT, "compared by identity"
    assert Target(ORIGIN, same) != Target(ORIGIN, ROBOTS_TXT)


@pytest.mark.parametrize(
    "name",
    ["https://example.com/a", "https://example.com:443", "ftp://example.com", "", "example.com"],
)
def test_a_name_that_names_no_target_reads_as_none(name: str) -> None:
    assert target_named(name) is None


def test_a_port_and_a_host_read_back() -> None:
    target = Target(Origin("http", "127.0.0.1", 8080), ROBOTS_TXT)
    assert target_named("http://127.0.0.1:8080") == target


def test_the_tdmrep_file_reads_back_from_its_name() -> None:
    from scrapy_robots_rfc.policy import TDMREP_JSON, document_titled

    target = Target(Origin("http", "127.0.0.1", 8080), TDMREP_JSON)
    assert target.name == "http://127.0.0.1:8080/.well-known/tdmrep.json"
    assert target_named(target.name) == target
    assert target_named("http://127.0.0.1:8080") == Target(target.origin, ROBOTS_TXT)
    assert document_titled("tdmrep.json") is TDMREP_JSON
    assert document_titled(None) is ROBOTS_TXT
    assert document_titled("nothing") is ROBOTS_TXT
