"""The middleware's settings, read once and validated at start-up.

A value the crawl cannot use stops it before anything is fetched, with one
message that names the setting, the value and what is allowed
(:class:`~.exceptions.ConfigError`). What can be checked without connecting
to anything is checked here: a store's URL and its SQLite folder, whether
redis-py is installed for a Redis store, the report's folder, and the usage
categories the crawl is for.
"""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass, field, fields
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from ..exceptions import ConfigError
from ..policy import DEFAULT_TTL
from ..robotstxt import CATEGORIES, LABELS, MAX_BYTES, MODES, crawler_names
from ..stores import (
    INSTALL,
    MEMORY,
    METHODS,
    REDIS_SCHEMES,
    SETTING,
    SQLITE,
    is_import_path,
    jobdir_path,
    missing_methods,
    redact,
    sqlite_path,
    sqlite_url,
    url_problem,
)
from ._config_errors import stop_crawl

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from ..robotstxt import Mode

#: ``ROBOTSTXT_RFC_HOLD``: where requests wait for robots.txt in a fleet.
Hold = Literal["auto", "memory"]
#: A setting whose value is one of a few strings (:func:`_choice`).
C = TypeVar("C", bound=str)
#: ``ROBOTSTXT_RFC_USAGE_UNKNOWN``: what a category of ``ROBOTSTXT_RFC_USAGE``
#: that nothing states does to a response (U-6).
UsageUnknown = Literal["allow", "disallow"]
#: ``ROBOTSTXT_RFC_NOINDEX``: keep the items of a ``noindex`` page, or drop them (P-4).
NoIndex = Literal["keep", "drop"]

#: The prefix of this package's own settings; ``ROBOTSTXT_OBEY``,
#: ``ROBOTSTXT_USER_AGENT`` and ``ROBOTSTXT_PARSER`` are Scrapy's.
PREFIX = "ROBOTSTXT_RFC_"
#: A :class:`Config` field's metadata key: the setting it is read from,
#: when that is not ``PREFIX`` and the field's name in capitals.
_FROM = "setting"

logger = logging.getLogger(__name__)

_STORES = (
    '"memory", "sqlite:///relative/path.db", "sqlite:////absolute/path.db", '
    '"redis://host:port/db" (also rediss:// and unix://) or the import path of a store '
    'class ("myproject.stores.MyStore")'
)
_SQLITE_URLS = (
    '"sqlite:///relative/path.db" (three slashes: relative to the working directory) or '
    '"sqlite:////absolute/path.db" (four slashes: an absolute path)'
)
_SQLITE_FILE = "an SQLite file in an existing folder that the crawl can write to"
_REDIS_URLS = (
    '"redis://host:port/db" with a number for the port and the db (also rediss://, and '
    "unix:///path/to/socket?db=0)"
)
_WITH_REDIS = f'"memory", an SQLite file, or a Redis URL with redis-py installed: {INSTALL}'
_REPORT_FILE = "a file path in an existing folder that the crawl can write to"


#: ``ROBOTSTXT_RFC_CACHE_BYTES``' default: 256 MiB.
CACHE_BYTES = 256 * 1024 * 1024
_DAY = 86400.0
_YEAR = 365 * _DAY


def _shown(number: float) -> str:
    """A bound as a message shows it: ``86400``, not ``86400.0`` or
    ``8.64e+04``; ``0.001`` and ``1.5`` as they are."""
    return str(int(number)) if float(number).is_integer() else repr(number)


@dataclass(frozen=True, slots=True)
class _Range:
    """A numeric setting: the :class:`Config` field, the setting, ``int``
    or ``float``, the least and the largest value allowed, the unit, and
    what the largest is in words (or why it is so)."""

    field: str
    setting: str
    kind: type[float]
    minimum: float
    maximum: float
    unit: str
    most: str = ""

    def allowed(self, minimum: float | None = None, reason: str = "") -> str:
        noun = "an integer" if self.kind is int else "a number"
        low = self.minimum if minimum is None else minimum
        notes = "; ".join(note for note in (reason, self.most and f"at most {self.most}") if note)
        unit = f"{self.unit}; {notes}" if notes else self.unit
        return f"{noun} from {_shown(low)} to {_shown(self.maximum)} ({unit})"

    def read(
        self,
        settings: BaseSettings,
        default: float,
        minimum: float | None = None,
        reason: str = "",
    ) -> float:
        """The setting's value, ``default`` when unset: a number within
        the range; :class:`ConfigError` otherwise, with the range.
        ``minimum`` replaces the least value when another setting gives it,
        ``reason`` says which."""
        value = settings.get(self.setting, default)
        low = self.minimum if minimum is None else minimum
        allowed = self.allowed(minimum, reason)
        if isinstance(value, bool):
            raise ConfigError(self.setting, value, allowed)
        try:
            number = self.kind(str(value).strip()) if self.kind is int else self.kind(value)
        except (TypeError, ValueError, OverflowError):
            raise ConfigError(self.setting, value, allowed) from None
        if not low <= number <= self.maximum:  # NaN and the infinities too
            raise ConfigError(self.setting, value, allowed)
        return number


