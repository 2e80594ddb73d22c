"""The two builds of the pure core (setup.py, robotstxt/_build.py): which
one is loaded, and the doctests of the compiled modules run against it.

``make test`` runs the suite against the pure build, ``make
test-compiled`` (.ci/compiled) against the compiled one; there pytest
cannot collect a compiled module's doctests (it is an extension module), so
they are read here from the module's source and run in the namespace of the
module that is loaded, whichever build it is.
"""

from __future__ import annotations

import ast
import doctest
import os
from importlib import import_module
from pathlib import Path
from types import ModuleType, SimpleNamespace

import pytest

import scrapy_robots_rfc
from scrapy_robots_rfc.robotstxt import COMPILED, RobotsTxt, _build, build

ROBOTSTXT = Path(scrapy_robots_rfc.__file__).parent / "robotstxt"
#: .ci/compiled sets it; every other run is of the pure build.
EXPECTED = os.environ.get("SCRAPY_ROBOTS_RFC_EXPECT_BUILD", "pure")


def test_the_expected_build_is_loaded() -> None:
    assert build() == EXPECTED
    assert scrapy_robots_rfc.build is build


def test_the_compiled_build_keeps_the_semantics_of_the_keys() -> None:
    """The case that a plain mypyc run got wrong: a module-level tuple is
    boxed anew at each read when compiled, so keys told apart by the
    identity of their spellings tuple were never user-agent lines."""
    robots = RobotsTxt.parse(b"User-agent: *\nDisallow: /private\n")
    assert robots.allowed("https://a.com/private/x", "Bot") is False
    assert robots.allowed("https://a.com/public", "Bot") is True


def test_every_compiled_module_is_a_module_of_the_pure_core() -> None:
    assert len(set(COMPILED)) == len(COMPILED)
    for name in COMPILED:
        assert (ROBOTSTXT / f"{name}.py").is_file(), name


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        (["x.py"] * len(COMPILED), "pure"),
        (["x.cpython-311-x86_64-linux-gnu.so"] * len(COMPILED), "compiled"),
        (["x.cpython-311-x86_64-linux-gnu.so"] + ["x.py"] * (len(COMPILED) - 1), "mixed"),
    ],
)
def test_build_tells_pure_compiled_and_mixed(
    monkeypatch: pytest.MonkeyPatch, files: list[str], expected: str
) -> None:
    modules = dict(zip((f"scrapy_robots_rfc.robotstxt.{n}" for n in COMPILED), files, strict=True))
    monkeypatch.setattr(
        _build, "import_module", lambda name: SimpleNamespace(__file__=modules[name])
    )
    monkeypatch.setattr(_build, "EXTENSION_SUFFIXES", [".cpython-311-x86_64-linux-gnu.so", ".so"])
    assert build() == expected


def _docstring_tests(name: str) -> list[doctest.DocTest]:
    """The doctests in the docstrings of ``robotstxt/<name>.py``, read from
    its source, with the loaded module's namespace as their globals."""
    module: ModuleType = import_module(f"scrapy_robots_rfc.robotstxt.{name}")
    path = ROBOTSTXT / f"{name}.py"
    parser = doctest.DocTestParser()
    tests = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if not isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef):
            continue
        text = ast.get_docstring(node, clean=False)
        if not text:
            continue
        where = getattr(node, "name", name)
        line = getattr(node, "lineno", 0)
        test = parser.get_doctest(text, dict(vars(module)), f"{name}.{where}", str(path), line)
        if test.examples:
            tests.append(test)
    return tests


DOCTESTS = [(name, test) for name in COMPILED for test in _docstring_tests(name)]


