"""The extractors an extractor comparison may name (§22), each with the settings it takes.

One table states everything about an alternative extraction: its name, the suffixes it
reads, the settings it accepts with their values, and how it reads; a name or a setting not
here is refused with the key that holds it, before any file is read.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Any

from labeler.core.corpus.extract import inscribed, pdf, plumber
from labeler.core.corpus.extract.base import Extracted
from labeler.core.corpus.extract.bounded import extract_pdf_bounded
from labeler.core.corpus.extract.docx import extract_docx
from labeler.core.corpus.extract.html import extract_html
from labeler.core.corpus.extract.read import EXTRACTORS, MAX_SOURCE_BYTES, sniff
from labeler.core.errors import ConfigError, CorpusError

Read = Callable[[bytes, str, Mapping[str, str]], Extracted]


@dataclass(frozen=True)
class Choice:
    """One extractor an `[[extraction.alternative]]` may name."""

    name: str
    """As the candidates file names it (`pdf:pypdfium2`)."""
    suffixes: tuple[str, ...]
    """The source suffixes it reads; other documents keep the project's text."""
    settings: Mapping[str, tuple[str, ...]]
    """Setting -> its values, the project's own first."""
    read: Read
    """Source bytes, file name for messages, checked settings -> the extraction."""
    meaning: str
    """One line for the reference."""
    needs: tuple[str, ...] = ()
    """The module it imports and the extra that installs it; () for spanlab's own."""


ALL_OFF = {k: v[1] for k, v in pdf.CHOICES.items()}
"""Every PDF rule off: pdfium's own reading order and lines."""

CHOICES: Mapping[str, Choice] = {c.name: c for c in (
    Choice("pdf:pypdfium2", (".pdf",), pdf.CHOICES,
           lambda raw, file, s: extract_pdf_bounded(raw, file, settings=dict(s)),
           "The project's PDF extractor; `columns`, `tables`, `headers`, `hyphens` turn its "
           "rules off one by one."),
    Choice("pdf:pypdfium2-plain", (".pdf",), {},
           lambda raw, file, s: extract_pdf_bounded(raw, file, settings=ALL_OFF),
           "pdfium's own reading order and lines: no column, table, header or hyphen rule."),
    Choice("pdf:pdfplumber", (".pdf",), plumber.CHOICES, lambda raw, file, s:
           extract_pdf_bounded(raw, file, settings=dict(s), extractor=plumber.NAME),
           "pdfplumber's text (on pdfminer.six), page by page, in the same bounded child; "
           "`layout`, `order` as pdfplumber's.", ("pdfplumber", "pdfplumber")),
    Choice("html:stdlib", (".html", ".htm", ".xhtml"), {}, lambda raw, file, s:
           extract_html(raw, file), "The project's HTML extractor."),
    Choice("html:inscriptis", (".html", ".htm", ".xhtml"), inscribed.CHOICES,
           lambda raw, file, s: inscribed.extract_inscriptis(raw, file, s),
           "inscriptis's text layout of the page (lists, tables in columns); `css` as "
           "inscriptis's.", ("inscriptis", "inscriptis")),
    Choice("docx:python-docx", (".docx",), {}, lambda raw, file, s: extract_docx(raw, file),
           "The project's DOCX extractor."),
)}  # fmt: skip
"""Every extractor by name."""


@dataclass(frozen=True)
class Chosen:
    """An extractor and its checked settings: one alternative extraction."""

    choice: Choice
    """The extractor."""
    settings: tuple[tuple[str, str], ...]
    """Its settings, sorted by name."""

    def reads(self, doc_id: str) -> bool:
        """Whether it reads this document (by suffix)."""
        return PurePosixPath(doc_id).suffix.lower() in self.choice.suffixes

    def extract(self, doc_id: str, raw: bytes, file: str) -> Extracted:
        """The document's text by this extractor; SourceError (a CorpusError) names the file."""
        suffix = PurePosixPath(doc_id).suffix.lower()
        if len(raw) > MAX_SOURCE_BYTES or suffix not in EXTRACTORS:
            raise CorpusError("not a source this extractor reads", file=file)
        sniff(suffix, raw, file)
        return self.choice.read(raw, file, dict(self.settings))


def installed(module: str) -> bool:
    """Whether a library can be imported (looked up, not imported: no cost until a file
    needs it)."""
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):  # a module set to None in sys.modules, or broken
        return False


def choose(name: Any, settings: Any, *, file: str, key: str) -> Chosen:
    """The extractor `name` with `settings`; an unknown name or setting, or a value it does
    not take, is a ConfigError naming the file and the key."""
    choice = CHOICES.get(name) if isinstance(name, str) else None
    if choice is None:
        raise ConfigError(f"unknown extractor {str(name)[:60]!r} (known: {', '.join(CHOICES)})",
                          file=file, key=f"{key}.extractor")  # fmt: skip
    if choice.needs and not installed(choice.needs[0]):
        raise ConfigError(f"{choice.name} needs {choice.needs[0]}, which is not installed",
                          file=file, key=f"{key}.extractor",
                          hint=f"pip install 'spanlab[{choice.needs[1]}]'")  # fmt: skip
    if not isinstance(settings, Mapping):
        raise ConfigError("settings must be a table", file=file, key=f"{key}.settings")
    for setting, value in settings.items():
        values = choice.settings.get(setting)
        if values is None:
            known = ", ".join(choice.settings) or "none"
            raise ConfigError(f"{choice.name} takes no setting {setting[:40]!r} (known: {known})",
                              file=file, key=f"{key}.settings.{setting}")  # fmt: skip
        if value not in values:
            raise ConfigError(f"{setting} must be one of {', '.join(map(repr, values))}, got "
                              f"{str(value)[:40]!r}", file=file,
                              key=f"{key}.settings.{setting}")  # fmt: skip
    return Chosen(choice, tuple(sorted((str(k), str(v)) for k, v in settings.items())))
