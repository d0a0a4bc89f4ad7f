"""semantic-text-splitter: `chunk_indices` returns each chunk's character offset itself.

Sizes count characters, a tiktoken model (its encodings are compiled into the Rust
library, so nothing is downloaded) or a local Hugging Face tokenizer, whose truncation
spanlab switches off first: MiniLM's tokenizer.json truncates at 128 tokens otherwise.
"""

from __future__ import annotations

from typing import Any

from evaluator.chunking.adapters.base import Adapter, LibraryChunk, Options, hf_tokenizer, library
from labeler.core.typed import Kind


def _capacity(options: Options) -> int | tuple[int, int]:
    value = options["capacity"]
    return value if isinstance(value, int) else (int(value[0]), int(value[1]))


def _splitter(kind: str, options: Options) -> Any:
    cls = getattr(library("semantic_text_splitter"), kind)
    args = {"overlap": options.get("overlap", 0), "trim": options.get("trim", True)}
    if "tiktoken_model" in options:
        return cls.from_tiktoken_model(options["tiktoken_model"], _capacity(options), **args)
    if "huggingface_tokenizer" in options:
        tokenizer = hf_tokenizer(options["huggingface_tokenizer"])
        return cls.from_huggingface_tokenizer(tokenizer, _capacity(options), **args)
    return cls(_capacity(options), **args)


def _split_with(kind: str) -> Any:
    def split(text: str, options: Options) -> list[LibraryChunk]:
        pairs = _splitter(kind, options).chunk_indices(text)
        return [LibraryChunk(start, start + len(chunk), chunk) for start, chunk in pairs]

    return split


def _refuse(options: Options) -> str | None:
    capacity = options.get("capacity")
    if isinstance(capacity, list) and not (
        len(capacity) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in capacity)
    ):
        return "capacity must be an integer or a [low, high] pair of integers"
    if "tiktoken_model" in options and "huggingface_tokenizer" in options:
        return "give tiktoken_model or huggingface_tokenizer, not both"
    return None


_OPTIONS: dict[str, Kind] = {
    "capacity": (int, list),
    "overlap": int,
    "trim": bool,
    "tiktoken_model": str,
    "huggingface_tokenizer": str,
}

ADAPTERS = {
    kind: Adapter(_split_with(kind), _OPTIONS, required=("capacity",), refuse=_refuse)
    for kind in ("TextSplitter", "MarkdownSplitter")
}
"""Kind -> adapter: plain text and Markdown-aware splitting."""