def test_the_compiled_modules_have_doctests() -> None:
    # A module whose doctests were lost would pass the test below silently.
    assert len(DOCTESTS) >= 10
    assert {name for name, _ in DOCTESTS} >= {"_names", "_parser", "_usage"}
    if build() == "pure":
        # Read from the source, they are the ones doctest finds in the modules.
        finder = doctest.DocTestFinder()
        found = [
            t
            for name in COMPILED
            for t in finder.find(import_module(f"scrapy_robots_rfc.robotstxt.{name}"))
            if t.examples
        ]
        assert sorted(len(t.examples) for _, t in DOCTESTS) == sorted(
            len(t.examples) for t in found
        )


@pytest.mark.parametrize(("name", "test"), DOCTESTS, ids=[t.name for _, t in DOCTESTS])
def test_doctest_against_the_loaded_build(name: str, test: doctest.DocTest) -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    out: list[str] = []
    runner.run(test, out=out.append)
    assert runner.failures == 0, "".join(out)
    assert runner.tries == len(test.examples)


def test_version_says_the_build() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "scrapy_robots_rfc", "--version"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert (
        out.strip()
        == f"python -m scrapy_robots_rfc {scrapy_robots_rfc.__version__} ({EXPECTED} build)"
    )


def test_the_value_classes_pickle_in_both_builds() -> None:
    """A frozen dataclass compiled by mypyc cannot be unpickled field by
    field; each rebuilds itself from its fields (``__reduce__``), so a
    request's meta keeps its preferences across JOBDIR in either build."""
    import pickle

    from scrapy_robots_rfc.robotstxt import header_preferences, parse_statement

    body = b"User-agent: *\nDisallow: /a\nAllow: /a/index.html\nContent-Usage: train-ai=n\n"
    robots = RobotsTxt.parse(body)
    prefs = robots.usage("https://e.com/b", "Bot")
    values = [
        *robots.groups,
        robots.explain("https://e.com/a/x", "Bot"),
        robots.groups[0].rules[0],
        *robots.notes,
        prefs,
        prefs.preference("train-ai"),
        header_preferences([b"search=y"]),
        parse_statement(b"train-ai=y, search=n", "content-usage"),
    ]
    assert prefs["train-ai"] == "disallow"
    for value in values:
        copy = pickle.loads(pickle.dumps(value))
        assert copy == value
        assert type(copy) is type(value)


def test_the_switch_fails_a_build_without_the_compiler(tmp_path: Path) -> None:
    """``SCRAPY_ROBOTS_RFC_USE_MYPYC=1`` with a compiler that cannot be
    imported fails the build, naming the switch and what to install,
    instead of making a pure wheel; asking for the build requirements
    (``egg_info``, PEP 517) still works, so that the front end can install
    the compiler."""
    import subprocess
    import sys

    root = ROBOTSTXT.parents[1]
    if not (root / "setup.py").is_file():
        pytest.skip("setup.py is not beside the package (an installed wheel)")
    # A mypyc package that fails to import, first on the path.
    (tmp_path / "mypyc").mkdir()
    (tmp_path / "mypyc" / "__init__.py").write_text("raise ImportError('no compiler here')\n")
    env = {
        **os.environ,
        "SCRAPY_ROBOTS_RFC_USE_MYPYC": "1",
        "PYTHONPATH": str(tmp_path),
        "PYTHONDONTWRITEBYTECODE": "1",
    }

    def setup_py(*command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, str(root / "setup.py"), *command],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )

    built = setup_py("build_ext", "--build-lib", str(tmp_path / "out"))
    assert built.returncode != 0
    assert "SCRAPY_ROBOTS_RFC_USE_MYPYC=1 asks for the compiled build" in built.stderr
    assert "no compiler here" in built.stderr
    assert "mypy==" in built.stderr
    assert not (tmp_path / "out").exists()
    # Not a build: the requirements step (egg_info) reads the switch
    # without failing.
    asked = setup_py("egg_info", "--egg-base", str(tmp_path))
    assert asked.returncode == 0, asked.stderr
    (info,) = tmp_path.glob("*.egg-info")
    assert (info / "PKG-INFO").read_text().startswith("Metadata-Version")
