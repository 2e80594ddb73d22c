"""The middleware's settings, read once and validated at start-up."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .parser import MAX_BYTES
from .policy import DEFAULT_TTL
from .robotparser import mode_from_settings

if TYPE_CHECKING:
    from scrapy.settings import BaseSettings

    from .matcher import Mode

__all__ = ["LOGGER_NAME", "Config"]

#: Every part of the middleware logs under this one name, so that a project
#: sets one level for all of it (``LOG_LEVEL`` per logger).
LOGGER_NAME = "scrapy_robots_rfc.middleware"

_TRUE = frozenset(("1", "true", "yes", "on"))
_FALSE = frozenset(("0", "false", "no", "off", "none", ""))


def _invalid(name: str, value: Any, allowed: str) -> ValueError:
    return ValueError(
        f"The value of the {name} setting ({value!r}) is invalid. It must be {allowed}."
    )


def _number(
    settings: BaseSettings, name: str, default: float, kind: type[float], minimum: float, unit: str
) -> float:
    """The finite number ``name`` of at least ``minimum``; ``kind`` is
    ``int`` or ``float``."""
    value = settings.get(name, default)
    noun = "an integer" if kind is int else "a number"
    allowed = f"{noun} of {minimum:g} or more ({unit})"
    if isinstance(value, bool):
        raise _invalid(name, value, allowed)
    try:
        number = kind(str(value).strip()) if kind is int else kind(value)
    except (TypeError, ValueError):
        raise _invalid(name, value, allowed) from None
    if not number >= minimum or number == float("inf"):  # rejects NaN too
        raise _invalid(name, value, allowed)
    return number


#: The numeric settings: the :class:`Config` field, the setting, ``int`` or
#: ``float``, the least value allowed and its unit.
_NUMBERS: tuple[tuple[str, str, type[float], float, str], ...] = (
    ("max_redirects", "ROBOTSTXT_RFC_MAX_REDIRECTS", int, 0, "redirect hops"),
    (
        "max_bytes",
        "ROBOTSTXT_RFC_MAX_BYTES",
        int,
        MAX_BYTES,
        "bytes; RFC 9309 §2.5 requires at least 500 KiB",
    ),
    ("cache_ttl", "ROBOTSTXT_RFC_CACHE_TTL", float, 1, "seconds"),
    ("max_origins", "ROBOTSTXT_RFC_MAX_ORIGINS", int, 1, "origins"),
    ("timeout", "ROBOTSTXT_RFC_TIMEOUT", float, 0.001, "seconds"),
    ("unreachable_retry", "ROBOTSTXT_RFC_UNREACHABLE_RETRY", float, 0.001, "seconds"),
    ("unreachable_wait", "ROBOTSTXT_RFC_UNREACHABLE_WAIT", float, 0, "seconds"),
    ("crawl_delay_max", "ROBOTSTXT_RFC_CRAWL_DELAY_MAX", float, 0, "seconds"),
    ("unreachable_days", "ROBOTSTXT_RFC_UNREACHABLE_DAYS", float, 0, "days"),
)


def _flag(settings: BaseSettings, name: str, default: bool) -> bool:
    value = settings.get(name, default)
    text = str(value).strip().lower()
    if isinstance(value, (bool, int, str)) or value is None:
        if text in _TRUE:
            return True
        if text in _FALSE:
            return False
    raise _invalid(name, value, "True or False")


def _store(settings: BaseSettings) -> str | None:
    from .stores import valid_store

    value = settings.get("ROBOTSTXT_RFC_STORE")
    if value is None:
        return None
    if not isinstance(value, str) or not valid_store(value):
        raise _invalid(
            "ROBOTSTXT_RFC_STORE",
            value,
            '"memory", "sqlite:///path/to/file.db" or "redis://host:port/db"',
        )
    return value


def _path(settings: BaseSettings, name: str) -> str | None:
    value = settings.get(name)
    if value is None:
        return None
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str) or not value.strip():
        raise _invalid(name, value, "a file path")
    return value


@dataclass(frozen=True, slots=True)
class Config:
    """Every ``ROBOTSTXT_RFC_*`` setting, validated; README.rst documents each."""

    mode: Mode = "rfc"
    #: RFC 9309 §2.3.1.2: "SHOULD follow at least five consecutive redirects".
    max_redirects: int = 5
    #: RFC 9309 §2.5: the limit "MUST be at least 500 kibibytes".
    max_bytes: int = MAX_BYTES
    #: RFC 9309 §2.4: at most 24 hours.
    cache_ttl: float = DEFAULT_TTL
    max_origins: int = 10_000
    timeout: float = 30.0
    unreachable_retry: float = 30.0
    unreachable_wait: float = 600.0
    crawl_delay: bool = False
    crawl_delay_max: float = 60.0
    #: ``ROBOTSTXT_USER_AGENT``; ``None`` when unset.
    robots_user_agent: str | None = None
    #: ``USER_AGENT``.
    user_agent: str = ""
    #: ``ROBOTSTXT_RFC_STORE``; ``None`` when unset (memory, or a SQLite
    #: file in ``JOBDIR``).
    store: str | None = None
    #: HTTP-7: days unreachable with no good copy before allowing all.
    unreachable_days: float = 30.0
    #: ``ROBOTSTXT_RFC_REPORT``: where the per-origin table is written as
    #: JSON lines when the spider closes; ``None`` when unset.
    report: str | None = None

    @property
    def allow_after(self) -> float:
        """HTTP-7: seconds unreachable with no good copy before allowing all."""
        return self.unreachable_days * 86400

    @classmethod
    def from_settings(cls, settings: BaseSettings) -> Config:
        """Read and check the settings; ``ValueError`` names the first bad one."""
        default = cls()
        robots_ua = settings.get("ROBOTSTXT_USER_AGENT")
        if robots_ua is not None and not isinstance(robots_ua, str):
            raise _invalid("ROBOTSTXT_USER_AGENT", robots_ua, "a string")
        numbers: dict[str, Any] = {
            field: _number(settings, name, getattr(default, field), kind, minimum, unit)
            for field, name, kind, minimum, unit in _NUMBERS
        }
        return cls(
            mode=mode_from_settings(settings),
            crawl_delay=_flag(settings, "ROBOTSTXT_RFC_CRAWL_DELAY", default.crawl_delay),
            robots_user_agent=robots_ua or None,
            store=_store(settings),
            user_agent=str(settings.get("USER_AGENT") or ""),
            report=_path(settings, "ROBOTSTXT_RFC_REPORT"),
            **numbers,
        )
