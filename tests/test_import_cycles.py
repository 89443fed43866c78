"""No import cycles among the package's own modules, imports inside functions included.

Every module is parsed (nothing is imported), every ``import`` and ``from ... import``
at any depth (module level, inside functions and methods) becomes an edge, relative
imports are resolved, and a name taken from a package is followed to the child module
that defines it (``from ..kernels import pairwise_kernels`` is an edge to
``kernels.engine``), so that a cycle through a re-export shows. A package's own
``__init__`` importing its children is not an edge: that is how it re-exports them.
Imports of other packages (lazy imports of NumPy, Dask, matplotlib ...) are no edges.
"""

import ast
from pathlib import Path

import graphinvariants

PACKAGE = Path(graphinvariants.__file__).parent


def modules_of(root):
    """``{dotted name: (path, is_package)}`` for every ``.py`` file under ``root``."""
    out = {}
    for path in sorted(root.rglob("*.py")):
        parts = list(path.relative_to(root.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    return out


def _absolute(module, is_package, node):
    """The module an ``ImportFrom`` node names, relative imports resolved."""
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph(root):
    """``{module: set of modules it imports}`` among the modules under ``root``."""
    modules = modules_of(root)
    trees = {name: ast.parse(path.read_text(encoding="utf-8")) for name, (path, _) in modules.items()}
    # names each package's __init__ takes from its children, to follow re-exports
    reexports = {}
    for name, (_, is_package) in modules.items():
        if is_package:
            for node in ast.walk(trees[name]):
                if isinstance(node, ast.ImportFrom):
                    source = _absolute(name, True, node)
                    for alias in node.names:
                        reexports[(name, alias.asname or alias.name)] = (source, alias.name)

    def defining_module(source, attribute, seen=()):
        if f"{source}.{attribute}" in modules:
            return f"{source}.{attribute}"
        if (source, attribute) in reexports and source not in seen:
            inner, name = reexports[(source, attribute)]
            return defining_module(inner, name, seen + (source,))
        return source if source in modules else None

    graph = {name: set() for name in modules}
    for name, (_, is_package) in modules.items():
        for node in ast.walk(trees[name]):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _absolute(name, is_package, node)
                targets = [defining_module(source, alias.name) for alias in node.names]
            else:
                continue
            for target in targets:
                if target is None or target not in modules or target == name:
                    continue
                if is_package and target.startswith(name + "."):
                    continue  # a package re-exporting its own children
                graph[name].add(target)
    return graph


def cycles(graph):
    """The strongly connected components of more than one module (Tarjan), sorted."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return sorted(out)


def test_the_package_has_no_import_cycle():
    graph = import_graph(PACKAGE)
    assert len(graph) > 50  # every module was found
    assert cycles(graph) == []


def test_a_cycle_through_an_import_inside_a_function_is_found(tmp_path):
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("from .top import show\nfrom .sub import Result\n")
    (package / "sub" / "__init__.py").write_text("from .result import Result\n")
    (package / "sub" / "result.py").write_text(
        "import numpy\n\nclass Result:\n    def plot(self):\n        from ..top import show\n        return show(self)\n"
    )
    (package / "top.py").write_text("from .sub import Result  # via the re-export\n\ndef show(r):\n    return r\n")
    graph = import_graph(package)
    assert graph["pkg.top"] == {"pkg.sub.result"}  # followed through sub/__init__
    assert graph["pkg.sub"] == set()  # re-exporting its own child is no edge
    assert cycles(graph) == [["pkg.sub.result", "pkg.top"]]
    (package / "top.py").write_text("def show(r):\n    return r\n")
    assert cycles(import_graph(package)) == []


DESIGN = PACKAGE.parent / "docs" / "design.rst"


def design_floors(text):
    """The floors of docs/design.rst's layer diagram, top first: lists of entries
    (``"search"``, ``"estimator.py"``) of ``graphinvariants/``, as the page writes them."""
    section = text.split("The layers\n----------\n", 1)[1].split("\n----", 1)[0]
    block = section.split(".. code-block:: text\n", 1)[1]
    floors, floor = [], []
    for line in block.splitlines():
        if line and not line.startswith("   "):
            break  # the end of the code block
        if line.strip() == "|":
            floors.append(floor)
            floor = []
        elif line[3:4].strip():  # an entry starts at the block's own indent
            floor.append(line.split()[0].rstrip("/"))
    floors.append(floor)
    return floors


def entries_of(root):
    """What ``graphinvariants/`` holds besides ``__init__.py``: packages and modules."""
    return sorted(p.name for p in root.iterdir() if p.name not in ("__init__.py", "__pycache__")
                  and (p.suffix == ".py" or (p / "__init__.py").exists()))


def test_the_design_page_lists_every_package_once():
    floors = design_floors(DESIGN.read_text(encoding="utf-8"))
    listed = [entry for floor in floors for entry in floor]
    assert len(listed) == len(set(listed)), listed
    assert sorted(listed) == entries_of(PACKAGE)
    assert len(floors) >= 8 and len(listed) <= 15  # estimator.py and at most 14 subpackages


def test_imports_run_down_the_floors_of_the_design_page():
    floors = design_floors(DESIGN.read_text(encoding="utf-8"))
    level = {entry.removesuffix(".py"): depth for depth, floor in enumerate(floors) for entry in floor}
    graph = import_graph(PACKAGE)
    upward = []
    for module, targets in graph.items():
        parts = module.split(".")
        if len(parts) < 2:
            continue  # graphinvariants/__init__.py: the public face imports from every floor
        for target in targets:
            a, b = parts[1], target.split(".")[1] if "." in target else None
            if b is None or a == b:
                continue
            if level[b] <= level[a]:  # the importer's floor must be above the imported one's
                upward.append(f"{module} -> {target}")
    assert upward == []


def test_the_diagram_is_read_floor_by_floor():
    assert ["estimator.py"] in design_floors(DESIGN.read_text(encoding="utf-8"))
    assert design_floors("The layers\n----------\n\n.. code-block:: text\n\n   a/   x\n   b/   y\n     |\n   c/\n\nEnd\n"
                         "----\n") == [["a", "b"], ["c"]]
