"""``.. conformance-table::`` renders the figures of the other projects' test
suites (docs/conformance.rst) from the JSON that the conformance run writes
(``pytest tests/conformance/test_conformance.py --conformance-figures=PATH``, which
``make docs`` runs first), so that the page never states a figure the tests
did not produce. Without that file the build fails, saying how to make it.

The directive writes reStructuredText (a list-table, then what is not
applicable, suite by suite) and has Sphinx parse it in place.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from conformance_table import FIGURES, table_rst
from docutils import nodes
from docutils.statemachine import StringList
from sphinx.application import Sphinx
from sphinx.util.docutils import SphinxDirective


class ConformanceTable(SphinxDirective):
    has_content = False

    def run(self) -> list[nodes.Node]:
        path = Path(self.env.srcdir) / FIGURES
        if not path.is_file():
            raise self.error(
                f"{path} is missing: run 'make docs', or first 'python -m pytest "
                f"tests/conformance/test_conformance.py --conformance-figures={path}'"
            )
        self.env.note_dependency(str(path))
        figures = json.loads(path.read_text(encoding="utf-8"))
        container = nodes.container()
        self.state.nested_parse(StringList(table_rst(figures), str(path)), 0, container)
        return list(container.children)


def setup(app: Sphinx) -> dict[str, Any]:
    app.add_directive("conformance-table", ConformanceTable)
    return {"parallel_read_safe": True}
