"""The writes a corpus change brings: binding, rebinding, and a reviewer's decisions (§8).

`anchoring.review` and `anchoring.binding` decide what to write and hold the write
transaction; these methods only write, inside it (`db`), so a decision, its span change and
its audit event still commit or roll back together.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, replace
from typing import TYPE_CHECKING

from labeler.core.corpus.canonical import NORMALIZATION, corpus_hash
from labeler.core.store.rows import EVENT, DecisionKind, span_fields, span_row, utcnow
from labeler.core.store.span_edits import SpanEdits
from labeler.core.values import Span

if TYPE_CHECKING:
    import sqlite_utils


class Reviews(SpanEdits):
    """Binding to a corpus and recording review decisions, on top of the edits."""

    # -- binding -------------------------------------------------------------------------

    def bind(
        self, documents: Mapping[str, str], *, db: sqlite_utils.Database | None = None
    ) -> None:
        """Bind the store to a corpus given as {doc id: doc hash}."""
        if db is None:
            with self.write() as wdb:
                self.bind(documents, db=wdb)
            return
        chash = corpus_hash(documents.items())
        db.execute("DELETE FROM bound_documents")
        db.table("bound_documents").insert_all(
            [{"doc": d, "doc_hash": h} for d, h in sorted(documents.items())]
        )
        for key, value in (("corpus_hash", chash), ("normalization", NORMALIZATION)):
            db.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", [key, value])

    def rehash_spans(self, doc: str, doc_hash: str, text: str, *, db: sqlite_utils.Database) -> int:
        """Mark every span on `doc` as drawn on `text` (hash `doc_hash`), keeping the text.

        Only for a text in which every such span is still valid; returns how many moved.
        """
        moved = db.execute(
            "UPDATE spans SET doc_hash = ? WHERE doc = ? AND doc_hash != ?",
            [doc_hash, doc, doc_hash],
        )
        if moved.rowcount:
            self.keep_text(doc_hash, text, db=db)
        return int(moved.rowcount)

    # -- review decisions ----------------------------------------------------------------

    def relocate_span(self, span_id: int, span: Span, *, db: sqlite_utils.Database) -> None:
        """Give span `span_id` the place `span` has (offsets, quote, context, doc hash).

        Its annotator and created time stay: a reviewer moved it, nobody re-drew it.
        """
        db.execute(
            'UPDATE spans SET start = ?, "end" = ?, quote = ?, prefix = ?, suffix = ?, '
            "doc_hash = ?, grp = ? WHERE id = ?",
            [span.start, span.end, span.quote, span.prefix, span.suffix, span.doc_hash,
             span.group, span_id],
        )  # fmt: skip

    def rewrite_span(self, span_id: int, span: Span, *, db: sqlite_utils.Database) -> None:
        """Write every field of `span` over span `span_id` (undo of an accepted move)."""
        db.table("spans").update(span_id, span_fields(span))

    def reinsert_span(self, query_id: str, span: Span, *, db: sqlite_utils.Database) -> None:
        """Put a deleted span back under its own id (undo of an orphaning)."""
        db.table("spans").insert(span_row(query_id, span))

    def free_group(self, query_id: str, span_id: int, *, db: sqlite_utils.Database) -> int:
        """A group number no span of span `span_id`'s query and version uses (§18)."""
        row = db.execute(
            "SELECT coalesce(max(grp), 0) + 1 FROM spans WHERE query_id = ? AND version = "
            "(SELECT version FROM spans WHERE id = ?)",
            [query_id, span_id],
        ).fetchone()
        return int(row[0])

    def insert_copy(self, span_id: int, span: Span, *, db: sqlite_utils.Database) -> int:
        """A copy of span `span_id` at `span`'s place, in its query and version (an
        alternative a review keeps, §18); the new row's id."""
        query_id, version = db.execute(
            "SELECT query_id, version FROM spans WHERE id = ?", [span_id]
        ).fetchone()
        row = {**span_row(str(query_id), replace(span, id=None)), "version": str(version)}
        db.table("spans").insert(row)
        return int(db.execute("SELECT last_insert_rowid()").fetchone()[0])

    def record_decision(
        self,
        kind: DecisionKind,
        query_id: str,
        old: Span,
        place: tuple[int, int] | None,
        *,
        bound: str | None,
        current: str,
        annotator: str,
        db: sqlite_utils.Database,
        added: list[int] | None = None,
    ) -> int:
        """Write the decision row and the event holding the whole old span; the row's id.

        `place` is where the span went (None when orphaned); `bound` and `current` are the
        corpus hashes the store was bound to and the folder had when deciding; `added`, the
        spans the decision made as alternatives of it (§18), which its undo removes.
        """
        now = utcnow()
        table = db.table("review_decisions")
        table.insert(
            {
                "span_id": old.id,
                "query_id": query_id,
                "decision": kind,
                "old_doc": old.doc,
                "old_start": old.start,
                "old_end": old.end,
                "old_quote": old.quote,
                "new_start": None if place is None else place[0],
                "new_end": None if place is None else place[1],
                "old_corpus_hash": bound or "",
                "new_corpus_hash": current,
                "annotator": annotator,
                "at": now,
            }
        )
        row_id = int(table.last_rowid or 0)
        self.log_event(
            db,
            EVENT[kind],
            annotator,
            query_id,
            at=now,
            decision=row_id,
            span=asdict(old),
            **({"added": added} if added else {}),
        )
        return row_id
