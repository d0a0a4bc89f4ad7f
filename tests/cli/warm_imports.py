"""Run the shared-project tests' commands once, as root, in a throwaway folder, and print
the modules they loaded (JSON), so the test process can import them before its children
drop to accounts that may not read the interpreter's own files (CI's Python lives under
root's private home). Only imports carry over: no thread or connection is made in the
test process, so forking stays safe. Usage: python -m tests.cli.warm_imports FOLDER
"""

from __future__ import annotations

import contextlib
import importlib
import json
import os
import pkgutil
import sys
from pathlib import Path

from typer.testing import CliRunner

from labeler.cli import app
from labeler.core.store import Store
from labeler.core.values import Span

STEPS: tuple[tuple[str, ...], ...] = (
    ("init", "corpus"), ("labels", "import", "q.txt"), ("corpus", "status"),
    ("corpus", "status", "--json"), ("eval", "c.toml"), ("labels", "export", "frozen.json"),
    ("eval", "c.toml", "--labels", "frozen.json"), ("gate", "c.toml", "--labels", "frozen.json"),
    ("show", "latest", "q-0001"), ("eval", "chroma.toml"), ("init", "corpus", "--group", "x-"),
)  # fmt: skip


ALSO = (importlib.import_module("labeler.core"), importlib.import_module("evaluator.runs"))
"""Packages whose every module is imported too: a command these steps do not run may load
one lazily (`diff`, an export to another format)."""


def main(folder: Path) -> None:
    os.chdir(folder)
    runner = CliRunner()
    for step in STEPS[:2]:
        runner.invoke(app, list(step))
    text = (folder / "corpus" / "a.md").read_text(encoding="utf-8")
    store = Store.open(folder / ".spanlab" / "labels.db", create=False)
    store.add_span("q-0001", Span.from_text(text, "a.md", 0, 21), text, annotator="warm")
    store.close()
    for step in STEPS[2:]:
        runner.invoke(app, list(step))
    for package in ALSO:  # what other commands load lazily (diff's text, the formats)
        for found in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            with contextlib.suppress(Exception):
                importlib.import_module(found.name)
    print(json.dumps(sorted(sys.modules)))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
