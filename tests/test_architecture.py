"""The house's rules, checked on the source: which layer may import which, and names that route somewhere.

- the floors, bottom to top: ``ella`` (plain Python), ``models`` (persistence), ``adapters`` (Redis, database,
  caches, model wiring, Batches, outbox, inbox, images), ``workers`` (Celery process wiring), ``tasks``, and the
  entry points ``gateway``, ``operator_page``, ``demo``, ``cli``; a module imports only its own floor and those
  below (lazy and type-checking imports count), so no two floors import each other: no exception anywhere;
- ``ella/`` is plain Python: no Celery, no SQLAlchemy, no Redis, nothing of ``models``, ``tasks`` or ``workers``;
- ``models/`` is persistence: it may use ``ella`` values, never ``tasks`` or ``workers``;
- a task module never imports another task module (``workers.events`` emits through the tasks' signatures), and
  ``workers.events`` imports no task module (the floors: the cycle there was is gone);
- no module is part of an import circle, inside a floor too (the same imports count): a circle is cut where its
  dependency runs the wrong way, by moving that piece down or by a registration hook;
- runtime code reads nothing from ``tests/``;
- every route and beat entry names a registered task, and every registered task has a queue.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.domain


# Bottom to top. The entry points are one floor each, in the order they may import each other (the CLI runs the
# demo and serves the page; the demo renders the page and talks through the gateway's client).
FLOORS = ("ella", "models", "adapters", "workers", "tasks", "gateway", "operator_page", "demo", "cli")
ABOVE_MODELS = FLOORS[2:]


def python_files(package: str) -> list[Path]:
    return sorted((ROOT / package).rglob("*.py"))


def imported_modules(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of the file (lazy imports count too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def code_strings(path: Path) -> list[str]:
    """The string literals of ``path`` that are not docstrings (a docstring may name a test; code may not)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docstrings = {
        id(node.body[0].value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
        and node.body
        and isinstance(node.body[0], ast.Expr)
        and isinstance(node.body[0].value, ast.Constant)
    }
    return [
        node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
    ]


def offenders(package: str, forbidden: tuple[str, ...], skip: tuple[str, ...] = ()) -> list[str]:
    bad = []
    for path in python_files(package):
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(skip):
            continue
        for module in imported_modules(path):
            if module.split(".")[0] in forbidden or module in forbidden:
                bad.append(f"{rel} imports {module}")
    return sorted(set(bad))


def test_the_domain_imports_no_framework_and_no_outer_layer():
    # ella/guard/data holds offline training and lexicon-building scripts, not runtime code.
    forbidden = ("sqlalchemy", "celery", "kombu", "redis", "redbeat", "models", "tests", *ABOVE_MODELS)
    assert offenders("ella", forbidden, skip=("ella/guard/data/",)) == []


def test_persistence_never_imports_tasks_or_process_wiring():
    assert offenders("models", ("celery", "tests", *ABOVE_MODELS)) == []


def test_each_floor_imports_only_itself_and_the_floors_below():
    bad = []
    for level, package in enumerate(FLOORS):
        above = FLOORS[level + 1 :]
        bad += offenders(package, above, skip=("ella/guard/data/",))
    assert bad == []


def test_the_gateways_client_imports_no_database_code_and_no_task():
    """A gateway imports ``gateway.client`` only: it sends by name and remembers each message in the inbox, and
    must not pull in SQLAlchemy, our tables or a task (the inbox's eraser lives apart for this reason)."""
    probe = (
        "import sys, gateway.client; "
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'models', 'sqlalchemy', 'alembic', 'tasks'}))"
    )
    found = subprocess.run([sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True)
    assert found.stdout.strip() == "[]"


def test_every_package_of_ours_is_on_a_floor():
    """A new top-level package must be placed (here and in ``docs/architecture.md``) before it can be imported."""
    ours = {p.name for p in ROOT.iterdir() if (p / "__init__.py").exists()} - {"tests", "bench", "chaos", "migrations"}
    assert ours == set(FLOORS)


def test_a_task_module_never_imports_another_task_module():
    bad = []
    for path in python_files("tasks"):
        own = f"tasks.{path.stem}"
        for module in imported_modules(path):
            if module.startswith("tasks.") and not module.startswith(own) and module != "tasks.__init__":
                bad.append(f"{path.name} imports {module}")
            if module == "tasks":
                bad.append(f"{path.name} imports the tasks package")
    assert bad == []


# Circles not cut yet; a circle is let through only while all of its modules are listed in one entry here.
KNOWN_CIRCLES: frozenset[frozenset[str]] = frozenset()  # none: every circle fails the test


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def import_graph() -> dict[str, set[str]]:
    """Each module of ours (every floor, and the top-level modules such as ``beat_schedule``) and the modules of
    ours it imports, counted as the floors test counts them: module-level, lazy and type-checking imports alike,
    ``from package import name`` importing the package too."""
    paths = [path for package in FLOORS for path in python_files(package)] + sorted(ROOT.glob("*.py"))
    files = {module_name(path): path for path in paths}
    return {name: {m for m in imported_modules(path) if m in files and m != name} for name, path in files.items()}


def circles(graph: dict[str, set[str]]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm, without recursion)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            step = next(edges, None)
            if step is not None:
                if step not in index:
                    index[step] = low[step] = len(index)
                    stack.append(step)
                    on_stack.add(step)
                    work.append((step, iter(sorted(graph.get(step, ())))))
                elif step in on_stack:
                    low[node] = min(low[node], index[step])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(frozenset(component))
    return found


def test_the_circle_check_finds_circles():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set(), "e": {"d", "f"}, "f": {"e"}, "g": {"g"}}
    assert sorted(sorted(c) for c in circles(graph)) == [["a", "b", "c"], ["e", "f"]]
    assert circles({"a": {"b"}, "b": {"c"}, "c": set()}) == []


def test_no_module_is_part_of_an_import_circle():
    """A circle (``a`` imports ``b``, which imports ``a``, perhaps through others) makes each module's meaning
    depend on the import order, and none of them can be read alone. Even a lazy import closes one."""
    found = circles(import_graph())
    bad = [sorted(c) for c in found if not any(c <= known for known in KNOWN_CIRCLES)]
    assert bad == []


def test_runtime_code_reads_nothing_from_tests():
    bad = []
    for package in (*FLOORS, "migrations"):
        for path in python_files(package):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("ella/guard/data/"):
                continue  # offline training scripts read the evaluation data on purpose
            if any("tests/" in text for text in code_strings(path)) or any(
                m.split(".")[0] == "tests" for m in imported_modules(path)
            ):
                bad.append(rel)
    assert bad == []


def test_every_route_and_beat_entry_names_a_registered_task_and_every_task_has_a_queue():
    from adapters.settings import Settings
    from beat_schedule import beat_schedule
    from workers.app import app
    from workers.routing import TaskName

    app.loader.import_default_modules()
    registered = {name for name in app.tasks if name.startswith("ella.")}
    settings = Settings()
    routes = app.conf.task_routes
    queues = set(settings.queues)
    assert registered == {str(name) for name in TaskName}, "a task without a name in workers.routing, or vice versa"
    assert set(routes) == registered
    assert all(route["queue"] in queues for route in routes.values())
    for entry, job in beat_schedule(settings).items():
        assert job["task"] in registered, entry
        assert job["options"]["queue"] == routes[job["task"]]["queue"], f"{entry} runs on another queue than routed"
