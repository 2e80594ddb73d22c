"""Page-level rules in a crawl (P-1 to P-5): what the robots meta tag and
the ``X-Robots-Tag`` header of a response say for this crawler, read when
asked, and honoured only when the crawl asks (P-4 revised).

A crawl that asks for none pays nothing per response:
:meth:`PageGate.read` reads a response's rules when a callback asks
(``scrapy_robots_rfc.page_rules(response, crawler)``), once per response.
Only a crawl that honours them (``ROBOTSTXT_RFC_NOFOLLOW``,
``ROBOTSTXT_RFC_NOINDEX = "drop"``) gets them on every response, in
``response.meta`` (:data:`.pagerules.PAGE_RULES_META_KEY`):
:data:`.pagerules.NO_PAGE_RULES` when it has no ``X-Robots-Tag`` header and
no robots meta tag for this crawler (most pages), else a
:class:`PageRulesOnDemand`. That keeps the headers and, for an HTML
response, the start of the head up to its last such tag only
(:func:`.pagerules.head_end`); the rules are read the first time they are
asked for, and a 10 MB page costs no more than its head.

With ``ROBOTSTXT_RFC_NOFOLLOW``, the requests a callback yields from a page
that says ``nofollow`` for this crawler are dropped; with
``ROBOTSTXT_RFC_NOINDEX = "drop"``, so are the items it yields from a page
that says ``noindex``, or is past its ``unavailable_after`` (P-4). The
:class:`.PageRulesMiddleware` spider middleware asks :class:`PageGate`; each
drop has a ``robotstxt/page/*`` stat, a DEBUG line naming the directive and
where it came from, and a count in the crawl report. A request with
``dont_obey_robotstxt`` passes, and so does everything a page fetched with
it yields. robots.txt comes first (P-5): a page it disallows is never
fetched, so its page-level rules are never seen.
"""

from __future__ import annotations

import functools
import logging
import re
import weakref
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from scrapy.http import HtmlResponse
from w3lib.encoding import http_content_type_encoding

from .._logging import reaches_a_handler
from ..pagerules import NO_PAGE_RULES, PAGE_RULES_META_KEY, PageRules, head_end, read_page_rules
from ._headers import header_name, header_values

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from scrapy.http import Request, Response

    from .._runtime import Runtime
    from ..pagerules import Directive
    from ..policy import Origins
    from ..robotstxt import Token
    from ._config import Config
    from ._crawler_names import CrawlerNames
    from ._report import Report

logger = logging.getLogger(__name__)

_HEADER = header_name(b"X-Robots-Tag")
#: The stats of the pages whose rules a crawl with page-level rules off
#: leaves unhonoured, one per kind.
IGNORED = {
    "nofollow": "robotstxt/page/ignored/nofollow",
    "noindex": "robotstxt/page/ignored/noindex",
    "unavailable_after": "robotstxt/page/ignored/unavailable_after",
}
#: The setting that would honour each kind.
_HONOURED_BY = {
    "nofollow": "ROBOTSTXT_RFC_NOFOLLOW = True",
    "noindex": 'ROBOTSTXT_RFC_NOINDEX = "drop"',
    "unavailable_after": 'ROBOTSTXT_RFC_NOINDEX = "drop"',
}
_WHAT = {
    "nofollow": "follow its links",
    "noindex": "index it",
    "unavailable_after": "index it any more",
}
#: On a request a callback yields that is not a link followed (an API
#: call, a form): ``ROBOTSTXT_RFC_NOFOLLOW`` lets it through, robots.txt
#: still decides it.
DONT_FOLLOW_KEY = "dont_obey_page_rules"


