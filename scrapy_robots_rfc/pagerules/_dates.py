"""The date of ``unavailable_after`` (P-3).

Google's robots meta tag documentation asks for "a widely adopted format
such as RFC 822, RFC 850, or ISO 8601", and its own examples write
``25 Jun 2010 15:00:00 PST``. So a date is read as ISO 8601 first
(``2010-06-25``, ``2010-06-25T15:00:00Z``), then as an RFC 822 date,
which the standard library's e-mail parser reads with RFC 850's and
asctime's forms too (``Friday, 25-Jun-10 15:00:00 GMT``). A date that
names no zone is UTC. A text that reads as neither is no date: the
directive is kept, and the page has no ``unavailable_after``.
"""

from __future__ import annotations

from datetime import UTC, datetime
from email.utils import parsedate_to_datetime


def parse_date(text: str) -> datetime | None:
    """``text`` as a timezone-aware datetime, or ``None`` when it reads as
    no date. Never raises on content.

    >>> parse_date("25 Jun 2010 15:00:00 PST").isoformat()
    '2010-06-25T15:00:00-08:00'
    >>> parse_date("2010-06-25").isoformat()
    '2010-06-25T00:00:00+00:00'
    >>> parse_date("next Tuesday") is None
    True
    """
    text = text.strip()
    if not text:
        return None
    try:
        date = datetime.fromisoformat(text)
    except ValueError:
        try:
            date = parsedate_to_datetime(text)
        # The e-mail parser raises ValueError on most texts that are no
        # date, and other errors on some: none of them is the caller's.
        except (ValueError, TypeError, OverflowError, IndexError):
            return None
    return date if date.tzinfo is not None else date.replace(tzinfo=UTC)
