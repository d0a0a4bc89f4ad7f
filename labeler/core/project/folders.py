"""Who may work in a project, and through which folders (§20), checked before a command
opens anything: an account outside the project's group is told how to join; a folder
spanlab uses reached through another member's link, or leading outside the project
where no one who owns it configured it, is refused, naming the link, its owner and the
real path. Files inside these folders are `nofollow`'s and `sharing`'s.
"""

from __future__ import annotations

import grp
import os
import stat
from collections.abc import Collection
from pathlib import Path
from typing import Any

from labeler.core.errors import UnsafeFile
from labeler.core.files import nofollow, sharing
from labeler.core.project import config
from labeler.core.project.config import Project
from labeler.core.project.group import RUNS


def opened(root: Path, **flags: Any) -> Project:
    """spanlab.toml of `root` with the command's flags laid over it, for a command to work
    in: the person running must be in the project's group, its folders sound."""
    require_member(root, None)
    proj = config.load(root).override(**flags)
    require_member(root, proj)
    given = {key for key, value in flags.items() if value is not None}
    for key, folder in folders(proj):
        check_folder(proj, key, folder, given)
    for database in databases(proj):
        nofollow.require_database(database)
    return proj


def folders(proj: Project) -> list[tuple[str, Path]]:
    """(setting, folder) of every folder spanlab writes in."""
    cache = proj.embedding_cache.parent
    return [("db", proj.db.parent), ("runs", proj.root / RUNS),
            ("chroma_path", proj.chroma_path), ("embedding_cache", cache)]  # fmt: skip


def databases(proj: Project) -> list[Path]:
    """The SQLite files spanlab keeps (each with its `-wal`/`-shm`): checked up front, so a
    link or FIFO planted at one stops the command before it works, not half-way."""
    spanlab = proj.root / ".spanlab"
    return [proj.db, spanlab / "runs.db", proj.embedding_cache, proj.chroma_path / "chroma.sqlite3"]


def _groups() -> set[int]:
    return {os.getegid(), *os.getgroups()}


def require_member(root: Path, proj: Project | None) -> None:
    """Refuse an account that is neither in the group the project is shared with nor the
    owner of its folder, with the fix (root, CI's own checkout, a one-person project pass)."""
    places = [root / ".spanlab", root] if proj is None else [proj.db.parent]
    for place in places:
        share = sharing.share_of(place)
        gid = share.gid if share else _named_group(proj)
        try:
            st = nofollow.lstat(place)
        except PermissionError:  # a folder on the way is shut to us: 2770, we are outside
            raise _unreachable(place) from None
        if gid is None or st is None:
            continue
        if os.geteuid() == 0 or gid in _groups() or st.st_uid == os.geteuid():
            return
        raise _outsider(place, gid)


def _named_group(proj: Project | None) -> int | None:
    if proj is None or proj.group is None:
        return None
    try:
        return grp.getgrnam(proj.group).gr_gid
    except KeyError:
        return None


def _unreachable(place: Path) -> UnsafeFile:
    """The refusal for a project folder we may not even look at, naming the group of the
    nearest folder above it we can see (the one that shuts us out, in the README's set-up)."""
    for above in place.absolute().parents:
        try:
            st = os.stat(above)
        except OSError:
            continue
        if st.st_mode & 0o005 != 0o005:  # shut to others: its group decides
            return _outsider(place, st.st_gid)
    me = nofollow.name_of_user(os.geteuid())
    return UnsafeFile(
        f"{me} may not reach this project's folder (permission denied): refused, nothing read",
        file=str(place),
        hint="ask a lead which group shares the project, and to add you to it",
    )


def _outsider(place: Path, gid: int) -> UnsafeFile:
    me, group = nofollow.name_of_user(os.geteuid()), nofollow.name_of_group(gid)
    return UnsafeFile(
        f"{me} is not in group {group}, which shares this project: refused, nothing read",
        file=str(place),
        hint=f"ask a lead to add you to group {group} (as root: `usermod -aG {group} {me}`), "
        f"then log in again (or run `newgrp {group}`)",
    )


def check_folder(proj: Project, key: str, folder: Path, given: Collection[str]) -> None:
    """`folder` reached through no link but the person running's (or root's); and, when
    its setting leads outside the project, configured by the person running or by the
    folder's owner in a spanlab.toml only its owner may write."""
    root = proj.root.absolute()
    path = Path(os.path.normpath(root / folder))
    inside = path.is_relative_to(root)
    _check_links(root if inside else Path(path.anchor), path, key)
    if not inside and not _configured(proj, key, path, given):
        real = path.resolve()
        raise UnsafeFile(
            f"`{key}` leads outside the project to {real}, and no one who owns it set it there: "
            "refused",
            file=str(root / config.CONFIG_NAME),
            key=key,
            hint=f"set `{key}` in a spanlab.toml only its owner may write, or pass the path "
            "yourself (a flag, or $SPANLAB_CACHE for the cache)",
        )


def _check_links(top: Path, path: Path, key: str) -> None:
    probe = top
    for part in path.relative_to(top).parts:
        probe = probe / part
        st = nofollow.lstat(probe)
        if st is None:
            return  # the rest is made by spanlab, as the person running
        if stat.S_ISLNK(st.st_mode) and st.st_uid not in (os.geteuid(), 0):
            raise _foreign_link(probe, st, key)


def _foreign_link(link: Path, st: os.stat_result, key: str) -> UnsafeFile:
    owner = nofollow.name_of_user(st.st_uid)
    where = (
        "run folders are always kept in .spanlab/runs"
        if key == "runs"
        else f"a folder meant to be elsewhere is set by its owner as `{key}` in spanlab.toml, "
        "with its real path"
    )
    return UnsafeFile(
        f"a {nofollow.described(link, st)} is on the way to a folder spanlab uses "
        f"(real path {link.resolve()}): refused, not followed",
        file=str(link),
        hint=f"remove it (it is {owner}'s); {where}",
    )


def _configured(proj: Project, key: str, path: Path, given: Collection[str]) -> bool:
    """Whether the person running chose `path` (a flag, $SPANLAB_CACHE), or a spanlab.toml
    no one but its owner may write set it, that owner being the person running, root or
    the owner of the folder it names."""
    if key in given or (key == "embedding_cache" and os.environ.get(config.CACHE_ENV)):
        return True
    if key in proj.lead_keys:  # a lead's file set it (§21): its owner chose the place
        return True
    st = nofollow.lstat(proj.root / config.CONFIG_NAME)
    if st is None or not stat.S_ISREG(st.st_mode) or st.st_mode & 0o022:
        return False
    probe = path
    while nofollow.lstat(probe) is None and probe != probe.parent:
        probe = probe.parent
    return st.st_uid in (os.geteuid(), 0, probe.stat().st_uid)
