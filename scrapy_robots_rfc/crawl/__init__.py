"""The Scrapy-facing layer: the middleware, the add-on and the
``ROBOTSTXT_PARSER`` class (public modules), and the private parts they are
made of.

These few names are what the optional :mod:`..fleet`, the Spidermon
:mod:`..monitors` and the ``scrapy robots`` command build on: the interface
a fleet implements (:class:`Holding`, what it reports, :data:`HoldEvent`),
what it is given at wiring, and a request's ticket (:class:`Ticket`, under
:data:`TICKET_KEY`). The middleware never imports the fleet (the assembly
loads it by name, :func:`._holding.fleet_class`).
"""

from __future__ import annotations

from ._announce import Announcer, Outlook
from ._config import MONITOR_SETTINGS, Config
from ._fetcher import DOCUMENT_KEY
from ._holding import (
    DROP_TOLERANCE,
    Adopted,
    ExpiredLeft,
    FoundElsewhere,
    HoldEvent,
    HoldEvents,
    Holding,
    HoldingAgain,
    Released,
    on_scrapy_redis,
)
from ._kept_responses import SERVED_FLAG
from ._outcomes import Dropped
from ._robots_loader import RobotsLoader
from ._tickets import TICKET_KEY, Ticket, carried, carry, wait_once

__all__ = [
    "DOCUMENT_KEY",
    "DROP_TOLERANCE",
    "MONITOR_SETTINGS",
    "SERVED_FLAG",
    "TICKET_KEY",
    "Adopted",
    "Announcer",
    "Config",
    "Dropped",
    "ExpiredLeft",
    "FoundElsewhere",
    "HoldEvent",
    "HoldEvents",
    "Holding",
    "HoldingAgain",
    "Outlook",
    "Released",
    "RobotsLoader",
    "Ticket",
    "carried",
    "carry",
    "on_scrapy_redis",
    "wait_once",
]
