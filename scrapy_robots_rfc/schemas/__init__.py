"""The JSON outputs: their shipped JSON Schemas, the ``schema`` member that
names each, and the objects more than one of them carries.

Four outputs print JSON, each one object per line but ``scrapy robots``:

=================  =========================================  ==================
``schema``         output                                     schema file
=================  =========================================  ==================
:data:`CHECK`      ``python -m scrapy_robots_rfc check        ``check.json``
                   --json``, one object per URL
:data:`LINT`       ``python -m scrapy_robots_rfc lint         ``lint.json``
                   --json``, one object per finding
:data:`ROBOTS`     ``scrapy robots --json``                   ``robots.json``
:data:`REPORT`     the ``ROBOTSTXT_RFC_REPORT`` file, one     ``report.json``
                   object per origin, then the totals
=================  =========================================  ==================

The same thing has the same key and value in each: ``robots``
(:func:`robots_object`: what the robots.txt fetch found, before any rule is
looked at), ``verdict`` (:meth:`.Verdict.as_dict`), ``user_agent``
(:func:`user_agent_object`), ``usage`` (:meth:`.Preferences.as_dict`),
``page`` (:func:`page_object`, with ``--page``),
``mode``, ``source``, ``fetches``, ``redirects``. Each schema file is whole
on its own (its shared pieces under ``$defs``, the same in every file that
has them), so that any JSON Schema validator takes it as it is:

>>> import json
>>> from scrapy_robots_rfc import schemas
>>> schema = schemas.load("check")
>>> schema["properties"]["schema"]["const"] == schemas.CHECK
True

A new version of an output gets a new ``schema`` value (``.../2``); until
then keys are only added, never renamed or given another meaning.

Pure: no Scrapy import; the files are read with :mod:`importlib.resources`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:
    from ..pagerules import PageRules
    from ..policy import State
    from ..robotstxt import CrawlDelay
    from ..tdmrep import TdmValue

__all__ = [
    "CHECK",
    "IDS",
    "LINT",
    "REPORT",
    "ROBOTS",
    "load",
    "page_object",
    "robots_object",
    "user_agent_object",
]

#: The ``schema`` member of each output, also the ``const`` of its schema's
#: ``schema`` property.
CHECK = "scrapy_robots_rfc/check/1"
LINT = "scrapy_robots_rfc/lint/1"
ROBOTS = "scrapy_robots_rfc/robots/1"
REPORT = "scrapy_robots_rfc/report/1"

#: Schema name (its file's, without ``.json``) -> the ``schema`` member.
IDS: dict[str, str] = {"check": CHECK, "lint": LINT, "robots": ROBOTS, "report": REPORT}

#: Where the crawler's name came from: ``check --user-agent`` and ``scrapy
#: robots --user-agent``, or the settings a crawl reads (D-21, D-22).
NameOrigin = Literal["--user-agent", "ROBOTSTXT_USER_AGENT", "USER_AGENT"]


def load(name: str) -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the output ``name``: ``check``,
    ``lint``, ``robots`` or ``report`` (:data:`IDS`)."""
    if name not in IDS:
        raise ValueError(f"no schema named {name!r}: the schemas are {', '.join(IDS)}")
    text = resources.files(__name__).joinpath(f"{name}.json").read_text(encoding="utf-8")
    schema: dict[str, Any] = json.loads(text)
    return schema


def robots_object(
    *,
    url: str | None,
    source: str | None,
    status: int | None,
    state: State | None,
    outcome: str | None,
) -> dict[str, Any]:
    """The ``robots`` object of ``check``, ``scrapy robots`` and the report:
    what the robots.txt fetch found, before any rule is looked at (RFC 9309
    §2.3.1).

    ``url`` is the robots.txt asked for (``None`` for a file or standard
    input); ``source`` where the robots.txt in force was read, the end of
    the redirects (RFC 9309 §2.3.1.2) or the file; ``status`` the HTTP status
    of the last response; ``state`` what the status policy made of it
    (:class:`~.policy.State`) and ``outcome`` the same in words ("200",
    "404: no robots.txt: allow all", "HTTP 503"). ``None`` where there is
    nothing to say: no response, no fetch yet, a file.
    """
    return {
        "url": url,
        "source": source,
        "status": status,
        "state": None if state is None else state.value,
        "outcome": outcome or None,
    }


def user_agent_object(names: Sequence[str], given: str, origin: NameOrigin) -> dict[str, Any]:
    """The ``user_agent`` object of ``check`` and ``scrapy robots``: the
    crawler's ``names`` the groups were looked up for, most specific first
    (in rfc mode each reduced to a product name, D-21; a crawler family's,
    D-22), the value ``given`` and where it was given (``origin``)."""
    return {"names": list(names), "given": given, "from": origin}


def crawl_delay_from(delay: CrawlDelay | None) -> dict[str, Any] | None:
    """The ``crawl_delay_from`` object of ``check`` and ``scrapy robots``:
    the crawl-delay line in force for the crawler (its number) and the
    user-agent lines it belongs to, the run directly above it (D-17);
    ``None`` without one."""
    if delay is None:
        return None
    return {"line": delay.line, "agents": list(delay.agents)}


def page_object(rules: PageRules, *, url: str, status: int | None) -> dict[str, Any]:
    """The ``page`` object of ``check --page`` and ``scrapy robots --page``:
    the page-level rules of the page at ``url`` (its last response's
    ``status``) for the crawler (P-1 to P-3): each directive with where it
    came from and whom it is for, what they add up to, and
    ``unavailable_after`` in ISO 8601."""
    when = rules.unavailable_after
    return {
        "url": url,
        "status": status,
        "rules": str(rules),
        "directives": [
            {
                "name": directive.name,
                "value": directive.value,
                "source": directive.source,
                "applies_to": directive.applies_to,
            }
            for directive in rules.directives
        ],
        **{name: getattr(rules, name) for name in _FLAGS},
        "unavailable_after": None if when is None else when.isoformat(),
    }


#: The flags of :class:`~.pagerules.PageRules` in a ``page`` object.
_FLAGS = (
    "noindex",
    "nofollow",
    "noarchive",
    "nosnippet",
    "noimageindex",
    "notranslate",
    "noai",
    "noimageai",
)


def tdm_object(value: TdmValue, *, file: str | None) -> dict[str, Any]:
    """The ``tdm`` object of ``check --tdm`` and ``scrapy robots --tdm``: a
    URL's TDM reservation (T-1 to T-3), what decided it, and what the fetch
    of its origin's ``tdmrep.json`` found (``file``; ``None`` for a file
    read from disk)."""
    source = value.source
    return {
        "reservation": value.reservation,
        "reserved": value.reserved,
        "policy": value.policy,
        "source": None if source is None else str(source),
        "rule": None if source is None else source.rule,
        "location": None if source is None else source.location,
        "errors": list(value.errors),
        "text": str(value),
        "file": file,
    }
