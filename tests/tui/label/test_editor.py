"""Every kind of edit, undone and redone, checked against the store."""

from __future__ import annotations

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.errors import LabelError, StoreError
from labeler.core.store import Store
from labeler.core.values import Boundary, Span, Status
from labeler.tui.label.editor import Editor

TEXT = "Refunds take five days. Cards are credited within two days."


@pytest.fixture
def editor() -> Editor:
    corpus = Corpus.from_texts({"refunds.md": TEXT})
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    return Editor(store, corpus, "ann")


def edges(editor: Editor, query_id: str) -> list[tuple[int, int, str]]:
    return [(s.start, s.end, s.annotator) for s in editor.store.query(query_id).evidence]


def test_add_span_undo_redo(editor: Editor) -> None:
    q = editor.add_query("How long do refunds take?")
    editor.add_span(q.id, "refunds.md", 0, 23)
    assert edges(editor, q.id) == [(0, 23, "ann")]
    undone = editor.undo()
    assert undone is not None and undone[1].offset == 0
    assert edges(editor, q.id) == []
    editor.redo()
    assert edges(editor, q.id) == [(0, 23, "ann")]
    assert editor.store.query(q.id).evidence[0].quote == "Refunds take five days."


def test_nudges_of_one_span_undo_in_one_step(editor: Editor) -> None:
    q = editor.add_query("How long?")
    span = editor.add_span(q.id, "refunds.md", 0, 23)
    assert span.id is not None
    editor.move_span(span.id, 0, 22, nudge=True)
    editor.move_span(span.id, 0, 21, nudge=True)
    editor.move_span(span.id, 8, 21, nudge=True)
    assert edges(editor, q.id) == [(8, 21, "ann")]
    assert len(editor.history.undo_stack) == 3  # query, span, and one merged move
    editor.move_span(span.id, 4, 21)  # a redraw (`r`) is a step of its own (issue 45)
    editor.move_span(span.id, 5, 21, nudge=True)  # and so are the nudges after it
    assert len(editor.history.undo_stack) == 5
    editor.undo()
    editor.undo()
    assert edges(editor, q.id) == [(8, 21, "ann")]
    editor.undo()
    assert edges(editor, q.id) == [(0, 23, "ann")]
    editor.redo()
    assert edges(editor, q.id) == [(8, 21, "ann")]


def test_deleted_span_comes_back_with_its_annotator_and_later_undos_find_it(
    editor: Editor,
) -> None:
    q = editor.add_query("How long?")
    bobs = Span.from_text(TEXT, "refunds.md", 24, 43, annotator="bob")
    drawn = editor.store.add_span(q.id, bobs, TEXT, annotator="bob")
    assert drawn.id is not None
    editor.move_span(drawn.id, 24, 58)
    editor.delete_span(drawn.id)
    assert edges(editor, q.id) == []
    editor.undo()  # the delete: the span returns under a new id, still bob's
    assert edges(editor, q.id) == [(24, 58, "bob")]
    editor.undo()  # the move: found through the id alias
    assert edges(editor, q.id) == [(24, 43, "bob")]
    editor.redo()
    editor.redo()
    assert edges(editor, q.id) == []


