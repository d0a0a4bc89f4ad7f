"""`labels import --as-version`: a second annotator's file joins the queries it shares with
the store as that annotator's versions (§3, §14).

doccano exports one file per member and a second Label Studio export repeats the
questions, so matching is by query id, then by question. A query the store already has
gains a version (its own single annotation becomes its annotator's version first); a
query it lacks is created with the version; an annotator's earlier, different version is
kept unless replacing. The versions read are checked again inside the write, so a
concurrent writer is never overwritten.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.formats import Imported
from labeler.core.formats._common import text_key
from labeler.core.store import Store
from labeler.core.store.rows import Version
from labeler.core.values import Query

if TYPE_CHECKING:
    import sqlite_utils


@dataclass(frozen=True)
class Joined:
    """What joining a file as versions did."""

    new: int
    """Queries the store lacked, created with the file's versions."""
    joined: int
    """Queries the store had that gained (or replaced) a version."""
    skipped: int
    """Queries left as they were: the same version already there, or a different one kept."""
    versions: int
    """Versions written."""
    annotators: tuple[str, ...]
    """Whose versions were written (a query's own annotation made its annotator's too)."""
    warnings: tuple[str, ...] = ()
    """Each query skipped because its annotator's version there differs."""


Pairs = list[tuple[Query, tuple[Version, ...]]]
"""Queries, each with the versions the file brings for it."""


def file_versions(imported: Imported, name: str | None) -> Pairs:
    """Each query of the file with its versions: the file's own, when it holds several
    annotators' work, else its evidence as one version of `name`, or of the annotator
    the file names."""
    own: dict[str, list[Version]] = {}
    for qid, v in imported.versions:
        own.setdefault(qid, []).append(v)
    out = []
    for q in imported.queries:
        if q.id in own:
            out.append((q, tuple(own[q.id])))
            continue
        who = name or q.annotator
        if not who:
            raise LabelError(
                f"cannot tell whose annotation query {q.text[:60]!r} is: the file names no "
                "annotator", key="--annotator", hint="pass --annotator NAME with --as-version",
            )  # fmt: skip
        out.append((q, (Version(who, q.abstain, q.evidence),)))
    return out


def _key(v: Version) -> tuple[bool, list[tuple[str, int, int]]]:
    return v.abstain, sorted((s.doc, s.start, s.end) for s in v.spans)


def _same(a: Version, b: Version) -> bool:
    return _key(a) == _key(b)


@dataclass
class _Plan:
    writes: list[tuple[str, Version]]
    seen: dict[str, tuple[int, dict[str, Version]]]
    skipped: int = 0
    joined: int = 0


def _plan(store: Store, matches: Pairs, replacing: bool) -> tuple[_Plan, list[str]]:
    stored = store.versions([q.id for q, _ in matches]) if matches else {}
    plan, warnings = _Plan([], {}), []
    for q, versions in matches:
        plan.seen[q.id] = (q.revision, stored.get(q.id, {}))
        have = dict(stored.get(q.id, {}))
        if not have and (q.evidence or q.abstain) and q.annotator:
            have[q.annotator] = Version(q.annotator, q.abstain, q.evidence)
            own = [(q.id, have[q.annotator])]
        else:
            own = []
        todo = []
        for v in versions:
            if v.annotator in have and _same(have[v.annotator], v):
                continue
            if v.annotator in have and not (replacing and not own):
                warnings.append(
                    f"{q.id}: kept {v.annotator}'s version in the store, which differs from "
                    "the file's (pass --replace to take the file's)"
                )
                continue
            todo.append((q.id, v))
        if todo:  # the query's own annotation is never among todo: it was kept or equal
            plan.writes += [*own, *todo]
            plan.joined += 1
        else:
            plan.skipped += 1
    return plan, warnings


def match(store: Store, imported: Imported, pairs: Pairs) -> tuple[Pairs, Pairs]:
    """(pairs whose query the store has, as the stored query; pairs it lacks)."""
    existing = store.queries()
    by_id = {q.id: q for q in existing}
    by_text = {text_key(q.text): q for q in existing}
    found, new = [], []
    for q, versions in pairs:
        hit = by_id.get(q.id) if q.id not in imported.fresh else None
        if hit is not None and text_key(hit.text) != text_key(q.text):
            raise LabelError(f"query {q.id} has another question in the store", key="query_id")
        hit = hit or by_text.get(text_key(q.text))
        if hit is None:
            new.append((q, versions))
        else:
            found.append((hit, versions))
    return found, new


def join(
    store: Store,
    corpus: Corpus,
    imported: Imported,
    *,
    name: str | None,
    importer: str,
    replacing: bool,
) -> Joined:
    """Write the file's annotations as versions, new queries and joined ones in one
    transaction (labelset.import_queries' own)."""
    from labeler.core.labels import labelset

    pairs = file_versions(imported, name)
    found, new = match(store, imported, pairs)
    plan, warnings = _plan(store, found, replacing)
    texts = {d.id: d.text for d in corpus}

    def put(db: sqlite_utils.Database) -> None:
        for qid, (revision, then) in plan.seen.items():
            now = store.versions([qid]).get(qid, {})
            if store.query(qid).revision != revision or now != then:
                raise StoreError(f"another writer changed {qid} meanwhile; nothing was imported",
                                 key="query", hint="run the import again")  # fmt: skip
        store.put_versions(plan.writes, texts, db=db)

    queries = [replace(q, evidence=(), abstain=False, annotator="") for q, _ in new]
    versions = [(q.id, v) for q, vs in new for v in vs]
    labelset.import_queries(
        store, queries, corpus, annotator=importer, fresh=imported.fresh, versions=versions,
        before_write=put,
    )  # fmt: skip
    who = tuple(sorted({v.annotator for _, v in [*plan.writes, *versions]}))
    written = len(plan.writes) + len(versions)
    return Joined(len(new), plan.joined, plan.skipped, written, who, tuple(warnings))
