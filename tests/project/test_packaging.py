"""The sdist carries the whole project (MANIFEST.in), so that its tests run
from an unpacked sdist: the helper modules and data the tests read, the demo
project, the docs, and every other file of the checkout but ``.gitignore``.
The wheel carries the package with its data files: ``py.typed`` and the
JSON Schemas of the outputs.

The file list is setuptools' own reading of MANIFEST.in: ``egg_info`` writes
the list the sdist is made of (``SOURCES.txt``). ``.ci/package`` builds the
sdist itself and runs its tests; this is the fast check of ``make test``.
"""

from __future__ import annotations

import ast
import configparser
import email.parser
import re
import shutil
import subprocess
import sys
from email.message import Message
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Folders whose every file the tests, the demo or the Makefile read.
SHIPPED_WHOLE = ("tests", "example_project", "docs", "benchmarks", ".ci")
#: Files no user of the sdist needs.
NOT_SHIPPED = frozenset({".gitignore"})


def _sdist_files(egg_base: Path) -> set[str]:
    """The files ``python -m build --sdist`` would put in the sdist."""
    setup = "from setuptools import setup; setup()"
    subprocess.run(
        [sys.executable, "-c", setup, "egg_info", "--egg-base", str(egg_base)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    sources = egg_base / "scrapy_robots_rfc.egg-info" / "SOURCES.txt"
    return set(sources.read_text(encoding="utf-8").splitlines())


def _on_disk(folder: str) -> set[str]:
    return {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / folder).rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix != ".pyc"
        # the site `make docs` builds, and the conformance figures it writes
        # first (.gitignore, MANIFEST.in's prune)
        and not path.relative_to(ROOT).as_posix().startswith(("docs/_build/", "docs/_generated/"))
    }


def test_the_sdist_carries_the_test_suite_and_what_it_reads(tmp_path: Path) -> None:
    shipped = _sdist_files(tmp_path)
    needed = set().union(*(_on_disk(folder) for folder in SHIPPED_WHOLE))
    assert "tests/conftest.py" in needed
    assert "tests/data/rfc_cases.json" in needed
    # What the code, the README and the tests cite (tests/project/test_spec_ids.py).
    assert {"docs/decisions.md", "docs/spec-ids.md"} <= needed
    assert sorted(needed - shipped) == []
    for name in ("LICENSE", "CHANGELOG.rst", "README.rst", "Makefile", "tox.ini"):
        assert name in shipped


def test_the_sdist_carries_every_file_of_the_checkout(tmp_path: Path) -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout (an unpacked sdist?): git lists the project's files")
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout.splitlines()
    project = {name for name in listed if name not in NOT_SHIPPED and (ROOT / name).is_file()}
    assert sorted(project - _sdist_files(tmp_path)) == []


def test_the_oldest_scrapy_required_is_the_one_tested() -> None:
    """setup.cfg's minimum is the Scrapy that ``make test-oldest`` and tox's
    ``oldest`` run, and the README's: Scrapy 2.13.0 to 2.13.3 fail inside
    Scrapy with current Twisted."""
    setup = (ROOT / "setup.cfg").read_text(encoding="utf-8")
    [minimum] = re.findall(r"^\s*scrapy>=([\d.]+)$", setup, re.MULTILINE)
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.findall(r"^OLDEST_SCRAPY := ([\d.]+)$", makefile, re.MULTILINE) == [minimum]
    tox = (ROOT / "tox.ini").read_text(encoding="utf-8")
    assert re.findall(r"\[testenv:oldest\]\ndeps =\n\s+scrapy==([\d.]+)", tox) == [minimum]
    readme = (ROOT / "README.rst").read_text(encoding="utf-8")
    assert f"* Scrapy {minimum} or later (tested with {minimum} and " in readme


def test_the_wheel_carries_the_package_data(tmp_path: Path) -> None:
    """``build_py``, which the wheel is built from, copies every data file
    (setup.cfg's package_data): nothing an installed package reads is missing."""
    setup = "from setuptools import setup; setup()"
    subprocess.run(
        [sys.executable, "-c", setup, "build_py", "--build-lib", str(tmp_path / "lib")],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    built = {
        path.relative_to(tmp_path / "lib").as_posix()
        for path in (tmp_path / "lib").rglob("*")
        if path.is_file()
    }
    data = {
        path.relative_to(ROOT).as_posix()
        for path in (ROOT / "scrapy_robots_rfc").rglob("*")
        if path.is_file() and path.suffix in (".json", ".typed")
    }
    assert "scrapy_robots_rfc/schemas/check.json" in data
    assert sorted(data - built) == []


def _imported_top_level_modules() -> set[str]:
    """Every module the package imports, at the top or inside a function,
    by its top-level name (``redis`` for ``redis.exceptions``)."""
    found: set[str] = set()
    for path in (ROOT / "scrapy_robots_rfc").rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found.update(alias.name.partition(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                found.add(node.module.partition(".")[0])
    return found


def _declared_distributions() -> set[str]:
    """The distributions setup.cfg names: ``install_requires`` and every
    extra, by their normalised names."""
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    lines = config["options"]["install_requires"].splitlines()
    for extra in config["options.extras_require"].values():
        lines += extra.splitlines()
    names = set()
    for line in lines:
        line = line.split("#", 1)[0].strip()
        if line:
            names.add(_normalised(re.split(r"[<>=!~;\[ ]", line, maxsplit=1)[0]))
    return names


def _normalised(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def _scrapy_requires() -> set[str]:
    """The distributions Scrapy itself requires (not through an extra):
    every install of Scrapy has them (Twisted, w3lib, parsel...)."""
    from importlib.metadata import requires

    names = set()
    for line in requires("scrapy") or []:
        if "extra ==" not in line:
            names.add(_normalised(re.split(r"[<>=!~;\[ (]", line, maxsplit=1)[0]))
    return names


def test_every_module_the_package_imports_is_declared() -> None:
    """A module the package imports comes from the standard library, from
    the package itself, from a distribution setup.cfg declares, or from one
    Scrapy itself requires: never from one that happens to be installed
    with Scrapy's own dependencies (``idna`` came through tldextract and
    Twisted's until it was declared)."""
    from importlib.metadata import packages_distributions

    providers = packages_distributions()
    undeclared = {}
    declared = _declared_distributions() | _scrapy_requires()
    assert {"twisted", "w3lib"} <= declared
    for module in sorted(_imported_top_level_modules()):
        if module in sys.stdlib_module_names or module in ("scrapy_robots_rfc", "__future__"):
            continue
        names = {_normalised(name) for name in providers.get(module, [module])}
        if not names & declared:
            undeclared[module] = sorted(names)
    assert undeclared == {}


def _built_metadata(egg_base: Path) -> Message:
    """The core metadata setuptools builds from setup.cfg (``PKG-INFO``, as
    the sdist and the wheel carry it, and as ``pip show`` reads it)."""
    setup = "from setuptools import setup; setup()"
    subprocess.run(
        [sys.executable, "-c", setup, "egg_info", "--egg-base", str(egg_base)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    info = egg_base / "scrapy_robots_rfc.egg-info" / "PKG-INFO"
    return email.parser.Parser().parsestr(info.read_text(encoding="utf-8"))


def test_the_metadata_names_author_license_status_and_versions(tmp_path: Path) -> None:
    """``pip show`` had no author, and the classifiers named no Python
    version and no development status (issue 43)."""
    metadata = _built_metadata(tmp_path)
    assert metadata["Author"] == "The scrapy-robots-rfc developers"
    assert metadata["License"] == "BSD-3-Clause"
    assert (ROOT / "LICENSE").read_text(encoding="utf-8").startswith("BSD 3-Clause License\n")
    assert "robots.txt" in metadata["Keywords"].split(",")
    assert "scrapy" in metadata["Keywords"].split(",")
    classifiers = metadata.get_all("Classifier")
    for classifier in (
        "Framework :: Scrapy",
        "Intended Audience :: Developers",
        "Operating System :: OS Independent",
        "Typing :: Typed",
    ):
        assert classifier in classifiers
    [status] = [c for c in classifiers if c.startswith("Development Status :: ")]
    assert status == "Development Status :: 4 - Beta"
    # PEP 639 deprecates License classifiers for the license field above
    assert [c for c in classifiers if c.startswith("License :: ")] == []
    # Python: from the oldest python_requires allows, each minor version in turn
    [oldest] = re.findall(r"^>=3\.(\d+)$", metadata["Requires-Python"])
    minors = [
        int(found[0])
        for c in classifiers
        if (found := re.findall(r"^Programming Language :: Python :: 3\.(\d+)$", c))
    ]
    assert minors == list(range(int(oldest), int(oldest) + len(minors)))
    assert len(minors) >= 2


def test_the_metadata_links_nothing_unpublished(tmp_path: Path) -> None:
    """No home page or project URL until there is a published place to point
    at (issue 43: the README named a documentation site where nothing was
    published); the long description is the README, whose links
    tests/project/test_readme.py checks."""
    metadata = _built_metadata(tmp_path)
    assert metadata.get("Home-page") in (None, "UNKNOWN")
    assert metadata.get_all("Project-URL") is None
    assert metadata.get("Download-URL") in (None, "UNKNOWN")
    assert "readthedocs" not in metadata.as_string().lower()
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg", encoding="utf-8")
    assert {"url", "project_urls", "download_url"}.isdisjoint(config["metadata"])


def test_setup_py_cites_what_exists() -> None:
    """setup.py's docstring pointed at README.rst's "Two builds" and at an
    install page of the docs, neither of which exists (issue 43)."""
    text = (ROOT / "setup.py").read_text(encoding="utf-8")
    docstring = ast.get_docstring(ast.parse(text)) or ""
    for path, section in re.findall(
        r"((?:docs/)?[\w-]+\.(?:rst|md|py|cfg)),\s+\"([^\"]+)\"", docstring
    ):
        page = (ROOT / path).read_text(encoding="utf-8")
        assert f"\n{section}\n" in page, (path, section)
    for path in re.findall(r"\b((?:docs/)?[\w-]+\.(?:rst|md|cfg))\b", docstring):
        assert (ROOT / path).is_file(), path
    assert "docs/quickstart.rst" in docstring
