"""Kept for ``from scrapy_robots_rfc.usage import header_preferences`` (docs/usage.rst,
"Usage preferences"): the usage preferences of RFC 9309's "other records"
(draft-ietf-aipref-attach-05), from :mod:`.robotstxt`. Never imports Scrapy."""

from __future__ import annotations

from .robotstxt import (
    NO_PREFERENCES,
    USAGE_META_KEY,
    Preferences,
    Source,
    header_preferences,
    header_source,
    parse_statement,
    robots_preferences,
)

__all__ = [
    "NO_PREFERENCES",
    "USAGE_META_KEY",
    "Preferences",
    "Source",
    "header_preferences",
    "header_source",
    "parse_statement",
    "robots_preferences",
]
