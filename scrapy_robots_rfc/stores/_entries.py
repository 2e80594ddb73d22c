"""A cache entry as a stored record, and back (RFC 9309 §2.4: a stored
copy is one more cache of robots.txt).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..policy import MAX_RETRY_DELAY, Entry
from ._base import Record

if TYPE_CHECKING:
    from ..robotstxt import AgentRules, Token


def entry_from_record(
    record: Record,
    rules: dict[Token, AgentRules] | None,
    *,
    now: float,
    ttl: float,
    sitemaps: tuple[str, ...] = (),
) -> Entry:
    """The entry for a stored record, ``rules`` and ``sitemaps`` parsed from
    its body. Times
    are limited to what this crawler would have set, so that a machine
    whose clock runs ahead cannot hold an origin back for long."""
    return Entry(
        rules,
        good=record.good,
        expires=min(record.expires_at, now + ttl),
        outcome=record.outcome,
        unreachable_since=record.unreachable_since,
        failures=record.failures,
        retry_at=min(record.retry_at, now + MAX_RETRY_DELAY),
        url=record.url,
        detail=record.outcome,
        sitemap_lines="\n".join(sitemaps),
        status=record.status,
    )


def record_for(
    entry: Entry, *, body: bytes | None, status: int | None, old: Record | None, now: float
) -> Record | None:
    """The record for what a fetch found (``body`` and ``status`` of its
    last response), or ``None`` when it cannot be stored faithfully: a
    failed fetch whose good copy (kept in memory as parsed rules only) is
    not in the store either; saving it without its body would read back as
    "allow all". A refusal by a local middleware is no answer of the
    server's, so it is not stored either."""
    if entry.refused:
        return None
    if entry.unreachable_since is not None:
        # A failed fetch: the good copy, if any, is the stored one.
        body = old.body if old is not None and old.good else None
        if entry.good and entry.rules is not None and body is None:
            return None
        fetched_at = old.fetched_at if old is not None else now
    else:
        fetched_at = now
    return Record(
        good=entry.good,
        body=body,
        status=status,
        outcome=entry.outcome,
        fetched_at=fetched_at,
        expires_at=entry.expires,
        url=entry.url,
        unreachable_since=entry.unreachable_since,
        failures=entry.failures,
        retry_at=entry.retry_at,
    )
