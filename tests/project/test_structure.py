"""The package's structure stays as README.rst "How it works" describes it:
no module reaches into another's private names, another package's private
modules or another object's private attributes, every public module says
what it exports and no private module does (its package's ``__init__``
says it). Which package may import which is ``lint-imports``'s to
check (setup.cfg, ``[importlinter]``). Files are split
by concern, never by a line count: there is no size cap.

Counted on the source with :mod:`ast`, so that it stays true as code moves.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "scrapy_robots_rfc"
MODULES = sorted(PACKAGE.rglob("*.py"))


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


#: namedtuple's public methods, which start with "_" to leave room for fields.
_NAMEDTUPLE_API = frozenset(("_make", "_replace", "_asdict", "_fields", "_field_defaults"))


def _private(name: str) -> bool:
    if name in _NAMEDTUPLE_API:
        return False
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _imported_module(module: str, node: ast.ImportFrom, is_package: bool) -> str | None:
    """The package module an ``import from`` names, or ``None`` outside it."""
    if node.level == 0:
        target = node.module or ""
        return target if target.split(".")[0] == "scrapy_robots_rfc" else None
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


def _imports() -> list[tuple[str, str, str, int]]:
    """``(importer, module, name, line)`` for each name imported from a
    package module by another."""
    found = []
    for path in MODULES:
        module = _name(path)
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.ImportFrom):
                target = _imported_module(module, node, path.name == "__init__.py")
                if target is not None:
                    found.extend((module, target, a.name, node.lineno) for a in node.names)
    return found


_MODULE_NAMES = frozenset(_name(path) for path in MODULES)


def _package(module: str) -> str:
    """The package ``module`` belongs to (itself for a package)."""
    if (PACKAGE.parent / module.replace(".", "/") / "__init__.py").exists():
        return module
    return module.rpartition(".")[0]


def _reaches_in(importer: str, module: str) -> bool:
    """Whether ``module`` is private to a package ``importer`` is not in: a
    private module (``_name``) belongs to its package and the packages
    inside it; another package goes through the names its ``__init__``
    exports."""
    parts = module.split(".")
    inside = _package(importer) + "."
    return any(
        _private(part) and not inside.startswith(".".join(parts[:i]) + ".")
        for i, part in enumerate(parts)
        if i
    )


def test_no_private_name_is_imported_from_another_module():
    """Private functions, classes and constants stay in their module;
    private modules are imported only inside their own package."""
    found = [
        f"{importer}:{line} imports {name} from {module}"
        for importer, module, name, line in _imports()
        if _private(name) and f"{module}.{name}" not in _MODULE_NAMES
    ]
    assert found == []


def test_no_module_reaches_into_another_packages_private_module():
    """``crawl`` imports ``from ..stores import RedisStore``, never
    ``from ..stores._redis import RedisStore``."""
    found = [
        f"{importer}:{line} imports {name} from {module}"
        for importer, module, name, line in _imports()
        if _reaches_in(importer, module)
        or (f"{module}.{name}" in _MODULE_NAMES and _reaches_in(importer, f"{module}.{name}"))
    ]
    assert found == []


def test_the_reach_in_check_sees_a_reach_in():
    """The rule above, on names: a package's own private module and the
    root's shared ones pass; another package's private module does not."""
    root = "scrapy_robots_rfc"
    assert not _reaches_in(f"{root}.stores._redis", f"{root}.stores._redis_lua")
    assert not _reaches_in(f"{root}.crawl._fetcher", f"{root}._logging")
    assert not _reaches_in(f"{root}.crawl.middleware", f"{root}.stores")
    assert _reaches_in(f"{root}.crawl.middleware", f"{root}.stores._redis")
    assert _reaches_in(f"{root}.policy._policy", f"{root}.robotstxt._matcher")


def test_no_private_attribute_of_another_object_is_read():
    """``x._attr`` only on ``self`` or ``cls``: nothing else's insides."""
    found = []
    for path in MODULES:
        for node in ast.walk(_tree(path)):
            if isinstance(node, ast.Attribute) and _private(node.attr):
                owner = node.value
                if not (isinstance(owner, ast.Name) and owner.id in ("self", "cls")):
                    found.append(f"{_name(path)}:{node.lineno} reads .{node.attr}")
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "getattr":
                key = node.args[1] if len(node.args) > 1 else None
                text = key.value if isinstance(key, ast.Constant) else None
                if isinstance(text, str) and _private(text):
                    found.append(f"{_name(path)}:{node.lineno} getattr {text}")
    assert found == []


