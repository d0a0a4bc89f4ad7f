"""Every file and folder spanlab creates is made here (STYLE habit 18, §15): whole (written
aside, then renamed) and, in a folder a group shares, group-writable with the folder's
group, so one person's file never locks out another. The folder decides, not a setting.

A folder is shared when it is setgid, or owned by one of our groups other than our
primary one and group-writable; `init --group` makes `.spanlab/` such a folder. Modes
honour the umask for "other"; only the group bits are added.
"""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

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


def file_mode(share: Share | None) -> int:
    """0666 less the umask; group read/write added when shared (0664 or 0660)."""
    mode = 0o666 & ~umask()
    return mode | 0o660 if share else mode


def folder_mode(share: Share | None) -> int:
    """0777 less the umask; group rwx and setgid added when shared (2775 or 2770)."""
    mode = 0o777 & ~umask()
    return mode | 0o2770 if share else mode


def fit(path: Path, share: Share | None, *, folder: bool = False) -> None:
    """Give `path` (ours, just made) the group and mode its folder's sharing asks for."""
    if share is not None and path.stat().st_gid != share.gid:
        with contextlib.suppress(PermissionError):
            os.chown(path, -1, share.gid)
    path.chmod(folder_mode(share) if folder else file_mode(share))


def make_folder(path: Path) -> Path:
    """`mkdir -p`, each folder made shared like the folder it is made in."""
    missing = []
    probe = path
    while not probe.exists():
        missing.append(probe)
        probe = probe.parent
    for made in reversed(missing):
        with contextlib.suppress(FileExistsError):
            made.mkdir()
            fit(made, share_of(made.parent), folder=True)
    return path


def make_temp_folder(parent: Path, prefix: str) -> Path:
    """A fresh private-named folder in `parent` (mkdtemp), then given the folder's mode:
    mkdtemp's 0700 would hide a finished run from everyone else."""
    make_folder(parent)
    made = Path(tempfile.mkdtemp(prefix=prefix, dir=parent))
    fit(made, share_of(parent), folder=True)
    return made


def write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` whole: aside under a hidden name, then renamed over it.
    An OSError leaves the old file (or none) and no aside behind."""
    share = share_of(path.parent)
    aside = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        fd = os.open(aside, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        fit(aside, share)
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
    An existing one of ours in a shared folder gets its group bits back."""
    if str(path) == ":memory:":
        return
    make_folder(path.parent)
    share = share_of(path.parent)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        heal(path, share)
        return
    os.close(fd)
    fit(path, share)


def heal(path: Path, share: Share | None) -> None:
    """A file of ours (and its `-wal`/`-shm`) that a shared folder holds, group-writable again."""
    if share is None:
        return
    for each in (path, Path(f"{path}-wal"), Path(f"{path}-shm")):
        with contextlib.suppress(OSError):
            st = each.stat()
            if st.st_uid == os.geteuid() and (st.st_mode & 0o060) != 0o060:
                fit(each, share)


@contextlib.contextmanager
def library_writes(folder: Path) -> Iterator[None]:
    """While a library (Chroma) makes files in `folder`: a umask that keeps the group's
    bits when the folder is shared, and every file of ours below it fitted afterwards."""
    make_folder(folder)
    share = share_of(folder)
    old = os.umask(umask() & ~0o070) if share else None
    try:
        yield
    finally:
        if old is not None:
            os.umask(old)
        if share is not None:
            _fit_tree(folder, share)


def _fit_tree(folder: Path, share: Share) -> None:
    for root, dirs, files in os.walk(folder):
        for name, is_dir in [(d, True) for d in dirs] + [(f, False) for f in files]:
            path = Path(root) / name
            with contextlib.suppress(OSError):
                st = path.lstat()
                wanted = 0o2070 if is_dir else 0o060
                if st.st_uid == os.geteuid() and (st.st_mode & wanted) != wanted:
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
