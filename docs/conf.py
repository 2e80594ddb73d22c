"""Sphinx configuration of the documentation site (``make docs``).

Intersphinx (links into Scrapy's and Python's docs) needs the network, so it
is on only where the network is part of the build: on Read the Docs
(``READTHEDOCS`` is set there) or when ``DOCS_INTERSPHINX=1``. Elsewhere
(``make docs``, CI) the build is offline: references to Scrapy, Twisted and
the standard library render as plain text, and only the project's own
references are checked (nitpicky), so that a broken one fails ``-W``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "_ext"))
sys.path.insert(0, str(HERE.parent))

from scrapy_robots_rfc import __version__  # noqa: E402

project = "scrapy_robots_rfc"
author = "scrapy_robots_rfc contributors"
copyright = "scrapy_robots_rfc contributors"
release = version = __version__

extensions = [
    "sphinx_scrapy",  # :setting:, :reqmeta:, :signal:, :command:, :stat:; autodoc; intersphinx
    "sphinx.ext.doctest",
    "myst_parser",  # docs/decisions.md and docs/spec-ids.md stay Markdown
    "clihelp",  # the CLI's --help, rendered from its argparse parsers
    "conformance",  # the other projects' test suites, from the conformance run's figures
    "navbreaks",  # long names in the sidebar wrap at their underscores
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
master_doc = "index"
exclude_patterns = ["_build", "_generated", "dev"]
html_theme = "sphinx_rtd_theme"
html_title = f"scrapy_robots_rfc {release}"
# The site's address: only the one a host that publishes it gives the build
# (Read the Docs sets READTHEDOCS_CANONICAL_URL). Nothing is published yet,
# so a build names no address: no canonical link, no sitemap (which needs
# one), and sphinx_scrapy's guess of an address is undone in setup() below.
html_baseurl = os.environ.get("READTHEDOCS_CANONICAL_URL", "")
suppress_warnings = ["sitemap.configuration"] if not html_baseurl else []
# docs/_static/custom.css: table cells wrap between words, never inside one
# (the theme keeps a cell on one line and lets a link break anywhere), and
# the sidebar wraps long names (the theme clips them).
html_static_path = ["_static"]
html_css_files = ["custom.css"]

# myst: decisions.md's headings get anchors (their ``<a id>`` stays the
# stable anchor the project cites), and its tables render.
myst_heading_anchors = 3
myst_enable_extensions = ["attrs_inline"]
suppress_warnings += ["myst.header"]

autodoc_member_order = "bysource"
# The sidebar lists an object by its own name (RobotsTxt, parse()), under its
# module and class.
toc_object_entries_show_parents = "hide"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "show-inheritance": True}

ONLINE = bool(os.environ.get("READTHEDOCS")) or os.environ.get("DOCS_INTERSPHINX") == "1"
if not ONLINE:
    # sphinx_scrapy adds Scrapy's and Python's inventories by default.
    scrapy_intersphinx_disable = ["scrapy", "python"]
    intersphinx_mapping: dict[str, tuple[str, str | None]] = {}

# Broken references to this package fail the build; references outside it
# (Scrapy, Twisted, the standard library, type hints) link through
# intersphinx when it is on and are plain text otherwise.
nitpicky = True
nitpick_ignore_regex = [
    (r"py:.*", r"(?!scrapy_robots_rfc\b).*"),
    (r"py:.*", r"scrapy_robots_rfc\..*\._.*"),  # private modules' names in type hints
]


def _published_address_only(app: Any, config: Any) -> None:
    """sphinx_scrapy (config-inited, priority 500) fills an empty
    ``html_baseurl`` with an address on Read the Docs where nothing is
    published; keep the one this file set."""
    config.html_baseurl = html_baseurl


def setup(app: Any) -> None:
    app.connect("config-inited", _published_address_only, priority=900)
