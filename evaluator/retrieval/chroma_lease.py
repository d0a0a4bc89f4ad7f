"""One live collection per candidate in an embedded Chroma folder: leases and pruning (§6).

A candidate's collection follows the corpus in place (`chroma_follow`); collections an
earlier spanlab made per corpus version are superseded by it and removed once no run uses
them. Leases also guard a corpus version inside a collection. A run holds a shared lock on
a lease file for every collection (and version) it opens, taken before it opens it and
kept until the run ends (`session`; without one, until the process ends); removal takes
the lock exclusively without waiting, so nothing in use is removed under a run — it is
left for a later run or `spanlab cache --prune`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import re
import shutil
import sqlite3
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from labeler.core.files import nofollow, sharing

FAMILY = "spanlab_family"
"""Metadata key: which candidate and model a collection indexes, whatever the corpus."""
BUILT = "spanlab_built"
"""Metadata key: when the collection was completed (ns since the epoch)."""
COMPLETE = "spanlab_complete"
"""Metadata key: every chunk of the collection's (listed) corpus versions is in."""
VERSIONS = "spanlab_versions"
"""Metadata key (embedded family collections): JSON {corpus hash: chunk count} of the corpus
versions whose chunks are all in the collection."""
MARK = "spanlab_mark"
"""Metadata key of a server's marker collection (a build lock or a lease, `chroma_marks`):
not an index."""
_held: dict[str, tuple[IO[str], int]] = {}
"""Lease files this process holds, by path, with how many sessions hold each (the handle
stays open: the lock lives with it)."""
_lock = threading.Lock()
_local = threading.local()


@contextlib.contextmanager
def session() -> Iterator[None]:
    """Leases taken inside (by this thread) are given back when it ends."""
    taken: list[Callable[[], None]] = []
    outer = getattr(_local, "taken", None)
    _local.taken = taken
    try:
        yield
    finally:
        _local.taken = outer
        for release in reversed(taken):
            release()


def on_release(release: Callable[[], None]) -> None:
    """Call `release` when this thread's lease session ends (a server's lease marker);
    without a session it is never called, and the marker goes stale."""
    taken = getattr(_local, "taken", None)
    if taken is not None:
        taken.append(release)


def _release(path: str) -> None:
    with _lock:
        handle, count = _held[path]
        if count > 1:
            _held[path] = (handle, count - 1)
            return
        del _held[path]
    fcntl.flock(handle, fcntl.LOCK_UN)
    handle.close()


def family(splitter_fingerprint: str, embedding_fingerprint: str) -> str:
    payload = f"{splitter_fingerprint}\x1f{embedding_fingerprint}".encode()
    return hashlib.sha256(payload).hexdigest()[:24]


def _lease_path(folder: Path, name: str) -> Path:
    return folder / f".{name}.lease"


def hold(folder: Path, name: str) -> None:
    """Mark collection `name` in use by this process until it ends."""
    key = str(_lease_path(folder, name))
    taken = getattr(_local, "taken", None)
    with _lock:
        if key in _held:
            handle, count = _held[key]
            _held[key] = (handle, count + 1)
        else:
            sharing.make_folder(folder)
            _held[key] = (_locked_shared(Path(key)), 1)
    if taken is not None:
        taken.append(lambda: _release(key))


def _locked_shared(path: Path) -> IO[str]:
    """The lease file, held shared. A remover unlinks a lease file it held alone, so a
    lock won on a file no longer at `path` guards nothing: open it again until the lock
    is on the file that is there."""
    while True:
        handle = sharing.open_lock(path)  # the group's: another member's run takes it too
        fcntl.flock(handle, fcntl.LOCK_SH)
        try:
            if os.fstat(handle.fileno()).st_ino == path.stat().st_ino:
                return handle
        except FileNotFoundError:
            pass
        handle.close()


@contextlib.contextmanager
def unused(folder: Path, name: str) -> Iterator[bool]:
    """Yield True (holding it exclusively) when no run holds `name`'s lease, else False."""
    path = _lease_path(folder, name)
    if str(path) in _held:  # this very process uses it
        yield False
        return
    with _exclusive(path, remove=True) as free:
        yield free


@dataclass(frozen=True)
class Collection:
    """A spanlab collection as `spanlab cache` lists it."""

    name: str
    """Its Chroma name."""
    candidate: str
    """The candidate that built it."""
    chunks: int
    """Chunks it holds."""
    complete: bool
    """Whether its build finished."""
    family: str
    """Candidate-and-model key ('' for collections built before families were recorded)."""
    built: int
    """When it was completed (0 unknown)."""
    versions: int = 0
    """Corpus versions it holds whole (0: a collection of one corpus version, by its name)."""


