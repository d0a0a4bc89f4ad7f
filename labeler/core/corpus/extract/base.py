"""What every extractor returns and how it fails (design §22), shared by the three formats.

An extractor is a pure function of the source bytes and its settings; its name, version and
settings travel with the text so the document's hash can cover them (bound like text).
"""

from __future__ import annotations

import functools
import importlib
import json
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from labeler.core.corpus.extract.places import SourceMap
from labeler.core.errors import CorpusError


@dataclass(frozen=True)
class Extractor:
    """Which extraction made a text: part of the document's hash."""

    name: str
    """`pdf:pypdfium2`, `html:stdlib`, `docx:python-docx`."""
    version: str
    """The library's version, and spanlab's own rules' version after a `+`."""
    settings: tuple[tuple[str, Any], ...] = ()
    """The settings used, sorted by name."""

    def fingerprint(self) -> str:
        """One line naming the extractor, its version and settings, stable across runs."""
        return json.dumps([self.name, self.version, dict(self.settings)], sort_keys=True)


@dataclass(frozen=True)
class Extracted:
    """A source read into canonical text, with its map and the extraction that made it."""

    text: str
    """Canonical text (NFC, LF, one final newline)."""
    map: SourceMap
    """Where each stretch of the text came from."""
    extractor: Extractor
    """What made it."""


class SourceError(CorpusError):
    """A source that cannot be extracted: the document is skipped, named, with why."""


def library(module: str, extra: str, file: str) -> ModuleType:
    """Import an extractor's library when a file needs it; missing, a hint names the extra."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise SourceError(f"reading it needs {module}, which is not installed", file=file,
                          hint=f"pip install 'spanlab[{extra}]'") from None  # fmt: skip


@functools.cache
def version_of(distribution: str) -> str:
    """An installed library's version (looked up once per process)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(distribution)
    except PackageNotFoundError:
        return "unknown"
