"""Every file and folder spanlab creates or reopens in a project goes through here (STYLE
habit 18, §15, §20): whole (written aside, then renamed), never through a link, and, in a
folder a group shares, the group's (files 0660, folders 2770: no bits for "other").

A folder is shared when it is setgid, or owned by one of our groups other than our
primary one and group-writable; `init --group` makes `.spanlab/` such a folder. Modes are
changed on an open descriptor, and only on what spanlab made (`nofollow.ours`): a name
another member may have replaced is never followed (`labeler.core.files.nofollow`).
"""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import secrets
import stat
import tempfile
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from labeler.core.errors import UnsafeFile
from labeler.core.files import nofollow

FULL_ERRNOS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG)
"""The errors of a disk (or a size limit) that takes no more."""
_FULL_DISK = ("database or disk is full", "disk I/O error")
"""SQLite's words for a write the disk refused."""


@dataclass(frozen=True)
class Share:
    """The group a folder shares what is made in it with."""

    gid: int
    """The group's id."""
    why: str
    """How the folder says so (`setgid folder`, `group-owned folder`)."""


def umask() -> int:
    """The process umask, read without changing it where Linux allows."""
    with contextlib.suppress(OSError, ValueError):
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    old = os.umask(0o022)
    os.umask(old)
    return old


def share_of(folder: Path) -> Share | None:
    """How `folder` shares what is made in it; None when it is one person's."""
    try:
        st = folder.stat()
    except OSError:
        return None
    if st.st_mode & stat.S_ISGID:
        return Share(st.st_gid, "setgid folder")
    ours = st.st_gid in os.getgroups() or os.geteuid() == 0
    if st.st_gid != os.getgid() and ours and st.st_mode & stat.S_IWGRP:
        return Share(st.st_gid, "group-owned folder")
    return None


_PRIVATE: ContextVar[bool] = ContextVar("spanlab_private_files", default=False)
"""While set (`private_files`), what is made is its writer's alone."""


@contextlib.contextmanager
def private_files(on: bool = True) -> Iterator[None]:
    """While on, every file made here is its writer's alone (0600, folders 2700/0700): a
    lead's run folder or export that holds versions blind keeps from the group (§21)."""
    token = _PRIVATE.set(on)
    try:
        yield
    finally:
        _PRIVATE.reset(token)


_READ_ONLY: ContextVar[bool] = ContextVar("spanlab_group_reads", default=False)
"""While set (`group_reads`), what is made the group may read but not change."""


@contextlib.contextmanager
def group_reads(on: bool = True) -> Iterator[None]:
    """While on, every file made here the group reads and only its writer changes (0640,
    folders 2750): a finished run, which no member may rewrite or replace (§21)."""
    token = _READ_ONLY.set(on)
    try:
        yield
    finally:
        _READ_ONLY.reset(token)


def file_mode(share: Share | None) -> int:
    """0660 when shared (the group reads and writes, "other" nothing); else 0666 less the
    umask; 0600 inside `private_files`; 0640 inside `group_reads`."""
    if _PRIVATE.get():
        return 0o600
    mode = 0o660 if share else 0o666 & ~umask()
    return mode & ~0o022 if _READ_ONLY.get() else mode


def folder_mode(share: Share | None) -> int:
    """2770 when shared (setgid: what is made below stays the group's); else 0777 less the
    umask; 2700 (0700) inside `private_files`; 2750 inside `group_reads`."""
    if _PRIVATE.get():
        return 0o2700 if share else 0o700
    mode = 0o2770 if share else 0o777 & ~umask()
    return mode & ~0o022 if _READ_ONLY.get() else mode


def fit_open(fd: int, share: Share | None, *, folder: bool = False, private: bool = False) -> None:
    """Give the file or folder open as `fd` (ours, just made) its sharing's group and mode;
    `private`: the group's, but no one else's to read or write yet."""
    if share is not None and os.fstat(fd).st_gid != share.gid:
        with contextlib.suppress(PermissionError):
            os.fchown(fd, -1, share.gid)
    mode = folder_mode(share) if folder else file_mode(share)
    os.fchmod(fd, mode & ~0o077 if private else mode)


