"""Who may write a project's files (§15): for `corpus status` and for every refusal of a
write, the file, its owner and mode, and the command that fixes it — one wording, here.

It only looks (stat, access); what makes files shareable is `labeler.core.files.sharing`.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path

from labeler.core.files.nofollow import name_of_group as name_of_group
from labeler.core.files.nofollow import name_of_user as name_of_user
from labeler.core.files.sharing import FULL_ERRNOS, Share, share_of


@dataclass(frozen=True)
class Access:
    """One file or folder as the file system has it, and whether we and the group may write."""

    path: Path
    """The file or folder looked at."""
    owner: str
    """Its owner's login name (or uid)."""
    group: str
    """Its group's name (or gid)."""
    mode: int
    """Its permission bits (`0o2775`)."""
    writable: bool
    """Whether this process may write it."""
    group_writable: bool
    """Whether its group may (and, for a folder, that it is setgid)."""
    folder: bool
    """A folder, not a file."""

    def describe(self) -> str:
        return f"{self.path} (owner {self.owner}, group {self.group}, mode {self.mode:04o})"


def look(path: Path) -> Access | None:
    """`path` as it is, or None when it does not exist."""
    try:
        st = path.stat()
    except OSError:
        return None
    folder = stat.S_ISDIR(st.st_mode)
    wanted = stat.S_IWGRP | (stat.S_ISGID | stat.S_IXGRP if folder else 0)
    return Access(
        path=path,
        owner=name_of_user(st.st_uid),
        group=name_of_group(st.st_gid),
        mode=st.st_mode & 0o7777,
        writable=os.access(path, os.W_OK | (os.X_OK if folder else 0)),
        group_writable=(st.st_mode & wanted) == wanted,
        folder=folder,
    )


def fix(found: Access, share: Share | None) -> str:
    """The command that lets the group write `found` (run by its owner, or root); when
    the group may write it already and we are not in that group, the `usermod` that adds us."""
    steps = []
    group = name_of_group(share.gid) if share else found.group
    if found.group_writable and found.group == group and not _in_group(group):
        me = name_of_user(os.geteuid())
        return f"ask root to run `usermod -aG {group} {me}` (then log in again): not in {group}"
    if share is not None and found.group != group:
        steps.append(f"chgrp {group} {found.path}")
    steps.append(f"chmod {'g+rwxs' if found.folder else 'g+rw'} {found.path}")
    command = " && ".join(steps)
    mine = found.owner == name_of_user(os.geteuid())
    who = found.owner if found.owner == "root" else f"{found.owner} (or root)"
    return f"run `{command}`" if mine else f"ask {who} to run `{command}`"


def _in_group(group: str) -> bool:
    """Whether this process has `group` (primary or supplementary)."""
    return group in {name_of_group(g) for g in (os.getegid(), *os.getgroups())}


def why_not_writable(path: Path, *, database: bool = False) -> str | None:
    """Which of a file's folder and the file (a database's `-wal` and `-shm` too) stops
    our writes, with owner, mode and fix; None when every one may be written."""
    share = share_of(path.parent)
    extra = (Path(f"{path}-wal"), Path(f"{path}-shm")) if database else ()
    for each in (path.parent, path, *extra):
        found = look(each)
        if found is not None and not found.writable:
            who = name_of_user(os.geteuid())
            if _mounted_read_only(each):
                return f"{found.path} is on a file system mounted read-only"
            return f"{found.describe()} is not writable by {who}: {fix(found, share)}"
    return None


def _mounted_read_only(path: Path) -> bool:
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def refusal_hint(path: Path, full: bool = False, *, database: bool = False) -> str:
    """The hint of a refused write: the full disk, or who may not write what."""
    if full:
        return f"the disk holding {path} is full (or the file is over its size limit): free space"
    return why_not_writable(path, database=database) or "make the file and its folder writable"


_REFUSED = (errno.EACCES, errno.EPERM, errno.EROFS)
"""The errors of a file system that will not let us write."""


def refused_write(path: Path, exc: OSError) -> tuple[str, str | None]:
    """The message and hint of a file write the system refused (`cannot write: …`)."""
    full = exc.errno in FULL_ERRNOS
    sticky = _sticky_owner(path) if exc.errno == errno.EPERM else None
    if sticky is not None:  # §20: a sticky project folder keeps each member's files their own
        return (f"cannot replace it: it is {sticky}'s, in a sticky folder (only its owner "
                "or the folder's may replace or remove it)",
                f"write to a file or folder of your own, or ask {sticky} to remove it")  # fmt: skip
    where = " (the disk is full, or the file over its size limit)" if full else ""
    hint = refusal_hint(path, full) if full or exc.errno in _REFUSED else None
    return f"cannot write: {exc.strerror or exc}{where}", hint


def _sticky_owner(path: Path) -> str | None:
    """The owner of `path` when it is another's file in a sticky folder (None otherwise)."""
    try:
        folder, found = path.parent.stat(), path.lstat()
    except OSError:
        return None
    if not folder.st_mode & stat.S_ISVTX or found.st_uid == os.geteuid():
        return None
    return name_of_user(found.st_uid)
