"""A team's embedding caches, one per account (§21): a cached vector is trusted only as far
as its writer, so each account writes its own file and reads only its own and the leads'.

`<cache folder>/<stem>/<login>/<name>` (`.spanlab/embeddings/lead/embeddings.db`): the
account's folder is its own (2750) and the file 0640, so another member can neither write
the vectors nor plant a journal beside them; the folder holding them is sticky, so no one
renames another's away. A folder or file that is not its account's alone (owned by someone
else, writable by the group, a link) is not read, and the terminal says so. A member's
vectors never reach another account's run: what is missing is embedded again, into one's
own file. A project without `[team]`, and a cache someone chose for themselves
(`$SPANLAB_CACHE`, CI's recipe), keep the one file they always had.
"""

from __future__ import annotations

import os
import pwd
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from labeler.core.display import shown
from labeler.core.files import nofollow, sharing
from labeler.core.project.cache_place import CachePlace, CacheWhere

if TYPE_CHECKING:  # numpy and SQLite load with the first cache opened, not with a plan
    from evaluator.embedding.base import Vectors
    from evaluator.embedding.cache import EmbeddingCache

_MINE = 0o2750
"""An account's cache folder: its owner writes, the group reads, no one else."""


def _say(text: str) -> None:
    print(shown(text), file=sys.stderr)


def why_untrusted(file: Path, login: str) -> str | None:
    """Why `login`'s cache file (or its folder) is not `login`'s alone; None if it is."""
    try:
        uid = pwd.getpwnam(login).pw_uid
    except KeyError:
        return f"{login} has no account here"
    folder = file.parent
    for path in (folder, file):
        st = nofollow.lstat(path)
        if st is None:
            continue
        if path == folder and not stat.S_ISDIR(st.st_mode):
            return f"{path} is {nofollow.kind(st)}, not a folder"
        if path != folder and (not stat.S_ISREG(st.st_mode) or st.st_nlink != 1):
            return f"{path} is {nofollow.kind(st)}, not a file of its own"
        if st.st_uid != uid:
            return f"{path} belongs to {nofollow.name_of_user(st.st_uid)}, not {login}"
        if st.st_mode & 0o022:
            return f"{path} is writable by its group or others (mode {st.st_mode & 0o7777:04o})"
    return None


def _make_own(place: CachePlace) -> str | None:
    """Make the accounts' folder (sticky) and one's own (2750); why it cannot be used, or None."""
    sharing.make_folder(place.folder)
    _fit(place.folder, lambda mode: mode | stat.S_ISVTX)
    own = place.folder / place.me
    try:
        own.mkdir()
    except FileExistsError:
        pass
    else:
        _fit(own, lambda mode: (mode & 0o2000) | _MINE)
    return why_untrusted(place.own, place.me)


def make_own(place: CachePlace) -> str | None:
    """One's own folder made as the embedding cache makes it (the answer cache beside it,
    §23, keeps the same trust); why it cannot be used, or None."""
    return _make_own(place)


def _fit(folder: Path, mode: Callable[[int], int]) -> None:
    """Change the mode of a folder we made, on its descriptor (never another's, §20)."""
    fd = nofollow.open_folder(folder)
    try:
        st = os.fstat(fd)
        if st.st_uid == os.geteuid():
            os.fchmod(fd, mode(stat.S_IMODE(st.st_mode)))
    finally:
        os.close(fd)


class AccountCaches:
    """One's own cache (read and written) and the leads' (read): an EmbeddingCache's face."""

    def __init__(self, place: CachePlace) -> None:
        from evaluator.embedding.cache import EmbeddingCache

        self.place = place
        """Where the accounts' caches are."""
        self.path = str(place.own)
        """The file written (what messages name)."""
        why = _make_own(place)
        if why is not None:
            _say(f"warning: your embedding cache is not used, new vectors are not kept: {why}")
        self.own = EmbeddingCache(":memory:") if why else EmbeddingCache(place.own, private=True)
        """One's own cache (in memory when its folder is not one's own)."""
        self.refused = self.own.refused
        """Why one's own cache is only read (it is not: it is one's own)."""
        self.readers = self._leads()
        """The leads' caches, read only."""
        if nofollow.lstat(place.shared) is not None:
            _say(f"note: {place.shared} (the group's shared embedding cache) is not read in a "
                 "team project: vectors count only from your own cache and the leads' "
                 f"(under {place.folder}); delete it once no older spanlab uses it")  # fmt: skip

    def _leads(self) -> list[EmbeddingCache]:
        from evaluator.embedding.cache import EmbeddingCache

        found = []
        for lead in dict.fromkeys(self.place.leads):
            if lead == self.place.me or nofollow.lstat(self.place.of(lead)) is None:
                continue
            why = why_untrusted(self.place.of(lead), lead)
            if why is None:
                cache = EmbeddingCache(self.place.of(lead), private=True, reader=True)
                why = why_untrusted(self.place.of(lead), lead)  # again, once open
                if why is None:
                    found.append(cache)
                    continue
                cache.close()
            _say(f"warning: lead {lead}'s embedding cache is not read: {why}")
        return found

    def get_many(
        self, fingerprint: str, texts: Sequence[str], dim: int | None = None
    ) -> dict[int, Vectors]:
        """Index in `texts` -> vector, from one's own cache first, then each lead's."""
        found = self.own.get_many(fingerprint, texts, dim)
        for reader in self.readers:
            rest = [i for i in range(len(texts)) if i not in found]
            if not rest:
                break
            more = reader.get_many(fingerprint, [texts[i] for i in rest], dim)
            found.update({rest[j]: v for j, v in more.items()})
        return found

    def put_many(self, fingerprint: str, texts: Sequence[str], vectors: Vectors) -> None:
        self.own.put_many(fingerprint, texts, vectors)

    def measured(self, fingerprint: str, texts: int, seconds: float) -> None:
        self.own.measured(fingerprint, texts, seconds)

    def by_model(self) -> dict[str, int]:
        return self.own.by_model()

    def count(self, fingerprint: str | None = None) -> int:
        return self.own.count(fingerprint)

    def close(self) -> None:
        for cache in (self.own, *self.readers):
            cache.close()

    def __enter__(self) -> AccountCaches:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_cache(where: CacheWhere) -> EmbeddingCache | AccountCaches:
    """The cache at `where`: a team's accounts, one file, or memory (None)."""
    from evaluator.embedding.cache import EmbeddingCache

    if isinstance(where, CachePlace):
        return AccountCaches(where)
    return EmbeddingCache(where or ":memory:")
