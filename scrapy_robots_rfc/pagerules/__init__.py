"""Page-level rules, pure: what a response's ``X-Robots-Tag`` headers and
the robots meta tags of its head say to this crawler (P-1..P-3; Google's
robots meta tag and ``X-Robots-Tag`` documentation). Imports only
:mod:`..robotstxt` (the crawler's name, D-21) and parsel, the HTML parser
Scrapy ships; never Scrapy, Twisted or redis-py (``lint-imports`` checks
it).

>>> from scrapy_robots_rfc.pagerules import read_page_rules
>>> rules = read_page_rules([b"noindex"], b'<meta name="BadBot" content="nofollow">', ["BadBot"])
>>> rules.noindex, rules.nofollow
(True, True)

The modules are private; these names are the package's interface.
"""

from __future__ import annotations

from ._dates import parse_date
from ._html import HEAD_LIMIT, head_end, html_head, meta_tags
from ._read import read_page_rules
from ._rules import (
    EVERY_CRAWLER,
    NO_PAGE_RULES,
    PAGE_RULES_META_KEY,
    RESTRICTIONS,
    Directive,
    PageRules,
    Source,
)

__all__ = [
    "EVERY_CRAWLER",
    "HEAD_LIMIT",
    "NO_PAGE_RULES",
    "PAGE_RULES_META_KEY",
    "RESTRICTIONS",
    "Directive",
    "PageRules",
    "Source",
    "head_end",
    "html_head",
    "meta_tags",
    "parse_date",
    "read_page_rules",
]
