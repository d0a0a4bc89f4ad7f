"""chonkie: Sentence, Recursive and Token chunkers; each chunk carries `start_index`.

Sentence and Recursive chunkers place chunks by character positions and use the
tokenizer only to count, so any local tokenizer works. The TokenChunker computes offsets
from the lengths of decoded token text, which is exact only when decoding gives back the
original characters: character units, or tiktoken (verification still catches a cut
inside an emoji). Word and Hugging Face units are refused. Recipes (`from_recipe`) and
tokenizer names chonkie would download are never passed through.
"""

from __future__ import annotations

from typing import Any

from evaluator.chunking.adapters.base import (
    Adapter,
    LibraryChunk,
    Options,
    encoding,
    hf_tokenizer,
    is_tiktoken,
    library,
)
from labeler.core.typed import Kind

_TOKEN_UNITS = ("character", "tiktoken:…")


def _tokenizer(name: str) -> Any:
    if name in ("character", "word"):
        return name
    return encoding(name) if is_tiktoken(name) else hf_tokenizer(name)


def _build_with(kind: str) -> Any:
    def build(options: Options) -> Any:
        kwargs = {k: v for k, v in options.items() if k != "tokenizer"}
        if isinstance(kwargs.get("delim"), list):
            kwargs["delim"] = list(kwargs["delim"])
        tokenizer = _tokenizer(options.get("tokenizer", "character"))
        return getattr(library("chonkie"), kind)(tokenizer=tokenizer, **kwargs)

    return build


def _split_with(kind: str) -> Any:
    def split(text: str, options: Options) -> list[LibraryChunk]:
        chunks = _build_with(kind)(options).chunk(text)
        return [LibraryChunk(c.start_index, c.end_index, c.text) for c in chunks]

    return split


def _refuse_token(options: Options) -> str | None:
    name = options.get("tokenizer", "character")
    if name == "character" or is_tiktoken(name):
        return None
    nearest = (
        "splitter = 'words'" if name == "word" else f"splitter = 'tokens', tokenizer = {name!r}"
    )
    return (
        f"TokenChunker with tokenizer {name!r} computes offsets from the lengths of decoded "
        "token text, which is not the original text (lower-cased, re-spaced), so its offsets "
        f"are not exact; use tokenizer {' or '.join(_TOKEN_UNITS)}, or the nearest spanlab "
        f"splitter: {nearest}"
    )


def _refuse_counting(options: Options) -> str | None:
    if "recipe" in options:
        return "chonkie recipes are downloaded from the Hugging Face hub; give the options instead"
    return None


_COMMON: dict[str, Kind] = {"tokenizer": str, "chunk_size": int}
_SENTENCE: dict[str, Kind] = {
    **_COMMON,
    "chunk_overlap": int,
    "min_sentences_per_chunk": int,
    "min_characters_per_sentence": int,
    "approximate": bool,
    "delim": (str, list),
    "include_delim": str,
    "recipe": str,
}
_RECURSIVE: dict[str, Kind] = {**_COMMON, "min_characters_per_chunk": int, "recipe": str}
_TOKEN: dict[str, Kind] = {**_COMMON, "chunk_overlap": (int, float)}


def _adapter(kind: str, options: dict[str, Kind], refuse: Any) -> Adapter:
    return Adapter(_split_with(kind), options, refuse=refuse, build=_build_with(kind))


ADAPTERS = {
    "SentenceChunker": _adapter("SentenceChunker", _SENTENCE, _refuse_counting),
    "RecursiveChunker": _adapter("RecursiveChunker", _RECURSIVE, _refuse_counting),
    "TokenChunker": _adapter("TokenChunker", _TOKEN, _refuse_token),
}
"""Kind -> adapter."""
