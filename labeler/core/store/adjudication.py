"""A reviewer's decision on a double-annotated query, and which evidence counts (§3, §11).

Keeping one version or a merge writes it, field by field, as the query's own annotation
(evidence in version '', overlapping spans of a merge joined); sending back marks the query
and each version draft with a note. Each decision is one transaction with who and when,
compare-and-set on the query's revision, which every version change moves too, so a
decision over a version changed since is refused naming who changed what. A query with two
or more versions and no decision since the last of them waits: export and eval leave it out.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Literal

from labeler.core.errors import StoreError
from labeler.core.overlaps import joined
from labeler.core.progress import Advance
from labeler.core.store.authors import refuse_self_review
from labeler.core.store.conflicts import ConflictError
from labeler.core.store.rows import Version, utcnow
from labeler.core.store.versions import Versions
from labeler.core.values import Boundary, Query, Span, Status

if TYPE_CHECKING:
    import sqlite_utils

Verdict = Literal["keep", "merge", "send-back"]
_DECIDED = (
    "SELECT a.query_id FROM adjudications a WHERE a.id = (SELECT max(b.id) FROM "
    "adjudications b WHERE b.query_id = a.query_id) AND a.decision != 'send-back'"
)
"""Queries whose newest decision is a keep or merge: decided, whatever came after (§21)."""
DECIDED_FIELDS = ("evidence", "boundary", "slices", "notes")
"""What a decision takes field by field; evidence carries the abstain flag with it."""
BLIND_HINT = (
    "the project's `blind = true` keeps each annotator's version from them until a "
    "reviewer decides; ask one who did not annotate it"
)
"""Where a blind refusal points."""


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
        fields: Mapping[str, str] | None = None,
    ) -> Query:
        """Decide on a query whose revision the reviewer saw as `seen`; one transaction.

        Keep and merge mark it reviewed, so they are refused to its authors (a version's
        annotator among them); anyone may send it back. `fields` decides field by field
        ({"evidence": "alice", "boundary": "bob"}; "merge" joins evidence, slices or notes);
        a field it leaves out follows `keep`. A version changed since `seen` is refused,
        saying who changed what.
        """
        with self.write() as db:
            now = self._live(query_id)
            if now.revision != seen:
                raise self._raced(now, seen)
            blind = self.blind_refusal(query_id)
            if blind is not None:
                raise StoreError(blind, key="query", hint=BLIND_HINT)
            if verdict != "send-back":
                refuse_self_review(self.conn, query_id, annotator)
            versions = self.versions([query_id]).get(query_id, {})
            chosen = [versions[k] for k in keep if k in versions]
            if verdict != "send-back" and (not chosen or len(chosen) != len(keep)):
                raise StoreError(f"{query_id}: no version of {', '.join(keep) or 'nobody'}")
            joins: list[str] = []
            if verdict == "send-back":
                said = f"sent back by {annotator}: {note}"
                self._write_fields(query_id, notes=f"{now.notes}\n{said}".strip(),
                                   status=Status.DRAFT.value)  # fmt: skip
                self._send_back_versions(query_id, said)
            else:
                plan = decide_fields(query_id, versions, chosen, fields or {})
                joins = self._write_decided(query_id, plan, texts or {}, db)
            self.conn.execute(
                "INSERT INTO adjudications(query_id, decision, versions, note, revision, "
                "annotator, at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (query_id, verdict, json.dumps(list(keep)), note, seen, annotator, utcnow()),
            )
            self.log_event(
                db, "adjudicated", annotator, query_id, decision=verdict, keep=list(keep),
                fields=dict(fields or {}), joined=joins,
            )  # fmt: skip
        return self.query(query_id)

    def _send_back_versions(self, query_id: str, said: str) -> None:
        """Each version goes back to draft with the note: a blind annotator reads their own
        version's notes, not the query's (§3)."""
        self.conn.execute(
            "UPDATE versions SET notes = ltrim(notes || char(10) || ?, char(10)), "
            "status = 'draft', revision = revision + 1 WHERE query_id = ?",
            (said, query_id),
        )

    def blind_refusal(self, query_id: str) -> str | None:
        """Why the blind annotator in `view` may not see this query's versions side by side
        (they made one and it is not decided yet), or None (§3)."""
        if not self.view or query_id not in self.closed_to_view():
            return None
        return (
            f"{query_id}: you annotated it blind, so its agreement and adjudication stay "
            "closed to you until it is decided"
        )

    def closed_to_view(self) -> set[str]:
        """The waiting queries the blind annotator in `view` made a version of (none unblind)."""
        if not self.view:
            return set()
        mine = self.conn.execute("SELECT query_id FROM versions WHERE annotator = ?", (self.view,))
        return set(self.waiting()) & {r[0] for r in mine}

    def blind_closed(self) -> str | None:
        """Why the agreement screen stays shut to the blind annotator in `view`: every query
        that waits holds their version; None when some query is theirs to decide."""
        waiting = self.waiting()
        if not self.view or not waiting or set(waiting) - self.closed_to_view():
            return None
        return (
            f"every query waiting for adjudication ({len(waiting)}) holds your blind version, "
            f"so the agreement screen stays closed to you ({BLIND_HINT})"
        )

    def last_decided(self, query_id: str) -> list[str]:
        """What the newest decision on a query said about spans it joined (a merge)."""
        row = self.conn.execute(
            "SELECT payload FROM events WHERE query_id = ? AND kind = 'adjudicated' "
            "ORDER BY id DESC LIMIT 1",
            (query_id,),
        ).fetchone()
        return list(json.loads(row[0]).get("joined", [])) if row else []

    def _raced(self, now: Query, seen: int) -> ConflictError:
        """The refusal of a decision over a query changed since: who changed what, when."""
        row = self.conn.execute(
            "SELECT annotator, at, kind, payload FROM events WHERE query_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (now.id,),
        ).fetchone()
        who, at, what = (row[0], row[1], _said(row[2], json.loads(row[3]))) if row else ("", "", "")
        by = f" by {who} at {at[:19].replace('T', ' ')} UTC ({what})" if row else ""
        return ConflictError(
            f"{now.id} changed since you looked{by}; nothing was decided",
            key="query", hint="reload and decide again", query_id=now.id, what=what or "the query",
            who=who, at=at,
        )  # fmt: skip

    def _write_fields(self, query_id: str, **values: str | int) -> None:
        sets = ", ".join(f"{k} = ?" for k in values)
        self.conn.execute(
            f"UPDATE queries SET {sets}, updated = ?, revision = revision + 1 WHERE id = ?",
            [*values.values(), utcnow(), query_id],
        )

    def _write_decided(
        self, query_id: str, plan: Version, texts: Mapping[str, str], db: sqlite_utils.Database
    ) -> list[str]:
        """Write the decided annotation as the query's own; the joins a merge made."""
        self.conn.execute("DELETE FROM spans WHERE query_id = ? AND version = ''", (query_id,))

        def text_of(s: Span) -> str:
            return texts.get(s.doc) or self.doc_text(s.doc_hash) or ""

        spans, joins = joined(plan.spans, text_of)
        for s in spans:
            self._insert_span(db, query_id, replace(s, id=None), text_of(s), version="")
        abstain = int(plan.abstain and not spans)
        self._write_fields(
            query_id, abstain=abstain, status=Status.REVIEWED.value,
            boundary=Boundary(plan.boundary or Boundary.OTHER).value,
            slices=json.dumps(list(plan.slices or ())), notes=plan.notes or "",
            **({"facts": "[]"} if abstain else {}),  # an abstention states no facts (§23)
        )  # fmt: skip
        return joins

    def adjudications(self, query_id: str) -> list[tuple[str, list[str], str, str, str]]:
        """(decision, versions kept, note, who, when) for a query, oldest first."""
        rows = self.conn.execute(
            "SELECT decision, versions, note, annotator, at FROM adjudications "
            "WHERE query_id = ? ORDER BY id",
            (query_id,),
        )
        return [(r[0], json.loads(r[1]), r[2], r[3], r[4]) for r in rows]

    def waiting(self) -> list[str]:
        """Queries with two or more versions whose newest decision is not a keep or merge. A
        decision stands (§21): a version written after it (a member added later, say) does
        not reopen the query; a lead reopens it by sending it back."""
        rows = self.conn.execute(
            "SELECT v.query_id FROM versions v GROUP BY v.query_id HAVING count(*) >= 2 AND "
            f"v.query_id NOT IN ({_DECIDED}) ORDER BY v.query_id"
        )
        return [r[0] for r in rows]

    def decision_on(self, query_id: str) -> str | None:
        """What a member who writes a version of a decided query is told (None: it waits):
        the decision stands, her version is kept beside it and reopens nothing (§21)."""
        row = self.conn.execute(
            "SELECT decision, versions, annotator, at FROM adjudications WHERE query_id = ? "
            "ORDER BY id DESC LIMIT 1",
            (query_id,),
        ).fetchone()
        if row is None or row[0] == "send-back":
            return None
        kept = ", ".join(json.loads(row[1])) or "the query's own"
        how = f"kept {kept}'s version" if row[0] == "keep" else f"merged {kept}"
        return (f"{query_id} is decided ({row[2]} {how}, {str(row[3])[:16].replace('T', ' ')} "
                "UTC): your version is kept beside the decision and does not reopen it; "
                "ask a lead to send it back if it should")  # fmt: skip

    def undecided(self) -> dict[str, frozenset[str]]:
        """{query id: who made its versions} for every query whose versions wait for a
        decision: a version newer than the query's standing keep or merge (or with none), a lone
        version too (§20). A version written after a decision is hidden again, though the
        decision stands for export (`standing`, §21)."""
        who: dict[str, set[str]] = {}
        newest: dict[str, str] = {}
        for qid, name, updated in self.conn.execute(
            "SELECT query_id, annotator, updated FROM versions"
        ):
            who.setdefault(qid, set()).add(str(name))
            newest[qid] = max(newest.get(qid, ""), str(updated or ""))
        for qid, name in self.conn.execute(
            "SELECT DISTINCT query_id, version FROM spans WHERE version != ''"
        ):  # spans of a version written before versions had a row of their own
            who.setdefault(qid, set()).add(str(name))
        newest_decision = _DECIDED.replace("SELECT a.query_id", "SELECT a.query_id, a.at")
        decided = {str(q): str(at) for q, at in self.conn.execute(newest_decision)}
        return {
            q: frozenset(names)
            for q, names in sorted(who.items())
            if q not in decided or decided[q] < newest.get(q, "")
        }

    def standing(self) -> frozenset[str]:
        """Queries whose newest decision is a keep or merge: exported with that decision,
        whatever versions came after it (§21)."""
        return frozenset(str(r[0]) for r in self.conn.execute(_DECIDED))

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

    def decided_queries(self, advance: Advance | None = None) -> tuple[list[Query], list[str]]:
        """Every query but those waiting for adjudication, a single version standing in
        for the query's own annotation (evidence, pattern, slices, notes); and the ids of
        those waiting. `advance`d by one a query read."""
        waiting = self.waiting()
        skip = set(waiting)
        singles = self.single_versions()
        versions = self.versions(sorted(singles)) if singles else {}
        out = []
        for q in self.queries(advance):
            if q.id in skip:
                continue
            if q.id in singles:
                v = versions[q.id][singles[q.id]]
                abstain = not v.spans and (v.abstain or q.abstain)
                q = replace(q, abstain=abstain, evidence=v.spans, boundary=v.boundary or q.boundary,
                            facts=() if abstain else q.facts,
                            slices=q.slices if v.slices is None else v.slices,
                            notes=q.notes if v.notes is None else v.notes,
                            stored=True)  # fmt: skip
            out.append(q)
        return out, waiting


