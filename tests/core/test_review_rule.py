"""Reviewed only by someone else (§3, issue 15), kept by the store for every writer: the
creator, a span's drawer and a version's annotator may not mark a query reviewed; an
import keeps the statuses it brings; an undo may put back a review another made."""

from __future__ import annotations

import pytest

from labeler.core import labelset
from labeler.core.corpus import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import Store, Version
from labeler.core.store.authors import SelfReview
from labeler.core.values import Query, Span, Status

TEXT = "Refunds take five days. Cards are credited within two days."
DOC = "refunds.md"
CORPUS = Corpus.from_texts({DOC: TEXT})


@pytest.fixture
def store() -> Store:
    s = Store.memory()
    s.bind(CORPUS.doc_hashes)
    s.add_query("How long?", annotator="ann")  # q-0001
    return s


def draw(store: Store, who: str, start: int = 0, end: int = 23) -> None:
    store.add_span("q-0001", Span.from_text(TEXT, DOC, start, end), TEXT, annotator=who)


def test_the_creator_is_refused_with_a_clear_message(store: Store) -> None:
    with pytest.raises(SelfReview) as caught:
        store.update_query("q-0001", annotator="ann", status=Status.REVIEWED)
    assert caught.value.message == "q-0001: ann created it; someone else must mark it reviewed"
    assert caught.value.key == "status"
    assert isinstance(caught.value, StoreError) and isinstance(caught.value, LabelError)
    assert store.query("q-0001").status is Status.DRAFT
    reviewed = store.update_query("q-0001", annotator="rita", status="reviewed")
    assert reviewed.status is Status.REVIEWED


def test_whoever_drew_a_span_is_an_author_too(store: Store) -> None:
    draw(store, "bob")
    with pytest.raises(SelfReview, match="q-0001: bob drew its evidence"):
        store.update_query("q-0001", annotator="bob", status=Status.REVIEWED)
    with pytest.raises(SelfReview):  # a compare-and-set save is no way round it
        store.update_query(
            "q-0001", annotator="bob", seen=store.query("q-0001"), status=Status.REVIEWED
        )
    assert store.query("q-0001").status is Status.DRAFT


def test_a_version_annotator_is_an_author(store: Store) -> None:
    with store.write() as db:
        store.put_versions([("q-0001", Version("cat", True, ()))], {DOC: TEXT}, db=db)
    with pytest.raises(SelfReview, match="cat labelled a version of it"):
        store.update_query("q-0001", annotator="cat", status=Status.REVIEWED)


def test_other_changes_by_an_author_are_not_refused(store: Store) -> None:
    draw(store, "ann")
    changed = store.update_query("q-0001", annotator="ann", status=Status.LABELLED, notes="ok")
    assert (changed.status, changed.notes) == (Status.LABELLED, "ok")


def test_a_new_query_cannot_start_reviewed(store: Store) -> None:
    with pytest.raises(SelfReview, match="a new query cannot start reviewed"):
        store.add_query("Why?", annotator="ann", status=Status.REVIEWED)
    assert [q.id for q in store.queries()] == ["q-0001"]


def test_an_undo_puts_back_a_review_someone_else_made(store: Store) -> None:
    store.update_query("q-0001", annotator="rita", status=Status.REVIEWED)
    store.update_query("q-0001", annotator="ann", status=Status.DRAFT)  # ann's slip
    back = store.update_query("q-0001", annotator="ann", status=Status.REVIEWED, undoing=True)
    assert back.status is Status.REVIEWED


def test_a_copy_of_a_reviewed_query_is_labelled(store: Store) -> None:
    draw(store, "ann")
    store.update_query("q-0001", annotator="rita", status=Status.REVIEWED)
    copy = store.copy_query(store.query("q-0001"), {DOC: TEXT}, annotator="rita")
    assert (copy.annotator, copy.status) == ("rita", Status.LABELLED)
    assert store.query("q-0001").status is Status.REVIEWED


def test_an_import_of_a_reviewed_set_keeps_its_statuses(store: Store) -> None:
    """The statuses were decided where the set came from; the importer reviews nothing, and
    refusing would make a frozen, reviewed label set impossible to load back."""
    span = Span.from_text(TEXT, DOC, 24, 59)
    done = Query("q-0002", "Cards?", status=Status.REVIEWED, evidence=(span,))
    assert labelset.import_queries(store, [done], CORPUS, annotator="ann") == 1
    imported = store.query("q-0002")
    assert (imported.annotator, imported.status) == ("ann", Status.REVIEWED)


def test_adjudication_by_an_author_is_refused_but_send_back_is_not(store: Store) -> None:
    with store.write() as db:
        store.put_versions(
            [("q-0001", Version("bob", False, (Span.from_text(TEXT, DOC, 0, 23),))),
             ("q-0001", Version("cat", False, (Span.from_text(TEXT, DOC, 0, 12),)))],
            {DOC: TEXT}, db=db,
        )  # fmt: skip
    for who, how in (("ann", "created it"), ("bob", "labelled a version of it")):
        seen = store.query("q-0001").revision
        with pytest.raises(SelfReview, match=how):
            store.adjudicate("q-0001", "keep", keep=["cat"], annotator=who, seen=seen)
    assert store.adjudications("q-0001") == [] and store.query("q-0001").evidence == ()
    seen = store.query("q-0001").revision
    store.adjudicate("q-0001", "send-back", note="redo", annotator="bob", seen=seen)
    seen = store.query("q-0001").revision
    kept = store.adjudicate("q-0001", "keep", keep=["cat"], annotator="rita", seen=seen)
    assert kept.status is Status.REVIEWED