#: The numeric settings, each with the range its consumers accept. The
#: maxima keep every value a consumer computes from them in its range:
#: Redis takes expiries in whole milliseconds up to a 64-bit signed integer
#: (``SET ... PX``, ``PEXPIRE``; the Lua scripts add them to the server's
#: clock as doubles, exact below 2**53 ms), SQLite keeps times as REAL,
#: Twisted's ``callLater`` and ``time`` arithmetic take any float. None of
#: them is near these bounds (tests/crawl/test_config.py checks it); the bounds
#: are what a crawl can mean, each given with its reason.
_NUMBERS: tuple[_Range, ...] = (
    # RFC 9309 §2.3.1.2 asks for at least five; browsers stop at 20, and so
    # does Scrapy's REDIRECT_MAX_TIMES by default: more is a loop.
    _Range("max_redirects", "ROBOTSTXT_RFC_MAX_REDIRECTS", int, 0, 20, "redirect hops"),
    # RFC 9309 §2.5: at least 500 KiB. The fetch holds about twice the
    # limit at its peak (docs/performance.rst): 32 MiB, Scrapy's
    # DOWNLOAD_WARNSIZE, is 64 times the RFC's minimum. Not bound by
    # DOWNLOAD_MAXSIZE: the robots.txt request carries its own limit.
    _Range(
        "max_bytes",
        "ROBOTSTXT_RFC_MAX_BYTES",
        int,
        MAX_BYTES,
        32 * 1024 * 1024,
        "bytes; RFC 9309 §2.5 requires at least 500 KiB",
        "32 MiB",
    ),
    # RFC 9309 §2.4: a copy SHOULD NOT be used for more than 24 hours.
    _Range("cache_ttl", "ROBOTSTXT_RFC_CACHE_TTL", float, 1, _YEAR, "seconds", "365 days"),
    # The cache and the report grow with it; nothing is allocated upfront.
    _Range("max_origins", "ROBOTSTXT_RFC_MAX_ORIGINS", int, 1, 10_000_000, "origins"),
    # What the cache of parsed rules may hold (docs/performance.rst): below
    # a MiB it would hold no more than one large file; past a TiB no
    # machine runs a crawler.
    _Range("cache_bytes", "ROBOTSTXT_RFC_CACHE_BYTES", int, 1024 * 1024, 1024**4, "bytes", "1 TiB"),
    # Each request of a fetch (redirects included) within it.
    _Range("timeout", "ROBOTSTXT_RFC_TIMEOUT", float, 0.001, 3600, "seconds", "an hour"),
    # The first delay of the backoff; a day is a copy's lifetime (§2.4).
    _Range(
        "unreachable_retry",
        "ROBOTSTXT_RFC_UNREACHABLE_RETRY",
        float,
        0.001,
        _DAY,
        "seconds",
        "a day",
    ),
    # How long a request may wait in memory for an unreachable origin.
    _Range(
        "unreachable_wait",
        "ROBOTSTXT_RFC_UNREACHABLE_WAIT",
        float,
        0,
        30 * _DAY,
        "seconds",
        "30 days",
    ),
    # One request to an origin a day at the slowest.
    _Range("crawl_delay_max", "ROBOTSTXT_RFC_CRAWL_DELAY_MAX", float, 0, _DAY, "seconds", "a day"),
    # RFC 9309 §2.3.1.4: "a reasonably long period of time (for example, 30 days)".
    _Range(
        "unreachable_days", "ROBOTSTXT_RFC_UNREACHABLE_DAYS", float, 0, 3650, "days", "10 years"
    ),
    # How long others wait for a fetch lock whose holder died.
    _Range("lease", "ROBOTSTXT_RFC_LEASE", float, 1.5, 3600, "seconds", "an hour"),
    # How long a request from the scheduler waits in place for a fetch that
    # is under way before it is parked; longer only holds a download slot.
    _Range("park_after", "ROBOTSTXT_RFC_PARK_AFTER", float, 0, 60, "seconds", "a minute"),
)
#: ``ROBOTSTXT_RFC_STORE_TTL``: at most its longest default, the longest
#: ROBOTSTXT_RFC_UNREACHABLE_DAYS and then the longest ROBOTSTXT_RFC_CACHE_TTL.
_STORE_TTL = _Range(
    "store_ttl",
    "ROBOTSTXT_RFC_STORE_TTL",
    float,
    1,
    3650 * _DAY + _YEAR,
    "seconds",
    "4015 days",
)
#: Every numeric setting by its field.
RANGES: dict[str, _Range] = {r.field: r for r in (*_NUMBERS, _STORE_TTL)}


