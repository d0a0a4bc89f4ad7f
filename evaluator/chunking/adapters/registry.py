"""Which library splitters exist, named without importing any library (design §14).

The spec and the candidates file need the names, the extra to install and the option that
holds the size before any library is imported; an optional extra that is missing must
still give a clear message, so the table lives apart from the adapters themselves.
"""

from __future__ import annotations

from dataclasses import dataclass

from labeler.core.errors import ConfigError


@dataclass(frozen=True)
class Entry:
    """One library splitter as a candidates file names it (`splitter = "chonkie:…"`)."""

    library: str
    """Distribution name on the package index, also the name of the spanlab extra."""
    module: str
    """Adapter module under evaluator.chunking.adapters."""
    kind: str
    """The library's class (or function) name."""
    size_option: str
    """The library's own option that holds the chunk size."""
    overlap_option: str = ""
    """The library's own option that holds the overlap, recorded as the candidate's."""
    size_attribute: str = ""
    """The attribute of the built splitter that holds the size it runs with; empty: the
    library keeps none readable, so the option as given is recorded."""
    overlap_attribute: str = ""
    """Likewise for the overlap (chonkie turns a fraction into units, langchain defaults
    to 200): what run.json records is the library's own value, never a guessed 0."""

    def version(self) -> str:
        """The installed version; a missing extra is a ConfigError naming the install."""
        import importlib.metadata  # on use: a plan of built-in splitters never pays for it

        try:
            return importlib.metadata.version(self.library)
        except importlib.metadata.PackageNotFoundError:
            raise ConfigError(
                f"splitter needs the {self.library} extra, which is not installed",
                key="splitter",
                hint=f"pip install {self.library}  (in a checkout: "
                f"pip install -e '.[{self.library}]')",
            ) from None


def _entries() -> dict[str, Entry]:
    rows = [
        ("semchunk", "semchunk", "semchunk", "chunkerify", "chunk_size"),
        ("semantic-text-splitter:TextSplitter", "semantic-text-splitter", "semantic_text",
         "TextSplitter", "capacity"),
        ("semantic-text-splitter:MarkdownSplitter", "semantic-text-splitter", "semantic_text",
         "MarkdownSplitter", "capacity"),
        ("chonkie:SentenceChunker", "chonkie", "chonkie", "SentenceChunker", "chunk_size"),
        ("chonkie:RecursiveChunker", "chonkie", "chonkie", "RecursiveChunker", "chunk_size"),
        ("chonkie:TokenChunker", "chonkie", "chonkie", "TokenChunker", "chunk_size"),
        ("langchain:RecursiveCharacterTextSplitter", "langchain-text-splitters", "langchain",
         "RecursiveCharacterTextSplitter", "chunk_size"),
        ("langchain:CharacterTextSplitter", "langchain-text-splitters", "langchain",
         "CharacterTextSplitter", "chunk_size"),
        ("langchain:TokenTextSplitter", "langchain-text-splitters", "langchain",
         "TokenTextSplitter", "chunk_size"),
        ("langchain:MarkdownHeaderTextSplitter", "langchain-text-splitters", "langchain",
         "MarkdownHeaderTextSplitter", ""),
        ("llama-index:SentenceSplitter", "llama-index-core", "llama_index", "SentenceSplitter",
         "chunk_size"),
        ("llama-index:TokenTextSplitter", "llama-index-core", "llama_index",
         "TokenTextSplitter", "chunk_size"),
        ("llama-index:MarkdownNodeParser", "llama-index-core", "llama_index",
         "MarkdownNodeParser", ""),
    ]  # fmt: skip
    return {name: Entry(lib, module, kind, size, _OVERLAP.get(module, ""),
                        *_READ_BACK.get(module, ("", "")) if size else ("", ""))
            for name, lib, module, kind, size in rows}  # fmt: skip


_OVERLAP = {"semchunk": "overlap", "semantic_text": "overlap", "chonkie": "chunk_overlap",
            "langchain": "chunk_overlap", "llama_index": "chunk_overlap"}  # fmt: skip
"""Adapter module -> the library's overlap option."""

_READ_BACK = {"langchain": ("_chunk_size", "_chunk_overlap"),
              "llama_index": ("chunk_size", "chunk_overlap"),
              "chonkie": ("chunk_size", "chunk_overlap"),
              "semchunk": ("chunk_size", "")}  # fmt: skip
"""Adapter module -> (size, overlap) attributes of its built splitter. semchunk takes the
overlap per call and semantic-text-splitter's Rust objects expose neither: as given."""


LIBRARY_SPLITTERS: dict[str, Entry] = _entries()
"""`splitter = …` names of the library adapters."""
