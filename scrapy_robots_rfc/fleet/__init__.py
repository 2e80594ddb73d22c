"""Optional support for fleets on scrapy-redis (docs/fleets.rst, "Fleets on
scrapy-redis"): requests held in Redis while their origin's robots.txt is
unknown.

Nothing in the package imports this one (``lint-imports`` checks it): the
waiting room loads :class:`FleetRoom` by name, as its hold, for a crawl whose
scheduler is scrapy-redis's (:func:`..crawl._holding.hold_class`).
"""

from __future__ import annotations

from ._room import FleetRoom, queue_layout, scheduler_queue

__all__ = [
    "FleetRoom",
    "queue_layout",
    "scheduler_queue",
]
