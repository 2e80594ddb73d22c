"""Long names in the sidebar wrap at their underscores.

The theme's sidebar is 300 px wide and clips what does not fit; a setting's
name (``ROBOTSTXT_RFC_UNREACHABLE_RETRY``) has no space to wrap at. Each
underscore, and each dot before a letter (``scrapy_robots_rfc.policy``), in
the sidebar's link texts is followed by ``<wbr>``, a place the line may
break that adds no character (a copied name stays whole);
docs/_static/custom.css breaks what is still too long where the line ends.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sphinx.application import Sphinx

#: A text node of the rendered navigation: what lies between two tags.
_TEXT = re.compile(r">([^<]+)<")
#: Where a name may break: after an underscore, or a dot before a letter.
_BREAK = re.compile(r"(_|\.(?=[A-Za-z]))")


def with_breaks(html: str) -> str:
    """``html`` with ``<wbr>`` where its text's names may break (never in a tag)."""
    return _TEXT.sub(lambda match: ">" + _BREAK.sub(r"\1<wbr>", match[1]) + "<", html)


def _page_context(
    app: Sphinx, pagename: str, templatename: str, context: dict[str, Any], doctree: Any
) -> None:
    toctree = context.get("toctree")
    if callable(toctree):
        context["toctree"] = lambda **kwargs: with_breaks(toctree(**kwargs))


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("html-page-context", _page_context)
    return {"parallel_read_safe": True}
