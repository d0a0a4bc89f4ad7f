"""One entry point per granularity: a document's pieces, a corpus's chunks (design §5).

Splitters are looked up by name and all take the text and its units, so adding one is
one function and one table entry; the corpus loop only adds ids and document order.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from evaluator.chunk import Chunk
from evaluator.chunk_table import ChunkTable
from evaluator.chunking.adapters import library_pieces
from evaluator.chunking.exported import exported_pieces, unknown_documents
from evaluator.chunking.family import Family, family_pieces
from evaluator.chunking.markdown import markdown_pieces
from evaluator.chunking.pieces import Piece
from evaluator.chunking.plugin import python_pieces
from evaluator.chunking.recursive import recursive_pieces, sentence_pieces
from evaluator.chunking.spec import SplitterSpec
from evaluator.chunking.units import Units, units_for
from evaluator.chunking.windows import window_pieces
from labeler.core.corpus.folder import Corpus
from labeler.core.errors import ConfigError
from labeler.core.progress import Advance

UnitSplitter = Callable[[str, Units, int, int], list[Piece]]


def _windows(text: str, units: Units, size: int, overlap: int) -> list[Piece]:
    return window_pieces(units, len(text), size, overlap)


SPLITTERS: dict[str, UnitSplitter] = {
    "chars": _windows,
    "words": _windows,
    "tokens": _windows,
    "recursive": recursive_pieces,
    "sentences": sentence_pieces,
    "markdown": markdown_pieces,
}
"""Splitters that measure in units; `python` is handled on its own."""


def split_text(spec: SplitterSpec, text: str, doc: str = "") -> list[Piece]:
    """Cut one canonical text; offsets index `text`, pieces in offset order.

    `doc` names the document in a library splitter's verification errors."""
    if spec.library:
        return library_pieces(spec.splitter, spec.options, doc, text)
    if spec.exported:
        return exported_pieces(str(spec.options["path"]), doc, text)
    if spec.splitter == "python":
        return python_pieces(text, spec.function or "", spec.size, int(spec.overlap))
    splitter = SPLITTERS.get(spec.splitter)
    if splitter is None:
        raise ConfigError(f"unknown splitter {spec.splitter!r}", key="splitter")
    if not text:
        return []
    return splitter(text, units_for(spec.unit, text, spec.tokenizer), spec.size, int(spec.overlap))


def chunk_corpus(spec: SplitterSpec, corpus: Corpus) -> list[Chunk]:
    """Every document's chunks, documents in id order, chunks in offset order."""
    return list(chunk_table(spec, corpus))


def chunk_table(spec: SplitterSpec, corpus: Corpus, advance: Advance | None = None) -> ChunkTable:
    """`chunk_corpus` as columns, one document's text in hand at a time (§6). With parents
    (§18) the chunks are the children, the retrieval units. `advance`d by one a document."""
    for part in (spec, spec.context.parent if spec.context else None):
        if part is not None and part.exported:
            _check_documents(str(part.options["path"]), corpus)
    return ChunkTable.build(corpus.hash, spec.fingerprint(), _pieces(spec, corpus, advance))


def _pieces(
    spec: SplitterSpec, corpus: Corpus, advance: Advance | None
) -> Iterator[tuple[str, Sequence[Piece]]]:
    for doc in corpus:
        yield doc.id, cut_text(spec, doc.text, doc.id)
        if advance is not None:
            advance(1)


def cut_text(spec: SplitterSpec, text: str, doc: str = "") -> Sequence[Piece]:
    """A document's retrieval units: `split_text`'s pieces, or the children of its parents."""
    if spec.context is not None and spec.context.parent is not None:
        return parent_pieces(spec, text, doc).children
    return split_text(spec.without_context(), text, doc)


def parent_pieces(spec: SplitterSpec, text: str, doc: str = "") -> Family:
    """A document's parents and children, for a candidate whose context is its parents.
    Built-in splitters cut the same text the same way, so the last few families are kept:
    the children are cut for the index and the family is asked again for what is sent."""
    assert spec.context is not None and spec.context.parent is not None
    if any(s.library or s.exported or s.splitter == "python" for s in (spec, spec.context.parent)):
        return family_pieces(split_text, spec, text, doc)  # outside code: cut every time
    return _kept_family(_Keyed(spec), text, doc)


@dataclass(frozen=True)
class _Keyed:
    """A spec keyed by its fingerprint, for the family cache (a spec holds a dict)."""

    spec: SplitterSpec = field(compare=False)
    key: str = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "key", self.spec.fingerprint())


@lru_cache(maxsize=64)
def _kept_family(keyed: _Keyed, text: str, doc: str) -> Family:
    return family_pieces(split_text, keyed.spec, text, doc)


def _check_documents(path: str, corpus: Corpus) -> None:
    """A chunk file that names a document the corpus lacks was made from another corpus."""
    unknown = unknown_documents(path, set(corpus.documents))  # ids: no text is read
    if unknown:
        doc, line = unknown[0]
        message = f"document {doc!r} is not in the corpus ({len(unknown)} such document(s))"
        raise ConfigError(message, file=path, line=line, key="doc")
