"""What every library adapter states and returns, and the local tokenizers it may use.

An adapter declares its options with the library's own names and types, may refuse an
option that cannot give exact offsets (saying why and which spanlab splitter is nearest),
and returns each chunk's offsets and text exactly as the library reported them, so the
verification that follows judges the library rather than spanlab's bookkeeping.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from labeler.core.errors import ConfigError
from labeler.core.typed import Kind, kind_names

Options = Mapping[str, Any]


@dataclass(frozen=True)
class LibraryChunk:
    """A chunk as the library reported it, before spanlab checks it."""

    start: int
    """Start offset the library gave (code points, it claims)."""
    end: int
    """End offset, exclusive."""
    text: str
    """The chunk text the library returned."""
    prefix: str = ""
    """Header metadata the library attached, embedded before the text."""


@dataclass(frozen=True)
class Adapter:
    """One library splitter: its options, its refusals and how it cuts a text."""

    split: Callable[[str, Options], list[LibraryChunk]]
    """Cut one canonical text with these options."""
    options: Mapping[str, Kind]
    """Option name (the library's own) -> accepted types."""
    required: tuple[str, ...] = ()
    """Options that must be given."""
    searched: bool = False
    """True when the library finds offsets by searching its own output text."""
    refuse: Callable[[Options], str | None] = field(default=lambda options: None)
    """Why these options cannot give exact offsets (and the nearest spanlab splitter)."""
    minimum: Mapping[str, float] = field(default_factory=dict)
    """Option name -> the least value the library survives (semchunk recurses forever on 0)."""
    build: Callable[[Options], Any] | None = None
    """The library's splitter object for these options (the one `split` cuts with), whose
    attributes the registry names to read back the size and overlap it really uses."""

    def check(self, options: Options) -> None:
        """Raise ConfigError on key `options.NAME` for an unknown, missing or mistyped option."""
        from labeler.core.typed import accepts

        for name, value in options.items():
            if name not in self.options:
                known = ", ".join(self.options) or "none"
                raise ConfigError(
                    f"unknown option {name!r} (known: {known})", key=f"options.{name}"
                )
            if not accepts(value, self.options[name]):
                wanted = kind_names(self.options[name])
                message = f"option {name!r} must be {wanted}, got {type(value).__name__}"
                raise ConfigError(message, key=f"options.{name}")
        for name in self.required:
            if name not in options:
                raise ConfigError(f"missing option {name!r}", key=f"options.{name}")
        for name, least in self.minimum.items():
            if name in options and options[name] < least:
                message = f"option {name!r} must be at least {least:g}, got {options[name]!r}"
                raise ConfigError(message, key=f"options.{name}")
        reason = self.refuse(options)
        if reason:
            raise ConfigError(f"refused: {reason}", key="options")


def library(module: str) -> Any:
    """Import a library module as an untyped object (the adapters own its types)."""
    return importlib.import_module(module)


def encoding(name: str) -> Any:
    """A tiktoken Encoding from spanlab's offline copy (`tiktoken:cl100k_base`)."""
    from evaluator.chunking.tokenizers import TiktokenTokenizer, load_tokenizer

    loaded = load_tokenizer(name if name.startswith("tiktoken:") else f"tiktoken:{name}")
    assert isinstance(loaded, TiktokenTokenizer)
    return loaded.encoding


def hf_tokenizer(name: str) -> Any:
    """A `tokenizers.Tokenizer` from local files, truncation and padding off."""
    from evaluator.chunking.tokenizers import HuggingFaceTokenizer, load_tokenizer

    loaded = load_tokenizer(name)
    assert isinstance(loaded, HuggingFaceTokenizer)
    return loaded.backend


def is_tiktoken(name: str) -> bool:
    return name.startswith("tiktoken:")


def counter(name: str) -> Callable[[str], int]:
    """A token counter for `character`, `tiktoken:NAME` or a Hugging Face tokenizer name."""
    if name == "character":
        return len
    from evaluator.chunking.tokenizers import load_tokenizer

    return load_tokenizer(name).count
