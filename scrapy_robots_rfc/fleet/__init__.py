"""Optional support for fleets on scrapy-redis (docs/fleets.rst, "Fleets on
scrapy-redis"): requests held in Redis while their origin's robots.txt is
unknown.

Nothing in the package imports this one (``lint-imports`` checks it): the
crawl's assembly loads :class:`Fleet` by name, for a crawl whose scheduler is
scrapy-redis's (:func:`..crawl._holding.fleet_class`), and gives it to the
parts that hold requests (:class:`..crawl.Holding`).
"""

from __future__ import annotations

from ._fleet import Fleet, queue_layout, scheduler_queue

__all__ = [
    "Fleet",
    "queue_layout",
    "scheduler_queue",
]
