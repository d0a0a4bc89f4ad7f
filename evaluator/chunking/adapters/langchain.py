"""langchain-text-splitters: `add_start_index` places each chunk by searching for its text.

That search starts near the previous chunk and takes the first hit, so repeated text can
be placed at the wrong occurrence and token overlap can give -1: spanlab verifies every
chunk and reports the placements that were ambiguous. Token units come from spanlab's
offline tiktoken copy, loaded before langchain asks tiktoken for the encoding by name.
MarkdownHeaderTextSplitter returns no offsets at all and is refused.
"""

from __future__ import annotations

from typing import Any

from evaluator.chunking.adapters.base import Adapter, LibraryChunk, Options, encoding, library
from labeler.core.typed import Kind


def _documents(splitter: Any, text: str) -> list[LibraryChunk]:
    out = []
    for d in splitter.create_documents([text]):
        start = int(d.metadata["start_index"])
        out.append(LibraryChunk(start, start + len(d.page_content), d.page_content))
    return out


def _kwargs(options: Options) -> dict[str, Any]:
    kwargs = {k: list(v) if isinstance(v, list | tuple) else v for k, v in options.items()}
    kwargs["add_start_index"] = True
    return kwargs


def _build_with(kind: str) -> Any:
    def build(options: Options) -> Any:
        cls = getattr(library("langchain_text_splitters"), kind)
        kwargs = _kwargs(options)
        if "encoding_name" in kwargs:
            encoding(kwargs["encoding_name"])  # tiktoken caches it by name: no download
            if kind != "TokenTextSplitter":
                return cls.from_tiktoken_encoder(**kwargs)
        return cls(**kwargs)

    return build


def _split_with(kind: str) -> Any:
    build = _build_with(kind)
    return lambda text, options: _documents(build(options), text)


def _adapter(kind: str, options: dict[str, Kind], **more: Any) -> Adapter:
    return Adapter(_split_with(kind), options, searched=True, build=_build_with(kind), **more)


def _refuse_markdown_headers(options: Options) -> str | None:
    return (
        "MarkdownHeaderTextSplitter returns chunk texts with the headers taken out and no "
        "offsets, so its chunks cannot be placed in the document; the nearest spanlab "
        "splitter is splitter = 'markdown' (headings kept with their first paragraph, the "
        "breadcrumb as prefix), or semantic-text-splitter:MarkdownSplitter"
    )


_COMMON: dict[str, Kind] = {
    "chunk_size": int,
    "chunk_overlap": int,
    "strip_whitespace": bool,
    "encoding_name": str,
}
_CHARACTER: dict[str, Kind] = {**_COMMON, "keep_separator": (bool, str), "is_separator_regex": bool}

ADAPTERS = {
    "RecursiveCharacterTextSplitter": _adapter(
        "RecursiveCharacterTextSplitter", {**_CHARACTER, "separators": list}
    ),
    "CharacterTextSplitter": _adapter("CharacterTextSplitter", {**_CHARACTER, "separator": str}),
    "TokenTextSplitter": _adapter("TokenTextSplitter", _COMMON),
    "MarkdownHeaderTextSplitter": Adapter(
        _split_with("MarkdownHeaderTextSplitter"),
        {"headers_to_split_on": list, "strip_headers": bool},
        searched=True,
        refuse=_refuse_markdown_headers,
    ),
}
"""Kind -> adapter."""
