"""The two suites: one for when the spider closes, one to run every few
minutes while it crawls (docs/monitors.rst)."""

from __future__ import annotations

from spidermon import MonitorSuite

from ._monitors import (
    FetchesPerOriginMonitor,
    StoreErrorsMonitor,
    TdmUnknownDroppedMonitor,
    UnreachableDroppedMonitor,
    UnreachableOriginsMonitor,
    WaitingAtCloseMonitor,
)


class CloseMonitorSuite(MonitorSuite):  # type: ignore[misc]
    """Every robots.txt monitor, for ``SPIDERMON_SPIDER_CLOSE_MONITORS``."""

    monitors = [  # noqa: RUF012 (Spidermon's own declaration)
        UnreachableOriginsMonitor,
        UnreachableDroppedMonitor,
        TdmUnknownDroppedMonitor,
        StoreErrorsMonitor,
        WaitingAtCloseMonitor,
        FetchesPerOriginMonitor,
    ]


class PeriodicMonitorSuite(MonitorSuite):  # type: ignore[misc]
    """The monitors that mean something while the crawl runs, for
    ``SPIDERMON_PERIODIC_MONITORS``: all but the one of requests waiting at
    close (requests wait for robots.txt all the time while a crawl runs)."""

    monitors = [  # noqa: RUF012 (Spidermon's own declaration)
        UnreachableOriginsMonitor,
        UnreachableDroppedMonitor,
        TdmUnknownDroppedMonitor,
        StoreErrorsMonitor,
        FetchesPerOriginMonitor,
    ]