class PageRulesOnDemand:
    """The value of ``response.meta["robotstxt_page_rules"]``: a response's
    page-level rules for the crawler (:class:`.pagerules.PageRules`), read
    from its ``X-Robots-Tag`` headers and its HTML head the first time
    anything is asked of it. :attr:`rules` is the
    :class:`~.pagerules.PageRules`; the other attributes are its own."""

    __slots__ = ("_encoding", "_head", "_headers", "_names", "_rules")

    def __init__(
        self,
        headers: tuple[bytes, ...],
        head: bytes | None,
        names: Sequence[str],
        encoding: str | None,
    ) -> None:
        self._headers = headers
        self._head = head
        self._names = tuple(names)
        self._encoding = encoding
        self._rules: PageRules | None = None

    @property
    def rules(self) -> PageRules:
        """The rules, read now if they were not yet."""
        rules = self._rules
        if rules is None:
            rules = self._rules = read_page_rules(
                self._headers, self._head, self._names, encoding=self._encoding
            )
            self._head = None  # what was read is all that is kept
        return rules

    @property
    def directives(self) -> tuple[Directive, ...]:
        return self.rules.directives

    @property
    def noindex(self) -> bool:
        return self.rules.noindex

    @property
    def nofollow(self) -> bool:
        return self.rules.nofollow

    @property
    def noarchive(self) -> bool:
        return self.rules.noarchive

    @property
    def nosnippet(self) -> bool:
        return self.rules.nosnippet

    @property
    def noimageindex(self) -> bool:
        return self.rules.noimageindex

    @property
    def notranslate(self) -> bool:
        return self.rules.notranslate

    @property
    def noai(self) -> bool:
        return self.rules.noai

    @property
    def noimageai(self) -> bool:
        return self.rules.noimageai

    @property
    def unavailable_after(self) -> datetime | None:
        return self.rules.unavailable_after

    def deciding(self, name: str) -> Directive | None:
        return self.rules.deciding(name)

    def expired(self, now: datetime) -> bool:
        return self.rules.expired(now)

    def __str__(self) -> str:
        return str(self.rules)

    def __repr__(self) -> str:
        return f"<page-level rules: {self.rules}>"

    def __getstate__(self) -> tuple[Any, ...]:
        rules = self.rules  # a JOBDIR queue pickles what was read, not the head
        return (self._headers, self._names, self._encoding, rules)

    def __setstate__(self, state: tuple[Any, ...]) -> None:
        self._headers, self._names, self._encoding, self._rules = state
        self._head = None


def page_rules_in(meta: Mapping[str, Any]) -> PageRules | PageRulesOnDemand | None:
    """The page-level rules the middleware put in a response's ``meta``
    (its request's: in ``process_response`` the response has none yet)."""
    found = meta.get(PAGE_RULES_META_KEY)
    return found if isinstance(found, (PageRules, PageRulesOnDemand)) else None


def _meta_of(response: Response) -> dict[str, Any] | None:
    """``response.meta``, or ``None`` for a response without its request."""
    try:
        return response.meta
    except AttributeError:
        return None


def _tags_part(body: bytes, tags: re.Pattern[bytes]) -> bytes | None:
    """The start of ``body``'s head up to the end of its last ``<meta>``
    tag that ``tags`` finds (:func:`_meta_names`: its ``name`` may be
    ``robots`` or one of the crawler's names, P-2), the only part that can
    hold page-level rules; ``None`` when there is no such tag. What is kept
    until the rules are read is then that part only, not a whole head of
    inline styles and scripts (and nothing for most pages, whose head is
    searched in place). A tag whose name is written with entities is not
    seen (P-1)."""
    end = head_end(body)
    found = tags.search(body, 0, end)
    if found is None:  # most pages
        return None
    *_, last = tags.finditer(body, found.start(), end)
    return bytes(body[: last.end()])


@functools.lru_cache(maxsize=64)
def _meta_names(names: tuple[str, ...]) -> re.Pattern[bytes]:
    """A ``<meta>`` tag whose ``name`` attribute starts with ``robots`` or
    one of ``names``, in any case."""
    alternatives = b"|".join(
        re.escape(name.encode("utf-8", "replace")) for name in ("robots", *names) if name
    )
    return re.compile(
        rb"<meta\b[^>]*?\bname\s*=\s*[\"']?\s*(?:" + alternatives + rb")[^>]*>", re.IGNORECASE
    )