def _said(kind: str, payload: Mapping[str, object]) -> str:
    """An audit-log entry in a few words: `alice changed abstain in her version`."""
    changes = payload.get("changes")
    names = ", ".join(sorted(changes)) if isinstance(changes, dict) else ""
    if kind == "version-updated":
        return f"changed {names} in their version"
    if kind == "adjudicated":
        return str(payload.get("decision", ""))
    if kind == "query-updated":
        return f"changed {names}"
    return kind.replace("-", " ")


def decide_fields(
    query_id: str,
    versions: Mapping[str, Version],
    chosen: Sequence[Version],
    fields: Mapping[str, str],
) -> Version:
    """The annotation a decision makes: each field from the version `fields` names, or
    "merge"; a field left out from the one kept, or merged when several are (§3)."""
    unknown = sorted(set(fields) - set(DECIDED_FIELDS))
    if unknown:
        raise StoreError(f"cannot decide {unknown[0]!r}; fields are {', '.join(DECIDED_FIELDS)}",
                         key=unknown[0])  # fmt: skip
    picked: dict[str, list[Version]] = {}
    for name in DECIDED_FIELDS:
        who = fields.get(name)
        if who is None or who == "merge":
            picked[name] = list(versions.values()) if who == "merge" else list(chosen)
        elif who in versions:
            picked[name] = [versions[who]]
        else:
            raise StoreError(f"{query_id}: no version of {who!r} to take the {name} from",
                             key=name)  # fmt: skip
    ev, pattern = picked["evidence"], picked["boundary"]
    spans = renumbered(ev) if len(ev) > 1 else tuple(dict.fromkeys(ev[0].spans if ev else ()))
    return Version(
        "+".join(v.annotator for v in ev), all(v.abstain for v in ev), spans,
        boundary=pattern[0].boundary,
        slices=tuple(dict.fromkeys(x for v in picked["slices"] for x in v.slices or ())),
        notes="\n".join(dict.fromkeys(v.notes for v in picked["notes"] if v.notes)),
    )  # fmt: skip


def renumbered(versions: Sequence[Version]) -> tuple[Span, ...]:
    """The versions' spans, their groups numbered afresh (§18: a group's number is its
    annotator's own): alice's group 1 and bob's group 1 are two facts unless they share a
    place, and groups that share one are copies of one fact, so one group."""
    owner: dict[tuple[int, int], tuple[int, int]] = {}  # (version, group) -> its root

    def root(node: tuple[int, int]) -> tuple[int, int]:
        while owner.setdefault(node, node) != node:
            node = owner[node]
        return node

    first: dict[tuple[str, int, int], tuple[int, int]] = {}
    for i, version in enumerate(versions):
        for span in version.spans:
            if span.group is not None:
                seen = first.setdefault((span.doc, span.start, span.end), (i, span.group))
                owner[root((i, span.group))] = root(seen)
    numbers: dict[tuple[int, int], int] = {}
    out = [span if span.group is None else
           replace(span, group=numbers.setdefault(root((i, span.group)), len(numbers) + 1))
           for i, version in enumerate(versions) for span in version.spans]  # fmt: skip
    return tuple(dict.fromkeys(out))
