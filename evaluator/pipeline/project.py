"""A project's evaluation from its folder: spanlab.toml, the corpus, the labels, the run.

The command line, the demo and the TUI share these entry points, so each parses its own
arguments and then makes one call; the run folder is written by `evaluator.runs`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from evaluator import candidates as cands
from evaluator.extraction.compare import judged
from evaluator.pipeline import progress
from evaluator.pipeline.inputs import DEFAULT_CORPUS as DEFAULT_CORPUS
from evaluator.pipeline.inputs import Labels as Labels
from evaluator.pipeline.inputs import candidates_and_corpus as candidates_and_corpus
from evaluator.pipeline.inputs import corpus_folder as corpus_folder
from evaluator.pipeline.inputs import load_labels as load_labels
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.plan import plan_project as plan_project
from evaluator.pipeline.record import run_file
from evaluator.pipeline.run import run_evaluation
from evaluator.plan.model import Plan
from evaluator.retrieval.chroma import parse_url
from evaluator.runs import index as runs_index
from evaluator.runs.folder import write_run
from evaluator.runs.model import RunFile
from evaluator.runs.place import RUNS_DIR as RUNS_DIR  # re-exported: the pipeline API
from evaluator.runs.readback import require_names
from labeler.core.files import sharing
from labeler.core.project import config
from labeler.core.project import folders as project_folders
from labeler.core.project.cache_place import CacheWhere, place_of
from labeler.core.store import Store
from labeler.core.team import roles
from labeler.core.team.visibility import Sight


@dataclass(frozen=True)
class Evaluated:
    """A project's run, written: what its run.json holds, where, and the query texts."""

    run: RunFile
    """The run as run.json holds it."""
    folder: Path
    """Its run folder."""
    texts: dict[str, str]
    """Query id -> text, for a terminal that may show them (the run folder holds none)."""
    cache_path: CacheWhere = None
    """The embedding cache the run used (the file it wrote)."""
    private: bool = False
    """The run folder is its writer's alone: it holds versions blind keeps from the group."""

    def cache_line(self) -> str | None:
        """How many texts the run embedded and how many the cache gave (None: no model)."""
        counts = self.run.manifest.embedding.get("cache")
        if not isinstance(counts, dict):
            return None
        embedded, cached = int(counts.get("misses", 0)), int(counts.get("hits", 0))
        return f"embeddings: {embedded:,} embedded, {cached:,} from the cache ({self.cache_path})"


def evaluate_project(
    candidates_file: Path | None,
    *,
    labels_file: Path | None,
    preset: str | None,
    corpus_dir: Path | None,
    db: Path | None,
    chroma_url: str | None,
    include_text: bool,
    check_ann: bool,
    retriever: str | None = None,
    planned: Callable[[Plan], None] | None = None,
    latency: bool = False,
) -> Evaluated:
    """Evaluate the project in the working folder and write its run folder; with `planned`,
    hand it the plan of the same candidates and labels first (before any embedding)."""
    proj = project_folders.opened(Path.cwd(), corpus=corpus_dir, db=db, chroma_url=chroma_url)
    if proj.chroma_url is not None:
        parse_url(proj.chroma_url)  # a bad URL is refused before any work, not after
    runs_index.require_clean(proj.root / RUNS_DIR)  # a trigger there: exit 2 now (§21)
    cfile, corpus = candidates_and_corpus(proj, candidates_file, preset, labels_file)
    require_names(corpus.documents, str(corpus_folder(proj, labels_file)))
    if retriever is not None:
        cfile = cands.with_retriever(cfile, retriever)
    labels = load_labels(labels_file, proj, corpus, progress.task)
    cache = place_of(proj)  # a team's accounts' caches, or the one file (§21)
    options = RunOptions(
        include_text=include_text,
        chroma_url=proj.chroma_url,
        chroma_path=proj.chroma_path,
        chroma_timeout=proj.chroma_timeout,
        cache_path=cache,
        check_ann=check_ann,
        latency=latency,
    )
    sharing.make_folder(proj.root / ".spanlab")  # the runs folder; the cache may be elsewhere
    result = run_evaluation(
        cfile,
        corpus,
        labels.queries,
        label_corpus_hash=labels.corpus_hash,
        label_set_hash=labels.label_set_hash,
        options=options,
        planned=planned,  # the plan of the run's own cut, before anything is embedded
    )
    run = run_file(result, include_text=include_text)
    run = replace(run, extraction=judged(cfile, corpus, labels.queries, options))  # §22
    private = lead_only(proj, [q.id for q in result.queries])
    folder = write_run(run, proj.root / RUNS_DIR, private=private)
    texts = {q.id: q.text for q in result.queries}
    return Evaluated(run, folder, texts, options.cache_path, private)


def lead_only(proj: config.Project, query_ids: list[str]) -> bool:
    """Whether what the person running writes about `query_ids` in the project is theirs
    alone: blind's one rule (`Sight.keeps_private`, §21), asked of the project's store."""
    if not proj.blind or proj.team is None or not proj.db.exists():
        return False
    sight = Sight(roles.member(proj.team, None, distrust=proj.distrust), proj.blind)
    store = Store.open_for_reading(proj.db)
    try:
        if store.heads.lacking:  # a rolled-back store cannot say what waits: kept private
            for line in store.heads.warnings():
                print(f"warning: {line}", file=sys.stderr)
            return True
        return sight.keeps_private(store, query_ids)
    finally:
        store.close()