def fit(path: Path, share: Share | None, *, folder: bool = False) -> None:
    """`fit_open` of `path`, opened without following a link; left alone unless it is ours."""
    fd = nofollow.open_folder(path) if folder else nofollow.open_regular(path, os.O_RDONLY)
    try:
        if nofollow.ours(os.fstat(fd)):
            fit_open(fd, share, folder=folder)
    finally:
        os.close(fd)


def make_folder(path: Path) -> Path:
    """`mkdir -p`, each folder made shared like the folder it is made in (a link put in
    place of one just made is refused, not followed)."""
    missing = []
    probe = path
    while not os.path.lexists(probe):
        missing.append(probe)
        probe = probe.parent
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):
            made.mkdir()
            fit(made, share_of(made.parent), folder=True)
    return path


def make_temp_folder(parent: Path, prefix: str) -> Path:
    """A fresh folder in `parent` (mkdtemp), private while it is filled (0700; in a shared
    folder 2700 and the group's, so what is written in it is the group's): no other member
    can plant a link or a FIFO in it meanwhile. `publish_folder` opens it to the group."""
    make_folder(parent)
    made = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    fd = nofollow.open_folder(made)
    try:
        fit_open(fd, share_of(parent), folder=True, private=True)
    finally:
        os.close(fd)
    return made


def publish_folder(aside: Path, final: Path) -> None:
    """A folder made by `make_temp_folder`, now whole: given its parent's mode (mkdtemp's
    0700 would hide a finished run from everyone else), then renamed to `final`."""
    fit(aside, share_of(aside.parent), folder=True)
    os.rename(aside, final)