#: The thresholds of the Spidermon monitors (:mod:`..monitors`, docs/monitors.rst)
#: and their defaults. They are not :class:`Config` fields: only the monitors
#: read them, when they run; they are here so that the check of misspelt
#: names (:mod:`.crawl._misspelt_settings`) knows them.
MONITOR_SETTINGS: dict[str, float] = {
    # % of the origins decided whose robots.txt is unreachable now
    "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_PERCENT": 10.0,
    # requests dropped after waiting for an unreachable robots.txt
    "ROBOTSTXT_RFC_MONITOR_MAX_UNREACHABLE_DROPPED": 0,
    # store errors not (yet) followed by the store answering again
    "ROBOTSTXT_RFC_MONITOR_MAX_STORE_ERRORS": 0,
    # requests still waiting for robots.txt when the spider closes
    "ROBOTSTXT_RFC_MONITOR_MAX_WAITING_AT_CLOSE": 0,
    # robots.txt fetches of this crawler per origin decided
    "ROBOTSTXT_RFC_MONITOR_MAX_FETCHES_PER_ORIGIN": 1.0,
    # requests dropped after waiting for a tdmrep.json that stayed not known
    # (ROBOTSTXT_RFC_TDM)
    "ROBOTSTXT_RFC_MONITOR_MAX_TDM_UNKNOWN_DROPPED": 0,
}

#: ``ROBOTSTXT_RFC_HOLD``'s values.
HOLDS: tuple[Hold, ...] = ("auto", "memory")
#: ``ROBOTSTXT_RFC_USAGE_UNKNOWN``'s values.
USAGE_UNKNOWNS: tuple[UsageUnknown, ...] = ("allow", "disallow")
#: ``ROBOTSTXT_RFC_NOINDEX``'s values.
NOINDEXES: tuple[NoIndex, ...] = ("keep", "drop")

_USAGE = (
    "a list of usage categories: "
    + ", ".join(f'"{category}"' for category in CATEGORIES)
    + ' (e.g. ["train-ai"])'
)
#: Categories this package had that vocab-08 names differently: still
#: accepted in ROBOTSTXT_RFC_USAGE, with a start-up warning (U-3 revised:
#: Content-Signal's ``ai-input`` is vocab-08's ``ai-use``).
_DEPRECATED_CATEGORIES = {"ai-input": "ai-use"}
#: Content-Signal's labels that name a category differently (U-3:
#: "ai-train"): the likeliest slip in ROBOTSTXT_RFC_USAGE.
_SIGNAL_LABELS = {
    label: category
    for label, category in LABELS["content-signal"].items()
    if label != category and label not in _DEPRECATED_CATEGORIES
}


#: What a boolean setting takes: what Scrapy's ``getbool`` reads, as for
#: ``ROBOTSTXT_OBEY`` (docs/settings.rst, "Booleans").
_BOOLEAN = (
    "True or False, or what Scrapy reads as one for any boolean setting: an integer "
    "(0 is False) or the strings '0', '1', 'True', 'true', 'False', 'false'"
)


def _flag(settings: BaseSettings, name: str, default: bool) -> bool:
    """A boolean setting, read by the one rule of every boolean setting of
    Scrapy's: ``Settings.getbool``. An unset (or ``None``) setting is
    ``default``; what ``getbool`` cannot read is a :class:`ConfigError`
    instead of its ``ValueError`` (or ``TypeError``, for a list)."""
    try:
        return settings.getbool(name, default)
    except (TypeError, ValueError):
        raise ConfigError(name, settings.get(name), _BOOLEAN) from None


