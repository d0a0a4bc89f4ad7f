"""Reviewed only by someone else (§3, §15, issues 15 and 19), kept by the store for every
writer: who drew a span, holds a version or marked it abstain may not mark a query
reviewed; who created or imported it may; an import keeps the statuses it brings; an undo
may put back a review another made."""

from __future__ import annotations

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.labels import labelset
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


def test_creating_a_query_does_not_make_its_creator_an_author(store: Store) -> None:
    """ann typed the question in and made no evidence: she may review it (§15)."""
    reviewed = store.update_query("q-0001", annotator="ann", status=Status.REVIEWED)
    assert reviewed.status is Status.REVIEWED


def test_whoever_marked_it_abstain_is_refused_with_a_clear_message(store: Store) -> None:
    store.update_query("q-0001", annotator="bob", abstain=True)
    with pytest.raises(SelfReview) as caught:
        store.update_query("q-0001", annotator="bob", status=Status.REVIEWED)
    assert (
        caught.value.message == "q-0001: bob marked it abstain; someone else must mark it reviewed"
    )
    assert caught.value.key == "status"
    assert isinstance(caught.value, StoreError) and isinstance(caught.value, LabelError)
    assert store.query("q-0001").status is Status.DRAFT
    reviewed = store.update_query("q-0001", annotator="ann", status="reviewed")
    assert reviewed.status is Status.REVIEWED


def test_a_query_created_abstain_was_marked_so_by_its_creator(store: Store) -> None:
    store.add_query("Is there a fax number?", annotator="cat", abstain=True)  # q-0002
    with pytest.raises(SelfReview, match="q-0002: cat marked it abstain"):
        store.update_query("q-0002", annotator="cat", status=Status.REVIEWED)
    store.update_query("q-0002", annotator="ann", abstain=False)
    store.update_query("q-0002", annotator="ann", abstain=True)  # ann's call now, not cat's
    assert store.update_query("q-0002", annotator="cat", status="reviewed").status.value == (
        "reviewed"
    )


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
    seen = store.query("q-0001").revision
    with pytest.raises(SelfReview, match="bob labelled a version of it"):
        store.adjudicate("q-0001", "keep", keep=["cat"], annotator="bob", seen=seen)
    assert store.adjudications("q-0001") == [] and store.query("q-0001").evidence == ()
    store.adjudicate("q-0001", "send-back", note="redo", annotator="bob", seen=seen)
    seen = store.query("q-0001").revision
    kept = store.adjudicate("q-0001", "keep", keep=["cat"], annotator="ann", seen=seen)
    assert kept.status is Status.REVIEWED  # ann created q-0001, bob and cat labelled it


# -- the importer of drafts is not the author of the evidence others made (issue 19) ----


def imported_drafts(store: Store, importer: str) -> None:
    """The lead imports two questions as drafts; alice and bob label them blind."""
    drafts = [Query("q-0010", "Refunds?"), Query("q-0011", "Cards?")]
    assert labelset.import_queries(store, drafts, CORPUS, annotator=importer) == 2
    assert store.query("q-0010").annotator == importer  # the store still says who brought it
    for who, start, end in (("alice", 0, 23), ("bob", 0, 12)):
        store.view = who
        store.add_span("q-0010", Span.from_text(TEXT, DOC, start, end), TEXT, annotator=who)
    store.view = ""


def test_the_lead_who_imported_drafts_may_adjudicate_them(store: Store) -> None:
    imported_drafts(store, "lead")
    seen = store.query("q-0010").revision
    kept = store.adjudicate("q-0010", "keep", keep=["alice"], annotator="lead", seen=seen)
    assert kept.status is Status.REVIEWED
    assert [(s.start, s.end, s.annotator) for s in kept.evidence] == [(0, 23, "alice")]
    assert store.adjudications("q-0010")[0][:2] == ("keep", ["alice"])


def test_the_labellers_of_imported_drafts_still_may_not(store: Store) -> None:
    imported_drafts(store, "lead")
    seen = store.query("q-0010").revision
    for who in ("alice", "bob"):
        with pytest.raises(SelfReview, match=f"q-0010: {who} labelled a version of it"):
            store.adjudicate("q-0010", "merge", keep=["alice", "bob"], annotator=who, seen=seen)
    assert store.adjudications("q-0010") == []


def test_the_importer_may_review_an_imported_draft_someone_else_labelled(store: Store) -> None:
    imported_drafts(store, "lead")
    store.add_span("q-0011", Span.from_text(TEXT, DOC, 24, 59), TEXT, annotator="alice")
    store.update_query("q-0011", annotator="alice", status=Status.LABELLED)
    done = store.update_query("q-0011", annotator="lead", status=Status.REVIEWED)
    assert done.status is Status.REVIEWED
    with pytest.raises(SelfReview, match="alice drew its evidence"):
        store.update_query("q-0011", annotator="alice", status=Status.REVIEWED, undoing=False)


def test_evidence_an_import_brings_unattributed_is_the_importers(store: Store) -> None:
    """A file whose spans name no annotator: the importer vouches for them, so the import
    stamps them with the importer's name, and the importer cannot review them."""
    span = Span.from_text(TEXT, DOC, 24, 59)
    labelset.import_queries(store, [Query("q-0012", "Cards?", evidence=(span,))], CORPUS,
                            annotator="lead")  # fmt: skip
    with pytest.raises(SelfReview, match="q-0012: lead drew its evidence"):
        store.update_query("q-0012", annotator="lead", status=Status.REVIEWED)
