"""Reading a header of a request or a response on the request path.

Scrapy's ``Headers`` normalise the name on every lookup (``normkey``), and
``get`` and ``getlist`` find a missing header by raising and catching an
exception. Most responses have none of the headers the middleware reads
(``X-Robots-Tag``, ``Content-Usage``, ``Content-Signal``), and most requests
have no ``User-Agent`` yet when ``process_request`` sees them
(``UserAgentMiddleware`` comes later): so each name is normalised once, by
:func:`header_name`, and its values are read with one lookup among the
normalised keys, as ``Headers.getlist`` reads them once it has normalised
the name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from scrapy.http import Headers

if TYPE_CHECKING:
    from collections.abc import Sequence

#: ``dict.get``, unbound: ``Headers`` is a ``dict`` of normalised names to
#: lists of values, and its own ``get`` normalises the name again.
_values_of = dict.get


def header_name(name: bytes) -> bytes:
    """``name`` as Scrapy's ``Headers`` keep it."""
    return Headers().normkey(name)


def header_values(headers: Headers, name: bytes) -> Sequence[bytes]:
    """The values of the header ``name`` (from :func:`header_name`) in
    ``headers``, in order (``Headers.getlist``); none without it."""
    return _values_of(headers, name) or ()