#: The matching mode's setting (docs/decisions.md: ``rfc`` or ``google``).
MODE_SETTING = "ROBOTSTXT_RFC_MODE"


def mode_of(settings: BaseSettings) -> Mode:
    """``ROBOTSTXT_RFC_MODE``, validated: the one reader of the mode, for
    the middleware's :class:`Config` and the ``RobotParser``."""
    value = settings.get(MODE_SETTING, "rfc")
    for mode in MODES:
        if value == mode:
            return mode
    allowed = "one of: " + ", ".join(repr(mode) for mode in MODES)
    raise ConfigError(MODE_SETTING, value, allowed)


def _file_problem(path: str) -> str | None:
    """Why a file cannot be written at ``path``, as far as that shows before
    writing it; folders are never created."""
    full = os.path.abspath(path)
    if path.endswith(("/", os.sep)) or os.path.isdir(full):
        return f"{full} is a folder"
    folder = os.path.dirname(full)
    if not os.path.exists(folder):
        return f"the folder {folder} does not exist"
    if not os.path.isdir(folder):
        return f"{folder} is not a folder"
    if not os.access(folder, os.W_OK | os.X_OK):
        return f"the folder {folder} is not writable"
    if os.path.exists(full) and not os.access(full, os.W_OK):
        return f"{full} is not writable"
    return None


def _store(settings: BaseSettings) -> str | type[Any] | None:
    value = settings.get(SETTING)
    if value is None:
        return None
    if isinstance(value, type) or (isinstance(value, str) and is_import_path(value)):
        return _store_class(value)
    if not isinstance(value, str):
        raise ConfigError(SETTING, value, _STORES)
    if value == MEMORY:
        return value
    if value.startswith(SQLITE):
        try:
            path = sqlite_path(value)
        except ValueError as exc:
            raise ConfigError(SETTING, value, _SQLITE_URLS, str(exc)) from None
        problem = _file_problem(path)
        if problem is not None:
            raise ConfigError(SETTING, value, _SQLITE_FILE, problem)
        return value
    shown = redact(value) if "://" in value else value
    if not value.startswith(REDIS_SCHEMES):
        raise ConfigError(SETTING, shown, _STORES)
    try:
        problem = url_problem(value)
    except ImportError:
        raise ConfigError(
            SETTING, shown, _WITH_REDIS, "the redis package is not installed"
        ) from None
    if problem is not None:
        raise ConfigError(SETTING, shown, _REDIS_URLS, problem)
    return value


