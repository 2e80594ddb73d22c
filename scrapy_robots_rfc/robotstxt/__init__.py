"""robots.txt itself, pure: bytes in, groups and rules out, and what they
decide for a URL (RFC 9309 §2; Google's specification), the crawler's
product token, the usage preferences of content-usage lines and headers, and
lint. Never imports Scrapy, Twisted or another layer of this package
(``lint-imports`` checks it).

``escape_pattern`` and ``pattern_matches`` are how one path pattern is
matched, for every document whose patterns robots.txt's matching rules
govern: allow/disallow and content-usage lines here, the locations of a
TDMRep file in :mod:`scrapy_robots_rfc.tdmrep`.

The modules are private; these names are the layer's interface.
"""

from __future__ import annotations

from ._build import COMPILED, build
from ._canonical import MODES, Mode, canonical_match_string, escape_pattern
from ._lint import CODES, FileNote, HtmlPage, file_notes, html_page, lint, looks_like_html
from ._matcher import ROBOTS_TXT_PATH, AgentRules
from ._names import (
    GLOBAL_NAME,
    Token,
    ascii_lower,
    caller_name,
    crawler_name,
    crawler_names,
    name_problem,
    product_token,
)
from ._parser import MAX_BYTES, Explanation, Name, RobotsTxt, cut_at_limit
from ._patterns import CrawlDelay, Rule, pattern_matches
from ._usage import (
    CATEGORIES,
    HEADERS,
    LABELS,
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
    "CATEGORIES",
    "CODES",
    "COMPILED",
    "GLOBAL_NAME",
    "HEADERS",
    "LABELS",
    "MAX_BYTES",
    "MODES",
    "NO_PREFERENCES",
    "ROBOTS_TXT_PATH",
    "USAGE_META_KEY",
    "AgentRules",
    "CrawlDelay",
    "Explanation",
    "FileNote",
    "HtmlPage",
    "Mode",
    "Name",
    "Preferences",
    "RobotsTxt",
    "Rule",
    "Source",
    "Token",
    "ascii_lower",
    "build",
    "caller_name",
    "canonical_match_string",
    "crawler_name",
    "crawler_names",
    "cut_at_limit",
    "escape_pattern",
    "file_notes",
    "header_preferences",
    "header_source",
    "html_page",
    "lint",
    "looks_like_html",
    "name_problem",
    "parse_statement",
    "pattern_matches",
    "product_token",
    "robots_preferences",
]
