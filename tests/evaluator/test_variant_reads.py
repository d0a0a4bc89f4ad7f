"""An alternative extraction reads each source as the corpus does (§13, §21, §22): a link
swapped in after the corpus was read is not followed, a FIFO is refused at once, changed
bytes are named; each such source is left out and the rest compared."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

from evaluator.extraction.config import Alternative
from evaluator.extraction.variant import CHANGED, Variant, variant
from labeler.core.corpus.extract.choices import choose
from labeler.core.corpus.folder import Corpus

PAGE = b"<html><body><h1>Refunds</h1><p>Paid within %d days.</p></body></html>"


def html_alternative() -> Alternative:
    return Alternative("stdlib", choose("html:stdlib", {}, file="c.toml", key="x"))


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    root = tmp_path / "corpus"
    root.mkdir()
    (root / "a.html").write_bytes(PAGE % 14)
    (root / "b.html").write_bytes(PAGE % 30)
    (root / "notes.md").write_text("Plain notes.\n", encoding="utf-8")
    return Corpus.read(root)


def in_thread(corpus: Corpus) -> Variant:
    """The variant, made in a thread: a read that blocks fails the test in 10 s, no hang."""
    got: list[Variant] = []
    worker = threading.Thread(target=lambda: got.append(variant(corpus, html_alternative())))
    worker.daemon = True
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "the variant blocked on a source"
    return got[0]


def test_the_sources_as_read_are_all_extracted(corpus: Corpus) -> None:
    assert corpus.root is not None
    (corpus.root / "alias.html").symlink_to("b.html")  # a link inside the corpus: read
    corpus = Corpus.read(corpus.root)
    got = in_thread(corpus)
    assert (got.extracted, got.failed) == (("a.html", "alias.html", "b.html"), ())
    assert got.corpus.documents["notes.md"] == corpus.documents["notes.md"]


def test_a_link_swapped_in_after_the_read_is_not_followed(corpus: Corpus) -> None:
    assert corpus.root is not None
    copy = corpus.root.parent / "copy.html"  # the very bytes, but behind a link
    copy.write_bytes(PAGE % 14)
    (corpus.root / "a.html").unlink()
    (corpus.root / "a.html").symlink_to(copy)
    got = in_thread(corpus)
    assert got.extracted == ("b.html",)
    assert [doc for doc, _ in got.failed] == ["a.html"]
    why = got.failed[0][1]
    assert (
        why.startswith("a symbolic link owned by ") and f"(to {copy}) is here: not followed" in why
    )
    assert sorted(got.corpus.documents) == ["b.html", "notes.md"]


def test_a_fifo_swapped_in_is_refused_at_once(corpus: Corpus) -> None:
    assert corpus.root is not None
    (corpus.root / "a.html").unlink()
    os.mkfifo(corpus.root / "a.html")
    got = in_thread(corpus)
    assert got.failed == (("a.html", "the file is a FIFO (named pipe), not a regular file"),)
    assert got.extracted == ("b.html",)


def test_bytes_changed_since_the_read_are_named_not_compared(corpus: Corpus) -> None:
    assert corpus.root is not None
    (corpus.root / "a.html").write_bytes(PAGE % 15)  # same size, other bytes
    got = in_thread(corpus)
    assert got.failed == (("a.html", CHANGED),)
    assert got.extracted == ("b.html",) and got.changed == ()


def test_changed_bytes_under_texts_not_kept_are_named_too(corpus: Corpus) -> None:
    assert corpus.root is not None
    lean = Corpus.read(corpus.root, keep_text=False)
    (corpus.root / "a.html").write_bytes(PAGE % 15)
    got = in_thread(lean)
    assert [doc for doc, _ in got.failed] == ["a.html"]
    assert got.failed[0][1].startswith("the document changed while spanlab was reading")
    assert got.extracted == ("b.html",)