def _and(names: list[str] | tuple[str, ...], word: str = "and") -> str:
    """``"a"``, ``"a and b"``, ``"a, b and c"``."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} {word} {names[-1]}"


_STORE_CLASS = f"a class with the methods of scrapy_robots_rfc.stores.Store: {_and(METHODS)}"


def _store_class(value: str | type[Any]) -> str | type[Any]:
    """A store class, or its import path, that Scrapy's ``load_object``
    imports and that has every method of :class:`.stores.Store`; it is
    built when the middleware starts (:func:`.stores._open.build_store`)."""
    from scrapy.utils.misc import load_object

    try:
        cls = load_object(value)
    except Exception as exc:
        raise ConfigError(SETTING, value, _STORES, f"it cannot be imported: {exc}") from None
    if not isinstance(cls, type):
        kind = type(cls).__name__
        article = "an" if kind[:1].lower() in "aeiou" else "a"
        raise ConfigError(SETTING, value, _STORE_CLASS, f"it is {article} {kind}, not a class")
    missing = missing_methods(cls)
    if missing:
        reason = f"{cls.__qualname__} has no {_and(missing, 'or')} method"
        raise ConfigError(SETTING, value, _STORE_CLASS, reason)
    return value


def _store_ttl(
    settings: BaseSettings, numbers: dict[str, Any], store: str | type[Any] | None
) -> float:
    """``ROBOTSTXT_RFC_STORE_TTL``: by default long enough to remember an
    unreachable origin for ``ROBOTSTXT_RFC_UNREACHABLE_DAYS`` (RFC 9309
    §2.3.1.4) and then its good copy for ``ROBOTSTXT_RFC_CACHE_TTL`` (§2.4);
    never shorter than the cache lifetime."""
    name = _STORE_TTL.setting
    cache_ttl, days = numbers["cache_ttl"], numbers["unreachable_days"]
    default = days * _DAY + cache_ttl
    ttl = _STORE_TTL.read(settings, default, cache_ttl, "at least ROBOTSTXT_RFC_CACHE_TTL")
    if isinstance(store, str) and store.startswith(REDIS_SCHEMES) and ttl < days * _DAY:
        logger.warning(
            "%(name)s (%(ttl)g seconds) is shorter than ROBOTSTXT_RFC_UNREACHABLE_DAYS "
            "(%(days)g days): Redis forgets an origin that stays unreachable before then, "
            "and counts its days again from the start (it stays disallowed)",
            {"name": name, "ttl": ttl, "days": days},
        )
    return ttl


def _download_maxsize(settings: BaseSettings) -> int:
    """Scrapy's ``DOWNLOAD_MAXSIZE`` (0: no limit), for the spider's own
    robots.txt requests (:mod:`.crawl._kept_responses`): pages keep the
    user's limit, whatever it is. The robots.txt fetch has its own,
    ``ROBOTSTXT_RFC_MAX_BYTES`` (RFC 9309 §2.5), in its request's meta, which
    Scrapy honours per request."""
    value = settings.get("DOWNLOAD_MAXSIZE")
    try:
        return max(0, int(value or 0))
    except (TypeError, ValueError):
        raise ConfigError("DOWNLOAD_MAXSIZE", value, "an integer of bytes (0: no limit)") from None


def _choice(settings: BaseSettings, name: str, choices: tuple[C, ...]) -> C:
    """The setting ``name``, one of ``choices`` (the first is the default),
    written exactly; :class:`ConfigError` names them otherwise."""
    value = settings.get(name, choices[0])
    for choice in choices:
        if value == choice:
            return choice
    raise ConfigError(name, value, " or ".join(f'"{choice}"' for choice in choices))


def _hold(settings: BaseSettings) -> Hold:
    return _choice(settings, "ROBOTSTXT_RFC_HOLD", HOLDS)


def obeys(settings: BaseSettings) -> bool:
    """``ROBOTSTXT_OBEY``, read as Scrapy reads it; a value that Scrapy's
    ``getbool`` cannot read stops the crawl as any bad setting does
    (:func:`.stop_crawl`), rather than with ``getbool``'s ``ValueError``."""
    try:
        return _flag(settings, "ROBOTSTXT_OBEY", False)
    except ConfigError as exc:
        stop_crawl(exc, logger)


def page_rules_asked(settings: BaseSettings) -> bool:
    """Whether the crawl asks for page-level rules to be honoured (P-4):
    ``ROBOTSTXT_RFC_NOFOLLOW`` or ``ROBOTSTXT_RFC_NOINDEX = "drop"``. Reads
    those two settings only, for the spider middleware: the downloader
    middleware reads them all once, with their warnings."""
    try:
        return _flag(settings, "ROBOTSTXT_RFC_NOFOLLOW", False) or _noindex(settings) == "drop"
    except ConfigError as exc:
        stop_crawl(exc, logger)


#: The setting that makes a crawl honour TDM reservations (T-4).
TDM_SETTING = "ROBOTSTXT_RFC_TDM"


def tdm_asked(settings: BaseSettings) -> bool:
    """``ROBOTSTXT_RFC_TDM``: whether the crawl mines text and data and so
    honours TDM reservations (T-4). The one reader of the setting, for the
    downloader middleware's :class:`Config` and the spider middleware."""
    return _flag(settings, TDM_SETTING, False)


def _noindex(settings: BaseSettings) -> NoIndex:
    return _choice(settings, "ROBOTSTXT_RFC_NOINDEX", NOINDEXES)


