"""What adopters of TDMRep publish, read end to end: the file, then the
response's header, then its head (T-1 to T-3).

Where these come from: the protocol's list of adopters (the "TDMRep
Adopters" page of the W3C TDM Reservation Protocol's repository) says which technique
each publisher uses (a ``tdmrep.json`` "with a policy"; "http headers +
html metadata"; "html metadata"), and the spec's sections "TDM File on the
Origin Server", "TDM Header Field in HTTP Responses" and "TDM Metadata in
HTML Content" show each technique's form. The fixtures below are written by
hand from those two: one per technique, on the domains the list names. They
are not copies of the publishers' live files, which this project's machines
cannot fetch; the paths and the policy URLs are placeholders of the form
the spec's examples use.
"""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urljoin

import pytest

from scrapy_robots_rfc.pagerules import html_head, meta_tags
from scrapy_robots_rfc.tdmrep import (
    UNSET,
    Source,
    TdmFile,
    TdmValue,
    header_statement,
    meta_statement,
)


@dataclass(frozen=True)
class Site:
    """One adopter's technique: its ``tdmrep.json`` (``None``: it has none,
    the origin answers 404), the header fields and the page head of one of
    its responses."""

    name: str
    url: str
    file: bytes | None = None
    reservation_header: tuple[bytes, ...] = ()
    policy_header: tuple[bytes, ...] = ()
    html: bytes | None = None


def read(site: Site) -> TdmValue:
    """The site's value for its URL, as a crawl reads it."""
    value = UNSET if site.file is None else TdmFile.parse(site.file).value(site.url)
    value = value.superseded(header_statement(site.reservation_header, site.policy_header))
    if site.html is not None:
        value = value.superseded(meta_statement(meta_tags(html_head(site.html))))
    return value


SITES = [
    # "American Chemical Society (https://pubs.acs.org/): as tdmrep.json,
    # with a policy", as are Elsevier, Springer Nature, IEEE, Sage, the
    # Cochrane Library, Springer Publishing and Optica: the spec's first
    # example with the tdm-policy of its second.
    (
        Site(
            "a journal platform: tdmrep.json with a policy",
            "https://pubs.acs.org/doi/10.1021/example",
            file=b"""[
  {
    "location": "/",
    "tdm-reservation": 1,
    "tdm-policy": "https://pubs.acs.org/policies/tdm-policy.json"
  }
]
""",
        ),
        1,
        "https://pubs.acs.org/policies/tdm-policy.json",
        Source("file", 0, "/"),
    ),
    # "Radio France (https://www.radiofrance.fr/): as tdmrep.json, with a
    # policy", as are Sud Ouest, Le Parisien and France Bleu; written
    # compactly, on one line, as a generated file is.
    (
        Site(
            "a broadcaster: tdmrep.json on one line",
            "https://www.radiofrance.fr/franceinter/podcasts/example",
            file=b'[{"location":"/","tdm-reservation":1,'
            b'"tdm-policy":"https://www.radiofrance.fr/tdm-policy.json"}]',
        ),
        1,
        "https://www.radiofrance.fr/tdm-policy.json",
        Source("file", 0, "/"),
    ),
    # "American Psychological Association (https://psycnet.apa.org, ...):
    # as http headers + html metadata, with a policy", as are Cairn Info
    # and Elsevier; no tdmrep.json (a 404: no file statement).
    (
        Site(
            "a database: header fields and meta tags",
            "https://psycnet.apa.org/record/example",
            reservation_header=(b"1",),
            policy_header=(b"https://psycnet.apa.org/tdm-policy.json",),
            html=b"""<!DOCTYPE html>
<html lang="en"><head>
<meta charset="utf-8">
<meta name="tdm-reservation" content="1">
<meta name="tdm-policy" content="https://psycnet.apa.org/tdm-policy.json">
<title>Record</title>
</head><body><p>Abstract...</p></body></html>
""",
        ),
        1,
        "https://psycnet.apa.org/tdm-policy.json",
        Source("meta"),
    ),
    # "Ouest France (https://www.ouest-france.fr/): as html metadata, with a
    # policy", as are Les Echos, Le Télégramme, Midi Libre and the Journal de
    # la Haute Marne: a news page's head, among its other tags.
    (
        Site(
            "a newspaper: meta tags only",
            "https://www.ouest-france.fr/bretagne/example.html",
            html=b"""<!doctype html><html lang="fr"><head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="max-image-preview:large">
<meta property="og:title" content="Un article">
<meta name="tdm-reservation" content="1">
<meta name="tdm-policy" content="https://www.ouest-france.fr/tdm-policy.json">
<script>var x = "<body>";</script>
<title>Un article</title>
</head><body><article>...</article></body></html>
""",
        ),
        1,
        "https://www.ouest-france.fr/tdm-policy.json",
        Source("meta"),
    ),
    # "Elsevier (https://www.elsevier.com/): as tdmrep.json, http headers +
    # html metadata, with a policy": all three, saying the same thing; the
    # last source read decides.
    (
        Site(
            "a publisher: all three techniques",
            "https://www.elsevier.com/about/example",
            file=b'[{"location": "/", "tdm-reservation": 1,'
            b' "tdm-policy": "https://www.elsevier.com/tdm/tdmrep-policy.json"}]',
            reservation_header=(b"1",),
            policy_header=(b"https://www.elsevier.com/tdm/tdmrep-policy.json",),
            html=b'<html><head><meta name="tdm-reservation" content="1">'
            b'<meta name="tdm-policy" content="https://www.elsevier.com/tdm/tdmrep-policy.json">'
            b"</head><body>",
        ),
        1,
        "https://www.elsevier.com/tdm/tdmrep-policy.json",
        Source("meta"),
    ),
]


@pytest.mark.parametrize(
    ("site", "reservation", "policy", "source"),
    SITES,
    ids=[site.name for site, *_ in SITES],
)
def test_an_adopter(site: Site, reservation: int, policy: str, source: Source) -> None:
    value = read(site)
    assert (value.reservation, value.policy, value.source) == (reservation, policy, source)
    assert value.errors == ()
    if site.file is not None:
        file = TdmFile.parse(site.file)
        assert file.notes == ()
        # The file alone decides before download: reserved everywhere.
        assert file.value(site.url).reserved
        assert file.value(urljoin(site.url, "/")).reserved


def test_a_page_the_file_leaves_unset_reserved_by_its_head() -> None:
    """A site that frees its open-access section in the file and reserves
    one page of it by its own meta tag: the page's tag decides."""
    file = TdmFile.parse(
        b'[{"location": "/open-access/", "tdm-reservation": 0},'
        b' {"location": "/", "tdm-reservation": 1}]'
    )
    url = "https://publisher.example/open-access/article-1.html"
    before = file.value(url)
    assert (before.reservation, before.source) == (0, Source("file", 0, "/open-access/"))
    head = b'<head><meta name="tdm-reservation" content="1"></head>'
    after = before.superseded(header_statement([])).superseded(
        meta_statement(meta_tags(html_head(head)))
    )
    assert (after.reservation, after.source) == (1, Source("meta"))
