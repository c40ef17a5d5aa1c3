"""The layers of docs/architecture.md, checked from the code: the import graph of engine/ and
tourney/ (read with ast, nothing is imported) has no circles and no arrow up a floor, SQL stays
in the results layer, and the picture in the docs is the one the code draws.

``TOURNEY_WRITE_DOCS=1 pytest tests/test_architecture.py`` writes the picture into the docs."""

from __future__ import annotations

import ast
import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "architecture.md"
BEGIN = "<!-- layers: begin (drawn by tests/test_architecture.py from the imports; do not edit) -->"
END = "<!-- layers: end -->"

#: the floors, top first; a module belongs to the longest name here that is it or contains it
#: (``tourney`` alone is the package's own __init__). A module may import from its own floor and
#: from the floors below it, never from one above.
LAYERS: list[tuple[str, list[str]]] = [
    ("commands", ["tourney.commands", "tourney.app", "tourney.cli", "tourney.__main__"]),
    # a format plans series (events) and says what its report shows, so the config that checks
    # formats and the report that asks them sit on this floor too
    ("events, formats, config, web, report, rl, ladder", ["tourney.events", "tourney.formats", "tourney.config",
                                                          "tourney.web", "tourney.report", "tourney.rl",
                                                          "tourney.ladder"]),
    # the club's tables live in the one schema and take the store's write lock
    ("results, club", ["tourney.results", "tourney.club"]),
    ("bots", ["tourney.bots"]),
    ("engine, stats, narrate", ["engine", "tourney.stats", "tourney.narrate", "tourney.cards_doc",
                                "tourney.errors", "tourney.seeding", "tourney.seating", "tourney.botkit",
                                "tourney.charts", "tourney.luck",
                                "tourney"]),
]

#: arrows up a floor that are known and being removed on other branches; the lead deletes an
#: entry once the branch that removes its arrow is merged. Any other upward arrow fails.
ALLOWED_UPWARD: dict[tuple[str, str], str] = {}

#: import circles known and being removed on other branches (each as the set of its modules)
ALLOWED_CIRCLES: list[set[str]] = []

#: where SQL may be written: the results layer, and the club's data access
SQL_HOMES = ["tourney/results/", "tourney/club/tables.py"]
#: files that still hold SQL while other branches change them; each has its read functions
#: ready in tourney/results/reads.py (the lead switches the call sites and deletes the entry)
SQL_PENDING: dict[str, str] = {
}


