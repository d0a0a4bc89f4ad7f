"""The SQLite label store (design §3): migrations, WAL, and every write path checking quotes."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from labeler.core.corpus.canonical import corpus_hash, doc_hash
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import BUSY_TIMEOUT_MS, Store
from labeler.core.store.schema import MIGRATIONS, SCHEMA_VERSION, migrate
from labeler.core.values import Boundary, Query, Span, Status
from tests.conftest import table_dump

TEXT = "Refunds: within 30 days. Exchanges: within 60 days."
DOC = "policies/refunds.md"


def events(store: Store) -> list[tuple[str, str, str | None]]:
    rows = store.conn.execute("SELECT kind, annotator, query_id FROM events ORDER BY id")
    return [(r[0], r[1], r[2]) for r in rows]


def test_migrations_set_user_version(memory_store: Store) -> None:
    assert SCHEMA_VERSION == len(MIGRATIONS) >= 1
    version = memory_store.conn.execute("PRAGMA user_version").fetchone()[0]
    assert version == SCHEMA_VERSION
    tables = {
        r[0] for r in memory_store.conn.execute("SELECT name FROM sqlite_master WHERE type='table'")
    }
    assert {"meta", "bound_documents", "doc_texts", "queries", "spans", "events"} <= tables


def test_reopening_migrates_nothing(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    store = Store.open(path)
    store.add_query("Kept?", annotator="ann")
    schema = [tuple(r) for r in store.conn.execute("SELECT sql FROM sqlite_master ORDER BY name")]
    store.close()
    conn = sqlite3.connect(path, isolation_level=None)
    assert migrate(conn, path=str(path)) == SCHEMA_VERSION
    assert conn.execute("SELECT sql FROM sqlite_master ORDER BY name").fetchall() == schema
    conn.close()
    again = Store.open(path, create=False)
    assert [q.text for q in again.queries()] == ["Kept?"]
    again.close()


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    Store.open(path).close()
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(StoreError, match="newer") as info:
        Store.open(path)
    assert info.value.file == str(path)


def test_missing_store_is_refused_without_create(tmp_path: Path) -> None:
    with pytest.raises(StoreError) as info:
        Store.open(tmp_path / "none.db", create=False)
    assert info.value.hint is not None and "spanlab init" in info.value.hint
    assert not (tmp_path / "none.db").exists()


def test_a_file_that_is_not_sqlite_is_a_store_error(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    path.write_bytes(b"this is not a database" * 100)
    with pytest.raises(StoreError) as info:
        Store.open(path)
    assert info.value.file == str(path)


def test_file_stores_use_wal_and_a_busy_timeout(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "labels.db")
    assert store.conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert store.conn.execute("PRAGMA busy_timeout").fetchone()[0] == BUSY_TIMEOUT_MS
    assert store.conn.execute("PRAGMA foreign_keys").fetchone()[0] == 1
    store.close()


def test_add_query_numbers_ids_and_logs(memory_store: Store) -> None:
    q1 = memory_store.add_query(
        "How long for refunds?",
        annotator="ann",
        boundary=Boundary.CONDITION_CONSEQUENCE,
        slices=["critical", "billing"],
    )
    q2 = memory_store.add_query("No answer here", annotator="bob", abstain=True)
    assert (q1.id, q2.id) == ("q-0001", "q-0002")
    stored = memory_store.query("q-0001")
    assert stored == q1
    assert stored.slices == ("billing", "critical")
    assert (stored.status, stored.annotator) == (Status.DRAFT, "ann")
    assert stored.created == stored.updated != ""
    assert memory_store.query("q-0002").abstain is True
    assert events(memory_store) == [
        ("query-added", "ann", "q-0001"),
        ("query-added", "bob", "q-0002"),
    ]


def test_add_query_refuses_a_taken_id_and_bad_values(memory_store: Store) -> None:
    memory_store.add_query("First", annotator="ann", query_id="custom-1")
    before = table_dump(memory_store)
    with pytest.raises(StoreError) as info:
        memory_store.add_query("Second", annotator="ann", query_id="custom-1")
    assert info.value.key == "id"
    with pytest.raises(LabelError):
        memory_store.add_query("   ", annotator="ann")
    with pytest.raises(LabelError):
        memory_store.add_query("Bad id", annotator="ann", query_id="has space")
    assert table_dump(memory_store) == before


def test_next_query_id_follows_the_highest_number(memory_store: Store) -> None:
    assert memory_store.next_query_id() == "q-0001"
    for qid in ("q-0001", "q-0009", "q-abc", "custom"):
        memory_store.add_query(qid, annotator="ann", query_id=qid)
    assert memory_store.next_query_id() == "q-0010"
    assert memory_store.add_query("Next", annotator="ann").id == "q-0010"


def test_update_query_changes_fields_and_logs(memory_store: Store) -> None:
    q = memory_store.add_query("Old text", annotator="ann")
    new = memory_store.update_query(
        q.id,
        annotator="bob",
        text="New text",
        boundary="table-header-row",
        status=Status.REVIEWED,
        slices=("tables",),
        notes="checked",
    )
    assert memory_store.query(q.id) == new
    assert (new.text, new.boundary, new.status) == (
        "New text",
        Boundary.TABLE_HEADER_ROW,
        Status.REVIEWED,
    )
    assert (new.slices, new.notes, new.annotator) == (("tables",), "checked", "ann")
    assert events(memory_store)[-1] == ("query-updated", "bob", q.id)
    payload = memory_store.conn.execute("SELECT payload FROM events ORDER BY id DESC").fetchone()
    assert json.loads(payload[0])["changes"]["text"] == "New text"


def test_update_query_refuses_unknown_fields_and_invalid_values(memory_store: Store) -> None:
    q = memory_store.add_query("Why?", annotator="ann")
    memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 0, 7), TEXT, annotator="ann")
    before = table_dump(memory_store)
    with pytest.raises(StoreError) as info:
        memory_store.update_query(q.id, annotator="ann", id="q-9")
    assert info.value.key == "id"
    with pytest.raises(LabelError):
        memory_store.update_query(q.id, annotator="ann", abstain=True)
    with pytest.raises(LabelError):
        memory_store.update_query(q.id, annotator="ann", boundary="diagonal")
    with pytest.raises(StoreError):
        memory_store.update_query("q-404", annotator="ann", text="x")
    assert table_dump(memory_store) == before


def test_delete_and_restore_a_query_with_its_spans(memory_store: Store) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="ann")
    memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 36, 50), TEXT, annotator="ann")
    full = memory_store.query(q.id)
    deleted = memory_store.delete_query(q.id, annotator="bob")
    assert deleted == full
    assert (memory_store.count("queries"), memory_store.count("spans")) == (0, 0)
    restored = memory_store.restore_query(deleted, {DOC: TEXT}, annotator="bob")
    assert restored == full
    assert [e[0] for e in events(memory_store)][-2:] == ["query-deleted", "query-restored"]


def test_restore_checks_every_quote_and_writes_nothing_on_a_mismatch(
    memory_store: Store,
) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="ann")
    deleted = memory_store.delete_query(q.id, annotator="ann")
    before = table_dump(memory_store)
    changed = TEXT.replace("30", "45")
    with pytest.raises(LabelError) as info:
        memory_store.restore_query(deleted, {DOC: changed}, annotator="ann")
    assert (info.value.key, info.value.offset) == ("quote", 9)
    with pytest.raises(StoreError, match="no text for document"):
        memory_store.restore_query(deleted, {}, annotator="ann")
    assert table_dump(memory_store) == before


def test_add_span_keeps_the_text_and_fills_the_span(memory_store: Store) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    span = memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="ann")
    assert (span.id, span.quote, span.prefix) == (1, "within 30 days", "Refunds: ")
    assert span.suffix == ". Exchanges: within 60 days."
    assert (span.doc_hash, span.annotator) == (doc_hash(TEXT), "ann")
    assert span.created != ""
    assert memory_store.doc_text(doc_hash(TEXT)) == TEXT
    assert memory_store.query(q.id).evidence == (span,)
    assert events(memory_store)[-1] == ("span-added", "ann", q.id)


@pytest.mark.parametrize(
    "bad",
    [
        Span(DOC, 9, 23, "within 45 days"),
        Span(DOC, 40, 54, "x" * 14),
        Span(DOC, 9, 23, "within 30 days", doc_hash="sha256:" + "0" * 64),
    ],
)
def test_add_span_refuses_mismatches_and_writes_nothing(memory_store: Store, bad: Span) -> None:
    q = memory_store.add_query("Refund window?", annotator="ann")
    before = table_dump(memory_store)
    with pytest.raises((LabelError, StoreError)):
        memory_store.add_span(q.id, bad, TEXT, annotator="ann")
    assert table_dump(memory_store) == before


def test_abstention_query_refuses_spans(memory_store: Store) -> None:
    q = memory_store.add_query("Unanswerable", annotator="ann", abstain=True)
    before = table_dump(memory_store)
    with pytest.raises(StoreError) as info:
        memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 0, 7), TEXT, annotator="ann")
    assert info.value.key == "abstain"
    assert table_dump(memory_store) == before


def test_update_span_redraws_quote_and_context(memory_store: Store) -> None:
    q = memory_store.add_query("Exchange window?", annotator="ann")
    span = memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="ann")
    assert span.id is not None
    moved = memory_store.update_span(span.id, 36, 50, TEXT, annotator="bob")
    assert (moved.id, moved.start, moved.end, moved.quote) == (span.id, 36, 50, "within 60 days")
    assert (moved.prefix, moved.suffix) == ("nds: within 30 days. Exchanges: ", ".")
    assert (moved.annotator, moved.created) == ("ann", span.created)
    assert events(memory_store)[-1] == ("span-moved", "bob", q.id)


def test_update_span_out_of_range_writes_nothing(memory_store: Store) -> None:
    q = memory_store.add_query("Exchange window?", annotator="ann")
    span = memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 9, 23), TEXT, annotator="ann")
    assert span.id is not None
    before = table_dump(memory_store)
    with pytest.raises(LabelError) as info:
        memory_store.update_span(span.id, 40, len(TEXT) + 1, TEXT, annotator="ann")
    assert info.value.key == "end"
    with pytest.raises(StoreError):
        memory_store.update_span(999, 0, 3, TEXT, annotator="ann")
    assert table_dump(memory_store) == before


def test_delete_span_returns_it_and_logs(memory_store: Store) -> None:
    q = memory_store.add_query("Why?", annotator="ann")
    span = memory_store.add_span(q.id, Span.from_text(TEXT, DOC, 0, 7), TEXT, annotator="ann")
    assert span.id is not None
    assert memory_store.delete_span(span.id, annotator="bob") == (q.id, span)
    assert memory_store.count("spans") == 0
    assert events(memory_store)[-1] == ("span-deleted", "bob", q.id)


def test_put_queries_checks_quotes_inside_the_callers_transaction(memory_store: Store) -> None:
    good = Query("q-1", "Good", evidence=(Span.from_text(TEXT, DOC, 0, 7),))
    bad = Query("q-2", "Bad", evidence=(Span(DOC, 0, 7, "Returns"),))
    before = table_dump(memory_store)
    with pytest.raises(LabelError), memory_store.write() as db:
        memory_store.put_queries([good, bad], {DOC: TEXT}, db=db)
    assert table_dump(memory_store) == before


def test_bind_records_the_corpus_hash(memory_store: Store) -> None:
    assert memory_store.corpus_hash is None
    docs = {"b.md": doc_hash("b"), "a.md": doc_hash("a")}
    memory_store.bind(docs)
    assert memory_store.corpus_hash == corpus_hash(docs.items())
    assert memory_store.bound_documents() == {"a.md": doc_hash("a"), "b.md": doc_hash("b")}
    assert memory_store.meta("normalization") == "nfc-lf/1"
    memory_store.bind({"a.md": doc_hash("a")})
    assert memory_store.bound_documents() == {"a.md": doc_hash("a")}


def test_data_version_changes_when_another_connection_commits(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    mine, theirs = Store.open(path), Store.open(path)
    seen = mine.data_version()
    assert mine.data_version() == seen
    theirs.add_query("From elsewhere", annotator="bob")
    assert mine.data_version() != seen
    assert [q.text for q in mine.queries()] == ["From elsewhere"]
    mine.close()
    theirs.close()
