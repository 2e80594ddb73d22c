"""What every part that logs shares: the loggers' parent, whether a record
would reach anyone, and how a duration reads in a log line.

The Scrapy-facing layer and the stores log; the pure layers (``robotstxt``,
``policy``) never do.
"""

from __future__ import annotations

import logging

#: Every module logs under its own name (``logging.getLogger(__name__)``), as
#: Scrapy's do, all below this one: a project sets one level for all of it
#: (docs/reference.rst, "Log lines").
LOGGER_NAME = "scrapy_robots_rfc"


def reaches_a_handler(start: logging.Logger, level: int) -> bool:
    """Whether ``start`` logs at ``level`` and the record would meet a
    filter or a handler that takes it. Scrapy leaves the loggers' level
    unset and gives ``LOG_LEVEL`` to its handler, so ``isEnabledFor(DEBUG)``
    is true whatever ``LOG_LEVEL`` is: without this, every forbidden request
    would work out its verdict and build a log record that nobody takes."""
    if not start.isEnabledFor(level):
        return False
    current: logging.Logger | None = start
    while current is not None:
        if current.filters:
            return True
        # A loop, not any() over a generator: this runs for every request
        # a verdict forbids, and a generator costs a call per handler.
        for handler in current.handlers:
            if handler.level <= level:
                return True
        if not current.propagate:
            return False
        current = current.parent
    return False  # logging.lastResort takes WARNING and above only


def duration(seconds: float) -> str:
    """``seconds`` for a log line: tenths below 10 s, whole seconds above
    ("0.3", "2.5", "30", "600")."""
    seconds = max(0.0, seconds)
    return f"{round(seconds, 1):g}" if seconds < 10 else f"{round(seconds):d}"