def collections(client: Any) -> list[Collection]:
    """Every spanlab collection of a client."""
    return collections_of(client.list_collections())


def collections_of(listed: Sequence[Any]) -> list[Collection]:
    """The spanlab collections among Chroma's `listed` (markers aside)."""
    found = []
    for col in listed:
        if not col.name.startswith("spanlab-"):
            continue
        meta = col.metadata or {}
        if meta.get(MARK):
            continue
        found.append(Collection(
            col.name, str(meta.get("candidate", "")), _count(meta, "chunks"),
            bool(meta.get(COMPLETE)), str(meta.get(FAMILY, "")), _count(meta, BUILT),
            len(versions(meta)),
        ))  # fmt: skip
    return found


def _count(meta: Mapping[str, Any], key: str) -> int:
    """A count in a collection's metadata; 0 when another writer put anything else there."""
    value = meta.get(key, 0)
    return int(value) if isinstance(value, int | float) and 0 <= value < 2**63 else 0


_MAX_VERSIONS = 1 << 20
"""Longest version list read from metadata (characters): thousands of versions fit."""


def versions(meta: Mapping[str, Any]) -> dict[str, int]:
    """The versions a collection's metadata lists ({} when none or unreadable)."""
    text = meta.get(VERSIONS, "{}")
    if not isinstance(text, str) or len(text) > _MAX_VERSIONS:
        return {}
    with contextlib.suppress(
        TypeError, ValueError, OverflowError, RecursionError
    ):  # another writer's text
        found = json.loads(text)
        if isinstance(found, dict):
            return {str(k): int(v) for k, v in found.items()}
    return {}


def superseded(found: list[Collection], keep: set[str] | None = None) -> list[Collection]:
    """Collections no run needs: an incomplete one, or one with a newer complete collection of
    its family (`keep` names collections to leave alone whatever their age)."""
    newest: dict[str, Collection] = {}
    for c in found:
        if c.complete and c.family and (c.family not in newest or c.built > newest[c.family].built):
            newest[c.family] = c
    keep = keep or set()
    return [c for c in found if c.name not in keep and (
        not c.complete or (c.family in newest and newest[c.family].name != c.name))]  # fmt: skip


def remove_unused(client: Any, folder: Path, doomed: list[Collection]) -> list[Collection]:
    """Drop each collection of `doomed` that no run holds (and none is building); the dropped."""
    from chromadb.errors import NotFoundError

    dropped = []
    for c in doomed:
        building = folder / f".{c.name}.build-lock"
        with unused(folder, c.name) as free, _not_building(building) as idle:
            if free and idle:
                with contextlib.suppress(NotFoundError, ValueError):
                    client.delete_collection(c.name)
                dropped.append(c)
    if dropped:
        sweep_segments(folder)
    return dropped


@contextlib.contextmanager
def _not_building(lock: Path) -> Iterator[bool]:
    if not lock.exists():
        yield True
        return
    with _exclusive(lock, remove=False) as free:
        yield free


@contextlib.contextmanager
def _exclusive(path: Path, *, remove: bool) -> Iterator[bool]:
    """Yield True holding `path`'s lock alone (no one else holds it), else False at once;
    `remove` deletes the lock file before letting go (a lease nobody holds any more)."""
    try:
        sharing.create_empty(path)  # a link, FIFO or device there is refused, not opened
        handle = os.fdopen(nofollow.open_regular(path, os.O_WRONLY | os.O_APPEND), "a")
    except PermissionError:  # another account's lock file: not ours to take or remove
        yield False
        return
    with handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        try:
            yield True
        finally:
            if remove:
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            fcntl.flock(handle, fcntl.LOCK_UN)


_SEGMENT_DIR = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\Z")


def sweep_segments(folder: Path) -> int:
    """Remove the index folders of segments Chroma no longer knows (its delete_collection
    leaves them on disk); how many. Folders are listed before the known segments are read,
    so a collection being created meanwhile (its row is written before its folder) is kept."""
    dirs = [p for p in folder.iterdir() if p.is_dir() and _SEGMENT_DIR.match(p.name)]
    uri = f"file:{folder / 'chroma.sqlite3'}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True, timeout=5)) as conn:
        known = {str(row[0]) for row in conn.execute("SELECT id FROM segments")}
    gone = [p for p in dirs if p.name not in known]
    for path in gone:
        shutil.rmtree(path, ignore_errors=True)
    return len(gone)


def folder_bytes(folder: Path) -> int:
    """Bytes on disk below `folder`."""
    total = 0
    for dirpath, _dirs, files in os.walk(folder):
        for f in files:
            with contextlib.suppress(OSError):
                total += (Path(dirpath) / f).stat().st_size
    return total
