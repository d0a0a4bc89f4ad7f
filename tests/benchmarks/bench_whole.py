"""§12 latencies measured whole, as a person waits: a real `spanlab label` in a real
pseudo-terminal, from the command (or the key) to the bytes that put the answer on screen.

Three waits: the command until the query list is drawn; `J` (to a query whose evidence is
in a 2 MB document with 2,000 spans) until that document's cursor bar and text are drawn;
`^f`, words and enter until the first result is drawn. Each is set beside the same wait
in a bare Textual app (start-up; a key that redraws a label), quiet and with a busy-loop
process on the other core, and printed with the ratio. Targets: ready ≤ 1 s; the 2 MB
document ≤ 300 ms. Run: pytest tests/benchmarks/bench_whole.py -o python_files='bench_*.py' -s
(SPANLAB_BENCH_RUNS sets the repeats, 3 by default.)
"""

from __future__ import annotations

import compileall
import os
import random
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Query, Span
from tests.benchmarks.bench_tui import prose
from tests.benchmarks.pty_run import Terminal
from tests.benchmarks.results import note_ms

ROOT = Path(os.environ.get("SPANLAB_BENCH_ROOT") or Path(__file__).resolve().parents[2])
"""The checkout the children import (SPANLAB_BENCH_ROOT: another one, e.g. before a change)."""
RUNS = int(os.environ.get("SPANLAB_BENCH_RUNS", "3"))
"""Repeats per figure (median)."""
BARE = """
from textual.app import App
from textual.widgets import Static
class Bare(App[None]):
    def compose(self):
        yield Static("bare ready")
    def on_key(self, event):
        self.query_one(Static).update(f"pressed {event.key}")
Bare().run()
"""


def project(where: Path) -> Path:
    """A project: small.md (q-0001's evidence), big.md (2 MB; 2,000 spans of 500 queries)."""
    rng = random.Random(12)
    big, small = prose(2_000_000, rng), prose(5_000, rng)
    (where / "corpus").mkdir(parents=True)
    (where / "corpus" / "big.md").write_text(big, encoding="utf-8")
    (where / "corpus" / "small.md").write_text(small, encoding="utf-8")
    (where / "spanlab.toml").write_text('corpus = "corpus"\ndb = ".spanlab/labels.db"\n')
    corpus = Corpus.read(where / "corpus")
    big, small = corpus.text("big.md"), corpus.text("small.md")
    queries = [Query("q-0001", "Question 1?", evidence=(Span.from_text(small, "small.md", 0, 40),))]
    for i in range(2, 502):
        starts = sorted(rng.randrange(0, len(big) - 400) for _ in range(4))
        spans = tuple(Span.from_text(big, "big.md", s, s + rng.randint(20, 300)) for s in starts)
        queries.append(Query(f"q-{i:04d}", f"Question {i}?", evidence=spans))
    (where / ".spanlab").mkdir()
    store = Store.open(where / ".spanlab" / "labels.db")
    store.bind(corpus.doc_hashes)
    with store.write() as db:
        store.put_queries(queries, {"big.md": big, "small.md": small}, db=db)
    store.close()
    return where


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project, with the checkout's bytecode compiled first, as `pip install` leaves
    it: with PYTHONDONTWRITEBYTECODE set (as on these machines) every start would
    otherwise compile each module from source."""
    for package in ("labeler", "evaluator"):
        compileall.compile_dir(ROOT / package, quiet=1)
    return project(tmp_path_factory.mktemp("whole"))


@contextmanager
def busy(on: bool) -> Iterator[None]:
    """A busy-loop process on the other core, as a team's eval beside the app."""
    child = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if on else None
    try:
        yield
    finally:
        if child is not None:
            child.kill()
            child.wait()


def spanlab() -> list[str]:
    """The console script a person types, importing this checkout."""
    return [str(Path(sys.executable).with_name("spanlab")), "label", "--annotator", "bench"]


def waits(folder: Path) -> dict[str, float]:
    """One run of the app: ms to the list, to the big document after J, to ^f results.

    Each run has its own config folder, so the app opens on the first query as for a new
    annotator rather than resuming on the big document the previous run left it at.
    """
    with (
        tempfile.TemporaryDirectory() as config,
        Terminal(spanlab(), cwd=folder, root=ROOT, env={"XDG_CONFIG_HOME": config}) as term,
    ):
        figures = {"list": term.wait_for("q-0001")}
        term.wait_quiet()
        figures["document"] = term.press("J", "big.md @")
        term.wait_quiet()
        opened = term.press("\x06", "Search the corpus")
        figures["search"] = opened + term.press("section 4241\r", r"% big\.md @")
    return figures


def bare_waits() -> dict[str, float]:
    with Terminal([sys.executable, "-c", BARE], cwd=ROOT, root=ROOT) as term:
        figures = {"list": term.wait_for("bare ready")}
        term.wait_quiet()
        figures["document"] = figures["search"] = term.press("J", "pressed J")
    return figures


def medians(runs: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(r[key] for r in runs) for key in runs[0]}


@pytest.mark.parametrize("load", [False, True], ids=["quiet", "busy"])
def test_whole_latencies(folder: Path, load: bool) -> None:
    with busy(load):
        ours = medians([waits(folder) for _ in range(RUNS)])
        bare = medians([bare_waits() for _ in range(RUNS)])
    state = "busy core" if load else "quiet"
    for key, what, target in (
        ("list", "command → query list", "≤ 1000 ms"),
        ("document", "J → 2 MB document (2,000 spans) on screen", "≤ 300 ms"),
        ("search", "^f + words + enter → results (2 MB)", "—"),
    ):
        ratio = ours[key] / bare[key]
        note_ms(f"{what} ({state})", ours[key], target)
        print(f"\n[{state}] {what}: {ours[key]:.0f} ms | bare Textual: {bare[key]:.0f} ms "
              f"| ratio {ratio:.2f}x | target {target}")  # fmt: skip
    assert all(v > 0 for v in [*ours.values(), *bare.values()])