def _usage(settings: BaseSettings) -> tuple[str, ...]:
    """``ROBOTSTXT_RFC_USAGE``: the categories the crawl is for, as a list or
    tuple, or a comma-separated string (``-s ROBOTSTXT_RFC_USAGE=train-ai,search``,
    as ``Settings.getlist`` reads it); duplicates dropped, order kept
    (U-6)."""
    name = "ROBOTSTXT_RFC_USAGE"
    value = settings.get(name)
    if value is None:
        return ()
    if isinstance(value, str):
        items: list[object] = [part.strip() for part in value.split(",") if part.strip()]
    elif isinstance(value, (list, tuple)):
        items = list(value)
    else:
        raise ConfigError(name, value, _USAGE)
    names: list[str] = []
    warned: set[str] = set()
    for item in items:
        if not isinstance(item, str):
            raise ConfigError(name, value, _USAGE)
        new_name = _DEPRECATED_CATEGORIES.get(item)
        if new_name is not None and item not in warned:
            warned.add(item)
            logger.warning(
                '%(name)s (%(value)r) names %(old)r, which is now the category "%(new)s" '
                "(draft-ietf-aipref-vocab-08 §4.2, AI Use; Content-Signal's %(old)s is read "
                'as it): read as "%(new)s"; write "%(new)s" instead',
                {"name": name, "old": item, "new": new_name, "value": value},
            )
        item = new_name or item
        if item not in CATEGORIES:
            label = _SIGNAL_LABELS.get(item)
            reason = (
                f"{item!r} is not a usage category"
                if label is None
                else f'{item!r} is Content-Signal\'s label; the category is "{label}"'
            )
            raise ConfigError(name, value, _USAGE, reason)
        if item not in names:
            names.append(item)
    return tuple(names)


def _usage_unknown(settings: BaseSettings, usage: tuple[str, ...]) -> UsageUnknown:
    name = "ROBOTSTXT_RFC_USAGE_UNKNOWN"
    unknown = _choice(settings, name, USAGE_UNKNOWNS)
    if unknown == "disallow" and not usage:
        logger.warning(
            '%(name)s is "disallow" but ROBOTSTXT_RFC_USAGE names no category: '
            "no request is dropped for usage preferences",
            {"name": name},
        )
    return unknown


def _report(settings: BaseSettings) -> str | None:
    """``ROBOTSTXT_RFC_REPORT``: written when the spider closes, so its
    folder is checked now rather than after the crawl."""
    name = "ROBOTSTXT_RFC_REPORT"
    value = settings.get(name)
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise ConfigError(name, value, "a file path")
    problem = _file_problem(os.path.expanduser(value))
    if problem is not None:
        raise ConfigError(name, value, _REPORT_FILE, problem)
    return value


