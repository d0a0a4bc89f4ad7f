"""An extracted document is bound like text (§22): its hash covers the source bytes and the
extractor's name, version and settings, so changing any is a corpus change that the
stale-span check sees, and labels on it survive the app's own paths (save, rebind)."""

from __future__ import annotations

from pathlib import Path

import pytest

from labeler.core.anchoring.binding import check, sync
from labeler.core.corpus.canonical import doc_hash, sha256_hex
from labeler.core.corpus.extract import pdf as pdf_module
from labeler.core.corpus.extract import read
from labeler.core.corpus.folder import Corpus
from labeler.core.store import Store
from labeler.core.values import Span, SpanState
from tests.core.sources.makers import handbook_pdf

QUOTE = "Shipping is free for all orders"


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PDF, extracted in this process (not in its bounded child, test_extract_bounds.py),
    so a test's changed rule or setting reaches the extractor."""
    monkeypatch.setitem(read.EXTRACTORS, ".pdf", pdf_module.extract_pdf)
    (tmp_path / "handbook.pdf").write_bytes(handbook_pdf())
    return tmp_path


def labelled(store: Store, corpus: Corpus) -> Span:
    store.bind(corpus.doc_hashes)
    text = corpus.text("handbook.pdf")
    start = text.index(QUOTE)
    q = store.add_query("Is shipping free?", annotator="ann")
    span = Span.from_text(text, "handbook.pdf", start, start + len(QUOTE))
    return store.add_span(q.id, span, text, annotator="ann")


def test_the_hash_covers_more_than_the_text(folder: Path) -> None:
    doc = Corpus.read(folder).documents["handbook.pdf"]
    assert doc.hash != sha256_hex(doc.text.encode())
    assert doc_hash(doc.text) == doc.hash  # every path that hashes the text gets the binding
    assert doc_hash(str(doc.text)) == sha256_hex(doc.text.encode())


def test_a_span_saved_on_a_pdf_is_valid_and_carries_its_binding(
    folder: Path, memory_store: Store
) -> None:
    corpus = Corpus.read(folder)
    saved = labelled(memory_store, corpus)
    assert saved.doc_hash == corpus.documents["handbook.pdf"].hash
    status = check(memory_store, corpus)
    assert (status.change.any, status.waiting) == (False, 0)
    assert status.counts == {SpanState.VALID: 1}
    assert corpus.place("handbook.pdf", saved.start, saved.end) == "page 1"


def test_a_new_extractor_version_changes_the_corpus_and_the_span_is_checked(
    folder: Path, memory_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = Corpus.read(folder)
    span = labelled(memory_store, old)
    monkeypatch.setattr(pdf_module, "RULES", pdf_module.RULES + "-next")
    new = Corpus.read(folder)
    assert new.text("handbook.pdf") == old.text("handbook.pdf")
    assert new.hash != old.hash
    status = check(memory_store, new)
    assert status.change.changed == ("handbook.pdf",)
    # Same text: the quote and its context are where they were, so the check finds the span
    # valid and the store rebinds; nothing was assumed.
    assert status.waiting == 0
    assert sync(memory_store, new).bound_hash == new.hash
    (_, rebound), *_ = memory_store.spans()
    assert (rebound.start, rebound.end) == (span.start, span.end)
    assert rebound.doc_hash == new.documents["handbook.pdf"].hash


def test_a_setting_that_moves_the_text_sends_the_span_to_review(
    folder: Path, memory_store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = Corpus.read(folder)
    span = labelled(memory_store, old)
    monkeypatch.setattr(pdf_module, "EDGE", 0.0)  # running headers and footers kept
    monkeypatch.setattr(pdf_module, "SETTINGS", (("headers", "keep"),))
    new = Corpus.read(folder)
    assert new.text("handbook.pdf").startswith("Acme Handbook\nPage 1\n")
    status = check(memory_store, new)
    assert status.change.changed == ("handbook.pdf",)
    assert status.waiting == 1
    assert sync(memory_store, new).bound_hash == old.hash  # bound to the old until reviewed
    (_, kept), *_ = memory_store.spans()
    assert (kept.start, kept.end, kept.quote) == (span.start, span.end, QUOTE)
    assert kept.state_in(new.text("handbook.pdf")) is SpanState.STALE


def test_the_source_bytes_are_bound_too(folder: Path) -> None:
    before = Corpus.read(folder).hash
    raw = (folder / "handbook.pdf").read_bytes()
    (folder / "handbook.pdf").write_bytes(raw + b"\n% a comment after the end\n")
    after = Corpus.read(folder)
    assert after.text("handbook.pdf") == Corpus.read(folder).text("handbook.pdf")
    assert after.hash != before


def test_an_evaluation_read_extracts_again_and_checks_the_hash(folder: Path) -> None:
    kept = Corpus.read(folder)
    lazy = Corpus.read(folder, keep_text=False)
    assert lazy.doc_hashes == kept.doc_hashes
    assert lazy.text("handbook.pdf") == kept.text("handbook.pdf")
    assert lazy.documents["handbook.pdf"].source == kept.documents["handbook.pdf"].source


def test_a_bound_text_keeps_its_hash_through_pickle_and_copy() -> None:
    import copy
    import pickle

    from labeler.core.corpus.canonical import BoundText

    text = BoundText("Refunds.\n", "sha256:" + "ab" * 32)
    for again in (pickle.loads(pickle.dumps(text)), copy.deepcopy(text), copy.copy(text)):
        assert again == "Refunds.\n" and doc_hash(again) == "sha256:" + "ab" * 32
    assert doc_hash(text[:3]) == sha256_hex(b"Ref")  # a slice is plain text
