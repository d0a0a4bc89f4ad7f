"""What a plan and an evaluation read from the project folder: the candidates, the corpus
and the labels, refused as `eval` refuses them.

Apart from `project` so that `spanlab plan` reads them without importing the run's
retrieval, embedding and run-folder wings.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from evaluator import candidates as cands
from evaluator import presets
from labeler.core.anchoring import binding
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError, StoreError
from labeler.core.labels import labelset
from labeler.core.labels.labelset_json import hash_queries, query_json
from labeler.core.progress import TaskFactory, each, no_task, stepped
from labeler.core.project import config
from labeler.core.project.cache_place import extraction_cache
from labeler.core.store import Store
from labeler.core.values import Query


@dataclass(frozen=True)
class Labels:
    queries: tuple[Query, ...]
    """What to evaluate."""
    corpus_hash: str
    """The corpus the labels are bound to."""
    label_set_hash: str
    """Which labels these are."""


def load_labels(
    labels_file: Path | None, proj: config.Project, corpus: Corpus, task: TaskFactory = no_task
) -> Labels:
    """The frozen file when given, else the store's labels (refusing stale spans), read and
    hashed under `task`'s bars (a store of 200,000 queries: 13 s with no line, issue 45)."""
    if labels_file is not None:
        ls = labelset.read(labels_file, corpus)
        return Labels(ls.queries, ls.corpus_hash, ls.label_set_hash)
    store = Store.open(proj.db, create=False)
    refused = store.heads.refusal(store.path)  # a rolled-back store measures lost labels (§21)
    if refused is not None:
        raise refused
    status = binding.sync(store, corpus)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review; eval refuses to measure stale labels",
            hint="run `spanlab review`, or pass --labels with a frozen label set",
        )
    count = store.count("queries")
    with stepped(task, "reading the labels", count) as advance:
        queries, waiting = store.decided_queries(advance)  # adjudicated or single-version
    if waiting:
        print(f"{len(waiting)} double-annotated quer(y/ies) wait for adjudication and are "
              "left out", file=sys.stderr)  # fmt: skip
    ordered = sorted(queries, key=lambda q: q.id)
    items = [query_json(q) for q in each(task, "hashing the labels", ordered)]
    return Labels(tuple(queries), corpus.hash, hash_queries(items))  # as `to_json` hashes


DEFAULT_CORPUS = "corpus"
"""With a frozen file and no spanlab.toml, the corpus folder beside it (the CI layout)."""


def corpus_folder(proj: config.Project, labels_file: Path | None) -> Path:
    """The configured corpus; with `--labels` and none configured, `./corpus` (§10: CI has
    only the corpus folder, the frozen file and the candidates file)."""
    fallback = proj.root / DEFAULT_CORPUS
    if proj.corpus is None and labels_file is not None and fallback.is_dir():
        return fallback
    return proj.require_corpus()


FOLDER_CANDIDATES = "candidates.toml"
"""The candidates file `eval` takes when none is named and no preset is given."""


def folder_candidates(root: Path, cwd: Path) -> Path | None:
    """The project folder's own candidates.toml (a regular file, not a link), named relative
    to the working folder where it lies under it; None when there is none."""
    found = root / FOLDER_CANDIDATES
    if found.is_symlink() or not found.is_file():
        return None
    return found.relative_to(cwd) if found.is_relative_to(cwd) else found


def candidates_and_corpus(
    proj: config.Project,
    candidates_file: Path | None,
    preset: str | None,
    labels_file: Path | None,
) -> tuple[cands.CandidatesFile, Corpus]:
    """The candidates (file or preset, exactly one) and the corpus, as eval reads them."""
    if (candidates_file is None) == (preset is None):
        raise ConfigError(
            "give a candidates file or --preset, not both or neither",
            hint=f"with neither, eval takes the project folder's {FOLDER_CANDIDATES} if any",
        )
    cfile = cands.read(candidates_file) if candidates_file else presets.preset_file(preset or "")
    corpus = Corpus.read(
        corpus_folder(proj, labels_file), encoding=proj.encoding,
        follow_symlinks=proj.follow_symlinks, rule=proj.include, keep_text=False,
        cache=extraction_cache(proj),
    ).require_documents(proj.include)  # fmt: skip
    return cfile, corpus