class PageGate:
    """Reads a response's page-level rules when asked (:meth:`read`), puts
    them in each response's meta when the crawl honours them
    (:meth:`on_response`), and decides what a callback's output may keep
    (P-4)."""

    def __init__(self, runtime: Runtime, config: Config, report: Report, origins: Origins) -> None:
        self._runtime = runtime
        self._config = config
        self._report = report
        self._origins = origins
        #: What :meth:`read` read, per response (never in the meta, which
        #: a callback may copy into the next request).
        self._read: weakref.WeakKeyDictionary[Response, PageRules] = weakref.WeakKeyDictionary()
        #: Whether the INFO line of a page's rules left unhonoured is said.
        self._said = False

    def read(self, response: Response, token: Token) -> PageRules:
        """``response``'s page-level rules for the crawler's name ``token``
        (P-1 to P-3), read now, once per response: the one call a callback
        makes to know them (P-4 revised). In a crawl that honours them they
        are the ones of its meta."""
        meta = _meta_of(response)
        kept = None if meta is None or not self._config.page_rules else page_rules_in(meta)
        if kept is not None:
            return kept.rules if isinstance(kept, PageRulesOnDemand) else kept
        found = self._read.get(response)
        if found is None:
            on_demand = self._rules_of(response, token)
            found = on_demand.rules if isinstance(on_demand, PageRulesOnDemand) else on_demand
            self._read[response] = found
        return found

    def on_response(self, request: Request, response: Response, token: Token) -> None:
        """Set ``response``'s page-level rules for the crawler's name
        ``token`` (P-2: the name robots.txt uses, D-21; a family's names,
        D-22), in a crawl that reads them (it honours them, or its usage
        categories read ``noai``). Always set, so that meta copied from
        another response never carries that page's rules. A page that asks
        for what the crawl does not honour is noticed (:meth:`notice`)."""
        found = request.meta[PAGE_RULES_META_KEY] = self._rules_of(response, token)
        if not self._config.page_rules and isinstance(found, PageRulesOnDemand):
            self._noticed(response, found.rules)

    def notice(self, request: Request, response: Response, names: CrawlerNames) -> None:
        """In a crawl that leaves page-level rules off (the default, P-4):
        whether ``response`` asks for what a setting would honour
        (``nofollow``, ``noindex``, a past ``unavailable_after``), counted
        in ``robotstxt/page/ignored/<kind>``, and said once per crawl at
        INFO with the setting. A page without an ``X-Robots-Tag`` header
        costs one header lookup, and if it is HTML the search of its head
        for a robots meta tag (what :meth:`on_response` does for every
        page of a crawl that reads them); its rules are read only when
        found."""
        values = header_values(response.headers, _HEADER)
        if not values and not isinstance(response, HtmlResponse):
            return
        if request.meta.get("dont_obey_robotstxt"):
            return
        found = self._rules_of(response, names.of(request))
        if isinstance(found, PageRulesOnDemand):
            self._noticed(response, found.rules)

    def _noticed(self, response: Response, rules: PageRules) -> None:
        """``rules``, of ``response``, left unhonoured: a stat per kind it
        asks for, and the INFO line the first time in the crawl."""
        asked = [kind for kind in ("nofollow", "noindex") if getattr(rules, kind)]
        now = datetime.fromtimestamp(self._runtime.clock(), UTC)
        if not rules.noindex and rules.unavailable_after is not None and rules.expired(now):
            asked.append("unavailable_after")
        if not asked:
            return
        stats = self._runtime.stats
        for kind in asked:
            stats.inc_value(IGNORED[kind])
        if self._said:
            return
        self._said = True
        said = ", ".join(str(rules.deciding(kind) or kind) for kind in asked)
        settings = sorted({_HONOURED_BY[kind] for kind in asked})
        logger.info(
            "%(page)s asks this crawler not to %(what)s: %(said)s. Page-level rules are off, "
            "so the crawl does not honour it; set %(settings)s to honour it (said once; "
            "robotstxt/page/ignored/* counts the pages that ask)",
            {
                "page": response.url,
                "what": " or ".join(_WHAT[kind] for kind in asked),
                "said": said,
                "settings": " and ".join(settings),
            },
            extra=self._runtime.log,
        )

    @staticmethod
    def _rules_of(response: Response, token: Token) -> PageRules | PageRulesOnDemand:
        """The rules of ``response`` for ``token``, to read when asked:
        :data:`.NO_PAGE_RULES` for a page without any (most pages)."""
        values = header_values(response.headers, _HEADER)
        names = (token,) if isinstance(token, str) else token
        head = None
        if isinstance(response, HtmlResponse):
            head = _tags_part(response.body, _meta_names(names))
        if not values and not head:
            return NO_PAGE_RULES
        headers = tuple(values)
        content_type = response.headers.get(b"Content-Type")
        encoding = (
            http_content_type_encoding(content_type.decode("latin-1")) if content_type else None
        )
        return PageRulesOnDemand(headers, head, names, encoding)

    def request_from(self, response: Response, request: Request) -> Request | None:
        """``request``, yielded by a callback for ``response``, or ``None``
        to drop it: the page says ``nofollow`` for this crawler and
        ``ROBOTSTXT_RFC_NOFOLLOW`` is on."""
        meta = request.meta
        if not self._config.nofollow or meta.get("dont_obey_robotstxt"):
            return request
        if meta.get(DONT_FOLLOW_KEY):  # not a link: an API call, a form
            return request
        rules = self._obeyed_rules(response)
        if rules is None or not rules.nofollow:
            return request
        self._dropped(response, "nofollow", rules.deciding("nofollow"), request)
        return None

    def item_from(self, response: Response, item: Any) -> Any:
        """``item``, yielded by a callback for ``response``, or ``None`` to
        drop it: the page says ``noindex`` for this crawler, or is past its
        ``unavailable_after``, and ``ROBOTSTXT_RFC_NOINDEX`` is "drop"."""
        if self._config.noindex != "drop":
            return item
        rules = self._obeyed_rules(response)
        if rules is None:
            return item
        if rules.noindex:
            self._dropped(response, "noindex", rules.deciding("noindex"), item)
            return None
        if rules.unavailable_after is not None:
            now = datetime.fromtimestamp(self._runtime.clock(), UTC)
            if rules.expired(now):
                directive = rules.deciding("unavailable_after")
                self._dropped(response, "unavailable_after", directive, item)
                return None
        return item

    def _obeyed_rules(self, response: Response) -> PageRules | PageRulesOnDemand | None:
        """The rules of ``response``, unless it was fetched with
        ``dont_obey_robotstxt``."""
        meta = _meta_of(response)
        if meta is None or meta.get("dont_obey_robotstxt"):
            return None
        return page_rules_in(meta)

    def _dropped(
        self, response: Response, kind: str, directive: Directive | None, what: object
    ) -> None:
        self._runtime.stats.inc_value(f"robotstxt/page/{kind}")
        key = self._origins(response.url)
        if key is not None:
            row = self._report.row(key)
            if kind == "nofollow":
                row.page_nofollow += 1
            else:
                row.page_noindex += 1
        if reaches_a_handler(logger, logging.DEBUG):
            shown = what if kind == "nofollow" else f"an item ({type(what).__name__})"
            logger.debug(
                "Dropped %(what)s from %(page)s: the page says %(directive)s",
                {
                    "what": shown,
                    "page": response,
                    "directive": directive if directive is not None else kind,
                },
                extra=self._runtime.log,
            )
