"""A candidate's context units from its cut (§18): windows of neighbours within a document,
children cut within each parent and matched to it, and a family check that names the first
child no parent holds."""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluator.chunking import chunk_table
from evaluator.chunking.family import Family, check_family
from evaluator.chunking.pieces import Piece
from evaluator.chunking.spec import ContextSpec, SplitterSpec
from evaluator.pipeline.units import sending
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError

TEXT = "abcdefghij" * 5


@pytest.fixture
def corpus(tmp_path: Path) -> Corpus:
    (tmp_path / "d.txt").write_text(TEXT, "utf-8")
    (tmp_path / "e.txt").write_text(TEXT[:20], "utf-8")
    return Corpus.read(tmp_path)


def places(spec: SplitterSpec, corpus: Corpus) -> dict[tuple[str, int, int], tuple[int, int]]:
    table = chunk_table(spec, corpus)
    units = sending(spec, table, corpus)
    assert units is not None
    return {(c.doc, c.start, c.end): (units.unit(c).start, units.unit(c).end) for c in table}


def test_a_window_reaches_n_neighbours_and_stops_at_the_document_edges(corpus: Corpus) -> None:
    spec = SplitterSpec("chars", 10, context=ContextSpec(window=1))
    assert places(spec, corpus) == {
        ("d.txt", 0, 10): (0, 20), ("d.txt", 10, 20): (0, 30), ("d.txt", 20, 30): (10, 40),
        ("d.txt", 30, 40): (20, 50), ("d.txt", 40, 50): (30, 50),
        ("e.txt", 0, 10): (0, 20), ("e.txt", 10, 20): (0, 20),  # never into another document
    }  # fmt: skip


def test_children_are_cut_within_each_parent_and_sent_as_it(corpus: Corpus) -> None:
    spec = SplitterSpec("chars", 10, context=ContextSpec(parent=SplitterSpec("chars", 25)))
    # a 25-character parent cut at 10: 0..10, 10..20 and the rest, 20..25
    assert places(spec, corpus) == {
        ("d.txt", 0, 10): (0, 25), ("d.txt", 10, 20): (0, 25), ("d.txt", 20, 25): (0, 25),
        ("d.txt", 25, 35): (25, 50), ("d.txt", 35, 45): (25, 50), ("d.txt", 45, 50): (25, 50),
        ("e.txt", 0, 10): (0, 20), ("e.txt", 10, 20): (0, 20),
    }  # fmt: skip


def test_the_context_is_part_of_the_fingerprint_and_ids_only_when_set() -> None:
    plain = SplitterSpec("chars", 10)
    assert "context" not in plain.fingerprint_fields()
    window = SplitterSpec("chars", 10, context=ContextSpec(window=2))
    assert window.fingerprint_fields()["context"] == {"window": 2}
    wider = SplitterSpec("chars", 10, context=ContextSpec(window=3))
    assert len({plain.fingerprint(), window.fingerprint(), wider.fingerprint()}) == 3
    assert window.without_context() == plain


@pytest.mark.parametrize(
    ("children", "parent_of", "words"),
    [
        ((Piece(5, 30),), (0,), "chunk (5, 30) lies inside its parent (0, 25)"),
        ((Piece(20, 30),), (-1,), "chunk (20, 30) lies inside no parent"),
    ],
)
def test_a_child_its_parent_does_not_hold_is_named(
    children: tuple[Piece, ...], parent_of: tuple[int, ...], words: str
) -> None:
    family = Family((Piece(0, 25), Piece(25, 50)), children, parent_of)
    with pytest.raises(ConfigError) as caught:
        check_family("d.txt", family)
    assert caught.value.message == (
        f"document 'd.txt': {words}; every retrieved chunk must lie inside one parent"
    )
    assert caught.value.key == "context.parent"