@dataclass(frozen=True, slots=True)
class Config:
    """Every ``ROBOTSTXT_RFC_*`` setting, validated; docs/settings.rst documents each."""

    mode: Mode = "rfc"
    #: RFC 9309 §2.3.1.2: "SHOULD follow at least five consecutive redirects".
    max_redirects: int = 5
    #: RFC 9309 §2.5: the limit "MUST be at least 500 kibibytes".
    max_bytes: int = MAX_BYTES
    #: RFC 9309 §2.4: at most 24 hours.
    cache_ttl: float = DEFAULT_TTL
    max_origins: int = 10_000
    #: ``ROBOTSTXT_RFC_CACHE_BYTES``: what the cache of entries may hold, as
    #: they cost (:meth:`.policy.Entry.cost`); 256 MiB keeps the 10,000
    #: origins of ``max_origins`` at 26 KB each (the corpus's 90th
    #: percentile), and a crawl of large files within a few hundred MiB
    #: (docs/performance.rst).
    cache_bytes: int = CACHE_BYTES
    timeout: float = 30.0
    unreachable_retry: float = 30.0
    unreachable_wait: float = 600.0
    crawl_delay: bool = False
    crawl_delay_max: float = 60.0
    #: ``ROBOTSTXT_RFC_PARK_AFTER``: seconds a request from the scheduler
    #: waits in place for its origin's robots.txt before it is parked out
    #: of the downloader (0: parked at once). 0.05 s: a loopback or LAN
    #: robots.txt answers within it (no park), and with network latency a
    #: request holds its place among ``CONCURRENT_REQUESTS`` for little
    #: (docs/performance.rst, "The grace before a park").
    park_after: float = 0.05
    #: ``ROBOTSTXT_USER_AGENT`` as written (a list joined with ", ");
    #: ``None`` when unset.
    robots_user_agent: str | None = field(default=None, metadata={_FROM: "ROBOTSTXT_USER_AGENT"})
    #: The names ``ROBOTSTXT_USER_AGENT`` gives, most specific first (D-22):
    #: one for a crawler, several for a crawler family; ``None`` when unset.
    robots_names: tuple[str, ...] | None = field(
        default=None, metadata={_FROM: "ROBOTSTXT_USER_AGENT"}
    )
    #: ``USER_AGENT``.
    user_agent: str = field(default="", metadata={_FROM: "USER_AGENT"})
    #: ``JOBDIR``: the folder of a crawl that can be paused and resumed;
    #: ``None`` when unset. Waiting requests are kept there, and without
    #: ``ROBOTSTXT_RFC_STORE`` the records too (:func:`.stores.open_store`).
    jobdir: str | None = field(default=None, metadata={_FROM: "JOBDIR"})
    #: ``REDIRECT_ENABLED``: whether Scrapy's ``RedirectMiddleware`` follows
    #: redirects, which a response kept for the spider's own robots.txt
    #: request must not hide (:mod:`.crawl._kept_responses`).
    redirect_enabled: bool = field(default=True, metadata={_FROM: "REDIRECT_ENABLED"})
    #: ``DOWNLOAD_MAXSIZE``: the most bytes of a response's body Scrapy
    #: reads (0: no limit); a page's limit, never robots.txt's.
    download_maxsize: int = field(default=1024**3, metadata={_FROM: "DOWNLOAD_MAXSIZE"})
    #: ``LOGSTATS_INTERVAL``: seconds between the progress lines of requests
    #: waiting for an unreachable robots.txt (:mod:`.crawl._progress`); 0:
    #: none, as Scrapy's own.
    logstats_interval: float = field(default=60.0, metadata={_FROM: "LOGSTATS_INTERVAL"})
    #: ``ROBOTSTXT_RFC_STORE``: "memory", a URL, a store class or its import
    #: path; ``None`` when unset (memory, or a SQLite file in ``JOBDIR``).
    store: str | type[Any] | None = None
    #: HTTP-7: days unreachable with no good copy before allowing all.
    unreachable_days: float = 30.0
    #: ``ROBOTSTXT_RFC_REPORT``: where the per-origin table is written as
    #: JSON lines when the spider closes; ``None`` when unset.
    report: str | None = None
    #: ``ROBOTSTXT_RFC_LEASE``: seconds a fetch lock, and the watch of
    #: requests held in Redis, last unless renewed (every third of it).
    lease: float = 10.0
    #: ``ROBOTSTXT_RFC_STORE_TTL``: seconds a Redis record lives after its
    #: last write; by default ``unreachable_days`` plus ``cache_ttl``.
    store_ttl: float = 30 * 86400 + DEFAULT_TTL
    #: ``ROBOTSTXT_RFC_HOLD``: "auto" holds waiting requests in Redis when
    #: the store and the scrapy-redis queue share a server; "memory" never.
    hold: Hold = "auto"
    #: ``ROBOTSTXT_RFC_USAGE``: the usage categories the crawl is for
    #: (U-6); empty: preferences are exposed, never obeyed.
    usage: tuple[str, ...] = ()
    #: ``ROBOTSTXT_RFC_USAGE_UNKNOWN``: "disallow" drops a response for
    #: which one of ``usage`` stays unknown.
    usage_unknown: UsageUnknown = "allow"
    #: ``ROBOTSTXT_RFC_NOFOLLOW``: drop the requests a callback yields from a
    #: page whose robots meta tag or ``X-Robots-Tag`` says ``nofollow`` for
    #: this crawler (P-4).
    nofollow: bool = False
    #: ``ROBOTSTXT_RFC_NOINDEX``: "drop" drops the items a callback yields
    #: from a ``noindex`` page, or one past its ``unavailable_after`` (P-4).
    noindex: NoIndex = "keep"
    #: ``ROBOTSTXT_RFC_TDM``: this crawl mines text and data, so it honours
    #: TDM reservations (W3C TDMRep; T-1 to T-5): each origin's
    #: ``/.well-known/tdmrep.json`` is fetched, the URLs it reserves are not
    #: downloaded, and the items of pages their header or meta reserves
    #: never reach the pipeline.
    tdm: bool = False

    @property
    def page_rules(self) -> bool:
        """Whether the crawl honours page-level rules (P-4): it asked to."""
        return self.nofollow or self.noindex == "drop"

    @property
    def allow_after(self) -> float:
        """HTTP-7: seconds unreachable with no good copy before allowing all."""
        return self.unreachable_days * 86400

    @property
    def fetch_bound(self) -> float:
        """The longest a robots.txt fetch can take, in seconds: each of its
        requests (the first and ``max_redirects`` more, RFC 9309 §2.3.1.2)
        within ``timeout``, and 5 s to spare. A fencing token outlives it."""
        return self.timeout * (self.max_redirects + 1) + 5

    def in_effect(self) -> dict[str, object]:
        """This package's settings (:func:`setting_names`) and the values
        the crawl uses, defaults included; a Redis URL's password is
        hidden. ``scrapy settings`` cannot show them: it reads the project's
        settings only, before any add-on runs."""
        values: dict[str, object] = {}
        for name, setting in setting_names().items():
            if setting.startswith(PREFIX):
                values[setting] = getattr(self, name)
        values[SETTING] = self.store_shown
        return values

    @property
    def store_shown(self) -> str:
        """The store in force, as a log line shows it: "memory", an SQLite
        URL (``JOBDIR``'s file when ``ROBOTSTXT_RFC_STORE`` is unset), a
        Redis URL with its password hidden, or a store class's path."""
        store = self.store
        if store is None:  # the store in force, not "unset"
            return MEMORY if not self.jobdir else sqlite_url(jobdir_path(self.jobdir))
        if isinstance(store, type):
            return f"{store.__module__}.{store.__qualname__}"
        if store.startswith(REDIS_SCHEMES):
            return redact(store)
        return store

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Config:
        """Read and check the settings; :class:`~.exceptions.ConfigError`
        (a ``ValueError``) names the first bad one.

        Its message is logged at CRITICAL, once, and nothing reports the
        exception again (:func:`.stop_crawl`)."""
        try:
            return cls._read(settings)
        except ConfigError as exc:
            stop_crawl(exc, logger)

    @classmethod
    def _read(cls, settings: BaseSettings) -> Config:
        default = cls()
        robots_ua, names = robots_names(settings)
        numbers: dict[str, Any] = {
            limits.field: limits.read(settings, getattr(default, limits.field))
            for limits in _NUMBERS
        }
        store = _store(settings)
        usage = _usage(settings)
        return cls(
            mode=mode_of(settings),
            crawl_delay=_flag(settings, "ROBOTSTXT_RFC_CRAWL_DELAY", default.crawl_delay),
            robots_user_agent=robots_ua,
            robots_names=names,
            store=store,
            user_agent=str(settings.get("USER_AGENT") or ""),
            jobdir=settings.get("JOBDIR") or None,
            redirect_enabled=settings.getbool("REDIRECT_ENABLED", True),
            logstats_interval=settings.getfloat("LOGSTATS_INTERVAL", 60.0),
            download_maxsize=_download_maxsize(settings),
            report=_report(settings),
            store_ttl=_store_ttl(settings, numbers, store),
            hold=_hold(settings),
            usage=usage,
            usage_unknown=_usage_unknown(settings, usage),
            nofollow=_flag(settings, "ROBOTSTXT_RFC_NOFOLLOW", default.nofollow),
            noindex=_noindex(settings),
            tdm=tdm_asked(settings),
            **numbers,
        )


