"""Label formats other than the frozen set, both directions (§4).

Each format module offers `read(path, corpus) -> Imported` and
`write(queries, corpus, out) -> None`. Readers validate everything and return values;
the caller writes documents and labels only after a reader has succeeded.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.progress import TaskFactory, no_task
from labeler.core.store.rows import Version
from labeler.core.values import Query


@dataclass(frozen=True)
class Imported:
    queries: tuple[Query, ...]
    """Validated queries, offsets in canonical text."""
    documents: dict[str, str] = field(default_factory=dict)
    """Documents the format brings (SQuAD contexts): {doc id: canonical text}."""
    warnings: tuple[str, ...] = ()
    """Things the user should know (duplicates skipped, say)."""
    fresh: frozenset[str] = frozenset()
    """Ids the reader made up (not the file's): the store allocates real ones on write."""
    versions: tuple[tuple[str, Version], ...] = ()
    """(query id, version): every annotator's evidence, when a file holds several (§3)."""
    labels_seen: frozenset[str] = frozenset()
    """Span labels the file uses (Label Studio), so the user can choose with `--label`."""
    summary: str = ""
    """One line on what was read (queries files: lines read, new and duplicate questions)."""


@dataclass(frozen=True)
class Wrote:
    """What a writer put in its file, when it leaves some queries out (§14)."""

    queries: int
    """Queries the file holds."""
    records: int
    """Records (tasks, lines) it holds."""
    left_out: tuple[tuple[str, int], ...] = ()
    """(what, how many queries) for each kind of query the tool cannot hold: "N {what}"."""
    warnings: tuple[str, ...] = ()
    """What the target tool will do differently (drop overlapping spans, say)."""


class Format(Protocol):
    def read(
        self, path: Path, corpus: Corpus, *, existing: Sequence[Query], progress: TaskFactory = ...
    ) -> Imported:
        """Read and check `path`; `progress` is told how far (issue 45)."""
        ...

    def write(self, queries: Sequence[Query], corpus: Corpus, out: Path) -> Wrote | None:
        """Write `queries`; None when the file holds every one of them."""
        ...


_MODULES = {
    "chroma-csv": "labeler.core.formats.chroma_csv",
    "squad": "labeler.core.formats.squad",
    "label-studio": "labeler.core.formats.label_studio",
    "label-studio-min": "labeler.core.formats.label_studio_min",
    "label-studio-csv": "labeler.core.formats.label_studio_min",
    "doccano": "labeler.core.formats.doccano",
    "prodigy": "labeler.core.formats.prodigy",
    "argilla": "labeler.core.formats.argilla",
    "qrels": "labeler.core.formats.qrels",
    "queries": "labeler.core.formats.queries",
}

FORMATS = ("spanlab", *_MODULES)
"""Every format name the CLI accepts."""
GROUPS = {
    "spanlab": "carried: `group` on each evidence item (spanlab.labelset/2)",
    "label-studio": "carried: `data.groups` maps each result id to its group",
    "prodigy": "carried: `group` on each span",
    "doccano": "carried: a top-level `groups` maps `START-END` (UTF-16 units) to its group",
    "qrels": "any-of by nature: every alternative's document is relevant",
}
"""How each format holds groups of alternatives (§18); any other flattens them (every
alternative becomes evidence of its own, all required) and says how many on export."""
FACTS = {
    "spanlab": "carried: `facts` on each query (spanlab.labelset/4)",
    "label-studio": "carried: `data.facts`, a list of facts, each a list of phrasings",
    "doccano": "carried: a top-level `facts` on each line of the query, as spanlab writes it",
}
"""How each format holds a query's facts (§23, answer labels); any other leaves them out
and says how many queries' facts on export."""
EVIDENCE_ONLY = ("doccano", "prodigy", "argilla")
"""Formats that hold a query only as spans in a document's text: one without evidence (an
abstention, a draft) has no record in them (`_common.left_out` says which)."""
SKIPPABLE = ("prodigy", "doccano", "argilla", "label-studio-min", "label-studio-csv")
"""Formats of independent records, whose reader can skip (and count) a bad one."""


def read_skipping(
    name: str,
    path: Path,
    corpus: Corpus,
    *,
    existing: Sequence[Query],
    labels: frozenset[str] | None = None,
    progress: TaskFactory = no_task,
) -> Imported:
    """Read with `--skip-bad`: records that cannot be read are skipped and counted
    (`labels`: the Label Studio span labels that count, as `--label` chose)."""
    if name not in SKIPPABLE:
        raise LabelError(
            f"--skip-bad applies to {', '.join(SKIPPABLE)} files, not {name}", key="--skip-bad"
        )
    chosen = {"labels": labels} if labels else {}
    imported: Imported = importlib.import_module(_MODULES[name]).read(
        path, corpus, existing=existing, skip_bad=True, progress=progress, **chosen
    )
    return imported


def get(name: str) -> Format:
    """The module implementing format `name` (not `spanlab`, which is labelset)."""
    if name not in _MODULES:
        raise LabelError(f"unknown format {name!r} (one of: {', '.join(FORMATS)})", key="format")
    module = importlib.import_module(_MODULES[name])
    fmt: Format = module
    return fmt


def guess(path: Path) -> str:
    """The format a file is most likely in, from its suffix and a first look inside; a
    file whose shape no reader knows is an error listing what was looked for, so spans
    are never dropped by a reader that does not know them."""
    from labeler.core.formats._guess import guess_format

    if not path.exists():
        raise LabelError("no such file", file=str(path))
    return guess_format(path)