def test_query_fields_undo_redo(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.update_query(q.id, status=Status.LABELLED, boundary=Boundary.CONTROL)
    editor.update_query(q.id, slices=("critical",), notes="check")
    got = editor.store.query(q.id)
    assert (got.status, got.boundary, got.slices, got.notes) == (
        Status.LABELLED,
        Boundary.CONTROL,
        ("critical",),
        "check",
    )
    editor.undo()
    editor.undo()
    got = editor.store.query(q.id)
    assert (got.status, got.boundary, got.slices, got.notes) == (
        Status.DRAFT,
        Boundary.OTHER,
        (),
        "",
    )
    editor.redo()
    assert editor.store.query(q.id).status is Status.LABELLED


def test_unchanged_fields_record_nothing(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.update_query(q.id, status=Status.DRAFT)
    assert len(editor.history.undo_stack) == 1


def test_abstain_with_evidence_is_refused(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.add_span(q.id, "refunds.md", 0, 7)
    with pytest.raises(LabelError, match="abstention query but has evidence"):
        editor.update_query(q.id, abstain=True)


def test_delete_query_undo_restores_spans_then_redo_deletes(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.add_span(q.id, "refunds.md", 0, 7)
    editor.delete_query(q.id)
    assert editor.store.count("queries") == 0
    editor.undo()
    assert edges(editor, q.id) == [(0, 7, "ann")]
    editor.redo()
    assert editor.store.count("spans") == 0
    editor.undo()
    editor.undo()  # the add_span, through the alias of the restored span
    assert edges(editor, q.id) == []


def test_duplicate_copies_fields_and_evidence(editor: Editor) -> None:
    q = editor.add_query("How long?", slices=("critical",))
    editor.add_span(q.id, "refunds.md", 0, 7)
    copy = editor.duplicate_query(q.id)
    assert copy.id == "q-0002"
    assert (copy.text, copy.slices) == ("How long?", ("critical",))
    assert edges(editor, copy.id) == [(0, 7, "ann")]
    editor.undo()
    assert [x.id for x in editor.store.queries()] == ["q-0001"]


def test_undo_of_a_delete_brings_its_retired_id_back(editor: Editor) -> None:
    """Ids are never reused (§3): bob's new query does not take q-0001, so undo can
    bring the deleted query back under its own id."""
    q = editor.add_query("How long?")
    editor.delete_query(q.id)
    other = editor.store.add_query("Someone else's", annotator="bob")
    assert other.id == "q-0002"
    editor.undo()
    assert editor.store.query("q-0001").text == "How long?"
    assert editor.store.query("q-0002").text == "Someone else's"


def test_undo_of_a_delete_refuses_an_id_in_use_again(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.delete_query(q.id)
    editor.store.restore_query(q, {}, annotator="bob")  # bob undid it first
    with pytest.raises(StoreError, match="in use again"):
        editor.undo()
    assert editor.store.query("q-0001").text == "How long?"


def test_spans_drawn_or_moved_inside_a_character_take_it_whole() -> None:
    text = "Pay q\u0307 now. Family \U0001f469\u200d\U0001f467 here."
    corpus = Corpus.from_texts({"m.md": text})
    store = Store.memory()
    store.bind(corpus.doc_hashes)
    ed = Editor(store, corpus, "ann")
    qid = ed.add_query("Which letter?").id
    span = ed.add_span(qid, "m.md", 5, 6)  # between q and its dot
    assert (span.start, span.end, span.quote) == (4, 6, "q\u0307")
    family = text.index("\U0001f469")
    moved = ed.move_span(span.id or 0, 4, family + 1)  # into the ZWJ sequence, growing
    assert moved.quote.endswith("\U0001f469\u200d\U0001f467")
    shrunk = ed.move_span(span.id or 0, 4, family + 2)  # shrinking into it: goes back out
    assert shrunk.end == family


def test_first_span_labels_a_draft_and_one_undo_takes_both(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.add_span(q.id, "refunds.md", 0, 23)
    assert editor.store.query(q.id).status is Status.LABELLED
    editor.add_span(q.id, "refunds.md", 24, 59)
    assert len(editor.history.undo_stack) == 3  # query, first span (+ status), second span
    editor.undo()
    editor.undo()
    now = editor.store.query(q.id)
    assert (now.status, now.evidence) == (Status.DRAFT, ())
    editor.redo()
    assert editor.store.query(q.id).status is Status.LABELLED


def test_a_labelled_query_keeps_its_status_and_a_reviewed_one_is_labelled_again(
    editor: Editor,
) -> None:
    """Changed from "a reviewed query keeps its status" after the second trial: a review
    covers the evidence it saw, so new evidence takes it back (one undo step)."""
    q = editor.add_query("How long?", status=Status.LABELLED)
    editor.add_span(q.id, "refunds.md", 0, 23)
    assert editor.store.query(q.id).status is Status.LABELLED
    Editor(editor.store, editor.corpus, "bob").update_query(q.id, status=Status.REVIEWED)
    editor.add_span(q.id, "refunds.md", 24, 40)
    assert editor.store.query(q.id).status is Status.LABELLED
    assert editor.relabelled == f"{q.id} was reviewed; its evidence changed: labelled again"
    editor.undo()
    assert editor.store.query(q.id).status is Status.REVIEWED
    assert len(editor.store.query(q.id).evidence) == 1


def test_only_someone_else_marks_a_query_reviewed(editor: Editor) -> None:
    q = editor.add_query("How long?")
    editor.add_span(q.id, "refunds.md", 0, 23)  # the evidence makes an author, not creating
    with pytest.raises(LabelError, match="someone else must mark it reviewed"):
        editor.update_query(q.id, status=Status.REVIEWED)
    assert editor.store.query(q.id).status is Status.LABELLED  # the span labelled it
    other = Editor(editor.store, editor.corpus, "bob")
    assert other.update_query(q.id, status=Status.REVIEWED).status is Status.REVIEWED


@pytest.mark.parametrize(
    ("start", "end", "kept"),
    [(23, 59, (24, 59)), (22, 24, (22, 23)), (0, 23, (0, 23)), (23, 25, (24, 25))],
)
def test_added_span_is_trimmed_of_edge_whitespace(
    editor: Editor, start: int, end: int, kept: tuple[int, int]
) -> None:
    q = editor.add_query("How long?")
    span = editor.add_span(q.id, "refunds.md", start, end)
    assert (span.start, span.end) == kept
    assert span.quote == span.quote.strip() and span.quote == TEXT[kept[0] : kept[1]]


def test_a_whitespace_only_selection_is_refused(editor: Editor) -> None:
    q = editor.add_query("How long?")
    with pytest.raises(LabelError, match="only whitespace") as caught:
        editor.add_span(q.id, "refunds.md", 23, 24)
    assert caught.value.offset == 23
    assert editor.store.query(q.id).evidence == ()


def test_trimming_can_be_turned_off(editor: Editor) -> None:
    editor.trim = False
    q = editor.add_query("How long?")
    span = editor.add_span(q.id, "refunds.md", 23, 59)
    assert (span.start, span.end) == (23, 59)
