"""The headless layers never import Textual (SPEC §1), checked in a fresh interpreter.

Every submodule found by pkgutil is imported, so a module added later is covered too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

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
print(json.dumps({"modules": names, "ui": ui}))
"""


@pytest.mark.parametrize("package", ["labeler.core", "evaluator"])
def test_headless_package_never_imports_textual(package: str) -> None:
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
    # The walk really covered the package, not just its __init__.
    assert len(report["modules"]) > 1
    if package == "labeler.core":
        assert {"labeler.core.store", "labeler.core.labelset"} <= set(report["modules"])
