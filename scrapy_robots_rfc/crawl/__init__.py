"""The Scrapy-facing layer: the middleware, the add-on and the
``ROBOTSTXT_PARSER`` class (public modules), and the private parts they are
made of.

These few names are what the optional :mod:`..fleet`, the Spidermon
:mod:`..monitors` and the ``scrapy robots`` command build on: the hold's
interface (:class:`MemoryHold`, what a hold reports, :data:`HoldEvent`) and
the request meta keys they read. The middleware never imports the fleet
(:func:`._holding.hold_class` loads it by name).
"""

from __future__ import annotations

from ._config import MONITOR_SETTINGS, Config
from ._holding import (
    Adopted,
    ExpiredLeft,
    FoundElsewhere,
    HoldEvent,
    HoldEvents,
    HoldingAgain,
    MemoryHold,
    Released,
    on_scrapy_redis,
)
from ._kept_responses import SERVED_FLAG
from ._parking import SCHEDULED_KEY
from ._tickets import TICKET_KEY, Ticket, carried, carry, wait_once

__all__ = [
    "MONITOR_SETTINGS",
    "SCHEDULED_KEY",
    "SERVED_FLAG",
    "TICKET_KEY",
    "Adopted",
    "Config",
    "ExpiredLeft",
    "FoundElsewhere",
    "HoldEvent",
    "HoldEvents",
    "HoldingAgain",
    "MemoryHold",
    "Released",
    "Ticket",
    "carried",
    "carry",
    "on_scrapy_redis",
    "wait_once",
]
