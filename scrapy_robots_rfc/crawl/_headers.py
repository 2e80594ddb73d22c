"""Reading a header of a request or a response on the request path.

Scrapy's ``Headers`` normalise the name on every lookup (``normkey``), and
``get`` and ``getlist`` find a missing header by raising and catching an
exception. Most responses have none of the headers the middleware reads
(``X-Robots-Tag``, ``Content-Usage``, ``Content-Signal``), and most requests
have no ``User-Agent`` yet when ``process_request`` sees them
(``UserAgentMiddleware`` comes later): so each name is normalised once, by
:func:`header_name`, and looked for among the keys, which hold the
normalised names, before it is read.
"""

from __future__ import annotations

from scrapy.http import Headers


def header_name(name: bytes) -> bytes:
    """``name`` as Scrapy's ``Headers`` keep it."""
    return Headers().normkey(name)


def header_values(headers: Headers, name: bytes) -> list[bytes]:
    """The values of the header ``name`` (from :func:`header_name`) in
    ``headers``, in order; none without it."""
    # The keys, not Headers.__contains__, which would normalise ``name`` again.
    return headers.getlist(name) if name in headers.keys() else []  # noqa: SIM118
