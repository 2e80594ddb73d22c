"""The Scrapy-facing layer: the middleware, the add-on and the
``ROBOTSTXT_PARSER`` class (public modules, kept at their old paths by thin
re-exports at the package root), and the private parts they are made of.

These few names are what the optional :mod:`..fleet` and the
``scrapy robots`` command build on.
"""

from __future__ import annotations

from ._config import Config
from ._kept_responses import SERVED_FLAG
from ._waiting_room import NO_WAIT_KEY, SCHEDULED_KEY, WaitingRoom

__all__ = [
    "NO_WAIT_KEY",
    "SCHEDULED_KEY",
    "SERVED_FLAG",
    "Config",
    "WaitingRoom",
]
