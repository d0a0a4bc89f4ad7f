"""Where a running app's corpus comes from, so it can notice the folder change (§8, §11).

A cheap signature (every file's path, size, inode and modification time) is compared on
a timer and before the review screen opens; only when it differs is the corpus read
again. The CLI builds the source from spanlab.toml, as it builds the first read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from labeler.core.corpus.extract.cache import ExtractionCache
from labeler.core.corpus.files import DEFAULT_RULE, FileRule
from labeler.core.corpus.folder import Corpus
from labeler.core.corpus.walk import walk

Signature = frozenset[tuple[str, int, int, int]]
"""(relative path, size, inode, mtime in ns) of every file the corpus read would see."""


@dataclass(frozen=True)
class CorpusSource:
    """The corpus folder and how spanlab.toml says to read it."""

    root: Path
    """The corpus folder."""
    encoding: str = "utf-8"
    """The documents' text encoding."""
    follow_symlinks: bool = False
    """Whether links leading outside the folder are read (`init --follow-symlinks`)."""
    rule: FileRule = DEFAULT_RULE
    """Which files are documents (spanlab.toml's `include`)."""
    cache: ExtractionCache | None = None
    """Where PDF, HTML and DOCX extractions are kept between reads (§22)."""

    def read(self) -> Corpus:
        """The corpus as it is now; CorpusError names a bad file."""
        return Corpus.read(self.root, encoding=self.encoding, follow_symlinks=self.follow_symlinks,
                           rule=self.rule, cache=self.cache)  # fmt: skip

    def signature(self) -> Signature:
        """What changes when a document is written, added, removed or replaced."""
        try:
            files = walk(self.root, follow_symlinks=self.follow_symlinks).files
        except OSError:
            return frozenset()
        seen: set[tuple[str, int, int, int]] = set()
        for name, path in files:
            try:
                st = os.stat(path)
            except OSError:
                seen.add((name, -1, -1, -1))
                continue
            seen.add((name, st.st_size, st.st_ino, st.st_mtime_ns))
        return frozenset(seen)
