"""Misspelt setting names, said at start-up (docs/settings.rst, "Settings").

Scrapy takes any name as a setting and never says that nothing reads one:
``-s ROBOTSTXT_RFC_TIMOUT=5`` would run as if nothing were set. Every
setting whose name starts with ``ROBOTSTXT_RFC_`` (this package's prefix,
:data:`.crawl._config.PREFIX`) and is not one of ours gets one WARNING that names
it and the closest name that is. A ``ROBOTSTXT_`` name that is neither ours
nor Scrapy's (``ROBOTSTXT_OBEY``, ``ROBOTSTXT_USER_AGENT``,
``ROBOTSTXT_PARSER``) gets one only when it is close to a name of either,
e.g. ``ROBOTSTXT_CRAWL_DELAY``: other packages may have names of their own.

Our names come from :func:`.crawl._config.setting_names` and
:data:`.crawl._config.MONITOR_SETTINGS` (read by the Spidermon monitors only),
Scrapy's from its default settings; neither is listed here.
"""

from __future__ import annotations

import difflib
import logging
from typing import TYPE_CHECKING

from ._config import MONITOR_SETTINGS, PREFIX, setting_names

if TYPE_CHECKING:
    from collections.abc import Iterable

    from scrapy.settings import BaseSettings

logger = logging.getLogger(__name__)

#: Where Scrapy's names and ours begin.
_FAMILY = "ROBOTSTXT_"
#: How alike (``difflib``'s ratio, 0 to 1) two names' ends must be for one
#: to be suggested for the other; difflib's own default.
_CUTOFF = 0.6


def _scrapys() -> frozenset[str]:
    """Scrapy's ``ROBOTSTXT_`` settings, from its defaults."""
    from scrapy.settings import default_settings

    return frozenset(name for name in dir(default_settings) if name.startswith(_FAMILY))


def _known() -> frozenset[str]:
    ours = {name for name in setting_names().values() if name.startswith(_FAMILY)}
    ours.update(MONITOR_SETTINGS)
    return frozenset(ours | _scrapys())


#: Every ``ROBOTSTXT_`` setting that is read: ours and Scrapy's.
KNOWN: frozenset[str] = _known()


def _tail(name: str) -> str:
    """What follows the prefix: names are compared on it, since the long
    shared prefix would make any two of them look alike."""
    upper = name.upper()
    prefix = PREFIX if upper.startswith(PREFIX) else _FAMILY
    return upper[len(prefix) :]


#: Each known name's tail -> the name.
_TAILS: dict[str, str] = {_tail(name): name for name in sorted(KNOWN)}


def suggestion(name: str) -> str | None:
    """The known setting closest to ``name``, or ``None`` when none is
    close. Case is ignored: ``robotstxt_rfc_timeout`` is
    ``ROBOTSTXT_RFC_TIMEOUT`` in the wrong case."""
    found = difflib.get_close_matches(_tail(name), _TAILS, n=1, cutoff=_CUTOFF)
    return _TAILS[found[0]] if found else None


def misspelt(names: Iterable[str]) -> list[tuple[str, str | None]]:
    """The names in ``names`` that look meant for this package or Scrapy's
    robots.txt settings but are neither, sorted, each with its
    :func:`suggestion`: every unknown ``ROBOTSTXT_RFC_`` name, and an
    unknown ``ROBOTSTXT_`` name that has a suggestion."""
    found = []
    for name in sorted(set(names)):
        upper = name.upper()
        if name in KNOWN or not upper.startswith(_FAMILY):
            continue
        guess = suggestion(name)
        if upper.startswith(PREFIX) or guess is not None:
            found.append((name, guess))
    return found


def warn_about_misspelt_settings(settings: BaseSettings) -> None:
    """One WARNING per misspelt name among ``settings`` (:func:`misspelt`);
    called once, when the middleware is built."""
    for name, guess in misspelt(settings):
        ours = name.upper().startswith(PREFIX)
        owner = "scrapy_robots_rfc" if ours else "Scrapy or scrapy_robots_rfc"
        if guess is None:
            logger.warning(
                "%(name)s is not a setting of %(owner)s and is ignored",
                {"name": name, "owner": owner},
            )
        else:
            logger.warning(
                "%(name)s is not a setting of %(owner)s and is ignored; did you mean %(guess)s?",
                {"name": name, "owner": owner, "guess": guess},
            )
