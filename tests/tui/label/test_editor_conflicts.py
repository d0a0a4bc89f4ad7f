"""Two annotators' editors on one database: undo never reverts the other's edit (§3)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.store.conflicts import ConflictError
from labeler.core.values import Status
from labeler.tui.label.editor import Editor

TEXT = "Refunds take five days. Cards are credited within two days. " * 4


@pytest.fixture
def pair(tmp_path: Path) -> tuple[Editor, Editor]:
    corpus = Corpus.from_texts({"refunds.md": TEXT})
    path = tmp_path / "labels.db"
    Store.open(path).bind(corpus.doc_hashes)
    return Editor(Store.open(path), corpus, "alice"), Editor(Store.open(path), corpus, "bob")


def edges(editor: Editor, qid: str) -> list[tuple[int, int]]:
    return [(s.start, s.end) for s in editor.store.query(qid).evidence]


def test_undo_of_a_move_refuses_when_bob_moved_the_span_since(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    alice.trim = False  # these edges start on a space on purpose
    sid = alice.add_span(q.id, "refunds.md", 83, 129).id
    assert sid is not None
    alice.move_span(sid, 83, 128, seen=(83, 129))
    bob.move_span(sid, 84, 129, seen=(83, 128))
    with pytest.raises(ConflictError) as caught:
        alice.undo()
    assert caught.value.who == "bob"
    assert "you saw 83..128, it is now 84..129" in caught.value.message
    assert edges(alice, q.id) == [(84, 129)]
    assert len(alice.history.undo_stack) == 3  # the refused edit waits for reload/reapply
    alice.undo(force=True)  # reapply: the person chose to
    assert edges(alice, q.id) == [(83, 129)]


def test_a_move_from_edges_bob_moved_is_refused(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    alice.trim = False  # these edges start on a space on purpose
    sid = alice.add_span(q.id, "refunds.md", 83, 129).id
    assert sid is not None
    alice.move_span(sid, 83, 128, seen=(83, 129))
    with pytest.raises(ConflictError, match="changed by alice"):
        bob.move_span(sid, 84, 129, seen=(83, 129))
    assert edges(bob, q.id) == [(83, 128)]
    assert bob.history.undo_stack == []


def test_undo_of_a_field_refuses_when_bob_changed_it(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    alice.update_query(q.id, notes="mine")
    bob.update_query(q.id, seen=bob.store.query(q.id), notes="bob's")
    with pytest.raises(ConflictError, match="notes was changed by bob"):
        alice.undo()
    assert alice.store.query(q.id).notes == "bob's"
    alice.history.discard("undo")  # reload: alice keeps bob's
    assert [e.label for e in alice.history.undo_stack] == ["create q-0001"]


def test_undo_of_a_field_goes_through_when_bob_changed_another(
    pair: tuple[Editor, Editor],
) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    alice.update_query(q.id, notes="mine")
    bob.update_query(q.id, seen=bob.store.query(q.id), slices=("critical",))
    alice.undo()
    now = alice.store.query(q.id)
    assert (now.notes, now.slices) == ("", ("critical",))


def test_a_stale_form_save_keeps_the_other_annotators_slice(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    bob_form = bob.store.query(q.id)
    alice.update_query(q.id, seen=alice.store.query(q.id), slices=("critical",))
    fields = {"text": bob_form.text, "slices": bob_form.slices, "notes": "checked"}
    bob.update_query(q.id, seen=bob_form, **fields)
    now = bob.store.query(q.id)
    assert (now.slices, now.notes) == (("critical",), "checked")


def test_undo_of_a_create_refuses_once_bob_added_evidence(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?", status=Status.LABELLED)  # bob's span moves no status
    bob.add_span(q.id, "refunds.md", 0, 23)
    with pytest.raises(ConflictError, match="its evidence was changed by bob"):
        alice.undo()
    assert edges(alice, q.id) == [(0, 23)]


def test_undo_of_a_span_delete_brings_back_the_same_span_id(pair: tuple[Editor, Editor]) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    sid = alice.add_span(q.id, "refunds.md", 0, 23).id
    alice.delete_span(sid or 0, seen=(0, 23))
    other = bob.add_span(q.id, "refunds.md", 24, 59)
    assert other.id != sid  # a deleted span id stays retired too
    alice.undo()
    assert [s.id for s in alice.store.query(q.id).evidence] == [sid, other.id]


@pytest.mark.parametrize("edit", ["move", "delete"])
def test_an_edit_of_a_span_bob_deleted_says_who(pair: tuple[Editor, Editor], edit: str) -> None:
    alice, bob = pair
    q = alice.add_query("How long?")
    sid = alice.add_span(q.id, "refunds.md", 0, 23).id
    assert sid is not None
    bob.delete_span(sid)
    with pytest.raises(ConflictError) as e:
        if edit == "move":
            alice.move_span(sid, 0, 22, seen=(0, 23))
        else:
            alice.delete_span(sid, seen=(0, 23))
    assert e.value.message.startswith(f"{q.id}: span {sid} was deleted by bob at ")
    assert (e.value.who, e.value.query_id) == ("bob", q.id)
