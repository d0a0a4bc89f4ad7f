"""Documents an import brings (SQuAD contexts), written into the corpus folder (design §13).

Everything is checked before the first byte is written: each name is an id a corpus read
would find again, and no folder on its way is a symlink or a file, so nothing lands
outside the corpus. Each file is written aside under a hidden name and linked into place
(never over an existing file); `Added.remove` takes back what was written.
"""

from __future__ import annotations

import contextlib
import functools
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from labeler.core.corpus.canonical import canonical_from_bytes, doc_hash
from labeler.core.corpus.folder import Corpus, Document, check_new_doc_id
from labeler.core.errors import CorpusError
from labeler.core.files import sharing
from labeler.core.files.access import refused_write


@dataclass
class Added:
    """What one import wrote into the corpus folder, so it can be taken back."""

    files: list[Path] = field(default_factory=list)
    """Documents created."""
    folders: list[Path] = field(default_factory=list)
    """Folders created, outermost first."""

    def remove(self) -> None:
        """Take back every file and folder written (folders only while empty)."""
        for path in reversed(self.files):
            path.unlink(missing_ok=True)
        for folder in reversed(self.folders):
            with contextlib.suppress(OSError):  # not empty: someone else wrote there
                folder.rmdir()


def _encoded(doc_id: str, text: str, encoding: str) -> bytes:
    """The bytes to write, which must read back as exactly `text` in the corpus codec."""
    try:
        data = text.encode(encoding)
    except (UnicodeEncodeError, LookupError) as exc:
        raise CorpusError(f"the text cannot be written in {encoding}: {exc}", key=doc_id) from None
    if canonical_from_bytes(data, file=doc_id, encoding=encoding) != text:
        raise CorpusError(f"the text would not read back the same in {encoding}", key=doc_id)
    return data


def _check_path(root: Path, doc_id: str) -> None:
    """Every folder on the way is a real folder, and the file, if present, a plain file."""
    path = root
    parts = PurePosixPath(doc_id).parts
    for i, part in enumerate(parts):
        path = path / part
        if not os.path.lexists(path):
            return
        last = i == len(parts) - 1
        if path.is_symlink():
            raise CorpusError(
                "an import would write through a symlink; nothing was written",
                file=str(path),
                hint="import into a corpus without links on the way, or rename the document",
            )
        if not last and not path.is_dir():
            raise CorpusError("an import needs a folder here, not a file", file=str(path))
        if last and not path.is_file():
            raise CorpusError("an import would replace something not a file", file=str(path))


def check_new(root: Path, corpus: Corpus, new: dict[str, str], encoding: str) -> Corpus:
    """Validate every document an import brings; the corpus with them, nothing written."""
    docs = dict(corpus.documents)
    for doc_id, text in sorted(new.items()):
        check_new_doc_id(doc_id)
        if doc_id in docs and docs[doc_id].text != text:
            raise CorpusError("document exists with different text", file=str(root / doc_id))
        _check_path(root, doc_id)
        _encoded(doc_id, text, encoding)
        docs[doc_id] = Document(doc_id, text, doc_hash(text))
    return Corpus(docs, root=root, skipped=corpus.skipped, passed_over=corpus.passed_over)


def write_new(root: Path, corpus: Corpus, new: dict[str, str], encoding: str) -> Added:
    """Write the documents `check_new` accepted and `corpus` does not hold yet."""
    added = Added()
    try:
        for doc_id, text in sorted(new.items()):
            path = root / doc_id
            if doc_id not in corpus and not path.exists():
                _make_folders(root, PurePosixPath(doc_id).parent, added)
                _write_whole(path, _encoded(doc_id, text, encoding))
                added.files.append(path)
    except BaseException:
        added.remove()
        raise
    return added


def _make_folders(root: Path, rel: PurePosixPath, added: Added) -> None:
    path = root
    for part in rel.parts:
        path = path / part
        if not os.path.lexists(path):
            _os_call(path, path.mkdir)
            added.folders.append(path)
            share = sharing.share_of(path.parent)
            _os_call(path, functools.partial(sharing.fit, path, share, folder=True))
        if path.is_symlink() or not path.is_dir():
            raise CorpusError("an import would write through a symlink or file", file=str(path))


def _write_whole(path: Path, data: bytes) -> None:
    """Write aside under a hidden name, then link into place; never over an existing file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.spanlab-tmp")
    try:
        with tmp.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        sharing.fit(tmp, sharing.share_of(path.parent))
        _os_call(path, lambda: os.link(tmp, path))
    except OSError as exc:
        raise _disk_error(path, exc) from None
    finally:
        tmp.unlink(missing_ok=True)


def _os_call(path: Path, call: Callable[[], object]) -> None:
    try:
        call()
    except FileExistsError:
        raise CorpusError("another process created this file meanwhile", file=str(path)) from None
    except OSError as exc:
        raise _disk_error(path, exc) from None


def _disk_error(path: Path, exc: OSError) -> CorpusError:
    message, hint = refused_write(path, exc)
    return CorpusError(f"{message}; nothing was kept", file=str(path), hint=hint)