def modules() -> dict[str, Path]:
    """Every module of engine/ and tourney/, by dotted name."""
    found = {}
    for package in ("engine", "tourney"):
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def import_graph(mods: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the modules of engine/ and tourney/ it imports (anywhere in it: inside a
    function, a deferred import is still a dependency; under ``if TYPE_CHECKING`` too, since a
    module written against another's class depends on it as much as one that calls it)."""

    def known(name: str) -> str | None:
        while name and name not in mods:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                    package = package[:len(package) - node.level + 1]
                    base = ".".join([*package, base] if base else package)
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base for a in node.names]
            else:
                continue
            for target in targets:
                found = known(target)
                if found is not None and found != name:
                    graph[name].add(found)
    return graph


def group_of(module: str) -> str:
    """The name of :data:`LAYERS` a module belongs to."""
    best = ""
    for _, names in LAYERS:
        for n in names:
            inside = module == n or (n != "tourney" and module.startswith(n + "."))
            if inside and len(n) > len(best):
                best = n
    if not best:
        raise AssertionError(f"{module} has no floor: add it (or its package) to LAYERS in "
                             f"tests/test_architecture.py and to docs/architecture.md")
    return best


def floor_of(module: str) -> int:
    """0 for the top floor, counting down."""
    group = group_of(module)
    return next(i for i, (_, names) in enumerate(LAYERS) if group in names)


def circles(graph: dict[str, set[str]]) -> list[set[str]]:
    """The strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[set[str]] = []

    def visit(v: str) -> None:
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
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(component)

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def upward(graph: dict[str, set[str]]) -> list[tuple[str, str]]:
    return sorted((a, b) for a, targets in graph.items() for b in targets if floor_of(b) < floor_of(a))


def picture(graph: dict[str, set[str]]) -> str:
    """The floors and the arrows between their parts, as a Mermaid flowchart (GitHub draws it;
    the text reads as a list too). A dotted arrow runs up a floor and is being removed."""
    node = {n: re.sub(r"\W", "_", n) for _, names in LAYERS for n in names}
    lines = ["```mermaid", "flowchart TD"]
    for i, (title, names) in enumerate(LAYERS):
        lines.append(f'    subgraph floor{i}["{title}"]')
        for n in names:
            label = n.replace("tourney.", "").replace("tourney", "tourney/__init__")
            lines.append(f'        {node[n]}["{label}"]')
        lines.append("    end")
    arrows: set[tuple[str, str]] = set()
    for a, targets in graph.items():
        for b in targets:
            ga, gb = group_of(a), group_of(b)
            if ga != gb:
                arrows.add((ga, gb))
    up = {(group_of(a), group_of(b)) for a, b in upward(graph)}
    for ga, gb in sorted(arrows):
        lines.append(f"    {node[ga]} {'-.->' if (ga, gb) in up else '-->'} {node[gb]}")
    lines.append("```")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def graph() -> dict[str, set[str]]:
    return import_graph(modules())


def test_the_graph_is_read_from_the_code(graph):
    # arrows every version of the code has: a plain import, a from-import of a module, a
    # relative import and a deferred one
    assert "tourney.results.store" in graph["tourney.events.runner"]
    assert "tourney.events.play" in graph["tourney.events.workers"]
    assert "engine.common" in graph["engine.crazy_eights"]
    assert graph["tourney.__main__"] == {"tourney.cli"}


def test_the_graph_sees_circles_inside_a_package_and_under_type_checking(tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("")
    (tmp_path / "pkg" / "high.py").write_text("from pkg.low import helper\n")
    (tmp_path / "pkg" / "low.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.high import Thing\n")
    mods = {"pkg": tmp_path / "pkg" / "__init__.py", "pkg.high": tmp_path / "pkg" / "high.py",
            "pkg.low": tmp_path / "pkg" / "low.py"}
    assert circles(import_graph(mods)) == [{"pkg.high", "pkg.low"}]


def test_no_import_circles(graph):
    found = [c for c in circles(graph) if c not in ALLOWED_CIRCLES]
    assert not found, f"import circles: {found}"
    assert circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_engine_never_imports_tourney(graph):
    assert not [(a, b) for a, targets in graph.items() if a.startswith("engine")
                for b in targets if b.startswith("tourney")]


def test_no_arrow_runs_up_a_floor(graph):
    found = [arrow for arrow in upward(graph) if arrow not in ALLOWED_UPWARD]
    assert not found, f"imports up a floor (see docs/architecture.md): {found}"
    stale = [arrow for arrow in ALLOWED_UPWARD if arrow not in upward(graph)]
    assert not stale, f"gone, delete from ALLOWED_UPWARD: {stale}"
    assert upward({"tourney.results.store": {"tourney.events.runner"},
                   "tourney.events.runner": {"tourney.results.store"}}) == [
        ("tourney.results.store", "tourney.events.runner")]


def test_the_docs_show_the_layers_the_code_has(graph):
    text = DOC.read_text()
    assert BEGIN in text and END in text, f"{DOC} lost its markers {BEGIN!r} ... {END!r}"
    head, rest = text.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    fresh = f"{head}{BEGIN}\n{picture(graph)}\n{END}{tail}"
    if os.environ.get("TOURNEY_WRITE_DOCS") and fresh != text:
        DOC.write_text(fresh)
    assert fresh == DOC.read_text(), ("docs/architecture.md shows old layers: run "
                                      "TOURNEY_WRITE_DOCS=1 pytest tests/test_architecture.py")


#: a statement of SQL in a string: what a query or a change of the database starts with
SQL = re.compile(r"(?is)^\s*(select\b.+\bfrom\b|insert\s+(or\s+\w+\s+)?into\b|update\s+\w+\s+set\b|"
                 r"delete\s+from\b|create\s+(table|view|index|unique)\b|drop\s+(table|view)\b|"
                 r"pragma\b|with\s+\w+\s+as\s*\()")
SQL_CALLS = {"execute", "executemany", "executescript", "query"}


def sql_in(path: Path) -> list[str]:
    """What looks like SQL in a module: string constants that start a statement (docstrings
    aside) and calls of a database's ``execute``/``query``."""
    tree = ast.parse(path.read_text(), str(path))
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef)
                  and n.body and isinstance(n.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if (isinstance(node, ast.Constant) and isinstance(node.value, str)
                and id(node) not in docstrings and SQL.search(node.value)):
            found.append(f"line {node.lineno}: {node.value.strip()[:40]!r}")
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and node.func.attr in SQL_CALLS):
            found.append(f"line {node.lineno}: .{node.func.attr}(")
    return sorted(found, key=lambda f: int(f.split(':')[0].split()[1]))


