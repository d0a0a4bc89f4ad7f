"""`spanlab demo`, headless: a working copy of the bundled demo, bound, labelled, evaluated.

It copies the bundled corpus, imports the bundled labels once and evaluates the bundled
candidates with Chroma and MiniLM, offline; the command line prints what it returns.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from evaluator.pipeline.project import Evaluated, evaluate_project
from evaluator.plan.model import Plan
from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.files import sharing
from labeler.core.labels import labelset
from labeler.core.project import config
from labeler.core.project.cache_place import extraction_cache
from labeler.core.resources import bundled
from labeler.core.store import Store


@dataclass(frozen=True)
class DemoCopy:
    folder: Path
    """The working copy (now the working folder)."""
    documents: int
    """Documents in its corpus."""
    corpus_hash: str
    """The corpus hash the store is bound to."""
    queries: int
    """Queries in its store."""
    spans: int
    """Evidence spans in its store."""


def prepare(directory: Path) -> DemoCopy:
    """Copy the bundled demo into `directory`, enter it, bind a store, import labels once."""
    source = bundled("data/demo")
    sharing.make_folder(directory)
    if not (directory / "corpus").exists():
        shutil.copytree(source / "corpus", directory / "corpus")
    for name in ("labels.json", "candidates.toml"):
        sharing.write_bytes(directory / name, (source / name).read_bytes())
    os.chdir(directory)
    proj = config.load(Path.cwd()).override(corpus=Path("corpus"))
    sharing.make_folder(proj.db.parent)
    config.write(proj)
    corpus = Corpus.read(Path("corpus"), cache=extraction_cache(proj))
    store = Store.open(proj.db)
    try:
        binding.open_or_bind(store, corpus)
        if store.count("queries") == 0:
            queries = labelset.read(Path("labels.json"), corpus).queries
            labelset.import_queries(store, queries, corpus, annotator="demo")
        return DemoCopy(
            Path.cwd(), len(corpus), corpus.hash, store.count("queries"), store.count("spans")
        )
    finally:
        store.close()


def evaluate_demo(planned: Callable[[Plan], None] | None = None) -> Evaluated:
    """Evaluate the prepared copy in the working folder with its bundled candidates; the
    plan first, to `planned`, before anything is embedded."""
    return evaluate_project(
        Path("candidates.toml"), labels_file=None, preset=None, corpus_dir=None, db=None,
        chroma_url=None, include_text=False, check_ann=False, planned=planned,
    )  # fmt: skip
