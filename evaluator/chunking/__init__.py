"""Chunking candidates (design §5): splitters whose offsets come from their own arithmetic.

`split_text` cuts one document into `Piece`s, `chunk_corpus` turns a corpus into `Chunk`s
with ids; `check_pieces` states the contract every splitter's output obeys.
"""

from evaluator.chunking.pieces import Piece, check_pieces
from evaluator.chunking.spec import SPLITTER_VERSION, SplitterSpec
from evaluator.chunking.split import chunk_corpus, chunk_table, split_text
from evaluator.chunking.tokenizers import TokenizerAdapter, load_tokenizer

__all__ = [
    "SPLITTER_VERSION",
    "Piece",
    "SplitterSpec",
    "TokenizerAdapter",
    "check_pieces",
    "chunk_corpus",
    "chunk_table",
    "load_tokenizer",
    "split_text",
]
