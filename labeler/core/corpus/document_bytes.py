"""A document's bytes, read the one way every corpus read takes (§13, §20, §21).

A corpus may sit in a shared folder where a member swaps a file after it was listed: so a
document is opened without blocking, never through a link unless the project follows links
(a link inside the corpus, which the listing read, resolves here to its target, itself
opened without following), refused unless a regular file, and sized before it is read.
"""

from __future__ import annotations

import os
from pathlib import Path

from labeler.core.corpus.extract.base import SourceError
from labeler.core.corpus.extract.read import MAX_SOURCE_BYTES, is_source
from labeler.core.corpus.walk import shown
from labeler.core.display import shown as display_shown
from labeler.core.errors import CorpusError, UnsafeFile
from labeler.core.files import nofollow
from labeler.core.files.reading import read_bounded
from labeler.core.typed import Place, Refusal

MAX_TEXT_BYTES = 256 << 20
"""Largest text document (.md, .txt) read at all."""


class _Document:
    """The place of a document's bytes: a source's refusal is a SourceError (the source is
    passed over, named), a text's a CorpusError; both name the file."""

    def __init__(self, doc_id: str, file: str) -> None:
        self.doc_id, self.file = doc_id, file

    def at(self, key: str) -> Place:
        return self

    def refuse(self, refusal: Refusal) -> Exception:
        error = SourceError if is_source(self.doc_id) else CorpusError
        return error(f"the file {refusal.detail}", file=self.file)


def limit_of(doc_id: str) -> int:
    """How many bytes a document may hold: a source's bound, or a text's."""
    return MAX_SOURCE_BYTES if is_source(doc_id) else MAX_TEXT_BYTES


def in_folder(root: Path, doc_id: str, follow: bool) -> Path:
    """The path a document is opened at: `root/doc_id`, or, not following links, the target
    of a link there that stays inside the corpus folder (as the listing read it)."""
    path = root / doc_id
    if follow or not path.is_symlink():
        return path
    target, real_root = os.path.realpath(path), os.path.realpath(root)
    inside = target.startswith(real_root.rstrip(os.sep) + os.sep)
    return Path(target) if inside else path


def document_bytes(doc_id: str, path: Path, *, follow: bool) -> bytes:
    """The bytes of the regular file at `path`; a link there (unless `follow`), a FIFO, a
    device or an oversized file is refused naming the file (SourceError for a source)."""
    file = shown(str(path))
    try:
        return read_bounded(path, limit_of(doc_id), _Document(doc_id, file), follow=follow)
    except UnsafeFile:  # a link where the corpus was listed with a file
        st = nofollow.lstat(path)
        what = display_shown(nofollow.described(path, st), lines=False) if st else "link"
        error = SourceError if is_source(doc_id) else CorpusError
        raise error(f"a {what} is here: not followed", file=file,
                    hint="follow_symlinks = true reads what links point to") from None  # fmt: skip
    except OSError as exc:
        raise CorpusError(f"cannot read: {exc.strerror}", file=file) from None
