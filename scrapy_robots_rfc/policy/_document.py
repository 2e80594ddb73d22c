"""The per-origin documents a crawler fetches before it crawls an origin,
and the key of one origin's document: a :class:`Document` names its path
and how its copies are named in a store; a :class:`Target` is one origin's
document, what a fetch targets, and the key every per-origin structure of
the crawl layer is kept by (the undecided lives, their alarms, the store's
records and leases, a fleet's held requests), so that a second document
goes through the same life, store, lease and status policy as robots.txt,
by composition: the crawl's assembly gives each document the loader that
turns its body into a cache entry.

Two documents: robots.txt (RFC 9309 §2.3), and the TDMRep file
``/.well-known/tdmrep.json`` (W3C TDM Reservation Protocol, "TDM File on
the Origin Server"), fetched only in a crawl that mines
(``ROBOTSTXT_RFC_TDM``, T-2).

>>> from scrapy_robots_rfc.policy import Origin
>>> target = Target(Origin("https", "example.com", 443), ROBOTS_TXT)
>>> target.url
'https://example.com/robots.txt'
>>> target.name
'https://example.com'
>>> target_named("https://example.com") == target
True
>>> target_named("https://example.com/a") is None
True
>>> tdm = Target(Origin("https", "example.com", 443), TDMREP_JSON)
>>> tdm.url == tdm.name == 'https://example.com/.well-known/tdmrep.json'
True
>>> target_named(tdm.name) == tdm
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from ..robotstxt import ROBOTS_TXT_PATH
from ..tdmrep import TDMREP_PATH
from ._origin import Origin, origin


@dataclass(frozen=True, eq=False, slots=True)
class Document:
    """A document every origin may have at a fixed ``path``. Documents are
    singletons (compared and hashed by identity): :data:`ROBOTS_TXT`,
    :data:`TDMREP_JSON`."""

    #: How log lines name it.
    title: str
    #: Its path on every origin (RFC 9309 §2.3: ``/robots.txt``).
    path: str
    #: What follows the origin in the name of a target in a store and in a
    #: fleet's held set: nothing for robots.txt, whose records are named by
    #: their origin alone (the format every crawler of a store shares).
    suffix: str = ""

    def __repr__(self) -> str:
        return f"<Document {self.path}>"


#: RFC 9309 §2.3: the robots.txt file at the root of every origin.
ROBOTS_TXT = Document("robots.txt", ROBOTS_TXT_PATH)

#: The TDMRep file (W3C TDM Reservation Protocol, "TDM File on the Origin
#: Server"): its records and held requests are named by its URL, apart
#: from robots.txt's.
TDMREP_JSON = Document("tdmrep.json", TDMREP_PATH, suffix=TDMREP_PATH)

#: Every document, the longest suffix first (:func:`target_named`).
DOCUMENTS: tuple[Document, ...] = (TDMREP_JSON, ROBOTS_TXT)


class Target(NamedTuple):
    """One origin's document, what a fetch targets: the key of what the
    crawl keeps for it while it is undecided."""

    origin: Origin
    document: Document

    @property
    def url(self) -> str:
        """Where the document is fetched from."""
        return f"{self.origin}{self.document.path}"

    @property
    def name(self) -> str:
        """The target's name in a store and in a fleet's held set: the
        origin's, followed by the document's suffix."""
        return f"{self.origin}{self.document.suffix}"

    def __str__(self) -> str:
        return self.name


def target_named(name: str) -> Target | None:
    """The target a store or a fleet names ``name`` (:attr:`Target.name`);
    ``None`` for a name that is none."""
    for document in DOCUMENTS:
        suffix = document.suffix
        if name.endswith(suffix):
            found = origin(name[: len(name) - len(suffix)] + "/")
            target = None if found is None else Target(found, document)
            if target is not None and target.name == name:
                return target
    return None


def document_titled(title: str | None) -> Document:
    """The document whose :attr:`Document.title` is ``title`` (as a
    request's ticket names it); robots.txt for ``None`` or a title that is
    none."""
    for document in DOCUMENTS:
        if document.title == title:
            return document
    return ROBOTS_TXT
