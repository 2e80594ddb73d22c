"""The crawler's names, and the name each request is decided for
(docs/decisions.md "crawler name", D-21 and D-22).

The crawler's own names are ``ROBOTSTXT_USER_AGENT``'s (several for a
crawler family, most specific first), else the product of ``USER_AGENT``
that names the crawler. A request with a User-Agent header of its own is
decided for the product that header names, unless ``ROBOTSTXT_USER_AGENT``
is set. In rfc mode, a name that is not a product token (``[A-Za-z_-]+``,
RFC 9309 §2.2.1) is reduced to the crawler's product name, with one WARNING
per name saying what was taken.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from ..robotstxt import ascii_lower, caller_name, crawler_name, name_problem, product_token
from ._headers import header_name, header_values

if TYPE_CHECKING:
    from scrapy.http import Request

    from .._runtime import Runtime
    from ..robotstxt import Token
    from ._config import Config

logger = logging.getLogger(__name__)

#: User-Agent headers whose names are remembered at most; the table is
#: emptied when it is full (a crawl rotating headers stays bounded).
_MOST_HEADERS = 64
_USER_AGENT = header_name(b"User-Agent")


def names_for(user_agent: str, names: tuple[str, ...] | None) -> tuple[str, ...]:
    """The crawler's names for a request identified by ``user_agent``: the
    names of ``ROBOTSTXT_USER_AGENT`` (``names``, a family's most specific
    first, D-22) when it is set, else the product of the User-Agent header
    ``user_agent`` that names the crawler (docs/decisions.md "crawler
    name"). The one rule of the middleware and the ``RobotParser``."""
    if names is not None:
        return names
    return (product_token(user_agent),)


class CrawlerNames:
    """The crawler's names, read once from the settings, and the
    lower-cased name (:data:`Token`) each request is decided for."""

    def __init__(self, config: Config, runtime: Runtime) -> None:
        self._runtime = runtime
        self._mode = config.mode
        self._fixed = config.robots_user_agent is not None
        #: Names already warned about, and what was said of the crawler's own.
        self._warned: set[str] = set()
        self._notes: list[str] = []
        #: User-Agent header -> lower-cased name.
        self._tokens: dict[bytes, str] = {}
        source = "ROBOTSTXT_USER_AGENT" if self._fixed else f"USER_AGENT {config.user_agent!r}"
        names = tuple(
            self._checked(name, source, own=True)
            for name in names_for(config.user_agent, config.robots_names)
        )
        #: Most specific first: one for a crawler, several for a family.
        self.names = names
        #: The key of a cache entry's rules for the crawler: the lower-cased
        #: name, or the family's lower-cased names (D-22).
        self.token: Token = (
            ascii_lower(names[0]) if len(names) == 1 else tuple(map(ascii_lower, names))
        )

    @property
    def name(self) -> str:
        """The crawler's names joined with ``", "``."""
        return ", ".join(self.names)

    @property
    def notes(self) -> tuple[str, ...]:
        """For each of the crawler's own names that is not a product token,
        what was taken and which groups apply (D-21)."""
        return tuple(self._notes)

    def of(self, request: Request) -> Token:
        """The lower-cased name ``request`` is decided for:
        ``ROBOTSTXT_USER_AGENT``, else the crawler's product in the request's
        User-Agent header, else in ``USER_AGENT``."""
        if self._fixed:
            return self.token
        values = header_values(request.headers, _USER_AGENT)
        header = values[-1] if values else None
        if not header:
            return self.token
        try:
            return self._tokens[header]
        except KeyError:
            if len(self._tokens) >= _MOST_HEADERS:
                self._tokens.clear()
            text = caller_name(header)
            [name] = names_for(text, None)
            name = self._checked(name, f"the User-Agent header {text!r}")
            token = self._tokens[header] = ascii_lower(name)
            return token

    def _checked(self, name: str, source: str, *, own: bool = False) -> str:
        """The name the rules are looked up for (D-21: in rfc mode a name
        that is not a product token is reduced to the crawler's product
        name), with one WARNING per such name saying what was taken and
        which groups it selects; the crawler's ``own`` names keep it for
        :attr:`notes`."""
        problem = name_problem(name, self._mode)
        if problem is not None and name not in self._warned:
            self._warned.add(name)
            if own:
                self._notes.append(f"the name {name!r} {problem}")
            logger.warning(
                "The robots.txt name of this crawler, %(name)r from %(source)s, %(problem)s. "
                "If that is not what you want, set ROBOTSTXT_USER_AGENT to the name site "
                'owners use for your crawler, e.g. ROBOTSTXT_USER_AGENT = "MyBot".',
                {"name": name, "source": source, "problem": problem},
                extra=self._runtime.log,
            )
        return crawler_name(name, self._mode)
