"""A splitter's settings as one frozen value, checked before any work is done (design §5).

The fingerprint covers everything that changes where cuts fall, so chunk ids and Chroma
collections change exactly when the chunking does; bump SPLITTER_VERSION when the
arithmetic of any splitter changes.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from evaluator.chunking.adapters.registry import LIBRARY_SPLITTERS
from labeler.core.errors import ConfigError

T = TypeVar("T")

SPLITTER_VERSION = "spanlab-splitters/1"
"""Part of every fingerprint; bump it when any splitter cuts differently."""

DEFAULT_TOKENIZER = "sentence-transformers/all-MiniLM-L6-v2"
"""Token units count with this tokenizer unless a candidate names another."""

MAX_WINDOW = 1000
"""Most neighbours a `context = { window = N }` may send on each side of a retrieved chunk."""

UNITS_BY_SPLITTER: dict[str, tuple[str, ...]] = {
    "chars": ("chars",),
    "words": ("words",),
    "tokens": ("tokens",),
    "recursive": ("chars", "words", "tokens"),
    "sentences": ("chars", "words", "tokens"),
    "markdown": ("chars", "words", "tokens"),
    "python": ("chars", "words", "tokens"),
}
"""Units each splitter accepts; the first is its default."""


@dataclass(frozen=True)
class ContextSpec:
    """What is sent for a retrieved chunk (§18, §24): N neighbours on each side, or its
    parent; a window sent alone for each hit (`merge = false`), a parent only when more
    than `merge_ratio` of its children are retrieved (LlamaIndex's auto-merging)."""

    window: int = 0
    """Neighbours sent on each side of a retrieved chunk."""
    parent: SplitterSpec | None = None
    """The splitter that cuts parents; the candidate's splitter then cuts within each one."""
    merge: bool = True
    """Windows only: True merges windows that touch; False sends each hit's own window,
    repeated where they overlap (LlamaIndex's sentence window)."""
    merge_ratio: float | None = None
    """Parents only: a parent replaces its retrieved children when more than this share of
    them is retrieved (LlamaIndex's AutoMergingRetriever); None sends every hit's parent."""

    def fingerprint_fields(self) -> dict[str, Any]:
        if self.parent is not None:
            ratio = {} if self.merge_ratio is None else {"merge_ratio": self.merge_ratio}
            return {"parent": self.parent.fingerprint_fields(), **ratio}
        return {"window": self.window, **({} if self.merge else {"merge": False})}

    @classmethod
    def from_fields(cls, fields: Mapping[str, Any]) -> ContextSpec:
        """Rebuilt from `fingerprint_fields` (run.json)."""
        parent = fields.get("parent")
        if not isinstance(parent, Mapping):
            return cls(window=int(fields.get("window", 0)), merge=bool(fields.get("merge", True)))
        keys = ("splitter", "size", "overlap", "unit", "tokenizer", "function", "options")
        ratio = fields.get("merge_ratio")
        return cls(parent=SplitterSpec(**{k: parent[k] for k in keys if k in parent}),
                   merge_ratio=None if ratio is None else float(ratio))  # fmt: skip


@dataclass(frozen=True)
class SplitterSpec:
    """One candidate's chunking: which splitter, in which unit, how big, how much overlap."""

    splitter: str
    """chars | words | tokens | sentences | recursive | markdown | python."""
    size: int
    """Chunk size limit, in `unit`."""
    overlap: int | float = 0
    """Units shared by consecutive chunks (sentences for the `sentences` splitter); a
    library's own overlap may be a fraction of the size (semchunk's `overlap = 0.25`)."""
    unit: str = ""
    """chars | words | tokens; empty means the splitter's default."""
    tokenizer: str | None = None
    """Tokenizer for token units; None means DEFAULT_TOKENIZER when the unit is tokens."""
    function: str | None = None
    """`module:function` for the python splitter."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """A library splitter's own options, by the library's names (`[candidate.options]`)."""
    context: ContextSpec | None = None
    """What is sent for a retrieved chunk (§18); None: the chunk itself."""

    @property
    def exported(self) -> bool:
        """True for `splitter = "chunks"`: a team's exported chunk file (§14)."""
        return self.splitter == "chunks"

    @property
    def library(self) -> bool:
        """True for a library splitter (§14), whose options the library checks."""
        return self.splitter in LIBRARY_SPLITTERS

    def __post_init__(self) -> None:
        # Defaults depend on the splitter, which a dataclass default cannot express.
        units = UNITS_BY_SPLITTER.get(self.splitter)
        if not self.unit and units:
            object.__setattr__(self, "unit", units[0])
        if self.unit == "tokens" and self.tokenizer is None:
            object.__setattr__(self, "tokenizer", DEFAULT_TOKENIZER)

    def validate(self, candidate: str) -> SplitterSpec:
        """Raise ConfigError naming the candidate and the key; return self when valid (a
        library splitter's with the size and overlap the library itself runs with)."""
        if self.library:
            self._check_loads(candidate, "options", self._check_library)
            return self._check_loads(candidate, "options", self._effective)
        if self.exported:
            self._check_loads(candidate, "options.path", self._check_exported)
            return self
        for key, problem in self._problems():
            raise ConfigError(f"candidate {candidate!r}: {problem}", key=key)
        if self.unit == "tokens":
            self._check_loads(candidate, "tokenizer", self._load_tokenizer)
        if self.splitter == "python":
            self._check_loads(candidate, "function", lambda: resolve_function(self.function or ""))
        return self

    def _problems(self) -> list[tuple[str, str]]:
        known = UNITS_BY_SPLITTER.get(self.splitter)
        if known is None:
            names = " | ".join([*UNITS_BY_SPLITTER, *LIBRARY_SPLITTERS])
            return [("splitter", f"unknown splitter {self.splitter!r} (known: {names})")]
        checks = [
            (
                "unit",
                self.unit not in known,
                f"unit {self.unit!r} is not one of: {', '.join(known)}",
            ),
            ("size", self.size < 1, f"size must be at least 1, got {self.size}"),
            ("overlap", self.overlap < 0, f"overlap must be >= 0, got {self.overlap}"),
            (
                "overlap",
                not isinstance(self.overlap, int),
                f"overlap must be an integer, got {self.overlap!r}",
            ),
            (
                "overlap",
                self.overlap >= self.size,
                f"overlap ({self.overlap}) must be smaller than size ({self.size})",
            ),
            ("tokenizer", self.unit == "tokens" and not self.tokenizer, "token units need one"),
            ("function", self.splitter == "python" and not self.function, "python needs one"),
            ("options", bool(self.options), "options are for library splitters only"),
        ]
        return [(key, message) for key, failed, message in checks if failed]

    def _check_library(self) -> None:
        from evaluator.chunking.adapters import check_options

        check_options(self.splitter, self.options)

    def _effective(self) -> SplitterSpec:
        from evaluator.chunking.adapters import effective_options

        size, overlap = effective_options(self.splitter, self.options)
        return replace(self, size=size, overlap=overlap)

    def _check_exported(self) -> None:
        from evaluator.chunking.exported import read_chunk_file

        unknown = sorted(set(self.options) - {"path"})
        path = self.options.get("path")
        if unknown or not isinstance(path, str):
            what = f"unknown option {unknown[0]!r}" if unknown else "needs options.path (a str)"
            raise ConfigError(f"chunks: {what}")
        read_chunk_file(path)

    def _load_tokenizer(self) -> object:
        from evaluator.chunking.tokenizers import load_tokenizer

        return load_tokenizer(self.tokenizer or DEFAULT_TOKENIZER)

    @staticmethod
    def _check_loads(candidate: str, key: str, load: Callable[[], T]) -> T:
        try:
            return load()
        except ConfigError as exc:
            message = f"candidate {candidate!r}: {exc.message}"
            raise replace(exc, message=message, key=exc.key or key) from None

    def fingerprint(self) -> str:
        """Stable 16-hex digest of everything that decides where the cuts fall."""
        payload = json.dumps(self.fingerprint_fields(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()[:16]

    def fingerprint_fields(self) -> dict[str, Any]:
        fields = self._cut_fields()
        if self.context is not None:  # absent otherwise: older fingerprints stay as they were
            fields["context"] = self.context.fingerprint_fields()
        return fields

    def without_context(self) -> SplitterSpec:
        """The splitter alone: what cuts the retrieval units (within each parent, if any)."""
        return replace(self, context=None)

    def _cut_fields(self) -> dict[str, Any]:
        if self.library or self.exported:
            return self._library_fields()
        return {
            "version": SPLITTER_VERSION,
            "splitter": self.splitter,
            "unit": self.unit,
            "size": self.size,
            "overlap": self.overlap,
            # A tokenizer only matters when it counts the units.
            "tokenizer": self.tokenizer if self.unit == "tokens" else None,
            "function": self.function,
        }

    def _library_fields(self) -> dict[str, Any]:
        """Library name and version (or the chunk file's sha256) ride in `version`, so a
        rebuilt spec skips them."""
        if self.exported:
            from evaluator.chunking.exported import file_digest

            source = f"chunks-file sha256:{file_digest(str(self.options['path']))}"
        else:
            entry = LIBRARY_SPLITTERS[self.splitter]
            source = f"{entry.library}=={entry.version()}"
        return {
            "version": f"{SPLITTER_VERSION} {source}",
            "splitter": self.splitter,
            "unit": self.unit,
            "size": self.size,
            "overlap": self.overlap,
            "tokenizer": None,
            "function": None,
            "options": {k: self.options[k] for k in sorted(self.options)},
        }


PluginFunction = Callable[[str, int, int], Any]
"""f(text, size, overlap) -> Iterable[tuple[int, int]]."""


def resolve_function(target: str) -> PluginFunction:
    """Import `module:function`; any failure is a ConfigError on key `function`."""
    module_name, sep, attr = target.partition(":")
    if not sep or not module_name or not attr:
        raise ConfigError(f"function must look like 'module:function', got {target!r}")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"cannot import module {module_name!r}: {exc}") from None
    obj: object = module
    for part in attr.split("."):
        obj = getattr(obj, part, None)
    if not callable(obj):
        raise ConfigError(f"{target!r} is not a callable in module {module_name!r}")
    return obj
