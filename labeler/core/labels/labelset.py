"""The frozen label set, `spanlab.labelset/1` to `/4` — the file CI gates on (§4).

This module exports the store's labels; the file's shape (`labelset_json`), its reading
(`labelset_read`) and its import (`labelset_import`) are offered here under one name.
"""

from __future__ import annotations

import gc
import json
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from labeler.core.anchoring.binding import sync
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.labels.labelset_import import (
    import_queries,
    refuse_conflicts,
    refuse_while_waiting,
)
from labeler.core.labels.labelset_json import (
    FORMAT,
    FORMAT_GROUPS,
    TOOL_VERSION,
    LabelSet,
    frame,
    hash_queries,
    query_json,
    to_json,
    write_json,
)
from labeler.core.labels.labelset_read import load_json, parse, parse_query, read
from labeler.core.store import Store

__all__ = [
    "FORMAT",
    "FORMAT_GROUPS",
    "TOOL_VERSION",
    "LabelSet",
    "export",
    "frame",
    "hash_queries",
    "import_queries",
    "load_json",
    "no_gc",
    "parse",
    "parse_query",
    "query_json",
    "read",
    "refuse_conflicts",
    "refuse_while_waiting",
    "to_json",
    "unwritable",
    "write_json",
]


def export(store: Store, corpus: Corpus, leave_out: frozenset[str] = frozenset()) -> dict[str, Any]:
    """Export the store's labels but the queries in `leave_out` (blind, §20); refuses while
    any span is stale or orphaned."""
    status = sync(store, corpus)
    if status.waiting:
        raise StoreError(
            f"{status.waiting} span(s) wait for review after the corpus changed; "
            "export refuses while any span is stale or orphaned",
            hint="run `spanlab review` (or `spanlab review --list`)",
        )
    if store.count("versions") or leave_out:  # double annotation: decided or single versions
        decided, waiting = store.decided_queries()
        data = to_json([q for q in decided if q.id not in leave_out], corpus)
        data["waiting_for_adjudication"] = len(waiting)
        return data
    with no_gc():
        queries, spans = store.label_rows()
        evidence: dict[str, list[dict[str, Any]]] = {}
        for qid, doc, start, end, quote, prefix, suffix, group in spans:
            item = {"doc": doc, "start": start, "end": end, "quote": quote,
                    "prefix": prefix, "suffix": suffix}  # fmt: skip
            evidence.setdefault(qid, []).append(item if group is None else {**item, "group": group})
        items = [
            _with_facts({"id": qid, "text": text, "abstain": bool(abstain),
                         "boundary": boundary, "slices": json.loads(slices), "status": status,
                         "notes": notes, "evidence": evidence.get(qid, [])}, facts)
            for qid, text, abstain, boundary, slices, status, notes, facts in queries
        ]  # fmt: skip
        try:
            return frame(items, corpus)
        except UnicodeEncodeError:  # rows are trusted as written; say which one is not
            raise unwritable(items) from None


def _with_facts(item: dict[str, Any], facts: str) -> dict[str, Any]:
    """`item` with its `facts` (§23) when it has any, shaped as `query_json` writes them."""
    return item if facts == "[]" else {**item, "facts": json.loads(facts)}


def unwritable(items: Sequence[Mapping[str, Any]]) -> LabelError:
    """Which exported query holds text no file can hold (a lone surrogate), and where."""
    for item in items:
        for key, value in item.items():
            try:
                json.dumps(value, ensure_ascii=False).encode("utf-8")
            except UnicodeEncodeError:
                return LabelError(
                    f"query {item['id']}: {key} holds a lone surrogate in the store (written "
                    "before such text was refused); nothing was exported", key=key
                )  # fmt: skip
    return LabelError("the store holds text that cannot be written as UTF-8")


@contextmanager
def no_gc() -> Iterator[None]:
    """Pause the cyclic GC while building hundreds of thousands of acyclic values.

    Without this, 200,000 spans trigger dozens of full collections that find nothing.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