def setting_names() -> dict[str, str]:
    """Each :class:`Config` field and the setting it is read from: ``PREFIX``
    and the field's name in capitals (``cache_ttl`` is
    ``ROBOTSTXT_RFC_CACHE_TTL``), unless the field says otherwise (the
    crawler's name comes from Scrapy's ``ROBOTSTXT_USER_AGENT`` and
    ``USER_AGENT``). The one list of this package's settings: the start-up
    check of misspelt names (:mod:`.crawl._misspelt_settings`) reads it."""
    return {f.name: f.metadata.get(_FROM, PREFIX + f.name.upper()) for f in fields(Config)}


def robots_names(settings: BaseSettings) -> tuple[str | None, tuple[str, ...] | None]:
    """``ROBOTSTXT_USER_AGENT`` as text and as names, most specific first
    (D-22): a string, with commas between the names of a crawler family
    (``"hedwig-images, hedwig"``), or a list or tuple of names. The one
    reader of the setting, for :class:`Config` and the ``RobotParser``."""
    value = settings.get("ROBOTSTXT_USER_AGENT")
    allowed = (
        "the crawler's name, or the names of a crawler family, most specific first, as a "
        "string separated by commas ('hedwig-images, hedwig') or a list of strings, none "
        "of them empty"
    )
    if value is None or value == "":
        return None, None
    if isinstance(value, str):
        names = crawler_names(value)
    elif isinstance(value, (list, tuple)) and all(isinstance(name, str) for name in value):
        names = tuple(name.strip() for name in value)
    else:
        raise ConfigError("ROBOTSTXT_USER_AGENT", value, allowed)
    if not names or not all(names):
        raise ConfigError("ROBOTSTXT_USER_AGENT", value, allowed)
    return (value if isinstance(value, str) else ", ".join(names)), names
