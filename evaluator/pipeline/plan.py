"""`spanlab plan`, headless: cut and verify every candidate as a run does, then plan (§17).

Nothing is embedded, indexed or written: the cut and its checks are the run's own
(`run.cut`), the labels are those `eval` reads (`project.plan_project`), and the embedding
cache is only looked into.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from evaluator.candidates import CandidatesFile
from evaluator.pipeline.run import cut, usable_queries
from evaluator.plan.build import build_plan
from evaluator.plan.cost import embedding_costs
from evaluator.plan.model import Plan
from labeler.core.corpus.folder import Corpus
from labeler.core.values import Query


def plan_corpus(
    cfile: CandidatesFile,
    corpus: Corpus,
    queries: Sequence[Query] | None,
    cache_path: Path | None,
) -> Plan:
    """The plan of these candidates on this corpus (None: no labels)."""
    kept = None if queries is None else usable_queries(queries)[0]
    tables, _ = cut(cfile, corpus)  # every candidate checked, the first bad chunk named
    texts = corpus.texts()
    costs, width = embedding_costs(cfile, tables, texts, cache_path)
    return build_plan(cfile, texts, tables, kept, costs, width)
