"""URL -> origin: the scope of one robots.txt file (RFC 9309 §2.3).

Pure: no Scrapy import. An origin is a scheme, a lower-case IDNA host and a
port; userinfo, path, query and fragment do not matter (LOC-2, LOC-3,
LOC-4, LOC-8), and only ``http`` and ``https`` URLs have one (LOC-7).
"""

from __future__ import annotations

from typing import NamedTuple
from urllib.parse import urlsplit

from ..robotstxt import ROBOTS_TXT_PATH

#: LOC-3: a default port is the same as no port.
DEFAULT_PORTS = {"http": 80, "https": 443}


class Origin(NamedTuple):
    """The scope of one robots.txt file: scheme, lower-case IDNA host, port
    (RFC 9309 §2.3; LOC-2, LOC-3, LOC-4, LOC-8: userinfo is dropped)."""

    scheme: str
    host: str
    port: int

    @property
    def robots_url(self) -> str:
        """``scheme://host[:port]/robots.txt`` (LOC-1)."""
        return f"{self}{ROBOTS_TXT_PATH}"

    def __str__(self) -> str:
        if self.port == DEFAULT_PORTS[self.scheme]:
            return f"{self.scheme}://{self.host}"
        return f"{self.scheme}://{self.host}:{self.port}"


def origin(url: str) -> Origin | None:
    """The origin of ``url``, or ``None`` when robots.txt does not apply.

    Only ``http`` and ``https`` are checked (LOC-7); a URL without a host or
    with an invalid port has no origin either, and Scrapy's own download
    fails on it.

    >>> origin("HTTP://User:pw@Exämple.COM:80/a?b")
    Origin(scheme='http', host='xn--exmple-cua.com', port=80)
    >>> str(origin("https://example.com:8443/"))
    'https://example.com:8443'
    >>> origin("ftp://example.com/") is None
    True
    """
    try:
        parts = urlsplit(url)
        scheme = parts.scheme.lower()
        default = DEFAULT_PORTS.get(scheme)
        if default is None:
            return None
        host = parts.hostname
        port = parts.port or default
    except ValueError:
        return None
    if not host:
        return None
    if ":" in host:
        host = f"[{host}]"  # IPv6 literal
    elif not host.isascii():
        host = _idna(host)
    return Origin(scheme, host, port)


def _idna(host: str) -> str:
    """LOC-4: an IDN host is the same as its punycode form (UTS #46, else
    IDNA 2003, else the host as given)."""
    import idna

    try:
        return idna.encode(host, uts46=True).decode("ascii")
    except idna.IDNAError:
        try:
            return host.encode("idna").decode("ascii")
        except UnicodeError:
            return host


class Origins:
    """:func:`origin` with a memo, for the request path: a crawl asks for
    the same few origins millions of times.

    The memo is keyed by the URL up to its path, so it holds one entry per
    ``scheme://authority`` seen, and is emptied when it reaches ``size``.

    >>> origins = Origins()
    >>> origins("https://example.com/a") is origins("https://example.com/b")
    True
    >>> origins("data:text/plain,x") is None
    True
    """

    __slots__ = ("_memo", "_size")

    def __init__(self, size: int = 4096) -> None:
        self._memo: dict[str, Origin | None] = {}
        self._size = size

    def __call__(self, url: str) -> Origin | None:
        if not url[:8].lower().startswith(("http://", "https://")):
            return None  # LOC-7; and a data: URL must not fill the memo
        end = url.find("/", url.find("//") + 2)
        prefix = url if end < 0 else url[:end]
        try:
            return self._memo[prefix]
        except KeyError:
            if len(self._memo) >= self._size:
                self._memo.clear()
            found = self._memo[prefix] = origin(prefix)
            return found
