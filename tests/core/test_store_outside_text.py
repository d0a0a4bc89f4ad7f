"""The store takes no control character in a question or notes from now on, yet a row
stored before the rule still loads, can be edited and fixed (§13, issue 20)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import Store
from labeler.core.values import Status

ESC = "\x1b]52;c;UFdORUQ=\x1b\\"


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    corpus = Corpus.from_texts({"a.md": "Refunds take 30 days.\n"})
    s = Store.open(tmp_path / "labels.db")
    s.bind(corpus.doc_hashes)
    s.add_query("plain question", annotator="ann")
    with s.conn:  # as a store from before the rule may hold it
        s.conn.execute("UPDATE queries SET text = ?, slices = ?", (f"legacy {ESC}", '["a/b"]'))
    yield s
    s.close()


def test_new_text_with_a_control_is_refused(store: Store) -> None:
    with pytest.raises(LabelError, match="control character"):
        store.add_query(f"new {ESC}", annotator="ann")
    with pytest.raises(LabelError, match="bidirectional"):
        store.add_query("new \u202eevil", annotator="ann")
    assert [q.id for q in store.queries()] == ["q-0001"]


def test_a_stored_row_loads_and_other_fields_can_change(store: Store) -> None:
    q = store.query("q-0001")
    assert q.text == f"legacy {ESC}"  # kept as stored, never rewritten behind the user
    done = store.update_query("q-0001", annotator="ann", status=Status.LABELLED, seen=q)
    assert done.status == Status.LABELLED and done.text == q.text
    assert done.slices == ("a/b",)  # a slice the old rule let in still loads


def test_a_stored_row_takes_no_new_control_and_can_be_fixed(store: Store) -> None:
    with pytest.raises(LabelError, match="notes holds a control character"):
        store.update_query("q-0001", annotator="ann", notes=f"n {ESC}")
    fixed = store.update_query("q-0001", annotator="ann", text="legacy, mended")
    assert fixed.text == "legacy, mended"


def test_an_edit_takes_no_slice_that_is_no_name(store: Store) -> None:
    with pytest.raises(LabelError, match="invalid slice"):
        store.update_query("q-0001", annotator="ann", slices=("c/d",))


def test_a_conflict_names_a_status_by_its_plain_value(store: Store) -> None:
    seen = store.query("q-0001")
    store.update_query("q-0001", annotator="bob", status=Status.LABELLED)
    with pytest.raises(StoreError) as caught:
        store.update_query("q-0001", annotator="ann", seen=seen, status=Status.REVIEWED)
    assert "you saw draft, it is now labelled" in caught.value.message
    assert "<Status" not in str(caught.value)
