"""A project's evaluation from its folder: spanlab.toml, the corpus, the labels, the run.

The command line, the demo and the TUI share these entry points, so each parses its own
arguments and then makes one call; the run folder is written by `evaluator.runs`.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evaluator import candidates as cands
from evaluator import presets
from evaluator.pipeline import sanity
from evaluator.pipeline.options import RunOptions
from evaluator.pipeline.plan import plan_corpus
from evaluator.pipeline.record import run_file
from evaluator.pipeline.run import run_evaluation
from evaluator.plan.model import Plan
from evaluator.retrieval.chroma import parse_url
from evaluator.runs.folder import write_run
from evaluator.runs.model import RunFile
from evaluator.runs.place import RUNS_DIR as RUNS_DIR  # re-exported: the pipeline API
from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, StoreError
from labeler.core.files import sharing
from labeler.core.labels import labelset
from labeler.core.project import config
from labeler.core.project import folders as project_folders
from labeler.core.store import Store
from labeler.core.values import Query


@dataclass(frozen=True)
class Evaluated:
    """A project's run, written: what its run.json holds, where, and the query texts."""

    run: RunFile
    """The run as run.json holds it."""
    folder: Path
    """Its run folder."""
    texts: dict[str, str]
    """Query id -> text, for a terminal that may show them (the run folder holds none)."""
    cache_path: Path | None = None
    """The embedding cache the run used."""

    def cache_line(self) -> str | None:
        """How many texts the run embedded and how many the cache gave (None: no model)."""
        counts = self.run.manifest.embedding.get("cache")
        if not isinstance(counts, dict):
            return None
        embedded, cached = int(counts.get("misses", 0)), int(counts.get("hits", 0))
        return f"embeddings: {embedded:,} embedded, {cached:,} from the cache ({self.cache_path})"


@dataclass(frozen=True)
class Labels:
    queries: tuple[Query, ...]
    """What to evaluate."""
    corpus_hash: str
    """The corpus the labels are bound to."""
    label_set_hash: str
    """Which labels these are."""


def load_labels(labels_file: Path | None, proj: config.Project, corpus: Corpus) -> Labels:
    """The frozen file when given, else the store's labels (refusing stale spans)."""
    if labels_file is not None:
        ls = labelset.read(labels_file, corpus)
        return Labels(ls.queries, ls.corpus_hash, ls.label_set_hash)
    store = Store.open(proj.db, create=False)
    status = binding.sync(store, corpus)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review; eval refuses to measure stale labels",
            hint="run `spanlab review`, or pass --labels with a frozen label set",
        )
    queries, waiting = store.decided_queries()  # adjudicated or single-version evidence
    if waiting:
        print(f"{len(waiting)} double-annotated quer(y/ies) wait for adjudication and are "
              "left out", file=sys.stderr)  # fmt: skip
    data = labelset.to_json(queries, corpus)
    return Labels(tuple(queries), corpus.hash, data["label_set_hash"])


DEFAULT_CORPUS = "corpus"
"""With a frozen file and no spanlab.toml, the corpus folder beside it (the CI layout)."""


def corpus_folder(proj: config.Project, labels_file: Path | None) -> Path:
    """The configured corpus; with `--labels` and none configured, `./corpus` (§10: CI has
    only the corpus folder, the frozen file and the candidates file)."""
    fallback = proj.root / DEFAULT_CORPUS
    if proj.corpus is None and labels_file is not None and fallback.is_dir():
        return fallback
    return proj.require_corpus()


def plan_project(
    candidates_file: Path | None,
    *,
    labels_file: Path | None,
    preset: str | None = None,
    corpus_dir: Path | None = None,
    db: Path | None = None,
) -> Plan:
    """Plan the project in the working folder (§17): its labels when it has any (the frozen
    file given, else the store's), else the chunk statistics alone. Nothing is embedded,
    indexed or written to the cache or Chroma."""
    proj = project_folders.opened(Path.cwd(), corpus=corpus_dir, db=db)
    cfile, corpus = candidates_and_corpus(proj, candidates_file, preset, labels_file)
    queries = None
    if labels_file is not None or proj.db.exists():
        labels = load_labels(labels_file, proj, corpus)
        sanity.check_labels(labels.queries, corpus, labels.corpus_hash)
        queries = labels.queries
    return plan_corpus(cfile, corpus, queries, proj.embedding_cache)


def candidates_and_corpus(
    proj: config.Project,
    candidates_file: Path | None,
    preset: str | None,
    labels_file: Path | None,
) -> tuple[cands.CandidatesFile, Corpus]:
    """The candidates (file or preset, exactly one) and the corpus, as eval reads them."""
    if (candidates_file is None) == (preset is None):
        raise ConfigError("give a candidates file or --preset, not both or neither")
    cfile = cands.read(candidates_file) if candidates_file else presets.preset_file(preset or "")
    corpus = Corpus.read(
        corpus_folder(proj, labels_file), encoding=proj.encoding,
        follow_symlinks=proj.follow_symlinks, rule=proj.include, keep_text=False,
    ).require_documents(proj.include)  # fmt: skip
    return cfile, corpus


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
) -> Evaluated:
    """Evaluate the project in the working folder and write its run folder; with `planned`,
    hand it the plan of the same candidates and labels first (before any embedding)."""
    proj = project_folders.opened(Path.cwd(), corpus=corpus_dir, db=db, chroma_url=chroma_url)
    if proj.chroma_url is not None:
        parse_url(proj.chroma_url)  # a bad URL is refused before any work, not after
    cfile, corpus = candidates_and_corpus(proj, candidates_file, preset, labels_file)
    if retriever is not None:
        cfile = cands.with_retriever(cfile, retriever)
    labels = load_labels(labels_file, proj, corpus)
    if planned is not None:
        sanity.check_labels(labels.queries, corpus, labels.corpus_hash)
        planned(plan_corpus(cfile, corpus, labels.queries, proj.embedding_cache))
    options = RunOptions(
        include_text=include_text,
        chroma_url=proj.chroma_url,
        chroma_path=proj.chroma_path,
        chroma_timeout=proj.chroma_timeout,
        cache_path=proj.embedding_cache,
        check_ann=check_ann,
    )
    sharing.make_folder(proj.root / ".spanlab")  # the runs folder; the cache may be elsewhere
    result = run_evaluation(
        cfile,
        corpus,
        labels.queries,
        label_corpus_hash=labels.corpus_hash,
        label_set_hash=labels.label_set_hash,
        options=options,
    )
    run = run_file(result, include_text=include_text)
    folder = write_run(run, proj.root / RUNS_DIR)
    return Evaluated(run, folder, {q.id: q.text for q in result.queries}, options.cache_path)
