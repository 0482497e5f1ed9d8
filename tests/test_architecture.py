"""The interpreter's shape, read from its source: imports flow one way, privates stay private, modules stay short."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent / "interpreter"
MAX_LINES = 400

# Known exceptions (none left: the second YAML parser and the hand-written sheet merge are gone).
EXPECTED_CYCLE_EDGES: set[tuple[str, str]] = set()
EXPECTED_PRIVATE: set[tuple[str, str]] = set()
EXPECTED_LONG: set[str] = set()


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict[str, Path]:
    return {module_name(p): p for p in sorted(ROOT.rglob("*.py"))}


def resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an import-from names, relative imports included."""
    if not node.level:
        return node.module or ""
    base = module.split(".")
    if not is_package:
        base.pop()
    for _ in range(node.level - 1):
        base.pop()
    return ".".join(base + ([node.module] if node.module else []))


def imports(known: dict[str, Path]) -> tuple[dict[str, set[str]], list[tuple[str, str, str]]]:
    """Each module's imported interpreter modules (at any depth of the source), and every imported _name."""
    graph: dict[str, set[str]] = {}
    private: list[tuple[str, str, str]] = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        targets: set[str] = set()
        for node in ast.walk(tree):  # every import, also those inside functions and `if TYPE_CHECKING`
            if isinstance(node, ast.Import):
                for alias in node.names:
                    targets.add(alias.name)
            elif isinstance(node, ast.ImportFrom):
                source = resolve(module, path.name == "__init__.py", node)
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    if full in known:  # `from package import module`
                        targets.add(full)
                        continue
                    targets.add(source)
                    if alias.name.startswith("_") and source.startswith("interpreter"):
                        private.append((module, source, alias.name))
        graph[module] = {t for t in targets if t in known and t != module and not module.startswith(t + ".")}
    return graph, private


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph.get(node, ())):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while True:
                top = stack.pop()
                on_stack.discard(top)
                group.append(top)
                if top == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_imports_inside_functions_and_relative_ones(tmp_path: Path) -> None:
    """The checker itself: a cycle hidden in a function and a relative private import are both found."""
    source = ("from . import b\n", "def f():\n    from .a import _hidden\n")
    tree_a, tree_b = (ast.parse(s) for s in source)
    known = {"interpreter.x.a": tmp_path / "a.py", "interpreter.x.b": tmp_path / "b.py"}
    for path, text in zip(known.values(), source, strict=True):
        path.write_text(text)
    graph, private = imports(known)
    assert graph == {"interpreter.x.a": {"interpreter.x.b"}, "interpreter.x.b": {"interpreter.x.a"}}
    assert cycles(graph) == [["interpreter.x.a", "interpreter.x.b"]]
    assert private == [("interpreter.x.b", "interpreter.x.a", "_hidden")]
    assert tree_a and tree_b


def test_no_import_cycles() -> None:
    graph, _ = imports(modules())
    for a, b in EXPECTED_CYCLE_EDGES:
        if a in graph:
            graph[a].discard(b)
    assert cycles(graph) == []


def test_no_module_imports_a_private_name_of_another() -> None:
    _, private = imports(modules())
    assert [p for p in private if (p[0], p[1]) not in EXPECTED_PRIVATE] == []


def test_every_module_is_at_most_400_lines() -> None:
    long = {name: n for name, path in modules().items()
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_LINES and name not in EXPECTED_LONG}
    assert long == {}


# The folders (and top-level modules) of interpreter/, each allowed to import only what lies before it.
# The base modules serve every folder (and one another); api and the front ends (lsp, cli) come last:
# `rules lsp` is a command of the cli group, so cli imports lsp (when that command is asked for), never back.
# The pipeline comes after procedure: it hands the table of step kinds (procedure.kinds) to the compiler.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("errors", "limits", "record", "hints", "absent", "budget", "words"),
    ("load",),
    ("formula",),
    ("dice",),
    ("ruleset",),
    ("procedure",),
    ("watchers",),
    ("pipeline",),
    ("sheet",),
    ("api",),
    ("lsp",),
    ("cli",),
)


def layer_of(module: str) -> int:
    """The index in LAYERS of a module's folder (or of the top-level module itself)."""
    parts = module.split(".")
    if len(parts) == 1:  # interpreter/__init__.py, the package's face, re-exports the api: it stands with it
        return LAYERS.index(("api",))
    for i, names in enumerate(LAYERS):
        if parts[1] in names:
            return i
    raise AssertionError(f"{module} lies in no layer of LAYERS: add its folder there")


def backward_imports(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    """Every import of a module in a later folder, or of another folder of the same layer."""
    out = []
    for module, targets in sorted(graph.items()):
        for target in sorted(targets):
            a, b = layer_of(module), layer_of(target)
            same_folder = module.split(".")[:2] == target.split(".")[:2] or module == "interpreter"
            if b > a or (b == a and not same_folder and a > 0):
                out.append((module, target))
    return out


def test_the_layer_check_sees_an_import_that_points_back() -> None:
    """The checker itself: formula importing procedure is refused, procedure importing formula is not."""
    graph = {"interpreter.formula.x": {"interpreter.procedure.y"}, "interpreter.procedure.y": {"interpreter.formula.z"}}
    assert backward_imports(graph) == [("interpreter.formula.x", "interpreter.procedure.y")]


def test_folders_import_only_folders_before_them() -> None:
    graph, _ = imports(modules())
    assert backward_imports(graph) == []


STRAY = (".orig", ".rej", ".bak", ".swp", ".swo", "~", ".tmp")


def test_no_tracked_file_is_a_leftover() -> None:
    """Patch leftovers and editor backups are not source, whatever their name says."""
    import subprocess

    listed = subprocess.run(["git", "ls-files"], cwd=ROOT.parent, capture_output=True, text=True, check=False)
    if listed.returncode != 0:
        import pytest

        pytest.skip("not a git checkout")
    stray = [name for name in listed.stdout.splitlines() if name.endswith(STRAY) or "/.#" in name]
    assert stray == []


def test_every_package_folder_is_installed() -> None:
    """A folder missing from pyproject.toml's packages works in the checkout and breaks `pip install .`."""
    import tomllib

    listed = set(tomllib.loads((ROOT.parent / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["setuptools"]["packages"])
    folders = {module_name(p) for p in ROOT.rglob("__init__.py")}
    assert folders - listed == set()
