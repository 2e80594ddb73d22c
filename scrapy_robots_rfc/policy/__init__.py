"""What a robots.txt fetch means and for how long, pure and sans-I/O: the
status policy, lifetimes and backoff of RFC 9309 §2.3.1 and §2.4, the cache
entries, origins (§2.3: one robots.txt per scheme, host and port), the
per-origin documents and their targets (:class:`Target`: an origin's
robots.txt), verdicts, where an origin stands for a request
(:func:`standing`), and the life of an undecided document as a state
machine (:class:`OriginLife`; its events, actions and transition table are
in :mod:`life`, its waiters in :class:`Waiters`). Imports only
:mod:`..robotstxt`; never Scrapy, Twisted or a store; time is always passed
in.
"""

from __future__ import annotations

from . import _origin_life as life
from ._document import (
    DOCUMENTS,
    ROBOTS_TXT,
    TDMREP_JSON,
    Document,
    Target,
    document_titled,
    target_named,
)
from ._origin import Origin, Origins, origin
from ._origin_life import OriginLife, Phase
from ._policy import (
    DEFAULT_TTL,
    ITEM_BYTES,
    MAX_RETRY_DELAY,
    Answer,
    Entry,
    LruCache,
    Redirects,
    State,
    charge,
    classify,
    entry_for,
    lifetime,
    retry_after,
)
from ._standing import Standing, standing
from ._tdm_entry import TdmEntry, tdm_charge, tdm_entry_for, tdm_settled
from ._verdict import Verdict
from ._waiters import Kind, Waiter, Waiters

__all__ = [
    "DEFAULT_TTL",
    "DOCUMENTS",
    "ITEM_BYTES",
    "MAX_RETRY_DELAY",
    "ROBOTS_TXT",
    "TDMREP_JSON",
    "Answer",
    "Document",
    "Entry",
    "Kind",
    "LruCache",
    "Origin",
    "OriginLife",
    "Origins",
    "Phase",
    "Redirects",
    "Standing",
    "State",
    "Target",
    "TdmEntry",
    "Verdict",
    "Waiter",
    "Waiters",
    "charge",
    "classify",
    "document_titled",
    "entry_for",
    "life",
    "lifetime",
    "origin",
    "retry_after",
    "standing",
    "target_named",
    "tdm_charge",
    "tdm_entry_for",
    "tdm_settled",
]
