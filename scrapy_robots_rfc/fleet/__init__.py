"""Optional support for fleets on scrapy-redis (README.rst, "Fleets on
scrapy-redis"): requests held in Redis while their origin's robots.txt is
unknown, and the JOBDIR file of the requests that wait.

Only :mod:`..crawl.middleware` imports this package (``lint-imports``
checks it).
"""

from __future__ import annotations

from ._room import (
    JOBDIR_FILE,
    FleetRoom,
    let_go,
    load_waiting,
    queue_layout,
    save_waiting,
    scheduler_queue,
)

__all__ = [
    "JOBDIR_FILE",
    "FleetRoom",
    "let_go",
    "load_waiting",
    "queue_layout",
    "save_waiting",
    "scheduler_queue",
]
