"""Ready-made Spidermon monitors of robots.txt health (docs/monitors.rst),
for the optional extra ``monitoring`` (``pip install
scrapy-robots-rfc[monitoring]``).

Two suites, each enabled with one Spidermon setting::

    SPIDERMON_SPIDER_CLOSE_MONITORS = ["scrapy_robots_rfc.monitors.CloseMonitorSuite"]
    SPIDERMON_PERIODIC_MONITORS = {"scrapy_robots_rfc.monitors.PeriodicMonitorSuite": 300}

The monitors read the ``robotstxt/*`` stats, and at close the middleware's
public :attr:`~scrapy_robots_rfc.RobotsTxtMiddleware.waiting_requests`;
their thresholds are the ``ROBOTSTXT_RFC_MONITOR_*`` settings. Nothing else
in the package imports this one: Spidermon stays optional.
"""

from __future__ import annotations

try:
    import spidermon  # noqa: F401
except ImportError as exc:  # the extra is optional
    raise ImportError(
        "scrapy_robots_rfc.monitors needs Spidermon: pip install scrapy-robots-rfc[monitoring]"
    ) from exc

from ._monitors import (
    FetchesPerOriginMonitor,
    StoreErrorsMonitor,
    TdmUnknownDroppedMonitor,
    UnreachableDroppedMonitor,
    UnreachableOriginsMonitor,
    WaitingAtCloseMonitor,
    threshold,
)
from ._suites import CloseMonitorSuite, PeriodicMonitorSuite

__all__ = [
    "CloseMonitorSuite",
    "FetchesPerOriginMonitor",
    "PeriodicMonitorSuite",
    "StoreErrorsMonitor",
    "TdmUnknownDroppedMonitor",
    "UnreachableDroppedMonitor",
    "UnreachableOriginsMonitor",
    "WaitingAtCloseMonitor",
    "threshold",
]
