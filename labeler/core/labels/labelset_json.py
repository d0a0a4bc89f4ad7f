"""The frozen label set's JSON shape (§4): the header, each query as an object, the hash.

One place writes what `labelset_read` reads back, so export and import cannot drift apart.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from labeler.core.corpus.canonical import NORMALIZATION
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write
from labeler.core.values import Query, Span

FORMAT = "spanlab.labelset/1"
"""The format of a set without groups: what every spanlab before groups reads."""
FORMAT_GROUPS = "spanlab.labelset/2"
"""The format of a set where some evidence carries `group` (§18)."""
FORMAT_FILTERS = "spanlab.labelset/3"
"""The format of a set where some query carries its own metadata `filter` (§24)."""
FORMAT_FACTS = "spanlab.labelset/4"
"""The format of a set where some query carries `facts`, its answer labels (§23)."""
FORMATS = (FORMAT, FORMAT_GROUPS, FORMAT_FILTERS, FORMAT_FACTS)
TOOL_VERSION = "0.1.0"


@dataclass(frozen=True)
class LabelSet:
    corpus_hash: str
    """The corpus the labels were made on."""
    documents: Mapping[str, str]
    """{doc id: doc hash} of that corpus."""
    queries: tuple[Query, ...]
    """Every query, sorted by id."""
    label_set_hash: str
    """sha256 of the canonical JSON of the queries."""


def query_json(q: Query) -> dict[str, Any]:
    """A query object; `filter` and `facts` only when it has them, so a set without them
    hashes as it did under `/1` and `/2`."""
    item = {
        "id": q.id,
        "text": q.text,
        "abstain": q.abstain,
        "boundary": q.boundary.value,
        "slices": list(q.slices),
        "status": q.status.value,
        "notes": q.notes,
        "evidence": [span_json(s) for s in q.evidence],
    }
    if q.filter:
        item["filter"] = {k: list(v) for k, v in q.filter}
    return item if not q.facts else {**item, "facts": [list(f) for f in q.facts]}


def span_json(s: Span) -> dict[str, Any]:
    """An evidence item; `group` only when it has one, so a set without groups hashes as
    it did under `/1`."""
    item = {"doc": s.doc, "start": s.start, "end": s.end, "quote": s.quote,
            "prefix": s.prefix, "suffix": s.suffix}  # fmt: skip
    return item if s.group is None else {**item, "group": s.group}


def format_of(items: Sequence[Mapping[str, Any]]) -> str:
    """`/4` when some query carries facts, `/3` when some carries a filter, `/2` when some
    evidence item carries a group, else `/1`: each reader reads every format before it."""
    if any("facts" in q for q in items):
        return FORMAT_FACTS
    if any("filter" in q for q in items):
        return FORMAT_FILTERS
    grouped = any("group" in e for q in items for e in q.get("evidence", ()))
    return FORMAT_GROUPS if grouped else FORMAT


def hash_queries(queries: Sequence[Mapping[str, Any]]) -> str:
    payload = json.dumps(queries, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return "sha256:" + hashlib.sha256(payload.encode("utf-8")).hexdigest()


def to_json(
    queries: Iterable[Query], corpus: Corpus, *, exported_at: str | None = None
) -> dict[str, Any]:
    """The frozen label set for `queries`, bound to `corpus`."""
    items = [query_json(q) for q in sorted(queries, key=lambda q: q.id)]
    return frame(items, corpus, exported_at=exported_at)


def frame(
    items: list[dict[str, Any]], corpus: Corpus, *, exported_at: str | None = None
) -> dict[str, Any]:
    """Wrap query objects (sorted by id, shaped as `query_json`) in the label-set header."""
    return {
        "format": format_of(items),
        "corpus": {"hash": corpus.hash, "normalization": NORMALIZATION,
                   "documents": corpus.doc_hashes},
        "label_set_hash": hash_queries(items),
        "exported_at": exported_at or datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "tool_version": TOOL_VERSION,
        "queries": items,
    }  # fmt: skip


def write_json(data: Mapping[str, Any], out: Path) -> None:
    """Write through a temporary file so a failed write leaves no half file behind."""
    try:
        sharing.write_text(out, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    except OSError as exc:
        message, hint = refused_write(out, exc)
        raise LabelError(message, file=str(out), hint=hint) from None
