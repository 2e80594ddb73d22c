"""scrapy_robots_rfc: robots.txt for Scrapy as RFC 9309 and Google's
specification define it.

``RobotsTxt`` is a pure parser and matcher: importing this package or it
never imports Scrapy. The Scrapy-facing names (``RobotsTxtMiddleware``,
``Addon``, ``RobotParser`` and the exceptions) are imported on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .robotstxt import (
    USAGE_META_KEY,
    AgentRules,
    Explanation,
    Preferences,
    RobotsTxt,
    Rule,
    build,
    product_token,
)

if TYPE_CHECKING:
    from .crawl.addon import Addon
    from .crawl.middleware import RobotsTxtMiddleware, page_rules, usage_preferences
    from .crawl.page_rules import PageRulesMiddleware
    from .crawl.robotparser import RobotParser
    from .crawl.tdm import TdmReservationMiddleware
    from .exceptions import (
        ConfigError,
        ForbiddenByRobotsTxt,
        ForbiddenByUsagePreference,
        RobotsTxtUnreachable,
        TdmReserved,
        TdmUnknown,
    )

__version__ = "0.1.0"

_LAZY = {
    "Addon": "crawl.addon",
    "ConfigError": "exceptions",
    "ForbiddenByRobotsTxt": "exceptions",
    "ForbiddenByUsagePreference": "exceptions",
    "RobotsTxtUnreachable": "exceptions",
    "TdmReserved": "exceptions",
    "TdmUnknown": "exceptions",
    "TdmReservationMiddleware": "crawl.tdm",
    "PageRulesMiddleware": "crawl.page_rules",
    "RobotParser": "crawl.robotparser",
    "RobotsTxtMiddleware": "crawl.middleware",
    "page_rules": "crawl.middleware",
    "usage_preferences": "crawl.middleware",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


__all__ = [
    "USAGE_META_KEY",
    "Addon",
    "AgentRules",
    "ConfigError",
    "Explanation",
    "ForbiddenByRobotsTxt",
    "ForbiddenByUsagePreference",
    "PageRulesMiddleware",
    "Preferences",
    "RobotParser",
    "RobotsTxt",
    "RobotsTxtMiddleware",
    "RobotsTxtUnreachable",
    "Rule",
    "TdmReservationMiddleware",
    "TdmReserved",
    "TdmUnknown",
    "__version__",
    "build",
    "page_rules",
    "product_token",
    "usage_preferences",
]
