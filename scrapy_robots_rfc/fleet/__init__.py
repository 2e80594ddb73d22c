"""Optional support for fleets on scrapy-redis (docs/fleets.rst, "Fleets on
scrapy-redis"): requests held in Redis while their origin's robots.txt is
unknown.

Nothing in the package imports this one (``lint-imports`` checks it): the
middleware loads :class:`FleetHold` by name, as its hold, for a crawl whose
scheduler is scrapy-redis's (:func:`..crawl._holding.hold_class`).
"""

from __future__ import annotations

from ._hold import FleetHold, queue_layout, scheduler_queue

__all__ = [
    "FleetHold",
    "queue_layout",
    "scheduler_queue",
]
