"""Extractions kept between corpus reads (§22), so a read does not parse every PDF again.

One file per (source bytes, extractor name, version, settings), in the running account's
own folder (`.spanlab/extractions/<login>/`, like the embedding caches of §21): an entry is
read only when that account wrote it, no one else can write it, and its text still has the
digest stored with it, and its extractor and source digest are the ones asked for. Anything
else is a miss: the source is extracted again, and a planted entry never changes a text.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from labeler.core.corpus.extract import stored
from labeler.core.corpus.extract.base import Extracted, Extractor
from labeler.core.errors import UnsafeFile
from labeler.core.files import nofollow, sharing

KEY = "extraction-cache/1"
"""Version of the key below."""
MAX_ENTRY = 256 << 20
"""Largest entry read back."""


def key(source_digest: str, extractor: Extractor) -> str:
    """The entry's name: sha256 over the key version, the extractor and the source digest."""
    line = f"{KEY}\n{extractor.fingerprint()}\n{source_digest}\n"
    return hashlib.sha256(line.encode("utf-8")).hexdigest()


def _own(st: os.stat_result) -> bool:
    """The running account's, a regular file with one link, written by no one else."""
    return (st.st_uid == os.geteuid() and stat.S_ISREG(st.st_mode) and st.st_nlink == 1
            and not st.st_mode & 0o022)  # fmt: skip


def _own_folder(folder: Path) -> bool:
    """The account's folder and the one holding it are real folders (no link on the way),
    and the account's is its own alone: a member who made `extractions/<login>` first, or
    put a link there, gets no entry written into her folder nor read from it."""
    parent, own = nofollow.lstat(folder.parent), nofollow.lstat(folder)
    return (parent is not None and stat.S_ISDIR(parent.st_mode) and own is not None
            and stat.S_ISDIR(own.st_mode) and own.st_uid == os.geteuid()
            and not own.st_mode & 0o022)  # fmt: skip


@dataclass(frozen=True)
class ExtractionCache:
    """One account's extractions."""

    folder: Path
    """The account's own folder of entries."""

    def get(self, source_digest: str, extractor: Extractor) -> Extracted | None:
        """The kept extraction, or None (missing, not one's own, damaged, or another's)."""
        path = self.folder / f"{key(source_digest, extractor)}.json"
        if not _own_folder(self.folder):
            return None
        try:
            fd = nofollow.open_regular(path, os.O_RDONLY)
        except (OSError, ValueError, UnsafeFile):  # missing, or a link or FIFO put there
            return None
        with os.fdopen(fd, "rb") as handle:
            st = os.fstat(fd)
            if not _own(st) or st.st_size > MAX_ENTRY:
                return None
            raw = handle.read(MAX_ENTRY + 1)
        try:
            source, found = stored.loads_keyed(raw)
        except stored.Damaged:
            return None
        return found if source == source_digest and found.extractor == extractor else None

    def put(self, source_digest: str, found: Extracted) -> None:
        """Keep an extraction; a folder or disk that refuses it costs only the next read."""
        path = self.folder / f"{key(source_digest, found.extractor)}.json"
        with contextlib.suppress(OSError, ValueError, UnsafeFile):
            sharing.make_folder(self.folder.parent)  # the team's: each member makes hers
            _sticky(self.folder.parent)
            with sharing.private_files():
                sharing.make_folder(self.folder)
                if _own_folder(self.folder) and nofollow.lstat(path) is None:
                    sharing.write_bytes(path, stored.dumps(found, source_digest))


def _sticky(folder: Path) -> None:
    """The accounts' folder, when ours, made sticky (as the embedding caches', §21): no
    member renames another's folder away to put her own in its place."""
    fd = nofollow.open_folder(folder)
    try:
        st = os.fstat(fd)
        if st.st_uid == os.geteuid() and not st.st_mode & stat.S_ISVTX:
            os.fchmod(fd, stat.S_IMODE(st.st_mode) | stat.S_ISVTX)
    finally:
        os.close(fd)


def account_folder(spanlab_dir: Path, login: str) -> Path:
    """`.spanlab/extractions/<login>`: the login passed the name validator before this."""
    return spanlab_dir / "extractions" / login
