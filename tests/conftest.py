from __future__ import annotations

import os
from pathlib import Path

import pytest

#: The team's shared folder (spec, corpus), beside the checkout. Tests that
#: read from it skip when it is absent, e.g. for a user of the sdist.
SHARED = Path(os.environ.get("ROBOTS_SHARED", Path(__file__).resolve().parents[2] / "shared"))
CORPUS = SHARED / "corpus" / "robots"
DATA = Path(__file__).parent / "data"


def corpus_files() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    return sorted(p for p in CORPUS.iterdir() if p.suffix == ".txt")


requires_corpus = pytest.mark.skipif(
    not corpus_files(),
    reason=f"the real-world robots.txt corpus ({CORPUS}) is not here; it is read in place "
    "and never shipped with the project",
)
