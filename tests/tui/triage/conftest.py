"""A real lexical run on a corpus small enough to work out by hand.

a.md is eight 20-character blocks, block i made of the words `ii pp`, `ii qq`, `ii rr`,
`ii ss` with i = a..h (block 0 "aapp aaqq aarr aass ", block 1 "bbpp …"). b.md is one
decoy line. The baseline `c40-ov20` cuts a.md every 20 characters into 40-character
windows ([0,40) [20,60) … [120,160)); the candidate `c40` every 40 ([0,40) [40,80) …).
k = 1, depth = 3; the lexical score is the share of the query's words in the chunk.

- q-0001 "cut" (billing, heading-paragraph): evidence [20,59) = blocks 1-2. The baseline's
  [20,60) holds all 8 words (1.0, rank 1: hit). The candidate's [0,40) and [40,80) each
  hold half (0.5) and cover 20/39 and 19/39 of the span: no chunk holds ≥ 80% → lost, cut.
- q-0002 "crowded" (critical, list-intro-item): evidence [100,119) = block 5; query = its
  4 words + `ggpp`. Baseline [100,140) scores 5/5 and ties b.md, which comes later (doc
  order): hit. Candidate: b.md 5/5 first, [80,120) 4/5 second → first match at rank 2 > k.
- q-0003 "gained" (billing, control): evidence [40,79) = blocks 2-3; query `bbpp ccpp ddpp`.
  Baseline [20,60) and [40,80) both score 2/3, [20,60) wins the tie and covers only 20/39:
  miss. Candidate [40,80) scores 2/3, nothing beats it: hit.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from evaluator.candidates import parse
from evaluator.pipeline import RunResult, run_evaluation, run_file
from evaluator.runs.folder import write_run
from labeler.core.corpus.folder import Corpus
from labeler.core.labels import labelset
from labeler.core.store import Store
from labeler.core.values import Boundary, Query, Span
from labeler.tui.app import SpanlabApp
from labeler.tui.settings import Settings

QUIET = Settings(cursor_blink=False)
"""No blinking cursor in the filter field, so snapshots are stable."""

LATEST = "20250102-120000-000000"
"""The run the screen opens by default (newest)."""
OLDER = "20250101-120000-000000"
"""The same results written under an older id."""


def block(i: int) -> str:
    c = chr(ord("a") + i) * 2
    return f"{c}pp {c}qq {c}rr {c}ss "


DOC_A = "".join(block(i) for i in range(8))
DOC_B = "ffpp ffqq ffrr ffss ggpp"
TEXTS = {"a.md": DOC_A, "b.md": DOC_B}

CANDIDATES = {
    "settings": {"baseline": "c40-ov20", "k": 1, "depth": 3, "retriever": "lexical"},
    "candidate": [
        {"name": "c40-ov20", "splitter": "chars", "size": 40, "overlap": 20},
        {"name": "c40", "splitter": "chars", "size": 40},
    ],
    "gates": {"max_lost": 1, "slice": {"critical": {"max_lost": 0}}},
}


def queries(corpus: Corpus) -> list[Query]:
    def span(start: int, end: int) -> tuple[Span]:
        return (Span.from_text(DOC_A, "a.md", start, end),)

    def words(*blocks: int) -> str:
        return " ".join(block(i).strip() for i in blocks)

    return [
        Query("q-0001", words(1, 2), boundary=Boundary.HEADING_PARAGRAPH,
              slices=("billing",), evidence=span(20, 59)),
        Query("q-0002", words(5) + " ggpp", boundary=Boundary.LIST_INTRO_ITEM,
              slices=("critical",), evidence=span(100, 119)),
        Query("q-0003", "bbpp ccpp ddpp", boundary=Boundary.CONTROL,
              slices=("billing",), evidence=span(40, 79)),
    ]  # fmt: skip


@dataclass(frozen=True)
class Project:
    runs: Path
    """`.spanlab/runs` with two runs of the same results: OLDER and LATEST."""
    corpus: Corpus
    """a.md and b.md."""
    result: RunResult
    """The evaluation, as run."""


@pytest.fixture(scope="session")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    corpus = Corpus.from_texts(TEXTS)
    cfile = parse(CANDIDATES, file="candidates.toml")
    result = run_evaluation(cfile, corpus, queries(corpus), label_corpus_hash=corpus.hash,
                            label_set_hash="sha256:test")  # fmt: skip
    runs = tmp_path_factory.mktemp("triage") / ".spanlab" / "runs"
    for run_id in (OLDER, LATEST):
        started = f"{run_id[:4]}-{run_id[4:6]}-{run_id[6:8]}T12:00:00Z"
        run = dataclasses.replace(result, id=run_id, started=started)
        write_run(run_file(run, include_text=False), runs)
    return Project(runs, corpus, result)


@pytest.fixture
def store(project: Project, tmp_path: Path) -> Iterator[Store]:
    """A label store holding the three queries, for the `e` (fix label) key."""
    s = Store.open(tmp_path / "labels.db")
    s.bind(project.corpus.doc_hashes)
    labelset.import_queries(s, queries(project.corpus), project.corpus, annotator="pilot")
    yield s
    s.close()


def triage_app(project: Project, store: Store | None = None) -> SpanlabApp:
    return SpanlabApp(store, project.corpus, annotator="pilot", screen="triage",
                      runs_dir=project.runs, theme="dark",
                      texts={q.id: q.text for q in queries(project.corpus)},
                      settings=QUIET)  # fmt: skip


@pytest.fixture
def app(project: Project) -> SpanlabApp:
    return triage_app(project)


@pytest.fixture
def labelling_app(project: Project, store: Store) -> SpanlabApp:
    return triage_app(project, store)
