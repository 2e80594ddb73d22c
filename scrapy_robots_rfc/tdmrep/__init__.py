"""The W3C TDM Reservation Protocol (TDMRep), pure: whether a URL's
rightsholder reserves its text-and-data-mining rights ("opt-out", Article 4
of Directive (EU) 2019/790), and the TDM policy that says how to license
them (W3C TDM Reservation Protocol, Community Group final report, May 2024;
T-1 to T-5 in docs/decisions.md).

Three sources, each superseding the one before:

* the file ``/.well-known/tdmrep.json`` of the URL's origin:
  :meth:`TdmFile.parse` reads it, :meth:`TdmFile.statement` gives what its
  first matching rule says of a URL (its ``location`` matched with
  robots.txt's ``*``, ``$`` and percent-encoding, by
  ``scrapy_robots_rfc.robotstxt``'s code);
* the response's ``tdm-reservation`` and ``tdm-policy`` header fields:
  :func:`header_statement`;
* the ``<meta name="tdm-reservation">`` and ``<meta name="tdm-policy">``
  tags of an HTML document's head: :func:`meta_statement`, given the tags
  :func:`scrapy_robots_rfc.pagerules.meta_tags` reads.

:class:`TdmValue` adds them up, a new value at each step:

>>> from scrapy_robots_rfc.tdmrep import TdmFile, header_statement
>>> file = TdmFile.parse(b'[{"location": "/", "tdm-reservation": 0}]')
>>> value = file.value("https://e.com/a").superseded(header_statement([b"1"]))
>>> value.reserved, str(value.source)
(True, 'HTTP header')

Imports only ``scrapy_robots_rfc.robotstxt`` and the standard library;
never Scrapy, Twisted, redis-py or an HTML parser (``lint-imports`` checks
it). EPUB and PDF metadata are not read (T-5). The modules are private;
these names are the package's interface.
"""

from __future__ import annotations

from ._file import LOCATION, MAX_NOTES, NOTE_CODES, TDMREP_PATH, Note, TdmFile, TdmRule
from ._values import (
    KINDS,
    TDM_META_KEY,
    TDM_POLICY,
    TDM_RESERVATION,
    UNSET,
    Kind,
    Reservation,
    Source,
    Statement,
    TdmValue,
    header_statement,
    meta_statement,
)

__all__ = [
    "KINDS",
    "LOCATION",
    "MAX_NOTES",
    "NOTE_CODES",
    "TDMREP_PATH",
    "TDM_META_KEY",
    "TDM_POLICY",
    "TDM_RESERVATION",
    "UNSET",
    "Kind",
    "Note",
    "Reservation",
    "Source",
    "Statement",
    "TdmFile",
    "TdmRule",
    "TdmValue",
    "header_statement",
    "meta_statement",
]