def test_sql_stays_in_the_results_layer():
    outside = {}
    for path in modules().values():
        rel = path.relative_to(ROOT).as_posix()
        if any(rel.startswith(home) for home in SQL_HOMES) or rel in SQL_PENDING:
            continue
        found = sql_in(path)
        if found:
            outside[rel] = found
    assert not outside, f"SQL outside tourney/results/ (add a read function there): {outside}"
    done = [rel for rel in SQL_PENDING if not sql_in(ROOT / rel)]
    assert not done, f"no SQL left: delete from SQL_PENDING: {done}"


def test_the_sql_check_sees_sql(tmp_path):
    sample = tmp_path / "m.py"
    sample.write_text('"""Select a bot from the list."""\n'
                      'def f(db):\n    return db.execute("select id from games").fetchone()\n'
                      'Q = """\n    INSERT OR REPLACE INTO t VALUES (1)"""\nHELP = "update the file"\n')
    assert sql_in(sample) == ["line 3: .execute(", "line 3: 'select id from games'",
                              "line 4: 'INSERT OR REPLACE INTO t VALUES (1)'"]


#: files whose imports inside functions still lack their reason while other branches change them
#: (issue 25 point 9; the lead deletes an entry once each such import goes or says why)
DEFERRED_PENDING: list[str] = []


def unexplained_deferred_imports(path: Path) -> list[int]:
    """Lines of imports inside a function that carry no comment saying why."""
    lines = path.read_text().splitlines()
    tree = ast.parse("\n".join(lines), str(path))
    return sorted({node.lineno for fn in ast.walk(tree)
                   if isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef)
                   for node in ast.walk(fn) if isinstance(node, ast.Import | ast.ImportFrom)
                   and "#" not in lines[node.end_lineno - 1] and "#" not in lines[node.lineno - 1]})


def test_an_import_inside_a_function_says_why():
    found = {}
    for path in modules().values():
        rel = path.relative_to(ROOT).as_posix()
        if rel not in DEFERRED_PENDING and (lines := unexplained_deferred_imports(path)):
            found[rel] = lines
    assert not found, ("an import inside a function: move it to the top, or say why on its line "
                       f"(an optional or heavy dependency, a circle): {found}")
    done = [rel for rel in DEFERRED_PENDING if not unexplained_deferred_imports(ROOT / rel)]
    assert not done, f"every import there says why: delete from DEFERRED_PENDING: {done}"


#: a module longer than this has a row in docs/architecture.md's "Long modules, kept on purpose"
LONG_MODULE = 500


def long_module_rows() -> set[str]:
    """The modules listed in the docs' table of long modules."""
    section = DOC.read_text().split("## Long modules, kept on purpose", 1)[1].split("\n## ", 1)[0]
    return set(re.findall(r"^\| `([^`]+\.py)` \|", section, re.MULTILINE))


def test_a_long_module_says_why_in_the_docs():
    lengths = {path.relative_to(ROOT).as_posix(): len(path.read_text().splitlines())
               for path in modules().values()}
    long = {rel for rel, n in lengths.items() if n > LONG_MODULE}
    listed = long_module_rows()
    assert not long - listed, (f"over {LONG_MODULE} lines: split it, or give its reason in docs/architecture.md "
                               f"(Long modules, kept on purpose): {sorted(long - listed)}")
    assert not listed - long, ("no longer long (or gone): delete its row in docs/architecture.md: "
                               f"{sorted(listed - long)}")
