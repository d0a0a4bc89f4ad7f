"""Opening a project's files without following a link (§20). In a folder a group shares
the next member is a possible attacker: a name spanlab uses may hold a link, a FIFO or a
device she planted, so every open here is `O_NOFOLLOW`, checked by `fstat`, and what is
not a regular file is refused naming it, its owner and its kind.

"A file spanlab created" (the only kind whose mode spanlab changes, see `ours`): a regular
file, owned by the account running, with one link, opened here without following a link,
and checked again by `fstat` on that descriptor (same inode as the name showed).
"""

from __future__ import annotations

import contextlib
import errno
import grp
import os
import pwd
import stat
from pathlib import Path

from labeler.core.errors import UnsafeFile

_KINDS = {
    stat.S_IFLNK: "symbolic link", stat.S_IFIFO: "FIFO", stat.S_IFCHR: "character device",
    stat.S_IFBLK: "block device", stat.S_IFSOCK: "socket", stat.S_IFDIR: "folder",
}  # fmt: skip
"""What a file that is not a regular one is called in a refusal."""
OPEN_FLAGS = os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY | os.O_CLOEXEC
"""Every open of a project file: no link followed, no wait on a FIFO, no terminal taken."""
KEEPS = "keeps a regular file of its own"
"""What a refusal says spanlab wants at a name of a project file."""
IN_FOLDER = "keeps only regular files and folders of its own"
"""What a refusal says spanlab wants below a folder a library (Chroma) writes in."""
WRITES = "writes a regular file (never a FIFO, device, folder or link)"
"""What a refusal says spanlab wants at an output path."""
_REFUSED_OPEN = (errno.ELOOP, errno.ENXIO, errno.EISDIR, errno.ENOTDIR, errno.EWOULDBLOCK)
"""What `os.open` says for a link (`O_NOFOLLOW`), a FIFO without reader, a folder."""


def name_of_user(uid: int) -> str:
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        return str(uid)


def name_of_group(gid: int) -> str:
    try:
        return grp.getgrgid(gid).gr_name
    except KeyError:
        return str(gid)


def kind(st: os.stat_result) -> str:
    """`regular file`, `symbolic link`, `FIFO`, `character device`, `folder`, …"""
    if stat.S_ISREG(st.st_mode):
        return "regular file" if st.st_nlink == 1 else f"regular file with {st.st_nlink} links"
    return _KINDS.get(stat.S_IFMT(st.st_mode), "special file")


def described(path: Path, st: os.stat_result) -> str:
    """`symbolic link owned by spl19mallory (to /home/lead/.bashrc)`."""
    said = f"{kind(st)} owned by {name_of_user(st.st_uid)}"
    if stat.S_ISLNK(st.st_mode):
        with contextlib.suppress(OSError):
            said += f" (to {os.readlink(path)})"
    return said


def refusal(path: Path, st: os.stat_result, wanted: str = KEEPS, fix: str = "") -> UnsafeFile:
    """The error for `path` holding something other than what spanlab keeps (or writes)
    there: what it is, whose, and that nothing was opened or replaced."""
    owner = name_of_user(st.st_uid)
    return UnsafeFile(
        f"a {described(path, st)} is here, where spanlab {wanted}: refused, left as it is",
        file=str(path),
        hint=fix
        or f"remove it (it is {owner}'s), then run the command again; spanlab never "
        "follows a link or opens a special file in a project",
    )


def lstat(path: Path) -> os.stat_result | None:
    """`path` itself (a link is not followed); None when nothing is there."""
    try:
        return os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None


def require_regular(path: Path, *, single: bool = False) -> os.stat_result | None:
    """`path`'s stat when it is a regular file, None when absent; anything else refused.
    `single`: also refuse a file with more than one link (a hard link is another's name)."""
    st = lstat(path)
    if st is not None and (not stat.S_ISREG(st.st_mode) or (single and st.st_nlink > 1)):
        raise refusal(path, st)
    return st


def require_output(path: Path, wanted: str = WRITES, fix: str = "") -> None:
    """An output path (an export, `--markdown`, a job summary) that exists and is not a
    regular file is refused and left as it is: a FIFO, a device, a folder or a link is
    never written through nor replaced (as root, `/dev/full` stays a device)."""
    st = lstat(path)
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise refusal(path, st, wanted, fix or "name another file, or remove it")


def require_database(path: Path) -> None:
    """A database and its `-wal`/`-shm`/`-journal`: each absent or a regular file with one
    link (a link at the journal was SQLite's bare "unable to open database file").

    SQLite opens the `-wal`/`-shm` itself and Python cannot pass `SQLITE_OPEN_NOFOLLOW`, so
    this is checked before the connect and again after it. The race that remains: a member
    who swaps in a link in the moment between the first check and SQLite's own open makes
    SQLite write its WAL or index through it (into a file the person running may write);
    the check after the connect then refuses and closes, and spanlab changes no mode there.
    """
    if str(path) == ":memory:":
        return
    for suffix in ("", "-wal", "-shm", "-journal"):
        require_regular(Path(f"{path}{suffix}"), single=True)


def open_regular(path: Path, flags: int, mode: int = 0o600) -> int:
    """`os.open` without following a link and without waiting on a FIFO; the descriptor of
    a regular file, or a refusal naming what is there. Creating is `O_CREAT | O_EXCL`."""
    if not flags & os.O_EXCL:
        require_regular(path)  # a device is never opened at all
    try:
        fd = os.open(path, flags | OPEN_FLAGS, mode)
    except OSError as exc:
        st = lstat(path) if exc.errno in _REFUSED_OPEN else None
        if st is not None and not stat.S_ISREG(st.st_mode):
            raise refusal(path, st) from None
        raise
    st = os.fstat(fd)
    if not stat.S_ISREG(st.st_mode):
        os.close(fd)
        raise refusal(path, st)
    return fd


def open_folder(path: Path) -> int:
    """A descriptor of the folder `path` itself (a link there is refused, not followed)."""
    try:
        return os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError as exc:
        st = lstat(path) if exc.errno in (errno.ELOOP, errno.ENOTDIR) else None
        if st is not None:
            raise refusal(path, st, "a folder") from None
        raise


def ours(st: os.stat_result) -> bool:
    """A file or folder whose mode spanlab may change: the running account's, and for a
    file, a regular one with one link (a folder, a real folder)."""
    if st.st_uid != os.geteuid():
        return False
    return stat.S_ISDIR(st.st_mode) or (stat.S_ISREG(st.st_mode) and st.st_nlink == 1)
