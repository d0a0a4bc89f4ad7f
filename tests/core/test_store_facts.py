"""Facts in the store (§23): a form field like the others (compare-and-set, the audit log,
the journals restore replays), migration 7 opening older stores as they were, and the
label set carrying them as `spanlab.labelset/4` only when some query has them."""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.labels import labelset
from labeler.core.store import Store, audit, digests
from labeler.core.store.conflicts import ConflictError
from labeler.core.store.restore import restore
from labeler.core.values import Query, Span
from tests.conftest import table_dump

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
CORPUS = Corpus.from_texts({"p.md": TEXT})
FACTS = (("30 days", "thirty days"), ("refund",))


def _labelled(store: Store) -> Query:
    q = store.add_query("How long do refunds take?", annotator="ann")
    store.add_span(q.id, Span.from_text(TEXT, "p.md", 9, 23), TEXT, annotator="ann")
    return store.query(q.id)


def test_facts_are_written_compare_and_set_and_logged(memory_store: Store) -> None:
    q = _labelled(memory_store)
    after = memory_store.update_query(q.id, annotator="ann", seen=q, facts=FACTS)
    assert after.facts == FACTS and memory_store.query(q.id).facts == FACTS
    who, kind, _, payload = memory_store.last_event(q.id) or ("", "", "", {})
    assert (who, kind, sorted(payload["changes"])) == ("ann", "query-updated", ["facts"])
    with pytest.raises(ConflictError) as caught:  # bob saw the query before ann's facts
        memory_store.update_query(q.id, annotator="bob", seen=q, facts=(("refunds",),))
    assert (caught.value.what, caught.value.who) == ("facts", "ann")
    assert "you saw [], it is now [30 days | thirty days; refund]" in caught.value.message
    assert memory_store.query(q.id).facts == FACTS


def test_an_abstention_with_facts_is_refused_and_nothing_is_written(memory_store: Store) -> None:
    q = _labelled(memory_store)
    memory_store.update_query(q.id, annotator="ann", facts=FACTS)
    memory_store.delete_span(memory_store.query(q.id).evidence[0].id or 0, annotator="ann")
    before = table_dump(memory_store)
    with pytest.raises(LabelError) as caught:
        memory_store.update_query(q.id, annotator="ann", abstain=True)
    assert caught.value.key == "facts"
    assert table_dump(memory_store) == before


