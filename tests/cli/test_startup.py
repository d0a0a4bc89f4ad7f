"""What `spanlab label` loads before its first screen (design §12: app ready ≤ 1 s).

The start-up cuts stay cut: no pydantic on parsing (typer 0.29 imported it for every
command, ~150 ms), no sqlite_utils until the first write (~100 ms), no numpy or embedder
until suggested evidence is asked for, and none of the other commands' or screens'
libraries (re-anchoring, formats, agreement, the evaluator's pipeline).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

PROBE = """
import json, sys
import labeler.cli.apps as apps
def stop(*args, **kwargs):
    import labeler.tui.launch  # what the command imports next, to open the app
    print(json.dumps(sorted(sys.modules)))
    raise SystemExit(0)
apps.open_project = stop
sys.argv = ["spanlab", "label", "--annotator", "probe"]
import labeler.cli
labeler.cli.main()
"""
NOT_BEFORE_THE_FIRST_SCREEN = (
    "pydantic",
    "sqlite_utils",
    "rapidfuzz",
    "labeler.core.anchoring.review",
    "labeler.core.labels.imports",
    "labeler.core.agreement",
    "evaluator.pipeline",
    "chromadb",
    "numpy",
    "onnxruntime",
    "evaluator.embedding",
    "evaluator.retrieval.suggest",
)


def run_probe(probe: str, folder: Path) -> subprocess.CompletedProcess[str]:
    """`probe` run by a fresh interpreter in `folder`, this checkout importable; exit 0."""
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=folder, capture_output=True, text=True,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin"}, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    return done


def test_spanlab_label_parses_and_opens_without_the_other_commands_libraries(
    tmp_path: Path,
) -> None:
    done = run_probe(PROBE, tmp_path)
    loaded = set(json.loads(done.stdout))
    assert "textual.app" in loaded and "labeler.tui.app" in loaded
    assert [m for m in NOT_BEFORE_THE_FIRST_SCREEN if m in loaded] == []
