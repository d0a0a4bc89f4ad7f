"""Groups of alternatives in the store (§18): the migration that brings the column keeps
the audit true, and group edits are compare-and-set against what the person saw."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path

import pytest

from labeler.core.errors import StoreError
from labeler.core.store import Store, audit, digests
from labeler.core.store.conflicts import ConflictError
from labeler.core.store.schema import MIGRATIONS, SCHEMA_VERSION
from labeler.core.values import Span

FACT = "Refunds are paid within 14 days."
X = f"Intro.\n{FACT}\n"
Y = f"Other words.\n{FACT}\nMore.\n"


def copy(text: str, doc: str) -> Span:
    start = text.index(FACT)
    return Span.from_text(text, doc, start, start + len(FACT))


@pytest.fixture
def store() -> Store:
    s = Store.memory()
    s.add_query("When are refunds paid?", annotator="ann")
    return s


def test_an_alternative_joins_the_current_spans_group(store: Store) -> None:
    first = store.add_span("q-0001", copy(X, "x.md"), X, annotator="ann")
    assert first.id is not None and first.group is None
    alt = store.add_alternative(first.id, copy(Y, "y.md"), Y, annotator="bob",
                                expected=(first.start, first.end), expected_group=None)  # fmt: skip
    assert alt.group == 1
    assert [(s.doc, s.group) for s in store.query("q-0001").evidence] == [("x.md", 1), ("y.md", 1)]


def test_an_alternative_quoting_something_else_is_refused(store: Store) -> None:
    first = store.add_span("q-0001", copy(X, "x.md"), X, annotator="ann")
    assert first.id is not None
    before = store.query("q-0001")
    with pytest.raises(StoreError) as info:
        store.add_alternative(first.id, Span.from_text(Y, "y.md", 0, 5), Y, annotator="bob")
    assert info.value.message == (
        "q-0001: y.md 0..5 quotes 'Other', not what its group 1 quotes (x.md 7..39: "
        "'Refunds are paid within 14 days.'); not an alternative"
    )
    assert store.query("q-0001") == before  # the current span did not get the group either


def test_a_group_edit_over_another_writers_is_refused(store: Store) -> None:
    first = store.add_span("q-0001", copy(X, "x.md"), X, annotator="ann")
    assert first.id is not None
    store.set_group(first.id, 4, annotator="rita", expected_group=None)
    with pytest.raises(ConflictError) as info:
        store.add_alternative(first.id, copy(Y, "y.md"), Y, annotator="bob", expected_group=None)
    assert info.value.message.startswith(f"q-0001: span {first.id} was changed by rita at ")
    assert info.value.message.endswith("(you saw group None, it is now group 4); nothing was saved")
    with pytest.raises(ConflictError):
        store.set_group(first.id, None, annotator="bob", expected_group=None)
    assert store.set_group(first.id, None, annotator="bob", expected_group=4).group is None


@pytest.mark.parametrize("group", [0, -2, True])
def test_set_group_refuses_a_group_that_is_not_a_positive_integer(store: Store, group: int) -> None:
    first = store.add_span("q-0001", copy(X, "x.md"), X, annotator="ann")
    assert first.id is not None
    with pytest.raises(StoreError, match="group must be a positive integer"):
        store.set_group(first.id, group, annotator="bob", expected_group=None)


def test_a_moved_span_keeps_its_group(store: Store) -> None:
    first = store.add_span("q-0001", replace(copy(X, "x.md"), group=2), X, annotator="ann")
    assert first.id is not None
    moved = store.update_span(first.id, first.start, first.end - 1, X, annotator="ann")
    assert moved.group == 2


def _v5_store(path: Path) -> None:
    """A store as spanlab wrote it before groups: two spans, digests sealed, then one span
    changed with sqlite3."""
    conn = sqlite3.connect(path, isolation_level=None)
    for step in MIGRATIONS[:5]:
        step(conn)
    conn.execute("PRAGMA user_version = 5")
    conn.execute(
        "INSERT INTO queries(id, text, abstain, boundary, slices, notes, status, annotator, "
        "created, updated) VALUES ('q-0001', 'Refund?', 0, 'control', '[]', '', 'labelled', "
        "'lead', 't', 't')"
    )
    for doc, text in (("x.md", X), ("y.md", Y)):
        s = copy(text, doc)
        conn.execute(
            'INSERT INTO spans(query_id, doc, start, "end", quote, prefix, suffix, doc_hash, '
            "annotator, created) VALUES ('q-0001', ?, ?, ?, ?, ?, ?, 'h', 'lead', 't')",
            [doc, s.start, s.end, s.quote, s.prefix, s.suffix],
        )
    digests.seal_all(conn)
    conn.execute("UPDATE spans SET annotator = 'mallory' WHERE doc = 'y.md'")
    conn.close()


def test_the_migration_reseals_only_rows_whose_digest_held(tmp_path: Path) -> None:
    path = tmp_path / "labels.db"
    _v5_store(path)
    store = Store.open(path)
    try:
        assert store.conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 7
        found = audit.rows(store.conn)
        y = store.conn.execute("SELECT id FROM spans WHERE doc = 'y.md'").fetchone()[0]
        assert [(f.table, f.key, f.what) for f in found] == [("spans", f"[{y}]", "changed")]
        assert [s.group for s in store.query("q-0001").evidence] == [None, None]
    finally:
        store.close()