def _all(path: Path) -> list[str] | None:
    for node in _tree(path).body:
        if isinstance(node, ast.AnnAssign):
            targets, value = [node.target], node.value
        elif isinstance(node, ast.Assign):
            targets, value = node.targets, node.value
        else:
            continue
        if value is not None and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in targets
        ):
            found = ast.literal_eval(value)
            assert isinstance(found, list)
            return found
    return None


def _public_modules() -> list[Path]:
    return [
        path
        for path in MODULES
        if path.name != "__main__.py"
        and not any(_private(part) for part in path.relative_to(PACKAGE).with_suffix("").parts)
    ]


@pytest.mark.parametrize("path", _public_modules(), ids=_name)
def test_every_public_module_declares_all(path: Path):
    exported = _all(path)
    assert exported is not None, f"{_name(path)} has no __all__ (or rename it _{path.name})"
    assert len(exported) == len(set(exported)), "a name is listed twice"
    tree = _tree(path)
    defined: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((a.asname or a.name).split(".")[0] for a in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
    if path.name == "__init__.py" and path.parent == PACKAGE:
        defined.update(_lazy_names(tree))
    assert sorted(set(exported) - defined) == [], "listed in __all__ but not defined"


def _lazy_names(tree: ast.Module) -> set[str]:
    for node in tree.body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "_LAZY":
            return set(ast.literal_eval(node.value))
    return set()


def test_what_modules_import_from_each_other_is_in_their_all():
    exports = {_name(path): _all(path) for path in _public_modules()}
    missing = sorted(
        f"{importer}:{line} imports {name} from {module}, not in its __all__"
        for importer, module, name, line in _imports()
        if exports.get(module) is not None
        and name not in exports[module]  # type: ignore[operator]
        and not _private(name)
        and f"{module}.{name}" not in exports  # a submodule
    )
    assert missing == []


def _private_modules() -> list[Path]:
    return [
        path
        for path in MODULES
        if any(_private(part) for part in path.relative_to(PACKAGE).with_suffix("").parts)
    ]


def _all_declared(paths: list[Path]) -> list[tuple[Path, int]]:
    """Each top-level statement that binds ``__all__`` (``=``, annotated or
    ``+=``) in ``paths``: its file and line."""
    found = []
    for path in paths:
        for node in _tree(path).body:
            if isinstance(node, ast.Assign):
                targets = node.targets
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            else:
                continue
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                found.append((path, node.lineno))
    return found


def test_no_private_module_declares_all():
    """A private module's names are reached through its package's
    ``__init__``, whose ``__all__`` is the interface; an ``__all__`` in the
    module itself would be a second surface, and an untrue one."""
    private = _private_modules()
    assert private, "no private module found: the check would check nothing"
    found = [f"{_name(path)}:{line} declares __all__" for path, line in _all_declared(private)]
    assert found == []


def test_the_all_check_sees_an_all(tmp_path: Path):
    """The check above reports each way of declaring ``__all__``, and
    nothing in a module without one."""
    forms = {
        "_plain.py": '__all__ = ["x"]\nx = 1\n',
        "_annotated.py": 'x = 1\n__all__: list[str] = ["x"]\n',
        "_extended.py": 'x = 1\n__all__ += ["x"]\n',
        "_none.py": "x = 1\n",
    }
    for name, text in forms.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    found = [(path.stem, line) for path, line in _all_declared(sorted(tmp_path.iterdir()))]
    assert found == [("_annotated", 2), ("_extended", 2), ("_plain", 1)]


def _graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (``TYPE_CHECKING`` and
    function-level imports included, as ``lint-imports`` counts them)."""
    graph: dict[str, set[str]] = {name: set() for name in _MODULE_NAMES}
    for importer, module, name, _line in _imports():
        target = f"{module}.{name}"
        graph[importer].add(target if target in _MODULE_NAMES else module)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The groups of modules that import each other, directly or not
    (Tarjan's strongly connected components of more than one module, or
    of one that imports itself)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = [stack.pop()]
            while group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1 or node in graph.get(node, ()):
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_import_cycle():
    assert _cycles(_graph()) == []


def test_the_cycle_check_sees_a_cycle():
    graph = _graph()
    graph["scrapy_robots_rfc.robotstxt._patterns"].add("scrapy_robots_rfc.robotstxt._matcher")
    (group,) = _cycles(graph)
    assert {"robotstxt._matcher", "robotstxt._patterns"} <= {m.split(".", 1)[1] for m in group}
