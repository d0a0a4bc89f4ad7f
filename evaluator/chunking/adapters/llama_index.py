"""llama-index-core node parsers: offsets from `start_char_idx`, found by text search.

llama-index places a node by `find` on the document text, so repeated text can land on
the wrong occurrence: spanlab verifies every node and reports ambiguous placements. The
tokenizer is always given (a local tiktoken copy by default), because llama-index's own
default fetches one; its size warnings are printed, so they go to stderr, not stdout.
MarkdownNodeParser's `header_path` becomes the chunk prefix.
"""

from __future__ import annotations

import contextlib
import sys
from typing import Any

from evaluator.chunking.adapters import base
from labeler.core.typed import Kind

DEFAULT_TOKENIZER = "tiktoken:cl100k_base"
"""llama-index's own default base.encoding, from spanlab's offline copy."""


def _tokenizer(name: str) -> Any:
    if base.is_tiktoken(name):
        return base.encoding(name).encode
    count = base.counter(name)
    return lambda text: [0] * count(text)  # llama-index only takes len() of the result


def _prefix(metadata: dict[str, Any], separator: str) -> str:
    path = str(metadata.get("header_path", "")).strip(separator)
    return path.replace(separator, " > ") if path else ""


def _nodes(parser: Any, text: str, separator: str) -> list[base.LibraryChunk]:
    core = base.library("llama_index.core")
    with contextlib.redirect_stdout(sys.stderr):
        nodes = parser.get_nodes_from_documents([core.Document(text=text)])
    out = []
    for node in nodes:
        content = node.get_content(metadata_mode="none")
        start = -1 if node.start_char_idx is None else int(node.start_char_idx)
        end = start + len(content) if node.end_char_idx is None else int(node.end_char_idx)
        out.append(base.LibraryChunk(start, end, content, _prefix(node.metadata, separator)))
    return out


def _build_with(kind: str) -> Any:
    def build(options: base.Options) -> Any:
        cls = getattr(base.library("llama_index.core.node_parser"), kind)
        kwargs = dict(options)
        if kind != "MarkdownNodeParser":
            kwargs["tokenizer"] = _tokenizer(kwargs.get("tokenizer", DEFAULT_TOKENIZER))
        if isinstance(kwargs.get("backup_separators"), list):
            kwargs["backup_separators"] = list(kwargs["backup_separators"])
        return cls(**kwargs)

    return build


def _split_with(kind: str) -> Any:
    def split(text: str, options: base.Options) -> list[base.LibraryChunk]:
        separator = str(options.get("header_path_separator", "/"))
        return _nodes(_build_with(kind)(options), text, separator)

    return split


_WINDOWS: dict[str, Kind] = {
    "chunk_size": int,
    "chunk_overlap": int,
    "separator": str,
    "tokenizer": str,
}

ADAPTERS = {
    "SentenceSplitter": base.Adapter(
        _split_with("SentenceSplitter"),
        {**_WINDOWS, "paragraph_separator": str, "secondary_chunking_regex": str},
        searched=True,
        build=_build_with("SentenceSplitter"),
    ),
    "TokenTextSplitter": base.Adapter(
        _split_with("TokenTextSplitter"),
        {**_WINDOWS, "backup_separators": list},
        searched=True,
        build=_build_with("TokenTextSplitter"),
    ),
    "MarkdownNodeParser": base.Adapter(
        _split_with("MarkdownNodeParser"),
        {"include_metadata": bool, "header_path_separator": str},
        searched=True,
    ),
}
"""Kind -> adapter."""
