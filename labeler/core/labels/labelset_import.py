"""Writing validated label-set queries into the store: one transaction, conflicting ids
refused unless replacing, retired ids never brought back, ids a reader made up allocated
inside the write.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence, Set
from dataclasses import replace
from typing import TYPE_CHECKING

from labeler.core.anchoring.binding import CorpusStatus, sync
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import StoreError
from labeler.core.labels.labelset_json import query_json
from labeler.core.labels.replaced import log_replaced
from labeler.core.progress import TaskFactory, no_task
from labeler.core.store import Store, Version, utcnow
from labeler.core.values import Query

if TYPE_CHECKING:
    import sqlite_utils


BATCH = 5_000
"""Queries written at a time (all in the one transaction), so a bar can move between."""


def refuse_while_waiting(status: CorpusStatus) -> None:
    """Imports wait until the store is bound to the corpus as it is now."""
    if status.bound_hash != status.current_hash:
        raise StoreError(
            f"the store is bound to {status.bound_hash} and {status.waiting} span(s) wait for "
            "review; import refuses until they are resolved",
            hint="run `spanlab review`",
        )


def refuse_filters(queries: Sequence[Query]) -> None:
    """The store keeps no query filter (§24): a set that carries them is evaluated as a
    frozen file (`spanlab eval --labels`), and refused here rather than imported without."""
    with_filter = [q.id for q in queries if q.filter]
    if with_filter:
        raise StoreError(
            f"{len(with_filter)} quer(y/ies) carry their own filter ({', '.join(with_filter[:5])}"
            "), which the store does not keep: nothing was imported",
            key="filter",
            hint="evaluate the file itself: spanlab eval CANDIDATES --labels FILE",
        )


def refuse_conflicts(
    store: Store, queries: Sequence[Query], *, replace_existing: bool = False
) -> tuple[dict[str, Query], list[str]]:
    """The stored queries, and the ids given with different labels; raises unless replacing.
    No ids given (new questions only), nothing to compare: the store is not read (a whole
    read of 200,000 queries took 20 s with no line on the screen, issue 45)."""
    if not queries:
        return {}, []
    existing = {q.id: q for q in store.queries()}
    conflicts = [
        q.id for q in queries if q.id in existing and query_json(existing[q.id]) != query_json(q)
    ]
    if conflicts and not replace_existing:
        raise StoreError(
            f"{len(conflicts)} quer(y/ies) already exist with different labels: "
            f"{', '.join(conflicts[:10])}",
            key="id",
            hint="pass --replace to overwrite them",
        )
    return existing, conflicts


def import_queries(
    store: Store,
    queries: Sequence[Query],
    corpus: Corpus,
    *,
    annotator: str,
    replace_existing: bool = False,
    on_disk: Corpus | None = None,
    before_write: Callable[[sqlite_utils.Database], None] | None = None,
    fresh: Set[str] = frozenset(),
    versions: Sequence[tuple[str, Version]] = (),
    removed: list[str] | None = None,
    task: TaskFactory = no_task,
) -> int:
    """Write validated queries in one transaction; conflicting ids refuse unless replacing.
    `task` shows how far the checking and the writing are (a bar on a terminal).

    A replaced query is logged with the spans it loses and whose they were; `removed`, if
    given, collects a line on each (§15).

    Ids in `fresh` were made up by a reader: those queries get ids the store allocates
    inside the write, so concurrent imports never hand out (or replace) one id twice;
    `replace_existing` replaces only what the file names by its own ids. `versions` are
    annotators' versions of those queries (several annotations of one task). An import
    that brings documents passes the corpus as it is `on_disk` (the store must be bound to
    it) and `corpus` with the new documents; `before_write` runs inside the transaction,
    before the queries go in, to publish them and bind the store.
    """
    refuse_filters(queries)
    refuse_while_waiting(sync(store, on_disk or corpus))
    named = [q for q in queries if q.id not in fresh]
    existing, conflicts = refuse_conflicts(store, named, replace_existing=replace_existing)
    texts = {d.id: d.text for d in corpus}
    todo: list[Query] = []
    new: list[Query] = []
    with task("checking queries", len(queries)) as advance:
        for n, q in enumerate(queries, 1):
            if q.id in fresh:
                new.append(_stamped(q, annotator))
            elif q.id not in existing or q.id in conflicts:
                todo.append(_stamped(q, annotator))
            if n % BATCH == 0:
                advance(BATCH)
        advance(len(queries) % BATCH)
    # Bars over the whole write: 200,000 questions spent 4 s before "writing" (new ids
    # given one by one) and 12 s after it (the rows sealed) with no position (issue 45).
    with task("saving to the store", 1) as saved:
        with store.write(task=task) as db:
            # Again under the write lock: another annotator may have created one of these ids.
            stored, now_conflicts = refuse_conflicts(store, todo, replace_existing=replace_existing)
            if set(now_conflicts) - set(conflicts):
                raise StoreError(
                    "another writer created "
                    f"{', '.join(sorted(set(now_conflicts) - set(conflicts)))} meanwhile; "
                    "nothing was imported",
                    key="id",
                    hint="run the import again",
                )
            _refuse_retired(store, [q.id for q in todo if q.id not in existing])
            if before_write is not None:
                before_write(db)
            given = dict(
                zip((q.id for q in new), store.allocate_query_ids(db, len(new)), strict=True)
            )
            said = log_replaced(store, db, stored, [q for q in todo if q.id in now_conflicts],
                                annotator=annotator)  # fmt: skip
            every = [*todo, *new]
            with task("writing queries", len(every)) as advance:
                for at in range(0, len(every), BATCH):
                    batch = [replace(q, id=given[q.id]) if q.id in given else q
                             for q in every[at : at + BATCH]]  # fmt: skip
                    store.put_queries(batch, texts, db=db)
                    advance(len(batch))
            written = {q.id for q in todo} | set(given.values())  # the ids the store gave
            mine = [
                (given.get(qid, qid), v) for qid, v in versions if given.get(qid, qid) in written
            ]
            store.put_versions(mine, texts, db=db)
        saved(1)
    if removed is not None:
        removed.extend(said)
    return len(todo) + len(new)


def _stamped(q: Query, annotator: str) -> Query:
    now = utcnow()
    return replace(
        q,
        annotator=q.annotator or annotator,
        created=q.created or now,
        updated=now,
        evidence=tuple(
            replace(s, annotator=s.annotator or annotator, created=s.created or now)
            for s in q.evidence
        ),
    )


def _refuse_retired(store: Store, ids: Sequence[str]) -> None:
    """A deleted query's id stays retired (§3): a file may not bring it back."""
    retired = [qid for qid in ids if store.retired(qid)]
    if retired:
        raise StoreError(
            f"{len(retired)} quer(y/ies) use ids of deleted queries, which stay retired: "
            f"{', '.join(retired[:10])}; nothing was imported",
            key="id",
            hint="give them new ids (or leave the ids out)",
        )
