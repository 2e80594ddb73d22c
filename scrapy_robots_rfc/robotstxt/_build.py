"""Which build of the pure core is loaded: the pure Python one (the
reference, and the default from source) or the one compiled with mypyc
(a wheel built with ``SCRAPY_ROBOTS_RFC_USE_MYPYC=1``, setup.py).

Both are the same source and give the same verdicts: the whole test suite
runs against each (``make test`` and ``make test-compiled``).
"""

from __future__ import annotations

from importlib import import_module
from importlib.machinery import EXTENSION_SUFFIXES
from typing import Literal

#: The modules of this package that the compiled build compiles, in the
#: order they import each other; setup.py reads this tuple.
COMPILED = (
    "_directives",
    "_canonical",
    "_names",
    "_patterns",
    "_rule_tree",
    "_matcher",
    "_usage",
    "_parser",
)

Build = Literal["pure", "compiled", "mixed"]


def build() -> Build:
    """Which build of the pure core is loaded: ``"compiled"`` when every
    module of ``COMPILED`` was loaded from an extension module (a wheel
    built with ``SCRAPY_ROBOTS_RFC_USE_MYPYC=1``), ``"pure"`` when none
    was, ``"mixed"`` otherwise (a partial install: rebuild or reinstall
    it). Both builds give the same answers; the compiled one is faster.

    >>> build() in ("pure", "compiled")
    True
    """
    package = __name__.rpartition(".")[0]
    compiled = 0
    for name in COMPILED:
        path = getattr(import_module(f"{package}.{name}"), "__file__", None) or ""
        compiled += path.endswith(tuple(EXTENSION_SUFFIXES))
    if compiled == len(COMPILED):
        return "compiled"
    return "pure" if compiled == 0 else "mixed"
