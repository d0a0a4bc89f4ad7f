"""Label formats other than the frozen set, both directions (§4).

Each format module offers `read(path, corpus) -> Imported` and
`write(queries, corpus, out) -> None`. Readers validate everything and return values;
the caller writes documents and labels only after a reader has succeeded.
"""

from __future__ import annotations

import importlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from labeler.core.corpus import Corpus
from labeler.core.errors import LabelError
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


class Format(Protocol):
    def read(self, path: Path, corpus: Corpus, *, existing: Sequence[Query]) -> Imported: ...

    def write(self, queries: Sequence[Query], corpus: Corpus, out: Path) -> None: ...


FORMATS = ("spanlab", "chroma-csv", "squad", "label-studio", "queries")
"""Every format name the CLI accepts."""

_MODULES = {
    "chroma-csv": "labeler.core.formats.chroma_csv",
    "squad": "labeler.core.formats.squad",
    "label-studio": "labeler.core.formats.label_studio",
    "queries": "labeler.core.formats.queries",
}


def get(name: str) -> Format:
    """The module implementing format `name` (not `spanlab`, which is labelset)."""
    if name not in _MODULES:
        raise LabelError(f"unknown format {name!r} (one of: {', '.join(FORMATS)})", key="format")
    module = importlib.import_module(_MODULES[name])
    fmt: Format = module
    return fmt


def guess(path: Path) -> str:
    """The format a file is most likely in, from its suffix and a first look inside."""
    suffix = path.suffix.lower()
    if suffix == ".txt":
        return "queries"
    if suffix == ".csv":
        try:
            with path.open(encoding="utf-8-sig", newline="") as handle:
                header = handle.readline()
        except (OSError, UnicodeDecodeError):
            return "queries"
        return "chroma-csv" if "references" in header else "queries"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return "spanlab"
    if isinstance(data, list):
        return "label-studio"
    if isinstance(data, dict) and "format" not in data and isinstance(data.get("data"), list):
        return "squad"
    return "spanlab"
