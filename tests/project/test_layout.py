"""memory/ is grouped by stage, and imports run one way: down the stages, never back up, never in a cycle."""
import ast
import os

from conftest import ROOT

# lowest first: a module may import its own stage and the stages before it
STAGES = ["core", "store", "runtimes", "search", "capture", "surface", "orchestration", "install", "commands"]


def memory_imports():
    """{module: {imported module}} over memory/, every import (lazy ones inside functions too)."""
    graph = {}
    for path in sorted((ROOT / "memory").rglob("*.py")):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        found = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("memory"):
                if node.level:
                    continue
                for alias in node.names:
                    full = f"{node.module}.{alias.name}"
                    found.add(full if (ROOT / (full.replace(".", os.sep) + ".py")).exists()
                              or (ROOT / full.replace(".", os.sep)).is_dir() else node.module)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("memory"))
        graph[name] = found - {name}
    return graph


def stage_of(module):
    parts = module.split(".")
    return parts[1] if len(parts) > 2 else None


def test_every_module_lives_in_a_stage():
    loose = [m for m in memory_imports() if m != "memory" and stage_of(m) is None and m.count(".") == 1
             and not (ROOT / m.replace(".", os.sep)).is_dir()]
    assert loose == []


def test_imports_never_run_back_up_the_stages():
    backwards = []
    for module, imported in memory_imports().items():
        here = stage_of(module)
        for other in imported:
            there = stage_of(other)
            if here and there and STAGES.index(there) > STAGES.index(here):
                backwards.append(f"{module} -> {other}")
    assert backwards == []


def test_no_import_cycle():
    imports = memory_imports()
    graph = {m: {i for i in deps if i in imports} for m, deps in imports.items()}
    seen, active, cycles = set(), [], []

    def visit(node):
        if node in active:
            cycles.append(active[active.index(node):] + [node])
            return
        if node in seen:
            return
        seen.add(node)
        active.append(node)
        for nxt in sorted(graph.get(node, ())):
            visit(nxt)
        active.pop()

    for node in sorted(graph):
        visit(node)
    assert cycles == []


def test_each_stage_says_what_it_owns():
    for stage in STAGES:
        init = ROOT / "memory" / stage / "__init__.py"
        tree = ast.parse(init.read_text(encoding="utf-8"))
        assert ast.get_docstring(tree), stage
        assert all(isinstance(n, ast.Expr) for n in tree.body), f"{stage}/__init__.py must import nothing"