def _as_version_6(db: Path) -> None:
    """The store as spanlab left it before facts: no `facts` column, version 6, sealed."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.execute("ALTER TABLE queries DROP COLUMN facts")
    conn.execute("PRAGMA user_version = 6")
    digests.seal_all(conn)
    conn.execute("COMMIT")
    conn.close()


def test_a_version_6_store_opens_unchanged_and_takes_facts(tmp_path: Path) -> None:
    db = tmp_path / "labels.db"
    store = Store.open(db)
    q = _labelled(store)
    store.close()
    _as_version_6(db)
    store = Store.open(db, create=False)
    assert store.query(q.id).facts == () and store.audit().clean
    assert int(store.conn.execute("PRAGMA user_version").fetchone()[0]) == 7
    assert store.update_query(q.id, annotator="ann", facts=FACTS).facts == FACTS
    assert store.audit().clean
    store.close()


def test_restore_replays_a_fact_write(tmp_path: Path) -> None:
    db = tmp_path / ".spanlab" / "labels.db"
    store = Store.open(db)
    q = _labelled(store)
    store.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    store.close()
    shutil.copyfile(db, tmp_path / "old.db")
    store = Store.open(db, create=False)
    store.update_query(q.id, annotator="ann", facts=FACTS)
    store.close()
    for side in ("-wal", "-shm"):
        Path(f"{db}{side}").unlink(missing_ok=True)
    shutil.copyfile(tmp_path / "old.db", db)
    old = Store.open(db, create=False)
    assert old.query(q.id).facts == () and old.heads.lacking
    assert restore(old).count == 1
    assert old.query(q.id).facts == FACTS and old.audit().clean
    old.close()


def test_the_label_set_carries_facts_as_format_4_and_reads_them_back(
    memory_store: Store, tmp_path: Path
) -> None:
    q = _labelled(memory_store)
    plain = labelset.export(memory_store, CORPUS)
    assert plain["format"] == "spanlab.labelset/1" and "facts" not in plain["queries"][0]
    memory_store.update_query(q.id, annotator="ann", facts=FACTS)
    data = labelset.export(memory_store, CORPUS)
    assert data["format"] == "spanlab.labelset/4"
    assert data["queries"][0]["facts"] == [["30 days", "thirty days"], ["refund"]]
    assert data["label_set_hash"] != plain["label_set_hash"]
    labelset.write_json(data, tmp_path / "set.json")
    read = labelset.read(tmp_path / "set.json", CORPUS)
    assert read.queries[0].facts == FACTS and read.label_set_hash == data["label_set_hash"]
    fresh = Store.memory()
    labelset.import_queries(fresh, read.queries, CORPUS, annotator="x")
    assert labelset.export(fresh, CORPUS)["label_set_hash"] == data["label_set_hash"]
    fresh.close()


def _set_with(
    facts: object, *, fmt: str = "spanlab.labelset/4", abstain: bool = False
) -> dict[str, object]:
    item = {"id": "q-0001", "text": "How long?", "abstain": abstain, "boundary": "other",
            "slices": [], "status": "draft", "notes": "", "evidence": [],
            "facts": facts}  # fmt: skip
    return {"format": fmt, "corpus": {"hash": CORPUS.hash, "documents": CORPUS.doc_hashes},
            "queries": [item]}  # fmt: skip


@pytest.mark.parametrize(
    ("facts", "fmt", "abstain", "key"),
    [
        ("30 days", "spanlab.labelset/4", False, "queries[0].facts"),
        ([["30 days", 30]], "spanlab.labelset/4", False, "queries[0].facts[0][1]"),
        ([["x" * 201]], "spanlab.labelset/4", False, "queries[0].facts[0][0]"),
        ([["a\x1b[31mb"]], "spanlab.labelset/4", False, "queries[0].facts[0][0]"),
        ([["30 days"]], "spanlab.labelset/4", True, "queries[0].facts"),
        ([["30 days"]], "spanlab.labelset/3", False, "queries[0].facts"),
    ],
)
def test_malformed_facts_name_the_query_and_key(
    facts: object, fmt: str, abstain: bool, key: str
) -> None:
    with pytest.raises(LabelError) as caught:
        labelset.parse(_set_with(facts, fmt=fmt, abstain=abstain), CORPUS)
    assert caught.value.key == key
    assert caught.value.message.startswith("query q-0001")


def test_a_hand_written_facts_cell_is_refused_at_export_naming_row_and_column(
    memory_store: Store,
) -> None:
    q = _labelled(memory_store)
    memory_store.conn.execute("UPDATE queries SET facts = ? WHERE id = ?",
                              [json.dumps([["a\u202eb"]]), q.id])  # fmt: skip
    with pytest.raises(StoreError, match=f"table queries, row {q.id}, column facts"):
        labelset.export(memory_store, CORPUS)


def test_a_blind_annotator_neither_sees_nor_writes_the_querys_facts(memory_store: Store) -> None:
    q = _labelled(memory_store)
    memory_store.update_query(q.id, annotator="lead", facts=FACTS)
    memory_store.view = "alice"
    assert memory_store.query(q.id).facts == ()
    with pytest.raises(StoreError, match="not a blind version's") as caught:
        memory_store.update_query(q.id, annotator="alice", facts=(("x",),))
    assert caught.value.key == "facts"
    memory_store.view = ""
    assert memory_store.query(q.id).facts == FACTS


def test_migration_7_reseals_only_query_rows_whose_digest_held(tmp_path: Path) -> None:
    db = tmp_path / "labels.db"
    store = Store.open(db)
    q, other = _labelled(store), store.add_query("Exchanges?", annotator="ann")
    store.close()
    _as_version_6(db)
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("UPDATE queries SET notes = 'by hand' WHERE id = ?", [other.id])
    conn.close()
    store = Store.open(db, create=False)
    found = [(f.table, f.key, f.what) for f in audit.rows(store.conn)]
    assert found == [("queries", f'["{other.id}"]', "changed")]
    assert store.query(q.id).facts == ()
    store.close()
