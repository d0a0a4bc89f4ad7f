"""A run holds a candidate's chunks as columns and the corpus as paths and hashes (§6):
both must answer exactly what the lists and texts they replace answered."""

from __future__ import annotations

import functools
import os
from pathlib import Path

import pytest

from evaluator.chunk_table import ChunkTable
from evaluator.chunking import Piece, SplitterSpec, chunk_corpus, chunk_table
from evaluator.chunking.tokenizers import count_many, load_tokenizer
from evaluator.metrics import TokenCounter
from evaluator.metrics.stats import counted_stats, index_stats
from evaluator.pipeline import sanity
from labeler.core.corpus.folder import Corpus, OnDemand
from labeler.core.errors import CorpusError

TEXTS = {
    "a.md": "# Refunds\n\nRefunds take five days.\n\n## Cards\n\nCards are charged once.\n" * 30,
    "b/c.txt": "Größe 東京 café naïve. " * 200,
    "empty.md": "",
}


@pytest.fixture()
def folder(tmp_path: Path) -> Path:
    for doc, text in TEXTS.items():
        (tmp_path / doc).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / doc).write_text(text, encoding="utf-8")
    return tmp_path


SPECS = [
    SplitterSpec("markdown", 120),
    SplitterSpec("tokens", 32, 8, unit="tokens"),
    SplitterSpec("chars", 50, 10, unit="chars"),
]


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.splitter)
def test_a_table_is_the_list_it_replaces(folder: Path, spec: SplitterSpec) -> None:
    kept, lazy = Corpus.read(folder), Corpus.read(folder, keep_text=False)
    listed, table = chunk_corpus(spec, kept), chunk_table(spec, lazy)
    assert table == listed and list(table) == listed and len(table) == len(listed)
    assert table[-1] == listed[-1] and table[3:7] == listed[3:7]
    assert table.first_repeat() is None
    assert bool(table.prefixes) == (spec.splitter == "markdown")  # breadcrumbs kept apart
    assert table.chars() == sum(c.length for c in listed)
    assert table.of_docs({"b/c.txt"}) == [c for c in listed if c.doc == "b/c.txt"]
    assert list(table.doc_range("empty.md")) == [] and sanity.documents_of(table) == {
        "a.md", "b/c.txt"}  # fmt: skip
    sanity.check_chunks("x", table, lazy)
    with pytest.raises(IndexError):
        table[len(table)]


def test_a_repeated_chunk_and_a_gap_are_refused_from_the_columns(folder: Path) -> None:
    corpus = Corpus.read(folder, keep_text=False)
    table = chunk_table(SPECS[2], corpus)
    doubled = ChunkTable(table.corpus_hash, table.fingerprint, table.docs,
                         table.doc_of[[0, 0, *range(1, len(table))]],
                         table.starts[[0, 0, *range(1, len(table))]],
                         table.ends[[0, 0, *range(1, len(table))]], {})  # fmt: skip
    with pytest.raises(sanity.SanityError, match="occurs twice"):
        sanity.check_chunks("x", doubled, corpus)
    gap = ChunkTable(table.corpus_hash, table.fingerprint, table.docs, table.doc_of[1:],
                     table.starts[1:], table.ends[1:], {})  # fmt: skip
    with pytest.raises(sanity.SanityError, match="from offset 0 are in no chunk"):
        sanity.check_chunks("x", gap, corpus)


def test_counted_stats_equal_the_counted_list_and_keep_only_what_is_asked(folder: Path) -> None:
    corpus = Corpus.read(folder, keep_text=False)
    tokenizer = load_tokenizer("sentence-transformers/all-MiniLM-L6-v2")
    table = chunk_table(SPECS[0], corpus)
    counter = TokenCounter(tokenizer.count, corpus.texts())
    keep = {table[0].id, table[5].id}
    stats = counted_stats(table, counter, functools.partial(count_many, tokenizer), keep)
    assert stats == index_stats(list(table), corpus.texts(), tokenizer.count)
    assert set(counter._cache) == keep


