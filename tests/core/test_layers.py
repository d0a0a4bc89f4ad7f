"""The layer rules of design §1, checked two ways: by import, and by the import graph.

The headless layers never load Textual or typer: every submodule pkgutil finds is imported
in a fresh interpreter, so a module added later is covered too. No two modules import each
other, even for types or inside a function: grimp's graph holds every kind of import.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import grimp
import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import importlib, json, pkgutil, sys

def fail(name):
    raise ImportError(name)

package = importlib.import_module(sys.argv[1])
names = [package.__name__]
for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".", onerror=fail):
    importlib.import_module(info.name)
    names.append(info.name)
ui = sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "textual_plotext"))
cli = sorted(m for m in sys.modules if m.split(".")[0] == "typer")
print(json.dumps({"modules": names, "ui": ui, "cli": cli}))
"""


@pytest.mark.parametrize("package", ["labeler.core", "evaluator"])
def test_headless_package_never_imports_textual_or_typer(package: str) -> None:
    done = subprocess.run(
        [sys.executable, "-c", PROBE, package],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["ui"] == []
    assert report["cli"] == []
    # The walk really covered the package, not just its __init__.
    assert len(report["modules"]) > 1
    if package == "labeler.core":
        assert {"labeler.core.store", "labeler.core.labels.labelset"} <= set(report["modules"])


def import_cycles(*packages: str) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    graph = grimp.build_graph(*packages, exclude_type_checking_imports=False)
    modules = sorted(graph.modules)
    edges = {m: sorted(graph.find_modules_directly_imported_by(m) & graph.modules) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            if i < len(edges[node]):
                work.append((node, i + 1))
                nxt = edges[node][i]
                if nxt not in index:
                    work.append((nxt, 0))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    cycles.append(sorted(component))
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
    return cycles


def test_no_module_of_labeler_or_evaluator_is_in_an_import_cycle() -> None:
    assert import_cycles("labeler", "evaluator") == []


TOY = {
    "__init__.py": "",
    "a.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from toycycle import b\n",
    "b.py": "import toycycle.a\n",
    "c.py": "def late():\n    from toycycle import d\n",
    "d.py": "from toycycle.c import late\n",
    "e.py": "import toycycle.a\n",
}


def test_the_cycle_check_sees_type_checking_and_function_level_imports(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "toycycle"
    package.mkdir()
    for name, source in TOY.items():
        (package / name).write_text(source, encoding="utf-8")
    monkeypatch.syspath_prepend(str(tmp_path))
    found = import_cycles("toycycle")
    assert sorted(found) == [["toycycle.a", "toycycle.b"], ["toycycle.c", "toycycle.d"]]
