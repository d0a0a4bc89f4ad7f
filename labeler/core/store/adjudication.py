"""A reviewer's decision on a double-annotated query, and which evidence counts (§3, §11).

Keeping one version or a merge writes it as the query's own evidence (version ''); sending
back marks the query draft with a note for the annotators. Each decision is one
transaction with who and when, and compare-and-set on the query's revision, so two
reviewers racing on one query cannot both win. A query with two or more versions and no
decision since the last of them waits: export and eval leave it out and say how many.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from labeler.core.errors import StoreError
from labeler.core.store.authors import refuse_self_review
from labeler.core.store.conflicts import ConflictError
from labeler.core.store.rows import Version, utcnow
from labeler.core.store.versions import Versions
from labeler.core.values import Query, Span, Status

if TYPE_CHECKING:
    import sqlite_utils

Verdict = Literal["keep", "merge", "send-back"]


class Adjudication(Versions):
    """Adjudication decisions and the evidence export and eval use, on top of versions."""

    def adjudicate(
        self,
        query_id: str,
        verdict: Verdict,
        *,
        annotator: str,
        seen: int,
        keep: Sequence[str] = (),
        note: str = "",
        texts: Mapping[str, str] | None = None,
    ) -> Query:
        """Decide on a query whose revision the reviewer saw as `seen`; one transaction.

        Keep and merge mark it reviewed, so they are refused to its authors (a version's
        annotator among them); anyone may send it back.
        """
        with self.write() as db:
            now = self._live(query_id)
            if now.revision != seen:
                raise self._raced(now, seen)
            if verdict != "send-back":
                refuse_self_review(self.conn, query_id, now.annotator, annotator)
            versions = self.versions([query_id]).get(query_id, {})
            chosen = [versions[k] for k in keep if k in versions]
            if verdict != "send-back" and (not chosen or len(chosen) != len(keep)):
                raise StoreError(f"{query_id}: no version of {', '.join(keep) or 'nobody'}")
            if verdict == "send-back":
                notes = f"{now.notes}\nsent back by {annotator}: {note}".strip()
                self._write_fields(query_id, notes=notes, status=Status.DRAFT.value)
            else:
                self._write_evidence(query_id, _decided(chosen), texts or {}, db)
            self.conn.execute(
                "INSERT INTO adjudications(query_id, decision, versions, note, revision, "
                "annotator, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (query_id, verdict, json.dumps(list(keep)), note, seen, annotator, utcnow()),
            )
            self.log_event(
                db, "adjudicated", annotator, query_id, decision=verdict, keep=list(keep)
            )
        return self.query(query_id)

    def _raced(self, now: Query, seen: int) -> ConflictError:
        row = self.conn.execute(
            "SELECT annotator, at, decision FROM adjudications WHERE query_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (now.id,),
        ).fetchone()
        who, at, what = (row[0], row[1], row[2]) if row else ("", "", "an edit")
        by = f" by {who} at {at[:19].replace('T', ' ')} UTC ({what})" if row else ""
        return ConflictError(
            f"{now.id} changed since you looked{by}; nothing was decided",
            key="query", hint="reload and decide again", query_id=now.id, what="the query",
            who=who, at=at,
        )  # fmt: skip

    def _write_fields(self, query_id: str, **values: str | int) -> None:
        sets = ", ".join(f"{k} = ?" for k in values)
        self.conn.execute(
            f"UPDATE queries SET {sets}, updated = ?, revision = revision + 1 WHERE id = ?",
            [*values.values(), utcnow(), query_id],
        )

    def _write_evidence(
        self, query_id: str, decided: Version, texts: Mapping[str, str], db: sqlite_utils.Database
    ) -> None:
        self.conn.execute("DELETE FROM spans WHERE query_id = ? AND version = ''", (query_id,))
        for s in decided.spans:
            text = texts.get(s.doc) or self.doc_text(s.doc_hash) or ""
            self._insert_span(db, query_id, replace(s, id=None), text, version="")
        self._write_fields(query_id, abstain=int(decided.abstain), status=Status.REVIEWED.value)

    def adjudications(self, query_id: str) -> list[tuple[str, list[str], str, str, str]]:
        """(decision, versions kept, note, who, when) for a query, oldest first."""
        rows = self.conn.execute(
            "SELECT decision, versions, note, annotator, at FROM adjudications "
            "WHERE query_id = ? ORDER BY id",
            (query_id,),
        )
        return [(r[0], json.loads(r[1]), r[2], r[3], r[4]) for r in rows]

    def waiting(self) -> list[str]:
        """Queries with two or more versions and no keep or merge since the last of them."""
        rows = self.conn.execute(
            "SELECT v.query_id FROM versions v GROUP BY v.query_id HAVING count(*) >= 2 AND "
            "coalesce((SELECT max(a.at) FROM adjudications a WHERE a.query_id = v.query_id "
            "AND a.decision != 'send-back'), '') < max(v.updated) ORDER BY v.query_id"
        )
        return [r[0] for r in rows]

    def single_versions(self) -> dict[str, str]:
        """{query id: annotator} of queries with exactly one version and no evidence of
        their own: that version is their evidence."""
        rows = self.conn.execute(
            "SELECT v.query_id, min(v.annotator) FROM versions v GROUP BY v.query_id "
            "HAVING count(*) = 1 AND NOT EXISTS (SELECT 1 FROM spans s WHERE "
            "s.query_id = v.query_id AND s.version = '')"
        )
        return {r[0]: r[1] for r in rows}


class Decided(Adjudication):
    """The labels export and eval use: adjudicated or single-version evidence (§3)."""

    def decided_queries(self) -> tuple[list[Query], list[str]]:
        """Every query but those waiting for adjudication, a single version standing in
        for the query's own evidence; and the ids of those waiting."""
        waiting = self.waiting()
        skip = set(waiting)
        singles = self.single_versions()
        versions = self.versions(sorted(singles)) if singles else {}
        out = []
        for q in self.queries():
            if q.id in skip:
                continue
            if q.id in singles:
                v = versions[q.id][singles[q.id]]
                abstain = not v.spans and (v.abstain or q.abstain)
                q = replace(q, abstain=abstain, evidence=v.spans, stored=True)
            out.append(q)
        return out, waiting


def _decided(chosen: Sequence[Version]) -> Version:
    """One version kept as it is, or several merged: every distinct span, abstaining only
    when all abstain."""
    if len(chosen) == 1:
        return chosen[0]
    spans: dict[tuple[str, int, int], Span] = {}
    for v in chosen:
        for s in v.spans:
            spans.setdefault((s.doc, s.start, s.end), s)
    merged = tuple(spans[k] for k in sorted(spans))
    return Version("+".join(v.annotator for v in chosen), all(v.abstain for v in chosen), merged)
