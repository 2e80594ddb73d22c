"""The build switch for the compiled build of the pure core
(docs/quickstart.rst, "Two builds").

Pure Python is the reference and the default: ``pip install .``, the sdist
and an editable install build nothing. With ``SCRAPY_ROBOTS_RFC_USE_MYPYC=1``
in the environment, the wheel compiles the modules of
``scrapy_robots_rfc.robotstxt._build.COMPILED`` with mypyc (the compiler
mypy ships with, as black builds its wheels) and carries the ``.py`` files
beside the extension modules. Everything else is in setup.cfg.
"""

from __future__ import annotations

import ast
import os
import sys
from pathlib import Path

from setuptools import setup

HERE = Path(__file__).resolve().parent
#: What the compiled wheel is built with: the compiler, pinned (the suite
#: runs against the binaries this version makes: make test-compiled), and
#: the one dependency the compiled modules import, for its types.
MYPYC_REQUIREMENTS = ["mypy==2.4.1", "http-sf>=1.2"]
SWITCH = "SCRAPY_ROBOTS_RFC_USE_MYPYC"
#: The setup.py commands that build extension modules (a PEP 517 front end
#: runs bdist_wheel; ``build_ext --inplace`` by hand).
BUILDS = frozenset(("bdist_wheel", "build", "build_ext", "editable_wheel", "install", "develop"))


def compiled_modules() -> list[str]:
    """The paths of the modules to compile, read (not imported) from
    ``scrapy_robots_rfc/robotstxt/_build.py``, which ``build()`` checks."""
    source = HERE / "scrapy_robots_rfc" / "robotstxt" / "_build.py"
    for node in ast.parse(source.read_text("utf-8")).body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "COMPILED" for t in targets):
                names = ast.literal_eval(node.value)  # type: ignore[arg-type]
                return [f"scrapy_robots_rfc/robotstxt/{name}.py" for name in names]
    raise SystemExit(f"no COMPILED in {source}")


def extensions() -> list[object]:
    value = os.environ.get(SWITCH, "")
    if value not in ("", "0", "1"):
        raise SystemExit(f"{SWITCH} must be 1 (compile) or 0 (pure), not {value!r}")
    if value != "1":
        return []
    try:
        from mypyc.build import mypycify
    except ImportError as exc:
        if not BUILDS.isdisjoint(sys.argv[1:]):
            # A build that was asked for compiled modules must not quietly
            # make a pure wheel.
            raise SystemExit(
                f"{SWITCH}=1 asks for the compiled build, but the compiler cannot be "
                f"imported ({exc}): install {' and '.join(MYPYC_REQUIREMENTS)}, or unset "
                f"{SWITCH} for the pure build"
            ) from None
        # Asking for the build requirements (PEP 517, the egg_info command):
        # setup() below names the compiler; the front end installs it and
        # calls us again to build.
        return []
    opt_level = os.environ.get("MYPYC_OPT_LEVEL", "3")
    # The package's __init__ names the Scrapy-facing classes for type
    # checkers; the build environment has no Scrapy, and the modules that
    # import it are not compiled: their errors are not this build's.
    options = ["--follow-imports=silent"]
    return list(
        mypycify(
            [*options, *compiled_modules()], opt_level=opt_level, group_name="scrapy_robots_rfc"
        )
    )


USE_MYPYC = os.environ.get(SWITCH) == "1"
setup(
    ext_modules=extensions(),  # type: ignore[arg-type]
    setup_requires=MYPYC_REQUIREMENTS if USE_MYPYC else [],
)