def write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole: aside under a hidden name, then renamed over it.
    An existing `path` that is not a regular file (a FIFO, a device, a folder, a link) is
    refused and left as it is. An OSError leaves the old file (or none) and no aside behind."""
    nofollow.require_output(path)
    share = share_of(path.parent)
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = nofollow.open_regular(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            fit_open(out.fileno(), share)
        os.replace(aside, path)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise


def write_text(path: Path, text: str) -> None:
    """`write_bytes` of UTF-8 text, newlines as given."""
    write_bytes(path, text.encode("utf-8"))


def create_empty(path: Path) -> None:
    """Create an empty file (an SQLite database, a lock) with the folder's sharing. SQLite
    makes a new database 0644 whatever the umask, then gives `-wal`/`-shm` the database's
    mode, so a database made here keeps its WAL group-writable for whoever opens it first.
    It and its `-wal`/`-shm` are then checked (`heal`): a link, FIFO or device is refused."""
    if str(path) == ":memory:":
        return
    make_folder(path.parent)
    share = share_of(path.parent)
    try:
        fd = nofollow.open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        pass
    else:
        try:
            fit_open(fd, share)
        finally:
            os.close(fd)
    heal(path, share)


def create_private(path: Path) -> None:
    """A file one account alone writes (a team member's embedding cache, §21), made 0640
    whatever the umask: the folder's group reads it, no one else writes it. Checked as
    `create_empty` checks a shared one (no link, FIFO or device)."""
    try:
        fd = nofollow.open_regular(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o640)
    except FileExistsError:
        pass
    else:
        try:
            os.fchmod(fd, 0o640)  # whatever the umask
        finally:
            os.close(fd)
    heal(path, None)


def heal(path: Path, share: Share | None) -> None:
    """`path` and its `-wal`/`-shm`: each absent or a regular file with one link (else
    refused); in a shared folder, one of ours (`nofollow.ours`) that lost its group bits
    gets them back, changed on the descriptor of the file the name held when checked."""
    for each in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        st = nofollow.require_regular(each, single=True)
        if share is None or st is None or not nofollow.ours(st) or st.st_mode & 0o060 == 0o060:
            continue
        with contextlib.suppress(PermissionError, FileNotFoundError):
            fd = nofollow.open_regular(each, os.O_RDONLY)
            try:
                now = os.fstat(fd)
                if (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino) and nofollow.ours(now):
                    fit_open(fd, share)
            finally:
                os.close(fd)


def open_lock(path: Path) -> IO[str]:
    """A lock file (a lease, a build lock), made when missing, opened for `flock` (held
    open: the lock lives with it). flock needs no write access, so another account's lock
    file that is not the group's still serves; a link, FIFO or device is refused at once."""
    create_empty(path)
    try:
        return os.fdopen(nofollow.open_regular(path, os.O_WRONLY | os.O_APPEND), "a")
    except PermissionError:
        return os.fdopen(nofollow.open_regular(path, os.O_RDONLY), "r")


@contextlib.contextmanager
def library_writes(folder: Path) -> Iterator[None]:
    """While a library (Chroma) makes files in `folder`: a umask that gives the group what
    the folder's sharing asks for, and afterwards every file and folder the library made
    there (absent before, ours) fitted. A link, FIFO or device below `folder` is refused
    before it starts."""
    make_folder(folder)
    share = share_of(folder)
    before = _inventory(folder)
    old = os.umask(umask() & ~0o070 | 0o007) if share else None
    try:
        yield
    finally:
        if old is not None:
            os.umask(old)
        if share is not None:
            _fit_made(folder, share, before)


def _inventory(folder: Path) -> set[tuple[int, int]]:
    """(device, inode) of all below `folder`; a link, FIFO or device there (the library
    would follow or open it) is refused."""
    found = set()
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = Path(root) / name
            st = nofollow.lstat(path)
            if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
                raise nofollow.refusal(path, st, nofollow.IN_FOLDER)
            if st is not None:
                found.add((st.st_dev, st.st_ino))
    return found


def _fit_made(folder: Path, share: Share, before: set[tuple[int, int]]) -> None:
    for root, dirs, files in os.walk(folder):
        for name, is_dir in [(d, True) for d in dirs] + [(f, False) for f in files]:
            path = Path(root) / name
            st = nofollow.lstat(path)
            if st is None or (st.st_dev, st.st_ino) in before or not nofollow.ours(st):
                continue
            with contextlib.suppress(OSError, UnsafeFile):
                fit(path, share, folder=is_dir)


def share_with(folder: Path, group: str) -> Share:
    """Make `folder` (`.spanlab/`) one that `group` shares: owned by it, setgid, group
    rwx, so all that is made below it inherits the group (`init --group`). A group that
    does not exist, or that we are not in, is a ValueError saying so."""
    try:
        gid = grp.getgrnam(group).gr_gid
    except KeyError:
        raise ValueError(f"there is no group {group!r} on this system") from None
    if gid not in os.getgroups() and gid != os.getgid() and os.geteuid() != 0:
        raise ValueError(f"you are not in group {group!r} (see `id`; log in again after adding)")
    make_folder(folder)
    share = Share(gid, f"group {group} (spanlab.toml)")
    fit(folder, share, folder=True)
    return share


def disk_full(message: str) -> bool:
    """Whether an SQLite (or Chroma) error says the disk took no more."""
    return any(words in message for words in _FULL_DISK)


def write_owned(path: Path, data: bytes, mode: int = 0o640) -> None:
    """Write `data` to `path` whole, as a file only its writer may change (`mode`, no group
    write: a writer's own record in a sticky shared folder, §21). Written aside, then
    renamed over it; what is at `path` and is not a regular file is refused, left as it is."""
    nofollow.require_output(path)
    aside = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = nofollow.open_regular(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fchmod(out.fileno(), mode)
        os.replace(aside, path)
    except BaseException:
        aside.unlink(missing_ok=True)
        raise
