"""`spanlab plan`, headless: cut and verify every candidate as a run does, then plan (§17).

Nothing is embedded, indexed or written: the cut and its checks are the run's own
(`cutting.cut`, one cut shared by candidates that cut alike), the labels are those `eval`
reads (`inputs.load_labels`), and the embedding cache is only looked into. Only the
cutting, the plan wing and the cache probe are imported: a plan starts in a fraction of
the time a run's imports take.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import numpy.typing as npt

from evaluator.candidates import CandidatesFile
from evaluator.chunk_table import ChunkTable
from evaluator.pipeline import progress, sanity
from evaluator.pipeline.cutting import cut, usable_queries
from evaluator.pipeline.inputs import candidates_and_corpus, load_labels
from evaluator.pipeline.units import sending
from evaluator.plan.build import build_plan
from evaluator.plan.cost import embedding_costs
from evaluator.plan.model import Plan
from labeler.core.corpus.folder import Corpus
from labeler.core.progress import TaskFactory, each, no_task
from labeler.core.project import folders as project_folders
from labeler.core.project.cache_place import own_file, place_of
from labeler.core.values import Query


def plan_corpus(
    cfile: CandidatesFile,
    corpus: Corpus,
    queries: Sequence[Query] | None,
    cache_path: Path | None,
    task: TaskFactory = no_task,
) -> Plan:
    """The plan of these candidates on this corpus (None: no labels), cut under `task`."""
    kept = None if queries is None else usable_queries(queries)[0]
    # every cut checked, the first bad chunk named
    tables, _ = cut(cfile, corpus, share=True, task=task)
    return plan_cut(cfile, corpus, tables, kept, cache_path, task=task)


def plan_cut(
    cfile: CandidatesFile,
    corpus: Corpus,
    tables: Mapping[str, ChunkTable],
    kept: Sequence[Query] | None,
    cache_path: Path | None,
    tokens: Mapping[str, npt.NDArray[np.int64]] | None = None,
    task: TaskFactory = no_task,
) -> Plan:
    """The plan of a cut in hand (`eval` plans the tables it runs, §17); `tokens`: each
    table's chunk counts when they are counted already."""
    texts = corpus.texts()
    sent = {c.name: sending(c.spec, tables[c.name], corpus)
            for c in each(task, "context units", cfile.candidates)}  # fmt: skip
    costs, width = embedding_costs(cfile, tables, texts, cache_path)
    return build_plan(cfile, texts, tables, kept, costs, width, sent, tokens, task)


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
        labels = load_labels(labels_file, proj, corpus, progress.task)
        sanity.check_labels(labels.queries, corpus, labels.corpus_hash, progress.task)
        queries = labels.queries
    return plan_corpus(cfile, corpus, queries, own_file(place_of(proj)), progress.task)