def test_an_on_demand_corpus_reads_again_and_notices_a_change(folder: Path) -> None:
    kept, lazy = Corpus.read(folder), Corpus.read(folder, keep_text=False)
    assert isinstance(lazy.documents, OnDemand)
    lazy.documents.KEPT_CHARS = 0  # keep the last document only: others are read from disk
    assert lazy.hash == kept.hash and lazy.doc_hashes == kept.doc_hashes
    assert lazy.texts()["b/c.txt"] == kept.text("b/c.txt") and "a.md" in lazy
    assert [d.id for d in lazy] == [d.id for d in kept]
    assert lazy.text("a.md") == TEXTS["a.md"]
    (folder / "b" / "c.txt").write_text("changed", encoding="utf-8")
    with pytest.raises(CorpusError, match="changed while spanlab was reading") as caught:
        lazy.text("b/c.txt")
    assert caught.value.file is not None and caught.value.file.endswith("c.txt")


def test_find_is_the_columns_answer(folder: Path) -> None:
    table = chunk_table(SPECS[1], Corpus.read(folder, keep_text=False))
    for i in (0, 7, len(table) - 1):
        c = table[i]
        assert table.find(c.doc, c.start, c.end) == i
    assert table.find("a.md", 1, 2) is None and table.find("none.md", 0, 5) is None


@pytest.mark.parametrize("spec", SPECS, ids=lambda s: s.splitter)
def test_find_many_is_find_for_every_chunk_and_every_probe(
    folder: Path, spec: SplitterSpec
) -> None:
    table = chunk_table(spec, Corpus.read(folder, keep_text=False))
    probes = [(c.doc, c.start, c.end) for c in table]
    probes += [(d, s + 1, e) for d, s, e in probes[::7]] + [
        (d, s, e - 1) for d, s, e in probes[::5]
    ]
    probes += [("none.md", 0, 5), ("a.md", -1, -1), ("a.md", 1 << 32, (1 << 32) + 5),
               ("empty.md", 0, 0), ("b/c.txt", 0, 1 << 40)]  # fmt: skip
    found = table.find_many(*zip(*probes, strict=True)).tolist()
    assert found == [-1 if (i := table.find(*p)) is None else i for p in probes]
    assert found[: len(table)] == list(range(len(table)))


def test_find_many_finds_each_of_chunks_sharing_a_start() -> None:
    pieces = [("a.md", [Piece(0, 5), Piece(0, 9), Piece(3, 9)]), ("b.md", [Piece(0, 5)])]
    table = ChunkTable.build("sha256:x", "fp", pieces)
    found = table.find_many(["a.md", "a.md", "a.md", "a.md", "b.md", "b.md"],
                            [0, 0, 3, 0, 0, 3], [5, 9, 9, 7, 5, 9])  # fmt: skip
    assert found.tolist() == [0, 1, 2, -1, 3, -1]
    assert len(table.find_many([], [], [])) == 0


@pytest.mark.parametrize("swap", ["deleted", "fifo", "device link", "grown"])
def test_a_document_swapped_under_the_run_is_refused_at_once(folder: Path, swap: str) -> None:
    lazy = Corpus.read(folder, keep_text=False)
    lazy.documents.KEPT_CHARS = 0  # type: ignore[attr-defined]
    lazy.text("a.md")  # b/c.txt is read from disk next time
    path = folder / "b" / "c.txt"
    path.unlink()
    if swap == "fifo":
        os.mkfifo(path)  # a plain open would wait for a writer for good
    elif swap == "device link":
        path.symlink_to("/dev/zero")  # a plain read would never end
    elif swap == "grown":
        path.write_text(TEXTS["b/c.txt"] + "more", encoding="utf-8")
    with pytest.raises(CorpusError, match="changed while spanlab was reading") as caught:
        lazy.text("b/c.txt")
    assert caught.value.file is not None and caught.value.file.endswith("c.txt")
