"""Which files below a corpus folder are documents (design §2): a setting, with a default.

Teams keep docs in many plain-text formats, so the default reads them all as text; a
project narrows or widens it with globs in `spanlab.toml` (`include = ["**/*.md"]`). One
rule decides for the reader, the app's watcher and the messages, so they never disagree.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from labeler.core.corpus import glob
from labeler.core.errors import ConfigError

DEFAULT_SUFFIXES = (
    ".txt", ".text", ".md", ".markdown", ".mdx", ".rst", ".adoc", ".asciidoc", ".org", ".tex",
    ".pdf", ".html", ".htm", ".xhtml", ".docx",
)  # fmt: skip
"""Read when no `include` is set: plain text, Markdown, reStructuredText, AsciiDoc, Org and
LaTeX sources as text (markup stays in the canonical text, offsets count it); PDF, HTML and
DOCX through their extractors (labeler.core.corpus.extract, §22)."""
MAX_PATTERNS = 100
"""Most globs `include` may hold."""


@dataclass(frozen=True)
class FileRule:
    """The globs naming a corpus's documents; none means the default suffixes."""

    include: tuple[str, ...] = ()
    """Globs over POSIX paths relative to the corpus folder (`**/*.md`, `docs/*.rst`)."""
    _matchers: tuple[glob.Matcher, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "_matchers", tuple(glob.matcher(p) for p in self.include))

    def is_document(self, rel: str) -> bool:
        if not self.include:
            return PurePosixPath(rel).suffix.lower() in DEFAULT_SUFFIXES
        return any(match(rel) for match in self._matchers)

    def unmatched(self, rels: Iterable[str]) -> list[str]:
        """The globs that match none of `rels` (a setting that finds nothing says so)."""
        rels = list(rels)
        return [p for p, match in zip(self.include, self._matchers, strict=True)
                if not any(match(rel) for rel in rels)]  # fmt: skip

    def describe(self) -> str:
        """The rule in words, for messages."""
        if self.include:
            return "include = [" + ", ".join(f'"{p}"' for p in self.include) + "]"
        return "the default (" + " ".join(DEFAULT_SUFFIXES) + "; set include in spanlab.toml)"


DEFAULT_RULE = FileRule()
"""The default suffixes, no globs."""


def file_rule(value: object, file: str) -> FileRule:
    """spanlab.toml's `include`: a list of non-empty glob strings."""
    if not isinstance(value, list) or not all(isinstance(p, str) and p for p in value):
        raise ConfigError("'include' must be a list of globs such as [\"**/*.md\"]",
                          file=file, key="include")  # fmt: skip
    if not value or len(value) > MAX_PATTERNS:
        raise ConfigError(f"'include' must hold 1 to {MAX_PATTERNS} globs", file=file,
                          key="include")  # fmt: skip
    for n, pattern in enumerate(value):
        if (why := glob.too_costly(pattern)) is not None:
            raise ConfigError(f"'include' glob {n + 1} {why}", file=file, key=f"include[{n}]")
    return FileRule(tuple(value))


def skipped_summary(skipped: Sequence[str]) -> str:
    """One line for every file that is not a document: how many, of which kinds, the first."""
    kinds = Counter(PurePosixPath(s).suffix.lower() or "(no extension)" for s in skipped)
    parts = ", ".join(f"{n} {kind}" for kind, n in kinds.most_common(5))
    more = ", …" if len(kinds) > 5 else ""
    return (f"skipped {len(skipped)} file(s) that are not documents ({parts}{more}; "
            f"first: {skipped[0]})")  # fmt: skip
