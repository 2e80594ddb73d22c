"""What the benchmark scripts share: where the corpus is, URLs built from a
file's own rules, and plain-text tables. Scripts import it as a sibling
module (``python benchmarks/bench_x.py`` puts this folder on ``sys.path``)."""

from __future__ import annotations

import os
import random
import re
from collections.abc import Sequence
from importlib import metadata
from pathlib import Path

#: The host of every generated URL.
HOST = "http://example.com"
#: The value of an allow or disallow line.
RULE_VALUE = re.compile(r"^[ \t]*(?:dis)?allow[ \t]*:[ \t]*([^\s#]+)", re.I | re.M)


def shared_dir() -> Path:
    """The team's shared folder: ``$ROBOTS_SHARED``, else ``../shared``."""
    env = os.environ.get("ROBOTS_SHARED")
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[2] / "shared"


def rule_paths(values: Sequence[str], rng: random.Random) -> list[str]:
    """Paths that exercise rules with these values (``*`` made literal,
    ``$`` dropped), a few around each, plus two generic ones; no duplicates."""
    paths: list[str] = []
    for value in values:
        path = value.replace("*", "x")
        if path.endswith("$"):
            path = path[:-1]
        if not path.startswith("/"):
            path = "/" + path
        paths += [path, path.rstrip("/") + "/page.html", path + "?q=1"]
    paths += [f"/products/{rng.randint(1, 99_999)}", "/"]
    return list(dict.fromkeys(paths))


def table(headers: Sequence[str], rows: Sequence[Sequence[str]], left: int = 1) -> str:
    """A plain-text table; the first ``left`` columns are left-aligned."""
    widths = [max(len(h), *(len(r[i]) for r in rows)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        out = [
            cell.ljust(width) if i < left else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "  ".join(out).rstrip()

    rule = "  ".join("-" * w for w in widths)
    return "\n".join([line(headers), rule, *(line(r) for r in rows)])


def version(dist: str) -> str:
    """The installed version of ``dist``, or ``?``."""
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return "?"
